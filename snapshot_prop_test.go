package arbor_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/internal/treegen"
)

func init() {
	arbor.RegisterCodec("treegen.Vec", encodeVec, decodeVec)
}

func encodeVec(v treegen.Vec) ([]byte, error) {
	b := binary.LittleEndian.AppendUint64(nil, math.Float64bits(v.X))
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Y)), nil
}

func decodeVec(b []byte) (treegen.Vec, error) {
	if len(b) != 16 {
		return treegen.Vec{}, fmt.Errorf("a Vec is 16 bytes, got %d", len(b))
	}
	return treegen.Vec{X: math.Float64frombits(binary.LittleEndian.Uint64(b)),
		Y: math.Float64frombits(binary.LittleEndian.Uint64(b[8:]))}, nil
}

// propRecorder collects an agent's node events and node errors.
type propRecorder struct {
	events []arbor.Event
	errs   []string
}

func (r *propRecorder) trace(_ *arbor.Agent, e arbor.Event) { r.events = append(r.events, e) }
func (r *propRecorder) onError(e *arbor.NodeError)          { r.errs = append(r.errs, e.Error()) }

// options returns the agent options that record into r.
func (r *propRecorder) options() []arbor.AgentOption {
	return []arbor.AgentOption{arbor.WithTracer(r.trace), arbor.WithErrorHandler(r.onError)}
}

// tickRecord is what one tick of one agent did: the agent operation before
// it, the root's result, every node event (the operation's included) and
// every node error.
type tickRecord struct {
	op     treegen.Op
	status arbor.Status
	events []arbor.Event
	errs   []string
}

func (r tickRecord) equal(o tickRecord) bool {
	return r.op == o.op && r.status == o.status && slices.Equal(r.events, o.events) && slices.Equal(r.errs, o.errs)
}

func (r tickRecord) String() string {
	return fmt.Sprintf("op %s, status %s, events %v, errors %q", r.op, r.status, r.events, r.errs)
}

// driveAgent runs ticks from..to of a standalone agent recording into rec
// (which must be the agent's recorder).
func driveAgent(a *arbor.Agent, d *treegen.Driver, rec *propRecorder, from, to int) []tickRecord {
	var out []tickRecord
	for tick := from; tick <= to; tick++ {
		rec.events, rec.errs = nil, nil
		op := d.Op(a.ID(), tick, a.Paused())
		treegen.Do(a, op)
		d.Apply(a.Blackboard(), a.ID(), tick)
		s := a.Tick(d.Now(tick))
		out = append(out, tickRecord{op: op, status: s, events: rec.events, errs: rec.errs})
	}
	return out
}

// diffRecords describes the first difference of two runs, or "".
func diffRecords(tree *arbor.Tree, want, got []tickRecord, first int) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d ticks recorded, want %d", len(got), len(want))
	}
	for i := range want {
		if !want[i].equal(got[i]) {
			return fmt.Sprintf("tick %d:\n  uninterrupted: %v\n  restored:      %v\n%s", first+i, want[i], got[i], describeEvents(tree, want[i].events, got[i].events))
		}
	}
	return ""
}

// describeEvents names the nodes of the first differing event.
func describeEvents(tree *arbor.Tree, want, got []arbor.Event) string {
	for i := 0; i < len(want) || i < len(got); i++ {
		var w, g string
		if i < len(want) {
			w = fmt.Sprintf("%s %s %s", want[i].Kind, tree.Node(int(want[i].Node)).Path, want[i].Status)
		}
		if i < len(got) {
			g = fmt.Sprintf("%s %s %s", got[i].Kind, tree.Node(int(got[i].Node)).Path, got[i].Status)
		}
		if w != g {
			return fmt.Sprintf("  first differing event #%d: uninterrupted %q, restored %q", i, w, g)
		}
	}
	return ""
}

// localEntries lists an agent's agent-scope blackboard entries.
func localEntries(bb *arbor.Blackboard) string {
	var b strings.Builder
	for _, e := range bb.Entries() {
		if !strings.HasPrefix(e.Key, "@") {
			fmt.Fprintf(&b, "%s=%s(%s)", e.Key, e.Value, e.Value.Kind())
			if e.HasTTL {
				fmt.Fprintf(&b, " until %v", e.Expires)
			}
			b.WriteString("; ")
		}
	}
	return b.String()
}

func propDriver(seed uint64) *treegen.Driver {
	return &treegen.Driver{Seed: seed, Globals: true, UserValues: true, Ops: true}
}

