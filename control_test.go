package arbor_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// ctlPlan is what ctlProbe does on its next tick, read from the blackboard
// key "plan": space-separated steps, each "tN" (tick child N), "hN" (halt
// child N), "rN" (log whether child N runs), "late" (keep the Children for
// a later misuse), "panic", or a final status letter: S, F or R. The
// default plan ticks child 0 and returns its result.
var ctlPlan = arbor.NewKey[string]("plan")

// ctlKept is a Children value kept past its Tick (a misuse).
var ctlKept arbor.Children

// ctlProbe is a recording user control node driven by ctlPlan.
type ctlProbe struct{}

type ctlMem struct{ ticks int }

func (ctlProbe) Start(c *arbor.Ctx, m *ctlMem) error {
	unLogOf(c).add("%s:start m=%d", c.Name(), m.ticks)
	return nil
}

func (ctlProbe) End(c *arbor.Ctx, m *ctlMem, s arbor.Status) {
	unLogOf(c).add("%s:end(%v) m=%d", c.Name(), s, m.ticks)
}

func (ctlProbe) Halt(c *arbor.Ctx, m *ctlMem) { unLogOf(c).add("%s:halt m=%d", c.Name(), m.ticks) }

func (ctlProbe) Pause(c *arbor.Ctx, _ *ctlMem, paused bool) {
	unLogOf(c).add("%s:pause(%v)", c.Name(), paused)
}

func (ctlProbe) Tick(c *arbor.Ctx, m *ctlMem, kids arbor.Children) (arbor.Status, error) {
	m.ticks++
	plan, _ := ctlPlan.Get(c.Blackboard())
	if plan == "" {
		plan = "t0"
	}
	unLogOf(c).add("%s:tick(%s)", c.Name(), plan)
	last := arbor.Invalid
	for _, step := range strings.Fields(plan) {
		switch {
		case step == "S" || step == "F" || step == "R":
			s, _ := arbor.ParseStatus(map[string]string{"S": "success", "F": "failure", "R": "running"}[step])
			return s, nil
		case step == "late":
			ctlKept = kids
		case step == "panic":
			panic("control boom")
		case step == "err":
			return arbor.Success, errors.New("control failed")
		case step[0] == 't':
			last = kids.Tick(int(step[1] - '0'))
		case step[0] == 'h':
			kids.Halt(int(step[1] - '0'))
		case step[0] == 'r':
			unLogOf(c).add("%s:running(%c)=%v", c.Name(), step[1], kids.Running(int(step[1]-'0')))
		}
	}
	return last, nil
}

// ctlRetry is a user decorator: it ticks its child and, while the child
// fails, retries on the next tick up to Times attempts in all.
type ctlRetry struct {
	Times int `arbor:"times,default=2"`
}

type ctlRetryMem struct{ failures int }

func (r *ctlRetry) Tick(_ *arbor.Ctx, m *ctlRetryMem, kids arbor.Children) (arbor.Status, error) {
	switch s := kids.Tick(0); s {
	case arbor.Failure:
		if m.failures++; m.failures < r.Times {
			return arbor.Running, nil
		}
		return arbor.Failure, nil
	default:
		return s, nil
	}
}

