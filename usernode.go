package arbor

import (
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"strings"
	"time"
	"unsafe"
)

// Ctx is what user node callbacks receive: the agent, its clock and
// blackboard, and the node being run. It is only valid during the call,
// on the goroutine making it: do not keep it. Agent operations called
// through it on the agent (Halt, Reset, Pause, Resume) take effect when
// the tick ends; Agent.Tick, SetTree, Force, Unforce and Restore are
// refused.
//
// A *Ctx is the agent's own address (Agent.ctx), so that an agent needs no
// field for its nodes' Ctx: the node being run is the agent's node.
type Ctx Agent

// agent returns the agent running the node.
func (c *Ctx) agent() *Agent { return (*Agent)(c) }

// ctx returns the Ctx the agent's user nodes receive.
func (a *Agent) ctx() *Ctx { return (*Ctx)(a) }

// Agent returns the agent running the node.
func (c *Ctx) Agent() *Agent { return c.agent() }

// Now returns the agent's current time (the tick's now).
func (c *Ctx) Now() time.Duration { return time.Duration(c.agent().bb.now) }

// Blackboard returns the agent's blackboard.
func (c *Ctx) Blackboard() *Blackboard { return &c.agent().bb }

// Node returns the id of the node being run.
func (c *Ctx) Node() int { return int(c.agent().node) }

// Path returns the path of the node being run.
func (c *Ctx) Path() string { return c.agent().tree.meta[c.agent().node].path }

// Name returns the node's name, or its type when it has none.
func (c *Ctx) Name() string { return c.agent().tree.meta[c.agent().node].label() }

// Report sends an error to the agent's error handler with the node's path,
// without failing the node (return the error from Tick to fail it).
func (c *Ctx) Report(err error) { c.agent().report(c.agent().node, err) }

// Owner returns the agent's owner as a T (the zero T when it is not one).
func Owner[T any](c *Ctx) T {
	t, _ := c.owner.(T) // the agent's owner: a Ctx is the Agent (not c.agent(), which may not be inlined here)
	return t
}

// Condition is a user condition: a leaf that decides within its tick and
// keeps no running state. The value registered is built from the node's
// parameters and shared by every agent: do not modify it in Check.
type Condition interface {
	Check(c *Ctx) (bool, error)
}

// Action is a user action with per-agent, per-node memory M (use struct{}
// for none). The value registered is built from the node's parameters and
// shared by every agent: keep per-agent state in M, which is zeroed when an
// activation ends (success, failure or halt) unless the type is registered
// with KeepMemory.
//
// An action may also implement any of Start(*Ctx, *M) error,
// End(*Ctx, *M, Status), Halt(*Ctx, *M), Pause(*Ctx, *M, bool) and
// Awake(*Ctx, *M), called as semantics §2 says. A method with one of these
// names and another signature is a registration error (it would never be
// called).
type Action[M any] interface {
	Tick(c *Ctx, m *M) (Status, error)
}

type starter[M any] interface{ Start(*Ctx, *M) error }
type ender[M any] interface{ End(*Ctx, *M, Status) }
type halter[M any] interface{ Halt(*Ctx, *M) }
type pauser[M any] interface{ Pause(*Ctx, *M, bool) }
type awaker[M any] interface{ Awake(*Ctx, *M) }

// methodType writes a method's function type without its first skip
// inputs (the receiver).
func methodType(t reflect.Type, skip int) string {
	var in, out []string
	for i := skip; i < t.NumIn(); i++ {
		in = append(in, t.In(i).String())
	}
	for i := 0; i < t.NumOut(); i++ {
		out = append(out, t.Out(i).String())
	}
	s := "func(" + strings.Join(in, ", ") + ")"
	switch len(out) {
	case 0:
	case 1:
		s += " " + out[0]
	default:
		s += " (" + strings.Join(out, ", ") + ")"
	}
	return s
}

