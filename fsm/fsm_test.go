package fsm_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/fsm"
)

// recorder logs callbacks in order.
type recorder struct{ log []string }

func (r *recorder) add(s string) func(*fsm.Ctx) {
	return func(*fsm.Ctx) { r.log = append(r.log, s) }
}

func (r *recorder) take() []string {
	out := r.log
	r.log = nil
	return out
}

// instrument gives every state of m (and its machines) enter, update and
// exit callbacks, and every transition a callback, that log to r.
func instrument(m *fsm.Machine, r *recorder) {
	for _, s := range m.States {
		s.Enter = append([]fsm.Call{{Fn: r.add("enter " + s.Name)}}, s.Enter...)
		s.Update = append([]fsm.Call{{Fn: r.add("update " + s.Name)}}, s.Update...)
		s.Exit = append([]fsm.Call{{Fn: r.add("exit " + s.Name)}}, s.Exit...)
		for _, t := range s.Transitions {
			t.OnTransition(r.add("do " + s.Name + ">" + t.To))
		}
		if s.Sub != nil {
			instrument(s.Sub, r)
		}
	}
	for _, t := range m.Any {
		t.OnTransition(r.add("do *>" + t.To))
	}
}

// step is one Update of a rule test: blackboard writes, then the update,
// then what it must have done.
type step struct {
	set    map[string]any
	at     time.Duration
	want   []string     // callbacks, in order
	path   string       // active path afterwards
	status arbor.Status // Update's result (0: not checked)
}

func on(key string) *fsm.Cond { return fsm.Check(key, "==", true) }

func runSteps(t *testing.T, m *fsm.Machine, steps []step) {
	t.Helper()
	r := &recorder{}
	instrument(m, r)
	def, err := fsm.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	in, err := fsm.NewInstance(def, fsm.WithErrorHandler(func(e *fsm.RunError) { t.Errorf("run error: %v", e) }))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range steps {
		for k, v := range s.set {
			in.Blackboard().Set(k, v)
		}
		st := in.Update(s.at)
		if got := r.take(); !reflect.DeepEqual(got, s.want) {
			t.Errorf("update %d: callbacks\n got  %q\n want %q", i+1, got, s.want)
		}
		if s.path != "" && in.ActivePath() != s.path {
			t.Errorf("update %d: active path %q, want %q", i+1, in.ActivePath(), s.path)
		}
		if s.status != 0 && st != s.status {
			t.Errorf("update %d: status %s, want %s", i+1, st, s.status)
		}
	}
}

