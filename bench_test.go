package arbor_test

import (
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

type countMem struct{ n int }

// runFor is an action that runs for N ticks, then succeeds.
type runFor struct {
	N int `arbor:"n"`
}

func (r *runFor) Tick(_ *arbor.Ctx, m *countMem) (arbor.Status, error) {
	if m.n < r.N {
		m.n++
		return arbor.Running, nil
	}
	return arbor.Success, nil
}

func benchGuardTree(b testing.TB) *arbor.Tree {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[runFor, countMem](reg, "RunFor"); err != nil {
		b.Fatal(err)
	}
	if err := reg.ActionFunc("Attack", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }); err != nil {
		b.Fatal(err)
	}
	root := arbor.ReactiveSelector(
		arbor.ReactiveSequence(arbor.Check("hp", "<", 30), arbor.Leaf("RunFor", "n", 3)),
		arbor.ReactiveSequence(arbor.Check("enemyVisible", "==", true), arbor.Check("enemyDist", "<", 5), arbor.Leaf("Attack")),
		arbor.ReactiveSequence(arbor.Check("enemyVisible", "==", true), arbor.Leaf("RunFor", "n", 2)),
		arbor.Sequence(arbor.Leaf("RunFor", "n", 4), arbor.WaitTicks(2), arbor.Leaf("RunFor", "n", 4), arbor.WaitTicks(2)),
	)
	t, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"guard": root}}, reg)
	if err != nil {
		b.Fatal(err)
	}
	return t
}

var (
	hpKey      = arbor.NewKey[float64]("hp")
	visibleKey = arbor.NewKey[bool]("enemyVisible")
	distKey    = arbor.NewKey[float64]("enemyDist")
)

// BenchmarkGuardTick measures one agent tick of the 16-node guard tree,
// including the three blackboard writes of the workload's driver.
func BenchmarkGuardTick(b *testing.B) {
	t := benchGuardTree(b)
	a := arbor.NewAgent(t)
	bb := a.Blackboard()
	x := uint64(1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		hpKey.Set(bb, float64(10+x%100))
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		visibleKey.Set(bb, x%4 == 0)
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		distKey.Set(bb, float64(x%10))
		a.Tick(time.Duration(i) * time.Millisecond)
	}
}

// BenchmarkNodes measures one tick of small trees, one per node type (ns
// per tick of the whole tree; the root is the node under test).
func BenchmarkNodes(b *testing.B) {
	reg := arbor.NewRegistry()
	if err := reg.ActionFunc("Act", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }); err != nil {
		b.Fatal(err)
	}
	if err := reg.ActionFunc("Run", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Running, nil }); err != nil {
		b.Fatal(err)
	}
	four := func() []*arbor.Node {
		return []*arbor.Node{arbor.AlwaysFailure(), arbor.AlwaysFailure(), arbor.AlwaysFailure(), arbor.Leaf("Run")}
	}
	cases := []struct {
		name string
		root *arbor.Node
	}{
		{"Sequence", arbor.Sequence(arbor.AlwaysSuccess(), arbor.AlwaysSuccess(), arbor.AlwaysSuccess(), arbor.Leaf("Run"))},
		{"Selector", arbor.Selector(four()...)},
		{"ReactiveSelector", arbor.ReactiveSelector(four()...)},
		{"ReactiveSequence", arbor.ReactiveSequence(arbor.AlwaysSuccess(), arbor.AlwaysSuccess(), arbor.AlwaysSuccess(), arbor.Leaf("Run"))},
		{"Parallel", arbor.Parallel(-1, 0, arbor.Leaf("Run"), arbor.Leaf("Run"), arbor.Leaf("Run"), arbor.Leaf("Run"))},
		{"ParallelAll", arbor.ParallelAll(1, arbor.Leaf("Run"), arbor.Leaf("Run"), arbor.Leaf("Run"), arbor.Leaf("Run"))},
		// The random composites draw an order in every tick here (each
		// tick is a whole activation).
		{"RandomSelector", arbor.RandomSelector(arbor.AlwaysFailure(), arbor.AlwaysFailure(), arbor.AlwaysFailure(), arbor.Leaf("Act"))},
		{"RandomSequence", arbor.RandomSequence(arbor.AlwaysSuccess(), arbor.AlwaysSuccess(), arbor.AlwaysSuccess(), arbor.Leaf("Act"))},
		{"RandomWeighted", arbor.RandomSequence(arbor.AlwaysSuccess(), arbor.AlwaysSuccess(), arbor.AlwaysSuccess(), arbor.Leaf("Act")).
			With("weights", []any{4, 2, 1, 0.5})},
		// The branching composites: IfThenElse ticks its running branch
		// only, WhileDoElse its condition then its branch, Switch reads
		// its key and compares it with its cases (the third matches).
		{"IfThenElse", arbor.IfThenElse(arbor.Check("hp", ">", 0), arbor.Leaf("Run"), arbor.Leaf("Act"))},
		{"WhileDoElse", arbor.WhileDoElse(arbor.Check("hp", ">", 0), arbor.Leaf("Run"), arbor.Leaf("Act"))},
		{"Switch", arbor.Switch("mode", []any{"flee", "fight", "idle"}, arbor.Leaf("Act"), arbor.Leaf("Act"), arbor.Leaf("Run"), arbor.Leaf("Act"))},
		{"Inverter", arbor.Inverter(arbor.Leaf("Act"))},
		{"Repeat", arbor.Repeat(0, arbor.Leaf("Act"))},
		{"Timeout", arbor.Timeout(time.Hour, arbor.Leaf("Run"))},
		{"Cooldown", arbor.Cooldown(0, arbor.Leaf("Act"))},
		{"WaitTicks", arbor.Repeat(0, arbor.WaitTicks(3))},
		{"CheckNumber", arbor.Check("hp", "<", 30)},
		{"CheckString", arbor.Check("mode", "==", "idle")},
		{"Set", arbor.Set("mode", "idle")},
		{"Guard", arbor.Leaf("Run").WithGuard(arbor.Check("hp", ">", 0))},
		{"ActionFunc", arbor.Leaf("Act")},
		{"AbortSelf", arbor.Sequence(arbor.Check("hp", ">", 0), arbor.Leaf("Run")).WithAbort(arbor.AbortSelf)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			a := arbor.NewAgent(mustCompile(b, reg, c.root))
			a.Blackboard().Set("hp", 50)
			a.Blackboard().Set("mode", "idle")
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				a.Tick(time.Duration(i) * time.Millisecond)
			}
		})
	}
}