// callbackMismatch reports a method of t named like an optional action
// callback whose signature is not the callback's: it would never be
// called, which is a mistake easy to make and hard to see.
func callbackMismatch[M any](t reflect.Type) error {
	for _, cb := range []struct {
		name string
		want reflect.Type
	}{
		{"Start", reflect.TypeOf((*starter[M])(nil)).Elem()},
		{"End", reflect.TypeOf((*ender[M])(nil)).Elem()},
		{"Halt", reflect.TypeOf((*halter[M])(nil)).Elem()},
		{"Pause", reflect.TypeOf((*pauser[M])(nil)).Elem()},
		{"Awake", reflect.TypeOf((*awaker[M])(nil)).Elem()},
	} {
		if m, ok := t.MethodByName(cb.name); ok && !t.Implements(cb.want) {
			w, _ := cb.want.MethodByName(cb.name)
			return fmt.Errorf("method %s has type %s, want %s: it would never be called", cb.name, methodType(m.Type, 1), w.Type)
		}
	}
	return nil
}

// TypeOption configures a registered node type.
type TypeOption func(*typeOptions)

type typeOptions struct {
	keepMemory bool
	anyParams  bool
}

// KeepMemory makes the per-agent memory M of an action, decorator or
// control node live over the agent's life: it is not zeroed when an
// activation ends, only by Agent.Reset.
func KeepMemory() TypeOption { return func(o *typeOptions) { o.keepMemory = true } }

// AnyParams makes the type accept, and ignore, parameters its parameter
// struct does not declare.
func AnyParams() TypeOption { return func(o *typeOptions) { o.anyParams = true } }

// RegisterCondition registers a condition type whose parameters are the
// fields of N (the tags and field types are RegisterAction's).
func RegisterCondition[N any, P interface {
	*N
	Condition
}](r *Registry, name string, opts ...TypeOption) error {
	o := applyOptions(opts)
	schema, err := schemaOf[N]()
	if err != nil {
		return fmt.Errorf("register condition %q: %w", name, err)
	}
	return r.add(&nodeType{name: name, kind: kCondition, shape: shapeLeaf, params: schema.names(), info: schema.infos(), anyParams: o.anyParams,
		user: func(pr *paramReader) userNode {
			n := new(N)
			schema.fill(reflect.ValueOf(n).Elem(), pr)
			return &conditionNode{P(n)}
		}})
}

// ConditionFunc registers a condition without parameters: fn is its check.
// As for every registration, the error says why the name was refused
// (empty, built-in or already registered).
func (r *Registry) ConditionFunc(name string, fn func(c *Ctx) (bool, error), opts ...TypeOption) error {
	o := applyOptions(opts)
	return r.add(&nodeType{name: name, kind: kCondition, shape: shapeLeaf, anyParams: o.anyParams,
		user: func(*paramReader) userNode { return &conditionNode{condFunc(fn)} }})
}

// RegisterAction registers an action type whose parameters are the fields
// of N and whose per-agent memory is M.
//
// Parameters: every exported field of N is one, named by its `arbor:"name"`
// tag or, without one, by the field's name with a lower-case first letter;
// `arbor:"-"` skips a field. Options follow the name: `arbor:"speed,required"`
// (a missing parameter is a load error), `arbor:"speed,default=1.5"` (the
// default in JSON, or a bare string). Field types: bool, string, the
// integer and float types, time.Duration (a number of milliseconds),
// Param[T] (a literal or a "{key}" blackboard reference, read with Get),
// any, and slices and string-keyed maps of those. A value of the wrong
// type, or an integer field given a fraction, is a load error with the
// node's path. Each node of the tree gets its own N, filled once when the
// tree compiles; it is shared by every agent running the tree, so per-agent
// state belongs in M.
func RegisterAction[N any, M any, P interface {
	*N
	Action[M]
}](r *Registry, name string, opts ...TypeOption) error {
	o := applyOptions(opts)
	schema, err := schemaOf[N]()
	if err != nil {
		return fmt.Errorf("register action %q: %w", name, err)
	}
	if err := callbackMismatch[M](reflect.TypeOf(P(nil))); err != nil {
		return fmt.Errorf("register action %q: %w", name, err)
	}
	return r.add(&nodeType{name: name, kind: kAction, shape: shapeLeaf, params: schema.names(), info: schema.infos(), anyParams: o.anyParams,
		user: func(pr *paramReader) userNode {
			n := new(N)
			schema.fill(reflect.ValueOf(n).Elem(), pr)
			return newActionNode[M](P(n), o.keepMemory)
		}})
}

