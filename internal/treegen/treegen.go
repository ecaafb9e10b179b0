// Package treegen generates random valid behavior trees and random inputs
// for them, for property tests of the engine (snapshot/restore, managers,
// crash recovery).
//
// A generated Document uses every built-in node type of semantics §3–§6
// (composites, decorators, subtrees, leaves), Arbor's random composites
// (Config.Random) and the branching composites IfThenElse, WhileDoElse
// and Switch (Config.Branching), guards, conditional aborts on
// Sequence, SequenceWithMemory and Selector, and the mock node types of
// Registry: the actions Act, ActKeep and ActHeap and the condition Cond. Parameters
// are always in range, so every document compiles. Blackboard keys come
// from a small set (Keys), so that the trees' checks, the Set nodes, the
// mocks and the Driver's writes interact. The mocks record their callbacks
// in a CallLog when it is the agent's owner.
//
// Everything is deterministic for a seed: Generate(seed, cfg) returns the
// same document, and a Driver's inputs for (agent, tick) depend only on its
// seed, the agent's id and the tick number — no state is carried from tick
// to tick, so a run can be resumed at any tick with the same inputs.
package treegen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/arborbt/arbor"
)

// Keys are the agent-scope data keys generated trees and the Driver use
// ("e" is also written by Act's End and Halt callbacks).
var Keys = []string{"a", "b", "c", "e"}

// GlobalKeys are the global data keys (used when Config.Globals is set).
var GlobalKeys = []string{"@g", "@h"}

// ResultKeys are the keys that script the mock actions' results: an Act or
// ActKeep node reads the key named by its parameter r on every tick.
var ResultKeys = []string{"r0", "r1", "r2"}

// The mock node types registered by Registry.
const (
	ActType     = "Act"     // action, per-activation memory, every callback
	ActKeepType = "ActKeep" // action, memory kept over the agent's life
	CondType    = "Cond"    // condition: the truth of a data key
	ActHeapType = "ActHeap" // action whose memory holds pointers (snapshotted through encoding.BinaryMarshaler)
)

// ErrMock is the error the mocks return when scripted to fail with one
// ("boom" in a key they read, "startfail" for Act's start).
var ErrMock = errors.New("treegen: scripted mock error")

// MockPanic is the value the mocks panic with when scripted to ("panic").
const MockPanic = "treegen: scripted mock panic"

// Vec is a value of a user type the Driver writes to the blackboard when
// Config.UserValues is set (a program registers a codec for it).
type Vec struct{ X, Y float64 }

// Config bounds what Generate makes. The zero value gives defaults.
type Config struct {
	Name        string // the main tree's name (default "main")
	MaxDepth    int    // nesting depth of the main tree (default 5)
	MaxChildren int    // children of a composite (default 4)
	MaxNodes    int    // soft bound on the nodes of one tree definition (default 40)
	Subtrees    int    // additional trees for SubTree nodes (default 2; -1 for none)
	Globals     bool   // use the global keys too
	ErrorNodes  bool   // include arbor.Error leaves (they report errors)
	Lists       bool   // Set values may be lists and objects
	// LeadChecks: sequences and selectors often begin with the Checks the
	// engine decides on its fast paths (an agent-scope key against a
	// number literal with any ordering or equality operator, or against a
	// boolean literal with == or !=) and now and then with look-alikes it
	// must not (global keys, strings, "{key}", exists/missing); composites,
	// more often reactive ones, hold runs of sibling branches that begin
	// with the same such Checks (see run). Off by default, so that the
	// other configurations keep their documents.
	LeadChecks bool
	// Random: composites are now and then RandomSelector or
	// RandomSequence, with and without weights (zeros among them) and
	// seeds. Off in the zero Config, so that configurations without it
	// keep their documents.
	Random bool
	// Branching: composites are now and then IfThenElse, WhileDoElse
	// (conditions that change, that run, or any node) or Switch (on a
	// data key, with cases of the Driver's kinds of values). Off in the
	// zero Config, so that configurations without it keep their
	// documents.
	Branching bool
}

func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = "main"
	}
	if c.MaxDepth <= 0 {
		c.MaxDepth = 5
	}
	if c.MaxChildren <= 0 {
		c.MaxChildren = 4
	}
	if c.MaxNodes <= 0 {
		c.MaxNodes = 40
	}
	if c.Subtrees == 0 {
		c.Subtrees = 2
	}
	if c.Subtrees < 0 {
		c.Subtrees = 0
	}
	return c
}

// DefaultConfig enables every feature.
func DefaultConfig() Config {
	return Config{Globals: true, ErrorNodes: true, Lists: true, Random: true, Branching: true}
}

// gen is the state of one Generate call.
type gen struct {
	r     *rand.Rand
	cfg   Config
	keys  []string
	trees []string // the subtree names a tree being built may reference
	nodes int      // nodes made for the tree being built
}

// Generate returns a random valid document for seed: a main tree
// (cfg.Name) and cfg.Subtrees other trees that SubTree nodes refer to
// (acyclic: a tree refers only to trees generated after it).
func Generate(seed uint64, cfg Config) *arbor.Document {
	cfg = cfg.withDefaults()
	g := &gen{r: rand.New(rand.NewPCG(seed, 0x7265657467656e)), cfg: cfg}
	g.keys = append(g.keys, Keys...)
	if cfg.Globals {
		g.keys = append(g.keys, GlobalKeys...)
	}
	doc := &arbor.Document{Main: cfg.Name, Trees: map[string]*arbor.Node{}}
	names := []string{cfg.Name}
	for i := 1; i <= cfg.Subtrees; i++ {
		names = append(names, fmt.Sprintf("%s_sub%d", cfg.Name, i))
	}
	// Build the last tree first, so that each may refer to the later ones.
	for i := len(names) - 1; i >= 0; i-- {
		g.trees = names[i+1:]
		g.nodes = 0
		depth := cfg.MaxDepth
		if i > 0 {
			depth = max(2, depth-2)
		}
		doc.Trees[names[i]] = g.node(depth, true)
	}
	return doc
}

