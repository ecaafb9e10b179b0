package arbor_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// driveGuard ticks an agent of the guard tree with the workload's
// xorshift driver and returns the sequence of root statuses.
func driveGuard(a *arbor.Agent, seed uint64, ticks int) []arbor.Status {
	x := seed
	next := func() uint64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	bb := a.Blackboard()
	out := make([]arbor.Status, 0, ticks)
	for i := 1; i <= ticks; i++ {
		hpKey.Set(bb, float64(10+next()%100))
		visibleKey.Set(bb, next()%4 == 0)
		distKey.Set(bb, float64(next()%10))
		out = append(out, a.Tick(time.Duration(i)*50*time.Millisecond))
	}
	return out
}

// Agents of one shared tree ticked on many goroutines behave exactly as
// when ticked one after the other (run with -race).
func TestConcurrentAgentsShareATree(t *testing.T) {
	tree := benchGuardTree(t)
	const agents, ticks = 16, 300
	serial := make([][]arbor.Status, agents)
	for i := range serial {
		serial[i] = driveGuard(arbor.NewAgent(tree), uint64(i+1), ticks)
	}
	parallel := make([][]arbor.Status, agents)
	var wg sync.WaitGroup
	for i := 0; i < agents; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			parallel[i] = driveGuard(arbor.NewAgent(tree), uint64(i+1), ticks)
		}(i)
	}
	wg.Wait()
	for i := range serial {
		if fmt.Sprint(serial[i]) != fmt.Sprint(parallel[i]) {
			t.Fatalf("agent %d: parallel run differs from serial run", i)
		}
	}
}

// A steady-state tick allocates nothing: engine, built-in nodes, typed
// blackboard writes and user actions.
func TestTickDoesNotAllocate(t *testing.T) {
	a := arbor.NewAgent(benchGuardTree(t))
	driveGuard(a, 7, 50) // warm up: blackboard slots exist
	i := 0
	x := uint64(99)
	allocs := testing.AllocsPerRun(1000, func() {
		i++
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		hpKey.Set(a.Blackboard(), float64(10+x%100))
		visibleKey.Set(a.Blackboard(), x%4 == 0)
		distKey.Set(a.Blackboard(), float64(x%10))
		a.Tick(time.Duration(1000+i) * time.Millisecond)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per tick, want 0", allocs)
	}
}

func TestPausedAgentIsNotTicked(t *testing.T) {
	reg := arbor.NewRegistry()
	ticks := 0
	if err := reg.ActionFunc("Count", func(*arbor.Ctx) (arbor.Status, error) { ticks++; return arbor.Running, nil }); err != nil {
		t.Fatal(err)
	}
	tree := mustCompile(t, reg, arbor.Leaf("Count"))
	a := arbor.NewAgent(tree)
	if s := a.Tick(time.Second); s != arbor.Running || ticks != 1 {
		t.Fatalf("first tick: %v, %d ticks", s, ticks)
	}
	a.Pause()
	if s := a.Tick(2 * time.Second); s != arbor.Running || ticks != 1 || !a.Paused() {
		t.Fatalf("paused tick: status %v, %d ticks, paused %v", s, ticks, a.Paused())
	}
	a.Resume()
	a.Tick(3 * time.Second)
	if ticks != 2 {
		t.Fatalf("after resume: %d ticks, want 2", ticks)
	}
}

// Reset clears memory that lives over the agent's life (Limiter, RunOnce,
// Cooldown, SequenceWithMemory); Halt does not.
func TestResetClearsLifelongMemory(t *testing.T) {
	cases := []struct {
		name string
		root *arbor.Node
		// statuses before and after the reset
		before, afterHalt, afterReset arbor.Status
	}{
		{"Limiter count", arbor.Limiter(1, arbor.AlwaysSuccess()), arbor.Success, arbor.Failure, arbor.Success},
		{"RunOnce result", arbor.Inverter(arbor.RunOnce(arbor.Check("flag", "exists"))), arbor.Success, arbor.Success, arbor.Failure},
		{"Cooldown time", arbor.Cooldown(time.Hour, arbor.AlwaysSuccess()), arbor.Success, arbor.Failure, arbor.Success},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := arbor.NewAgent(mustCompile(t, arbor.NewRegistry(), c.root))
			if s := a.Tick(time.Second); s != c.before {
				t.Fatalf("first tick: %v, want %v", s, c.before)
			}
			a.Blackboard().Set("flag", true)
			a.Halt()
			if s := a.Tick(2 * time.Second); s != c.afterHalt {
				t.Fatalf("after halt: %v, want %v", s, c.afterHalt)
			}
			a.Reset()
			if s := a.Tick(3 * time.Second); s != c.afterReset {
				t.Fatalf("after reset: %v, want %v", s, c.afterReset)
			}
			if v, ok := a.Blackboard().Lookup("flag"); !ok || v.String() != "true" {
				t.Fatalf("reset must keep the blackboard, flag = %v", v)
			}
		})
	}
}