func ctlRegistry(t *testing.T) *arbor.Registry {
	t.Helper()
	reg := unRegistry(t)
	for _, err := range []error{
		arbor.RegisterControl[ctlProbe, ctlMem](reg, "Ctl"),
		arbor.RegisterDecorator[ctlProbe, ctlMem](reg, "Deco"),
		arbor.RegisterDecorator[ctlRetry, ctlRetryMem](reg, "Retry"),
		arbor.RegisterControl[ctlProbe, ctlMem](reg, "KeepCtl", arbor.KeepMemory()),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// ctlSteps is unSteps with a plan per tick (empty: the default plan).
func ctlSteps(t *testing.T, r *unRun, plans []string, steps []unStep) {
	t.Helper()
	for i := range steps {
		plan := plans[i]
		prev := steps[i].before
		steps[i].before = func(r *unRun) {
			ctlPlan.Set(r.Blackboard(), plan)
			if prev != nil {
				prev(r)
			}
		}
	}
	unSteps(t, r, steps)
}

func TestUserControlLifecycle(t *testing.T) {
	reg := ctlRegistry(t)
	S, F, R := arbor.Success, arbor.Failure, arbor.Running
	ctl := func(kids ...*arbor.Node) *arbor.Node { return arbor.Branch("Ctl", kids...).Named("C") }

	cases := []struct {
		name  string
		root  *arbor.Node
		plans []string
		steps []unStep
	}{
		{
			name:  "a child still running when the control ends is halted before End",
			root:  ctl(unP("A", "run", -1), unP("B")),
			plans: []string{"t0 R", "t0 S"},
			steps: []unStep{
				{status: R, events: []string{"C:start m=0", "C:tick(t0 R)", "A:start", "A:tick"}},
				{status: S, events: []string{"C:tick(t0 S)", "A:tick", "A:halt", "C:end(success) m=2"}},
			},
		},
		{
			name:  "running children are halted in child order",
			root:  ctl(unP("A", "run", -1), unP("B", "run", -1)),
			plans: []string{"t1 t0 R", "F"},
			steps: []unStep{
				{status: R, events: []string{"C:start m=0", "C:tick(t1 t0 R)", "B:start", "B:tick", "A:start", "A:tick"}},
				{status: F, events: []string{"C:tick(F)", "A:halt", "B:halt", "C:end(failure) m=2"}},
			},
		},
		{
			name:  "a halt of the control halts its running children first; memory is zeroed",
			root:  arbor.ReactiveSelector(arbor.Check("go", "==", true), ctl(unP("A", "run", -1))),
			plans: []string{"t0 R", "t0 R", "t0 R"},
			steps: []unStep{
				{status: R, events: []string{"C:start m=0", "C:tick(t0 R)", "A:start", "A:tick"}},
				{status: S, before: func(r *unRun) { arbor.NewKey[bool]("go").Set(r.Blackboard(), true) },
					events: []string{"A:halt", "C:halt m=1"}},
				{status: R, before: func(r *unRun) { arbor.NewKey[bool]("go").Set(r.Blackboard(), false) },
					events: []string{"C:start m=0", "C:tick(t0 R)", "A:start", "A:tick"}},
			},
		},
		{
			name:  "the control may halt a child and wait with none running",
			root:  ctl(unP("A", "run", -1)),
			plans: []string{"t0 R", "r0 h0 r0 h0 R", "S"},
			steps: []unStep{
				{status: R, events: []string{"C:start m=0", "C:tick(t0 R)", "A:start", "A:tick"}},
				{status: R, events: []string{"C:tick(r0 h0 r0 h0 R)", "C:running(0)=true", "A:halt", "C:running(0)=false"}},
				{status: S, events: []string{"C:tick(S)", "C:end(success) m=3"}},
			},
		},
		{
			name:  "a child not ticked keeps running until the control ends",
			root:  ctl(unP("A", "run", -1), unP("B")),
			plans: []string{"t0 R", "t1 R", "t1 S"},
			steps: []unStep{
				{status: R, events: []string{"C:start m=0", "C:tick(t0 R)", "A:start", "A:tick"}},
				{status: R, events: []string{"C:tick(t1 R)", "B:start", "B:tick", "B:end(success)"}},
				{status: S, events: []string{"C:tick(t1 S)", "B:start", "B:tick", "B:end(success)", "A:halt", "C:end(success) m=3"}},
			},
		},
		{
			name:  "a panic in the control's tick fails it, reported, and closes its running child",
			root:  ctl(unP("A", "run", -1)),
			plans: []string{"t0 R", "t0 panic"},
			steps: []unStep{
				{status: R, events: []string{"C:start m=0", "C:tick(t0 R)", "A:start", "A:tick"}},
				{status: F, events: []string{"C:tick(t0 panic)", "A:tick", "A:halt", "C:end(failure) m=2"}},
			},
		},
		{
			name:  "an error from the control's tick fails it",
			root:  ctl(unP("A")),
			plans: []string{"t0 err"},
			steps: []unStep{
				{status: F, events: []string{"C:start m=0", "C:tick(t0 err)", "A:start", "A:tick", "A:end(success)", "C:end(failure) m=1"}},
			},
		},
		{
			name:  "a child index out of range fails the call, not the control",
			root:  ctl(unP("A")),
			plans: []string{"t5 S", "h7 r9 S"},
			steps: []unStep{
				{status: S, events: []string{"C:start m=0", "C:tick(t5 S)", "C:end(success) m=1"}},
				{status: S, events: []string{"C:start m=0", "C:tick(h7 r9 S)", "C:running(9)=false", "C:end(success) m=1"}},
			},
		},
		{
			name:  "a user decorator lives inside built-in composites",
			root:  arbor.Sequence(arbor.Branch("Deco", unP("A", "run", 1)).Named("D"), unP("B")),
			plans: []string{"", ""},
			steps: []unStep{
				{status: R, events: []string{"D:start m=0", "D:tick(t0)", "A:start", "A:tick"}},
				{status: S, events: []string{"D:tick(t0)", "A:tick", "A:end(success)", "D:end(success) m=2", "B:start", "B:tick", "B:end(success)"}},
			},
		},
		{
			name:  "KeepMemory keeps the control's memory over activations",
			root:  arbor.Branch("KeepCtl", unP("A")).Named("C"),
			plans: []string{"S", "S"},
			steps: []unStep{
				{status: S, events: []string{"C:start m=0", "C:tick(S)", "C:end(success) m=1"}},
				{status: S, events: []string{"C:start m=1", "C:tick(S)", "C:end(success) m=2"}},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := unStart(unCompile(t, reg, tc.root))
			r.log.take()
			ctlSteps(t, r, tc.plans, tc.steps)
		})
	}
}

func TestUserControlErrors(t *testing.T) {
	reg := ctlRegistry(t)
	t.Run("panic and misuse are reported at the control", func(t *testing.T) {
		r := unStart(unCompile(t, reg, arbor.Branch("Ctl", unP("A")).Named("C")))
		for _, plan := range []string{"panic", "t3 S"} {
			ctlPlan.Set(r.Blackboard(), plan)
			r.Tick(0)
		}
		if len(r.errs) != 2 {
			t.Fatalf("errors: %v, want 2", r.errs)
		}
		var pe *arbor.PanicError
		if !errors.As(r.errs[0], &pe) || r.errs[0].Path != "main" {
			t.Errorf("first error %v (path %q), want a PanicError at main", r.errs[0], r.errs[0].Path)
		}
		if msg := r.errs[1].Error(); !strings.Contains(msg, "child index 3 out of range in Children.Tick (the node has 1 child)") {
			t.Errorf("second error %q, want the index misuse", msg)
		}
	})
	t.Run("children kept past the tick cannot be used", func(t *testing.T) {
		r := unStart(unCompile(t, reg, arbor.Branch("Ctl", unP("A")).Named("C")))
		ctlPlan.Set(r.Blackboard(), "late S")
		r.Tick(0)
		if s := ctlKept.Tick(0); s != arbor.Failure {
			t.Errorf("late Tick: %v, want failure", s)
		}
		if ctlKept.Running(0) {
			t.Error("late Running: true")
		}
		if len(r.errs) != 2 || !strings.Contains(r.errs[0].Error(), "children used outside the node's Tick (Children.Tick)") {
			t.Errorf("errors %v, want two misuse reports", r.errs)
		}
		if n := (arbor.Children{}).Len(); n != 0 {
			t.Errorf("zero Children Len %d", n)
		}
	})
	t.Run("load errors", func(t *testing.T) {
		for _, tc := range []struct {
			root *arbor.Node
			want string
		}{
			{arbor.Branch("Deco", unP("A"), unP("B")), "has 2, a decorator needs exactly one child"},
			{arbor.Branch("Ctl"), "a composite needs at least one child"},
			{arbor.Branch("Ctl", unP("A")).WithAbort(arbor.AbortSelf), "only allowed on Sequence"},
			{unP("A").WithGuard(arbor.Branch("Deco", arbor.Check("k", "==", 1))), "not allowed in a guard"},
			{arbor.Branch("Retry", unP("A")).With("times", "x"), "times"},
		} {
			_, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": tc.root}}, reg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want %q", tc.root.Type, err, tc.want)
			}
		}
	})
}

