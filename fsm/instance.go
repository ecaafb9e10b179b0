package fsm

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/arborbt/arbor"
)

// Instance is one entity running a Definition: its active configuration
// (one state per level, outermost first), the time each was entered, and
// the blackboard its conditions read. Instances of one Definition share
// nothing mutable.
//
// An Instance is not safe for concurrent use.
type Instance struct {
	def *Definition
	bb  *arbor.Blackboard
	// host is the instance's own agent: it owns the blackboard (unless
	// WithBlackboard gave one) and runs the trees of states (State.Tree).
	host  *arbor.Agent
	ownBB bool
	agent *arbor.Agent // Agent(): host, or the tree agent running the FSM node
	owner any

	active     []int32        // per level: the active state
	since      []int64        // per level: when it was entered
	treeStatus []arbor.Status // per level: the last result of the state's tree
	agents     []*arbor.Agent // per level: the program's agent the state runs
	depth      int32          // number of active levels

	now         int64
	ctx         Ctx
	evalTarget  int32 // target of the transition whose condition is evaluated
	busy        bool  // inside Update or Start
	pendingStop bool  // Stop was called from a callback

	onError  func(*RunError)
	tracer   Tracer
	stateKey string // WithStateKey
	changed  bool   // the configuration changed since stateKey was written
}

// Option configures NewInstance.
type Option func(*options)

type options struct {
	bb       *arbor.Blackboard
	globals  *arbor.Globals
	owner    any
	onError  func(*RunError)
	tracer   Tracer
	agent    *arbor.Agent
	stateKey string
}

// WithBlackboard makes the instance read and write bb (typically
// agent.Blackboard() of the entity's behavior-tree agent) instead of a
// blackboard of its own. bb's clock, for values with a time to live, is
// then that of bb's agent. A definition whose states run trees of its
// document (State.Tree) cannot use it: those trees share the instance's
// own blackboard.
func WithBlackboard(bb *arbor.Blackboard) Option { return func(o *options) { o.bb = bb } }

// WithGlobals makes the instance's own blackboard use a shared global
// scope (keys beginning with "@"), such as a Manager's.
func WithGlobals(g *arbor.Globals) Option { return func(o *options) { o.globals = g } }

// WithOwner sets the program's object for the entity the instance drives
// (Ctx.Owner, Owner); trees run by states see it as their agent's owner.
func WithOwner(owner any) Option { return func(o *options) { o.owner = owner } }

// WithErrorHandler sets the function that receives run errors (and the
// node errors of trees run by states, wrapped). By default they are logged
// with log/slog.
func WithErrorHandler(h func(*RunError)) Option { return func(o *options) { o.onError = h } }

// WithTracer sets a function that receives every enter, exit and
// transition.
func WithTracer(t Tracer) Option { return func(o *options) { o.tracer = t } }

// WithStateKey makes the instance write its active path ("Alive/Combat")
// to the blackboard key name whenever it changes, and delete the key when
// the instance stops: tools that show blackboards, such as the debugger,
// then show the machine's state.
func WithStateKey(name string) Option { return func(o *options) { o.stateKey = name } }

// withAgent records the tree agent running the instance as a node.
func withAgent(a *arbor.Agent) Option { return func(o *options) { o.agent = a } }

// EventKind is the kind of an instance event.
type EventKind uint8

// The instance events.
const (
	EventEnter      EventKind = iota + 1 // State was entered
	EventExit                            // State was exited
	EventTransition                      // a transition from State to Target is taken (after the exits, before its callbacks)
)

// String returns "enter", "exit" or "transition".
func (k EventKind) String() string {
	switch k {
	case EventEnter:
		return "enter"
	case EventExit:
		return "exit"
	case EventTransition:
		return "transition"
	}
	return "event"
}

// Event is one thing that happened to an instance. State and Target are
// state paths ("Alive/Calm").
type Event struct {
	Kind   EventKind
	State  string
	Target string // EventTransition only
}

// Tracer receives instance events, synchronously; keep it fast.
type Tracer func(in *Instance, e Event)

// treeKey selects the branch of the host tree (see TreeKey).
var treeKey = arbor.NewKey[float64](TreeKey)

// bareTree is the host tree of definitions whose states run no tree of
// their document: a single Success leaf, ticked only for its clock.
var bareTree = sync.OnceValues(func() (*arbor.Tree, error) {
	return arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"fsm": arbor.AlwaysSuccess()}}, nil)
})

