package arbor_test

import (
	"bytes"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// rndHarness runs trees of the mock actions A…F: each returns the status
// res holds for it (default Success), and a tracer records the mocks'
// events as scenario traces do ("A:start", "A:success", "A:halt").
type rndHarness struct {
	reg *arbor.Registry
	res map[string]arbor.Status
	log []string
}

func newRndHarness(t testing.TB) *rndHarness {
	t.Helper()
	h := &rndHarness{reg: arbor.NewRegistry(), res: map[string]arbor.Status{}}
	for _, name := range []string{"A", "B", "C", "D", "E", "F"} {
		if err := h.reg.ActionFunc(name, func(*arbor.Ctx) (arbor.Status, error) {
			if s, ok := h.res[name]; ok {
				return s, nil
			}
			return arbor.Success, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// tracer records the events of the mock nodes.
func (h *rndHarness) tracer(a *arbor.Agent, e arbor.Event) {
	typ := a.Tree().Node(int(e.Node)).Type
	if len(typ) != 1 {
		return
	}
	switch e.Kind {
	case arbor.EventStart:
		h.log = append(h.log, typ+":start")
	case arbor.EventResult:
		h.log = append(h.log, typ+":"+e.Status.String())
	case arbor.EventHalt:
		h.log = append(h.log, typ+":halt")
	}
}

// take returns the events recorded since the last call.
func (h *rndHarness) take() string {
	s := strings.Join(h.log, " ")
	h.log = h.log[:0]
	return s
}

// ran lists the mocks that returned a result in the events, in order.
func ran(events string) string {
	var out []string
	for _, e := range strings.Fields(events) {
		if name, st, _ := strings.Cut(e, ":"); st != "start" && st != "halt" {
			out = append(out, name)
		}
	}
	return strings.Join(out, "")
}

func (h *rndHarness) agent(t testing.TB, root *arbor.Node, opts ...arbor.AgentOption) *arbor.Agent {
	t.Helper()
	return arbor.NewAgent(mustCompile(t, h.reg, root), append(opts, arbor.WithTracer(h.tracer))...)
}

func mocks(names string) []*arbor.Node {
	var out []*arbor.Node
	for _, r := range names {
		out = append(out, arbor.Leaf(string(r)))
	}
	return out
}

// TestRandomOrders pins the orders drawn, activation after activation,
// against values computed apart from the engine (a script written from
// doc.go's algorithm): a RandomSequence of children that succeed runs
// them all in the order drawn, one activation per tick.
func TestRandomOrders(t *testing.T) {
	cases := []struct {
		name    string
		kids    string
		seed    any // nil: none
		id      int
		weights any
		want    []string // one order per activation
	}{
		{"seed 7, four children", "ABCD", 7, 0, nil, []string{"BCDA", "ADBC", "CADB", "CABD", "ADBC", "BDCA"}},
		{"seed 7, three children", "ABC", 7, 0, nil, []string{"BCA", "BAC", "CAB", "CAB", "CBA", "ABC"}},
		{"seed -1", "ABCD", -1, 0, nil, []string{"ADCB", "BADC", "CDAB"}},
		{"agent id 0", "ABCD", nil, 0, nil, []string{"BACD", "BCAD", "ABCD", "BDCA"}},
		{"agent id 1", "ABCD", nil, 1, nil, []string{"CADB", "ACBD", "ABDC", "ACBD"}},
		{"agent id 2", "ABCD", nil, 2, nil, []string{"BDAC", "BCAD", "ABDC", "DABC"}},
		{"seed beats the id", "ABCD", 2, 1, nil, []string{"BDAC", "BCAD", "ABDC", "DABC"}},
		{"weights with zeros", "ABCDE", 1, 0, []any{5, 0, 2, 0, 1}, []string{"ACEBD", "EACBD", "ACEBD", "ACEBD"}},
		{"weights 3 1 0", "ABC", 42, 0, []any{3, 1, 0}, []string{"BAC", "ABC", "ABC", "ABC", "ABC", "ABC", "ABC", "BAC"}},
		{"equal weights draw as none", "ABCD", 7, 0, []float64{2.5, 2.5, 2.5, 2.5}, []string{"BCDA", "ADBC", "CADB", "CABD", "ADBC", "BDCA"}},
		{"one child", "A", 7, 0, nil, []string{"A", "A"}},
		{"one positive weight", "ABC", 7, 0, []int{0, 1, 0}, []string{"BAC", "BAC"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newRndHarness(t)
			n := arbor.RandomSequence(mocks(c.kids)...)
			if c.seed != nil {
				n.With("seed", c.seed)
			}
			if c.weights != nil {
				n.With("weights", c.weights)
			}
			a := h.agent(t, n, arbor.WithID(c.id))
			for k, want := range c.want {
				if s := a.Tick(time.Duration(k+1) * time.Millisecond); s != arbor.Success {
					t.Fatalf("activation %d: %v", k, s)
				}
				if got := ran(h.take()); got != want {
					t.Fatalf("activation %d: order %s, want %s", k, got, want)
				}
			}
		})
	}
}

// TestRandomSelectorSequence checks the Selector and Sequence behaviour
// over the order drawn (seed 7, four children: BCDA, then ADBC, CADB).
func TestRandomSelectorSequence(t *testing.T) {
	type step struct {
		res    map[string]arbor.Status // changes before the tick
		halt   bool                    // halt the agent instead of ticking
		status arbor.Status
		trace  string
	}
	S, F, R := arbor.Success, arbor.Failure, arbor.Running
	cases := []struct {
		name  string
		typ   string
		steps []step
	}{
		{"selector: first success wins", "RandomSelector", []step{
			{res: map[string]arbor.Status{"B": F, "C": S}, status: S, trace: "B:start B:failure C:start C:success"},
			{status: S, trace: "A:start A:success"},
		}},
		{"selector: all fail", "RandomSelector", []step{
			{res: map[string]arbor.Status{"A": F, "B": F, "C": F, "D": F}, status: F,
				trace: "B:start B:failure C:start C:failure D:start D:failure A:start A:failure"},
			{status: F, trace: "A:start A:failure D:start D:failure B:start B:failure C:start C:failure"},
		}},
		{"selector resumes at the running child, same order", "RandomSelector", []step{
			{res: map[string]arbor.Status{"B": F, "C": R}, status: R, trace: "B:start B:failure C:start C:running"},
			{status: R, trace: "C:running"},
			{res: map[string]arbor.Status{"C": F, "D": F, "A": R}, status: R, trace: "C:failure D:start D:failure A:start A:running"},
			{res: map[string]arbor.Status{"A": F}, status: F, trace: "A:failure"},
			// The next activation draws the next order: ADBC.
			{res: map[string]arbor.Status{"A": F, "D": S}, status: S, trace: "A:start A:failure D:start D:success"},
		}},
		{"sequence: first failure fails", "RandomSequence", []step{
			{res: map[string]arbor.Status{"D": F}, status: F, trace: "B:start B:success C:start C:success D:start D:failure"},
			{status: F, trace: "A:start A:success D:start D:failure"},
		}},
		{"sequence resumes at the running child", "RandomSequence", []step{
			{res: map[string]arbor.Status{"C": R}, status: R, trace: "B:start B:success C:start C:running"},
			{res: map[string]arbor.Status{"C": S}, status: S, trace: "C:success D:start D:success A:start A:success"},
			{status: S, trace: "A:start A:success D:start D:success B:start B:success C:start C:success"},
		}},
		{"halt ends the activation; the next one draws again", "RandomSequence", []step{
			{res: map[string]arbor.Status{"C": R}, status: R, trace: "B:start B:success C:start C:running"},
			{halt: true, trace: "C:halt"},
			{res: map[string]arbor.Status{"C": S}, status: S, trace: "A:start A:success D:start D:success B:start B:success C:start C:success"},
			{status: S, trace: "C:start C:success A:start A:success D:start D:success B:start B:success"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newRndHarness(t)
			a := h.agent(t, arbor.Branch(c.typ, mocks("ABCD")...).With("seed", 7))
			for k, st := range c.steps {
				for name, s := range st.res {
					h.res[name] = s
				}
				if st.halt {
					a.Halt()
				} else if s := a.Tick(time.Duration(k+1) * time.Millisecond); s != st.status {
					t.Fatalf("step %d: status %v, want %v (trace %s)", k, s, st.status, h.take())
				}
				if got := h.take(); got != st.trace {
					t.Fatalf("step %d: trace\n  %s\nwant\n  %s", k, got, st.trace)
				}
			}
		})
	}
}

// TestRandomWeightZero checks that children of weight 0 are never drawn:
// they come last, in child order, in every activation.
func TestRandomWeightZero(t *testing.T) {
	h := newRndHarness(t)
	for _, name := range []string{"A", "B", "C", "D", "E"} {
		h.res[name] = arbor.Failure
	}
	a := h.agent(t, arbor.RandomSelector(mocks("ABCDE")...).With("weights", []any{0, 1, 0, 2, 0}))
	seen := map[string]int{}
	for k := 0; k < 400; k++ {
		if s := a.Tick(time.Duration(k+1) * time.Millisecond); s != arbor.Failure {
			t.Fatal(s)
		}
		order := ran(h.take())
		if order != "BDACE" && order != "DBACE" {
			t.Fatalf("activation %d: order %s", k, order)
		}
		seen[order]++
	}
	// D weighs twice B: first in about 2/3 of the activations.
	if f := float64(seen["DBACE"]) / 400; f < 0.55 || f > 0.78 {
		t.Fatalf("D first in %.2f of the activations, want about 0.67 (%v)", f, seen)
	}
}

// TestRandomDistribution checks the shuffle's frequencies loosely: with
// weights 3, 1 (and a third child of weight 4) each child comes first in
// proportion to its weight.
func TestRandomDistribution(t *testing.T) {
	h := newRndHarness(t)
	a := h.agent(t, arbor.RandomSequence(mocks("ABC")...).With("weights", []any{3, 1, 4}))
	first := map[byte]int{}
	const n = 4000
	for k := 0; k < n; k++ {
		a.Tick(time.Duration(k+1) * time.Millisecond)
		first[ran(h.take())[0]]++
	}
	for c, w := range map[byte]float64{'A': 3, 'B': 1, 'C': 4} {
		if f := float64(first[c]) / n; math.Abs(f-w/8) > 0.03 {
			t.Errorf("%c first in %.3f of the activations, want %.3f", c, f, w/8)
		}
	}
}

// TestRandomLoadErrors checks the parameters and placement rules.
func TestRandomLoadErrors(t *testing.T) {
	kids := func() []*arbor.Node { return mocks("ABC") }
	cases := []struct {
		name string
		root *arbor.Node
		want string
	}{
		{"too few weights", arbor.RandomSelector(kids()...).With("weights", []any{1, 2}), `parameter "weights": 2 weights for 3 children`},
		{"too many weights", arbor.RandomSequence(kids()...).With("weights", []any{1, 2, 3, 4}), `parameter "weights": 4 weights for 3 children`},
		{"negative weight", arbor.RandomSelector(kids()...).With("weights", []any{1, -2, 3}), `weights[1] is -2`},
		{"NaN weight", arbor.RandomSelector(kids()...).With("weights", []float64{1, math.NaN(), 3}), `weights[1] is NaN`},
		{"infinite weight", arbor.RandomSelector(kids()...).With("weights", []float64{1, math.Inf(1), 3}), `weights[1] is +Inf`},
		{"all zero", arbor.RandomSequence(kids()...).With("weights", []any{0, 0, 0}), `every weight is 0`},
		{"not a list", arbor.RandomSelector(kids()...).With("weights", 3), `parameter "weights": want a list of numbers`},
		{"not numbers", arbor.RandomSelector(kids()...).With("weights", []any{1, "2", 3}), `parameter "weights": want a list of numbers`},
		{"null", arbor.RandomSelector(kids()...).With("weights", nil), `parameter "weights": want a list of numbers`},
		{"fractional seed", arbor.RandomSelector(kids()...).With("seed", 1.5), `parameter "seed": want an integer`},
		{"string seed", arbor.RandomSelector(kids()...).With("seed", "7"), `parameter "seed": want a number`},
		{"unknown parameter", arbor.RandomSelector(kids()...).With("weight", []any{1, 1, 1}), `unknown parameter "weight" (did you mean "weights"?)`},
		{"no children", arbor.RandomSelector(), `a composite needs at least one child`},
		{"abort", arbor.RandomSelector(kids()...).WithAbort(arbor.AbortLower), `abort "lower" is only allowed on Sequence, SequenceWithMemory and Selector`},
		{"abort none", mustParse(t, `{"type": "RandomSequence", "abort": "none", "children": [{"type": "A"}]}`), `abort "none" is only allowed`},
		{"in a guard", arbor.Leaf("A").WithGuard(arbor.RandomSelector(arbor.AlwaysSuccess())), `RandomSelector is not allowed in a guard`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newRndHarness(t)
			_, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": c.root}}, h.reg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
	// Good ones: any integer seed, fractional weights, a guard on them.
	h := newRndHarness(t)
	for _, n := range []*arbor.Node{
		arbor.RandomSelector(kids()...).With("seed", -1e15).With("weights", []any{0.25, 1e-300, 1e300}),
		arbor.RandomSequence(kids()...).With("seed", 0).WithGuard(arbor.Check("k", "exists")),
		arbor.Sequence(arbor.Check("k", "exists"), arbor.RandomSelector(kids()...)).WithAbort(arbor.AbortBoth),
	} {
		if _, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": n}}, h.reg); err != nil {
			t.Fatal(err)
		}
	}
}

func mustParse(t testing.TB, js string) *arbor.Node {
	t.Helper()
	doc, err := arbor.ParseJSON([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return doc.Trees[arbor.BareTreeName]
}

// rndTree is a tree with random composites at several depths, through a
// subtree, for the determinism tests: a RandomSelector of branches that
// run for a while (RandomSequences, Waits), none with a seed.
func rndTree(t testing.TB, h *rndHarness) *arbor.Tree {
	t.Helper()
	doc := &arbor.Document{Main: "main", Trees: map[string]*arbor.Node{
		"main": arbor.Repeat(0, arbor.RandomSelector(
			arbor.RandomSequence(arbor.Leaf("A"), arbor.WaitTicks(1), arbor.Leaf("B")),
			arbor.SubTree("sub"),
			arbor.RandomSequence(arbor.Leaf("C"), arbor.Leaf("D"), arbor.WaitTicks(2)).With("weights", []any{1, 0, 2}),
			arbor.Leaf("E"),
		).With("weights", []any{2, 1, 1, 0.5})),
		"sub": arbor.RandomSelector(arbor.Inverter(arbor.Leaf("F")), arbor.WaitTicks(1), arbor.Leaf("A")),
	}}
	tree, err := arbor.Compile(doc, h.reg)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestRandomManagerWorkers checks that a manager's agents draw the same
// whatever the number of workers, and that agents draw apart (their ids
// differ).
func TestRandomManagerWorkers(t *testing.T) {
	h := newRndHarness(t)
	tree := rndTree(t, h)
	const agents, ticks = 40, 60
	run := func(workers int) [][]string {
		m := arbor.NewManager(arbor.WithWorkers(workers))
		logs := make([][]string, agents)
		for i := 0; i < agents; i++ {
			i := i
			m.Add(tree, arbor.WithTracer(func(a *arbor.Agent, e arbor.Event) {
				if e.Kind == arbor.EventStart {
					logs[i] = append(logs[i], a.Tree().Node(int(e.Node)).Path)
				}
			}))
		}
		for k := 1; k <= ticks; k++ {
			m.Tick(time.Duration(k) * time.Millisecond)
		}
		return logs
	}
	one := run(1)
	for _, w := range []int{2, 8} {
		got := run(w)
		for i := range one {
			if !slices.Equal(one[i], got[i]) {
				t.Fatalf("%d workers: agent %d started other nodes than with 1 worker", w, i)
			}
		}
	}
	distinct := map[string]bool{}
	for _, l := range one {
		distinct[strings.Join(l, ",")] = true
	}
	if len(distinct) < agents/2 {
		t.Fatalf("only %d distinct runs among %d agents", len(distinct), agents)
	}
}

// TestRandomSnapshotRestore snapshots an agent in the middle of random
// activations, restores it into an agent with another id, and checks that
// both go on identically (same events, same snapshots); Manager snapshots
// too.
func TestRandomSnapshotRestore(t *testing.T) {
	h := newRndHarness(t)
	tree := rndTree(t, h)
	for _, at := range []int{0, 1, 2, 3, 5, 8, 13} {
		var logA, logB []string
		rec := func(l *[]string) arbor.AgentOption {
			return arbor.WithTracer(func(a *arbor.Agent, e arbor.Event) {
				*l = append(*l, fmt.Sprintf("%s:%v:%v", a.Tree().Node(int(e.Node)).Path, e.Kind, e.Status))
			})
		}
		a := arbor.NewAgent(tree, arbor.WithID(5), rec(&logA))
		for k := 1; k <= at; k++ {
			a.Tick(time.Duration(k) * time.Millisecond)
		}
		data, err := a.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		b := arbor.NewAgent(tree, arbor.WithID(99), rec(&logB))
		if err := b.Restore(data); err != nil {
			t.Fatal(err)
		}
		logA = logA[:0]
		for k := at + 1; k <= at+40; k++ {
			now := time.Duration(k) * time.Millisecond
			if sa, sb := a.Tick(now), b.Tick(now); sa != sb {
				t.Fatalf("restored after %d ticks: tick %d: %v, restored %v", at, k, sa, sb)
			}
		}
		if !slices.Equal(logA, logB) {
			t.Fatalf("restored after %d ticks: events differ\n  %v\n  %v", at, logA, logB)
		}
		sa, _ := a.Snapshot()
		sb, _ := b.Snapshot()
		if !bytes.Equal(sa, sb) {
			t.Fatalf("restored after %d ticks: snapshots differ at the end", at)
		}
	}

	// A manager's snapshot, restored into a manager of another worker
	// count.
	m := arbor.NewManager(arbor.WithWorkers(2))
	for i := 0; i < 6; i++ {
		m.Add(tree)
	}
	for k := 1; k <= 7; k++ {
		m.Tick(time.Duration(k) * time.Millisecond)
	}
	var buf bytes.Buffer
	if err := m.Snapshot(&buf); err != nil {
		t.Fatal(err)
	}
	r := arbor.NewManager(arbor.WithWorkers(1))
	if err := r.Restore(bytes.NewReader(buf.Bytes()), map[string]*arbor.Tree{"main": tree}); err != nil {
		t.Fatal(err)
	}
	for k := 8; k <= 30; k++ {
		m.Tick(time.Duration(k) * time.Millisecond)
		r.Tick(time.Duration(k) * time.Millisecond)
	}
	var x, y bytes.Buffer
	if err := m.Snapshot(&x); err != nil {
		t.Fatal(err)
	}
	if err := r.Snapshot(&y); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(x.Bytes(), y.Bytes()) {
		t.Fatal("the restored manager went another way")
	}
}

// TestRandomReset checks that Reset restarts the draws from the seed,
// while Halt keeps the generator going; and that SetTree and a manager's
// Add seed afresh.
func TestRandomReset(t *testing.T) {
	h := newRndHarness(t)
	root := func() *arbor.Node { return arbor.RandomSequence(mocks("ABCD")...).With("seed", 7) }
	a := h.agent(t, root())
	orders := func(n int) string {
		var out []string
		for k := 0; k < n; k++ {
			a.Tick(a.Now() + time.Millisecond)
			out = append(out, ran(h.take()))
		}
		return strings.Join(out, " ")
	}
	if got := orders(3); got != "BCDA ADBC CADB" {
		t.Fatal(got)
	}
	a.Reset()
	if got := orders(2); got != "BCDA ADBC" {
		t.Fatalf("after Reset: %s", got)
	}
	a.Halt() // nothing runs: no change
	if got := orders(1); got != "CADB" {
		t.Fatalf("after Halt: %s", got)
	}
	// Reset from inside the agent's tick takes effect after it: every
	// tick draws the first order again (the random node is node 2: CABD).
	h2 := newRndHarness(t)
	var ag *arbor.Agent
	if err := h2.reg.ActionFunc("Reset", func(*arbor.Ctx) (arbor.Status, error) { ag.Reset(); return arbor.Success, nil }); err != nil {
		t.Fatal(err)
	}
	ag = arbor.NewAgent(mustCompile(t, h2.reg, arbor.Sequence(arbor.Leaf("Reset"), arbor.RandomSequence(mocks("ABCD")...).With("seed", 7))),
		arbor.WithTracer(h2.tracer))
	for k := 1; k <= 3; k++ {
		ag.Tick(time.Duration(k) * time.Millisecond)
		if got := ran(h2.take()); got != "CABD" {
			t.Fatalf("tick %d with a reset in every tick: %s", k, got)
		}
	}
	// The random node is node 1 here: its seed mixes its id, so the same
	// seed gives another order than at the root.
	b := h.agent(t, arbor.Sequence(root()))
	b.Tick(time.Millisecond)
	if got := ran(h.take()); got != "DBAC" {
		t.Fatalf("node 1: %s", got)
	}
	// SetTree seeds afresh.
	if err := a.SetTree(mustCompile(t, h.reg, root())); err != nil {
		t.Fatal(err)
	}
	if got := orders(1); got != "BCDA" {
		t.Fatalf("after SetTree: %s", got)
	}
	// A manager's agents draw from their ids, not from the id options.
	m := arbor.NewManager(arbor.WithWorkers(1))
	tree := mustCompile(t, h.reg, arbor.RandomSequence(mocks("ABCD")...))
	for i := 0; i < 3; i++ {
		m.Add(tree, arbor.WithTracer(h.tracer))
	}
	m.Tick(time.Millisecond)
	if got := ran(h.take()); got != "BACD"+"CADB"+"BDAC" {
		t.Fatalf("manager agents 0, 1, 2: %s", got)
	}
}

// TestRandomAborts checks that random composites are boundaries of
// conditional aborts: a lower observer below a random composite is
// dropped when it moves up to it, and an observer above one aborts the
// branch that holds it.
func TestRandomAborts(t *testing.T) {
	h := newRndHarness(t)
	h.res["B"] = arbor.Running
	h.res["C"] = arbor.Running
	// The Sequence with abort lower ends (Check true, A succeeds); its
	// observer would move up to the RandomSelector: dropped.
	a := h.agent(t, arbor.RandomSequence(
		arbor.Sequence(arbor.Check("k", "==", true), arbor.Leaf("A")).WithAbort(arbor.AbortLower),
		arbor.Leaf("B"),
	).With("weights", []any{1, 0}))
	a.Blackboard().Set("k", true)
	a.Tick(time.Millisecond)
	if got := h.take(); got != "A:start A:success B:start B:running" {
		t.Fatal(got)
	}
	a.Blackboard().Set("k", false)
	a.Tick(2 * time.Millisecond)
	if got := h.take(); got != "B:running" {
		t.Fatalf("an observer reached through a random composite: %s", got)
	}
	// An abort above a random composite halts its running child.
	b := h.agent(t, arbor.Sequence(arbor.Check("k", "==", true), arbor.RandomSelector(arbor.Leaf("C"))).WithAbort(arbor.AbortSelf))
	b.Blackboard().Set("k", true)
	b.Tick(time.Millisecond)
	b.Blackboard().Set("k", false)
	b.Tick(2 * time.Millisecond)
	if got := h.take(); got != "C:start C:running C:halt" {
		t.Fatal(got)
	}
}

// TestRandomTickDoesNotAllocate: drawing orders allocates nothing.
func TestRandomTickDoesNotAllocate(t *testing.T) {
	h := newRndHarness(t)
	h.res["C"] = arbor.Failure
	a := arbor.NewAgent(mustCompile(t, h.reg, arbor.RandomSelector(
		arbor.RandomSequence(mocks("ABCDEF")...).With("weights", []any{1, 2, 0, 3, 0.5, 1}),
		arbor.RandomSequence(mocks("ABC")...),
		arbor.Leaf("D"),
	)))
	i := 0
	if n := testing.AllocsPerRun(1000, func() {
		i++
		a.Tick(time.Duration(i) * time.Millisecond)
	}); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}
}

// TestRandomReference compares the engine with a direct transcription of
// doc.go's algorithm (splitmix64, the seed, the weighted shuffle) over
// many seeds, node ids, child counts and weights.
func TestRandomReference(t *testing.T) {
	h := newRndHarness(t)
	weightSets := [][]float64{nil, {1, 1}, {1, 2, 3}, {0, 5, 0, 1}, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6}, {1e-12, 1, 0}, {7, 7, 7, 0, 7, 7}}
	for _, ws := range weightSets {
		for nk := 1; nk <= 6; nk++ {
			if ws != nil && len(ws) != nk {
				continue
			}
			for depth := 0; depth < 3; depth++ {
				for seed := int64(-3); seed < 12; seed++ {
					n := arbor.RandomSequence(mocks("ABCDEF"[:nk])...)
					if ws != nil {
						n.With("weights", ws)
					}
					id := 0
					if seed >= 0 {
						n.With("seed", seed)
					} else {
						id = int(-seed * 1000)
					}
					root := n
					for d := 0; d < depth; d++ {
						root = arbor.Inverter(arbor.Inverter(root))
					}
					a := h.agent(t, root, arbor.WithID(id))
					b := uint64(id)
					if seed >= 0 {
						b = uint64(seed)
					}
					ref := newRefShuffle(b, 2*depth, ws, nk)
					for k := 0; k < 5; k++ {
						a.Tick(time.Duration(k+1) * time.Millisecond)
						got, want := ran(h.take()), ref.next()
						if got != want {
							t.Fatalf("weights %v, %d children, node %d, seed %d, id %d: activation %d drew %s, want %s", ws, nk, 2*depth, seed, id, k, got, want)
						}
					}
				}
			}
		}
	}
}

// refShuffle is doc.go's algorithm written out plainly, with lists.
type refShuffle struct {
	s uint64
	w []uint64
}

func refMix(z uint64) uint64 {
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

func newRefShuffle(b uint64, node int, ws []float64, nk int) *refShuffle {
	const g = 0x9E3779B97F4A7C15
	r := &refShuffle{s: refMix(b ^ refMix(uint64(node)+g))}
	if ws == nil {
		for range nk {
			r.w = append(r.w, 1)
		}
		return r
	}
	top := slices.Max(ws)
	for _, w := range ws {
		x := uint64(math.Round(w / top * (1 << 32)))
		if x == 0 && w > 0 {
			x = 1
		}
		r.w = append(r.w, x)
	}
	return r
}

func (r *refShuffle) next() string {
	var rest []int
	for c := range r.w {
		rest = append(rest, c)
	}
	var out []byte
	for {
		var pos []int
		var total uint64
		for _, c := range rest {
			total += r.w[c]
			if r.w[c] > 0 {
				pos = append(pos, c)
			}
		}
		if len(pos) == 0 {
			break
		}
		pick := pos[0]
		if len(pos) > 1 {
			r.s += 0x9E3779B97F4A7C15
			t, _ := bits.Mul64(refMix(r.s), total)
			for _, c := range pos {
				if r.w[c] > t {
					pick = c
					break
				}
				t -= r.w[c]
			}
		}
		out = append(out, "ABCDEF"[pick])
		rest = slices.DeleteFunc(rest, func(c int) bool { return c == pick })
	}
	for _, c := range rest {
		out = append(out, "ABCDEF"[c])
	}
	return string(out)
}

// TestRandomSeedExactFromGo: a seed given in Go as an integer is used
// exactly (doc.go: B is the seed as a 64-bit two's complement integer),
// also beyond 2^53 where a float64 would round it: seeds 2^60 and
// 2^60+1, or math.MaxInt64 and math.MaxInt64-1, are different seeds.
func TestRandomSeedExactFromGo(t *testing.T) {
	h := newRndHarness(t)
	for _, seed := range []int64{1 << 60, 1<<60 + 1, math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1, -(1<<53 + 1)} {
		a := h.agent(t, arbor.RandomSequence(mocks("ABCDEF")...).With("seed", seed))
		ref := newRefShuffle(uint64(seed), 0, nil, 6)
		for k := 0; k < 4; k++ {
			a.Tick(time.Duration(k+1) * time.Millisecond)
			if got, want := ran(h.take()), ref.next(); got != want {
				t.Fatalf("seed %d: activation %d drew %s, want %s", seed, k, got, want)
			}
		}
	}
	// uint64 beyond math.MaxInt64: its two's complement.
	a := h.agent(t, arbor.RandomSequence(mocks("ABCDEF")...).With("seed", uint64(math.MaxUint64)))
	ref := newRefShuffle(math.MaxUint64, 0, nil, 6)
	a.Tick(time.Millisecond)
	if got, want := ran(h.take()), ref.next(); got != want {
		t.Fatalf("seed MaxUint64 drew %s, want %s", got, want)
	}
}