// Tree generates a document for seed and compiles it with Registry().
func Tree(seed uint64, cfg Config) (*arbor.Tree, error) {
	return arbor.Compile(Generate(seed, cfg), Registry())
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) pick(list []string) string { return list[g.r.IntN(len(list))] }

// node makes a random node; root forces an inner node when depth allows.
func (g *gen) node(depth int, root bool) *arbor.Node {
	g.nodes++
	var n *arbor.Node
	full := g.nodes >= g.cfg.MaxNodes
	switch {
	case depth <= 1 || full:
		n = g.leaf()
	case root:
		if g.chance(0.8) {
			n = g.composite(depth)
		} else {
			n = g.decorator(depth)
		}
	default:
		switch x := g.r.Float64(); {
		case x < 0.35:
			n = g.composite(depth)
		case x < 0.6:
			n = g.decorator(depth)
		case x < 0.65 && len(g.trees) > 0:
			n = arbor.SubTree(g.pick(g.trees))
		default:
			n = g.leaf()
		}
	}
	if g.chance(0.08) {
		n.Guard = g.guard(2)
	}
	if g.chance(0.1) {
		n.Name = fmt.Sprintf("n%d", g.r.IntN(100))
	}
	return n
}

var compositeTypes = []string{
	"Sequence", "MemSequence", "SequenceWithMemory", "ReactiveSequence",
	"Selector", "Fallback", "MemPriority", "ReactiveSelector", "Priority", "ReactiveFallback", "PrioritySelector",
	"Parallel", "ParallelAll",
}

func (g *gen) composite(depth int) *arbor.Node {
	typ := g.pick(compositeTypes)
	root := g.nodes == 1
	if g.chance(0.3) || (root && g.chance(0.4)) {
		// Favour the types that take aborts.
		typ = g.pick([]string{"Sequence", "SequenceWithMemory", "Selector"})
	}
	if g.cfg.LeadChecks && g.chance(0.25) {
		// Favour the reactive types: they visit the siblings before a
		// running child, which may then be one of a run.
		typ = g.pick([]string{"ReactiveSequence", "ReactiveSelector", "Priority"})
	}
	if g.cfg.Random && g.chance(0.12) {
		typ = g.pick(randomTypes)
	}
	if g.cfg.Branching && g.chance(0.12) {
		return g.branching(depth)
	}
	nk := 1 + g.r.IntN(g.cfg.MaxChildren)
	n := &arbor.Node{Type: typ}
	switch typ {
	case "Sequence", "MemSequence", "SequenceWithMemory", "Selector", "Fallback", "MemPriority":
		if g.chance(0.6) {
			n.Abort = arbor.Abort(1 + g.r.IntN(3))
			if root && n.Abort == arbor.AbortLower && g.chance(0.7) {
				// A lower observer needs a composite above its own.
				n.Abort = arbor.AbortSelf
			}
		}
	}
	if n.Abort != arbor.AbortNone && nk == 1 {
		nk = 2 + g.r.IntN(g.cfg.MaxChildren-1)
	}
	for i := 0; i < nk; i++ {
		switch {
		case n.Abort != arbor.AbortNone && i < nk-1 && g.chance(0.6):
			// Conditions before a later child that runs: what aborts watch.
			g.nodes++
			c := g.condition()
			if g.chance(0.6) {
				c = g.flipCondition()
			}
			if g.chance(0.2) {
				c = arbor.Inverter(c)
			}
			n.Children = append(n.Children, c)
		case n.Abort != arbor.AbortNone && i == nk-1 && g.chance(0.4):
			g.nodes++
			n.Children = append(n.Children, g.action())
		default:
			n.Children = append(n.Children, g.node(depth-1, false))
		}
	}
	if g.cfg.LeadChecks {
		n.Children = g.leads(typ, depth, n.Children)
	}
	switch typ {
	case "Parallel":
		if g.chance(0.8) {
			n.With("success", g.threshold(nk, false))
		}
		if g.chance(0.8) {
			n.With("failure", g.threshold(nk, true))
		}
		if g.chance(0.5) {
			n.With("retryFailed", g.chance(0.5))
		}
	case "ParallelAll":
		if g.chance(0.8) {
			n.With("maxFailures", g.threshold(nk, false))
		}
	case "RandomSelector", "RandomSequence":
		g.randomParams(n)
	}
	return n
}

// randomTypes are Arbor's random composites (Config.Random).
var randomTypes = []string{"RandomSelector", "RandomSequence"}

// randomParams gives a random composite its optional weights (small
// numbers, fractions and zeros, never all zero) and seed (small integers
// of either sign, so that agents share seeds now and then).
func (g *gen) randomParams(n *arbor.Node) {
	if g.chance(0.5) {
		ws := make([]any, len(n.Children))
		pos := false
		for i := range ws {
			w := []float64{0, 0, 0.5, 1, 1, 2, 3, 10}[g.r.IntN(8)]
			ws[i] = w
			pos = pos || w > 0
		}
		if !pos {
			ws[g.r.IntN(len(ws))] = 1.0
		}
		n.With("weights", ws)
	}
	if g.chance(0.4) {
		n.With("seed", float64(g.r.IntN(21)-10))
	}
}

