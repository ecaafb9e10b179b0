package fsm

import (
	"time"

	"github.com/arborbt/arbor"
)

// Machine is a state machine definition as plain data: what the file
// loader produces and the builder methods make. Compile validates it and
// turns it into an immutable Definition. A State with a Sub machine makes
// the definition hierarchical.
type Machine struct {
	Name    string        // the machine's name (file: its key in the fsm section)
	Initial string        // name of the state entered first; required
	States  []*State      // the machine's states, in definition order
	Any     []*Transition // any-state transitions: tried before the active state's own
	Line    int           // source line when loaded from a file (0 otherwise)

	path string // error path of the machine ("fsm.Monster" for files)
}

// State is one state of a Machine.
type State struct {
	Name        string
	Enter       []Call        // called when the state is entered
	Update      []Call        // called on every Update while the state is active
	Exit        []Call        // called when the state is exited
	Transitions []*Transition // tried in order; the first whose condition holds is taken
	Sub         *Machine      // the state's own machine (a hierarchical state), or nil

	// Final makes the state final when it is arbor.Success or
	// arbor.Failure: a machine in a final state takes no more transitions
	// (of its own), and a top-level final state gives the instance, and an
	// FSM tree node, that result. Invalid (the zero value) is not final.
	Final arbor.Status

	// Tree names a tree of the document given to Compile (WithTrees):
	// each update of the state ticks it once, entering starts it fresh and
	// exiting halts it. The tree shares the instance's blackboard.
	Tree string
	// Agent returns, for an instance, an agent of the program's own whose
	// tree the state ticks like Tree's (called once per entry). The agent
	// keeps its own blackboard.
	Agent func(c *Ctx) *arbor.Agent

	Line int
}

// Transition leads from the state holding it (or, in Machine.Any, from any
// state of the machine) to the state named To, a state of the same machine.
type Transition struct {
	To   string
	When *Cond  // nil: always holds
	Do   []Call // called between the exit of the old states and the entry of the new
	Line int
}

// Call is one callback of a state or transition: a Go function, the name
// of a function given to Compile (WithFuncs), or blackboard writes (Set:
// key → value, a nil value deletes the key). Exactly one is set.
type Call struct {
	Fn   func(c *Ctx)
	Name string
	Set  map[string]any
	Line int
}

// CondKind is the form of a Cond.
type CondKind uint8

// The forms of conditions.
const (
	// CondCheck compares a blackboard value, like the Check node: Key, Op
	// (== != < <= > >= exists missing) and Value (a literal or "{key}").
	CondCheck CondKind = iota + 1
	// CondFunc calls Fn.
	CondFunc
	// CondNamed calls the condition Name given to Compile (WithFuncs).
	CondNamed
	// CondAnd holds when every one of Conds holds (in order, stopping at
	// the first that does not).
	CondAnd
	// CondOr holds when one of Conds holds.
	CondOr
	// CondNot holds when Conds[0] does not.
	CondNot
	// CondAfter holds when the source state has been active for at least
	// After (game time).
	CondAfter
	// CondDone holds when the source state's own machine is in a final
	// state.
	CondDone
	// CondTree holds when the tree the source state runs returned Status
	// on its last tick.
	CondTree
)

// Cond is a transition condition as plain data. Build it with Check, When,
// Named, And, Or, Not, After, Done or TreeIs.
type Cond struct {
	Kind   CondKind
	Key    string // CondCheck
	Op     string // CondCheck
	Value  any    // CondCheck: literal or "{key}"; absent for exists/missing
	HasVal bool   // CondCheck: Value was given
	Fn     func(c *Ctx) bool
	Name   string
	Conds  []*Cond
	After  time.Duration
	Status arbor.Status
	Line   int

	// extra is the number of values Check was given beyond the first: a
	// mistake Compile reports.
	extra int
}

// NewMachine returns an empty machine whose first state entered is
// initial.
func NewMachine(name, initial string) *Machine {
	return &Machine{Name: name, Initial: initial}
}

// State adds a state to the machine and returns it.
func (m *Machine) State(name string) *State {
	s := &State{Name: name}
	m.States = append(m.States, s)
	return s
}

