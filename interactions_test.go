package arbor_test

import (
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// Semantics §7: "When X is halted instead of ending, its observers are
// dropped." Agent.Halt and Agent.Reset halt every running composite, so a
// condition that changes afterwards aborts nothing (no EventAbort), and
// the next tick starts the tree afresh.
func TestAgentHaltAndResetDropObservers(t *testing.T) {
	for _, op := range []string{"Halt", "Reset"} {
		t.Run(op, func(t *testing.T) {
			tree := mustCompile(t, arbor.NewRegistry(), arbor.Sequence(
				arbor.Check("c", "==", true),
				arbor.AlwaysRunning(),
			).WithAbort(arbor.AbortSelf))
			var aborts int
			a := arbor.NewAgent(tree, arbor.WithTracer(func(_ *arbor.Agent, e arbor.Event) {
				if e.Kind == arbor.EventAbort {
					aborts++
				}
			}))
			a.Blackboard().Set("c", true)
			if s := a.Tick(time.Second); s != arbor.Running {
				t.Fatalf("first tick: %v, want running", s)
			}
			switch op {
			case "Halt":
				a.Halt()
			case "Reset":
				a.Reset()
			}
			a.Blackboard().Set("c", false)
			if s := a.Tick(2 * time.Second); s != arbor.Failure {
				t.Fatalf("after %s: %v, want failure", op, s)
			}
			if aborts != 0 {
				t.Fatalf("after %s: %d aborts, want none (the observer was dropped)", op, aborts)
			}
		})
	}
}

// Semantics §2: SequenceWithMemory's resume index after a failure lives
// over the agent's life: an agent Halt (the sequence is idle, so it is not
// halted) keeps it; Reset clears it.
func TestSequenceWithMemoryIndexAcrossHaltAndReset(t *testing.T) {
	root := arbor.SequenceWithMemory(arbor.Check("a", "==", true), arbor.Check("b", "==", true))
	tree := mustCompile(t, arbor.NewRegistry(), root)
	for _, op := range []string{"Halt", "Reset"} {
		a := arbor.NewAgent(tree)
		a.Blackboard().Set("a", true)
		a.Blackboard().Set("b", false)
		if s := a.Tick(time.Second); s != arbor.Failure {
			t.Fatalf("%s: first tick %v, want failure at the second child", op, s)
		}
		a.Blackboard().Set("a", false)
		a.Blackboard().Set("b", true)
		want := arbor.Success // resumes at b, a is not ticked again
		if op == "Halt" {
			a.Halt()
		} else {
			a.Reset()
			want = arbor.Failure // starts at a again
		}
		if s := a.Tick(2 * time.Second); s != want {
			t.Fatalf("after %s: %v, want %v", op, s, want)
		}
	}
}

// Semantics §9: global writes are applied in ascending agent order, the
// last writer winning; a null write (delete) is a write too, and each agent
// reads its own delete in the tick.
func TestManagerGlobalDeletesApplyInAgentOrder(t *testing.T) {
	reg := arbor.NewRegistry()
	set := func(v any) *arbor.Tree {
		return mustCompile(t, reg, arbor.Sequence(arbor.Set("@x", v), arbor.Check("@x", "exists")))
	}
	del := mustCompile(t, reg, arbor.Sequence(arbor.Set("@x", nil), arbor.Check("@x", "missing")))
	for _, c := range []struct {
		name    string
		trees   []*arbor.Tree
		present bool
	}{
		{"set then delete", []*arbor.Tree{set(1.0), del}, false},
		{"delete then set", []*arbor.Tree{del, set(2.0)}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := arbor.NewManager(arbor.WithWorkers(2))
			m.Globals().Set("@x", 0.0)
			var agents []*arbor.Agent
			for _, tr := range c.trees {
				agents = append(agents, m.Add(tr))
			}
			m.Tick(time.Second)
			for i, a := range agents {
				if a.Status() != arbor.Success {
					t.Errorf("agent %d: %v, want success (it reads its own write)", i, a.Status())
				}
			}
			if _, ok := m.Globals().Lookup("@x", time.Second); ok != c.present {
				t.Errorf("@x present after the tick = %v, want %v", ok, c.present)
			}
		})
	}
}

