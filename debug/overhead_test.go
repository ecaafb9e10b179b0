package debug

import (
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/arborbt/arbor/internal/workload"
)

// TestOverhead prints the cost of the debugger on the guard workload
// (10,000 agents): the manager ticked directly, through a session nobody
// watches, and with one agent watched, interleaved over 40 rounds of 25
// ticks so that the machine's noise hits all three alike. It takes a few
// seconds, so it runs only with ARBOR_OVERHEAD=1:
//
//	ARBOR_OVERHEAD=1 go test -run Overhead -v ./debug
func TestOverhead(t *testing.T) {
	if os.Getenv("ARBOR_OVERHEAD") == "" {
		t.Skip("set ARBOR_OVERHEAD=1 to measure")
	}
	tree, err := workload.LoadTree(filepath.Join("..", "testdata", "bench"), workload.Guard)
	if err != nil {
		t.Fatal(err)
	}
	const agents = 10000
	type setup struct {
		name string
		tick func(i int)
		res  []float64
	}
	mk := func(name string, session, watch bool) *setup {
		w := workload.NewArbor(tree, agents, runtime.GOMAXPROCS(0))
		t.Cleanup(w.Manager.Close)
		s := NewSession(w.Manager, Options{})
		if watch {
			stop, err := s.Watch(agents / 2)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(stop)
		}
		return &setup{name: name, tick: func(i int) {
			now := time.Duration(i) * 50 * time.Millisecond
			if session {
				s.TickWith(now, workload.Sense)
			} else {
				w.Manager.TickWith(now, workload.Sense)
			}
		}}
	}
	ss := []*setup{mk("manager", false, false), mk("session, nobody watching", true, false), mk("session, one agent watched", true, true)}
	tick := 1
	for round := 0; round < 40; round++ {
		for _, s := range ss {
			start := time.Now()
			for k := 0; k < 25; k++ {
				s.tick(tick + k)
			}
			s.res = append(s.res, float64(time.Since(start).Nanoseconds())/25/agents)
		}
		tick += 25
	}
	for _, s := range ss {
		sort.Float64s(s.res)
		t.Logf("%-28s min %.1f  median %.1f ns/agent-tick", s.name, s.res[0], s.res[len(s.res)/2])
	}
}
