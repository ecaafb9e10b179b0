package refmodel

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/arborbt/arbor"
)

// Model is one agent running one tree document in the reference model.
// It is not safe for concurrent use.
type Model struct {
	root   *node
	id     int     // the agent's id (random composites' seeds)
	nodes  []*node // every node, the main tree's in pre-order, then each guard's
	bb     *Blackboard
	paused bool
	last   arbor.Status // the root's last result (returned while paused)

	// observers are the conditional-abort observers (§7), in the order
	// they registered.
	observers []*observer

	events []Event
	errors []Error
	calls  []Call

	// Reevaluations and Aborts count the observers re-evaluated and the
	// aborts that fired (§7), for tests that report their coverage.
	Reevaluations, Aborts int
}

// node is one node of the model's tree, with its per-agent state. SubTree
// nodes are kept as a node whose only child is the included tree's root
// (§5b "the named tree of the same document is its only child").
type node struct {
	id       int
	typ      string // the canonical type (aliases resolved, §3/§5 aliases columns)
	def      *arbor.Node
	path     string
	parent   *node // nil for the main root and for a guard's root
	children []*node
	guard    *node
	inGuard  bool // part of a guard (§4): evaluated, never ticked

	running bool
	// skipped: the node's guard was false in its last visit (§7: "a leaf
	// skipped by its own guard did not complete"); the decorators that
	// count completions (Limiter, RunOnce) or ends (Cooldown) ask.
	skipped bool
	act     activation // per-activation memory, cleared by end and halt (§2)
	life    lifeMemory // memory over the agent's life, cleared by Reset (§2)
}

// activation is a node's per-activation memory (§2: "After end or halt the
// node is idle and its per-activation memory is cleared").
type activation struct {
	start   time.Duration  // when the activation began (Timeout, Delay, Wait ms)
	idx     int            // Sequence, SequenceWithMemory, Selector: the child to resume at; IfThenElse: the branch entered (0: none)
	count   int            // Repeat: iterations; RetryUntilSuccessful: failures; RepeatUntilFailure: successes; Wait: ticks; ActHeap: ticks
	results []arbor.Status // Parallel, ParallelAll: the children's kept results
	order   []int          // RandomSelector, RandomSequence: the order drawn (child indexes); idx is a position in it

	// Act mock memory (treegen's actMem).
	ticks, limit, pauses int64
}

// lifeMemory is a node's memory over the agent's life (§2: "cleared only by
// an agent reset").
type lifeMemory struct {
	resume      int           // SequenceWithMemory: the child that failed
	completions int           // Limiter: completions of the child
	cooled      bool          // Cooldown: the child has ended or been halted ...
	cooledAt    time.Duration // ... at this time
	stored      arbor.Status  // RunOnce: the child's result (Invalid: none yet)
	total       int64         // ActKeep mock: ticks over the agent's life
	rng         uint64        // RandomSelector, RandomSequence: the generator's state (random.go)
}

// The mock node types of package treegen, which the model implements (see
// mocks.go).
const (
	actType     = "Act"
	actKeepType = "ActKeep"
	actHeapType = "ActHeap"
	condType    = "Cond"
)

// aliases maps the aliases of semantics §3 and §5 to their type.
var aliases = map[string]string{
	"MemSequence":        "Sequence",
	"Fallback":           "Selector",
	"MemPriority":        "Selector",
	"Priority":           "ReactiveSelector",
	"ReactiveFallback":   "ReactiveSelector",
	"PrioritySelector":   "ReactiveSelector",
	"AlwaysSucceed":      "ForceSuccess",
	"RepeatUntilSuccess": "RetryUntilSuccessful",
	"MaxTime":            "Timeout",
}

var compositeTypes = []string{"Sequence", "SequenceWithMemory", "ReactiveSequence", "Selector", "ReactiveSelector", "Parallel", "ParallelAll",
	"RandomSelector", "RandomSequence", "IfThenElse", "WhileDoElse", "Switch"}

// isComposite: §3 composites, and Arbor's random and branching composites
// (doc.go: "For conditional aborts they are composites of another type,
// as Parallel is").
func (n *node) isComposite() bool { return slices.Contains(compositeTypes, n.typ) }