// branchingTypes are the branching composites (Config.Branching).
var branchingTypes = []string{"IfThenElse", "WhileDoElse", "Switch"}

// branching makes an IfThenElse or WhileDoElse, whose condition is often
// one the Driver's writes flip, sometimes one that runs for a while (an
// action), else any node, with or without the third child; or a Switch on
// a data key, with one to three cases of the kinds the Driver writes
// (repeats allowed) and a child per case plus the default.
func (g *gen) branching(depth int) *arbor.Node {
	typ := g.pick(branchingTypes)
	n := &arbor.Node{Type: typ}
	if typ == "Switch" {
		cases := make([]any, 1+g.r.IntN(3))
		for i := range cases {
			cases[i] = g.scalar()
		}
		n.With("key", g.pick(g.keys)).With("cases", cases)
		for range len(cases) + 1 {
			n.Children = append(n.Children, g.node(depth-1, false))
		}
		return n
	}
	var cond *arbor.Node
	switch x := g.r.IntN(10); {
	case x < 5:
		g.nodes++
		cond = g.flipCondition()
	case x < 7:
		g.nodes++
		cond = g.action()
	default:
		cond = g.node(depth-1, false)
	}
	n.Children = []*arbor.Node{cond, g.node(depth-1, false)}
	if g.chance(0.7) {
		n.Children = append(n.Children, g.node(depth-1, false))
	}
	return n
}

// The composites by how their leading Checks decide them: sequences stop
// at a failing one, selectors at a succeeding one.
var (
	sequenceTypes = []string{"Sequence", "MemSequence", "ReactiveSequence"}
	selectorTypes = []string{"Selector", "Fallback", "MemPriority", "ReactiveSelector", "Priority", "ReactiveFallback", "PrioritySelector"}
)

// leads rewrites the children of a composite of type typ for
// Config.LeadChecks: a sequence or selector often gets one to three
// leading fast Checks, and a composite that goes through its children in
// order (sequences, selectors, SequenceWithMemory) often gets a run of
// sibling branches beginning with the same Checks (see run).
func (g *gen) leads(typ string, depth int, kids []*arbor.Node) []*arbor.Node {
	isSeq, isSel := slices.Contains(sequenceTypes, typ), slices.Contains(selectorTypes, typ)
	if (isSeq || isSel) && g.chance(0.5) {
		var pre []*arbor.Node
		for i := 1 + g.r.IntN(3); i > 0; i-- {
			g.nodes++
			pre = append(pre, g.leadCheck())
		}
		kids = append(pre, kids...)
	}
	if (isSeq || isSel || typ == "SequenceWithMemory") && depth > 2 && g.chance(0.5) {
		at := g.r.IntN(len(kids) + 1)
		kids = slices.Insert(kids, at, g.run(depth-1, isSel)...)
	}
	return kids
}

// run makes two to five consecutive sibling branches (sequences or
// selectors) that begin with the same one to three Checks (mostly fast
// ones), then differ: a branch may keep fewer of the shared Checks, end
// them with a near copy (the same key, another operator or literal), add
// Checks of its own, and ends in something that runs for a while — often
// then writing a shared Check's key and ending with the result that lets
// the parent go on. The branches are mostly of the kind a parent of the
// given kind goes past when a leading Check decides them (sequences under
// a selector, selectors under a sequence), so that the engine decides the
// later ones from an earlier one's Checks; now and then the whole run is of
// the other kind (its decision ends the parent's loop), and now and then a
// branch is guarded, of the other kind, or watched by an abort.
func (g *gen) run(depth int, underSelector bool) []*arbor.Node {
	kinds, other := selectorTypes, sequenceTypes
	if underSelector != g.chance(0.2) {
		// Mostly the kind the parent goes past; else a run of branches
		// whose decision ends the parent's loop.
		kinds, other = other, kinds
	}
	shared := make([]checkDef, 1+g.r.IntN(3))
	for i := range shared {
		shared[i] = g.leadCheckDef()
	}
	var out []*arbor.Node
	for i, n := 0, 2+g.r.IntN(4); i < n; i++ {
		typ := g.pick(kinds)
		if g.chance(0.1) {
			typ = g.pick(other)
		}
		b := &arbor.Node{Type: typ}
		k := len(shared)
		if g.chance(0.3) {
			k = 1 + g.r.IntN(len(shared))
		}
		// A near copy: the shared Checks up to near, then one on the same
		// key with another operator or literal. Often the first branch,
		// so that it may be decided where the next ones differ from it.
		near := -1
		if (i == 0 && g.chance(0.4)) || g.chance(0.1) {
			near = g.r.IntN(k)
			k = near + 1
		}
		for j, c := range shared[:k] {
			if j == near {
				c = g.nearCopy(c)
			}
			b.Children = append(b.Children, c.node()) // a copy each
		}
		switch x := g.r.IntN(20); {
		case x < 7:
			// Decided after the shared Checks (also when they all pass,
			// so that the parent goes on to the next sibling).
			b.Children = append(b.Children, g.leadCheck())
		case x < 9:
			b.Children = append(b.Children, g.check())
		}
		switch x := g.r.IntN(20); {
		case x < 10:
			// Runs for a while, then ends so that the parent goes on to
			// the next sibling (which the parent may visit while this one
			// runs, when it is reactive); half the time it writes the key
			// of a shared Check first (sometimes expiring at once), so
			// that the next sibling's Checks must be evaluated afresh.
			tail := arbor.Sequence(g.action())
			if x < 5 {
				tail.Children[0] = arbor.WaitTicks(1 + g.r.IntN(3))
			} else {
				w := arbor.Set(shared[g.r.IntN(len(shared))].key, g.leadValue())
				if g.chance(0.4) {
					w.With("ttlMs", []int{0, 0, 40, 80}[g.r.IntN(4)])
				}
				tail.Children = append(tail.Children, w)
			}
			if slices.Contains(sequenceTypes, typ) {
				tail.Children = append(tail.Children, arbor.AlwaysFailure())
			}
			b.Children = append(b.Children, tail)
		case x < 16 || depth <= 1:
			b.Children = append(b.Children, g.action())
		default:
			b.Children = append(b.Children, g.node(depth-1, false))
		}
		if g.chance(0.2) {
			b.Children = append(b.Children, g.action())
		}
		g.nodes += len(b.Children) + 1
		switch {
		case g.chance(0.05):
			b.Guard = g.guard(2)
		case g.chance(0.05) && (typ == "Sequence" || typ == "Selector"):
			b.Abort = arbor.AbortSelf
		}
		out = append(out, b)
	}
	return out
}

