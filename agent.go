package arbor

import (
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"time"
	"unsafe"
)

// st bits: the per-agent, per-node state byte.
const (
	stRunning  uint8 = 1 << 0
	stKeptMask uint8 = 3 << 1 // a Parallel/ParallelAll child's kept result (Status << 1)
	stForced   uint8 = 1 << 3 // running only because it is forced to (force.go)
	stSkipped  uint8 = 1 << 4 // its guard was false in this tick (markSkip nodes; the parent clears it at once)
)

// Agent.flags bits: what decides how the agent's next tick goes. The
// manager's loop ticks an agent whose flags are agActive alone (and that
// is not busy) by its root's walk directly: one comparison (tickSome).
// Each bit but agActive mirrors a field, which is written only through
// the function that sets both.
const (
	agTraced uint8 = 1 << iota // a tracer is set: a.tracer != nil (setTracer)
	agObs                      // observers are registered: len(a.obs) > 0 (setObs)
	agNoWalk                   // walk does not tick the tree's root: a.tree.rootWalk == nil (bind)
	agActive uint8 = 1 << 7    // has a tree and is not paused (not in a zero Agent: see Tick); the sign bit (active)
)

// active reports whether the agent has a tree and is not paused: whether
// agActive, the sign bit, is set (one comparison).
func (a *Agent) active() bool { return int8(a.flags) < 0 }

// setTracer sets a.tracer and agTraced.
func (a *Agent) setTracer(t Tracer) {
	a.tracer = t
	if t != nil {
		a.flags |= agTraced
	} else {
		a.flags &^= agTraced
	}
}

// setObs sets a.obs and agObs.
func (a *Agent) setObs(obs []observer) {
	a.obs = obs
	if len(obs) > 0 {
		a.flags |= agObs
	} else {
		a.flags &^= agObs
	}
}

// Agent is one entity running a Tree: which nodes are running, their
// memory, the observers of conditional aborts and the blackboard. Agents of
// the same Tree share nothing mutable but the global blackboard scope.
//
// An Agent comes from NewAgent or Manager.Add. The zero Agent has no tree
// and is inert rather than broken: Tick does nothing and returns Invalid;
// Halt, Reset, Pause and Resume do nothing; Force, Unforce, Snapshot and
// Restore return an error wrapping ErrNoTree; its Blackboard is usable, with
// a global scope of its own. SetTree binds its first tree, keeping what the
// blackboard holds: from then on it works as an agent NewAgent makes
// without options.
//
// An Agent is not safe for concurrent use; a Manager ticks many agents in
// parallel, each on one goroutine at a time.
//
// NewAgent allocates an Agent with its tree's blackboard slots and node
// state right after it (agentLayout); its nodes' Ctx is the Agent itself.
type Agent struct {
	// Hot fields first: a tick touches these.
	tree    *Tree
	st      []uint8 // per node: stRunning, kept result
	mem     []int64 // node memory words, then pointer-free user node memory
	bb      Blackboard
	obs     []observer
	tracer  Tracer
	status  Status // the root's last result
	flags   uint8  // agActive, agTraced, agObs, agNoWalk
	watched bool   // a watchdog is set (cold.budget > 0)
	busy    bool   // in a tick or an agent operation: operations wait
	npend   uint8  // operations waiting in pending
	inBare  bool   // in a bareFunc's call of a user tick (its panic is the node's: tickAgents)
	// bare: the tick is a manager's and no watchdog is set: walk ticks
	// the plain user nodes of the root's region (kidBare) without a
	// barrier of their own (tickAt).
	bare    bool
	pending uint32 // waiting operations, 4 bits each, oldest first
	node    int32  // the user node being run (Ctx.Node)
	owner   any
	// Cold fields.
	cold *agentCold
	id   int
}

// agentCold holds what few agents need.
type agentCold struct {
	obsSeq  uint64 // observers registered so far (their order)
	umem    []any  // user node memory with pointers (*M)
	onError func(*NodeError)
	budget  time.Duration // watchdog: wall time a user callback may take
	onSlow  func(*NodeError)
	// nested: wall time of the user ticks run inside the current user
	// tick (a user control's children), which is not the control's own.
	nested time.Duration
	// ctl is 1 + the user control whose Tick runs (Children work only
	// then), 0 when none.
	ctl int32
	// Forced nodes (force.go): the status per node (Invalid: not forced),
	// nil when none is; nopTracer: a.tracer is ignoreEvents, set for them.
	forced    []Status
	nforced   int
	nopTracer bool
	// morePend: the operations requested while the agent is busy beyond
	// the eight that Agent.pending holds, oldest first (rare).
	morePend []pendingOp
}

