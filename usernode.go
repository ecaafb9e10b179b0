package arbor

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"time"
)

// Ctx is what user node callbacks receive: the agent, its clock and
// blackboard, and the node being run. It is only valid during the call.
type Ctx struct {
	agent *Agent
	node  int32
}

// Agent returns the agent running the node.
func (c *Ctx) Agent() *Agent { return c.agent }

// Now returns the agent's current time (the tick's now).
func (c *Ctx) Now() time.Duration { return time.Duration(c.agent.now) }

// Blackboard returns the agent's blackboard.
func (c *Ctx) Blackboard() *Blackboard { return &c.agent.bb }

// Node returns the id of the node being run.
func (c *Ctx) Node() int { return int(c.node) }

// Path returns the path of the node being run.
func (c *Ctx) Path() string { return c.agent.tree.nodes[c.node].path }

// Name returns the node's name, or its type when it has none.
func (c *Ctx) Name() string { return c.agent.tree.nodes[c.node].label() }

// Owner returns the agent's owner as a T (the zero T when it is not one).
func Owner[T any](c *Ctx) T {
	t, _ := c.agent.owner.(T)
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
// Awake(*Ctx, *M), called as semantics §2 says.
type Action[M any] interface {
	Tick(c *Ctx, m *M) (Status, error)
}

type starter[M any] interface{ Start(*Ctx, *M) error }
type ender[M any] interface{ End(*Ctx, *M, Status) }
type halter[M any] interface{ Halt(*Ctx, *M) }
type pauser[M any] interface{ Pause(*Ctx, *M, bool) }
type awaker[M any] interface{ Awake(*Ctx, *M) }

// TypeOption configures a registered node type.
type TypeOption func(*typeOptions)

type typeOptions struct {
	keepMemory bool
	anyParams  bool
}

// KeepMemory makes an action's memory live over the agent's life: it is
// not zeroed when an activation ends, only by Agent.Reset.
func KeepMemory() TypeOption { return func(o *typeOptions) { o.keepMemory = true } }

// AnyParams makes the type accept, and ignore, parameters its parameter
// struct does not declare.
func AnyParams() TypeOption { return func(o *typeOptions) { o.anyParams = true } }

// RegisterCondition registers a condition type whose parameters are the
// fields of N (see the package documentation for the field tags).
func RegisterCondition[N any, P interface {
	*N
	Condition
}](r *Registry, name string, opts ...TypeOption) error {
	o := applyOptions(opts)
	schema, err := schemaOf[N]()
	if err != nil {
		return fmt.Errorf("register condition %q: %w", name, err)
	}
	return r.add(&nodeType{name: name, kind: kCondition, shape: shapeLeaf, params: schema.names(), anyParams: o.anyParams,
		user: func(pr *paramReader) userNode {
			n := new(N)
			schema.fill(reflect.ValueOf(n).Elem(), pr)
			return conditionNode{P(n)}
		}})
}

// ConditionFunc registers a condition without parameters.
func (r *Registry) ConditionFunc(name string, fn func(c *Ctx) (bool, error), opts ...TypeOption) error {
	o := applyOptions(opts)
	return r.add(&nodeType{name: name, kind: kCondition, shape: shapeLeaf, anyParams: o.anyParams,
		user: func(*paramReader) userNode { return conditionNode{condFunc(fn)} }})
}

// RegisterAction registers an action type whose parameters are the fields
// of N and whose per-agent memory is M.
func RegisterAction[N any, M any, P interface {
	*N
	Action[M]
}](r *Registry, name string, opts ...TypeOption) error {
	o := applyOptions(opts)
	schema, err := schemaOf[N]()
	if err != nil {
		return fmt.Errorf("register action %q: %w", name, err)
	}
	memSize := reflect.TypeOf((*M)(nil)).Elem().Size()
	return r.add(&nodeType{name: name, kind: kAction, shape: shapeLeaf, params: schema.names(), anyParams: o.anyParams,
		user: func(pr *paramReader) userNode {
			n := new(N)
			schema.fill(reflect.ValueOf(n).Elem(), pr)
			return newActionNode[M](P(n), memSize > 0, o.keepMemory)
		}})
}

// RegisterActionFactory registers an action built by a function from the
// node's raw parameters (nil, bool, float64, string, []any,
// map[string]any), for programs whose parameters are not known at compile
// time. An error from build is a load error of the node. Unless AnyParams is
// given, every parameter must be one of params.
func RegisterActionFactory[M any](r *Registry, name string, params []string, build func(params map[string]any) (Action[M], error), opts ...TypeOption) error {
	o := applyOptions(opts)
	memSize := reflect.TypeOf((*M)(nil)).Elem().Size()
	return r.add(&nodeType{name: name, kind: kAction, shape: shapeLeaf, params: params, anyParams: o.anyParams,
		user: func(pr *paramReader) userNode {
			for _, p := range params {
				pr.get(p)
			}
			act, err := build(pr.def.Params)
			if err != nil {
				pr.errf("", "%v", err)
				return nil
			}
			return newActionNode[M](act, memSize > 0, o.keepMemory)
		}})
}

// RegisterConditionFactory registers a condition built by a function from
// the node's raw parameters (see RegisterActionFactory).
func RegisterConditionFactory(r *Registry, name string, params []string, build func(params map[string]any) (Condition, error), opts ...TypeOption) error {
	o := applyOptions(opts)
	return r.add(&nodeType{name: name, kind: kCondition, shape: shapeLeaf, params: params, anyParams: o.anyParams,
		user: func(pr *paramReader) userNode {
			for _, p := range params {
				pr.get(p)
			}
			c, err := build(pr.def.Params)
			if err != nil {
				pr.errf("", "%v", err)
				return nil
			}
			return conditionNode{c}
		}})
}

// ActionFunc registers an action without parameters or memory: fn is its
// tick.
func (r *Registry) ActionFunc(name string, fn func(c *Ctx) (Status, error), opts ...TypeOption) error {
	o := applyOptions(opts)
	return r.add(&nodeType{name: name, kind: kAction, shape: shapeLeaf, anyParams: o.anyParams,
		user: func(*paramReader) userNode { return newActionNode[struct{}](actionFunc(fn), false, false) }})
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

// userNode is the engine's view of a registered node.
type userNode interface {
	start(c *Ctx, mem any) error
	tick(c *Ctx, mem any) (Status, error)
	end(c *Ctx, mem any, s Status)
	halt(c *Ctx, mem any)
	pause(c *Ctx, mem any, paused bool)
	awake(c *Ctx, mem any)
	hasMemory() bool
	hasAwake() bool
	keepMemory() bool
	newMemory() any
	clearMemory(mem any)
}

type conditionNode struct{ c Condition }

func (n conditionNode) start(*Ctx, any) error { return nil }
func (n conditionNode) tick(c *Ctx, _ any) (Status, error) {
	ok, err := n.c.Check(c)
	if err != nil {
		return Failure, err
	}
	return statusOf(ok), nil
}
func (conditionNode) end(*Ctx, any, Status) {}
func (conditionNode) halt(*Ctx, any)        {}
func (conditionNode) pause(*Ctx, any, bool) {}
func (conditionNode) awake(*Ctx, any)       {}
func (conditionNode) hasMemory() bool       { return false }
func (conditionNode) hasAwake() bool        { return false }
func (conditionNode) keepMemory() bool      { return false }
func (conditionNode) newMemory() any        { return nil }
func (conditionNode) clearMemory(any)       {}

// actionNode adapts an Action[M] and its optional callbacks.
type actionNode[M any] struct {
	act   Action[M]
	st    starter[M]
	en    ender[M]
	ha    halter[M]
	pa    pauser[M]
	aw    awaker[M]
	mem   bool
	keep  bool
	dummy *M // memory passed to actions without any
}

func newActionNode[M any](act Action[M], hasMem, keep bool) *actionNode[M] {
	n := &actionNode[M]{act: act, mem: hasMem, keep: keep, dummy: new(M)}
	n.st, _ = act.(starter[M])
	n.en, _ = act.(ender[M])
	n.ha, _ = act.(halter[M])
	n.pa, _ = act.(pauser[M])
	n.aw, _ = act.(awaker[M])
	return n
}

func (n *actionNode[M]) m(mem any) *M {
	if p, ok := mem.(*M); ok {
		return p
	}
	return n.dummy
}

func (n *actionNode[M]) start(c *Ctx, mem any) error {
	if n.st == nil {
		return nil
	}
	return n.st.Start(c, n.m(mem))
}
func (n *actionNode[M]) tick(c *Ctx, mem any) (Status, error) { return n.act.Tick(c, n.m(mem)) }
func (n *actionNode[M]) end(c *Ctx, mem any, s Status) {
	if n.en != nil {
		n.en.End(c, n.m(mem), s)
	}
}
func (n *actionNode[M]) halt(c *Ctx, mem any) {
	if n.ha != nil {
		n.ha.Halt(c, n.m(mem))
	}
}
func (n *actionNode[M]) pause(c *Ctx, mem any, p bool) {
	if n.pa != nil {
		n.pa.Pause(c, n.m(mem), p)
	}
}
func (n *actionNode[M]) awake(c *Ctx, mem any) {
	if n.aw != nil {
		n.aw.Awake(c, n.m(mem))
	}
}
func (n *actionNode[M]) hasMemory() bool  { return n.mem }
func (n *actionNode[M]) hasAwake() bool   { return n.aw != nil }
func (n *actionNode[M]) keepMemory() bool { return n.keep }
func (n *actionNode[M]) newMemory() any   { return new(M) }
func (n *actionNode[M]) clearMemory(mem any) {
	if p, ok := mem.(*M); ok {
		var zero M
		*p = zero
	}
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
	var mem any
	if n.umem >= 0 {
		mem = a.umem[n.umem]
	}
	a.ctx.node = i
	c := &a.ctx
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

// condition ticks a user condition.
func (a *Agent) condition(i int32) Status {
	return a.callUser(i, callTick, 0)
}

// action ticks a user action through its lifecycle.
func (a *Agent) action(i int32, n *node, starting bool) Status {
	if starting && a.callUser(i, callStart, 0) == Failure {
		a.endMemory(n)
		return Failure
	}
	s := a.callUser(i, callTick, 0)
	if s != Running {
		a.callUser(i, callEnd, int64(s))
		a.endMemory(n)
	}
	return s
}

// endMemory clears an action's memory at the end of an activation.
func (a *Agent) endMemory(n *node) {
	if n.umem >= 0 && !n.user.keepMemory() {
		n.user.clearMemory(a.umem[n.umem])
	}
}