// leadCheck makes a Check the engine compares on its fast paths: an
// agent-scope key against a number literal (any of ==, !=, <, <=, >, >=)
// or a boolean literal (== or !=). The Driver writes numbers, booleans,
// strings and other values to the same keys, with and without expiry, and
// deletes them, so that such a Check also meets missing, expired and
// mistyped values.
func (g *gen) leadCheck() *arbor.Node { return g.leadCheckDef().node() }

// checkDef is a Check's parameters.
type checkDef struct {
	key, op string
	value   any
}

func (c checkDef) node() *arbor.Node {
	if c.value == nil {
		return arbor.Check(c.key, c.op)
	}
	return arbor.Check(c.key, c.op, c.value)
}

func (g *gen) leadCheckDef() checkDef {
	if g.chance(0.1) {
		return g.slowCheckDef()
	}
	key := g.pick(Keys)
	if g.chance(0.25) {
		return checkDef{key, g.pick([]string{"==", "!="}), g.chance(0.5)}
	}
	return checkDef{key, g.pick(ops[:6]), g.leadNumber()}
}

// slowCheckDef makes a Check that looks like a fast one but is not
// compared on the fast paths: a global key, a string literal, a "{key}"
// value, exists or missing.
func (g *gen) slowCheckDef() checkDef {
	key := g.pick(Keys)
	switch g.r.IntN(5) {
	case 0:
		return checkDef{g.pick(GlobalKeys), g.pick(ops[:6]), g.leadNumber()}
	case 1:
		return checkDef{g.pick(GlobalKeys), g.pick(ops[:2]), g.chance(0.5)}
	case 2:
		return checkDef{key, g.pick(ops[:6]), g.pick(stringValues)}
	case 3:
		return checkDef{key, g.pick(ops[:6]), "{" + g.pick(Keys) + "}"}
	}
	return checkDef{key, g.pick(ops[6:]), nil}
}

// nearCopy returns a Check on the same key as c with another operator or
// literal.
func (g *gen) nearCopy(c checkDef) checkDef {
	for {
		d := g.leadCheckDef()
		d.key = c.key
		if d.op != c.op || fmt.Sprint(d.value) != fmt.Sprint(c.value) {
			return d
		}
	}
}

// leadNumber is a number literal of a leading Check: the Driver's numbers,
// now and then NaN, an infinity or -0.
func (g *gen) leadNumber() any {
	switch x := g.r.IntN(50); {
	case x == 0:
		return math.NaN()
	case x == 1:
		return math.Inf(1 - 2*g.r.IntN(2))
	case x == 2:
		return math.Copysign(0, -1)
	case x < 13:
		return float64(g.r.IntN(8)) / 2
	}
	return g.r.IntN(4)
}

// leadValue is a value a Set writes to a leading Check's key.
func (g *gen) leadValue() any {
	if g.chance(0.25) {
		return g.chance(0.5)
	}
	return g.leadNumber()
}

// condition makes a condition leaf (Check, Cond, Success, Failure).
func (g *gen) condition() *arbor.Node {
	switch g.r.IntN(10) {
	case 0:
		return arbor.AlwaysSuccess()
	case 1:
		return arbor.AlwaysFailure()
	case 2, 3, 4:
		return arbor.Leaf(CondType, "key", g.pick(g.keys))
	}
	return g.check()
}

// flipCondition makes a condition whose result the Driver's writes change
// often.
func (g *gen) flipCondition() *arbor.Node {
	key := g.pick(g.keys)
	switch g.r.IntN(4) {
	case 0, 1:
		return arbor.Leaf(CondType, "key", key)
	case 2:
		return arbor.Check(key, g.pick([]string{"exists", "missing"}))
	}
	return arbor.Check(key, g.pick([]string{"<", ">="}), 2)
}

// action makes a leaf that runs for a while: a mock action or a Wait.
func (g *gen) action() *arbor.Node {
	switch g.r.IntN(7) {
	case 0:
		return arbor.Leaf(ActKeepType, "r", g.pick(ResultKeys))
	case 1:
		return arbor.Leaf(ActHeapType, "r", g.pick(ResultKeys))
	case 2:
		return arbor.WaitTicks(1 + g.r.IntN(3))
	}
	return g.act()
}

func (g *gen) act() *arbor.Node {
	n := arbor.Leaf(ActType, "r", g.pick(ResultKeys))
	switch g.r.IntN(4) {
	case 0:
		n.With("n", g.r.IntN(4))
	case 1:
		n.With("n", "{"+g.pick(g.keys)+"}")
	}
	return n
}