func (a *Agent) coldPart() *agentCold {
	if a.cold == nil {
		a.cold = &agentCold{}
	}
	return a.cold
}

// pendingOp is an agent operation requested from inside its own tick (or
// from a callback of another operation).
type pendingOp uint8

const (
	opNone pendingOp = iota
	opHalt
	opReset
	opPause
	opResume
)

// AgentOption configures NewAgent.
type AgentOption func(*Agent)

// WithOwner sets the program's own object for the entity the agent drives;
// user nodes reach it with Owner.
func WithOwner(owner any) AgentOption { return func(a *Agent) { a.owner = owner } }

// WithGlobals makes the agent use a shared global blackboard scope (keys
// beginning with "@") instead of one of its own.
func WithGlobals(g *Globals) AgentOption { return func(a *Agent) { a.bb.global = g } }

// WithErrorHandler sets the function that receives node errors. It is
// called synchronously, from the goroutine ticking the agent (or calling
// the agent operation whose callback failed): in a Manager with several
// workers, from several goroutines at once for different agents. A panic in
// it is logged and goes no further; agent operations it calls take effect
// when the tick ends, as from a node. The default (also for a nil h) is
// LogNodeError: log/slog, at most 10 a second across the process.
func WithErrorHandler(h func(*NodeError)) AgentOption {
	return func(a *Agent) { a.coldPart().onError = h }
}

// WithWatchdog reports user node callbacks (tick, start, end, halt, pause,
// awake) that take longer than budget of wall time: h receives a NodeError
// whose Err is a *SlowError (the node's result is not changed); a nil h
// logs them as node errors are by default. h is called as the error
// handler is (see WithErrorHandler). A budget ≤ 0 sets no watchdog. With
// no watchdog the engine reads no clock.
func WithWatchdog(budget time.Duration, h func(*NodeError)) AgentOption {
	return func(a *Agent) {
		c := a.coldPart()
		c.budget, c.onSlow = budget, h
		a.watched = budget > 0
	}
}

// SlowError is the error of a watchdog report.
type SlowError struct {
	Elapsed, Budget time.Duration
}

// Error reports the elapsed time against the budget.
func (e *SlowError) Error() string {
	return fmt.Sprintf("tick took %v, over the watchdog budget of %v", e.Elapsed, e.Budget)
}

// WithTracer sets a function that receives every node event (see Tracer).
func WithTracer(t Tracer) AgentOption { return func(a *Agent) { a.setTracer(t) } }

// WithID sets the agent's id, shown in error reports and the debugger.
// Manager.Add assigns ids itself, in order of addition, whatever WithID
// says.
func WithID(id int) AgentOption { return func(a *Agent) { a.id = id } }

// NewAgent binds a new agent to a compiled tree and calls the awake
// callback of every user node that has one. A nil tree is a programming
// error (an unchecked Compile error, typically): NewAgent panics, saying
// so.
func NewAgent(t *Tree, opts ...AgentOption) *Agent {
	if t == nil {
		panic("arbor: NewAgent: nil tree (Compile's error was not checked?)")
	}
	base := reflect.New(t.layout.typ).UnsafePointer()
	a := (*Agent)(base) // the allocation's first field (agentLayout)
	a.flags = agActive
	a.bb.keys = emptyKeys // the global scope: WithGlobals, or its own below
	a.bindIn(t, base)
	for _, o := range opts {
		o(a)
	}
	if a.bb.global == nil {
		a.bb.global = NewGlobals()
	}
	a.seedRandom()
	a.awake()
	return a
}

// agentLayout is the one allocation NewAgent makes for an agent of a
// tree: the Agent, then the blackboard slots of the tree's keys, then the
// agent's pointer-free state (the node state bytes, the node memory words
// and the user nodes' memory, as bind lays them out). Ticking agents in
// the order they were made then reads memory in order, one stretch per
// agent, instead of three objects from three parts of the heap; the
// pointer-free words come last, where the garbage collector's scan of the
// object stops.
type agentLayout struct {
	typ   reflect.Type // struct{ A Agent; S [slots]slot; W [words]uint64 }
	slots uintptr      // offset of S
	words uintptr      // offset of W
}

