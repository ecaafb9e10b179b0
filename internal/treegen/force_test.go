package treegen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/arborbt/arbor"
)

// Random trees with forces set and lifted between ticks (Agent.Force):
// the event stream stays well formed (halts exactly once, no start of a
// running node), a forced node reports the forced status wherever it is
// ticked or evaluated, the agent's running states agree with the events,
// and an untraced agent (ticking through the internal tracer) makes the
// same decisions as the traced one. ARBOR_FORCE_SEEDS=FIRST:COUNT runs
// another range of seeds.
func TestForcedTreesStayWellFormed(t *testing.T) {
	first, seeds, ticks := 0, 3_000, 30
	if raceEnabled {
		seeds, ticks = 600, 12
	}
	if v := os.Getenv("ARBOR_FORCE_SEEDS"); v != "" {
		if _, err := fmt.Sscanf(v, "%d:%d", &first, &seeds); err != nil {
			t.Fatalf("ARBOR_FORCE_SEEDS=%q: want FIRST:COUNT", v)
		}
	}
	cfg := DefaultConfig()
	reg := Registry()
	forcedResults := 0
	for seed := uint64(first); seed < uint64(first+seeds); seed++ {
		doc := Generate(seed, cfg)
		tree, err := arbor.Compile(doc, reg)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		w := newWellFormed(tree.Len())
		forced := make([]arbor.Status, tree.Len())
		tracer := func(a *arbor.Agent, e arbor.Event) {
			w.event(a, e)
			f := forced[e.Node]
			if f != arbor.Invalid && (e.Kind == arbor.EventResult || e.Kind == arbor.EventEval) {
				forcedResults++
				if e.Status != f {
					w.fail("node %d forced to %v gave %v (%s)", e.Node, f, e.Status, e.Kind)
				}
			}
		}
		onError := func(e *arbor.NodeError) {
			if !Expected(e) {
				w.fail("unexpected node error: %v", e)
			}
		}
		traced := arbor.NewAgent(tree, arbor.WithTracer(tracer), arbor.WithErrorHandler(onError), arbor.WithID(int(seed)))
		plain := arbor.NewAgent(tree, arbor.WithErrorHandler(onError), arbor.WithID(int(seed)))
		d := &Driver{Seed: seed, Globals: true, UserValues: true, Ops: true}
		r := rand.New(rand.NewPCG(seed, 0x666f726365))
		for tick := 1; tick <= ticks && w.failure == ""; tick++ {
			for range r.IntN(3) {
				id := r.IntN(tree.Len())
				if forced[id] != arbor.Invalid && r.IntN(2) == 0 {
					if err := traced.Unforce(id); err != nil {
						w.fail("tick %d: unforce %d: %v", tick, id, err)
					}
					_ = plain.Unforce(id)
					forced[id] = arbor.Invalid
					continue
				}
				s := []arbor.Status{arbor.Success, arbor.Failure, arbor.Running}[r.IntN(3)]
				err := traced.Force(id, s)
				if perr := plain.Force(id, s); (perr == nil) != (err == nil) {
					w.fail("tick %d: force %d: %v vs %v", tick, id, err, perr)
				}
				if err == nil {
					forced[id] = s
				} else if s != arbor.Running {
					w.fail("tick %d: force %d to %v: %v", tick, id, s, err)
				}
			}
			for _, a := range []*arbor.Agent{traced, plain} {
				Do(a, d.Op(a.ID(), tick, a.Paused()))
				d.Apply(a.Blackboard(), a.ID(), tick)
			}
			st, sp := traced.Tick(d.Now(tick)), plain.Tick(d.Now(tick))
			if st != sp {
				w.fail("tick %d: traced %v, untraced %v", tick, st, sp)
			}
			w.agree(traced, tick)
			for i := range tree.Len() {
				if traced.Running(i) != plain.Running(i) {
					w.fail("tick %d: node %d running: traced %v, untraced %v", tick, i, traced.Running(i), plain.Running(i))
				}
			}
		}
		traced.Halt()
		w.halted(traced)
		if w.failure != "" {
			t.Fatalf("seed %d: %s\n%s", seed, w.failure, dumpDoc(doc))
		}
	}
	if forcedResults == 0 {
		t.Fatal("no forced node was ticked or evaluated")
	}
	t.Logf("%d seeds × %d ticks, %d forced results", seeds, ticks, forcedResults)
}
