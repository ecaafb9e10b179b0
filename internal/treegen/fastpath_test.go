package treegen

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// fpAgent is one of the agents of a differential run, with what it
// recorded during the current tick.
type fpAgent struct {
	name   string
	a      *arbor.Agent
	calls  *CallLog       // the mocks' callbacks (the agent's owner)
	errs   []string       // node errors: path, type, error and time
	events []arbor.Event  // node events, when traced
	tracer arbor.Tracer   // its tracer (nil for the plain agent)
	toggle *rand.Rand     // switches the tracer on and off between ticks
	traced bool           // traced during the current tick
	m      *arbor.Manager // ticks the agent (its only one), when set
}

func newFPAgent(tree *arbor.Tree, name string, id int) *fpAgent {
	f := &fpAgent{name: name, calls: &CallLog{}}
	f.a = arbor.NewAgent(tree, arbor.WithID(id), arbor.WithOwner(f.calls), arbor.WithGlobals(arbor.NewGlobals()),
		arbor.WithErrorHandler(f.record))
	return f
}

func (f *fpAgent) record(e *arbor.NodeError) {
	f.errs = append(f.errs, fmt.Sprintf("%s (%s) at %v: %v", e.Path, e.Type, e.Time, e.Err))
}

// newManagedAgent adds an agent of tree to m, ticked by m: it must get id
// (m numbers its agents), and m must have no other agent and an empty
// global scope.
func newManagedAgent(m *arbor.Manager, tree *arbor.Tree, name string, id int) *fpAgent {
	f := &fpAgent{name: name, calls: &CallLog{}, m: m}
	f.a = m.Add(tree, arbor.WithOwner(f.calls), arbor.WithErrorHandler(f.record))
	if f.a.ID() != id || m.Len() != 1 {
		panic(fmt.Sprintf("managed agent: id %d and %d agents, want id %d alone", f.a.ID(), m.Len(), id))
	}
	return f
}

// tick ticks the agent at now, through its manager when it has one.
func (f *fpAgent) tick(now time.Duration) arbor.Status {
	if f.m == nil {
		return f.a.Tick(now)
	}
	f.m.Tick(now)
	return f.a.Status()
}

// fpState is what is compared between the agents after a tick.
type fpState struct {
	op       Op
	status   arbor.Status
	paused   bool
	running  []bool
	entries  []arbor.Entry // the blackboard, both scopes
	errs     []string
	calls    []Call
	snapshot []byte
	snapErr  string
}

func (f *fpAgent) state(op Op, s arbor.Status) fpState {
	st := fpState{op: op, status: s, paused: f.a.Paused(), errs: f.errs, calls: f.calls.Calls}
	n := f.a.Tree().Len()
	st.running = make([]bool, n)
	for i := range n {
		st.running[i] = f.a.Running(i)
	}
	st.entries = f.a.Blackboard().Entries()
	for i := range st.entries {
		if !st.entries[i].HasTTL {
			// Without a TTL the expiry means nothing; Entries gives what
			// the slot holds, which differs between global writes made
			// at once and those a Manager applies after its tick.
			st.entries[i].Expires = 0
		}
	}
	var err error
	if st.snapshot, err = f.a.Snapshot(); err != nil {
		st.snapErr = err.Error()
	}
	return st
}

// sameEntry reports whether two blackboard entries are the same: key,
// expiry, kind and value (numbers bit for bit: NaN equals NaN, -0 differs
// from 0).
func sameEntry(x, y arbor.Entry) bool {
	if x.Key != y.Key || x.HasTTL != y.HasTTL || x.Expires != y.Expires || x.Value.Kind() != y.Value.Kind() {
		return false
	}
	if f, ok := x.Value.Number(); ok {
		g, _ := y.Value.Number()
		return math.Float64bits(f) == math.Float64bits(g)
	}
	return x.Value.Equal(y.Value)
}

// entriesString writes blackboard entries with their kinds and expiry.
func entriesString(es []arbor.Entry) string {
	var b strings.Builder
	for _, e := range es {
		fmt.Fprintf(&b, "%s=%v(%s)", e.Key, e.Value, e.Value.Kind())
		if e.HasTTL {
			fmt.Fprintf(&b, " until %v", e.Expires)
		}
		b.WriteString("; ")
	}
	return b.String()
}