// NewInstance returns a new instance of d, not started: its first Update
// (or Start) enters the initial states.
func NewInstance(d *Definition, opts ...Option) (*Instance, error) {
	if d == nil {
		return nil, errors.New("fsm: new instance: nil definition")
	}
	var o options
	for _, f := range opts {
		f(&o)
	}
	in := &Instance{def: d, owner: o.owner, onError: o.onError, tracer: o.tracer, evalTarget: -1, stateKey: o.stateKey,
		active: make([]int32, d.depth), since: make([]int64, d.depth),
		treeStatus: make([]arbor.Status, d.depth), agents: make([]*arbor.Agent, d.depth)}
	switch {
	case o.bb != nil && d.host != nil:
		return nil, fmt.Errorf("fsm: new instance of %s: WithBlackboard: states %v run trees of the document, which share the instance's own blackboard", d.name, d.treeStates())
	case o.bb != nil && o.globals != nil:
		return nil, fmt.Errorf("fsm: new instance of %s: WithGlobals applies to the instance's own blackboard, not to one given WithBlackboard", d.name)
	case o.bb != nil:
		in.bb, in.agent = o.bb, o.agent
		return in, nil
	}
	tree := d.host
	if tree == nil {
		t, err := bareTree()
		if err != nil {
			return nil, fmt.Errorf("fsm: new instance of %s: %w", d.name, err)
		}
		tree = t
	}
	aopts := []arbor.AgentOption{arbor.WithOwner(o.owner)}
	if o.globals != nil {
		aopts = append(aopts, arbor.WithGlobals(o.globals))
	}
	if o.onError != nil {
		aopts = append(aopts, arbor.WithErrorHandler(func(e *arbor.NodeError) {
			in.report(in.treeState(), "tree", e)
		}))
	}
	in.host = arbor.NewAgent(tree, aopts...)
	in.agent = in.host
	in.bb = in.host.Blackboard()
	in.ownBB = true
	return in, nil
}

// treeState returns the active state that runs a tree of the document, or
// -1.
func (in *Instance) treeState() int32 {
	for l := int32(0); l < in.depth; l++ {
		if in.def.states[in.active[l]].branch >= 0 {
			return in.active[l]
		}
	}
	return -1
}

// Definition returns the definition the instance runs.
func (in *Instance) Definition() *Definition { return in.def }

// Blackboard returns the blackboard the instance reads.
func (in *Instance) Blackboard() *arbor.Blackboard { return in.bb }

// Owner returns the instance's owner (WithOwner).
func (in *Instance) Owner() any { return in.owner }

// Agent returns the agent whose blackboard the instance reads: its own
// (which also runs the trees of its states), or the tree agent running it
// as an FSM node; nil with WithBlackboard. The instance ticks and halts its
// own agent; do not tick it yourself.
func (in *Instance) Agent() *arbor.Agent { return in.agent }

// Depth returns the number of active levels (0 when not started).
func (in *Instance) Depth() int { return int(in.depth) }

// Active returns the name of the innermost active state ("" when not
// started).
func (in *Instance) Active() string {
	if in.depth == 0 {
		return ""
	}
	return in.def.states[in.active[in.depth-1]].name
}

// ActivePath returns the path of the innermost active state, which names
// the whole active configuration: "Alive/Combat/Chase" ("" when not
// started).
func (in *Instance) ActivePath() string {
	if in.depth == 0 {
		return ""
	}
	return in.def.states[in.active[in.depth-1]].path
}

// In reports whether the state with the given path ("Alive",
// "Alive/Combat") is active.
func (in *Instance) In(path string) bool {
	for l := int32(0); l < in.depth; l++ {
		if in.def.states[in.active[l]].path == path {
			return true
		}
	}
	return false
}

// Status returns arbor.Invalid before the instance starts, arbor.Running
// while its top-level machine is not in a final state, and then that final
// state's outcome (arbor.Success or arbor.Failure).
func (in *Instance) Status() arbor.Status {
	if in.depth == 0 {
		return arbor.Invalid
	}
	if f := in.def.states[in.active[0]].final; f != arbor.Invalid {
		return f
	}
	return arbor.Running
}

// Done reports whether the top-level machine is in a final state.
func (in *Instance) Done() bool {
	s := in.Status()
	return s == arbor.Success || s == arbor.Failure
}

var errReentrant = errors.New("called from a callback of the same instance's update (ignored)")

// Start enters the initial configuration at time now, if the instance is
// not started, without updating it. Update does it by itself; Start is for
// programs that want the enter callbacks to run at spawn time.
func (in *Instance) Start(now time.Duration) {
	if in.busy {
		in.report(-1, "start", errReentrant)
		return
	}
	in.begin(now)
	in.complete()
	in.end()
}

