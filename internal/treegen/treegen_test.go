package treegen

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
)

// dump writes a definition canonically (parameters sorted), to compare
// documents.
func dump(b *strings.Builder, n *arbor.Node) {
	if n == nil {
		b.WriteString("nil")
		return
	}
	fmt.Fprintf(b, "(%s %q abort=%s single=%v", n.Type, n.Name, n.Abort, n.SingleChild)
	names := make([]string, 0, len(n.Params))
	for k := range n.Params {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(b, " %s=%#v", k, n.Params[k])
	}
	for _, c := range n.Children {
		b.WriteByte(' ')
		dump(b, c)
	}
	if n.Guard != nil {
		b.WriteString(" guard=")
		dump(b, n.Guard)
	}
	b.WriteByte(')')
}

func dumpDoc(d *arbor.Document) string {
	var b strings.Builder
	b.WriteString(d.Main)
	for _, name := range d.TreeNames() {
		fmt.Fprintf(&b, "\n%s: ", name)
		dump(&b, d.Trees[name])
	}
	return b.String()
}

func TestGenerateIsDeterministic(t *testing.T) {
	cfg := DefaultConfig()
	for seed := uint64(0); seed < 200; seed++ {
		a, b := dumpDoc(Generate(seed, cfg)), dumpDoc(Generate(seed, cfg))
		if a != b {
			t.Fatalf("seed %d: two documents differ:\n%s\n%s", seed, a, b)
		}
	}
	if dumpDoc(Generate(1, cfg)) == dumpDoc(Generate(2, cfg)) {
		t.Fatal("seeds 1 and 2 give the same document")
	}
	d := &Driver{Seed: 9, Globals: true, UserValues: true, Ops: true}
	for tick := 1; tick < 100; tick++ {
		if d.Now(tick) <= d.Now(tick-1) {
			t.Fatalf("Now(%d) = %v is not after Now(%d) = %v", tick, d.Now(tick), tick-1, d.Now(tick-1))
		}
	}
	bbs := func() string {
		tree, err := Tree(3, cfg)
		if err != nil {
			t.Fatal(err)
		}
		a := arbor.NewAgent(tree)
		var out strings.Builder
		for tick := 1; tick < 50; tick++ {
			d.Apply(a.Blackboard(), 7, tick)
			fmt.Fprintln(&out, a.Blackboard().Entries(), d.Op(7, tick, tick%2 == 0))
		}
		return out.String()
	}
	if x, y := bbs(), bbs(); x != y {
		t.Fatalf("the driver's inputs differ between two runs:\n%s\n%s", x, y)
	}
}

// coverage counts what generated documents contain.
type coverage struct {
	types   map[string]int
	aborts  map[arbor.Abort]int
	guards  int
	params  map[string]int // "Type.param"
	maxSize int
}

func (c *coverage) walk(n *arbor.Node, inGuard bool) {
	c.types[n.Type]++
	if !inGuard {
		c.aborts[n.Abort]++
	}
	for k := range n.Params {
		c.params[n.Type+"."+k]++
	}
	for _, ch := range n.Children {
		c.walk(ch, inGuard)
	}
	if n.Guard != nil {
		c.guards++
		c.walk(n.Guard, true)
	}
}

// TestGeneratedTreesCompileAndTick compiles the trees of 10,000 seeds and
// ticks each with the driver's inputs and operations: every tree compiles,
// every node error is an expected one, the events are consistent with the
// running flags (start then a result; halt only of a running node, once),
// and the documents cover every built-in type and alias, guards and every
// abort mode.
func TestGeneratedTreesCompileAndTick(t *testing.T) {
	seeds, ticks := 10_000, 30
	if raceEnabled {
		ticks = 12
	}
	cfg := DefaultConfig()
	reg := Registry()
	cov := &coverage{types: map[string]int{}, aborts: map[arbor.Abort]int{}, params: map[string]int{}}
	expected := 0
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		doc := Generate(seed, cfg)
		for _, root := range doc.Trees {
			cov.walk(root, false)
		}
		tree, err := arbor.Compile(doc, reg)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, dumpDoc(doc))
		}
		cov.maxSize = max(cov.maxSize, tree.Len())
		w := newWellFormed(tree.Len())
		fail := w.fail
		tracer := w.event
		onError := func(e *arbor.NodeError) {
			if Expected(e) {
				expected++
				return
			}
			fail("unexpected node error: %v", e)
		}
		a := arbor.NewAgent(tree, arbor.WithTracer(tracer), arbor.WithErrorHandler(onError), arbor.WithID(int(seed)))
		d := &Driver{Seed: seed, Globals: true, UserValues: true, Ops: true}
		for tick := 1; tick <= ticks && w.failure == ""; tick++ {
			Do(a, d.Op(a.ID(), tick, a.Paused()))
			d.Apply(a.Blackboard(), a.ID(), tick)
			before := a.Status()
			s := a.Tick(d.Now(tick))
			switch {
			case a.Paused() && s != before:
				fail("tick %d: paused agent returned %v, not its last result %v", tick, s, before)
			case !a.Paused() && (s < arbor.Success || s > arbor.Running):
				fail("tick %d: status %v", tick, s)
			}
			w.agree(a, tick)
		}
		a.Halt()
		w.halted(a)
		if w.failure != "" {
			t.Fatalf("seed %d: %s\n%s", seed, w.failure, dumpDoc(doc))
		}
	}
	if expected == 0 {
		t.Error("no expected node error was provoked: the fault inputs do not reach the nodes")
	}
	var missing []string
	names := append([]string{"MemSequence", "Fallback", "MemPriority", "Priority", "ReactiveFallback", "PrioritySelector",
		"AlwaysSucceed", "RepeatUntilSuccess", "MaxTime", ActType, ActKeepType, ActHeapType, CondType, "SubTree"}, builtinNames()...)
	for _, typ := range names {
		if cov.types[typ] == 0 {
			missing = append(missing, typ)
		}
	}
	for _, p := range []string{"Parallel.success", "Parallel.failure", "Parallel.retryFailed", "ParallelAll.maxFailures",
		"Repeat.count", "RetryUntilSuccessful.attempts", "RepeatUntilFailure.max", "Timeout.ms", "Delay.ms", "Cooldown.ms",
		"Limiter.max", "RunOnce.then", "Wait.ticks", "Wait.ms", "Check.value", "Set.ttlMs", "Act.n", arbor.ErrorType + ".message",
		"RandomSelector.weights", "RandomSelector.seed", "RandomSequence.weights", "RandomSequence.seed", "Switch.key", "Switch.cases"} {
		if cov.params[p] == 0 {
			missing = append(missing, p)
		}
	}
	for _, m := range []arbor.Abort{arbor.AbortSelf, arbor.AbortLower, arbor.AbortBoth} {
		if cov.aborts[m] == 0 {
			missing = append(missing, "abort "+m.String())
		}
	}
	if cov.guards == 0 {
		missing = append(missing, "guards")
	}
	if len(missing) > 0 {
		t.Errorf("%d seeds never generate: %s", seeds, strings.Join(missing, ", "))
	}
	t.Logf("%d seeds, %d ticks each: largest tree %d nodes, %d guards, %d expected node errors", seeds, ticks, cov.maxSize, cov.guards, expected)
}