// diff describes the first difference of got from want (the plain agent's
// state), or returns "".
func (want fpState) diff(tree *arbor.Tree, got fpState) string {
	switch {
	case want.op != got.op:
		return fmt.Sprintf("agent operation %s, want %s", got.op, want.op)
	case want.status != got.status:
		return fmt.Sprintf("root status %s, want %s", got.status, want.status)
	case want.paused != got.paused:
		return fmt.Sprintf("paused %v, want %v", got.paused, want.paused)
	}
	for i := range want.running {
		if want.running[i] != got.running[i] {
			return fmt.Sprintf("node %d (%s) running %v, want %v", i, tree.Node(i).Path, got.running[i], want.running[i])
		}
	}
	if !slices.EqualFunc(want.entries, got.entries, sameEntry) {
		return fmt.Sprintf("blackboard\n    %s\n  want\n    %s", entriesString(got.entries), entriesString(want.entries))
	}
	if !slices.Equal(want.errs, got.errs) {
		return fmt.Sprintf("node errors\n    %q\n  want\n    %q", got.errs, want.errs)
	}
	if !slices.Equal(want.calls, got.calls) {
		for i := 0; ; i++ {
			if i >= len(want.calls) || i >= len(got.calls) || want.calls[i] != got.calls[i] {
				return fmt.Sprintf("mock callbacks differ at #%d:\n    %v\n  want\n    %v", i, got.calls[i:], want.calls[i:])
			}
		}
	}
	if want.snapErr != got.snapErr {
		return fmt.Sprintf("snapshot error %q, want %q", got.snapErr, want.snapErr)
	}
	if !bytes.Equal(want.snapshot, got.snapshot) {
		// Node memory words, observers or kept results: the state the
		// other comparisons do not show.
		i := 0
		for i < len(want.snapshot) && i < len(got.snapshot) && want.snapshot[i] == got.snapshot[i] {
			i++
		}
		return fmt.Sprintf("snapshots (%d and %d bytes) differ from byte %d: node memory, observers or kept results", len(got.snapshot), len(want.snapshot), i)
	}
	return ""
}

// describeEvents lists node events with the nodes' paths.
func describeEvents(tree *arbor.Tree, events []arbor.Event) string {
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "\n    %s %s", e.Kind, tree.Node(int(e.Node)).Path)
		if e.Kind == arbor.EventResult {
			fmt.Fprintf(&b, " %s", e.Status)
		}
	}
	return b.String()
}