func TestRules(t *testing.T) {
	tests := []struct {
		name  string
		build func() *fsm.Machine
		steps []step
	}{
		{
			name: "first update enters the initial state and updates it",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				m.State("A").To("B", on("go"))
				m.State("B")
				return m
			},
			steps: []step{
				{want: []string{"enter A", "update A"}, path: "A", status: arbor.Running},
				{want: []string{"update A"}, path: "A"},
			},
		},
		{
			name: "exit old, on-transition, enter new, update new in the same update",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				m.State("A").To("B", on("go"))
				m.State("B")
				return m
			},
			steps: []step{
				{want: []string{"enter A", "update A"}},
				{set: map[string]any{"go": true}, want: []string{"exit A", "do A>B", "enter B", "update B"}, path: "B"},
				{want: []string{"update B"}, path: "B"},
			},
		},
		{
			name: "the first update checks transitions once the initial state is entered",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				m.State("A").To("B", on("go"))
				m.State("B")
				return m
			},
			steps: []step{
				{set: map[string]any{"go": true}, want: []string{"enter A", "exit A", "do A>B", "enter B", "update B"}, path: "B"},
			},
		},
		{
			name: "transitions are tried in order: the first that holds is taken",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				a := m.State("A")
				a.To("B", fsm.Check("k", "==", 1))
				a.To("C", fsm.Check("k", ">=", 1))
				a.To("D", fsm.Check("k", ">=", 0))
				m.State("B")
				m.State("C")
				m.State("D")
				return m
			},
			steps: []step{
				{set: map[string]any{"k": -1}, want: []string{"enter A", "update A"}, path: "A"},
				{set: map[string]any{"k": 2}, want: []string{"exit A", "do A>C", "enter C", "update C"}, path: "C"},
			},
		},
		{
			name: "the earlier of two holding transitions wins",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				a := m.State("A")
				a.To("B", fsm.Check("k", "==", 1))
				a.To("C", fsm.Check("k", ">=", 1))
				m.State("B")
				m.State("C")
				return m
			},
			steps: []step{
				{set: map[string]any{"k": 1}, want: []string{"enter A", "exit A", "do A>B", "enter B", "update B"}, path: "B"},
			},
		},
		{
			name: "at most one transition per update",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				m.State("A").To("B", nil)
				m.State("B").To("C", nil)
				m.State("C")
				return m
			},
			steps: []step{
				{want: []string{"enter A", "exit A", "do A>B", "enter B", "update B"}, path: "B"},
				{want: []string{"exit B", "do B>C", "enter C", "update C"}, path: "C"},
				{want: []string{"update C"}, path: "C"},
			},
		},
		{
			name: "a self transition exits and re-enters",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				m.State("A").To("A", on("again"))
				return m
			},
			steps: []step{
				{want: []string{"enter A", "update A"}},
				{set: map[string]any{"again": true}, want: []string{"exit A", "do A>A", "enter A", "update A"}, path: "A"},
			},
		},
		{
			name: "any-state transitions are tried before the state's own",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				m.AnyTo("Alarm", on("alarm"))
				m.State("A").To("B", on("go"))
				m.State("B")
				m.State("Alarm").To("A", on("reset"))
				return m
			},
			steps: []step{
				{want: []string{"enter A", "update A"}},
				{set: map[string]any{"go": true, "alarm": true}, want: []string{"exit A", "do *>Alarm", "enter Alarm", "update Alarm"}, path: "Alarm"},
				// Never from the target itself: the alarm state stays.
				{want: []string{"update Alarm"}, path: "Alarm"},
				{set: map[string]any{"alarm": false, "reset": true}, want: []string{"exit Alarm", "do Alarm>A", "enter A", "update A"}, path: "A"},
			},
		},
		{
			name: "any-state transitions in order",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				m.AnyTo("B", on("b"))
				m.AnyTo("C", on("c"))
				m.State("A")
				m.State("B")
				m.State("C")
				return m
			},
			steps: []step{
				{set: map[string]any{"b": true, "c": true}, want: []string{"enter A", "exit A", "do *>B", "enter B", "update B"}, path: "B"},
				// In B, the any-state transition to B is skipped: the next one holds.
				{want: []string{"exit B", "do *>C", "enter C", "update C"}, path: "C"},
				{want: []string{"exit C", "do *>B", "enter B", "update B"}, path: "B"},
			},
		},
		{
			name: "a final state ends the machine: no more transitions, updates go on",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				m.AnyTo("A", on("restart"))
				m.State("A").To("Won", on("win"))
				m.State("Won").SetFinal(arbor.Success)
				return m
			},
			steps: []step{
				{want: []string{"enter A", "update A"}, status: arbor.Running},
				{set: map[string]any{"win": true}, want: []string{"exit A", "do A>Won", "enter Won", "update Won"}, status: arbor.Success},
				{set: map[string]any{"restart": true}, want: []string{"update Won"}, path: "Won", status: arbor.Success},
			},
		},
		{
			name: "a failure final state",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				m.State("A").To("Lost", on("lose"))
				m.State("Lost").SetFinal(arbor.Failure)
				return m
			},
			steps: []step{
				{set: map[string]any{"lose": true}, want: []string{"enter A", "exit A", "do A>Lost", "enter Lost", "update Lost"}, status: arbor.Failure},
			},
		},
		{
			name: "an initial final state",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "End")
				m.State("End").SetFinal(arbor.Success)
				return m
			},
			steps: []step{{want: []string{"enter End", "update End"}, status: arbor.Success}},
		},
		{
			name: "entering a hierarchical state enters its initial states, outermost first",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				m.State("A").To("P", on("go"))
				p := m.State("P")
				q := p.Machine("Q").State("Q")
				p.Sub.State("R")
				q.Machine("Q1").State("Q1")
				return m
			},
			steps: []step{
				{want: []string{"enter A", "update A"}},
				{set: map[string]any{"go": true}, want: []string{"exit A", "do A>P", "enter P", "enter Q", "enter Q1", "update P", "update Q", "update Q1"}, path: "P/Q/Q1"},
			},
		},
		{
			name: "an outer transition exits the innermost states first",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "P")
				p := m.State("P")
				p.To("X", on("leave"))
				q := p.Machine("Q").State("Q")
				q.Machine("Q1").State("Q1")
				x := m.State("X")
				x.Machine("X1").State("X1")
				return m
			},
			steps: []step{
				{want: []string{"enter P", "enter Q", "enter Q1", "update P", "update Q", "update Q1"}, path: "P/Q/Q1"},
				{set: map[string]any{"leave": true}, want: []string{"exit Q1", "exit Q", "exit P", "do P>X", "enter X", "enter X1", "update X", "update X1"}, path: "X/X1"},
			},
		},
		{
			name: "inner transitions are tried before outer ones",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "P")
				p := m.State("P")
				p.To("X", on("go"))
				p.Machine("P1").State("P1").To("P2", on("go"))
				p.Sub.State("P2")
				m.State("X")
				return m
			},
			steps: []step{
				{want: []string{"enter P", "enter P1", "update P", "update P1"}},
				{set: map[string]any{"go": true}, want: []string{"exit P1", "do P1>P2", "enter P2", "update P", "update P2"}, path: "P/P2"},
				{want: []string{"exit P2", "exit P", "do P>X", "enter X", "update X"}, path: "X"},
			},
		},
		{
			name: "inner any-state transitions come before outer any-state transitions",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "P")
				m.AnyTo("X", on("go"))
				p := m.State("P")
				p.Machine("P1").AnyTo("P2", on("go"))
				p.Sub.State("P1")
				p.Sub.State("P2")
				m.State("X")
				return m
			},
			steps: []step{
				{want: []string{"enter P", "enter P1", "update P", "update P1"}},
				{set: map[string]any{"go": true}, want: []string{"exit P1", "do *>P2", "enter P2", "update P", "update P2"}, path: "P/P2"},
				{want: []string{"exit P2", "exit P", "do *>X", "enter X", "update X"}, path: "X"},
			},
		},
		{
			name: "a transition inside a machine leaves the enclosing states alone",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "P")
				p := m.State("P")
				q := p.Machine("Q").State("Q")
				q.To("R", on("go"))
				q.Machine("Q1").State("Q1")
				r := p.Sub.State("R")
				r.Machine("R1").State("R1")
				return m
			},
			steps: []step{
				{want: []string{"enter P", "enter Q", "enter Q1", "update P", "update Q", "update Q1"}},
				{set: map[string]any{"go": true}, want: []string{"exit Q1", "exit Q", "do Q>R", "enter R", "enter R1", "update P", "update R", "update R1"}, path: "P/R/R1"},
			},
		},
		{
			name: "done: a state's machine reaching a final state",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "P")
				p := m.State("P")
				p.To("X", fsm.Done())
				p.Machine("P1").State("P1").To("PEnd", on("finish"))
				p.Sub.State("PEnd").SetFinal(arbor.Success)
				p.Sub.AnyTo("P1", on("restart"))
				m.State("X")
				return m
			},
			steps: []step{
				{want: []string{"enter P", "enter P1", "update P", "update P1"}},
				// The inner final state does not end the instance...
				{set: map[string]any{"finish": true, "restart": true}, want: []string{"exit P1", "do P1>PEnd", "enter PEnd", "update P", "update PEnd"}, path: "P/PEnd", status: arbor.Running},
				// ...its machine takes no more transitions (restart holds), the outer one does.
				{want: []string{"exit PEnd", "exit P", "do P>X", "enter X", "update X"}, path: "X"},
			},
		},
		{
			name: "after: time in the source state",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				m.State("A").To("B", fsm.After(100*time.Millisecond))
				m.State("B").To("A", fsm.After(0))
				return m
			},
			steps: []step{
				{at: 1000 * time.Millisecond, want: []string{"enter A", "update A"}},
				{at: 1099 * time.Millisecond, want: []string{"update A"}},
				{at: 1100 * time.Millisecond, want: []string{"exit A", "do A>B", "enter B", "update B"}},
				{at: 1100 * time.Millisecond, want: []string{"exit B", "do B>A", "enter A", "update A"}},
			},
		},
		{
			name: "and, or, not",
			build: func() *fsm.Machine {
				m := fsm.NewMachine("m", "A")
				a := m.State("A")
				a.To("B", fsm.And(on("x"), fsm.Not(on("y"))))
				a.To("C", fsm.Or(on("y"), on("z")))
				m.State("B")
				m.State("C")
				return m
			},
			steps: []step{
				{set: map[string]any{"x": true, "y": true}, want: []string{"enter A", "exit A", "do A>C", "enter C", "update C"}, path: "C"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runSteps(t, tt.build(), tt.steps) })
	}
}