// Semantics §8 and §9: a global value written with a ttl during a manager
// tick at time t is present while now ≤ t + ttl, for every agent.
func TestManagerGlobalTTL(t *testing.T) {
	reg := arbor.NewRegistry()
	writer := mustCompile(t, reg, arbor.RunOnce(arbor.SetFor("@y", true, 100*time.Millisecond)))
	reader := mustCompile(t, reg, arbor.Check("@y", "exists"))
	m := arbor.NewManager(arbor.WithWorkers(2))
	r0 := m.Add(reader)
	m.Add(writer)
	r2 := m.Add(reader)
	m.Tick(time.Second)
	// The writes of the tick are applied after it: readers saw nothing.
	if r0.Status() != arbor.Failure || r2.Status() != arbor.Failure {
		t.Fatalf("first tick: readers %v %v, want failure", r0.Status(), r2.Status())
	}
	m.Tick(time.Second + 100*time.Millisecond)
	if r0.Status() != arbor.Success || r2.Status() != arbor.Success {
		t.Fatalf("at t+ttl: readers %v %v, want success", r0.Status(), r2.Status())
	}
	m.Tick(time.Second + 100*time.Millisecond + 1)
	if r0.Status() != arbor.Failure || r2.Status() != arbor.Failure {
		t.Fatalf("after t+ttl: readers %v %v, want failure", r0.Status(), r2.Status())
	}
}

// Semantics §2 and §7: an abort halts every running node under the watched
// composite, children first and siblings in child order, each exactly
// once: a user control's running children, then the control; a user
// decorator's child, then the decorator. End is not called for a halted
// node, and the resumed tick starts the action again.
func TestAbortHaltsUserControlsOnce(t *testing.T) {
	reg := ctlRegistry(t)
	k := arbor.NewKey[bool]("k")
	for _, tc := range []struct {
		name   string
		body   *arbor.Node
		plan   string
		start  []string
		halted []string
	}{
		{"control", arbor.Branch("Ctl", unP("A", "run", -1), unP("B", "run", -1)).Named("C"), "t1 t0 R",
			[]string{"C:start m=0", "C:tick(t1 t0 R)", "B:start", "B:tick", "A:start", "A:tick"},
			[]string{"A:halt", "B:halt", "C:halt m=1"}},
		{"decorator", arbor.Branch("Deco", unP("A", "run", -1)).Named("D"), "t0 R",
			[]string{"D:start m=0", "D:tick(t0 R)", "A:start", "A:tick"},
			[]string{"A:halt", "D:halt m=1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Selector(self): a false k lets the selector run the body;
			// a true k aborts it, and the selector then succeeds at k.
			root := arbor.Selector(arbor.Check("k", "==", true), tc.body).WithAbort(arbor.AbortSelf)
			r := unStart(unCompile(t, reg, root))
			r.log.take() // awake
			ctlPlan.Set(r.Blackboard(), tc.plan)
			k.Set(r.Blackboard(), false)
			if s := r.Tick(time.Second); s != arbor.Running {
				t.Fatalf("first tick: %v", s)
			}
			unEqual(t, "first tick", r.log.take(), tc.start)
			k.Set(r.Blackboard(), true)
			if s := r.Tick(2 * time.Second); s != arbor.Success {
				t.Fatalf("abort tick: %v, want success", s)
			}
			unEqual(t, "abort tick", r.log.take(), tc.halted)
			r.Halt()
			unEqual(t, "agent halt after the abort", r.log.take(), nil)
			k.Set(r.Blackboard(), false)
			if s := r.Tick(3 * time.Second); s != arbor.Running {
				t.Fatalf("third tick: %v", s)
			}
			unEqual(t, "third tick", r.log.take(), tc.start)
		})
	}
}

// Semantics §8: a value's expiry stays with it when SetTree moves the
// agent to a tree that does not mention its key, or to one that does.
func TestTTLSurvivesSetTree(t *testing.T) {
	reg := arbor.NewRegistry()
	writer := mustCompile(t, reg, arbor.Sequence(arbor.SetFor("k", 1.0, 100*time.Millisecond), arbor.Check("k", "exists")))
	other := mustCompile(t, reg, arbor.Check("other", "exists"))
	reader := mustCompile(t, reg, arbor.Check("k", "exists"))
	a := arbor.NewAgent(writer)
	if s := a.Tick(time.Second); s != arbor.Success {
		t.Fatalf("writer: %v", s)
	}
	for _, tr := range []*arbor.Tree{other, reader} {
		if err := a.SetTree(tr); err != nil {
			t.Fatal(err)
		}
	}
	if s := a.Tick(time.Second + 100*time.Millisecond); s != arbor.Success {
		t.Fatalf("at t+ttl: %v, want success", s)
	}
	if s := a.Tick(time.Second + 100*time.Millisecond + 1); s != arbor.Failure {
		t.Fatalf("after t+ttl: %v, want failure", s)
	}
	b := arbor.NewAgent(other)
	b.Tick(time.Second)
	b.Blackboard().SetTTL("k", true, 100*time.Millisecond) // a key the tree does not mention
	if err := b.SetTree(reader); err != nil {
		t.Fatal(err)
	}
	if s := b.Tick(time.Second + 100*time.Millisecond); s != arbor.Success {
		t.Fatalf("game-code write at t+ttl: %v, want success", s)
	}
	if s := b.Tick(time.Second + 100*time.Millisecond + 1); s != arbor.Failure {
		t.Fatalf("game-code write after t+ttl: %v, want failure", s)
	}
}