func TestUserDecoratorRetry(t *testing.T) {
	reg := ctlRegistry(t)
	tree := unCompile(t, reg, arbor.Branch("Retry", arbor.Check("ok", "==", true)).With("times", 3))
	a := arbor.NewAgent(tree)
	ok := arbor.NewKey[bool]("ok")
	want := []arbor.Status{arbor.Running, arbor.Running, arbor.Failure, arbor.Running, arbor.Success}
	for i, w := range want {
		ok.Set(a.Blackboard(), i == 4)
		if got := a.Tick(0); got != w {
			t.Errorf("tick %d: %v, want %v", i, got, w)
		}
	}
}

func TestUserControlAborts(t *testing.T) {
	// A Check below a user control is not an observer of an aborting
	// composite above it (the control is a boundary, as Parallel is); below
	// a user decorator it is (decorators are transparent).
	reg := ctlRegistry(t)
	for _, tc := range []struct {
		typ     string
		aborted bool
	}{{"Ctl", false}, {"Deco", true}} {
		t.Run(tc.typ, func(t *testing.T) {
			root := arbor.Sequence(arbor.Branch(tc.typ, arbor.Check("k", "==", true)).Named("X"), unP("B", "run", -1)).
				WithAbort(arbor.AbortSelf)
			r := unStart(unCompile(t, reg, root))
			k := arbor.NewKey[bool]("k")
			k.Set(r.Blackboard(), true)
			r.Tick(0)
			r.log.take()
			k.Set(r.Blackboard(), false)
			s := r.Tick(0)
			ev := r.log.take()
			if got := unContains(ev, "B:halt"); got != tc.aborted || (s == arbor.Failure) != tc.aborted {
				t.Errorf("after the Check turned false: status %v, events %q; want aborted=%v", s, ev, tc.aborted)
			}
		})
	}
}

