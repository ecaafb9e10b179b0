package debug

import (
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/arborbt/arbor/internal/workload"
)

// BenchmarkGuardTick measures one tick of 10,000 agents of the guard
// workload (arbor bench's standard tree and sensing): ticking the manager
// directly, through a debugger session nobody watches, and through a
// session with one agent watched (its events, blackboard and statistics
// recorded). One op is one tick of all agents.
func BenchmarkGuardTick(b *testing.B) {
	tree, err := workload.LoadTree(filepath.Join("..", "testdata", "bench"), workload.Guard)
	if err != nil {
		b.Fatal(err)
	}
	const agents = 10000
	modes := []struct {
		name    string
		session bool
		watch   bool
	}{
		{"manager", false, false},
		{"session-unwatched", true, false},
		{"session-one-watched", true, true},
	}
	for _, mode := range modes {
		b.Run(mode.name, func(b *testing.B) {
			w := workload.NewArbor(tree, agents, runtime.GOMAXPROCS(0))
			defer w.Manager.Close()
			s := NewSession(w.Manager, Options{})
			if mode.watch {
				stop, err := s.Watch(agents / 2)
				if err != nil {
					b.Fatal(err)
				}
				defer stop()
			}
			tick := func(i int) {
				now := time.Duration(i) * 50 * time.Millisecond
				if mode.session {
					s.TickWith(now, workload.Sense)
				} else {
					w.Manager.TickWith(now, workload.Sense)
				}
			}
			for i := 1; i <= 20; i++ { // warm up
				tick(i)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tick(21 + i)
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/agents, "ns/agent-tick")
		})
	}
}

// BenchmarkSummary measures the per-tree status counts a live view sends
// (up to MaxRate times a second per viewer, under the session's lock) over
// 200,000 agents: counted afresh (after a tick or a change), and cached
// (every other request until then).
func BenchmarkSummary(b *testing.B) {
	tree, err := workload.LoadTree(filepath.Join("..", "testdata", "bench"), workload.Guard)
	if err != nil {
		b.Fatal(err)
	}
	w := workload.NewArbor(tree, 200_000, 1)
	defer w.Manager.Close()
	s := NewSession(w.Manager, Options{})
	s.Tick(time.Millisecond)
	for _, fresh := range []bool{true, false} {
		name := "cached"
		if fresh {
			name = "counted"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				s.mu.Lock()
				if fresh {
					s.gen++
				}
				sum := s.summaryLocked()
				s.mu.Unlock()
				if sum.Agents != 200_000 {
					b.Fatal(sum.Agents)
				}
			}
		})
	}
}

// BenchmarkNodeHistory measures api/agents/{id}/nodes/{node}/history's
// work under the session's lock: one node's statuses over a full history
// (500 ticks) of an agent of the wide tree (216 nodes), every record
// (a page that opens the node) and the newest one (a page keeping up, up
// to MaxRate times a second).
func BenchmarkNodeHistory(b *testing.B) {
	tree, err := workload.LoadTree(filepath.Join("..", "testdata", "bench"), workload.Wide)
	if err != nil {
		b.Fatal(err)
	}
	w := workload.NewArbor(tree, 1, 1)
	defer w.Manager.Close()
	s := NewSession(w.Manager, Options{})
	stop, err := s.Watch(0)
	if err != nil {
		b.Fatal(err)
	}
	defer stop()
	for i := 1; i <= 600; i++ {
		s.TickWith(time.Duration(i)*50*time.Millisecond, workload.Sense)
	}
	wt := s.watches[0]
	events := 0
	for _, r := range wt.records() {
		events += len(r.Events)
	}
	for _, name := range []string{"all", "newest"} {
		b.Run(name, func(b *testing.B) {
			after := uint64(0)
			if name == "newest" {
				after = wt.seq - 1
			}
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				s.mu.Lock()
				_, st, _ := wt.nodeHistory(int32(i%len(wt.base)), after)
				s.mu.Unlock()
				if len(st) == 0 {
					b.Fatal("no statuses")
				}
			}
			b.ReportMetric(float64(events), "events")
		})
	}
}
