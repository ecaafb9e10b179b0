package fsm

import (
	"fmt"
	"sort"
	"strings"

	"github.com/arborbt/arbor"
)

// Definition is a compiled, immutable state machine. Any number of
// Instances share one Definition (and may run on different goroutines);
// all run-time state lives in the Instance.
//
// States of every level are stored flat and referred to by index: an
// instance's active configuration is a short array of state indexes, one
// per level, outermost first.
type Definition struct {
	name     string
	states   []cstate
	machines []cmachine // machines[0] is the top-level machine
	conds    []ccond
	depth    int // deepest nesting of states (1 for a flat machine)
	warnings Errors

	// host is the tree that runs the trees of the states that have one
	// (one branch per tree, selected by a blackboard key), or nil.
	host     *arbor.Tree
	branches []string // tree name of each branch
	agents   bool     // some state runs a program's agent
	pathVals []any    // per state: its path as an arbor.Value, boxed once (WithStateKey)
}

// cmachine is a compiled machine (the top one or a state's own).
type cmachine struct {
	owner   int32 // the state holding it, -1 for the top-level machine
	initial int32
	states  []int32
	any     []ctrans
}

// cstate is a compiled state.
type cstate struct {
	name    string
	path    string // "Alive/Calm"
	parent  int32  // enclosing state, -1 at the top
	machine int32  // the machine it belongs to
	level   int32  // 0 at the top
	sub     int32  // its own machine, or -1
	final   arbor.Status
	trans   []ctrans
	enter   []ccall
	update  []ccall
	exit    []ccall
	branch  int32 // host tree branch, or -1
	agent   func(c *Ctx) *arbor.Agent
}

// ctrans is a compiled transition.
type ctrans struct {
	target int32
	cond   int32 // index in conds, -1 when it always holds
	do     []ccall
	label  string // "transition to Dead", for error reports
}

// ccall is a compiled callback: a function, or blackboard writes.
type ccall struct {
	fn   func(c *Ctx)
	sets []cset
}

// cset is one blackboard write; val is nil (delete) or an arbor.Value
// boxed once at compile time, so that writing it does not allocate.
type cset struct {
	key string
	val any
}

// Funcs are the callbacks and conditions that files (and Call.Name,
// Named) refer to by name.
type Funcs struct {
	Calls map[string]func(c *Ctx)
	Conds map[string]func(c *Ctx) bool
}

// CompileOption configures Compile.
type CompileOption func(*compileConfig)

type compileConfig struct {
	trees *arbor.Document
	reg   *arbor.Registry
	funcs Funcs
}

// WithTrees gives the trees that states name in Tree (RunTree), and the
// registry of the node types they use (nil: the built-ins only).
func WithTrees(doc *arbor.Document, reg *arbor.Registry) CompileOption {
	return func(c *compileConfig) { c.trees, c.reg = doc, reg }
}

// WithFuncs gives the named callbacks and conditions.
func WithFuncs(f Funcs) CompileOption {
	return func(c *compileConfig) {
		if c.funcs.Calls == nil {
			c.funcs.Calls = map[string]func(*Ctx){}
		}
		if c.funcs.Conds == nil {
			c.funcs.Conds = map[string]func(*Ctx) bool{}
		}
		for k, v := range f.Calls {
			c.funcs.Calls[k] = v
		}
		for k, v := range f.Conds {
			c.funcs.Conds[k] = v
		}
	}
}

// MaxDepth bounds the nesting of machines in states.
const MaxDepth = 64

// TreeKey is the blackboard key through which an instance selects the
// tree of its active state (see State.Tree): it appears in the
// blackboards of instances whose definition runs trees.
const TreeKey = "$fsm.tree"

type compiler struct {
	cfg      compileConfig
	el       *errList
	d        *Definition
	visiting map[*Machine]bool
	treeOf   []string // per state: the tree it runs
	errPath  []string // per state: its path in errors ("m.states.A")
	lines    []int    // per state: its source line
}