// isCondition: §6 "Conditions are leaves that complete within their tick
// and keep no running state: Check, Success, Failure and user (or
// scenario) conditions."
func (n *node) isCondition() bool {
	switch n.typ {
	case "Check", "Success", "Failure", condType:
		return true
	}
	return false
}

// takesAbort: §7 "An observer only ever watches a Sequence,
// SequenceWithMemory or Selector (the types that may carry abort)".
func (n *node) takesAbort() bool {
	return n.typ == "Sequence" || n.typ == "SequenceWithMemory" || n.typ == "Selector"
}

// New builds a model agent for a document whose node types are the
// built-ins and treegen's mocks. The document must be valid (the engine
// compiles it); New reports only what it cannot interpret.
func New(doc *arbor.Document) (*Model, error) {
	m := &Model{bb: newBlackboard()}
	name := doc.Main
	if name == "" && len(doc.Trees) == 1 {
		for k := range doc.Trees {
			name = k
		}
	}
	def, ok := doc.Trees[name]
	if !ok {
		return nil, fmt.Errorf("refmodel: no main tree %q", name)
	}
	var guards []*node
	var err error
	m.root, err = m.build(doc, def, name, nil, false, &guards, 0)
	if err != nil {
		return nil, err
	}
	// The guards' nodes are numbered after the main tree's (a guard may
	// itself hold guarded nodes: number those as they come).
	for i := 0; i < len(guards); i++ {
		m.number(guards[i], &guards)
	}
	m.seedRandom()
	return m, nil
}

// SetID gives the agent its id (WithID; Manager.Add), from which random
// composites without a seed parameter seed their draws (random.go).
func (m *Model) SetID(id int) {
	m.id = id
	m.seedRandom()
}

// build makes the node for def and its subtree, numbering the main tree's
// nodes in pre-order and collecting guard roots (numbered later).
func (m *Model) build(doc *arbor.Document, def *arbor.Node, path string, parent *node, inGuard bool, guards *[]*node, depth int) (*node, error) {
	if depth > 1000 {
		return nil, fmt.Errorf("refmodel: %s: nesting too deep (a subtree cycle?)", path)
	}
	typ := def.Type
	if a, ok := aliases[typ]; ok {
		typ = a
	}
	n := &node{typ: typ, def: def, path: path, parent: parent, inGuard: inGuard}
	if !inGuard {
		n.id = len(m.nodes)
		m.nodes = append(m.nodes, n)
	}
	if typ == "SubTree" {
		// §5b: the named tree is the SubTree's only child, "run as if
		// inlined".
		tname, _ := def.Params["tree"].(string)
		sub, ok := doc.Trees[tname]
		if !ok {
			return nil, fmt.Errorf("refmodel: %s: no tree %q", path, tname)
		}
		c, err := m.build(doc, sub, path+">"+tname, n, inGuard, guards, depth+1)
		if err != nil {
			return nil, err
		}
		n.children = []*node{c}
	}
	for i, cd := range def.Children {
		p := fmt.Sprintf("%s.children[%d]", path, i)
		if def.SingleChild {
			p = path + ".child"
		}
		c, err := m.build(doc, cd, p, n, inGuard, guards, depth+1)
		if err != nil {
			return nil, err
		}
		n.children = append(n.children, c)
	}
	if def.Guard != nil {
		g, err := m.build(doc, def.Guard, path+".guard", nil, true, guards, depth+1)
		if err != nil {
			return nil, err
		}
		n.guard = g
		*guards = append(*guards, g)
	}
	return n, nil
}

// number gives the nodes of a guard their ids, in pre-order.
func (m *Model) number(n *node, guards *[]*node) {
	n.id = len(m.nodes)
	m.nodes = append(m.nodes, n)
	for _, c := range n.children {
		m.number(c, guards)
	}
}

// ---- Parameters ----

func (n *node) param(name string) (any, bool) {
	v, ok := n.def.Params[name]
	return v, ok
}

// num returns a numeric parameter, or def when it is absent.
func (n *node) num(name string, def float64) float64 {
	v, ok := n.param(name)
	if !ok {
		return def
	}
	x := valueOf(v)
	if x.kind != kNumber {
		panic(fmt.Sprintf("refmodel: %s: parameter %s is %v, not a number", n.path, name, v))
	}
	return x.f
}

func (n *node) str(name string) string {
	s, _ := n.def.Params[name].(string)
	return s
}

