package crashtest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/internal/treegen"
)

// The child process: when envChild names a file, the test binary ticks a
// world and snapshots it to that file until it is killed.
const (
	envChild     = "ARBOR_CRASHTEST_SNAPSHOT"
	envSeed      = "ARBOR_CRASHTEST_SEED"
	envFirstKeys = "ARBOR_CRASHTEST_FIRST_KEYS" // keys the child interns before anything else
	envNoKeys    = "ARBOR_CRASHTEST_NO_KEYS"    // the child snapshots an agent before any key exists
)

// tickKey is the global key that records, in each snapshot, the tick after
// which it was taken.
const tickKey = "@crashtest.tick"

const (
	initialAgents = 1500
	nTrees        = 4
	snapEvery     = 3    // a snapshot after every third tick
	childMaxTicks = 5000 // the child stops by itself after this many
	maxAgents     = initialAgents + childMaxTicks
)

func TestMain(m *testing.M) {
	if os.Getenv(envNoKeys) != "" {
		if err := snapshotWithoutKeys(); err != nil {
			fmt.Fprintln(os.Stderr, "crashtest child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if path := os.Getenv(envChild); path != "" {
		seed, err := strconv.ParseUint(os.Getenv(envSeed), 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, "crashtest child:", err)
			os.Exit(2)
		}
		// A program's key table depends on what it did first; a restarted
		// process may intern keys in another order than the one that
		// wrote the snapshot.
		for _, k := range strings.Fields(os.Getenv(envFirstKeys)) {
			arbor.NewKey[float64](k)
		}
		internKeys()
		if err := child(path, seed); err != nil {
			fmt.Fprintln(os.Stderr, "crashtest child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	internKeys()
	os.Exit(m.Run())
}

// internKeys interns the keys of the generated trees and of the driver in
// a fixed order, first thing in both processes, so that TestCrashRecovery
// runs the parent and the child with the same key table whatever the
// order in which they compile their trees. TestCrashRecoveryAcrossKeyTables
// makes the child intern other keys before these.
func internKeys() {
	for _, list := range [][]string{treegen.Keys, treegen.GlobalKeys, treegen.ResultKeys, {tickKey}} {
		for _, k := range list {
			arbor.NewKey[float64](k)
		}
	}
}

func init() {
	arbor.RegisterCodec("treegen.Vec", func(v treegen.Vec) ([]byte, error) {
		b := binary.LittleEndian.AppendUint64(nil, math.Float64bits(v.X))
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Y)), nil
	}, func(b []byte) (treegen.Vec, error) {
		if len(b) != 16 {
			return treegen.Vec{}, fmt.Errorf("a Vec is 16 bytes, got %d", len(b))
		}
		return treegen.Vec{X: math.Float64frombits(binary.LittleEndian.Uint64(b)),
			Y: math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))}, nil
	})
}

// snapshotWithoutKeys snapshots and restores an agent of a tree that
// mentions no blackboard key, in a process that has not made any.
func snapshotWithoutKeys() error {
	reg := arbor.NewRegistry()
	if err := reg.ActionFunc("Walk", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Running, nil }); err != nil {
		return err
	}
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"walker": arbor.Sequence(arbor.WaitTicks(1), arbor.Leaf("Walk"))}}, reg)
	if err != nil {
		return err
	}
	a := arbor.NewAgent(tree)
	a.Tick(time.Second)
	data, err := a.Snapshot()
	if err != nil {
		return err
	}
	return arbor.NewAgent(tree).Restore(data)
}

// A program whose trees and code use no blackboard key at all can
// snapshot and restore its agents (checked in a child process, the only
// place where no key has been made).
func TestSnapshotWithoutKeys(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), envNoKeys+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child failed (%v):\n%s", err, firstLines(string(out), 12))
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// recorder keeps what each agent did on the current tick.
type recorder struct {
	events []arbor.Event
	errs   []string
}

// world is a manager of agents over a few random trees that changes
// deterministically: agents come and go, and are ticked with the driver's
// inputs and operations. The child and the test build the same world from
// the same seed.
type world struct {
	seed   uint64
	trees  []*arbor.Tree
	byName map[string]*arbor.Tree
	d      *treegen.Driver
	m      *arbor.Manager
	recs   []recorder // per agent id (record only when recording)
	record bool
}

func newTrees(seed uint64) ([]*arbor.Tree, map[string]*arbor.Tree, error) {
	reg := treegen.Registry()
	var list []*arbor.Tree
	byName := map[string]*arbor.Tree{}
	for i := 0; i < nTrees; i++ {
		cfg := treegen.DefaultConfig()
		cfg.Name = fmt.Sprintf("crash%d", i)
		t, err := arbor.Compile(treegen.Generate(seed*100+uint64(i), cfg), reg)
		if err != nil {
			return nil, nil, err
		}
		list = append(list, t)
		byName[t.Name()] = t
	}
	return list, byName, nil
}

