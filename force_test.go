package arbor_test

import (
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// forceRun is an agent whose user callbacks and (with traced) node events
// go to one log, in order.
func forceRun(t *testing.T, root *arbor.Node, traced bool) *unRun {
	t.Helper()
	r := unStart(unCompile(t, unRegistry(t), root))
	if traced {
		r.SetTracer(func(a *arbor.Agent, e arbor.Event) {
			s := a.Tree().Node(int(e.Node)).Label() + ":" + e.Kind.String()
			if e.Kind == arbor.EventResult || e.Kind == arbor.EventEval {
				s += ":" + e.Status.String()
			}
			r.log.add("%s", s)
		})
	}
	r.log.take() // awake callbacks
	return r
}

// forceStep is one step of a forcing test: the forces to set (status) or
// lift (Invalid) before the tick, then the expected result and log.
type forceStep struct {
	force  map[string]arbor.Status
	status arbor.Status
	log    []string
}

func TestForce(t *testing.T) {
	I := arbor.Invalid
	cases := []struct {
		name   string
		root   *arbor.Node
		traced bool
		steps  []forceStep
	}{
		{"an action forced to running is not run, and starts for real when the force is lifted",
			arbor.Sequence(unP("A", "run", 1), unP("B")).Named("seq"), false,
			[]forceStep{
				{map[string]arbor.Status{"A": arbor.Running}, arbor.Running, nil},
				{nil, arbor.Running, nil},
				{map[string]arbor.Status{"A": I}, arbor.Running, []string{"A:start", "A:tick"}},
				{nil, arbor.Success, []string{"A:tick", "A:end(success)", "B:start", "B:tick", "B:end(success)"}},
			}},
		{"a running action forced to success is halted once, then the sequence goes on",
			arbor.Sequence(unP("A", "run", -1), unP("B")).Named("seq"), true,
			[]forceStep{
				{nil, arbor.Running, []string{"seq:start", "A:start", "A:start", "A:tick", "A:result:running", "seq:result:running"}},
				{map[string]arbor.Status{"A": arbor.Success}, arbor.Success, []string{
					"A:halt", "A:halt", "A:start", "A:result:success",
					"B:start", "B:start", "B:tick", "B:end(success)", "B:result:success", "seq:result:success"}},
				{nil, arbor.Success, []string{"seq:start", "A:start", "A:result:success",
					"B:start", "B:start", "B:tick", "B:end(success)", "B:result:success", "seq:result:success"}},
			}},
		{"a composite forced to failure does not tick its subtree",
			arbor.Selector(arbor.Sequence(unP("A"), unP("B")).Named("inner"), unP("C")).Named("sel"), false,
			[]forceStep{
				{map[string]arbor.Status{"inner": arbor.Failure}, arbor.Success, []string{"C:start", "C:tick", "C:end(success)"}},
				{map[string]arbor.Status{"inner": I}, arbor.Success, []string{"A:start", "A:tick", "A:end(success)", "B:start", "B:tick", "B:end(success)"}},
			}},
		{"a node forced to running and halted by its parent emits only its halt",
			arbor.ReactiveSelector(arbor.Check("x", "==", 1).Named("x"), unP("A")).Named("rs"), true,
			[]forceStep{
				{map[string]arbor.Status{"A": arbor.Running}, arbor.Running, []string{"rs:start", "x:start", "x:result:failure", "A:start", "A:result:running", "rs:result:running"}},
				{map[string]arbor.Status{"x": arbor.Success}, arbor.Success, []string{"x:start", "x:result:success", "A:halt", "rs:result:success"}},
			}},
		{"lifting a force to running ends the forced activation at once",
			arbor.Sequence(unP("A", "run", 5)).Named("seq"), true,
			[]forceStep{
				{map[string]arbor.Status{"A": arbor.Running}, arbor.Running, []string{"seq:start", "A:start", "A:result:running", "seq:result:running"}},
				{map[string]arbor.Status{"A": I}, arbor.Running, []string{"A:halt", "A:start", "A:start", "A:tick", "A:result:running", "seq:result:running"}},
			}},
		{"a forced guard condition decides the guard",
			arbor.Sequence(unP("A").WithGuard(arbor.Check("ok", "==", true).Named("ok"))).Named("seq"), true,
			[]forceStep{
				{nil, arbor.Failure, []string{"seq:start", "ok:eval:failure", "seq:result:failure"}},
				{map[string]arbor.Status{"ok": arbor.Success}, arbor.Success, []string{"seq:start", "ok:eval:success",
					"A:start", "A:start", "A:tick", "A:end(success)", "A:result:success", "seq:result:success"}},
			}},
		{"a forced node's own guard is not evaluated",
			arbor.Sequence(unP("A").WithGuard(arbor.Check("ok", "==", true).Named("ok"))).Named("seq"), true,
			[]forceStep{
				{map[string]arbor.Status{"A": arbor.Success}, arbor.Success, []string{"seq:start", "A:start", "A:result:success", "seq:result:success"}},
			}},
		{"a forced condition under an abort observes; lifting the force lets the abort fire",
			arbor.Selector(
				arbor.Sequence(arbor.AlwaysSuccess().Named("noX"), unP("A")).Named("high").WithAbort(arbor.AbortLower),
				unP("B", "run", -1),
			).Named("sel"), false,
			[]forceStep{
				{map[string]arbor.Status{"noX": arbor.Failure}, arbor.Running, []string{"B:start", "B:tick"}},
				{nil, arbor.Running, []string{"B:tick"}},
				{map[string]arbor.Status{"noX": I}, arbor.Success, []string{"B:halt", "A:start", "A:tick", "A:end(success)"}},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := forceRun(t, tc.root, tc.traced)
			for i, s := range tc.steps {
				for label, st := range s.force {
					id := unID(t, r.Tree(), label)
					var err error
					if st == arbor.Invalid {
						err = r.Unforce(id)
					} else {
						err = r.Force(id, st)
					}
					if err != nil {
						t.Fatalf("step %d: force %s: %v", i, label, err)
					}
					if got := r.Forced(id); got != st {
						t.Fatalf("step %d: Forced(%s) = %v, want %v", i, label, got, st)
					}
				}
				got := r.Tick(time.Duration(i) * time.Millisecond)
				if got != s.status {
					t.Errorf("step %d: status %v, want %v", i, got, s.status)
				}
				unEqual(t, "step "+string(rune('0'+i))+" log", r.log.take(), s.log)
				if len(r.errs) > 0 {
					t.Fatalf("step %d: node errors: %v", i, r.errs)
				}
			}
		})
	}
}

func TestForceErrors(t *testing.T) {
	tree := unCompile(t, unRegistry(t), arbor.Sequence(arbor.Check("x", "==", 1).Named("x"),
		unP("A").WithGuard(arbor.Check("g", "==", 1).Named("g")), arbor.Leaf("Req").Named("req")))
	r := unStart(tree)
	for _, tc := range []struct {
		id   int
		s    arbor.Status
		want string
	}{
		{-1, arbor.Success, "no such node"},
		{tree.Len(), arbor.Success, "no such node"},
		{unID(t, tree, "A"), arbor.Invalid, "want success, failure or running"},
		{unID(t, tree, "A"), arbor.Status(9), "want success, failure or running"},
		{unID(t, tree, "x"), arbor.Running, "cannot be running"},
		{unID(t, tree, "g"), arbor.Running, "cannot be running"},
	} {
		err := r.Force(tc.id, tc.s)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Force(%d, %v) = %v, want an error with %q", tc.id, tc.s, err, tc.want)
		}
	}
	if err := r.Unforce(99); err == nil {
		t.Errorf("Unforce(99) succeeded")
	}
	if err := r.Unforce(unID(t, tree, "A")); err != nil {
		t.Errorf("lifting a force that is not set: %v", err)
	}
	if r.Forced(-3) != arbor.Invalid || r.Forced(unID(t, tree, "A")) != arbor.Invalid {
		t.Errorf("Forced reports a force that was never set")
	}

	// From inside the agent's own tick.
	var inTick error
	reg := unRegistry(t)
	if err := reg.ActionFunc("ForceMe", func(c *arbor.Ctx) (arbor.Status, error) {
		inTick = c.Agent().Force(c.Node(), arbor.Failure)
		return arbor.Success, nil
	}); err != nil {
		t.Fatal(err)
	}
	a := arbor.NewAgent(unCompile(t, reg, arbor.Leaf("ForceMe")))
	a.Tick(0)
	if inTick == nil || !strings.Contains(inTick.Error(), "inside its tick") {
		t.Errorf("Force inside the tick: %v, want an error", inTick)
	}
}

