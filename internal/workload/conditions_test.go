package workload

import (
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// The guard tree with program conditions: its Checks of the blackboard
// replaced by registered Go conditions that read the inputs from the
// agent's owner, where the driver writes them, as game code often does
// ("IsEnemyVisible", "HasAmmo"). The workloads themselves (issue 3) keep
// their Checks; this variant measures the engine's cost of user
// conditions.

// condNPC is the owner of an agent of the conditions variant: the NPC and
// the inputs of its next tick.
type condNPC struct {
	NPC
	hp, dist float64
	visible  bool
}

// senseOwner draws the NPC's inputs as Sense does and writes them to the
// owner's fields.
func senseOwner(a *arbor.Agent) {
	n := a.Owner().(*condNPC)
	n.hp = float64(10 + n.next()%100)
	n.visible = n.next()%4 == 0
	n.dist = float64(n.next() % 10)
}

// lowHealth holds when the NPC's health is below Below.
type lowHealth struct {
	Below float64 `arbor:"below,required"`
}

// Check implements arbor.Condition.
func (l *lowHealth) Check(c *arbor.Ctx) (bool, error) {
	return arbor.Owner[*condNPC](c).hp < l.Below, nil
}

// condTree compiles the guard tree with conditions: one registered with
// RegisterCondition (parameters), one with ConditionFunc, one with
// RegisterConditionFactory.
func condTree() (*arbor.Tree, error) {
	reg := arbor.NewRegistry()
	if err := Register(reg); err != nil {
		return nil, err
	}
	if err := arbor.RegisterCondition[lowHealth](reg, "LowHealth"); err != nil {
		return nil, err
	}
	if err := reg.ConditionFunc("EnemyVisible", func(c *arbor.Ctx) (bool, error) {
		return arbor.Owner[*condNPC](c).visible, nil
	}); err != nil {
		return nil, err
	}
	if err := arbor.RegisterConditionFactory(reg, "EnemyNear", nil, func(map[string]any) (arbor.Condition, error) {
		return enemyNear{}, nil
	}); err != nil {
		return nil, err
	}
	if err := reg.ActionFunc("Strike", func(c *arbor.Ctx) (arbor.Status, error) {
		arbor.Owner[*condNPC](c).Attacks++
		return arbor.Success, nil
	}); err != nil {
		return nil, err
	}
	root := arbor.ReactiveSelector(
		arbor.ReactiveSequence(arbor.Leaf("LowHealth", "below", 30), arbor.Leaf("Flee")),
		arbor.ReactiveSequence(arbor.Leaf("EnemyVisible"), arbor.Leaf("EnemyNear"), arbor.Leaf("Strike")),
		arbor.ReactiveSequence(arbor.Leaf("EnemyVisible"), arbor.Leaf("Chase")),
		arbor.Sequence(arbor.Leaf("MoveTo", "target", "A"), arbor.WaitTicks(2), arbor.Leaf("MoveTo", "target", "B"), arbor.WaitTicks(2)))
	return arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"guard": root}}, reg)
}

// enemyNear holds when the enemy is closer than 5.
type enemyNear struct{}

// Check implements arbor.Condition.
func (enemyNear) Check(c *arbor.Ctx) (bool, error) { return arbor.Owner[*condNPC](c).dist < 5, nil }

// condAgents is a manager with n agents of the conditions variant.
func condAgents(tb testing.TB, n, workers int) (*arbor.Manager, []*condNPC) {
	tree, err := condTree()
	if err != nil {
		tb.Fatal(err)
	}
	m := arbor.NewManager(arbor.WithWorkers(workers))
	npcs := make([]*condNPC, n)
	for i := range npcs {
		npcs[i] = &condNPC{NPC: *Seed(i)}
		m.Add(tree, arbor.WithOwner(npcs[i]))
	}
	return m, npcs
}

// The conditions variant makes the hand-written guard's decisions.
func TestConditionsMatchHandWritten(t *testing.T) {
	const n, ticks = 300, 400
	m, npcs := condAgents(t, n, 2)
	defer m.Close()
	for tk := 1; tk <= ticks; tk++ {
		m.TickWith(time.Duration(tk)*50*time.Millisecond, senseOwner)
	}
	h, err := NewHands(Guard, n, 1)
	if err != nil {
		t.Fatal(err)
	}
	h.Tick(ticks)
	for i := range npcs {
		if npcs[i].Attacks != h.agents[i].Attacks {
			t.Fatalf("agent %d: arbor attacked %d times, hand-written %d", i, npcs[i].Attacks, h.agents[i].Attacks)
		}
	}
}

// BenchmarkGuardConditions is guard with program conditions (see above):
// each op is one round of 10,000 agents.
func BenchmarkGuardConditions(b *testing.B) {
	const n = 10_000
	m, _ := condAgents(b, n, 1)
	defer m.Close()
	tick := func(from, ticks int) {
		for t := from; t < from+ticks; t++ {
			m.TickWith(time.Duration(t)*50*time.Millisecond, senseOwner)
		}
	}
	tick(1, 10)
	b.ReportAllocs()
	b.ResetTimer()
	tick(11, b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/agent-tick")
}

// BenchmarkGuardConditionsAgentTick is BenchmarkGuardConditions with each
// agent ticked alone (Agent.Tick: user nodes ticked within their own
// panic barrier, userTick), 10,000 agents a round.
func BenchmarkGuardConditionsAgentTick(b *testing.B) {
	const n = 10_000
	tree, err := condTree()
	if err != nil {
		b.Fatal(err)
	}
	agents := make([]*arbor.Agent, n)
	for i := range agents {
		agents[i] = arbor.NewAgent(tree, arbor.WithOwner(&condNPC{NPC: *Seed(i)}))
	}
	tick := func(from, ticks int) {
		for t := from; t < from+ticks; t++ {
			for _, a := range agents {
				senseOwner(a)
				a.Tick(time.Duration(t) * 50 * time.Millisecond)
			}
		}
	}
	tick(1, 10)
	b.ReportAllocs()
	b.ResetTimer()
	tick(11, b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/agent-tick")
}