// TestFastPathsMatchFullPath is a differential test of the engine's fast
// paths, which it takes only when the agent has no tracer: plain Checks
// evaluated without bookkeeping, idle sequences and selectors decided from
// their leading Checks without being ticked, a run of siblings that begin
// with the same leading Checks decided in one step from the first one's,
// plain user nodes ticked inline. With a tracer every node goes through
// the full tick. Both must behave exactly alike.
//
// For each seed a random tree (Config.LeadChecks: many leading fast
// Checks, and runs of siblings sharing them whose branches may write the
// shared keys, against keys the Driver — half its writes numbers
// (Driver.Numeric) — makes missing, expiring (exactly at a tick's time for
// odd seeds: Driver.ExactTTL) and of the wrong kind, which the full path
// may report as an error) runs on three agents
// with the same inputs (Driver writes, agent operations, times): one
// without a tracer, one with a tracer that only records events, and one
// whose tracer is switched on and off at random between ticks (the two
// paths must also take over each other's state). After every tick the
// traced agents are compared with the plain one: the agent operation, the
// root status, paused, Running of every node, the blackboard entries of
// both scopes (key, kind, value bit for bit, expiry), the node errors
// reported to the error handler (path, type, time, message, in order), the
// callbacks of the mock nodes in order (CallLog: node, callback, tick
// count, result, error) and last the agents' snapshots byte for byte (node
// memory, observers, kept results). A failure names the seed, the tick,
// the agent and the first difference, with the events of the traced
// agent's tick and the document.
//
// A fourth agent, untraced, is ticked by a Manager (one worker): there
// the plain user nodes that the root's walk ticks have no panic barrier
// of their own, the manager's tick has one for all its agents, which
// resumes the agent's tick after the node that panicked (tickAgents).
func TestFastPathsMatchFullPath(t *testing.T) {
	first, seeds, ticks := 0, 3000, 40
	if raceEnabled {
		seeds, ticks = 400, 40
	}
	if v := os.Getenv("ARBOR_FASTPATH_SEEDS"); v != "" {
		// A longer campaign, e.g. ARBOR_FASTPATH_SEEDS=3000:100000.
		if _, err := fmt.Sscanf(v, "%d:%d", &first, &seeds); err != nil {
			t.Fatalf("ARBOR_FASTPATH_SEEDS=%q: want FIRST:COUNT", v)
		}
	}
	// Key ids are global to the process. Interned first, the global keys
	// get ids within the range of the agent-scope slots of the trees, so
	// that a global key mistaken for an agent-scope one reads a real slot.
	for _, k := range GlobalKeys {
		arbor.NewKey[arbor.Value](k)
	}
	cfg := DefaultConfig()
	cfg.LeadChecks = true
	reg := Registry()
	var events, errs, calls, running, withRuns int
	// The manager numbers its agents from 0: the managed agent of each
	// seed gets the seed as its id, as the others (the random composites
	// draw from it).
	m := arbor.NewManager(arbor.WithWorkers(1))
	if first > 0 {
		empty, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"m": arbor.AlwaysSuccess()}}, reg)
		if err != nil {
			t.Fatal(err)
		}
		for range first {
			m.Remove(m.Add(empty))
		}
	}
	var managed *fpAgent
	for seed := uint64(first); seed < uint64(first+seeds); seed++ {
		doc := Generate(seed, cfg)
		for _, root := range doc.Trees {
			if hasRun(root) {
				withRuns++
				break
			}
		}
		tree, err := arbor.Compile(doc, reg)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, dumpDoc(doc))
		}
		id := int(seed)
		plain := newFPAgent(tree, "plain", id)
		traced := newFPAgent(tree, "traced", id)
		traced.tracer = func(_ *arbor.Agent, e arbor.Event) {
			events++
			traced.events = append(traced.events, e)
		}
		traced.a.SetTracer(traced.tracer)
		mixed := newFPAgent(tree, "toggled", id)
		mixed.tracer = func(_ *arbor.Agent, e arbor.Event) { mixed.events = append(mixed.events, e) }
		mixed.toggle = rand.New(rand.NewPCG(seed, 0x746f67))
		if managed != nil {
			m.Remove(managed.a)
			// The manager's global scope empty for the next seed, the
			// slots' expiry times too (Entries reports them also without
			// a TTL).
			for _, k := range GlobalKeys {
				m.Globals().SetTTL(k, true, 0, 0)
				m.Globals().Set(k, nil)
			}
		}
		managed = newManagedAgent(m, tree, "managed", id)
		agents := []*fpAgent{plain, traced, mixed, managed}

		// Odd seeds: entries expire exactly at the time of a tick.
		d := &Driver{Seed: seed, Globals: true, Ops: true, ExactTTL: seed%2 == 1, Numeric: true}
		for tick := 1; tick <= ticks; tick++ {
			states := make([]fpState, len(agents))
			for k, f := range agents {
				f.errs, f.events, f.calls.Calls = nil, f.events[:0], nil
				if f.toggle != nil {
					if f.toggle.IntN(2) == 0 {
						f.a.SetTracer(f.tracer)
					} else {
						f.a.SetTracer(nil)
					}
				}
				f.traced = f.a.Tracer() != nil
				op := d.Op(f.a.ID(), tick, f.a.Paused())
				Do(f.a, op)
				d.Apply(f.a.Blackboard(), f.a.ID(), tick)
				s := f.tick(d.Now(tick))
				states[k] = f.state(op, s)
			}
			for k, f := range agents[1:] {
				if msg := states[0].diff(tree, states[k+1]); msg != "" {
					t.Fatalf("seed %d, tick %d: agent %s (traced this tick: %v) differs from the untraced agent: %s\n  events of the traced agent this tick:%s\n%s",
						seed, tick, f.name, f.traced, msg, describeEvents(tree, traced.events), dumpDoc(doc))
				}
			}
			errs += len(states[0].errs)
			calls += len(states[0].calls)
			for _, r := range states[0].running {
				if r {
					running++
				}
			}
		}
	}
	t.Logf("%d seeds × %d ticks: %d documents with sibling runs, %d traced events, %d node errors, %d mock callbacks, %d running node-ticks",
		seeds, ticks, withRuns, events, errs, calls, running)
	if errs == 0 || calls == 0 || running == 0 || withRuns < seeds/4 {
		t.Fatal("weak run: few sibling runs, or no node error, mock callback or running node")
	}
}

// hasRun reports whether a definition holds two consecutive siblings
// whose first children are the same Check.
func hasRun(n *arbor.Node) bool {
	first := func(c *arbor.Node) string {
		if len(c.Children) == 0 || c.Children[0].Type != "Check" {
			return ""
		}
		var b strings.Builder
		dump(&b, c.Children[0])
		return b.String()
	}
	for i, c := range n.Children {
		if i > 0 && first(c) != "" && first(c) == first(n.Children[i-1]) {
			return true
		}
		if hasRun(c) {
			return true
		}
	}
	return false
}

// Config.LeadChecks keeps Generate deterministic (a seed reported by
// TestFastPathsMatchFullPath reproduces its document), and gives
// documents other than the default configuration's.
func TestLeadChecksGenerateIsDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	lead := cfg
	lead.LeadChecks = true
	differ := 0
	for seed := uint64(0); seed < 200; seed++ {
		a, b := dumpDoc(Generate(seed, lead)), dumpDoc(Generate(seed, lead))
		if a != b {
			t.Fatalf("seed %d: two documents differ:\n%s\n%s", seed, a, b)
		}
		if a != dumpDoc(Generate(seed, cfg)) {
			differ++
		}
	}
	if differ < 150 {
		t.Fatalf("LeadChecks changes only %d of 200 documents", differ)
	}
}