// Compile validates a machine and compiles it into a Definition. Every
// problem is reported (as Errors), each with its path; warnings
// (unreachable states, transitions that can never be taken) are in the
// Definition's Warnings.
func Compile(m *Machine, opts ...CompileOption) (*Definition, error) {
	c := &compiler{el: &errList{}, d: &Definition{}, visiting: map[*Machine]bool{}}
	for _, o := range opts {
		o(&c.cfg)
	}
	if m == nil {
		c.el.add("", 0, "no machine")
		return nil, c.el.err()
	}
	c.d.name = m.Name
	if c.d.name == "" {
		c.d.name = "machine"
	}
	path := m.path
	if path == "" {
		path = c.d.name
	}
	c.machine(m, -1, 0, path)
	c.trees()
	if c.el.err() != nil {
		return nil, c.el.err()
	}
	c.reach(0, path)
	c.d.pathVals = make([]any, len(c.d.states))
	for i := range c.d.states {
		c.d.pathVals[i] = arbor.String(c.d.states[i].path)
	}
	return c.d, nil
}

// machine compiles m, the machine of state owner (-1 for the top), whose
// states are at the given level, and returns its index.
func (c *compiler) machine(m *Machine, owner int32, level int, path string) int32 {
	if c.visiting[m] {
		c.el.add(path, m.Line, "machine cycle: a state contains a machine that encloses it")
		return -1
	}
	if level >= MaxDepth {
		c.el.add(path, m.Line, "machines nested deeper than %d levels", MaxDepth)
		return -1
	}
	c.visiting[m] = true
	defer delete(c.visiting, m)
	d := c.d
	mi := int32(len(d.machines))
	d.machines = append(d.machines, cmachine{owner: owner, initial: -1})
	if level+1 > d.depth {
		d.depth = level + 1
	}
	if len(m.States) == 0 {
		c.el.add(path, m.Line, "the machine has no states")
		return mi
	}

	// Name the states first: transitions refer to them.
	byName := map[string]int32{}
	var names []string
	idx := make([]int32, len(m.States)) // state index of each of m.States, -1 if rejected
	for i, s := range m.States {
		idx[i] = -1
		if s == nil {
			c.el.add(fmt.Sprintf("%s.states[%d]", path, i), m.Line, "nil state")
			continue
		}
		sp := path + ".states." + s.Name
		switch {
		case s.Name == "":
			c.el.add(fmt.Sprintf("%s.states[%d]", path, i), s.Line, "a state needs a name")
			continue
		case strings.Contains(s.Name, "/"):
			c.el.add(sp, s.Line, "state names may not contain \"/\" (it separates the levels of state paths)")
			continue
		}
		if _, dup := byName[s.Name]; dup {
			c.el.add(sp, s.Line, "duplicate state %q", s.Name)
			continue
		}
		statePath := s.Name
		if owner >= 0 {
			statePath = d.states[owner].path + "/" + s.Name
		}
		si := int32(len(d.states))
		d.states = append(d.states, cstate{name: s.Name, path: statePath, parent: owner, machine: mi,
			level: int32(level), sub: -1, branch: -1})
		c.treeOf = append(c.treeOf, "")
		c.errPath = append(c.errPath, sp)
		c.lines = append(c.lines, s.Line)
		byName[s.Name] = si
		idx[i] = si
		names = append(names, s.Name)
		d.machines[mi].states = append(d.machines[mi].states, si)
	}

	if m.Initial == "" {
		c.el.add(path, m.Line, "missing initial state (one of %s)", strings.Join(names, ", "))
	} else if si, ok := byName[m.Initial]; ok {
		d.machines[mi].initial = si
	} else {
		c.el.add(path, m.Line, "initial state %q is not a state of this machine%s", m.Initial, didYouMean(m.Initial, names))
	}

	for i, t := range m.Any {
		tp := fmt.Sprintf("%s.any[%d]", path, i)
		if ct, ok := c.transition(t, tp, -1, byName, names); ok {
			d.machines[mi].any = append(d.machines[mi].any, ct)
		}
	}
	c.shadowed(m.Any, path+".any")

	for i, s := range m.States {
		if idx[i] >= 0 {
			c.state(s, idx[i], level, path+".states."+s.Name, byName, names)
		}
	}
	return mi
}