// RegisterActionFactory registers an action built by a function from the
// node's raw parameters (nil, bool, float64, string, []any,
// map[string]any), for programs whose parameters are not known at compile
// time. An error from build is a load error of the node. Unless AnyParams is
// given, every parameter must be one of params.
func RegisterActionFactory[M any](r *Registry, name string, params []string, build func(params map[string]any) (Action[M], error), opts ...TypeOption) error {
	if build == nil {
		return fmt.Errorf("register %q: nil build function", name)
	}
	o := applyOptions(opts)
	return r.add(&nodeType{name: name, kind: kAction, shape: shapeLeaf, params: params, anyParams: o.anyParams,
		user: func(pr *paramReader) userNode {
			act, ok := fromFactory(pr, params, build, func(a Action[M]) error { return callbackMismatch[M](reflect.TypeOf(a)) })
			if !ok {
				return nil
			}
			return newActionNode[M](act, o.keepMemory)
		}})
}

// fromFactory builds a factory-registered node's value from the node's
// parameters (params are its declared ones) and checks it: a failure is a
// load error of the node.
func fromFactory[T any](pr *paramReader, params []string, build func(map[string]any) (T, error), check func(T) error) (T, bool) {
	for _, p := range params {
		pr.get(p)
	}
	v, err := callFactory(build, pr.params)
	if err == nil && check != nil {
		err = check(v)
	}
	if err != nil {
		pr.errf("", "%v", err)
		return v, false
	}
	return v, true
}

// callFactory runs a user node factory for one node: a panic in it is an
// error, and so is a nil node.
func callFactory[T any](build func(map[string]any) (T, error), params map[string]any) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the node's factory panicked: %v", r)
		}
	}()
	if v, err = build(params); err == nil && any(v) == nil {
		err = errors.New("the node's factory returned nil")
	}
	return v, err
}

// RegisterConditionFactory registers a condition built by a function from
// the node's raw parameters (see RegisterActionFactory).
func RegisterConditionFactory(r *Registry, name string, params []string, build func(params map[string]any) (Condition, error), opts ...TypeOption) error {
	if build == nil {
		return fmt.Errorf("register %q: nil build function", name)
	}
	o := applyOptions(opts)
	return r.add(&nodeType{name: name, kind: kCondition, shape: shapeLeaf, params: params, anyParams: o.anyParams,
		user: func(pr *paramReader) userNode {
			c, ok := fromFactory(pr, params, build, nil)
			if !ok {
				return nil
			}
			return &conditionNode{c}
		}})
}

// ActionFunc registers an action without parameters or memory: fn is its
// tick.
func (r *Registry) ActionFunc(name string, fn func(c *Ctx) (Status, error), opts ...TypeOption) error {
	o := applyOptions(opts)
	return r.add(&nodeType{name: name, kind: kAction, shape: shapeLeaf, anyParams: o.anyParams,
		user: func(*paramReader) userNode { return newActionNode[struct{}](actionFunc(fn), false) }})
}

func applyOptions(opts []TypeOption) typeOptions {
	var o typeOptions
	for _, f := range opts {
		f(&o)
	}
	return o
}

type condFunc func(c *Ctx) (bool, error)

func (f condFunc) Check(c *Ctx) (bool, error) { return f(c) }

type actionFunc func(c *Ctx) (Status, error)

func (f actionFunc) Tick(c *Ctx, _ *struct{}) (Status, error) { return f(c) }