func mustCompile(t testing.TB, reg *arbor.Registry, root *arbor.Node) *arbor.Tree {
	t.Helper()
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": root}}, reg)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// opsAction runs forever; on its second tick it calls the agent operations
// in ops, in order.
type opsAction struct{}

type opsMem struct{ n int }

var opsToCall []func(*arbor.Agent)

func (opsAction) Tick(c *arbor.Ctx, m *opsMem) (arbor.Status, error) {
	m.n++
	if m.n == 2 {
		for _, op := range opsToCall {
			op(c.Agent())
		}
	}
	return arbor.Running, nil
}

// Operations requested inside a tick all take effect after it, in order.
func TestOperationsInsideATickRunInOrder(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[opsAction, opsMem](reg, "Ops"); err != nil {
		t.Fatal(err)
	}
	tree := mustCompile(t, reg, arbor.Sequence(arbor.Leaf("Ops")))
	for _, c := range []struct {
		name          string
		ops           []func(*arbor.Agent)
		running, paus bool
	}{
		{"halt then pause", []func(*arbor.Agent){(*arbor.Agent).Halt, (*arbor.Agent).Pause}, false, true},
		{"pause then halt", []func(*arbor.Agent){(*arbor.Agent).Pause, (*arbor.Agent).Halt}, false, true},
		{"pause then resume", []func(*arbor.Agent){(*arbor.Agent).Pause, (*arbor.Agent).Resume}, true, false},
		// More than eight requests: every one still takes effect, in order.
		{"eight resumes then pause", append(repeatOps([]func(*arbor.Agent){(*arbor.Agent).Resume}, 8), (*arbor.Agent).Pause), true, true},
		{"nine resumes then halt and pause", append(repeatOps([]func(*arbor.Agent){(*arbor.Agent).Resume}, 9), (*arbor.Agent).Halt, (*arbor.Agent).Pause), false, true},
		{"pause, resume, ten times", repeatOps([]func(*arbor.Agent){(*arbor.Agent).Pause, (*arbor.Agent).Resume}, 10), true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			opsToCall = c.ops
			a := arbor.NewAgent(tree)
			a.Tick(time.Second)
			a.Tick(2 * time.Second)
			if a.Running(0) != c.running || a.Paused() != c.paus {
				t.Fatalf("running %v paused %v, want %v %v", a.Running(0), a.Paused(), c.running, c.paus)
			}
		})
	}
}

// repeatOps returns n copies of ops, one after the other.
func repeatOps(ops []func(*arbor.Agent), n int) []func(*arbor.Agent) {
	var out []func(*arbor.Agent)
	for range n {
		out = append(out, ops...)
	}
	return out
}

// haltAgain calls Agent.Halt from its own halt callback.
type haltAgain struct{}

func (haltAgain) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) { return arbor.Running, nil }
func (haltAgain) Halt(c *arbor.Ctx, _ *struct{})                   { c.Agent().Halt() }

func TestHaltFromAHaltCallbackHaltsOnce(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[haltAgain, struct{}](reg, "HaltAgain"); err != nil {
		t.Fatal(err)
	}
	halts := map[int]int{}
	a := arbor.NewAgent(mustCompile(t, reg, arbor.Parallel(-1, 0, arbor.Leaf("HaltAgain"), arbor.Sequence(arbor.Leaf("HaltAgain")))),
		arbor.WithTracer(func(_ *arbor.Agent, e arbor.Event) {
			if e.Kind == arbor.EventHalt {
				halts[int(e.Node)]++
			}
		}))
	a.Tick(time.Second)
	a.Halt()
	for id, n := range halts {
		if n != 1 {
			t.Errorf("node %d halted %d times", id, n)
		}
	}
	if len(halts) != 4 {
		t.Errorf("%d nodes halted, want 4", len(halts))
	}
}

type team string
type health float64