// Forcing gives an untraced agent an internal tracer, invisible to
// Tracer, kept when the program removes its own, dropped with the last
// force and by SetTree.
func TestForceTracer(t *testing.T) {
	tree := unCompile(t, unRegistry(t), arbor.Sequence(unP("A", "run", -1)))
	r := unStart(tree)
	a := unID(t, tree, "A")
	if err := r.Force(a, arbor.Failure); err != nil {
		t.Fatal(err)
	}
	if r.Tracer() != nil {
		t.Errorf("Tracer() is not nil with only the internal one")
	}
	var n int
	r.SetTracer(func(*arbor.Agent, arbor.Event) { n++ })
	r.Tick(0)
	if n == 0 || r.Tracer() == nil {
		t.Errorf("the program's tracer got %d events", n)
	}
	r.SetTracer(nil)
	r.log.take()
	if s := r.Tick(time.Millisecond); s != arbor.Failure {
		t.Errorf("forced to failure without a program tracer: %v", s)
	}
	if got := r.log.take(); len(got) != 0 {
		t.Errorf("the forced node ran: %q", got)
	}
	if err := r.Unforce(a); err != nil {
		t.Fatal(err)
	}
	if s := r.Tick(2 * time.Millisecond); s != arbor.Running {
		t.Errorf("after the force is lifted: %v, want running", s)
	}
	if err := r.Force(a, arbor.Success); err != nil {
		t.Fatal(err)
	}
	if err := r.SetTree(tree); err != nil {
		t.Fatal(err)
	}
	if r.Forced(a) != arbor.Invalid {
		t.Errorf("SetTree kept the force")
	}
}