// Update runs one step of the machine at game time now and returns
// Status(). In order:
//
//  1. entering the initial states, if the instance is not started;
//  2. at most one transition: from the innermost level outwards, each
//     level's any-state transitions then its active state's own, the
//     first whose condition holds is taken (levels in a final state are
//     skipped): exit callbacks of the states left, innermost first; the
//     transition's callbacks; enter callbacks of the target and of the
//     initial states of its machines, outermost first;
//  3. the update callbacks of every active state, outermost first, each
//     followed by a tick of the state's tree.
//
// A state entered in this Update is updated in it too.
func (in *Instance) Update(now time.Duration) arbor.Status {
	if in.busy {
		in.report(-1, "update", errReentrant)
		return in.Status()
	}
	in.begin(now)
	in.complete()
	in.step()
	for l := int32(0); l < in.depth; l++ {
		in.updateState(l)
	}
	in.end()
	return in.Status()
}

// Stop exits every active state, innermost first (a state's tree is
// halted before its exit callbacks run). The next Update starts the
// instance afresh. Called from a callback of the instance, it takes effect
// when the current Update ends.
func (in *Instance) Stop() {
	if in.busy {
		in.pendingStop = true
		return
	}
	for in.depth > 0 {
		in.exit()
	}
	in.publish()
}

// publish writes the active path to the state key, if it changed.
func (in *Instance) publish() {
	if in.stateKey == "" || !in.changed {
		return
	}
	in.changed = false
	var v any // nil deletes the key
	if in.depth > 0 {
		v = in.def.pathVals[in.active[in.depth-1]]
	}
	in.bb.Set(in.stateKey, v)
}

func (in *Instance) begin(now time.Duration) {
	in.busy = true
	in.now = int64(now)
	// The host agent's tick sets its blackboard's clock (values with a
	// time to live). While a state's tree runs it cannot be ticked for the
	// clock alone; the tree's own tick, in step 3, advances it.
	if in.ownBB && !in.host.Running(0) {
		if in.def.host != nil {
			treeKey.Set(in.bb, -1)
		}
		in.host.Tick(now)
	}
}

func (in *Instance) end() {
	in.busy = false
	in.publish()
	if in.pendingStop {
		in.pendingStop = false
		in.Stop()
	}
}

// complete enters initial states until the innermost active state holds
// no machine.
func (in *Instance) complete() {
	d := in.def
	for {
		mi := int32(0)
		if in.depth > 0 {
			if mi = d.states[in.active[in.depth-1]].sub; mi < 0 {
				return
			}
		}
		in.enter(d.machines[mi].initial)
	}
}

// step takes the first transition that holds, inner levels first.
func (in *Instance) step() {
	d := in.def
	for l := in.depth - 1; l >= 0; l-- {
		si := in.active[l]
		s := &d.states[si]
		if s.final != arbor.Invalid {
			continue
		}
		m := &d.machines[s.machine]
		for i := range m.any {
			if t := &m.any[i]; t.target != si && in.holds(t, l) {
				in.take(l, t)
				return
			}
		}
		for i := range s.trans {
			if t := &s.trans[i]; in.holds(t, l) {
				in.take(l, t)
				return
			}
		}
	}
}

func (in *Instance) holds(t *ctrans, l int32) bool {
	if t.cond < 0 {
		return true
	}
	in.evalTarget = t.target
	ok := in.eval(t.cond, l)
	in.evalTarget = -1
	return ok
}

// take takes transition t from the state active at level l.
func (in *Instance) take(l int32, t *ctrans) {
	from := in.active[l]
	for in.depth > l {
		in.exit()
	}
	if in.tracer != nil {
		in.tracer(in, Event{Kind: EventTransition, State: in.def.states[from].path, Target: in.def.states[t.target].path})
	}
	in.run(t.do, from, t.target, l, t.label)
	in.enter(t.target)
	in.complete()
}

// enter makes si the active state of the next level.
func (in *Instance) enter(si int32) {
	s := &in.def.states[si]
	l := in.depth
	in.active[l], in.since[l], in.treeStatus[l], in.agents[l] = si, in.now, arbor.Invalid, nil
	in.depth++
	in.changed = true
	if in.tracer != nil {
		in.tracer(in, Event{Kind: EventEnter, State: s.path})
	}
	in.run(s.enter, si, -1, l, "enter")
	switch {
	case s.branch >= 0:
		in.host.Halt() // nothing should run; start the tree afresh
	case s.agent != nil:
		if a := in.agentOf(s, si, l); a != nil {
			a.Halt()
			in.agents[l] = a
		}
	}
}