// threshold returns -1, 1..nk, or (when zero is allowed) 0.
func (g *gen) threshold(nk int, zero bool) int {
	switch x := g.r.IntN(4); {
	case x == 0:
		return -1
	case x == 1 && zero:
		return 0
	}
	return 1 + g.r.IntN(nk)
}

var decoratorTypes = []string{
	"Inverter", "ForceSuccess", "AlwaysSucceed", "ForceFailure",
	"Repeat", "RetryUntilSuccessful", "RepeatUntilSuccess", "RepeatUntilFailure",
	"Timeout", "MaxTime", "Delay", "Cooldown", "Limiter", "RunOnce",
}

func (g *gen) decorator(depth int) *arbor.Node {
	typ := g.pick(decoratorTypes)
	n := &arbor.Node{Type: typ, Children: []*arbor.Node{g.node(depth-1, false)}, SingleChild: g.chance(0.5)}
	counts := []int{-1, 1, 2, 3}
	switch typ {
	case "Repeat":
		n.With("count", []int{-1, 0, 1, 2, 3}[g.r.IntN(5)])
	case "RetryUntilSuccessful", "RepeatUntilSuccess":
		n.With("attempts", counts[g.r.IntN(len(counts))])
	case "RepeatUntilFailure":
		if g.chance(0.7) {
			n.With("max", counts[g.r.IntN(len(counts))])
		}
	case "Limiter":
		n.With("max", counts[g.r.IntN(len(counts))])
	case "Timeout", "MaxTime", "Delay", "Cooldown":
		n.With("ms", g.ms())
	case "RunOnce":
		switch g.r.IntN(3) {
		case 1:
			n.With("then", "success")
		case 2:
			n.With("then", "failure")
		}
	}
	return n
}

// ms returns a duration in milliseconds: mostly whole, sometimes with a
// fraction, sometimes 0.
func (g *gen) ms() float64 {
	switch g.r.IntN(6) {
	case 0:
		return 0
	case 1:
		return float64(g.r.IntN(3000)) / 10
	}
	return float64(g.r.IntN(250))
}

// leaf makes a random leaf: built-in leaves and mocks.
func (g *gen) leaf() *arbor.Node {
	switch x := g.r.IntN(100); {
	case x < 18:
		return g.check()
	case x < 28:
		return arbor.Leaf(CondType, "key", g.pick(g.keys))
	case x < 48:
		return g.act()
	case x < 53:
		return arbor.Leaf(ActKeepType, "r", g.pick(ResultKeys))
	case x < 56:
		return arbor.Leaf(ActHeapType, "r", g.pick(ResultKeys))
	case x < 66:
		return g.set()
	case x < 74:
		if g.chance(0.5) {
			return arbor.WaitTicks(g.r.IntN(4))
		}
		return arbor.Leaf("Wait", "ms", g.ms())
	case x < 82:
		return arbor.AlwaysSuccess()
	case x < 89:
		return arbor.AlwaysFailure()
	case x < 95:
		return arbor.AlwaysRunning()
	case g.cfg.ErrorNodes && x < 97:
		if g.chance(0.5) {
			return arbor.Leaf(arbor.ErrorType)
		}
		return arbor.Leaf(arbor.ErrorType, "message", "generated error node")
	}
	return g.check()
}

var ops = []string{"==", "!=", "<", "<=", ">", ">=", "exists", "missing"}

func (g *gen) check() *arbor.Node {
	op := g.pick(ops)
	key := g.pick(g.keys)
	switch op {
	case "exists", "missing":
		return arbor.Check(key, op)
	case "<", "<=", ">", ">=":
		if g.chance(0.15) {
			return arbor.Check(key, op, "{"+g.pick(g.keys)+"}")
		}
		if g.chance(0.8) {
			return arbor.Check(key, op, g.r.IntN(4))
		}
		return arbor.Check(key, op, g.pick(stringValues))
	}
	if g.chance(0.15) {
		return arbor.Check(key, op, "{"+g.pick(g.keys)+"}")
	}
	return arbor.Check(key, op, g.scalar())
}

var stringValues = []string{"x", "y", "", "é"}

// scalar returns a number, boolean or string as a file would hold it.
func (g *gen) scalar() any {
	switch g.r.IntN(6) {
	case 0, 1, 2:
		return g.r.IntN(4)
	case 3:
		return g.chance(0.5)
	case 4:
		return float64(g.r.IntN(8)) / 2
	}
	return g.pick(stringValues)
}

func (g *gen) set() *arbor.Node {
	key := g.pick(g.keys)
	if g.chance(0.1) {
		key = g.pick(ResultKeys)
	}
	var v any
	switch x := g.r.IntN(20); {
	case x < 2:
		v = nil // deletes
	case x < 4:
		v = "{" + g.pick(g.keys) + "}"
	case x < 5 && key[0] == 'r':
		v = g.pick([]string{"success", "failure", "running"})
	case x < 6 && g.cfg.Lists:
		v = []any{g.r.IntN(3), "x", []any{true}}
	case x < 7 && g.cfg.Lists:
		v = map[string]any{"k": g.r.IntN(3), "l": []any{"z"}}
	default:
		v = g.scalar()
	}
	n := arbor.Set(key, v)
	if g.chance(0.25) {
		n.With("ttlMs", g.ms())
	}
	return n
}