// state compiles the body of state s (index si).
func (c *compiler) state(s *State, si int32, level int, sp string, byName map[string]int32, names []string) {
	d := c.d
	switch s.Final {
	case arbor.Invalid:
	case arbor.Success, arbor.Failure:
		if len(s.Transitions) > 0 {
			c.el.add(sp, s.Line, "a final state has no transitions (it ends its machine)")
		}
		if s.Sub != nil {
			c.el.add(sp, s.Line, "a final state cannot contain a machine")
		}
	default:
		c.el.add(sp, s.Line, "final must be success or failure, got %s", s.Final)
	}
	d.states[si].final = s.Final
	d.states[si].enter = c.calls(s.Enter, sp+".enter")
	d.states[si].update = c.calls(s.Update, sp+".update")
	d.states[si].exit = c.calls(s.Exit, sp+".exit")
	if s.Tree != "" && s.Agent != nil {
		c.el.add(sp, s.Line, "a state runs either a tree of the document (tree) or an agent, not both")
	}
	if s.Tree != "" {
		c.treeOf[si] = s.Tree
	}
	if s.Agent != nil {
		d.states[si].agent = s.Agent
		d.agents = true
	}
	if s.Sub != nil {
		if sub := c.machine(s.Sub, si, level+1, sp); sub >= 0 {
			d.states[si].sub = sub
		}
	}
	for i, t := range s.Transitions {
		tp := fmt.Sprintf("%s.transitions[%d]", sp, i)
		if ct, ok := c.transition(t, tp, si, byName, names); ok {
			d.states[si].trans = append(d.states[si].trans, ct)
		}
	}
	c.shadowed(s.Transitions, sp+".transitions")
}

// shadowed warns about transitions that follow one that always holds.
func (c *compiler) shadowed(ts []*Transition, path string) {
	for i, t := range ts {
		if t != nil && t.When == nil {
			for j := i + 1; j < len(ts); j++ {
				if ts[j] != nil {
					c.d.warnings = append(c.d.warnings, &Error{Path: fmt.Sprintf("%s[%d]", path, j), Line: ts[j].Line,
						Msg: fmt.Sprintf("never taken: transition [%d] before it has no condition and always holds", i)})
				}
			}
			return
		}
	}
}

// transition compiles a transition of state src (-1: an any-state
// transition).
func (c *compiler) transition(t *Transition, path string, src int32, byName map[string]int32, names []string) (ctrans, bool) {
	if t == nil {
		c.el.add(path, 0, "nil transition")
		return ctrans{}, false
	}
	ct := ctrans{target: -1, cond: -1, label: "transition to " + t.To}
	switch target, ok := byName[t.To]; {
	case t.To == "":
		c.el.add(path, t.Line, "a transition needs a target state (to)")
	case ok:
		ct.target = target
	default:
		msg := fmt.Sprintf("unknown target state %q: not a state of this machine (%s)%s", t.To, strings.Join(names, ", "), didYouMean(t.To, names))
		if c.elsewhere(t.To) {
			msg += "; transitions lead to states of the same machine: to leave an enclosing state, give the transition to that state"
		}
		c.el.add(path, t.Line, "%s", msg)
	}
	if t.When != nil {
		ct.cond = c.cond(t.When, path+".when", src)
	}
	ct.do = c.calls(t.Do, path+".do")
	return ct, ct.target >= 0
}

// elsewhere reports whether some state (named so far) has the name.
func (c *compiler) elsewhere(name string) bool {
	for i := range c.d.states {
		if c.d.states[i].name == name {
			return true
		}
	}
	return false
}

