package fsm_test

import (
	"testing"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/fsm"
)

var benchHP = arbor.NewKey[float64]("hp")

func noop(*fsm.Ctx) {}

// flatMachine: four states, each with enter/update/exit callbacks and two
// transitions on blackboard numbers; no transition holds while hp is 50.
func flatMachine() *fsm.Machine {
	m := fsm.NewMachine("flat", "Idle")
	m.AnyTo("Dead", fsm.Check("hp", "<=", 0))
	for _, s := range []string{"Idle", "Walk", "Run"} {
		st := m.State(s).OnEnter(noop).OnUpdate(noop).OnExit(noop)
		st.To("Run", fsm.Check("hp", ">", 100))
		st.To("Walk", fsm.And(fsm.Check("hp", "<", 10), fsm.Check("hp", ">", 0)))
	}
	m.State("Dead").SetFinal(arbor.Success)
	return m
}

// pingPong takes a transition on every update.
func pingPong() *fsm.Machine {
	m := fsm.NewMachine("pingpong", "Ping")
	m.State("Ping").OnEnter(noop).OnUpdate(noop).OnExit(noop).To("Pong", nil).OnTransition(noop)
	m.State("Pong").OnEnter(noop).OnUpdate(noop).OnExit(noop).To("Ping", nil).OnTransition(noop)
	return m
}

// deepMachine: three levels, each with an any-state transition and a state
// transition that do not hold; inner levels ping-pong on a timer.
func deepMachine() *fsm.Machine {
	m := fsm.NewMachine("deep", "Alive")
	m.AnyTo("Dead", fsm.Check("hp", "<=", 0))
	alive := m.State("Alive").OnUpdate(noop)
	m.State("Dead")
	sub := alive.Machine("Calm")
	sub.AnyTo("Combat", fsm.Check("hp", ">", 1000))
	calm := sub.State("Calm").OnUpdate(noop)
	calm.To("Combat", fsm.Check("enemy", "exists"))
	sub.State("Combat")
	in := calm.Machine("Sit")
	in.State("Sit").OnUpdate(noop).To("Stand", fsm.After(time.Second))
	in.State("Stand").OnUpdate(noop).To("Sit", fsm.After(time.Second))
	return m
}

func newBench(b testing.TB, m *fsm.Machine, opts ...fsm.CompileOption) *fsm.Instance {
	def, err := fsm.Compile(m, opts...)
	if err != nil {
		b.Fatal(err)
	}
	in, err := fsm.NewInstance(def)
	if err != nil {
		b.Fatal(err)
	}
	benchHP.Set(in.Blackboard(), 50)
	in.Update(0)
	return in
}

func BenchmarkUpdateSteady(b *testing.B) {
	in := newBench(b, flatMachine())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in.Update(time.Duration(i) * time.Millisecond)
	}
}

func BenchmarkUpdateTransition(b *testing.B) {
	in := newBench(b, pingPong())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in.Update(time.Duration(i) * time.Millisecond)
	}
}

func BenchmarkUpdateHierarchical(b *testing.B) {
	in := newBench(b, deepMachine())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in.Update(time.Duration(i) * time.Millisecond) // a transition every 1000 updates
	}
}

// BenchmarkUpdateWithBlackboard: an instance reading an agent's
// blackboard (no clock tick of its own).
func BenchmarkUpdateWithBlackboard(b *testing.B) {
	def, err := fsm.Compile(flatMachine())
	if err != nil {
		b.Fatal(err)
	}
	tree, _ := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.AlwaysSuccess()}}, nil)
	agent := arbor.NewAgent(tree)
	in, _ := fsm.NewInstance(def, fsm.WithBlackboard(agent.Blackboard()))
	benchHP.Set(in.Blackboard(), 50)
	in.Update(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in.Update(time.Duration(i) * time.Millisecond)
	}
}

func treeStateInstance(b testing.TB) *fsm.Instance {
	reg := arbor.NewRegistry()
	reg.ActionFunc("Swing", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Running, nil })
	doc := &arbor.Document{Trees: map[string]*arbor.Node{
		"Fight": arbor.ReactiveSequence(arbor.Check("hp", ">", 0), arbor.Leaf("Swing")),
	}}
	m := fsm.NewMachine("fighter", "Combat")
	m.State("Combat").RunTree("Fight").To("Rest", fsm.TreeIs(arbor.Failure))
	m.State("Rest")
	return newBench(b, m, fsm.WithTrees(doc, reg))
}

