package fsm_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/fsm"
)

func TestCompileErrors(t *testing.T) {
	noop := func(*fsm.Ctx) {}
	tests := []struct {
		name  string
		build func() *fsm.Machine
		opts  []fsm.CompileOption
		want  []string // substrings of the error, one error each
	}{
		{"nil machine", func() *fsm.Machine { return nil }, nil, []string{"no machine"}},
		{"no states", func() *fsm.Machine { return fsm.NewMachine("m", "A") }, nil, []string{"m: the machine has no states"}},
		{"missing initial state", func() *fsm.Machine {
			m := fsm.NewMachine("m", "")
			m.State("A")
			m.State("B")
			return m
		}, nil, []string{"m: missing initial state (one of A, B)"}},
		{"unknown initial state", func() *fsm.Machine {
			m := fsm.NewMachine("m", "Idel")
			m.State("Idle")
			return m
		}, nil, []string{`m: initial state "Idel" is not a state of this machine (did you mean "Idle"?)`}},
		{"missing initial state of a state's machine", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			m.State("A").Machine("").State("A1")
			return m
		}, nil, []string{"m.states.A: missing initial state (one of A1)"}},
		{"unknown target", func() *fsm.Machine {
			m := fsm.NewMachine("m", "Calm")
			m.State("Calm").To("Alret", nil)
			m.State("Alert")
			return m
		}, nil, []string{`m.states.Calm.transitions[0]: unknown target state "Alret": not a state of this machine (Calm, Alert) (did you mean "Alert"?)`}},
		{"target in another machine", func() *fsm.Machine {
			m := fsm.NewMachine("m", "P")
			m.State("P").Machine("P1").State("P1").To("Dead", nil)
			m.State("Dead")
			return m
		}, nil, []string{`m.states.P.states.P1.transitions[0]: unknown target state "Dead": not a state of this machine (P1); transitions lead to states of the same machine: to leave an enclosing state, give the transition to that state`}},
		{"unknown any-state target", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			m.State("A")
			m.AnyTo("Nowhere", nil)
			return m
		}, nil, []string{`m.any[0]: unknown target state "Nowhere"`}},
		{"missing target", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			m.State("A").To("", nil)
			return m
		}, nil, []string{"a transition needs a target state (to)"}},
		{"duplicate state", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			m.State("A")
			m.State("A")
			return m
		}, nil, []string{`m.states.A: duplicate state "A"`}},
		{"bad state names", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			m.State("A")
			m.State("")
			m.State("a/b")
			m.States = append(m.States, nil)
			return m
		}, nil, []string{"m.states[1]: a state needs a name", `state names may not contain "/"`, "m.states[3]: nil state"}},
		{"final state with transitions or a machine", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			m.State("A").SetFinal(arbor.Success).To("A", nil)
			m.State("B").SetFinal(arbor.Failure).Machine("B1").State("B1")
			m.State("C").SetFinal(arbor.Running)
			return m
		}, nil, []string{"m.states.A: a final state has no transitions", "m.states.B: a final state cannot contain a machine", "m.states.C: final must be success or failure, got running"}},
		{"bad checks", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			a := m.State("A")
			a.To("A", fsm.Check("hp", "=<", 3))
			a.To("A", fsm.Check("hp", "<", true))
			a.To("A", fsm.Check("hp", "exists", 1))
			a.To("A", fsm.Check("hp", "=="))
			a.To("A", fsm.Check("hp", "==", nil))
			a.To("A", fsm.Check("", "exists"))
			a.To("A", fsm.Check("tags", "==", "a", "b"))
			return m
		}, nil, []string{
			`transitions[0].when: unknown operator "=<"`,
			"transitions[1].when: operator < needs a number or a string, got true",
			"transitions[2].when: operator exists takes no value",
			"transitions[3].when: operator == needs a value",
			"transitions[4].when: null is not a value to compare with (use op exists or missing)",
			"transitions[5].when: a check needs a key",
			"transitions[6].when: Check takes one value, got 2",
		}},
		{"bad combinations", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			a := m.State("A")
			a.To("A", fsm.And())
			a.To("A", &fsm.Cond{Kind: fsm.CondNot})
			a.To("A", fsm.Or(fsm.Check("k", "?", 1)))
			a.To("A", fsm.After(-time.Second))
			a.To("A", fsm.When(nil))
			a.To("A", &fsm.Cond{})
			return m
		}, nil, []string{
			"transitions[0].when: and needs at least one condition",
			"transitions[1].when: not takes exactly one condition, got 0",
			`transitions[2].when.or[0]: unknown operator "?"`,
			"transitions[3].when: after: the duration must be ≥ 0",
			"transitions[4].when: condition function is nil",
			"transitions[5].when: unknown condition kind 0",
		}},
		{"done and tree need something to watch", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			a := m.State("A")
			a.To("A", fsm.Done())
			a.To("A", fsm.TreeIs(arbor.Success))
			a.To("A", fsm.TreeIs(arbor.Invalid))
			m.AnyTo("A", fsm.Done()) // any-state: checked at run time
			return m
		}, nil, []string{
			"transitions[0].when: done: state A has no machine of its own to finish",
			"transitions[1].when: tree: state A runs no tree",
			"transitions[2].when: tree: the status must be success, failure or running, got invalid",
		}},
		{"unknown names", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			a := m.State("A")
			a.Enter = []fsm.Call{{Name: "grwol"}}
			a.To("A", fsm.Named("seesEnemy"))
			return m
		}, []fsm.CompileOption{fsm.WithFuncs(fsm.Funcs{Calls: map[string]func(*fsm.Ctx){"growl": noop}, Conds: map[string]func(*fsm.Ctx) bool{"seeEnemy": nil}})}, []string{
			`m.states.A.enter[0]: unknown callback "grwol" (give it to Compile with WithFuncs) (did you mean "growl"?)`,
			`transitions[0].when: unknown condition "seesEnemy"`,
		}},
		{"bad calls", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			a := m.State("A")
			a.Exit = []fsm.Call{{}, {Name: "x", Fn: noop}, {Set: map[string]any{"": 1}}}
			return m
		}, nil, []string{"m.states.A.exit[0]: a callback is exactly one of", "m.states.A.exit[1]: a callback is exactly one of", "m.states.A.exit[2]: set: empty key"}},
		{"machine cycle", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			m.State("A").Sub = m
			return m
		}, nil, []string{"m.states.A: machine cycle"}},
		{"condition cycle", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			c := fsm.And()
			c.Conds = []*fsm.Cond{c}
			m.State("A").To("A", c)
			return m
		}, nil, []string{"conditions nested deeper than 64 levels (or a cycle)"}},
		{"too deep", func() *fsm.Machine {
			m := fsm.NewMachine("m", "S")
			cur := m
			for i := 0; i < 70; i++ {
				cur = cur.State("S").Machine("S")
			}
			cur.State("S")
			return m
		}, nil, []string{"machines nested deeper than 64 levels"}},
		{"tree without trees", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			m.State("A").RunTree("Fight")
			return m
		}, nil, []string{`m.states.A: state runs tree "Fight" but no trees were given`}},
		{"unknown tree, tree and agent, nested trees", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			m.State("A").RunTree("Fihgt")
			b := m.State("B").RunTree("Fight").RunAgent(func(*fsm.Ctx) *arbor.Agent { return nil })
			b.Machine("B1").State("B1").RunTree("Flee")
			return m
		}, []fsm.CompileOption{fsm.WithTrees(&arbor.Document{Trees: map[string]*arbor.Node{
			"Fight": arbor.AlwaysRunning(), "Flee": arbor.AlwaysRunning()}}, nil)}, []string{
			"m.states.B: a state runs either a tree of the document (tree) or an agent, not both",
			`m.states.A: state runs tree "Fihgt", which is not in the document (trees: Fight, Flee) (did you mean "Fight"?)`,
			`m.states.B.states.B1: state runs tree "Flee" inside state B, which runs tree "Fight"`,
		}},
		{"bad tree", func() *fsm.Machine {
			m := fsm.NewMachine("m", "A")
			m.State("A").RunTree("Fight")
			return m
		}, []fsm.CompileOption{fsm.WithTrees(&arbor.Document{Trees: map[string]*arbor.Node{"Fight": arbor.Leaf("Atack")}}, nil)}, []string{
			`trees: compile the trees run by states: trees.Fight: unknown node type "Atack"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def, err := fsm.Compile(tt.build(), tt.opts...)
			if err == nil {
				t.Fatalf("compiled (%d states), want errors %q", len(def.States()), tt.want)
			}
			var errs fsm.Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error %T is not fsm.Errors: %v", err, err)
			}
			if len(errs) != len(tt.want) {
				t.Errorf("%d errors, want %d:\n%v", len(errs), len(tt.want), err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	m := fsm.NewMachine("m", "A")
	m.AnyTo("Panic", fsm.Check("fear", ">", 9))
	a := m.State("A")
	a.To("B", nil)
	a.To("C", on("c")) // shadowed
	m.State("B")
	m.State("C") // unreachable: its only transition is shadowed? no: still reached by A's list
	m.State("Panic")
	lost := m.State("Lost") // unreachable, and so is its machine
	lost.Machine("L1").State("L1")
	b := m.States[1]
	b.Machine("B1").State("B1")
	b.Sub.State("B2") // unreachable inside a reachable state
	def, err := fsm.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	got := def.Warnings().Error()
	for _, w := range []string{
		"m.states.A.transitions[1]: never taken: transition [0] before it has no condition and always holds",
		"m.states.Lost: state Lost is unreachable from the initial state A",
		"m.states.B.states.B2: state B/B2 is unreachable from the initial state B1",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("warnings do not contain %q:\n%s", w, got)
		}
	}
	if n := len(def.Warnings()); n != 3 {
		t.Errorf("%d warnings, want 3:\n%s", n, got)
	}
	if def.Name() != "m" || def.Depth() != 2 || def.RunsTrees() {
		t.Errorf("Name %q Depth %d RunsTrees %v", def.Name(), def.Depth(), def.RunsTrees())
	}
	want := "A B B/B1 B/B2 C Lost Lost/L1 Panic"
	if got := strings.Join(def.States(), " "); got != want {
		t.Errorf("States() = %q, want %q", got, want)
	}
}