// userNode is the engine's view of a registered node. mem points to the
// node's memory M for the agent (nil when M is empty).
type userNode interface {
	start(c *Ctx, mem unsafe.Pointer) error
	tick(c *Ctx, mem unsafe.Pointer) (Status, error)
	end(c *Ctx, mem unsafe.Pointer, s Status)
	halt(c *Ctx, mem unsafe.Pointer)
	pause(c *Ctx, mem unsafe.Pointer, paused bool)
	awake(c *Ctx, mem unsafe.Pointer)
	// tickFunc returns the tick as one function, for the hot path.
	tickFunc() tickFunc
	// bareFunc returns walk's whole tick of the node as a plain user node
	// ticked bare (see the type).
	bareFunc() bareFunc
	// callbacks reports which optional callbacks exist.
	callbacks() callbackSet
	// memory describes M: its size in 8-byte words, and whether it holds
	// pointers (then it lives on the heap, not in the agent's arena).
	memory() (words int, pointers bool)
	keepMemory() bool
	newMemory() any
	pointer(mem any) unsafe.Pointer
}

// tickFunc is a user node's tick bound to its shared value.
type tickFunc func(c *Ctx, mem unsafe.Pointer) (Status, error)

// bareFunc is walk's tick of a plain user node (i, n) of the root's walk
// in a manager tick (kidBare), for one user node type: userTick without
// its panic barrier (the manager's, tickAgents, has one for all the
// agents it ticks: a.inBare, set around the user's call, tells it that
// a panic is the node's, and the tick then resumes after the node,
// resumeTick), and walk's end of the node's tick. One Go call from walk
// to the user's Tick or Check instead of two or more (userTick, then the
// tickFunc closure), and the end of the node's tick is recorded in this
// frame rather than in walk's, whose loop keeps more values live.
type bareFunc func(a *Agent, i int32, n *node) Status

// callbackSet is the set of optional callbacks a user node implements.
type callbackSet uint8

const (
	hasStart callbackSet = 1 << iota
	hasEnd
	hasHalt
	hasPause
	hasAwake
)

// conditionNode adapts a Condition. It is used by pointer, as actionNode
// is: through a value receiver, userNode's calls of bareFunc and tickFunc
// would go through the compiler's pointer wrapper, which inlines them with
// their closures, and the copies of the closures it compiles leave the
// calls inside them (stp, statusOf) out of line.
type conditionNode struct{ c Condition }

func (n *conditionNode) start(*Ctx, unsafe.Pointer) error { return nil }
func (n *conditionNode) tick(c *Ctx, _ unsafe.Pointer) (Status, error) {
	ok, err := n.c.Check(c)
	if err != nil {
		return Failure, err
	}
	return statusOf(ok), nil
}
func (*conditionNode) end(*Ctx, unsafe.Pointer, Status) {}
func (*conditionNode) halt(*Ctx, unsafe.Pointer)        {}
func (*conditionNode) pause(*Ctx, unsafe.Pointer, bool) {}
func (*conditionNode) awake(*Ctx, unsafe.Pointer)       {}
func (*conditionNode) callbacks() callbackSet           { return 0 }
func (*conditionNode) memory() (int, bool)              { return 0, false }
func (*conditionNode) keepMemory() bool                 { return false }
func (*conditionNode) newMemory() any                   { return nil }
func (*conditionNode) pointer(any) unsafe.Pointer       { return nil }

// tickFunc is tick as one closure, which calls the user's Check (or a
// ConditionFunc's function: fn) itself.
func (n *conditionNode) tickFunc() tickFunc {
	cond, fn := n.c, n.fn()
	return func(c *Ctx, _ unsafe.Pointer) (Status, error) {
		var ok bool
		var err error
		if fn != nil {
			ok, err = fn(c)
		} else {
			ok, err = cond.Check(c)
		}
		if err != nil {
			return Failure, err
		}
		return statusOf(ok), nil
	}
}