// calls compiles a list of callbacks.
func (c *compiler) calls(calls []Call, path string) []ccall {
	var out []ccall
	for i, call := range calls {
		cp := fmt.Sprintf("%s[%d]", path, i)
		forms := 0
		if call.Fn != nil {
			forms++
		}
		if call.Name != "" {
			forms++
		}
		if call.Set != nil {
			forms++
		}
		if forms != 1 {
			c.el.add(cp, call.Line, "a callback is exactly one of a function, a name or blackboard writes (set)")
			continue
		}
		switch {
		case call.Fn != nil:
			out = append(out, ccall{fn: call.Fn})
		case call.Name != "":
			fn, ok := c.cfg.funcs.Calls[call.Name]
			if !ok || fn == nil {
				c.el.add(cp, call.Line, "unknown callback %q (give it to Compile with WithFuncs)%s", call.Name, didYouMean(call.Name, sortedKeys(c.cfg.funcs.Calls)))
				continue
			}
			out = append(out, ccall{fn: fn})
		default:
			keys := sortedKeys(call.Set)
			cc := ccall{}
			for _, k := range keys {
				if k == "" {
					c.el.add(cp, call.Line, "set: empty key")
					continue
				}
				var v any
				if raw := call.Set[k]; raw != nil {
					v = arbor.ValueOf(raw)
				}
				cc.sets = append(cc.sets, cset{key: k, val: v})
			}
			out = append(out, cc)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// trees checks the states that run trees of the document and compiles the
// host tree that runs them.
func (c *compiler) trees() {
	d := c.d
	var users []int32
	for si, name := range c.treeOf {
		if name != "" {
			users = append(users, int32(si))
		}
	}
	if len(users) == 0 {
		return
	}
	if c.cfg.trees == nil || len(c.cfg.trees.Trees) == 0 {
		c.el.add(c.errPath[users[0]], c.lines[users[0]], "state runs tree %q but no trees were given (WithTrees, or a file's trees section)", c.treeOf[users[0]])
		return
	}
	doc := c.cfg.trees
	names := doc.TreeNames()
	branch := map[string]int32{}
	for _, si := range users {
		name := c.treeOf[si]
		if _, ok := doc.Trees[name]; !ok {
			c.el.add(c.errPath[si], c.lines[si], "state runs tree %q, which is not in the document (trees: %s)%s", name, strings.Join(names, ", "), didYouMean(name, names))
			continue
		}
		// One instance has one host agent: two states of one active
		// configuration cannot both run trees of the document.
		for p := d.states[si].parent; p >= 0; p = d.states[p].parent {
			if c.treeOf[p] != "" {
				c.el.add(c.errPath[si], c.lines[si], "state runs tree %q inside state %s, which runs tree %q: only one state of a nesting may run a tree of the document (use RunAgent for more)", name, d.states[p].path, c.treeOf[p])
				break
			}
		}
		b, ok := branch[name]
		if !ok {
			b = int32(len(d.branches))
			branch[name] = b
			d.branches = append(d.branches, name)
		}
		d.states[si].branch = b
	}
	if c.el.err() != nil {
		return // the first errors are enough
	}
	// The host tree: a Selector of the used trees as guarded subtrees; the
	// instance writes the branch number to TreeKey before ticking it.
	kids := make([]*arbor.Node, len(d.branches))
	for b, name := range d.branches {
		kids[b] = arbor.SubTree(name).WithGuard(arbor.Check(TreeKey, "==", b))
	}
	host := "fsm:" + d.name
	for doc.Trees[host] != nil {
		host += "'"
	}
	trees := make(map[string]*arbor.Node, len(doc.Trees)+1)
	for k, v := range doc.Trees {
		trees[k] = v
	}
	trees[host] = arbor.Selector(kids...)
	t, err := arbor.Compile(&arbor.Document{Main: host, Trees: trees}, c.cfg.reg)
	if err != nil {
		c.el.add("trees", 0, "compile the trees run by states: %v", err)
		return
	}
	d.host = t
}

// reach warns about the states of machine mi that its initial state
// cannot lead to, and looks into the reachable states' machines.
func (c *compiler) reach(mi int32, path string) {
	d := c.d
	m := &d.machines[mi]
	if m.initial < 0 {
		return
	}
	seen := map[int32]bool{m.initial: true}
	for _, t := range m.any {
		seen[t.target] = true
	}
	queue := []int32{m.initial}
	for _, t := range m.any {
		queue = append(queue, t.target)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, t := range d.states[s].trans {
			if !seen[t.target] {
				seen[t.target] = true
				queue = append(queue, t.target)
			}
		}
	}
	init := d.states[m.initial].name
	for _, si := range m.states {
		s := &d.states[si]
		sp := path + ".states." + s.name
		if !seen[si] {
			d.warnings = append(d.warnings, &Error{Path: sp, Msg: fmt.Sprintf("state %s is unreachable from the initial state %s", s.path, init)})
			continue
		}
		if s.sub >= 0 {
			c.reach(s.sub, sp)
		}
	}
}

// Name returns the machine's name.
func (d *Definition) Name() string { return d.name }

// Warnings returns what Compile found suspicious but valid: unreachable
// states, transitions that can never be taken.
func (d *Definition) Warnings() Errors { return d.warnings }

// States returns the paths of every state ("Alive", "Alive/Calm", ...).
func (d *Definition) States() []string {
	out := make([]string, len(d.states))
	for i := range d.states {
		out[i] = d.states[i].path
	}
	sort.Strings(out)
	return out
}

// Depth returns the deepest nesting of states: 1 for a flat machine.
func (d *Definition) Depth() int { return d.depth }

// RunsTrees reports whether states of the machine run trees of the
// document it was compiled with (State.Tree).
func (d *Definition) RunsTrees() bool { return d.host != nil }

// treeStates lists the paths of the states that run trees of the document.
func (d *Definition) treeStates() []string {
	var out []string
	for i := range d.states {
		if d.states[i].branch >= 0 {
			out = append(out, d.states[i].path)
		}
	}
	return out
}