// Named types of scalar kinds are stored as those kinds.
func TestNamedScalarTypes(t *testing.T) {
	a := arbor.NewAgent(mustCompile(t, arbor.NewRegistry(), arbor.Sequence(
		arbor.Check("team", "==", "red"), arbor.Check("hp", "==", 5))))
	a.Blackboard().Set("team", team("red"))
	a.Blackboard().Set("hp", health(5))
	if s := a.Tick(time.Second); s != arbor.Success {
		t.Fatalf("checks on named types: %v", s)
	}
	if v, err := arbor.NewKey[health]("hp").Get(a.Blackboard()); err != nil || v != 5 {
		t.Fatalf("Key[health].Get = %v, %v", v, err)
	}
	if v, err := arbor.NewKey[team]("team").Get(a.Blackboard()); err != nil || v != "red" {
		t.Fatalf("Key[team].Get = %v, %v", v, err)
	}
}

type level uint8
type ratio float32
type offset int16
type flag bool

// roundTrip writes v through a Key[T] and reads it back.
func roundTrip[T comparable](t *testing.T, v T) {
	t.Helper()
	bb := arbor.NewAgent(mustCompile(t, nil, arbor.AlwaysSuccess())).Blackboard()
	k := arbor.NewKey[T]("v")
	k.Set(bb, v)
	if got, err := k.Get(bb); err != nil || got != v {
		t.Errorf("Key[%T]: wrote %v, read %v, %v", v, v, got, err)
	}
}

// Every named type of a scalar kind reads back what it wrote, and an
// integer handle refuses numbers it cannot hold exactly.
func TestNamedNumericKeys(t *testing.T) {
	roundTrip(t, 2*time.Second)
	roundTrip(t, level(200))
	roundTrip(t, ratio(0.5))
	roundTrip(t, offset(-300))
	roundTrip(t, flag(true))
	roundTrip(t, uint(1<<40))
	roundTrip(t, uintptr(7))
	bb := arbor.NewAgent(mustCompile(t, nil, arbor.AlwaysSuccess())).Blackboard()
	bb.Set("big", 300)
	if v, err := arbor.NewKey[level]("big").Get(bb); !errors.As(err, new(*arbor.TypeError)) {
		t.Errorf("Key[level] of 300 = %v, %v; want a TypeError", v, err)
	}
	bb.Set("third", 1.0/3)
	if v, err := arbor.NewKey[ratio]("third").Get(bb); !errors.As(err, new(*arbor.TypeError)) {
		t.Errorf("Key[ratio] of 1/3 = %v, %v; want a TypeError (not exact in float32)", v, err)
	}
}

// The arbor.Error leaf fails and reports its message with its path.
func TestErrorLeafReports(t *testing.T) {
	var got []*arbor.NodeError
	tree := mustCompile(t, arbor.NewRegistry(), arbor.Sequence(arbor.Leaf(arbor.ErrorType, "message", "boom")))
	a := arbor.NewAgent(tree, arbor.WithErrorHandler(func(e *arbor.NodeError) { got = append(got, e) }))
	if s := a.Tick(time.Second); s != arbor.Failure {
		t.Fatalf("status %v, want failure", s)
	}
	if len(got) != 1 || got[0].Path != "main.children[0]" || got[0].Err.Error() != "boom" {
		t.Fatalf("reports %v", got)
	}
}

// Restored agents have no owner until SetOwner gives them one.
func TestSetOwnerAfterRestore(t *testing.T) {
	tree := mustCompile(t, arbor.NewRegistry(), arbor.WaitTicks(3))
	m := arbor.NewManager(arbor.WithWorkers(1))
	m.Add(tree, arbor.WithOwner("npc-0"))
	m.Tick(time.Second)
	var buf bytes.Buffer
	if err := m.Snapshot(&buf); err != nil {
		t.Fatal(err)
	}
	r := arbor.NewManager(arbor.WithWorkers(1))
	if err := r.Restore(&buf, map[string]*arbor.Tree{tree.Name(): tree}); err != nil {
		t.Fatal(err)
	}
	a := r.Agent(0)
	if a.Owner() != nil {
		t.Fatalf("restored owner = %v, want none", a.Owner())
	}
	a.SetOwner("npc-0")
	if a.Owner() != "npc-0" {
		t.Fatalf("owner = %v after SetOwner", a.Owner())
	}
}