// guard makes a guard: conditions under Inverter/ForceSuccess/ForceFailure
// and the four composites a guard may hold (which may carry abort there).
func (g *gen) guard(depth int) *arbor.Node {
	if depth <= 1 || g.chance(0.5) {
		return g.condition()
	}
	switch g.r.IntN(7) {
	case 0:
		return arbor.Inverter(g.guard(depth - 1))
	case 1:
		return arbor.ForceSuccess(g.guard(depth - 1))
	case 2:
		return arbor.ForceFailure(g.guard(depth - 1))
	}
	typ := []string{"Sequence", "Selector", "ReactiveSequence", "ReactiveSelector"}[g.r.IntN(4)]
	n := &arbor.Node{Type: typ}
	for i := 1 + g.r.IntN(3); i > 0; i-- {
		n.Children = append(n.Children, g.guard(depth-1))
	}
	if (typ == "Sequence" || typ == "Selector") && g.chance(0.2) {
		n.Abort = arbor.AbortBoth
	}
	return n
}

// Registry returns a registry with the built-in types and the mocks.
func Registry() *arbor.Registry {
	reg := arbor.NewRegistry()
	for _, err := range []error{
		arbor.RegisterAction[act, actMem](reg, ActType),
		arbor.RegisterAction[actKeep, actKeepMem](reg, ActKeepType, arbor.KeepMemory()),
		arbor.RegisterCondition[cond](reg, CondType),
		arbor.RegisterAction[actHeap, actHeapMem](reg, ActHeapType),
	} {
		if err != nil {
			panic(err)
		}
	}
	return reg
}

// keysByName holds a typed handle for each key the mocks read or write,
// made on first use (not when the package initializes, so that a program
// using the generator chooses which keys it interns first) and shared by
// agents ticking in parallel.
var keysByName = sync.OnceValue(func() map[string]arbor.Key[arbor.Value] {
	m := map[string]arbor.Key[arbor.Value]{}
	for _, list := range [][]string{Keys, GlobalKeys, ResultKeys} {
		for _, k := range list {
			m[k] = arbor.NewKey[arbor.Value](k)
		}
	}
	return m
})

var keyE = sync.OnceValue(func() arbor.Key[float64] { return arbor.NewKey[float64]("e") })

func read(c *arbor.Ctx, key string) (arbor.Value, bool) {
	k, ok := keysByName()[key]
	if !ok {
		return c.Blackboard().Lookup(key)
	}
	v, err := k.Get(c.Blackboard())
	return v, err == nil
}

// CallLog records, in order, the callbacks of the mock nodes of an agent
// whose owner it is (arbor.WithOwner(log)): for tests that compare what
// the user nodes of two agents saw. Agents with another owner, or none,
// record nothing.
type CallLog struct{ Calls []Call }

// Call is one callback of a mock node.
type Call struct {
	Node   int          // the node id
	What   string       // "start", "tick", "end", "halt", "pause", "resume" or "check"
	N      int64        // the mock's tick count after the callback (Act, ActKeep, ActHeap)
	Status arbor.Status // tick and end: the result (Invalid when the tick panicked); check: Success or Failure
	Err    bool         // the callback returned an error
}

func (c Call) String() string {
	return fmt.Sprintf("node %d %s n=%d %s err=%v", c.Node, c.What, c.N, c.Status, c.Err)
}

// logCall records a callback when the agent's owner is a *CallLog.
func logCall(c *arbor.Ctx, what string, n int64, s arbor.Status, err error) {
	if l, ok := c.Agent().Owner().(*CallLog); ok {
		l.Calls = append(l.Calls, Call{Node: c.Node(), What: what, N: n, Status: s, Err: err != nil})
	}
}

// scripted interprets a result key's value for a mock action that has
// ticked ticks times in its memory: a status name, "boom" (an error),
// "panic", a number k (running while ticks ≤ k, then success), a boolean
// (success or failure). Missing and other values: running while ticks ≤
// limit, then success; running forever when limit is 0.
func scripted(v arbor.Value, present bool, ticks, limit int64) (arbor.Status, error) {
	if present {
		if s, ok := v.Str(); ok {
			switch s {
			case "boom":
				return arbor.Failure, ErrMock
			case "panic":
				panic(MockPanic)
			}
			if st, ok := arbor.ParseStatus(s); ok {
				return st, nil
			}
		}
		if f, ok := v.Number(); ok {
			if float64(ticks) <= f {
				return arbor.Running, nil
			}
			return arbor.Success, nil
		}
		if b, ok := v.Bool(); ok {
			if b {
				return arbor.Success, nil
			}
			return arbor.Failure, nil
		}
	}
	if limit > 0 && ticks > limit {
		return arbor.Success, nil
	}
	return arbor.Running, nil
}

// act is the Act mock: it reads its result key every tick (see scripted);
// n (a literal or "{key}", read at start) bounds the ticks when the key
// holds no script. End writes the ticks to "e", Halt writes -1 there.
type act struct {
	R string               `arbor:"r,required"`
	N arbor.Param[float64] `arbor:"n"`
}

type actMem struct {
	ticks, limit, pauses int64
}

func (p *act) Start(c *arbor.Ctx, m *actMem) (err error) {
	defer func() { logCall(c, "start", m.ticks, arbor.Invalid, err) }()
	n, err := p.N.Get(c)
	if err != nil {
		return err
	}
	if n > 0 && n < 1e6 {
		m.limit = int64(n)
	}
	if v, ok := read(c, p.R); ok {
		if s, _ := v.Str(); s == "startfail" {
			return ErrMock
		}
	}
	return nil
}