// exit exits the innermost active state: its tree is halted, then its
// exit callbacks run.
func (in *Instance) exit() {
	l := in.depth - 1
	si := in.active[l]
	s := &in.def.states[si]
	if s.branch >= 0 {
		in.host.Halt()
	}
	if a := in.agents[l]; a != nil {
		a.Halt()
		in.agents[l] = nil
	}
	in.run(s.exit, si, -1, l, "exit")
	in.depth--
	in.changed = true
	if in.tracer != nil {
		in.tracer(in, Event{Kind: EventExit, State: s.path})
	}
}

// updateState runs the update callbacks and the tree of the state active
// at level l.
func (in *Instance) updateState(l int32) {
	si := in.active[l]
	s := &in.def.states[si]
	in.run(s.update, si, -1, l, "update")
	switch {
	case s.branch >= 0:
		treeKey.Set(in.bb, float64(s.branch))
		in.treeStatus[l] = in.host.Tick(time.Duration(in.now))
	case in.agents[l] != nil:
		in.treeStatus[l] = in.agents[l].Tick(time.Duration(in.now))
	}
}

// run calls a list of callbacks.
func (in *Instance) run(calls []ccall, si, target, l int32, where string) {
	for i := range calls {
		c := &calls[i]
		if c.fn == nil {
			for _, s := range c.sets {
				in.bb.Set(s.key, s.val)
			}
			continue
		}
		in.call(c.fn, si, target, l, where)
	}
}

// call calls one callback, reporting a panic.
func (in *Instance) call(fn func(*Ctx), si, target, l int32, where string) {
	defer func() {
		if r := recover(); r != nil {
			in.report(si, where, &arbor.PanicError{Value: r, Stack: string(debug.Stack())})
		}
	}()
	in.ctx = Ctx{in: in, state: si, target: target, level: l}
	fn(&in.ctx)
}

// callCond calls a condition function; a panic is reported and the
// condition does not hold.
func (in *Instance) callCond(c *ccond, l int32) (ok bool) {
	si := in.active[l]
	defer func() {
		if r := recover(); r != nil {
			in.report(si, c.label, &arbor.PanicError{Value: r, Stack: string(debug.Stack())})
			ok = false
		}
	}()
	in.ctx = Ctx{in: in, state: si, target: in.evalTarget, level: l}
	return c.fn(&in.ctx)
}

// agentOf calls a state's Agent function, reporting a panic.
func (in *Instance) agentOf(s *cstate, si, l int32) (a *arbor.Agent) {
	defer func() {
		if r := recover(); r != nil {
			in.report(si, "agent", &arbor.PanicError{Value: r, Stack: string(debug.Stack())})
			a = nil
		}
	}()
	in.ctx = Ctx{in: in, state: si, target: -1, level: l}
	return s.agent(&in.ctx)
}

// report sends a run error to the error handler.
func (in *Instance) report(si int32, where string, err error) {
	e := &RunError{Machine: in.def.name, Where: where, Time: time.Duration(in.now), Err: err}
	if si >= 0 {
		e.State = in.def.states[si].path
	}
	if in.onError != nil {
		in.onError(e)
		return
	}
	slog.Warn("fsm: run error", "machine", e.Machine, "state", e.State, "where", where, "time", e.Time, "err", err)
}

// Ctx is what callbacks and condition functions receive: the instance, its
// clock and blackboard, and the state concerned. It is only valid during
// the call.
type Ctx struct {
	in     *Instance
	state  int32
	target int32
	level  int32
}

// Instance returns the instance running the callback.
func (c *Ctx) Instance() *Instance { return c.in }

// Blackboard returns the instance's blackboard.
func (c *Ctx) Blackboard() *arbor.Blackboard { return c.in.bb }

// Now returns the time of the current update.
func (c *Ctx) Now() time.Duration { return time.Duration(c.in.now) }

// State returns the name of the state concerned: the state entered,
// updated or exited, or the source of the transition.
func (c *Ctx) State() string { return c.in.def.states[c.state].name }

// StatePath returns the path of the state concerned ("Alive/Calm").
func (c *Ctx) StatePath() string { return c.in.def.states[c.state].path }

// Target returns the name of the transition's target state in transition
// callbacks and conditions, "" elsewhere.
func (c *Ctx) Target() string {
	if c.target < 0 {
		return ""
	}
	return c.in.def.states[c.target].name
}

// TimeInState returns how long the state concerned has been active.
func (c *Ctx) TimeInState() time.Duration {
	return time.Duration(c.in.now - c.in.since[c.level])
}

// Owner returns the instance's owner.
func (c *Ctx) Owner() any { return c.in.owner }

// Owner returns the instance's owner as a T (the zero T when it is not
// one).
func Owner[T any](c *Ctx) T {
	t, _ := c.in.owner.(T)
	return t
}