// BenchmarkTreeState: the active state ticks a behavior tree.
func BenchmarkTreeState(b *testing.B) {
	in := treeStateInstance(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in.Update(time.Duration(i) * time.Millisecond)
	}
}

func fsmNodeAgent(b testing.TB) *arbor.Agent {
	def, err := fsm.Compile(flatMachine())
	if err != nil {
		b.Fatal(err)
	}
	reg := arbor.NewRegistry()
	if err := fsm.Register(reg, []*fsm.Definition{def}); err != nil {
		b.Fatal(err)
	}
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.ReactiveSelector(
		arbor.ReactiveSequence(arbor.Check("alarm", "==", true), arbor.AlwaysRunning()),
		arbor.Leaf("FSM"),
	)}}, reg)
	if err != nil {
		b.Fatal(err)
	}
	a := arbor.NewAgent(tree)
	benchHP.Set(a.Blackboard(), 50)
	a.Tick(0)
	return a
}

// BenchmarkFSMNode: an agent tick whose tree runs the machine as a node.
func BenchmarkFSMNode(b *testing.B) {
	a := fsmNodeAgent(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		a.Tick(time.Duration(i) * time.Millisecond)
	}
}

// BenchmarkFSMNodeHalt: every tick pre-empts or restarts the FSM node.
func BenchmarkFSMNodeHalt(b *testing.B) {
	a := fsmNodeAgent(b)
	alarm := arbor.NewKey[bool]("alarm")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		alarm.Set(a.Blackboard(), i%2 == 0)
		a.Tick(time.Duration(i) * time.Millisecond)
	}
}

func TestUpdatesDoNotAllocate(t *testing.T) {
	cases := map[string]func() func(i int){
		"steady": func() func(int) {
			in := newBench(t, flatMachine())
			return func(i int) { in.Update(time.Duration(i) * time.Millisecond) }
		},
		"transition": func() func(int) {
			in := newBench(t, pingPong())
			return func(i int) { in.Update(time.Duration(i) * time.Millisecond) }
		},
		"hierarchical": func() func(int) {
			in := newBench(t, deepMachine())
			return func(i int) { in.Update(time.Duration(i) * 100 * time.Millisecond) }
		},
		"tree state": func() func(int) {
			in := treeStateInstance(t)
			return func(i int) {
				benchHP.Set(in.Blackboard(), float64(i%3)) // leaves Combat and comes back
				in.Update(time.Duration(i) * time.Millisecond)
			}
		},
		"fsm node with halts": func() func(int) {
			a := fsmNodeAgent(t)
			alarm := arbor.NewKey[bool]("alarm")
			return func(i int) {
				alarm.Set(a.Blackboard(), i%3 == 0)
				a.Tick(time.Duration(i) * time.Millisecond)
			}
		},
		"state key": func() func(int) {
			def, err := fsm.Compile(pingPong())
			if err != nil {
				t.Fatal(err)
			}
			in, _ := fsm.NewInstance(def, fsm.WithStateKey("state"))
			return func(i int) { in.Update(time.Duration(i) * time.Millisecond) }
		},
		"set calls": func() func(int) {
			m := fsm.NewMachine("sets", "A")
			m.State("A").To("B", nil).Do = []fsm.Call{{Set: map[string]any{"mode": "b", "n": 1, "x": nil}}}
			m.State("B").To("A", nil).Do = []fsm.Call{{Set: map[string]any{"mode": "a", "n": 2}}}
			in := newBench(t, m)
			return func(i int) { in.Update(time.Duration(i) * time.Millisecond) }
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			step := setup()
			for i := 0; i < 10; i++ { // warm up: blackboard slots, first activations
				step(i)
			}
			i := 10
			if n := testing.AllocsPerRun(200, func() { step(i); i++ }); n != 0 {
				t.Errorf("%v allocations per update", n)
			}
		})
	}
}
