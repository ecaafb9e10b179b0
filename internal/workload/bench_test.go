package workload

import (
	"testing"
	"time"
)

func benchArbor(b *testing.B, name string, workers int) {
	tree, err := LoadTree(benchDir, name)
	if err != nil {
		b.Fatal(err)
	}
	const n = 10_000
	w := NewArbor(tree, n, workers)
	defer w.Manager.Close()
	w.Tick(1, 10, 50*time.Millisecond)
	b.ReportAllocs()
	b.ResetTimer()
	w.Tick(11, b.N, 50*time.Millisecond)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/agent-tick")
}

func benchHands(b *testing.B, name string, workers int) {
	const n = 10_000
	h, err := NewHands(name, n, workers)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	h.Tick(b.N)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/agent-tick")
}

// Each op is one round: 10,000 agents ticked once.
func BenchmarkGuardArbor(b *testing.B)         { benchArbor(b, Guard, 1) }
func BenchmarkGuardArbor2Workers(b *testing.B) { benchArbor(b, Guard, 2) }
func BenchmarkGuardHand(b *testing.B)          { benchHands(b, Guard, 1) }
func BenchmarkWideArbor(b *testing.B)          { benchArbor(b, Wide, 1) }
func BenchmarkWideHand(b *testing.B)           { benchHands(b, Wide, 1) }