// For random trees and inputs: snapshot at random ticks, restore into a
// fresh agent and continue gives exactly the statuses, node events and
// node errors of a run that never stopped, and the same blackboard. Each
// run is interrupted at one to three random ticks (0: before the first),
// each time continuing on a new agent restored from the last one's
// snapshot; a restored agent's own snapshot is the snapshot it was
// restored from. (Agent snapshots hold the agent scope: the interrupted run
// keeps its global scope in one Globals shared by its agents.)
func TestSnapshotRestoreProperty(t *testing.T) {
	const seeds, ticks = 2000, 40
	cfg := treegen.DefaultConfig()
	reg := treegen.Registry()
	withRunning, withObservers := 0, 0
	for seed := uint64(0); seed < seeds; seed++ {
		tree, err := arbor.Compile(treegen.Generate(seed, cfg), reg)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		d := propDriver(seed)
		r := rand.New(rand.NewPCG(seed, 1))
		stops := []int{r.IntN(ticks)}
		for i := r.IntN(3); i > 0; i-- {
			stops = append(stops, r.IntN(ticks))
		}
		slices.Sort(stops)

		refRec := &propRecorder{}
		ref := arbor.NewAgent(tree, append(refRec.options(), arbor.WithID(int(seed)))...)
		want := driveAgent(ref, d, refRec, 1, ticks)

		globals := arbor.NewGlobals()
		rec := &propRecorder{}
		cur := arbor.NewAgent(tree, append(rec.options(), arbor.WithID(int(seed)), arbor.WithGlobals(globals))...)
		var got []tickRecord
		done := 0
		for _, k := range stops {
			got = append(got, driveAgent(cur, d, rec, done+1, k)...)
			done = k
			data, err := cur.Snapshot()
			if err != nil {
				t.Fatalf("seed %d: snapshot after tick %d: %v", seed, k, err)
			}
			for i := 0; i < tree.Len(); i++ {
				if cur.Running(i) {
					withRunning++
					break
				}
			}
			if observersInFlight(want, k) {
				withObservers++
			}
			next := &propRecorder{}
			c := arbor.NewAgent(tree, append(next.options(), arbor.WithID(int(seed)), arbor.WithGlobals(globals))...)
			if err := c.Restore(data); err != nil {
				t.Fatalf("seed %d: restore after tick %d: %v", seed, k, err)
			}
			if again, err := c.Snapshot(); err != nil || !bytes.Equal(again, data) {
				t.Fatalf("seed %d: the restored agent's snapshot differs from the one it was restored from (err %v)", seed, err)
			}
			if c.Status() != cur.Status() || c.Paused() != cur.Paused() || c.Now() != cur.Now() {
				t.Fatalf("seed %d: restored status %v paused %v now %v, want %v %v %v", seed, c.Status(), c.Paused(), c.Now(), cur.Status(), cur.Paused(), cur.Now())
			}
			if x, y := localEntries(c.Blackboard()), localEntries(cur.Blackboard()); x != y {
				t.Fatalf("seed %d: restored blackboard\n  %s\nwant\n  %s", seed, x, y)
			}
			for i := 0; i < tree.Len(); i++ {
				if c.Running(i) != cur.Running(i) {
					t.Fatalf("seed %d: node %d running %v after restore, want %v", seed, i, c.Running(i), cur.Running(i))
				}
			}
			cur, rec = c, next
		}
		got = append(got, driveAgent(cur, d, rec, done+1, ticks)...)
		if msg := diffRecords(tree, want, got, 1); msg != "" {
			t.Fatalf("seed %d, snapshots after ticks %v: %s", seed, stops, msg)
		}
		if x, y := localEntries(cur.Blackboard()), localEntries(ref.Blackboard()); x != y {
			t.Fatalf("seed %d: final blackboard\n  %s\nwant\n  %s", seed, x, y)
		}
	}
	// The property means little if snapshots seldom hold running nodes or
	// come before aborts.
	t.Logf("%d seeds: %d snapshots with running nodes, %d followed by an abort within 5 ticks", seeds, withRunning, withObservers)
	if withRunning < seeds/2 || withObservers < seeds/50 {
		t.Fatalf("weak coverage: %d snapshots with running nodes, %d followed by an abort", withRunning, withObservers)
	}
}

// observersInFlight reports whether an abort fires within 5 ticks after
// tick k of a run.
func observersInFlight(run []tickRecord, k int) bool {
	for i := k; i < len(run) && i < k+5; i++ {
		for _, e := range run[i].events {
			if e.Kind == arbor.EventAbort {
				return true
			}
		}
	}
	return false
}