// newWorld makes the world of seed with its initial agents; with fresh
// false the manager is left empty (to be restored).
func newWorld(seed uint64, fresh, record bool) (*world, error) {
	trees, byName, err := newTrees(seed)
	if err != nil {
		return nil, err
	}
	w := &world{seed: seed, trees: trees, byName: byName, record: record,
		d: &treegen.Driver{Seed: seed, Globals: true, UserValues: true, Ops: true},
		m: arbor.NewManager(arbor.WithWorkers(2))}
	if record {
		w.recs = make([]recorder, maxAgents)
	}
	if fresh {
		for i := 0; i < initialAgents; i++ {
			w.m.Add(trees[i%nTrees], w.options()...)
		}
	}
	return w, nil
}

func (w *world) options() []arbor.AgentOption {
	if !w.record {
		return []arbor.AgentOption{arbor.WithErrorHandler(func(*arbor.NodeError) {})}
	}
	return []arbor.AgentOption{
		arbor.WithTracer(func(a *arbor.Agent, e arbor.Event) { r := &w.recs[a.ID()]; r.events = append(r.events, e) }),
		arbor.WithErrorHandler(func(e *arbor.NodeError) { r := &w.recs[e.Agent.ID()]; r.errs = append(r.errs, e.Error()) }),
	}
}

// step runs tick t: agents leave and join (never the newest one leaves,
// so the next id is that of the newest plus one), the driver's operations
// and inputs, the tick, and on snapshot ticks the tick number in tickKey.
func (w *world) step(t int) {
	r := rand.New(rand.NewPCG(w.seed, uint64(t)))
	agents := w.m.Agents()
	if t%3 == 0 && len(agents) > 1 {
		w.m.Remove(agents[r.IntN(len(agents)-1)])
	}
	if t%2 == 0 {
		w.m.Add(w.trees[r.IntN(nTrees)], w.options()...)
	}
	for _, a := range w.m.Agents() {
		if w.record {
			w.recs[a.ID()] = recorder{}
		}
		treegen.Do(a, w.d.Op(a.ID(), t, a.Paused()))
	}
	w.m.TickWith(w.d.Now(t), func(a *arbor.Agent) { w.d.Apply(a.Blackboard(), a.ID(), t) })
	if t%snapEvery == 0 {
		w.m.Globals().Set(tickKey, float64(t))
	}
}

// child ticks the world of seed and, after every snapEvery-th tick, writes
// its snapshot to path atomically: a temporary file in the same directory,
// written, synced and closed, renamed over path, and the directory synced.
// It prints "snapshot T" once the file holds the snapshot after tick T.
func child(path string, seed uint64) error {
	w, err := newWorld(seed, true, false)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	out := bufio.NewWriter(os.Stdout)
	for t := 1; t <= childMaxTicks; t++ {
		w.step(t)
		if t%snapEvery != 0 {
			continue
		}
		tmp, err := os.CreateTemp(dir, ".snapshot-*.tmp")
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(tmp, 1<<16)
		err = w.m.Snapshot(bw)
		if err == nil {
			err = bw.Flush()
		}
		if err == nil {
			err = tmp.Sync()
		}
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if d, err := os.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
		fmt.Fprintf(out, "snapshot %d\n", t)
		out.Flush()
	}
	return nil
}

// restoreFile restores the snapshot file into an empty world and returns
// it with the tick the snapshot was taken after.
func restoreFile(seed uint64, path string, record bool) (*world, int, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, nil, err
	}
	w, err := newWorld(seed, false, record)
	if err != nil {
		return nil, 0, nil, err
	}
	if err := w.m.Restore(bytes.NewReader(data), w.byName, w.options()...); err != nil {
		return nil, 0, data, fmt.Errorf("restore %d bytes: %w", len(data), err)
	}
	v, ok := w.m.Globals().Lookup(tickKey, 0)
	f, isNum := v.Number()
	if !ok || !isNum || f < snapEvery || f != math.Trunc(f) || int(f)%snapEvery != 0 {
		return nil, 0, data, fmt.Errorf("restored snapshot: %s = %v (present %v)", tickKey, v, ok)
	}
	return w, int(f), data, nil
}

func (w *world) snapshot() ([]byte, error) {
	var b bytes.Buffer
	err := w.m.Snapshot(&b)
	return b.Bytes(), err
}

// ids lists the agents as "id:tree".
func (w *world) ids() []string {
	var out []string
	for _, a := range w.m.Agents() {
		out = append(out, fmt.Sprintf("%d:%s", a.ID(), a.Tree().Name()))
	}
	return out
}