func TestUserControlPauseAndSnapshot(t *testing.T) {
	reg := ctlRegistry(t)
	tree := unCompile(t, reg, arbor.Branch("Ctl", unP("A", "run", -1)).Named("C"))
	r := unStart(tree)
	ctlPlan.Set(r.Blackboard(), "t0 R")
	r.Tick(0)
	r.Tick(0)
	r.log.take()
	r.Pause()
	unEqual(t, "pause", r.log.take(), []string{"C:pause(true)", "A:pause(true)"})
	r.Resume()
	r.log.take()

	data, err := r.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	r2 := unStart(tree)
	if err := r2.Restore(data); err != nil {
		t.Fatal(err)
	}
	r2.log.take()
	ctlPlan.Set(r2.Blackboard(), "S")
	if s := r2.Tick(0); s != arbor.Success {
		t.Fatalf("restored tick: %v", s)
	}
	// The restored control kept its memory (two ticks) and its running
	// child, which its end closes.
	unEqual(t, "restored", r2.log.take(), []string{"C:tick(S)", "A:halt", "C:end(success) m=3"})
}

func TestUserControlFactory(t *testing.T) {
	reg := arbor.NewRegistry()
	err := arbor.RegisterDecoratorFactory[struct{}](reg, "Flip", []string{"enabled"}, func(p map[string]any) (arbor.Control[struct{}], error) {
		on, _ := p["enabled"].(bool)
		return flip{on}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := arbor.RegisterControlFactory[struct{}](reg, "Nil", nil, func(map[string]any) (arbor.Control[struct{}], error) { return nil, nil }); err != nil {
		t.Fatal(err)
	}
	if err := arbor.RegisterControlFactory[struct{}](reg, "NoBuild", nil, nil); err == nil {
		t.Error("a nil build function registered")
	}
	doc, err := arbor.ParseJSON([]byte(`{"format": "arbor/1", "trees": {"main": {"type": "Flip", "enabled": true, "child": {"type": "Success"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	tree, err := arbor.Compile(doc, reg)
	if err != nil {
		t.Fatal(err)
	}
	if s := arbor.NewAgent(tree).Tick(0); s != arbor.Failure {
		t.Errorf("Flip(Success): %v, want failure", s)
	}
	_, err = arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": arbor.Branch("Nil", arbor.AlwaysSuccess())}}, reg)
	if err == nil || !strings.Contains(err.Error(), "returned nil") {
		t.Errorf("nil control: %v", err)
	}
}

// flip is a decorator that inverts its child's result when on.
type flip struct{ on bool }

func (f flip) Tick(_ *arbor.Ctx, _ *struct{}, kids arbor.Children) (arbor.Status, error) {
	s := kids.Tick(0)
	if f.on && s != arbor.Running {
		s = arbor.Success + arbor.Failure - s
	}
	return s, nil
}

func TestUserControlEvents(t *testing.T) {
	reg := ctlRegistry(t)
	tree := unCompile(t, reg, arbor.Branch("Ctl", unP("A", "run", -1)).Named("C"))
	var events []string
	r := unStart(tree, arbor.WithTracer(eventRecorder(&events)))
	ctlPlan.Set(r.Blackboard(), "t0 R")
	if got, want := traceOf(r.Agent, &events, 0), []string{"C:start", "A:start", "A:result:running", "C:result:running"}; !slices.Equal(got, want) {
		t.Errorf("first tick:\n got %q\nwant %q", got, want)
	}
	ctlPlan.Set(r.Blackboard(), "S")
	if got, want := traceOf(r.Agent, &events, 0), []string{"A:halt", "C:result:success"}; !slices.Equal(got, want) {
		t.Errorf("second tick:\n got %q\nwant %q", got, want)
	}
}

// The watchdog times a user control's own work: its children's user ticks
// are timed, and reported, on their own.
func TestUserControlWatchdog(t *testing.T) {
	reg := ctlRegistry(t)
	if err := reg.ActionFunc("Slow", func(*arbor.Ctx) (arbor.Status, error) {
		time.Sleep(20 * time.Millisecond)
		return arbor.Success, nil
	}); err != nil {
		t.Fatal(err)
	}
	var slow []string
	tree := unCompile(t, reg, arbor.Branch("Ctl", arbor.Sequence(arbor.Leaf("Slow"))).Named("C"))
	a := arbor.NewAgent(tree, arbor.WithOwner(&unLog{}),
		arbor.WithWatchdog(10*time.Millisecond, func(e *arbor.NodeError) { slow = append(slow, e.Path) }))
	if s := a.Tick(0); s != arbor.Success {
		t.Fatalf("status %v", s)
	}
	if !slices.Equal(slow, []string{"main.children[0].children[0]"}) {
		t.Errorf("slow reports at %q, want only the slow child", slow)
	}
}

// keepCtl keeps its Children and, wrongly, uses them in its other
// callbacks.
type keepCtl struct{}

var keptKids arbor.Children

func (keepCtl) Tick(_ *arbor.Ctx, _ *struct{}, k arbor.Children) (arbor.Status, error) {
	keptKids = k
	return k.Tick(0), nil
}
func (keepCtl) Start(*arbor.Ctx, *struct{}) error       { keptKids.Tick(0); return nil }
func (keepCtl) Halt(*arbor.Ctx, *struct{})              { keptKids.Tick(0) }
func (keepCtl) End(*arbor.Ctx, *struct{}, arbor.Status) { keptKids.Tick(0) }

// Children work only in the node's own Tick: not in its Start, End or
// Halt (where a tick would leave a child running under an idle parent),
// and not once the agent runs another tree.
func TestUserControlChildrenOutsideTick(t *testing.T) {
	reg := ctlRegistry(t)
	if err := arbor.RegisterControl[keepCtl, struct{}](reg, "Keep"); err != nil {
		t.Fatal(err)
	}
	tree := unCompile(t, reg, arbor.Sequence(arbor.AlwaysSuccess(), arbor.Branch("Keep", unP("A", "run", 1)).Named("K")))
	r := unStart(tree)
	r.log.take()
	r.Tick(0) // Keep starts: its Start misuses the kept Children of nothing yet
	r.Tick(0) // A succeeds: Keep ends, End misuses them
	r.Tick(0) // Keep starts again, A runs
	r.Halt()  // Keep's Halt misuses them
	k, a := unID(t, tree, "K"), unID(t, tree, "A")
	if r.Running(k) || r.Running(a) {
		t.Errorf("after Halt: Keep running %v, A running %v", r.Running(k), r.Running(a))
	}
	unEqual(t, "events", r.log.take(), []string{"A:start", "A:tick", "A:tick", "A:end(success)", "A:start", "A:tick", "A:halt"})
	if len(r.errs) != 3 {
		t.Errorf("errors %v, want the three misuses (End, Start, Halt) reported", r.errs)
	}
	for _, e := range r.errs {
		if e.Path != "main.children[1]" || !strings.Contains(e.Error(), "children used outside the node's Tick") {
			t.Errorf("error %v at %s", e, e.Path)
		}
	}

	r.SetTree(unCompile(t, reg, arbor.AlwaysSuccess()))
	if n := keptKids.Len(); n != 0 || keptKids.Tick(0) != arbor.Failure || keptKids.Running(0) {
		t.Errorf("after SetTree: Len %d", n)
	}
	if n := (arbor.Children{}).Len(); n != 0 {
		t.Errorf("zero Children: Len %d", n)
	}
}

// slowStart takes its time in Start.
type ctlSlowStart struct{}

func (ctlSlowStart) Start(*arbor.Ctx, *struct{}) error {
	time.Sleep(20 * time.Millisecond)
	return nil
}
func (ctlSlowStart) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) { return arbor.Success, nil }

// A child's slow callback other than Tick is not its control's either.
func TestUserControlWatchdogCallbacks(t *testing.T) {
	reg := ctlRegistry(t)
	if err := arbor.RegisterAction[ctlSlowStart, struct{}](reg, "SlowStart"); err != nil {
		t.Fatal(err)
	}
	var slow []string
	tree := unCompile(t, reg, arbor.Branch("Ctl", arbor.Leaf("SlowStart")).Named("C"))
	a := arbor.NewAgent(tree, arbor.WithOwner(&unLog{}),
		arbor.WithWatchdog(10*time.Millisecond, func(e *arbor.NodeError) { slow = append(slow, e.Path) }))
	a.Tick(0)
	if !slices.Equal(slow, []string{"main.children[0]"}) {
		t.Errorf("slow reports at %q, want only the child", slow)
	}
}

func TestRegistryCategory(t *testing.T) {
	reg := ctlRegistry(t)
	for name, want := range map[string]arbor.Category{
		"Sequence": arbor.CategoryControl, "Fallback": arbor.CategoryControl, "Inverter": arbor.CategoryDecorator,
		"SubTree": arbor.CategorySubTree, "Check": arbor.CategoryCondition, "Wait": arbor.CategoryAction,
		"Flaky": arbor.CategoryCondition, "Probe": arbor.CategoryAction, "Ctl": arbor.CategoryControl,
		"Retry": arbor.CategoryDecorator, "Nope": arbor.CategoryNone,
	} {
		if got := reg.Category(name); got != want {
			t.Errorf("Category(%q) = %v, want %v", name, got, want)
		}
	}
}
