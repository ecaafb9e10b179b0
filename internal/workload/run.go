package workload

import (
	"runtime"
	"sync"
	"time"

	"github.com/arborbt/arbor"
)

// Run is the outcome of one timed run.
type Run struct {
	Elapsed time.Duration
	Allocs  uint64 // heap allocations during the ticks
	Attacks int64
}

// Arbor holds the agents of one Arbor run.
type Arbor struct {
	Manager *arbor.Manager
	NPCs    []*NPC
}

// NewArbor creates a manager with n agents of tree.
func NewArbor(tree *arbor.Tree, n, workers int) *Arbor {
	w := &Arbor{Manager: arbor.NewManager(arbor.WithWorkers(workers)), NPCs: make([]*NPC, n)}
	for i := 0; i < n; i++ {
		w.NPCs[i] = Seed(i)
		w.Manager.Add(tree, arbor.WithOwner(w.NPCs[i]))
	}
	return w
}

// Tick runs ticks rounds: before each agent's tick its inputs are drawn
// and written to its blackboard (on the worker that ticks it).
func (w *Arbor) Tick(from, ticks int, tickLen time.Duration) {
	for t := from; t < from+ticks; t++ {
		w.Manager.TickWith(time.Duration(t)*tickLen, Sense)
	}
}

// Attacks sums the agents' attacks.
func (w *Arbor) Attacks() int64 {
	var sum int64
	for _, n := range w.NPCs {
		sum += n.Attacks
	}
	return sum
}

// MeasureArbor times ticks rounds of a fresh set of n agents after warm ticks.
func MeasureArbor(tree *arbor.Tree, n, ticks, workers int) Run {
	w := NewArbor(tree, n, workers)
	defer w.Manager.Close()
	return measure(func() { w.Tick(1, ticks, 50*time.Millisecond) }, w.Attacks)
}

// Hands is the hand-written equivalent of a set of agents.
type Hands struct {
	agents  []Hand
	workers int
}

// NewHands creates n hand-written agents of a workload.
func NewHands(name string, n, workers int) (*Hands, error) {
	copies, err := Copies(name)
	if err != nil {
		return nil, err
	}
	h := &Hands{agents: make([]Hand, n), workers: workers}
	for i := range h.agents {
		h.agents[i] = NewHand(i, copies)
	}
	return h, nil
}

// Tick runs ticks rounds, sharded over the workers like the manager.
func (h *Hands) Tick(ticks int) {
	for t := 0; t < ticks; t++ {
		if h.workers <= 1 {
			for i := range h.agents {
				h.agents[i].Tick()
			}
			continue
		}
		var wg sync.WaitGroup
		per := (len(h.agents) + h.workers - 1) / h.workers
		for lo := 0; lo < len(h.agents); lo += per {
			part := h.agents[lo:min(lo+per, len(h.agents))]
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range part {
					part[i].Tick()
				}
			}()
		}
		wg.Wait()
	}
}

// Attacks sums the agents' attacks.
func (h *Hands) Attacks() int64 {
	var sum int64
	for i := range h.agents {
		sum += h.agents[i].Attacks
	}
	return sum
}

// MeasureHands times ticks rounds of n fresh hand-written agents.
func MeasureHands(name string, n, ticks, workers int) (Run, error) {
	h, err := NewHands(name, n, workers)
	if err != nil {
		return Run{}, err
	}
	return measure(func() { h.Tick(ticks) }, h.Attacks), nil
}

func measure(run func(), attacks func() int64) Run {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	run()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	return Run{Elapsed: elapsed, Allocs: after.Mallocs - before.Mallocs, Attacks: attacks()}
}

// BytesPerAgent measures the live heap an agent costs: the heap after
// creating n agents and ticking each once, minus the heap before, both
// after a GC, divided by n.
func BytesPerAgent(tree *arbor.Tree, n int) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	w := NewArbor(tree, n, 1)
	w.Tick(1, 1, 50*time.Millisecond)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(w)
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}
