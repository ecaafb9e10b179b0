package workload

import (
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

func benchArbor(b *testing.B, name string, n, workers int) {
	tree, err := LoadTree(benchDir, name)
	if err != nil {
		b.Fatal(err)
	}
	benchTree(b, tree, n, workers)
}

// benchTree ticks n agents of tree, each sensing as the workloads do.
func benchTree(b *testing.B, tree *arbor.Tree, n, workers int) {
	w := NewArbor(tree, n, workers)
	defer w.Manager.Close()
	w.Tick(1, 10, 50*time.Millisecond)
	b.ReportAllocs()
	b.ResetTimer()
	w.Tick(11, b.N, 50*time.Millisecond)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/agent-tick")
}

func benchHands(b *testing.B, name string, n, workers int) {
	h, err := NewHands(name, n, workers)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	h.Tick(b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/agent-tick")
}

// Each op is one round: 10,000 agents ticked once (100,000 for the
// 100k variants, whose state does not fit in the caches).
func BenchmarkGuardArbor(b *testing.B)         { benchArbor(b, Guard, 10_000, 1) }
func BenchmarkGuardArbor2Workers(b *testing.B) { benchArbor(b, Guard, 10_000, 2) }
func BenchmarkGuardHand(b *testing.B)          { benchHands(b, Guard, 10_000, 1) }
func BenchmarkGuardArbor100k(b *testing.B)     { benchArbor(b, Guard, 100_000, 1) }
func BenchmarkGuardHand100k(b *testing.B)      { benchHands(b, Guard, 100_000, 1) }
func BenchmarkWideArbor(b *testing.B)          { benchArbor(b, Wide, 10_000, 1) }
func BenchmarkWideHand(b *testing.B)           { benchHands(b, Wide, 10_000, 1) }

// BenchmarkSense is the driver alone: the three draws written to each
// agent's blackboard through Key.Set, with no tick. It is part of every
// Arbor agent-tick of the workloads and a floor under their ratio (the
// hand-written agents keep their inputs in plain fields).
func BenchmarkSense(b *testing.B) {
	tree, err := LoadTree(benchDir, Guard)
	if err != nil {
		b.Fatal(err)
	}
	const n = 10_000
	w := NewArbor(tree, n, 1)
	defer w.Manager.Close()
	agents := w.Manager.Agents()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, a := range agents {
			Sense(a)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/agent-tick")
}

// BenchmarkChecksOnly is the driver and a tick of a tree of three plain
// Checks of the inputs: the engine's fixed cost per agent-tick.
func BenchmarkChecksOnly(b *testing.B) {
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"m": arbor.Sequence(
		arbor.Check("hp", "<", 30), arbor.Check("enemyVisible", "==", true), arbor.Check("enemyDist", "<", 5))}}, arbor.NewRegistry())
	if err != nil {
		b.Fatal(err)
	}
	benchTree(b, tree, 10_000, 1)
}
