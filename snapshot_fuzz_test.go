package arbor_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/internal/treegen"
)

// fuzzTrees are the trees snapshots are restored into: random trees of
// the generator, and a second set under other names for the manager.
func fuzzTrees(tb testing.TB) []*arbor.Tree {
	tb.Helper()
	reg := treegen.Registry()
	var out []*arbor.Tree
	for i := 0; i < 6; i++ {
		cfg := treegen.DefaultConfig()
		cfg.Name = fmt.Sprintf("fz%d", i)
		if i%2 == 1 {
			cfg.MaxNodes = 12
		}
		tree, err := arbor.Compile(treegen.Generate(uint64(1000+i), cfg), reg)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, tree)
	}
	return out
}

// fuzzAgent returns an agent of tree whose node errors are ignored.
func fuzzAgent(tree *arbor.Tree) *arbor.Agent {
	return arbor.NewAgent(tree, arbor.WithErrorHandler(func(*arbor.NodeError) {}))
}

// fuzzSnapshots returns snapshots of agents of tree after 0, 3 and 12
// ticks of driver inputs.
func fuzzSnapshots(tb testing.TB, tree *arbor.Tree, seed uint64) [][]byte {
	a := fuzzAgent(tree)
	d := propDriver(seed)
	var out [][]byte
	done := 0
	for _, k := range []int{0, 3, 12} {
		for ; done < k; done++ {
			treegen.Do(a, d.Op(0, done+1, a.Paused()))
			d.Apply(a.Blackboard(), 0, done+1)
			a.Tick(d.Now(done + 1))
		}
		data, err := a.Snapshot()
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// tickFuzzed ticks a restored agent a few times, halts, resets and
// snapshots it; nothing of it may panic, and every tick of an agent that
// is not paused returns success, failure or running.
func tickFuzzed(t *testing.T, a *arbor.Agent, d *treegen.Driver, from int) {
	for tick := from; tick < from+4; tick++ {
		treegen.Do(a, d.Op(0, tick, a.Paused()))
		d.Apply(a.Blackboard(), 0, tick)
		if s := a.Tick(d.Now(tick)); !a.Paused() && (s < arbor.Success || s > arbor.Running) {
			t.Fatalf("a restored agent's tick returned status %d", s)
		}
	}
	_, _ = a.Snapshot()
	a.Halt()
	a.Reset()
	a.Tick(d.Now(from + 5))
}

// FuzzRestore feeds arbitrary bytes to Agent.Restore (with and without
// KeepBlackboard), into a fresh agent of one of a few random trees. Restore
// returns an error or succeeds, never panics; on error the agent is left as
// it was (still a fresh agent); on success the snapshot it writes right
// after the restore restores into another fresh agent, and it ticks (with
// valid statuses), halts, resets and snapshots without panicking.
func FuzzRestore(f *testing.F) {
	trees := fuzzTrees(f)
	fresh := make([][]byte, len(trees))
	for i, tree := range trees {
		var err error
		if fresh[i], err = fuzzAgent(tree).Snapshot(); err != nil {
			f.Fatal(err)
		}
		for _, data := range fuzzSnapshots(f, tree, uint64(i)) {
			f.Add(uint8(i), data, false)
			f.Add(uint8(i+1), data, true) // into another tree
		}
	}
	f.Add(uint8(0), []byte{}, false)
	f.Add(uint8(0), []byte("ARBA"), false)
	f.Add(uint8(0), []byte("ARBA\x01\xff\xff\xff\xff\x0f"), true)
	f.Add(uint8(0), []byte("ARBM\x01\x00\x00"), false)
	f.Fuzz(func(t *testing.T, which uint8, data []byte, keep bool) {
		i := int(which) % len(trees)
		tree := trees[i]
		a := fuzzAgent(tree)
		var opts []arbor.RestoreOption
		if keep {
			opts = append(opts, arbor.KeepBlackboard())
		}
		if err := a.Restore(data, opts...); err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			after, serr := a.Snapshot()
			if serr != nil || !bytes.Equal(after, fresh[i]) {
				t.Fatalf("a failed Restore (%v) changed the agent (snapshot error %v)", err, serr)
			}
			return
		}
		data2, err := a.Snapshot()
		if err != nil {
			t.Fatalf("Restore accepted the data, but the agent cannot be snapshotted: %v", err)
		}
		b := fuzzAgent(tree)
		if err := b.Restore(data2); err != nil {
			t.Fatalf("Restore accepted the data, but not the snapshot of the restored agent: %v", err)
		}
		tickFuzzed(t, a, propDriver(uint64(which)), 100)
	})
}

// FuzzManagerRestore feeds arbitrary bytes to Manager.Restore of an empty
// manager: an error or success, never a panic; a restored manager ticks and
// snapshots.
func FuzzManagerRestore(f *testing.F) {
	trees := fuzzTrees(f)
	byName := map[string]*arbor.Tree{}
	for _, t := range trees {
		byName[t.Name()] = t
	}
	for _, n := range []int{0, 1, 5} {
		m := arbor.NewManager(arbor.WithWorkers(1))
		for i := 0; i < n; i++ {
			m.Add(trees[i%len(trees)], arbor.WithErrorHandler(func(*arbor.NodeError) {}))
		}
		d := propDriver(uint64(n))
		for tick := 1; tick <= 3; tick++ {
			m.TickWith(d.Now(tick), func(a *arbor.Agent) { d.Apply(a.Blackboard(), a.ID(), tick) })
		}
		m.Globals().Set("@g", []any{1.0, "x"})
		var b bytes.Buffer
		if err := m.Snapshot(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Add([]byte("ARBM"))
	f.Add([]byte("ARBM\x01\x01\x02@g\x02\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := arbor.NewManager(arbor.WithWorkers(1))
		if err := m.Restore(bytes.NewReader(data), byName, arbor.WithErrorHandler(func(*arbor.NodeError) {})); err != nil {
			if m.Len() != 0 {
				t.Fatalf("a failed Restore (%v) left %d agents", err, m.Len())
			}
			return
		}
		d := propDriver(1)
		for tick := 1; tick <= 2; tick++ {
			m.TickWith(d.Now(tick), func(a *arbor.Agent) { d.Apply(a.Blackboard(), a.ID(), tick) })
		}
		var b bytes.Buffer
		_ = m.Snapshot(&b)
		m.Stop()
	})
}