// stateWords returns how many words the pointer-free state of an agent of
// t takes: the node state bytes (rounded up to whole words), then the
// memory words.
func (t *Tree) stateWords() int { return (len(t.nodes)+7)/8 + t.words }

// setLayout sets the tree's agentLayout, once it is compiled.
func (t *Tree) setLayout() {
	typ := reflect.StructOf([]reflect.StructField{
		{Name: "A", Type: reflect.TypeFor[Agent]()},
		{Name: "S", Type: reflect.ArrayOf(len(t.keys.ids), reflect.TypeFor[slot]())},
		{Name: "W", Type: reflect.ArrayOf(t.stateWords(), reflect.TypeFor[uint64]())},
	})
	t.layout = agentLayout{typ: typ, slots: typ.Field(1).Offset, words: typ.Field(2).Offset}
}

// bind gives the agent fresh state for tree t, in new allocations.
func (a *Agent) bind(t *Tree) { a.bindIn(t, nil) }

// bindIn is bind. base, when not nil, is the agent's own allocation, of
// t.layout.typ (NewAgent): the state and the blackboard slots go in it.
// An agent bound again later (SetTree) gets new allocations, leaving that
// room unused.
func (a *Agent) bindIn(t *Tree, base unsafe.Pointer) {
	a.dropForces()
	a.tree = t
	if a.flags &^= agNoWalk; t.rootWalk == nil {
		a.flags |= agNoWalk
	}
	// One block holds the agent's pointer-free state: the node state
	// bytes, the node memory words and the user nodes' memory.
	stWords := (len(t.nodes) + 7) / 8
	var block []uint64
	var local []slot
	if base == nil {
		block = make([]uint64, t.stateWords())
	} else {
		// In bounds: the allocation's arrays W and S have these lengths
		// (setLayout); an empty one is left nil rather than pointing at
		// the allocation's end.
		if n := t.stateWords(); n > 0 {
			block = unsafe.Slice((*uint64)(unsafe.Add(base, t.layout.words)), n)
		}
		if n := len(t.keys.ids); n > 0 {
			local = unsafe.Slice((*slot)(unsafe.Add(base, t.layout.slots)), n)
		}
	}
	a.st, a.mem = nil, nil
	if stWords > 0 {
		a.st = unsafe.Slice((*uint8)(unsafe.Pointer(&block[0])), len(t.nodes))
	}
	if t.words > 0 {
		a.mem = unsafe.Slice((*int64)(unsafe.Pointer(&block[stWords])), t.words)
	}
	a.bb.adopt(t.keys, local)
	if a.cold != nil {
		a.cold.umem = nil
	}
	if t.userSlots > 0 {
		c := a.coldPart()
		c.umem = make([]any, t.userSlots)
		for i := range t.nodes {
			n := &t.nodes[i]
			if n.umemHeap {
				c.umem[n.umem] = n.user.newMemory()
			}
		}
	}
	var obs []observer
	if t.observers > 0 {
		obs = make([]observer, 0, t.observers)
	}
	a.setObs(obs)
	if a.cold != nil {
		a.cold.obsSeq = 0
	}
	a.status = Invalid
}

// awake calls the awake callbacks of the tree's user nodes.
func (a *Agent) awake() {
	for _, i := range a.tree.awake {
		a.callUser(i, callAwake, 0)
	}
}

// SetTree moves the agent to another tree (hot reload): its running nodes
// are halted (their halt callbacks run, exactly once), the agent gets
// fresh node state for t and the awake callbacks of t's user nodes run.
// The blackboard, owner and options are kept; the next tick starts t
// afresh. Called from inside the agent's tick it is an error. A zero Agent
// gets its first tree.
func (a *Agent) SetTree(t *Tree) error {
	if a.busy {
		return fmt.Errorf("set tree of agent %d: called from inside its tick", a.id)
	}
	if t == nil {
		return fmt.Errorf("set tree of agent %d: nil tree", a.id)
	}
	if a.tree == nil {
		a.bindFirst()
	} else {
		a.Halt()
	}
	a.bind(t)
	a.seedRandom()
	a.awake()
	return nil
}

// bindFirst readies a zero Agent for its first tree as NewAgent readies a
// new one; SetTree then binds the tree.
func (a *Agent) bindFirst() {
	if a.bb.keys == nil {
		a.initBlackboard()
	}
	a.flags |= agActive
}