func (p *act) Tick(c *arbor.Ctx, m *actMem) (s arbor.Status, err error) {
	defer func() { logCall(c, "tick", m.ticks, s, err) }()
	m.ticks++
	v, ok := read(c, p.R)
	return scripted(v, ok, m.ticks+m.pauses, m.limit)
}

func (p *act) End(c *arbor.Ctx, m *actMem, s arbor.Status) {
	logCall(c, "end", m.ticks, s, nil)
	keyE().Set(c.Blackboard(), float64(m.ticks))
}

func (p *act) Halt(c *arbor.Ctx, m *actMem) {
	logCall(c, "halt", m.ticks, arbor.Invalid, nil)
	keyE().Set(c.Blackboard(), -1)
}

func (p *act) Pause(c *arbor.Ctx, m *actMem, paused bool) {
	if paused {
		m.pauses++
		logCall(c, "pause", m.ticks, arbor.Invalid, nil)
	} else {
		logCall(c, "resume", m.ticks, arbor.Invalid, nil)
	}
}

// actKeep is the ActKeep mock: like Act without callbacks, but its tick
// count lives over the agent's life, so a number k in its key makes it
// succeed on every (k+1)-th tick of its life.
type actKeep struct {
	R string `arbor:"r,required"`
}

type actKeepMem struct{ total int64 }

func (p *actKeep) Tick(c *arbor.Ctx, m *actKeepMem) (s arbor.Status, err error) {
	defer func() { logCall(c, "tick", m.total, s, err) }()
	m.total++
	v, ok := read(c, p.R)
	if f, isNum := v.Number(); ok && isNum {
		if k := int64(f); k >= 0 && m.total%(k+1) == 0 {
			return arbor.Success, nil
		}
		return arbor.Running, nil
	}
	return scripted(v, ok, m.total, 0)
}

// actHeap is the ActHeap mock: like ActKeep over one activation, with a
// memory that holds pointers (a string and a slice), so that the engine
// keeps it on the heap and snapshots it through MarshalBinary.
type actHeap struct {
	R string `arbor:"r,required"`
}

type actHeapMem struct {
	last  string  // the last script value seen
	ticks []int64 // one entry per tick of the activation: its status
}

// MarshalBinary encodes the memory: the length of last, last, then the
// statuses.
func (m *actHeapMem) MarshalBinary() ([]byte, error) {
	b := binary.AppendUvarint(nil, uint64(len(m.last)))
	b = append(b, m.last...)
	for _, t := range m.ticks {
		b = binary.AppendVarint(b, t)
	}
	return b, nil
}

// UnmarshalBinary decodes what MarshalBinary wrote, rejecting anything
// else.
func (m *actHeapMem) UnmarshalBinary(b []byte) error {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return errors.New("actHeapMem: bad length")
	}
	last := string(b[k : k+int(n)])
	b = b[k+int(n):]
	var ticks []int64
	for len(b) > 0 {
		t, k := binary.Varint(b)
		if k <= 0 || t < int64(arbor.Success) || t > int64(arbor.Running) {
			return errors.New("actHeapMem: bad status")
		}
		ticks = append(ticks, t)
		b = b[k:]
	}
	m.last, m.ticks = last, ticks
	return nil
}

func (p *actHeap) Tick(c *arbor.Ctx, m *actHeapMem) (s arbor.Status, err error) {
	defer func() { logCall(c, "tick", int64(len(m.ticks)), s, err) }()
	v, ok := read(c, p.R)
	m.last = v.String()
	s, err = scripted(v, ok, int64(len(m.ticks))+1, 3)
	m.ticks = append(m.ticks, int64(s))
	return s, err
}

// cond is the Cond mock: the truth of its key (true, a non-zero number, a
// non-empty string; "boom" is an error and "panic" panics).
type cond struct {
	Key string `arbor:"key,required"`
}

func (p *cond) Check(c *arbor.Ctx) (r bool, err error) {
	defer func() { logCall(c, "check", 0, statusOf(r), err) }()
	v, ok := read(c, p.Key)
	if !ok {
		return false, nil
	}
	if b, isBool := v.Bool(); isBool {
		return b, nil
	}
	if f, isNum := v.Number(); isNum {
		return f != 0 && !math.IsNaN(f), nil
	}
	if s, isStr := v.Str(); isStr {
		switch s {
		case "boom":
			return false, ErrMock
		case "panic":
			panic(MockPanic)
		}
		return s != "", nil
	}
	return false, nil
}

func statusOf(b bool) arbor.Status {
	if b {
		return arbor.Success
	}
	return arbor.Failure
}

// Expected reports whether a node error is one that generated trees and
// Driver inputs provoke on purpose: arbor.Error leaves, checks ordering
// values of different kinds, Set copying a missing "{key}", scripted mock
// errors and panics, and Act reading a missing or mistyped "{key}" n.
func Expected(e *arbor.NodeError) bool {
	msg := e.Err.Error()
	switch e.Type {
	case arbor.ErrorType:
		return true
	case "Check":
		return strings.Contains(msg, "cannot order") || strings.Contains(msg, "have no order")
	case "Set":
		return errors.Is(e.Err, arbor.ErrMissing)
	case ActType, ActKeepType, ActHeapType, CondType:
		var pe *arbor.PanicError
		if errors.As(e.Err, &pe) {
			return pe.Value == MockPanic
		}
		var te *arbor.TypeError
		return errors.Is(e.Err, ErrMock) || (e.Type == ActType && (errors.Is(e.Err, arbor.ErrMissing) || errors.As(e.Err, &te)))
	}
	return false
}