// duration converts a parameter in milliseconds (§1: "durations in files
// are milliseconds") to game time, rounded to the nanosecond.
func (n *node) duration(name string) time.Duration {
	return msDuration(n.num(name, 0))
}

func msDuration(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// ---- Events and errors ----

// EventKind is the kind of a recorded event, in scenario trace terms
// (scenario.md "Trace events").
type EventKind string

// The event kinds.
const (
	EvStart  EventKind = "start"
	EvResult EventKind = "result"
	EvHalt   EventKind = "halt"
)

// Event is one lifecycle event of a node.
type Event struct {
	Node   int // the node's id (see Model.Node)
	Kind   EventKind
	Status arbor.Status // EvResult only
}

// Error is an error a node reported to the agent (§1 "Errors are not a
// status").
type Error struct {
	Node int
	Msg  string
}

func (m *Model) emit(n *node, k EventKind, s arbor.Status) {
	m.events = append(m.events, Event{Node: n.id, Kind: k, Status: s})
}

func (m *Model) report(n *node, format string, args ...any) {
	m.errors = append(m.errors, Error{Node: n.id, Msg: fmt.Sprintf(format, args...)})
}

// TakeEvents returns the events recorded since the last call and forgets
// them.
func (m *Model) TakeEvents() []Event {
	e := m.events
	m.events = nil
	return e
}

// TakeErrors returns the errors reported since the last call and forgets
// them.
func (m *Model) TakeErrors() []Error {
	e := m.errors
	m.errors = nil
	return e
}

// ---- Introspection ----

// NodeInfo describes a node of the model's tree.
type NodeInfo struct {
	ID       int
	Type     string // canonical type
	Path     string
	Children []int
	Guard    int // the guard's root id, or -1
}

// Len returns the number of nodes (subtrees inlined, guards included).
func (m *Model) Len() int { return len(m.nodes) }

// Root returns the id of the main tree's root.
func (m *Model) Root() int { return m.root.id }

// Node describes node id.
func (m *Model) Node(id int) NodeInfo {
	n := m.nodes[id]
	info := NodeInfo{ID: id, Type: n.typ, Path: n.path, Guard: -1}
	for _, c := range n.children {
		info.Children = append(info.Children, c.id)
	}
	if n.guard != nil {
		info.Guard = n.guard.id
	}
	return info
}

// Running reports whether node id is running.
func (m *Model) Running(id int) bool { return m.nodes[id].running }

// Blackboard returns the agent's blackboard.
func (m *Model) Blackboard() *Blackboard { return m.bb }

// Paused reports whether the agent is paused.
func (m *Model) Paused() bool { return m.paused }

// ---- Agent operations (§1, §2) ----

// Tick runs one step at game time now and returns the root's result.
func (m *Model) Tick(now time.Duration) arbor.Status {
	if m.paused {
		// doc.go: "A paused agent's Tick does nothing and returns the
		// root's last result."
		return m.last
	}
	m.bb.now = now // §1: now is constant within a tick
	// §7: "Re-evaluation happens at the start of every tick, before
	// anything else."
	m.reevaluate()
	m.last = m.tick(m.root)
	// §1: "When the root returns success or failure, the next tick starts
	// the tree afresh" — the root is idle again, nothing else to do.
	return m.last
}

// Halt halts everything running (§2 "Agent operations"), at the agent's
// current time (that of its last tick).
func (m *Model) Halt() { m.halt(m.root) }

// Reset halts, then clears all node memory, life-long memory included; the
// blackboard stays (§2).
func (m *Model) Reset() {
	m.Halt()
	for _, n := range m.nodes {
		n.act = activation{}
		n.life = lifeMemory{}
	}
	m.observers = nil
	m.seedRandom()
}

// Pause pauses the agent: pause(true) is sent to the running nodes in tree
// order (§2).
func (m *Model) Pause() {
	if m.paused {
		return
	}
	m.paused = true
	m.pauseCallbacks(m.root, true)
}

// Resume resumes a paused agent: pause(false) to the running nodes.
func (m *Model) Resume() {
	if !m.paused {
		return
	}
	m.paused = false
	m.pauseCallbacks(m.root, false)
}

func (m *Model) pauseCallbacks(n *node, paused bool) {
	if !n.running {
		return
	}
	m.mockPause(n, paused)
	for _, c := range n.children {
		m.pauseCallbacks(c, paused)
	}
}
