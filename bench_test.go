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