// initBlackboard gives a zero Agent the blackboard NewAgent gives an agent
// without options: no tree keys, a global scope of its own. It is kept out
// of Blackboard, which sensing code calls before every tick, so that
// Blackboard stays small.
//
//go:noinline
func (a *Agent) initBlackboard() {
	a.bb.keys, a.bb.global = emptyKeys, NewGlobals()
}

// Tree returns the compiled tree the agent runs (nil for a zero Agent).
func (a *Agent) Tree() *Tree { return a.tree }

// Blackboard returns the agent's blackboard.
func (a *Agent) Blackboard() *Blackboard {
	if a.bb.keys == nil {
		a.initBlackboard() // a zero Agent's, on first use
	}
	return &a.bb
}

// Owner returns the agent's owner object (see WithOwner).
func (a *Agent) Owner() any { return a.owner }

// SetOwner sets the agent's owner object, as WithOwner does at creation:
// for agents made by a restore (owners are not part of snapshots).
func (a *Agent) SetOwner(owner any) { a.owner = owner }

// ID returns the agent's id (see WithID).
func (a *Agent) ID() int { return a.id }

// Now returns the agent's current time: that of its last tick.
func (a *Agent) Now() time.Duration { return time.Duration(a.bb.now) }

// Status returns the root's result on the last tick (Invalid before the
// first, and after Reset or SetTree until the next).
func (a *Agent) Status() Status { return a.status }

// Paused reports whether the agent is paused (never for a zero Agent,
// which Pause does not pause).
func (a *Agent) Paused() bool { return !a.active() && a.tree != nil }

// Tracer returns the agent's tracer (nil when none), so that tools can
// chain to it.
func (a *Agent) Tracer() Tracer {
	if a.cold != nil && a.cold.nopTracer {
		return nil
	}
	return a.tracer
}

// SetTracer replaces the agent's tracer (nil removes it).
func (a *Agent) SetTracer(t Tracer) {
	a.setTracer(t)
	if c := a.cold; c != nil && c.forced != nil {
		c.nopTracer = t == nil
		if t == nil {
			a.setTracer(ignoreEvents)
		}
	}
}

// Running reports whether node id is running (false for an id that is not
// a node of the agent's tree).
func (a *Agent) Running(id int) bool { return uint(id) < uint(len(a.st)) && a.st[id]&stRunning != 0 }

// Tick runs one step of the tree at game time now and returns the root's
// result. A paused agent is not ticked: Tick returns its last result. Time
// should not go backwards; durations are measured on this clock. Called
// from a callback of the agent's own tick or operation, Tick does nothing
// and reports ErrReentrantTick. A zero Agent's Tick does nothing and
// returns Invalid.
func (a *Agent) Tick(now time.Duration) Status { return a.tickAt(now, false) }

// tickAt is Tick. bare: the walk from the root ticks plain user nodes
// without a barrier of their own, because the caller (tickAgents) has one
// that resumes the tick after a panic of such a node (plan.go: walk).
func (a *Agent) tickAt(now time.Duration, bare bool) Status {
	// Paused or busy. A zero Agent is not active either, so that this one
	// test covers it at no cost to the ticks of other agents; its status
	// is Invalid.
	if !a.active() || a.busy {
		if a.busy {
			// From a callback of the agent's own tick or operation.
			a.report(a.node, ErrReentrantTick)
		}
		return a.status
	}
	a.bb.now = int64(now)
	a.busy, a.bare = true, bare && !a.watched
	if len(a.obs) > 0 {
		a.reevaluate()
	}
	var s Status
	if n := a.tree.rootWalk; n != nil && a.tracer == nil {
		// A sequence or selector root without guard: tickNode's work for
		// it, written out (as walk does for such children; endRoot).
		// tickSome has this case of tickAt written out: keep them alike.
		st := a.stp(0)
		if s = a.walk(n, n, a.first(n, *st&stRunning == 0, 0)); s == Running {
			*st |= stRunning
		} else {
			*st &^= stRunning
			if len(a.obs) > 0 {
				a.ended(0, n, s)
			} else {
				a.clearActivation(n) // all of ended for a composite
			}
		}
	} else {
		s = a.tick(0)
	}
	a.status = s
	a.done()
	return s
}

