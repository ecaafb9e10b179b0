package debug

import (
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/arborbt/arbor/internal/workload"
)

// BenchmarkOverhead measures the cost of the debugger on the guard
// workload (10,000 agents): the manager ticked directly, through a session
// nobody watches, and with one agent watched, interleaved in rounds of 25
// ticks (one round of each per op) so that the machine's noise hits all
// three alike. It reports the fastest and the median round of each, in ns
// per agent-tick; 40 rounds make the README's table:
//
//	go test -run XXX -bench Overhead -benchtime 40x ./debug
func BenchmarkOverhead(b *testing.B) {
	tree, err := workload.LoadTree(filepath.Join("..", "testdata", "bench"), workload.Guard)
	if err != nil {
		b.Fatal(err)
	}
	const agents = 10000
	type setup struct {
		metric string // the name of its figures
		tick   func(i int)
		res    []float64
	}
	mk := func(metric string, session, watch bool) *setup {
		w := workload.NewArbor(tree, agents, runtime.GOMAXPROCS(0))
		b.Cleanup(w.Manager.Close)
		s := NewSession(w.Manager, Options{})
		if watch {
			stop, err := s.Watch(agents / 2)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(stop)
		}
		return &setup{metric: metric, tick: func(i int) {
			now := time.Duration(i) * 50 * time.Millisecond
			if session {
				s.TickWith(now, workload.Sense)
			} else {
				w.Manager.TickWith(now, workload.Sense)
			}
		}}
	}
	ss := []*setup{mk("manager", false, false), mk("unwatched", true, false), mk("watched", true, true)}
	tick := 1
	b.ResetTimer()
	for round := 0; round < b.N; round++ {
		for _, s := range ss {
			start := time.Now()
			for k := 0; k < 25; k++ {
				s.tick(tick + k)
			}
			s.res = append(s.res, float64(time.Since(start).Nanoseconds())/25/agents)
		}
		tick += 25
	}
	b.StopTimer()
	for _, s := range ss {
		sort.Float64s(s.res)
		b.ReportMetric(s.res[0], s.metric+"-min-ns/agent-tick")
		b.ReportMetric(s.res[len(s.res)/2], s.metric+"-median-ns/agent-tick")
	}
}