// Restoring a snapshot into an agent of another tree definition is an
// error; with KeepBlackboard the agent gets the snapshot's blackboard and
// starts its own tree afresh: it then runs exactly like a fresh agent of
// that tree given the same blackboard.
func TestRestoreKeepBlackboardProperty(t *testing.T) {
	const seeds, ticks = 200, 25
	cfg := treegen.DefaultConfig()
	reg := treegen.Registry()
	for seed := uint64(0); seed < seeds; seed++ {
		treeX, err := arbor.Compile(treegen.Generate(seed, cfg), reg)
		if err != nil {
			t.Fatal(err)
		}
		treeY, err := arbor.Compile(treegen.Generate(seed+100_000, cfg), reg)
		if err != nil {
			t.Fatal(err)
		}
		if treeX.Fingerprint() == treeY.Fingerprint() {
			continue // the same definition by chance
		}
		// Without expiring writes: the reference agent's clock is 0 before
		// its first tick, the restored one's that of the snapshot.
		d := propDriver(seed)
		d.NoTTL = true
		k := 1 + rand.New(rand.NewPCG(seed, 2)).IntN(ticks)
		bRec := &propRecorder{}
		b := arbor.NewAgent(treeX, bRec.options()...)
		driveAgent(b, d, bRec, 1, k)
		data, err := b.Snapshot()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		strict := arbor.NewAgent(treeY)
		if err := strict.Restore(data); !errors.Is(err, arbor.ErrTreeMismatch) {
			t.Fatalf("seed %d: restoring into another tree: err %v, want ErrTreeMismatch", seed, err)
		}

		cRec := &propRecorder{}
		c := arbor.NewAgent(treeY, cRec.options()...)
		if err := c.Restore(data, arbor.KeepBlackboard()); err != nil {
			t.Fatalf("seed %d: restore with KeepBlackboard: %v", seed, err)
		}
		if x, y := localEntries(c.Blackboard()), localEntries(b.Blackboard()); x != y {
			t.Fatalf("seed %d: kept blackboard\n  %s\nwant\n  %s", seed, x, y)
		}
		if c.Status() != arbor.Invalid || c.Paused() {
			t.Fatalf("seed %d: after restoring into another tree: status %v, paused %v; want a fresh tree", seed, c.Status(), c.Paused())
		}
		for i := 0; i < treeY.Len(); i++ {
			if c.Running(i) {
				t.Fatalf("seed %d: node %d running after restoring into another tree", seed, i)
			}
		}
		// The reference: a fresh agent of Y given B's agent-scope blackboard.
		refRec := &propRecorder{}
		ref := arbor.NewAgent(treeY, refRec.options()...)
		for _, e := range b.Blackboard().Entries() {
			if strings.HasPrefix(e.Key, "@") {
				continue
			}
			if e.HasTTL {
				ref.Blackboard().SetTTL(e.Key, e.Value.Interface(), e.Expires) // expires at e.Expires: ref's clock is 0
			} else {
				ref.Blackboard().Set(e.Key, e.Value.Interface())
			}
		}
		want := driveAgent(ref, d, refRec, k+1, ticks)
		got := driveAgent(c, d, cRec, k+1, ticks)
		if msg := diffRecords(treeY, want, got, k+1); msg != "" {
			t.Fatalf("seed %d, snapshot after tick %d, restored into another tree: %s", seed, k, msg)
		}
	}
}

// managerRun is a manager of many agents over a few random trees, ticked
// with the driver's inputs, recording every agent's ticks.
type managerRun struct {
	m     *arbor.Manager
	d     *treegen.Driver
	recs  []*propRecorder // per agent id
	ticks [][]tickRecord  // per agent id
	ops   []treegen.Op    // per agent id, the current tick's operation
}

func newManagerRun(d *treegen.Driver, agents int) *managerRun {
	return &managerRun{m: arbor.NewManager(arbor.WithWorkers(2)), d: d,
		recs: make([]*propRecorder, agents), ticks: make([][]tickRecord, agents), ops: make([]treegen.Op, agents)}
}

// options records into the agent's recorder, found by id when the event
// comes (Manager.Restore gives every agent the same options).
func (r *managerRun) options() []arbor.AgentOption {
	for i := range r.recs {
		r.recs[i] = &propRecorder{}
	}
	return []arbor.AgentOption{
		arbor.WithTracer(func(a *arbor.Agent, e arbor.Event) { r.recs[a.ID()].trace(a, e) }),
		arbor.WithErrorHandler(func(e *arbor.NodeError) { r.recs[e.Agent.ID()].onError(e) }),
	}
}