// A child process ticks 1,500 agents (joining and leaving) on 2 workers
// and snapshots them to a file every third tick with an atomic rename; the
// test reads and restores the file while the child writes it, kills the
// child with SIGKILL at a random moment, and then restores the file:
//   - the file is always a whole snapshot (it restores; its tick is one the
//     child reached, no earlier than the last one the child reported);
//   - no agent is lost: the restored agents (ids and trees) are those of an
//     uninterrupted run of the same world at that tick, and the file is
//     byte for byte that run's snapshot;
//   - continuing the restored manager for 12 ticks (agents still joining
//     and leaving) gives every agent exactly the statuses, node events and
//     node errors of the uninterrupted run, and the same global scope.
func TestCrashRecovery(t *testing.T) {
	pick := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	for round := 0; round < 5; round++ {
		crashRound(t, round, pick, "")
	}
}

// The same when the child process has interned blackboard keys of its own
// before building its trees (as a program that was restarted may have
// done in another order): the snapshot, taken in one process, restores in
// another whose key ids differ.
func TestCrashRecoveryAcrossKeyTables(t *testing.T) {
	pick := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	crashRound(t, 0, pick, "crashtest.child.first crashtest.child.second")
}

// crashRound runs one child with seed round+1, kills it, restores and
// checks; see TestCrashRecovery.
func crashRound(t *testing.T, round int, pick *rand.Rand, firstKeys string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const cont = 12
	{
		seed := uint64(round + 1)
		dir := t.TempDir()
		path := filepath.Join(dir, "agents.snapshot")
		waitFor := 1 + pick.IntN(6)                                 // snapshots reported before the kill
		extra := time.Duration(pick.IntN(15000)) * time.Microsecond // then a random delay
		t.Logf("round %d: seed %d, kill after %d snapshots + %v", round, seed, waitFor, extra)

		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), envChild+"="+path, envSeed+"="+strconv.FormatUint(seed, 10), envFirstKeys+"="+firstKeys)
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stdout)
		reported := 0 // the last tick the child reported a snapshot of
		for reported < waitFor*snapEvery && lines.Scan() {
			f := strings.Fields(lines.Text())
			if len(f) != 2 || f[0] != "snapshot" {
				t.Fatalf("child printed %q", lines.Text())
			}
			if reported, err = strconv.Atoi(f[1]); err != nil {
				t.Fatal(err)
			}
			// Read the file while the child goes on writing it.
			if _, _, _, err := restoreFile(seed, path, false); err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("round %d: the snapshot file read during the run does not restore: %v", round, err)
			}
		}
		if reported < waitFor*snapEvery {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: the child stopped after tick %d: %v", round, reported, lines.Err())
		}
		time.Sleep(extra)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		if st, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !st.Signaled() || st.Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: the child was not killed by SIGKILL: %v", round, err)
		}

		got, k, data, err := restoreFile(seed, path, true)
		if err != nil {
			t.Fatalf("round %d: after the kill: %v", round, err)
		}
		if k < reported {
			t.Fatalf("round %d: the file holds the snapshot of tick %d, but the child had reported tick %d", round, k, reported)
		}
		t.Logf("round %d: restored %d agents at tick %d (%d bytes)", round, got.m.Len(), k, len(data))

		ref, err := newWorld(seed, true, true)
		if err != nil {
			t.Fatal(err)
		}
		for tick := 1; tick <= k; tick++ {
			ref.step(tick)
		}
		if x, y := got.ids(), ref.ids(); !slices.Equal(x, y) {
			t.Fatalf("round %d: restored %d agents, the uninterrupted run has %d at tick %d (first restored %v, expected %v)", round, len(x), len(y), k, x[:min(3, len(x))], y[:min(3, len(y))])
		}
		want, err := ref.snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(data, want) {
			t.Fatalf("round %d: the file (%d bytes) differs from the uninterrupted run's snapshot at tick %d (%d bytes)", round, len(data), k, len(want))
		}
		for tick := k + 1; tick <= k+cont; tick++ {
			ref.step(tick)
			got.step(tick)
			if x, y := got.ids(), ref.ids(); !slices.Equal(x, y) {
				t.Fatalf("round %d, tick %d: agents differ after restore: %d vs %d", round, tick, len(x), len(y))
			}
			for _, a := range ref.m.Agents() {
				b := got.m.Agent(a.ID())
				rw, rg := ref.recs[a.ID()], got.recs[a.ID()]
				if a.Status() != b.Status() || !slices.Equal(rw.events, rg.events) || !slices.Equal(rw.errs, rg.errs) {
					t.Fatalf("round %d, tick %d, agent %d (%s): restored: %v %v %q; uninterrupted: %v %v %q",
						round, tick, a.ID(), a.Tree().Name(), b.Status(), rg.events, rg.errs, a.Status(), rw.events, rw.errs)
				}
			}
		}
		now := got.d.Now(k + cont)
		if x, y := fmt.Sprint(got.m.Globals().Entries(now)), fmt.Sprint(ref.m.Globals().Entries(now)); x != y {
			t.Fatalf("round %d: global scope after the run\n  restored:      %s\n  uninterrupted: %s", round, x, y)
		}
		got.m.Close()
		ref.m.Close()
	}
}