// bareFunc is walk's bare tick of a condition (see the type), written
// out as actionNode's is: one Go call from walk to the closure, which
// calls the user's Check, or a ConditionFunc's function itself (not
// through condFunc.Check). A Check has no status to validate (it cannot
// return Running or an invalid one) and a condition no memory: the end
// of its tick clears its running bit.
func (n *conditionNode) bareFunc() bareFunc {
	cond, fn := n.c, n.fn()
	return func(a *Agent, i int32, n *node) Status {
		a.node = i
		a.inBare = true
		var ok bool
		var err error
		if fn != nil {
			ok, err = fn(a.ctx())
		} else {
			ok, err = cond.Check(a.ctx())
		}
		a.inBare = false
		*a.stp(i) &^= stRunning
		if err != nil {
			return a.badTick(i, n, Failure, err)
		}
		return statusOf(ok)
	}
}

// fn returns the function of a condition registered with ConditionFunc,
// or nil.
func (n *conditionNode) fn() func(*Ctx) (bool, error) {
	if f, ok := n.c.(condFunc); ok {
		return f
	}
	return nil
}

// actionNode adapts an Action[M] and its optional callbacks.
type actionNode[M any] struct {
	act   Action[M]
	st    starter[M]
	en    ender[M]
	ha    halter[M]
	pa    pauser[M]
	aw    awaker[M]
	words int
	ptrs  bool
	keep  bool
	dummy *M // memory passed when M is empty
}

func newActionNode[M any](act Action[M], keep bool) *actionNode[M] {
	return newUserNode[M](act, act, keep)
}

// newUserNode adapts a user node whose tick is act and whose optional
// callbacks are impl's methods (impl is act for actions; for a Control, act
// wraps it).
func newUserNode[M any](act Action[M], impl any, keep bool) *actionNode[M] {
	t := reflect.TypeOf((*M)(nil)).Elem()
	n := &actionNode[M]{act: act, keep: keep, dummy: new(M),
		words: int((t.Size() + 7) / 8), ptrs: hasPointers(t)}
	n.st, _ = impl.(starter[M])
	n.en, _ = impl.(ender[M])
	n.ha, _ = impl.(halter[M])
	n.pa, _ = impl.(pauser[M])
	n.aw, _ = impl.(awaker[M])
	return n
}

// hasPointers reports whether values of t contain pointers.
func hasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return t.Len() > 0 && hasPointers(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if hasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Chan, reflect.Func,
		reflect.Interface, reflect.String, reflect.UnsafePointer:
		return true
	}
	return false
}

func (n *actionNode[M]) m(p unsafe.Pointer) *M {
	if p == nil {
		return n.dummy
	}
	return (*M)(p)
}

func (n *actionNode[M]) start(c *Ctx, p unsafe.Pointer) error { return n.st.Start(c, n.m(p)) }
func (n *actionNode[M]) tickFunc() tickFunc {
	act, dummy := n.act, n.dummy
	return func(c *Ctx, p unsafe.Pointer) (Status, error) {
		if p == nil {
			return act.Tick(c, dummy)
		}
		return act.Tick(c, (*M)(p))
	}
}

func (n *actionNode[M]) bareFunc() bareFunc {
	act, dummy := n.act, n.dummy
	return func(a *Agent, i int32, n *node) Status {
		// userTick without its barrier, written out with the Tick call of
		// tickFunc, and walk's end of the node's tick (kidAct). The state byte and the
		// memory word are addressed as stp and wordp do (the Go compiler
		// does not inline those into the instantiations of this function
		// in other packages): i is a node of a.tree and n.umem a word of
		// its memory, and bind sized a.st and a.mem for that tree.
		a.node = i
		m := dummy
		if n.umemW > 0 {
			m = (*M)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(a.mem)), uintptr(n.umem)*8))
		} else if n.umemHeap {
			m = (*M)(n.user.pointer(a.cold.umem[n.umem]))
		}
		a.inBare = true
		s, err := act.Tick((*Ctx)(a), m) // a.ctx(), which is not inlined into the instantiations
		a.inBare = false
		// s < Success || s > Running || (s == Running && n.kind == kCondition),
		// in one comparison (node.results).
		if err != nil || uint8(s-Success) >= n.results {
			s = a.badTick(i, n, s, err)
		}
		st := (*uint8)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(a.st)), i))
		if s == Running {
			*st |= stRunning
		} else {
			*st &^= stRunning
			if n.umemW == 1 && !n.keepMem {
				*(*int64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(a.mem)), uintptr(n.umem)*8)) = 0 // endMemory's common case
			} else if n.umem >= 0 && !n.keepMem {
				a.endMemory(n)
			}
		}
		return s
	}
}

