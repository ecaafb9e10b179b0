package arbor

import (
	"fmt"
	"reflect"
)

// Control is a user node with children: a control node (one or more
// children, registered with RegisterControl) or a decorator (exactly one,
// registered with RegisterDecorator). Its Tick decides which children to
// tick, through kids, and what the node returns. Like an action it has
// per-agent, per-node memory M, zeroed when an activation ends unless the
// type is registered with KeepMemory, and it may implement the optional
// callbacks of Action (Start, End, Halt, Pause, Awake).
//
// The engine keeps the lifecycle exact around it (semantics §2):
//   - when Tick returns Success or Failure, the children still running
//     are halted, in child order, before End is called;
//   - when the node is halted, its running children are halted first (in
//     child order), then its Halt callback runs;
//   - returning Running with no child running is allowed (the node waits,
//     as Delay does); a child not ticked stays as it is.
//
// A user node with children is a boundary for conditional aborts when it
// is a control node (as Parallel is: observers below it do not reach an
// aborting composite above it); a user decorator is transparent, as the
// built-in decorators are. User nodes with children cannot be used in
// guards. A watchdog (WithWatchdog) times the node's own work: the user
// ticks of its children are timed on their own.
type Control[M any] interface {
	Tick(c *Ctx, m *M, kids Children) (Status, error)
}

// Children is a user node's access to its children during its own Tick.
// Using it at any other time (kept for later, in another callback, from a
// child) fails the call and reports an error at the node, or, once the
// agent runs another tree, fails it silently. The zero Children has no
// children.
type Children struct {
	a    *Agent
	tree *Tree
	self int32
}

// Len returns the number of children (0 when the call is refused).
func (k Children) Len() int {
	if !k.valid("Len") {
		return 0
	}
	return len(k.tree.nodes[k.self].kids)
}

// Tick ticks child i and returns its result. A child that cannot be ticked
// (i out of range, or the call made outside the node's Tick) returns
// Failure and reports an error at the node.
func (k Children) Tick(i int) Status {
	c, ok := k.child(i, "Tick")
	if !ok {
		return Failure
	}
	s := k.a.tick(c)
	k.a.node = k.self
	return s
}

// Halt halts child i if it is running (its running descendants first).
// Halting a child that is not running does nothing.
func (k Children) Halt(i int) {
	if c, ok := k.child(i, "Halt"); ok {
		k.a.halt(c)
		k.a.node = k.self
	}
}

// Running reports whether child i is running: it returned Running the
// last time it was ticked and has not been halted since.
func (k Children) Running(i int) bool {
	c, ok := k.child(i, "Running")
	return ok && k.a.st[c]&stRunning != 0
}

// valid reports whether k may be used now: in its node's Tick, with the
// node itself running (not one of its children). Misuse is reported at
// the node while the agent runs the node's tree.
func (k Children) valid(op string) bool {
	a := k.a
	switch {
	case a == nil || a.tree != k.tree:
		return false
	case a.cold == nil || a.cold.ctl != k.self+1 || a.node != k.self:
		a.report(k.self, fmt.Errorf("children used outside the node's Tick (Children.%s)", op))
		return false
	}
	return true
}

// child returns the node index of child i, reporting misuse at the node.
func (k Children) child(i int, op string) (int32, bool) {
	if !k.valid(op) {
		return 0, false
	}
	a := k.a
	kids := k.tree.nodes[k.self].kids
	if i < 0 || i >= len(kids) {
		a.report(k.self, fmt.Errorf("child index %d out of range in Children.%s (the node has %s)", i, op, plural(len(kids), "child", "children")))
		return 0, false
	}
	return kids[i], true
}

// controlAction adapts a Control to the engine's action interface: its
// tick hands the control its children.
type controlAction[M any] struct{ ctl Control[M] }

func (c controlAction[M]) Tick(ctx *Ctx, m *M) (Status, error) {
	a := ctx.agent()
	return c.ctl.Tick(ctx, m, Children{a: a, tree: a.tree, self: a.node})
}

// RegisterControl registers a control node type (one or more children)
// whose parameters are the fields of N (as for RegisterAction) and whose
// per-agent memory is M.
func RegisterControl[N any, M any, P interface {
	*N
	Control[M]
}](r *Registry, name string, opts ...TypeOption) error {
	return registerParent[N, M, P](r, name, kUserControl, opts)
}

// RegisterDecorator registers a decorator type (exactly one child) whose
// parameters are the fields of N (as for RegisterAction) and whose
// per-agent memory is M.
func RegisterDecorator[N any, M any, P interface {
	*N
	Control[M]
}](r *Registry, name string, opts ...TypeOption) error {
	return registerParent[N, M, P](r, name, kUserDecorator, opts)
}

// what names a user kind in registration errors.
func what(k kind) string {
	if k == kUserDecorator {
		return "decorator"
	}
	return "control"
}

func registerParent[N any, M any, P interface {
	*N
	Control[M]
}](r *Registry, name string, k kind, opts []TypeOption) error {
	o := applyOptions(opts)
	schema, err := schemaOf[N]()
	if err != nil {
		return fmt.Errorf("register %s %q: %w", what(k), name, err)
	}
	if err := callbackMismatch[M](reflect.TypeOf(P(nil))); err != nil {
		return fmt.Errorf("register %s %q: %w", what(k), name, err)
	}
	return r.add(&nodeType{name: name, kind: k, shape: shapeOfKind(k), params: schema.names(), info: schema.infos(), anyParams: o.anyParams,
		user: func(pr *paramReader) userNode {
			n := new(N)
			schema.fill(reflect.ValueOf(n).Elem(), pr)
			return newUserNode[M](controlAction[M]{P(n)}, P(n), o.keepMemory)
		}})
}

// RegisterControlFactory registers a control node type built by a
// function from the node's raw parameters (see RegisterActionFactory).
func RegisterControlFactory[M any](r *Registry, name string, params []string, build func(params map[string]any) (Control[M], error), opts ...TypeOption) error {
	return registerParentFactory(r, name, kUserControl, params, build, opts)
}

// RegisterDecoratorFactory registers a decorator type built by a function
// from the node's raw parameters (see RegisterActionFactory).
func RegisterDecoratorFactory[M any](r *Registry, name string, params []string, build func(params map[string]any) (Control[M], error), opts ...TypeOption) error {
	return registerParentFactory(r, name, kUserDecorator, params, build, opts)
}

func registerParentFactory[M any](r *Registry, name string, k kind, params []string, build func(params map[string]any) (Control[M], error), opts []TypeOption) error {
	if build == nil {
		return fmt.Errorf("register %q: nil build function", name)
	}
	o := applyOptions(opts)
	return r.add(&nodeType{name: name, kind: k, shape: shapeOfKind(k), params: params, anyParams: o.anyParams,
		user: func(pr *paramReader) userNode {
			ctl, ok := fromFactory(pr, params, build, func(c Control[M]) error { return callbackMismatch[M](reflect.TypeOf(c)) })
			if !ok {
				return nil
			}
			return newUserNode[M](controlAction[M]{ctl}, ctl, o.keepMemory)
		}})
}

func shapeOfKind(k kind) shape {
	if k == kUserDecorator {
		return shapeDecorator
	}
	return shapeComposite
}

// haltKids halts node n's running children, in child order.
func (a *Agent) haltKids(n *node) {
	for _, c := range n.kids {
		if a.st[c]&stRunning != 0 {
			a.halt(c)
		}
	}
}

// plural writes n and the noun's singular or plural form.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