func TestChecks(t *testing.T) {
	bb := map[string]any{"n": 5, "s": "b", "b": true, "list": []any{1.0, "x"}, "other": 4}
	tests := []struct {
		key, op string
		value   []any
		want    bool
		err     bool // a run error is reported
	}{
		{"n", "==", []any{5}, true, false},
		{"n", "==", []any{5.0}, true, false},
		{"n", "!=", []any{5}, false, false},
		{"n", "<", []any{6}, true, false},
		{"n", "<=", []any{5}, true, false},
		{"n", ">", []any{5}, false, false},
		{"n", ">=", []any{5}, true, false},
		{"n", "<", []any{"{other}"}, false, false},
		{"n", ">", []any{"{other}"}, true, false},
		{"n", "==", []any{"{missing}"}, false, false},
		{"n", "==", []any{"5"}, false, false},
		{"n", "!=", []any{"5"}, true, false},
		{"n", "<", []any{"5"}, false, true},
		{"s", "<", []any{"c"}, true, false},
		{"s", ">=", []any{"c"}, false, false},
		{"s", "==", []any{"b"}, true, false},
		{"b", "==", []any{true}, true, false},
		{"b", "!=", []any{false}, true, false},
		{"b", "<", []any{"{n}"}, false, true},
		{"list", "==", []any{[]any{1, "x"}}, true, false},
		{"missing", "==", []any{1}, false, false},
		{"missing", "!=", []any{1}, false, false},
		{"missing", "missing", nil, true, false},
		{"missing", "exists", nil, false, false},
		{"n", "exists", nil, true, false},
		{"n", "missing", nil, false, false},
	}
	for _, tt := range tests {
		name := tt.key + " " + tt.op
		if len(tt.value) > 0 {
			name += " " + fmt.Sprint(tt.value[0])
		}
		t.Run(name, func(t *testing.T) {
			m := fsm.NewMachine("m", "A")
			m.State("A").To("B", fsm.Check(tt.key, tt.op, tt.value...))
			m.State("B")
			def, err := fsm.Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			var errs []*fsm.RunError
			in, err := fsm.NewInstance(def, fsm.WithErrorHandler(func(e *fsm.RunError) { errs = append(errs, e) }))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range bb {
				in.Blackboard().Set(k, v)
			}
			in.Update(0)
			if got := in.Active() == "B"; got != tt.want {
				t.Errorf("condition held: %v, want %v", got, tt.want)
			}
			if (len(errs) > 0) != tt.err {
				t.Errorf("run errors %v, want error: %v", errs, tt.err)
			}
			for _, e := range errs {
				if e.State != "A" || !strings.Contains(e.Error(), "condition "+tt.key+" "+tt.op) {
					t.Errorf("run error %q does not name the state and the condition", e)
				}
			}
		})
	}
}