// wellFormed checks an agent's event stream: starts, results, halts and
// evaluations in an order the spec allows, and running states that agree
// with the agent's. It keeps the first failure.
type wellFormed struct {
	running   []bool
	lastStart int32
	failure   string
}

func newWellFormed(nodes int) *wellFormed {
	return &wellFormed{running: make([]bool, nodes), lastStart: -1}
}

func (w *wellFormed) fail(format string, args ...any) {
	if w.failure == "" {
		w.failure = fmt.Sprintf(format, args...)
	}
}

// event is the agent's tracer.
func (w *wellFormed) event(_ *arbor.Agent, e arbor.Event) {
	// Between a node's start and its result come its children's events
	// and guard evaluations.
	if w.lastStart >= 0 && e.Kind != arbor.EventResult && e.Kind != arbor.EventStart && e.Kind != arbor.EventEval {
		w.fail("node %d started, then a %s event of node %d before a result", w.lastStart, e.Kind, e.Node)
	}
	switch e.Kind {
	case arbor.EventStart:
		if w.running[e.Node] {
			w.fail("start of running node %d", e.Node)
		}
		w.lastStart = e.Node
	case arbor.EventResult:
		if e.Node == w.lastStart {
			w.lastStart = -1
		}
		if e.Status < arbor.Success || e.Status > arbor.Running {
			w.fail("node %d returned %v", e.Node, e.Status)
		}
		w.running[e.Node] = e.Status == arbor.Running
	case arbor.EventEval:
		// Guards and observed conditions: stateless, never running.
		if e.Status != arbor.Success && e.Status != arbor.Failure {
			w.fail("evaluation of node %d gave %v", e.Node, e.Status)
		}
		if w.running[e.Node] {
			w.fail("evaluation of running node %d", e.Node)
		}
	case arbor.EventHalt:
		if !w.running[e.Node] {
			w.fail("halt of node %d, which is not running", e.Node)
		}
		w.running[e.Node] = false
	}
}

// agree checks the running states after a tick.
func (w *wellFormed) agree(a *arbor.Agent, tick int) {
	for i := range w.running {
		if w.running[i] != a.Running(i) {
			w.fail("tick %d: node %d (%s): running per events %v, per the agent %v", tick, i, a.Tree().Node(i).Path, w.running[i], a.Running(i))
		}
	}
}

// halted checks that nothing runs after Agent.Halt.
func (w *wellFormed) halted(a *arbor.Agent) {
	for i := range w.running {
		if w.running[i] || a.Running(i) {
			w.fail("node %d still running after Halt", i)
		}
	}
}

// builtinNames are the canonical built-in type names of semantics §3–§6.
func builtinNames() []string {
	return []string{"Sequence", "SequenceWithMemory", "ReactiveSequence", "Selector", "ReactiveSelector",
		"Parallel", "ParallelAll", "Inverter", "ForceSuccess", "ForceFailure", "Repeat", "RetryUntilSuccessful",
		"RepeatUntilFailure", "Timeout", "Delay", "Cooldown", "Limiter", "RunOnce", "SubTree",
		"Success", "Failure", "Running", "Wait", "Check", "Set", arbor.ErrorType, "RandomSelector", "RandomSequence",
		"IfThenElse", "WhileDoElse", "Switch"}
}

// Every built-in type of the registry is one the generator knows.
func TestGeneratorKnowsEveryBuiltin(t *testing.T) {
	known := map[string]bool{}
	for _, n := range builtinNames() {
		known[n] = true
	}
	for _, list := range [][]string{compositeTypes, decoratorTypes} {
		for _, n := range list {
			known[n] = true
		}
	}
	for _, n := range arbor.NewRegistry().Types() {
		if !known[n] {
			t.Errorf("built-in type %q is not generated", n)
		}
	}
}