// A node running only because it is forced gets no pause callback and is
// saved idle in a snapshot.
func TestForcedRunningPauseAndSnapshot(t *testing.T) {
	tree := unCompile(t, unRegistry(t), arbor.Sequence(unP("A", "run", -1), unP("B")))
	r := unStart(tree)
	a := unID(t, tree, "A")
	if err := r.Force(a, arbor.Running); err != nil {
		t.Fatal(err)
	}
	r.Tick(0)
	if !r.Running(a) {
		t.Fatalf("forced to running but not running")
	}
	r.log.take()
	r.Pause()
	r.Resume()
	if got := r.log.take(); len(got) != 0 {
		t.Errorf("pause callbacks of a forced node: %q", got)
	}
	data, err := r.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	fresh := unStart(tree)
	if err := fresh.Restore(data); err != nil {
		t.Fatal(err)
	}
	if fresh.Running(a) || !fresh.Running(0) {
		t.Errorf("restored: A running %v, root running %v; want A idle under a running root", fresh.Running(a), fresh.Running(0))
	}
	fresh.log.take()
	fresh.Tick(time.Millisecond)
	unEqual(t, "restored tick", fresh.log.take(), []string{"A:start", "A:tick"})
}

func TestNodeInfoCondition(t *testing.T) {
	reg := unRegistry(t)
	tree := unCompile(t, reg, arbor.Sequence(arbor.Check("x", "==", 1).Named("x"), arbor.AlwaysFailure().Named("no"),
		arbor.Leaf("Flaky").Named("flaky"), unP("A"), arbor.WaitTicks(1).Named("w"), arbor.Inverter(arbor.AlwaysSuccess().Named("yes")).Named("inv")))
	want := map[string]bool{"x": true, "no": true, "flaky": true, "A": false, "w": false, "inv": false, "yes": true}
	for label, cond := range want {
		if got := tree.Node(unID(t, tree, label)).Condition; got != cond {
			t.Errorf("%s: Condition %v, want %v", label, got, cond)
		}
	}
	if tree.Node(0).Condition {
		t.Errorf("the root sequence is a condition")
	}
}