// endRoot records the end of the tick of the root n, a sequence or
// selector ticked by walk, with result s (tickAt has it written out).
func (a *Agent) endRoot(n *node, s Status) {
	if st := &a.st[0]; s == Running {
		*st |= stRunning
	} else {
		*st &^= stRunning
		if len(a.obs) > 0 {
			a.ended(0, n, s)
		} else {
			a.clearActivation(n)
		}
	}
}

// resumeTick goes on with the tick of an agent whose plain user node
// a.node, ticked bare by the root's walk, panicked (the barrier of
// tickAgents has reported it): the node fails, as userTick's barrier
// makes it, and the walk resumes after it; then the tick ends as tickAt
// ends it. The state is what walk leaves at that point: the nodes above
// are still running their tick, with their words as walk wrote them.
func (a *Agent) resumeTick() {
	i := a.node
	cn := &a.tree.nodes[i]
	// walk's end of the node's tick, with Failure.
	a.st[i] &^= stRunning
	a.endMemory(cn)
	top := &a.tree.nodes[0]
	n, k, s := cn.up, int(cn.pos), Failure
	for {
		if s == n.cont {
			s = a.walk(top, n, k+1)
			break
		}
		// walk's way up (plan.go), with finish.
		s = a.finish(n, k, s)
		if n == top {
			break
		}
		c := n
		if st := &a.st[c.at]; s == Running {
			*st |= stRunning
		} else {
			*st &^= stRunning
			if len(a.obs) > 0 {
				a.ended(c.at, c, s)
			} else {
				a.mem[c.mem] = 0
			}
		}
		n, k = c.up, int(c.pos)
	}
	a.endRoot(top, s)
	a.status = s
	a.done()
}

// wait records an operation requested while the agent is busy; it
// reports whether it did. The first eight wait in pending, any more in
// cold.morePend; they run in the order requested.
func (a *Agent) wait(op pendingOp) bool {
	if !a.busy {
		return false
	}
	if a.npend < 8 && (a.cold == nil || len(a.cold.morePend) == 0) {
		a.pending |= uint32(op) << (4 * a.npend)
		a.npend++
	} else {
		cold := a.coldPart()
		cold.morePend = append(cold.morePend, op)
	}
	return true
}

// done ends a tick or an operation and runs the operations that waited.
func (a *Agent) done() {
	a.busy = false
	if a.npend > 0 {
		a.runPending()
	}
}

// runPending runs the operations that waited, in order: those in pending
// (the older), then those in cold.morePend (which holds some only while
// pending is full or runPending runs, so done's test of npend suffices).
// An operation requested while they run goes after them.
func (a *Agent) runPending() {
	for {
		var op pendingOp
		if a.npend > 0 {
			op = pendingOp(a.pending & 0xF)
			a.pending >>= 4
			a.npend--
		} else if a.cold != nil && len(a.cold.morePend) > 0 {
			op = a.cold.morePend[0]
			a.cold.morePend = a.cold.morePend[1:]
			if len(a.cold.morePend) == 0 {
				a.cold.morePend = nil
			}
		} else {
			return
		}
		switch op {
		case opHalt:
			a.Halt()
		case opReset:
			a.Reset()
		case opPause:
			a.Pause()
		case opResume:
			a.Resume()
		}
	}
}

// Halt halts every running node (children first, exactly once each) at the
// agent's current time. Called from inside the agent's own tick (or from a
// callback of another operation), it takes effect right after it.
func (a *Agent) Halt() {
	if a.tree == nil || a.wait(opHalt) {
		return
	}
	a.busy = true
	a.halt(0)
	a.setObs(a.obs[:0])
	a.done()
}

// Reset halts the agent, then clears all node memory, including memory
// that lives over the agent's life (Limiter counts, RunOnce results,
// Cooldown times...). The blackboard is kept.
func (a *Agent) Reset() {
	if a.tree == nil || a.wait(opReset) {
		return
	}
	a.busy = true
	a.halt(0)
	a.setObs(a.obs[:0])
	if a.cold != nil {
		a.cold.obsSeq = 0
	}
	clear(a.st)
	clear(a.mem)
	a.seedRandom() // the random composites draw again from their seeds
	for i := range a.tree.nodes {
		n := &a.tree.nodes[i]
		if n.umemHeap {
			reflect.ValueOf(a.cold.umem[n.umem]).Elem().SetZero()
		}
	}
	a.status = Invalid
	a.done()
}