// Driver makes the random inputs of runs: before each tick, writes and
// deletes of the data keys (with and without expiry), results for the
// mocks, and now and then an agent operation. Its choices for (agent,
// tick) depend only on its seed, so runs can be resumed at any tick.
type Driver struct {
	Seed uint64
	// Globals: write the global keys too.
	Globals bool
	// UserValues: write Vec values sometimes (a codec must be registered
	// for snapshots).
	UserValues bool
	// Ops: pause, resume, halt and reset agents now and then (Op).
	Ops bool
	// NoTTL: write without expiry (an expiry counts from the agent's
	// clock, which a fresh agent has at 0).
	NoTTL bool
	// ExactTTL: Now has no jitter (tick t is at t × Tick) and expiring
	// writes last 0 to 3 whole ticks, so that entries expire exactly at the
	// time of a later tick: the boundary of "present until Expires".
	ExactTTL bool
	// Numeric: half the data key writes are numbers 0 to 3, so that
	// Checks against numbers pass and fail more often than they meet
	// other kinds (which they still do).
	Numeric bool
}

// Tick is the tick period of Now: ticks are Tick apart, plus a jitter.
const Tick = 40 * time.Millisecond

// Now returns the game time of tick t (t ≥ 1): increasing, about t × Tick,
// with a jitter of less than Tick (none with ExactTTL), the same for every
// agent.
func (d *Driver) Now(t int) time.Duration {
	if d.ExactTTL {
		return time.Duration(t) * Tick
	}
	r := rand.New(rand.NewPCG(d.Seed^0x6e6f77, uint64(t)))
	return time.Duration(t)*Tick + time.Duration(r.Int64N(int64(Tick)))
}

func (d *Driver) rng(id, t int, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(d.Seed^stream, uint64(t)<<32^uint64(uint32(id))))
}

var resultScript = []any{"success", "failure", "running", "running", "running", 0, 1, 2, 3, 5, true, false, "boom", "panic", "startfail", nil}

// Apply writes the inputs of tick t for agent id to bb (before the tick).
// Global writes made during a Manager tick are buffered like any other.
func (d *Driver) Apply(bb *arbor.Blackboard, id, t int) {
	r := d.rng(id, t, 0x696e707574)
	for _, k := range ResultKeys {
		switch x := r.IntN(10); {
		case x < 4:
			v := resultScript[r.IntN(len(resultScript))]
			if s, ok := v.(string); ok && (s == "boom" || s == "panic" || s == "startfail") && r.IntN(3) != 0 {
				v = "running" // keep faults rarer than the other scripts
			}
			bb.Set(k, v)
		case x < 5:
			bb.Delete(k)
		}
	}
	keys := Keys
	if d.Globals {
		keys = append(append([]string{}, Keys...), GlobalKeys...)
	}
	for n := 1 + r.IntN(4); n > 0; n-- {
		k := keys[r.IntN(len(keys))]
		switch x := r.IntN(20); {
		case x < 3:
			bb.Delete(k)
		case x < 5 && !d.NoTTL:
			v := d.Value(r)
			ttl := time.Duration(r.IntN(150)) * time.Millisecond
			if d.ExactTTL {
				ttl = ttl.Truncate(Tick)
			}
			bb.SetTTL(k, v, ttl)
		default:
			bb.Set(k, d.Value(r))
		}
	}
}

// Value returns a random value for a data key: mostly small numbers
// (always half the time with Numeric), booleans and strings, now and then
// a NaN, an infinity, -0, a list, or a Vec with UserValues.
func (d *Driver) Value(r *rand.Rand) any {
	if d.Numeric && r.IntN(2) == 0 {
		return float64(r.IntN(4))
	}
	switch x := r.IntN(40); {
	case x < 14:
		return float64(r.IntN(4))
	case x < 18:
		return float64(r.IntN(8)) / 2
	case x < 24:
		return r.IntN(2) == 0
	case x < 32:
		return []string{"x", "y", "", "é", "boom"}[r.IntN(5)]
	case x < 33:
		return "panic"
	case x < 34:
		return math.NaN()
	case x < 35:
		return math.Inf(1 - 2*r.IntN(2))
	case x < 36:
		return math.Copysign(0, -1)
	case x < 38 && d.UserValues:
		return Vec{X: float64(r.IntN(3)), Y: -1}
	case x < 40:
		return []any{float64(r.IntN(3)), "x"}
	}
	return 1.0
}

// Op is an agent operation the Driver asks for before a tick.
type Op uint8

// The agent operations.
const (
	OpNone Op = iota
	OpPause
	OpResume
	OpHalt
	OpReset
)

func (o Op) String() string {
	return [...]string{"none", "pause", "resume", "halt", "reset"}[o]
}

// Op returns the operation for agent id before tick t (OpNone unless
// d.Ops): a paused agent is resumed with probability 1/3, a running one is
// paused, halted or reset rarely.
func (d *Driver) Op(id, t int, paused bool) Op {
	if !d.Ops {
		return OpNone
	}
	r := d.rng(id, t, 0x6f7073)
	x := r.IntN(100)
	if paused {
		if x < 33 {
			return OpResume
		}
		return OpNone
	}
	switch {
	case x < 3:
		return OpPause
	case x < 5:
		return OpHalt
	case x < 6:
		return OpReset
	}
	return OpNone
}

// Do applies an operation to an agent.
func Do(a *arbor.Agent, op Op) {
	switch op {
	case OpPause:
		a.Pause()
	case OpResume:
		a.Resume()
	case OpHalt:
		a.Halt()
	case OpReset:
		a.Reset()
	}
}