func (n *actionNode[M]) tick(c *Ctx, p unsafe.Pointer) (Status, error) {
	return n.act.Tick(c, n.m(p))
}
func (n *actionNode[M]) end(c *Ctx, p unsafe.Pointer, s Status)  { n.en.End(c, n.m(p), s) }
func (n *actionNode[M]) halt(c *Ctx, p unsafe.Pointer)           { n.ha.Halt(c, n.m(p)) }
func (n *actionNode[M]) pause(c *Ctx, p unsafe.Pointer, pp bool) { n.pa.Pause(c, n.m(p), pp) }
func (n *actionNode[M]) awake(c *Ctx, p unsafe.Pointer)          { n.aw.Awake(c, n.m(p)) }
func (n *actionNode[M]) memory() (int, bool)                     { return n.words, n.ptrs }
func (n *actionNode[M]) keepMemory() bool                        { return n.keep }
func (n *actionNode[M]) newMemory() any                          { return new(M) }
func (n *actionNode[M]) pointer(mem any) unsafe.Pointer          { return unsafe.Pointer(mem.(*M)) }
func (n *actionNode[M]) callbacks() callbackSet {
	var s callbackSet
	if n.st != nil {
		s |= hasStart
	}
	if n.en != nil {
		s |= hasEnd
	}
	if n.ha != nil {
		s |= hasHalt
	}
	if n.pa != nil {
		s |= hasPause
	}
	if n.aw != nil {
		s |= hasAwake
	}
	return s
}

// userCall selects a callback for callUser.
type userCall uint8

const (
	callStart userCall = iota
	callTick
	callEnd
	callHalt
	callPause
	callAwake
)

// callUser runs one callback of a user node, turning errors and panics into
// a reported NodeError and a Failure.
func (a *Agent) callUser(i int32, call userCall, arg int64) (s Status) {
	n := &a.tree.nodes[i]
	mem := a.userMem(n)
	a.node = i
	c := a.ctx()
	if a.watched {
		defer a.watchCallback(i, time.Now())
	}
	defer func() {
		if r := recover(); r != nil {
			a.report(i, &PanicError{Value: r, Stack: string(debug.Stack())})
			s = Failure
		}
	}()
	var err error
	switch call {
	case callStart:
		err = n.user.start(c, mem)
		s = Success
	case callTick:
		s, err = n.user.tick(c, mem)
		if err == nil && s != Success && s != Failure && s != Running {
			err = fmt.Errorf("tick returned an invalid status %d", s)
		}
		if err == nil && s == Running && n.kind == kCondition {
			err = fmt.Errorf("a condition returned running")
		}
	case callEnd:
		n.user.end(c, mem, Status(arg))
	case callHalt:
		n.user.halt(c, mem)
	case callPause:
		n.user.pause(c, mem, arg != 0)
	case callAwake:
		n.user.awake(c, mem)
	}
	if err != nil {
		a.report(i, err)
		return Failure
	}
	return s
}

// userMem returns a pointer to the agent's memory of user node n, or nil.
func (a *Agent) userMem(n *node) unsafe.Pointer {
	if n.umemW > 0 {
		return unsafe.Pointer(&a.mem[n.umem])
	}
	if n.umemHeap {
		return n.user.pointer(a.cold.umem[n.umem])
	}
	return nil
}

// condition ticks a user condition.
func (a *Agent) condition(i int32) Status {
	return a.runTick(i, &a.tree.nodes[i])
}