// Builder mistakes are reported by Compile, with the node's path.
func TestLeafParameterMistakes(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := reg.ActionFunc("Foo", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }, arbor.AnyParams()); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		node *arbor.Node
		want string
	}{
		{arbor.Leaf("Foo", "x"), "x has no value"},
		{arbor.Leaf("Foo", 1, 2), "name 1 (int) is not a string"},
		{arbor.Sequence(arbor.WaitTicks(1), arbor.Leaf("Foo", "a", 1, "b")), "trees.t.children[1]: builder parameters: b has no value"},
		{arbor.Check("tags", "==", "a", "b"), "trees.t: builder parameters: Check takes one value, got 2"},
	} {
		_, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": tt.node}}, reg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("error %v, want one containing %q", err, tt.want)
		}
	}
	if _, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.Leaf("Foo", "a", 1)}}, reg); err != nil {
		t.Errorf("a right Leaf: %v", err)
	}
	if _, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.Check("tags", "==", []any{"a", "b"})}}, reg); err != nil {
		t.Errorf("a Check with a list value: %v", err)
	}
}

// A time.Duration in builder parameters is milliseconds, as in files.
func TestBuilderDurationsAreMilliseconds(t *testing.T) {
	tree := mustCompile(t, arbor.NewRegistry(), arbor.Sequence(
		arbor.Leaf("Wait", "ms", 200*time.Millisecond),
		arbor.Check("cooldown", "<", 1500*time.Millisecond),
	))
	a := arbor.NewAgent(tree)
	arbor.NewKey[float64]("cooldown").Set(a.Blackboard(), 1000) // ms
	var got []arbor.Status
	for tick := 1; tick <= 3; tick++ {
		got = append(got, a.Tick(time.Duration(tick)*100*time.Millisecond))
	}
	// Wait starts at 100 ms: running at 100 and 200, done at 300.
	if want := []arbor.Status{arbor.Running, arbor.Running, arbor.Success}; !slices.Equal(got, want) {
		t.Errorf("statuses %v, want %v", got, want)
	}
}

// The builders for Set with a time to live and RunOnce with a fixed
// result.
func TestSetForAndRunOnceThen(t *testing.T) {
	tree := mustCompile(t, arbor.NewRegistry(), arbor.Sequence(
		arbor.RunOnceThen(arbor.Failure, arbor.SetFor("alarm", true, 150*time.Millisecond)),
	))
	a := arbor.NewAgent(tree)
	alarm := arbor.NewKey[bool]("alarm")
	if s := a.Tick(100 * time.Millisecond); s != arbor.Success || !alarm.Has(a.Blackboard()) {
		t.Fatalf("first tick: %v, alarm %v", s, alarm.Has(a.Blackboard()))
	}
	if s := a.Tick(200 * time.Millisecond); s != arbor.Failure || !alarm.Has(a.Blackboard()) {
		t.Fatalf("second tick: %v (want the fixed failure), alarm %v", s, alarm.Has(a.Blackboard()))
	}
	if a.Tick(300 * time.Millisecond); alarm.Has(a.Blackboard()) {
		t.Fatal("alarm still set after its 150 ms")
	}
}

// Out-of-range node ids and abort modes are answered, not panics.
func TestOutOfRangeIDs(t *testing.T) {
	tree := mustCompile(t, nil, arbor.Sequence(arbor.AlwaysSuccess()))
	a := arbor.NewAgent(tree)
	for _, id := range []int{-1, tree.Len(), 1 << 40} {
		if a.Running(id) {
			t.Errorf("Running(%d) = true", id)
		}
		if info := tree.Node(id); info.ID != -1 {
			t.Errorf("Node(%d) = %+v, want ID -1", id, info)
		}
	}
	bad := arbor.Sequence(arbor.AlwaysSuccess())
	bad.Abort = arbor.Abort(99)
	if _, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": bad}}, nil); err == nil || !strings.Contains(err.Error(), "abort 99 is not an abort mode") {
		t.Errorf("Abort(99): %v", err)
	}
}

// A nil tree is refused with a message that says so.
func TestNilTree(t *testing.T) {
	a := arbor.NewAgent(mustCompile(t, nil, arbor.AlwaysSuccess()))
	if err := a.SetTree(nil); err == nil || !strings.Contains(err.Error(), "nil tree") {
		t.Errorf("SetTree(nil): %v", err)
	}
	if m := arbor.NewManager(); m.Reload(a.Tree(), nil) != 0 {
		t.Error("Reload to a nil tree moved agents")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "NewAgent: nil tree") {
			t.Errorf("NewAgent(nil): recovered %v", r)
		}
	}()
	arbor.NewAgent(nil)
}