// Pause stops the agent: Tick does nothing until Resume. Running user
// nodes get their pause callback, in tree order. A zero Agent is not
// paused.
func (a *Agent) Pause() {
	if a.wait(opPause) || !a.active() { // already paused, or no tree
		return
	}
	a.busy = true
	a.flags &^= agActive
	a.notifyPause(true)
	a.done()
}

// Resume undoes Pause; running user nodes get their pause(false) callback.
func (a *Agent) Resume() {
	if a.wait(opResume) || a.active() || a.tree == nil {
		return
	}
	a.busy = true
	a.flags |= agActive
	a.notifyPause(false)
	a.done()
}

func (a *Agent) notifyPause(paused bool) {
	for i := range a.tree.nodes {
		if a.st[i]&(stRunning|stForced) == stRunning && a.tree.nodes[i].cb&hasPause != 0 {
			var p int64
			if paused {
				p = 1
			}
			a.callUser(int32(i), callPause, p)
		}
	}
}

// report sends a node error to the agent's error handler.
func (a *Agent) report(i int32, err error) {
	n := &a.tree.meta[i]
	ne := &NodeError{Path: n.path, Type: n.typ, Name: n.name, Agent: a, Time: time.Duration(a.bb.now), Err: err}
	if a.cold != nil && a.cold.onError != nil {
		callHandler("error handler", a.cold.onError, ne)
		return
	}
	logNodeError(ne)
}

// callHandler calls a program's handler of node errors. A panic in it is
// logged and goes no further: it must not leave the agent half-way
// through a tick.
func callHandler(what string, h func(*NodeError), ne *NodeError) {
	defer func() {
		if r := recover(); r != nil && logAllowed() {
			slog.Error("arbor: the "+what+" panicked", "agent", ne.Agent.id, "node", ne.Path, "panic", r)
		}
	}()
	h(ne)
}

// logLimit rate-limits the default logging of node errors: a node failing
// every tick in thousands of agents must not flood the log.
var logLimit struct {
	sync.Mutex
	window     time.Time
	logged     int
	suppressed int
}

// maxLogsPerSecond bounds the node errors logged by default each second.
const maxLogsPerSecond = 10

// LogNodeError is what an agent without an error handler does with its
// node errors: it logs them with log/slog, at most 10 a second across the
// process (the number left out is logged when the next second begins), a
// panic with its stack. A handler that also sends errors elsewhere can call
// it to keep the log.
func LogNodeError(e *NodeError) { logNodeError(e) }

// logNodeError logs a node error with log/slog, at most maxLogsPerSecond a
// second; the number of errors left out is logged when the next second
// begins.
func logNodeError(ne *NodeError) {
	if !logAllowed() {
		return
	}
	var pe *PanicError
	if errors.As(ne.Err, &pe) {
		// A panic is a bug in the program's node: where it happened is
		// what the reader needs.
		slog.Warn("arbor: node error", "agent", ne.Agent.id, "node", ne.Path, "type", ne.Type, "time", ne.Time, "err", ne.Err, "stack", pe.Stack)
		return
	}
	slog.Warn("arbor: node error", "agent", ne.Agent.id, "node", ne.Path, "type", ne.Type, "time", ne.Time, "err", ne.Err)
}

// logAllowed reports whether the rate limit of the default logging lets
// one more message through.
func logAllowed() bool {
	now := time.Now() // diagnostics only: semantics never read the wall clock
	logLimit.Lock()
	if now.Sub(logLimit.window) >= time.Second {
		if logLimit.suppressed > 0 {
			slog.Warn("arbor: node errors not logged (rate limit)", "count", logLimit.suppressed)
		}
		logLimit.window, logLimit.logged, logLimit.suppressed = now, 0, 0
	}
	if logLimit.logged >= maxLogsPerSecond {
		logLimit.suppressed++
		logLimit.Unlock()
		return false
	}
	logLimit.logged++
	logLimit.Unlock()
	return true
}

// emit sends an event to the tracer. A panic in the tracer is logged and
// goes no further: it must not leave the agent half-way through a tick.
func (a *Agent) emit(e Event) {
	defer func() {
		if r := recover(); r != nil && logAllowed() {
			slog.Error("arbor: the tracer panicked", "agent", a.id, "node", e.Node, "event", e.Kind, "panic", r)
		}
	}()
	a.tracer(a, e)
}