// userTick runs a user node's tick: the common case of callUser, kept
// small for the hot path.
func (a *Agent) userTick(i int32, n *node) (s Status) {
	a.node = i
	// The barrier calls recover only when the tick did not return: a
	// panic (or runtime.Goexit, for which recover returns nil).
	returned := false
	defer func() {
		if !returned {
			if r := recover(); r != nil {
				a.report(i, &PanicError{Value: r, Stack: string(debug.Stack())})
				s = Failure
			}
		}
	}()
	var mem unsafe.Pointer
	if n.umemW > 0 {
		mem = unsafe.Pointer(&a.mem[n.umem])
	} else if n.umemHeap {
		mem = n.user.pointer(a.cold.umem[n.umem])
	}
	s, err := n.tickFn(a.ctx(), mem)
	returned = true
	if err != nil || s < Success || s > Running || (s == Running && n.kind == kCondition) {
		return a.badTick(i, n, s, err)
	}
	return s
}

// runTick runs a user node's tick, timed when a watchdog is set. A user
// control's own time leaves out the user ticks of its children, which are
// timed on their own.
func (a *Agent) runTick(i int32, n *node) Status {
	if !a.watched {
		return a.userTick(i, n)
	}
	c := a.cold
	outer := c.nested
	c.nested = 0
	start := time.Now()
	s := a.userTick(i, n)
	total := time.Since(start)
	a.watchTime(i, total-c.nested)
	c.nested = outer + total
	return s
}

// watchCallback reports a user callback begun at start that overran the
// watchdog budget. Its time is not an enclosing user control's own.
func (a *Agent) watchCallback(i int32, start time.Time) {
	d := time.Since(start)
	a.watchTime(i, d)
	a.cold.nested += d
}

// watchTime reports a user callback that took d, if that overran the
// watchdog budget.
func (a *Agent) watchTime(i int32, d time.Duration) {
	c := a.cold
	if d > c.budget {
		m := &a.tree.meta[i]
		ne := &NodeError{Path: m.path, Type: m.typ, Name: m.name, Agent: a, Time: time.Duration(a.bb.now),
			Err: &SlowError{Elapsed: d, Budget: c.budget}}
		if c.onSlow == nil {
			logNodeError(ne)
			return
		}
		callHandler("watchdog handler", c.onSlow, ne)
	}
}

// badTick reports a user tick that returned an error, an invalid status,
// or running from a condition.
func (a *Agent) badTick(i int32, n *node, s Status, err error) Status {
	switch {
	case err != nil:
	case s == Running:
		err = fmt.Errorf("a condition returned running")
	default:
		err = fmt.Errorf("tick returned an invalid status %d", s)
	}
	a.report(i, err)
	return Failure
}

// action ticks a user action, or a user node with children (control.go),
// through its lifecycle.
func (a *Agent) action(i int32, n *node, starting bool) Status {
	if starting && n.cb&hasStart != 0 && a.callUser(i, callStart, 0) == Failure {
		a.endMemory(n)
		return Failure
	}
	var s Status
	if len(n.kids) == 0 {
		s = a.runTick(i, n)
	} else {
		// A user control: its Children work only in this call.
		c := a.coldPart()
		outer := c.ctl
		c.ctl = i + 1
		s = a.runTick(i, n)
		c.ctl = outer
	}
	if s != Running {
		if len(n.kids) > 0 {
			a.haltKids(n) // a user control's children close before it
		}
		if n.cb&hasEnd != 0 {
			a.callUser(i, callEnd, int64(s))
		}
		a.endMemory(n)
	}
	return s
}

// endMemory clears an action's memory at the end of an activation.
func (a *Agent) endMemory(n *node) {
	if n.umem < 0 || n.keepMem {
		return
	}
	if n.umemHeap {
		reflect.ValueOf(a.cold.umem[n.umem]).Elem().SetZero()
		return
	}
	if m := a.mem[n.umem : n.umem+n.umemW]; len(m) == 1 {
		m[0] = 0
	} else {
		clear(m)
	}
}
