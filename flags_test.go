package arbor

import (
	"math/rand/v2"
	"testing"
	"time"
)

// flagsMismatch names the bit of a.flags that does not mirror its field,
// or returns "".
func flagsMismatch(a *Agent) string {
	switch {
	case (a.flags&agTraced != 0) != (a.tracer != nil):
		return "agTraced"
	case (a.flags&agObs != 0) != (len(a.obs) > 0):
		return "agObs"
	case a.tree != nil && (a.flags&agNoWalk != 0) != (a.tree.rootWalk == nil):
		return "agNoWalk"
	case a.tree == nil && a.flags&agActive != 0:
		return "agActive (no tree)"
	}
	return ""
}

// The bits of Agent.flags that mirror a field (tracer, observers, the
// tree's root walk) stay exact through random agent operations made
// between ticks and from inside ticks, under Agent.Tick and Manager.Tick,
// with observers registering and dropping: the manager's loop trusts them
// (tickSome).
func TestAgentFlagsMirrorTheirFields(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var inTick func(a *Agent)
	reg := NewRegistry()
	if err := reg.ActionFunc("Run", func(c *Ctx) (Status, error) {
		if inTick != nil {
			inTick(c.Agent())
		}
		return Running, nil
	}); err != nil {
		t.Fatal(err)
	}
	compile := func(root *Node) *Tree {
		tree, err := Compile(&Document{Trees: map[string]*Node{"main": root}}, reg)
		if err != nil {
			t.Fatal(err)
		}
		return tree
	}
	trees := []*Tree{
		compile(Selector(
			Sequence(Check("a", "==", true), Leaf("Run")).WithAbort(AbortLower),
			Sequence(Check("b", "==", true), Leaf("Run")).WithAbort(AbortSelf),
			Leaf("Run"))),
		compile(Selector(Check("a", "==", true), Sequence(Check("b", "==", true), Leaf("Run")).WithAbort(AbortBoth), Leaf("Run")).WithAbort(AbortSelf)),
		compile(Inverter(Sequence(Check("a", "==", true), Leaf("Run")))),
	}
	tracer := func(*Agent, Event) {}
	op := func(a *Agent) {
		switch rng.IntN(12) {
		case 0:
			a.SetTracer(tracer)
		case 1:
			a.SetTracer(nil)
		case 2:
			_ = a.Force(rng.IntN(a.Tree().Len()), Status(1+rng.IntN(3)))
		case 3:
			_ = a.Unforce(rng.IntN(a.Tree().Len()))
		case 4:
			a.Halt()
		case 5:
			a.Reset()
		case 6:
			a.Pause()
		case 7:
			a.Resume()
		case 8:
			_ = a.SetTree(trees[rng.IntN(len(trees))])
		case 9:
			if data, err := a.Snapshot(); err == nil {
				if err := a.Restore(data); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	check := func(a *Agent, when string, tick int) {
		t.Helper()
		if bit := flagsMismatch(a); bit != "" {
			t.Fatalf("tick %d, %s: %s does not mirror its field (flags %#x)", tick, when, bit, a.flags)
		}
	}

	zero := &Agent{}
	check(zero, "zero agent", 0)
	if err := zero.SetTree(trees[0]); err != nil {
		t.Fatal(err)
	}
	m := NewManager(WithWorkers(1))
	agents := []*Agent{zero, NewAgent(trees[1], WithTracer(tracer)), m.Add(trees[0]), m.Add(trees[1], WithTracer(tracer))}
	for tick := 1; tick <= 2000; tick++ {
		for _, a := range agents {
			check(a, "before the ops", tick)
			if rng.IntN(3) == 0 {
				op(a)
				check(a, "after an op", tick)
			}
			a.Blackboard().Set("a", rng.IntN(3) == 0)
			a.Blackboard().Set("b", rng.IntN(2) == 0)
		}
		inTick = nil
		if rng.IntN(4) == 0 {
			inTick = op
		}
		now := time.Duration(tick) * time.Second
		agents[0].Tick(now)
		agents[1].Tick(now)
		m.TickWith(now, func(a *Agent) {
			if rng.IntN(8) == 0 {
				op(a)
			}
		})
		for _, a := range agents {
			check(a, "after the tick", tick)
		}
	}
}