// AnyTo adds an any-state transition: from whatever state of the machine
// is active (but never from the target itself) to target, when the
// condition holds. Any-state transitions are tried before the active
// state's own transitions.
func (m *Machine) AnyTo(target string, when *Cond) *Transition {
	t := &Transition{To: target, When: when}
	m.Any = append(m.Any, t)
	return t
}

// OnEnter adds an enter callback and returns the state.
func (s *State) OnEnter(fn func(c *Ctx)) *State { s.Enter = append(s.Enter, Call{Fn: fn}); return s }

// OnUpdate adds an update callback and returns the state.
func (s *State) OnUpdate(fn func(c *Ctx)) *State {
	s.Update = append(s.Update, Call{Fn: fn})
	return s
}

// OnExit adds an exit callback and returns the state.
func (s *State) OnExit(fn func(c *Ctx)) *State { s.Exit = append(s.Exit, Call{Fn: fn}); return s }

// To adds a transition to the state named target (a state of the same
// machine, or this state itself) and returns it.
func (s *State) To(target string, when *Cond) *Transition {
	t := &Transition{To: target, When: when}
	s.Transitions = append(s.Transitions, t)
	return t
}

// Machine makes the state hierarchical: it returns the state's own
// machine, creating it with the given initial state (or setting that
// initial state on an existing one).
func (s *State) Machine(initial string) *Machine {
	if s.Sub == nil {
		s.Sub = &Machine{Name: s.Name}
	}
	s.Sub.Initial = initial
	return s.Sub
}

// SetFinal makes the state final with the given outcome (arbor.Success or
// arbor.Failure) and returns it.
func (s *State) SetFinal(outcome arbor.Status) *State { s.Final = outcome; return s }

// RunTree makes each update of the state tick the named tree of the
// document given to Compile, and returns the state.
func (s *State) RunTree(name string) *State { s.Tree = name; return s }

// RunAgent makes each update of the state tick the agent fn returns for the
// instance (fn is called on each entry), and returns the state.
func (s *State) RunAgent(fn func(c *Ctx) *arbor.Agent) *State { s.Agent = fn; return s }

// OnTransition adds a callback run when the transition is taken, after
// the old states' exit callbacks and before the new states' enter
// callbacks, and returns the transition.
func (t *Transition) OnTransition(fn func(c *Ctx)) *Transition {
	t.Do = append(t.Do, Call{Fn: fn})
	return t
}

// Check is a condition comparing a blackboard value, written like the
// Check tree node: op is one of == != < <= > >= (with a value: a literal,
// or "{key}" to compare with another key) or exists and missing (without).
// A missing key fails every op but missing. More than one value is an
// error that Compile reports (a list to compare with is one value).
func Check(key, op string, value ...any) *Cond {
	c := &Cond{Kind: CondCheck, Key: key, Op: op}
	if len(value) > 0 {
		c.Value, c.HasVal = value[0], true
		c.extra = len(value) - 1
	}
	return c
}

// When is a condition computed by a Go function.
func When(fn func(c *Ctx) bool) *Cond { return &Cond{Kind: CondFunc, Fn: fn} }

// Named is a condition given to Compile by name (WithFuncs).
func Named(name string) *Cond { return &Cond{Kind: CondNamed, Name: name} }

// And holds when all of conds hold.
func And(conds ...*Cond) *Cond { return &Cond{Kind: CondAnd, Conds: conds} }

// Or holds when one of conds holds.
func Or(conds ...*Cond) *Cond { return &Cond{Kind: CondOr, Conds: conds} }

// Not holds when c does not.
func Not(c *Cond) *Cond { return &Cond{Kind: CondNot, Conds: []*Cond{c}} }

// After holds once the source state has been active for d.
func After(d time.Duration) *Cond { return &Cond{Kind: CondAfter, After: d} }

// Done holds when the source state's own machine has reached a final
// state.
func Done() *Cond { return &Cond{Kind: CondDone} }

// TreeIs holds when the tree run by the source state (RunTree or
// RunAgent) returned s on its last tick.
func TreeIs(s arbor.Status) *Cond { return &Cond{Kind: CondTree, Status: s} }