func TestCheckExpiry(t *testing.T) {
	// The instance's own blackboard follows the update clock: a value
	// set with a time to live stops holding once it expires.
	m := fsm.NewMachine("m", "A")
	m.State("A").To("B", fsm.Check("noise", "missing"))
	m.State("B")
	def, err := fsm.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := fsm.NewInstance(def)
	in.Blackboard().SetTTL("noise", "rustle", 100*time.Millisecond)
	in.Update(0)
	in.Update(100 * time.Millisecond)
	if in.Active() != "A" {
		t.Fatalf("at 100ms: in %s, want A (the noise is present until 100ms)", in.Active())
	}
	in.Update(101 * time.Millisecond)
	if in.Active() != "B" {
		t.Fatalf("at 101ms: in %s, want B (the noise expired)", in.Active())
	}
}

func TestCtx(t *testing.T) {
	type npc struct{ name string }
	var got []string
	m := fsm.NewMachine("m", "A")
	m.State("A").OnUpdate(func(c *fsm.Ctx) {
		got = append(got, c.State()+" "+c.TimeInState().String()+" "+c.Now().String())
	}).To("B", fsm.When(func(c *fsm.Ctx) bool {
		got = append(got, "cond "+c.State()+">"+c.Target())
		return c.TimeInState() >= 20*time.Millisecond
	})).OnTransition(func(c *fsm.Ctx) {
		got = append(got, "do "+c.StatePath()+">"+c.Target()+" owner "+fsm.Owner[*npc](c).name)
		fsm.Check("x", "==", 1) // harmless
		c.Blackboard().Set("moved", true)
	})
	m.State("B").OnEnter(func(c *fsm.Ctx) {
		got = append(got, "enter "+c.State()+" target "+c.Target())
		if c.Instance().Owner().(*npc).name != "orc" {
			t.Error("Ctx.Instance().Owner()")
		}
	})
	def, err := fsm.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := fsm.NewInstance(def, fsm.WithOwner(&npc{"orc"}))
	in.Update(10 * time.Millisecond)
	in.Update(30 * time.Millisecond)
	want := []string{
		"cond A>B", "A 0s 10ms",
		"cond A>B", "do A>B owner orc", "enter B target ",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if v, _ := in.Blackboard().Value("moved").Bool(); !v {
		t.Error("the transition callback's blackboard write is missing")
	}
}

func TestStop(t *testing.T) {
	r := &recorder{}
	m := fsm.NewMachine("m", "P")
	p := m.State("P")
	p.Machine("Q").State("Q").OnUpdate(func(c *fsm.Ctx) {
		if v, _ := c.Blackboard().Value("stop").Bool(); v {
			c.Instance().Stop() // takes effect when the update ends
			r.log = append(r.log, "stop requested")
		}
	})
	instrument(m, r)
	def, err := fsm.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := fsm.NewInstance(def)
	if in.Status() != arbor.Invalid || in.ActivePath() != "" || in.Depth() != 0 {
		t.Fatal("a new instance is not started")
	}
	in.Start(0)
	if got := r.take(); !reflect.DeepEqual(got, []string{"enter P", "enter Q"}) {
		t.Fatalf("Start: %q", got)
	}
	in.Update(0)
	r.take()
	in.Stop()
	if got := r.take(); !reflect.DeepEqual(got, []string{"exit Q", "exit P"}) {
		t.Fatalf("Stop: %q", got)
	}
	if in.Status() != arbor.Invalid || in.Depth() != 0 {
		t.Fatal("a stopped instance is not started")
	}
	in.Stop() // nothing active: nothing happens
	in.Update(0)
	if got := r.take(); !reflect.DeepEqual(got, []string{"enter P", "enter Q", "update P", "update Q"}) {
		t.Fatalf("update after Stop: %q", got)
	}
	in.Blackboard().Set("stop", true)
	in.Update(0)
	if got := r.take(); !reflect.DeepEqual(got, []string{"update P", "update Q", "stop requested", "exit Q", "exit P"}) {
		t.Fatalf("Stop from a callback: %q", got)
	}
}

func TestPanicsAndReentrancy(t *testing.T) {
	var errs []*fsm.RunError
	var in *fsm.Instance
	m := fsm.NewMachine("m", "A")
	m.State("A").
		OnEnter(func(*fsm.Ctx) { panic("enter boom") }).
		OnUpdate(func(c *fsm.Ctx) { c.Instance().Update(0) }).
		To("A2", fsm.When(func(*fsm.Ctx) bool { panic("cond boom") }))
	m.State("A2").To("A", nil).OnTransition(func(*fsm.Ctx) { panic("do boom") })
	def, err := fsm.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	in, _ = fsm.NewInstance(def, fsm.WithErrorHandler(func(e *fsm.RunError) { errs = append(errs, e) }))
	if st := in.Update(0); st != arbor.Running || in.Active() != "A" {
		t.Fatalf("after panics: %s in %q", st, in.Active())
	}
	var wheres []string
	for i, e := range errs {
		wheres = append(wheres, e.Where)
		if i < 2 && e.State != "A" {
			t.Errorf("%v: state %q", e, e.State)
		}
	}
	if want := []string{"enter", "condition", "update"}; !reflect.DeepEqual(wheres, want) {
		t.Errorf("errors reported at %q, want %q (%v)", wheres, want, errs)
	}
	var pe *arbor.PanicError
	if !errors.As(errs[0], &pe) || pe.Value != "enter boom" {
		t.Errorf("first error %v is not the enter panic", errs[0])
	}
}

func TestInstancesShareADefinition(t *testing.T) {
	m := fsm.NewMachine("m", "A")
	m.State("A").To("B", on("go"))
	m.State("B").To("A", on("back"))
	def, err := fsm.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := fsm.NewInstance(def)
	b, _ := fsm.NewInstance(def)
	a.Blackboard().Set("go", true)
	a.Update(0)
	b.Update(0)
	if a.Active() != "B" || b.Active() != "A" {
		t.Fatalf("a in %s, b in %s", a.Active(), b.Active())
	}
	if !a.In("B") || a.In("A") || a.Definition() != def || b.Definition() != def {
		t.Fatal("In / Definition")
	}
}

func TestTracer(t *testing.T) {
	var got []string
	m := fsm.NewMachine("m", "P")
	p := m.State("P")
	p.To("X", on("go"))
	p.Machine("Q").State("Q")
	m.State("X")
	def, _ := fsm.Compile(m)
	in, _ := fsm.NewInstance(def, fsm.WithTracer(func(_ *fsm.Instance, e fsm.Event) {
		s := e.Kind.String() + " " + e.State
		if e.Target != "" {
			s += ">" + e.Target
		}
		got = append(got, s)
	}))
	in.Update(0)
	in.Blackboard().Set("go", true)
	in.Update(0)
	want := []string{"enter P", "enter P/Q", "exit P/Q", "exit P", "transition P>X", "enter X"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestSetCalls(t *testing.T) {
	m := fsm.NewMachine("m", "A")
	a := m.State("A")
	a.Enter = append(a.Enter, fsm.Call{Set: map[string]any{"mode": "calm", "n": 3, "gone": nil}})
	def, err := fsm.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := fsm.NewInstance(def)
	in.Blackboard().Set("gone", 1)
	in.Update(0)
	bb := in.Blackboard()
	if s, _ := bb.Value("mode").Str(); s != "calm" {
		t.Errorf("mode = %v", bb.Value("mode"))
	}
	if n, _ := bb.Value("n").Number(); n != 3 {
		t.Errorf("n = %v", bb.Value("n"))
	}
	if _, ok := bb.Lookup("gone"); ok {
		t.Error("gone was not deleted")
	}
}

func TestOptions(t *testing.T) {
	m := fsm.NewMachine("m", "A")
	m.State("A").To("B", fsm.Check("@alarm", "==", true))
	m.State("B")
	def, _ := fsm.Compile(m)
	if _, err := fsm.NewInstance(nil); err == nil {
		t.Error("nil definition accepted")
	}
	g := arbor.NewGlobals()
	in, err := fsm.NewInstance(def, fsm.WithGlobals(g))
	if err != nil {
		t.Fatal(err)
	}
	g.Set("@alarm", true)
	in.Update(0)
	if in.Active() != "B" {
		t.Error("the global scope given WithGlobals is not read")
	}
	if in.Agent() == nil || in.Agent().Blackboard() != in.Blackboard() {
		t.Error("an instance with its own blackboard has its own agent")
	}
	// An agent's blackboard.
	tree, _ := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.AlwaysSuccess()}}, nil)
	agent := arbor.NewAgent(tree)
	in2, err := fsm.NewInstance(def, fsm.WithBlackboard(agent.Blackboard()))
	if err != nil {
		t.Fatal(err)
	}
	if in2.Blackboard() != agent.Blackboard() || in2.Agent() != nil {
		t.Error("WithBlackboard")
	}
	if _, err := fsm.NewInstance(def, fsm.WithBlackboard(agent.Blackboard()), fsm.WithGlobals(g)); err == nil {
		t.Error("WithBlackboard and WithGlobals together accepted")
	}
}

func TestConcurrentInstances(t *testing.T) {
	// Instances of one definition run on different goroutines (run with
	// -race): the definition is read-only.
	def, err := fsm.Compile(deepMachine())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	for g := 0; g < 4; g++ {
		go func() {
			in, _ := fsm.NewInstance(def)
			for i := 0; i < 500; i++ {
				in.Blackboard().Set("hp", float64(500-i))
				in.Update(time.Duration(i) * 10 * time.Millisecond)
			}
			done <- in.ActivePath()
		}()
	}
	for g := 0; g < 4; g++ {
		if p := <-done; p != "Alive/Calm/Sit" {
			t.Errorf("instance ended in %q", p)
		}
	}
}