func (r *managerRun) run(from, to int) {
	for tick := from; tick <= to; tick++ {
		for _, a := range r.m.Agents() {
			rec := r.recs[a.ID()]
			rec.events, rec.errs = nil, nil
			r.ops[a.ID()] = r.d.Op(a.ID(), tick, a.Paused())
			treegen.Do(a, r.ops[a.ID()])
		}
		r.m.TickWith(r.d.Now(tick), func(a *arbor.Agent) { r.d.Apply(a.Blackboard(), a.ID(), tick) })
		for _, a := range r.m.Agents() {
			id := a.ID()
			r.ticks[id] = append(r.ticks[id], tickRecord{op: r.ops[id], status: a.Status(), events: r.recs[id].events, errs: r.recs[id].errs})
		}
	}
}

// globals lists the manager's global entries.
func (r *managerRun) globals(now time.Duration) string {
	var b strings.Builder
	for _, k := range treegen.GlobalKeys {
		v, ok := r.m.Globals().Lookup(k, now)
		fmt.Fprintf(&b, "%s=%v/%v ", k, v, ok)
	}
	return b.String()
}

// The same for a manager of 10,000 agents (8 random trees) ticked by 2
// workers: the snapshot is streamed through a pipe into Manager.Restore of
// an empty manager, which continues exactly like the manager that never
// stopped — every agent's statuses, node events and node errors, and the
// global scope. The restored manager's snapshot is byte for byte the one
// it was restored from, and it gives new agents the next id.
func TestManagerSnapshotRestoreProperty(t *testing.T) {
	const agents, nTrees, ticks = 10_000, 8, 8
	for _, seed := range []uint64{1} {
		cfg := treegen.DefaultConfig()
		reg := treegen.Registry()
		trees := map[string]*arbor.Tree{}
		var list []*arbor.Tree
		for i := 0; i < nTrees; i++ {
			cfg.Name = fmt.Sprintf("tree%d", i)
			tree, err := arbor.Compile(treegen.Generate(seed*1000+uint64(i), cfg), reg)
			if err != nil {
				t.Fatal(err)
			}
			trees[tree.Name()] = tree
			list = append(list, tree)
		}
		d := propDriver(seed)
		k := 1 + rand.New(rand.NewPCG(seed, 3)).IntN(ticks-1) // 1..ticks-1

		ref := newManagerRun(d, agents)
		opts := ref.options()
		for i := 0; i < agents; i++ {
			ref.m.Add(list[i%nTrees], opts...)
		}
		ref.run(1, ticks)
		ref.m.Close()

		b := newManagerRun(d, agents)
		opts = b.options()
		for i := 0; i < agents; i++ {
			b.m.Add(list[i%nTrees], opts...)
		}
		b.run(1, k)
		b.m.Close()

		var sent bytes.Buffer
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(b.m.Snapshot(io.MultiWriter(pw, &sent))) }()
		c := newManagerRun(d, agents)
		if err := c.m.Restore(pr, trees, c.options()...); err != nil {
			t.Fatalf("seed %d: manager restore after tick %d: %v", seed, k, err)
		}
		pr.Close()
		if c.m.Len() != agents {
			t.Fatalf("seed %d: %d agents restored, want %d", seed, c.m.Len(), agents)
		}
		for i, a := range c.m.Agents() {
			if a.ID() != i || a.Tree() != list[i%nTrees] {
				t.Fatalf("seed %d: restored agent #%d has id %d and tree %q", seed, i, a.ID(), a.Tree().Name())
			}
		}
		var again bytes.Buffer
		if err := c.m.Snapshot(&again); err != nil || !bytes.Equal(again.Bytes(), sent.Bytes()) {
			t.Fatalf("seed %d: the restored manager's snapshot (%d bytes, err %v) differs from the one it was restored from (%d bytes)", seed, again.Len(), err, sent.Len())
		}
		if x, y := c.globals(d.Now(k)), b.globals(d.Now(k)); x != y {
			t.Fatalf("seed %d: restored globals %s, want %s", seed, x, y)
		}
		c.run(k+1, ticks)
		c.m.Close()
		for id := 0; id < agents; id++ {
			if msg := diffRecords(list[id%nTrees], ref.ticks[id][k:], c.ticks[id], k+1); msg != "" {
				t.Fatalf("seed %d, agent %d (%s), snapshot after tick %d: %s", seed, id, list[id%nTrees].Name(), k, msg)
			}
		}
		if x, y := c.globals(d.Now(ticks)), ref.globals(d.Now(ticks)); x != y {
			t.Fatalf("seed %d: final globals %s, want %s", seed, x, y)
		}
		if x, y := c.m.Add(list[0]).ID(), ref.m.Add(list[0]).ID(); x != y {
			t.Fatalf("seed %d: the restored manager gives a new agent id %d, the uninterrupted one %d", seed, x, y)
		}
	}
}
