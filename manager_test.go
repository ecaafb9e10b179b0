package arbor_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// runManager ticks n guard agents for ticks ticks with the given workers
// and returns every agent's status history.
func runManager(t *testing.T, workers, n, ticks int) [][]arbor.Status {
	t.Helper()
	m := arbor.NewManager(arbor.WithWorkers(workers))
	defer m.Close()
	return runGuards(t, m, n, ticks)
}

// runGuards adds n guard agents to m, ticks them for ticks ticks and
// returns every agent's status history.
func runGuards(t *testing.T, m *arbor.Manager, n, ticks int) [][]arbor.Status {
	t.Helper()
	tree := benchGuardTree(t)
	seeds := make([]uint64, n)
	for i := 0; i < n; i++ {
		m.Add(tree)
		seeds[i] = uint64(i + 1)
	}
	hist := make([][]arbor.Status, n)
	next := func(x *uint64) uint64 {
		*x ^= *x << 13
		*x ^= *x >> 7
		*x ^= *x << 17
		return *x
	}
	for tick := 1; tick <= ticks; tick++ {
		for i, a := range m.Agents() {
			bb := a.Blackboard()
			hpKey.Set(bb, float64(10+next(&seeds[i])%100))
			visibleKey.Set(bb, next(&seeds[i])%4 == 0)
			distKey.Set(bb, float64(next(&seeds[i])%10))
		}
		m.Tick(time.Duration(tick) * 50 * time.Millisecond)
		for i, a := range m.Agents() {
			hist[i] = append(hist[i], a.Status())
		}
	}
	return hist
}

func TestManagerIsDeterministicWhateverTheWorkers(t *testing.T) {
	want := fmt.Sprint(runManager(t, 1, 500, 40))
	for _, w := range []int{2, 3, 8} {
		if got := fmt.Sprint(runManager(t, w, 500, 40)); got != want {
			t.Fatalf("%d workers: results differ from 1 worker", w)
		}
	}
}

// Every agent reads the global scope as it was when the tick began plus
// its own writes; writes are applied in ascending agent order.
func TestManagerGlobalWritesApplyInAgentOrder(t *testing.T) {
	reg := arbor.NewRegistry()
	counter := arbor.NewKey[float64]("@counter")
	seen := map[int]float64{}
	// Each agent reads @counter, remembers what it saw, and writes its id.
	err := reg.ActionFunc("Bump", func(c *arbor.Ctx) (arbor.Status, error) {
		v, err := counter.Get(c.Blackboard())
		if err != nil {
			return arbor.Failure, err
		}
		counter.Set(c.Blackboard(), float64(c.Agent().ID()))
		after, _ := counter.Get(c.Blackboard())
		if after != float64(c.Agent().ID()) {
			return arbor.Failure, fmt.Errorf("agent does not read its own write")
		}
		seen[c.Agent().ID()] = v
		return arbor.Success, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tree := mustCompile(t, reg, arbor.Leaf("Bump"))
	m := arbor.NewManager(arbor.WithWorkers(1))
	for i := 0; i < 5; i++ {
		m.Add(tree)
	}
	m.Globals().Set("@counter", -1)
	m.Tick(time.Second)
	for id, v := range seen {
		if v != -1 {
			t.Errorf("agent %d read %v, want the tick's starting value -1", id, v)
		}
	}
	if v, _ := m.Globals().Lookup("@counter", time.Second); v.String() != "4" {
		t.Errorf("@counter after the tick = %v, want 4 (the last agent's write)", v)
	}
	m.Tick(2 * time.Second)
	if seen[0] != 4 {
		t.Errorf("second tick read %v, want 4", seen[0])
	}
}

// Agents added or removed between ticks are handled; a removed agent's
// running nodes are halted once.
func TestManagerAddRemove(t *testing.T) {
	tree, halts, ticks := recorderTree(t)
	m := arbor.NewManager(arbor.WithWorkers(2))
	defer m.Close()
	a := m.Add(tree)
	b := m.Add(tree)
	m.Tick(time.Second)
	if *ticks != 2 {
		t.Fatalf("ticks = %d, want 2", *ticks)
	}
	if !m.Remove(a) || m.Remove(a) {
		t.Fatal("Remove must succeed once")
	}
	if *halts != 1 {
		t.Fatalf("halts = %d, want 1", *halts)
	}
	c := m.Add(tree)
	m.Tick(2 * time.Second)
	if *ticks != 4 || m.Len() != 2 || m.Agent(b.ID()) != b || m.Agent(c.ID()) != c || m.Agent(a.ID()) != nil {
		t.Fatalf("ticks %d, len %d", *ticks, m.Len())
	}
	b.Pause()
	m.Tick(3 * time.Second)
	if *ticks != 5 {
		t.Fatalf("a paused agent was ticked: ticks = %d, want 5", *ticks)
	}
	m.Stop()
	if *halts != 3 {
		t.Fatalf("Stop must halt the running agents once each: halts = %d, want 3 (a when removed, then b and c)", *halts)
	}
}

// RemoveFunc removes (and halts) exactly the agents it is asked to, in one
// pass; Remove refuses an agent of another manager with the same id.
func TestManagerRemoveFunc(t *testing.T) {
	tree, halts, ticks := recorderTree(t)
	m := arbor.NewManager(arbor.WithWorkers(1)) // the recorder counts in plain ints
	defer m.Close()
	for i := 0; i < 1000; i++ {
		m.Add(tree)
	}
	m.Tick(time.Second)
	if n := m.RemoveFunc(func(a *arbor.Agent) bool { return a.ID()%3 == 0 }); n != 334 {
		t.Fatalf("removed %d, want 334", n)
	}
	if *halts != 334 || m.Len() != 666 {
		t.Fatalf("halts %d, len %d; want 334, 666", *halts, m.Len())
	}
	for i := 0; i < 1000; i++ {
		if got := m.Agent(i); (got == nil) != (i%3 == 0) || (got != nil && got.ID() != i) {
			t.Fatalf("Agent(%d) = %v after RemoveFunc", i, got)
		}
	}
	other := arbor.NewManager()
	stranger := other.Add(tree) // id 0, like a removed agent of m
	if m.Remove(stranger) {
		t.Fatal("Remove took an agent of another manager")
	}
	stranger = other.Add(tree) // id 1: an agent of m has this id
	if m.Remove(stranger) || m.Len() != 666 {
		t.Fatal("Remove took an agent of another manager with the id of one of its own")
	}
	*ticks = 0
	m.Tick(2 * time.Second)
	if *ticks != 666 {
		t.Fatalf("ticks after removal = %d, want 666", *ticks)
	}
}

var recHalts, recTicks *int

// recorderTree compiles a tree of one recorder action, whose ticks and
// halts are counted in *ticks and *halts.
func recorderTree(t *testing.T) (tree *arbor.Tree, halts, ticks *int) {
	t.Helper()
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[recorder, struct{}](reg, "Rec"); err != nil {
		t.Fatal(err)
	}
	halts, ticks = new(int), new(int)
	recHalts, recTicks = halts, ticks
	return mustCompile(t, reg, arbor.Leaf("Rec")), halts, ticks
}

// recorder is an action that runs forever and counts ticks and halts.
type recorder struct{}

func (recorder) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) {
	*recTicks++
	return arbor.Running, nil
}

func (recorder) Halt(*arbor.Ctx, *struct{}) { *recHalts++ }

// Agents of different trees live in one manager and share its global
// scope.
func TestManagerMixesTrees(t *testing.T) {
	writer := mustCompile(t, arbor.NewRegistry(), arbor.Set("@alarm", true))
	reader := mustCompile(t, arbor.NewRegistry(), arbor.Check("@alarm", "==", true))
	m := arbor.NewManager(arbor.WithWorkers(2))
	defer m.Close()
	r := m.Add(reader)
	w := m.Add(writer)
	m.Tick(time.Second)
	if r.Status() != arbor.Failure || w.Status() != arbor.Success {
		t.Fatalf("first tick: reader %v (the write is not visible yet), writer %v", r.Status(), w.Status())
	}
	m.Tick(2 * time.Second)
	if r.Status() != arbor.Success {
		t.Fatalf("second tick: reader %v, want success (the write was applied after the first tick)", r.Status())
	}
}

// A panic in TickWith's before reaches the caller (also from a worker
// goroutine), and the manager ticks normally afterwards.
func TestManagerBeforePanicReachesCaller(t *testing.T) {
	for _, workers := range []int{1, 2} {
		tree := mustCompile(t, arbor.NewRegistry(), arbor.WaitTicks(1))
		m := arbor.NewManager(arbor.WithWorkers(workers))
		for i := 0; i < 1000; i++ {
			m.Add(tree)
		}
		boom := func(a *arbor.Agent) {
			if a.ID() == 500 {
				panic("sensor broke")
			}
		}
		got := func() (r any) {
			defer func() { r = recover() }()
			m.TickWith(time.Second, boom)
			return nil
		}()
		if got != "sensor broke" {
			t.Fatalf("workers=%d: recovered %v, want the before panic", workers, got)
		}
		// The global scope is writable again and the next tick ticks all.
		arbor.NewKey[float64]("@after").Set(m.Agent(0).Blackboard(), 1)
		if v, err := arbor.NewKey[float64]("@after").Get(m.Agent(1).Blackboard()); err != nil || v != 1 {
			t.Fatalf("workers=%d: global write after the panic: %v %v", workers, v, err)
		}
		m.Tick(2 * time.Second)
		for _, a := range m.Agents() {
			if a.Now() != 2*time.Second {
				t.Fatalf("workers=%d: agent %d not ticked after the panic (now %v)", workers, a.ID(), a.Now())
			}
		}
		m.Close()
	}
}

// A worker done with its own share of the agents ticks the rest of a
// worker that is held up: here the first agent of the second half waits
// until every agent outside its chunk of 64 has been ticked, which only a
// worker taking chunks beyond its own half can do.
func TestManagerWorkersHelpEachOther(t *testing.T) {
	const n = 256
	tree := mustCompile(t, arbor.NewRegistry(), arbor.WaitTicks(1))
	m := arbor.NewManager(arbor.WithWorkers(2))
	defer m.Close()
	for i := 0; i < n; i++ {
		m.Add(tree)
	}
	var ticked atomic.Int64
	waited := make(chan bool, 1)
	hold := func(a *arbor.Agent) {
		if a.ID() == n/2 {
			deadline := time.Now().Add(10 * time.Second)
			for ticked.Load() < n-64 && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			waited <- ticked.Load() >= n-64
		}
		ticked.Add(1)
	}
	m.TickWith(time.Second, hold)
	if !<-waited {
		t.Fatalf("the held-up worker's agents were not ticked by the other worker (%d ticked)", ticked.Load())
	}
	for _, a := range m.Agents() {
		if a.Now() != time.Second {
			t.Fatalf("agent %d not ticked", a.ID())
		}
	}
}

// Ticking from inside a tick is refused, not nested: Agent.Tick reports
// ErrReentrantTick, Manager.Tick is ignored (no deadlock with workers), and
// Manager.Stop waits for the end of the tick.
func TestReentrantCallsFromNodes(t *testing.T) {
	var m *arbor.Manager
	var agentTicks, stops int
	reg := arbor.NewRegistry()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(reg.ActionFunc("TickSelf", func(c *arbor.Ctx) (arbor.Status, error) {
		agentTicks++
		c.Agent().Tick(time.Hour)
		return arbor.Success, nil
	}))
	must(reg.ActionFunc("TickManager", func(c *arbor.Ctx) (arbor.Status, error) {
		m.Tick(time.Hour)
		return arbor.Running, nil
	}))
	must(reg.ActionFunc("Stop", func(c *arbor.Ctx) (arbor.Status, error) {
		if c.Agent().ID() == 0 {
			stops++
			m.Stop()
		}
		return arbor.Running, nil
	}))

	var errs []*arbor.NodeError
	a := arbor.NewAgent(mustCompile(t, reg, arbor.Sequence(arbor.Leaf("TickSelf"))), arbor.WithErrorHandler(func(e *arbor.NodeError) { errs = append(errs, e) }))
	if s := a.Tick(time.Second); s != arbor.Success || agentTicks != 1 {
		t.Fatalf("tick: %v, %d user ticks (want success, 1: no nested tick)", s, agentTicks)
	}
	if len(errs) != 1 || !errors.Is(errs[0], arbor.ErrReentrantTick) || errs[0].Path != "main.children[0]" {
		t.Fatalf("errors %v, want ErrReentrantTick at main.children[0]", errs)
	}

	for _, leaf := range []string{"TickManager", "Stop"} {
		m = arbor.NewManager(arbor.WithWorkers(2))
		tree := mustCompile(t, reg, arbor.Leaf(leaf))
		var halts atomic.Int32
		for i := 0; i < 200; i++ {
			m.Add(tree, arbor.WithTracer(func(_ *arbor.Agent, e arbor.Event) {
				if e.Kind == arbor.EventHalt {
					halts.Add(1)
				}
			}))
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			m.Tick(time.Second)
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: Manager.Tick from inside a node did not return", leaf)
		}
		if leaf == "Stop" {
			if stops != 1 || halts.Load() != 200 {
				t.Errorf("Stop from a node: %d stops, %d halts after the tick, want 1 and 200", stops, halts.Load())
			}
			m.Tick(2 * time.Second) // the manager ticks again after Stop
			if stops != 2 {
				t.Errorf("after Stop: %d stops, want 2", stops)
			}
		}
		m.Stop()
	}
}

// Add gives an agent the manager's id and global scope whatever the
// options say, and logs once that it ignored WithID or WithGlobals.
func TestAddIgnoresIDAndGlobals(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.Leaf("Success")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := arbor.NewManager()
	defer m.Close()
	plain := m.Add(tree)
	if strings.Contains(buf.String(), "ignores") {
		t.Errorf("logged for an Add without those options: %q", buf.String())
	}
	other := arbor.NewGlobals()
	a := m.Add(tree, arbor.WithID(42), arbor.WithGlobals(other))
	b := m.Add(tree, arbor.WithID(43))
	if plain.ID() != 0 || a.ID() != 1 || b.ID() != 2 {
		t.Errorf("ids %d, %d, %d; want 0, 1, 2", plain.ID(), a.ID(), b.ID())
	}
	if a.Blackboard().Globals() != m.Globals() {
		t.Error("the agent got the option's global scope, not the manager's")
	}
	if n := strings.Count(buf.String(), "Manager.Add ignores WithID and WithGlobals"); n != 1 {
		t.Errorf("logged %d times, want once: %q", n, buf.String())
	}
}

// The manager's loop ticks an agent by its root's walk directly when its
// state says that nothing else is needed: not paused, busy or traced, no
// operation waiting, no observers, a root that walk ticks. Every change of
// that state must reach the loop, made between ticks, from the before
// function or from inside a tick. An agent ticked by a Manager and its twin
// ticked by Agent.Tick go through the same changes and must give the same
// statuses, node events and user ticks, tick after tick.
func TestManagerFollowsAgentChanges(t *testing.T) {
	type twin struct {
		a      *arbor.Agent
		events []string
		steps  int
	}
	// inTick[k] runs in the Step node of both twins in tick k; before[k]
	// and between[k] run before tick k (from TickWith's before function
	// for the managed twin).
	var inTick, before, between map[int]func(*twin)
	reg := arbor.NewRegistry()
	var twins [2]*twin
	tickOf := func(a *arbor.Agent) int { return int(a.Now() / time.Second) }
	twinOf := func(a *arbor.Agent) *twin {
		for _, tw := range twins {
			if tw.a == a {
				return tw
			}
		}
		panic("unknown agent")
	}
	if err := reg.ActionFunc("Step", func(c *arbor.Ctx) (arbor.Status, error) {
		tw := twinOf(c.Agent())
		tw.steps++
		if f := inTick[tickOf(c.Agent())]; f != nil {
			f(tw)
		}
		return arbor.Success, nil
	}); err != nil {
		t.Fatal(err)
	}
	walked := mustCompile(t, reg, arbor.ReactiveSequence(arbor.Leaf("Step"), arbor.Check("stop", "!=", true), arbor.AlwaysRunning()))
	notWalked := mustCompile(t, reg, arbor.Inverter(arbor.Sequence(arbor.Leaf("Step"), arbor.AlwaysFailure())))
	observed := mustCompile(t, reg, arbor.Selector(
		arbor.Check("alarm", "==", true), arbor.Sequence(arbor.Leaf("Step"), arbor.AlwaysRunning())).WithAbort(arbor.AbortSelf))

	m := arbor.NewManager(arbor.WithWorkers(1))
	twins[0] = &twin{a: m.Add(walked)}
	twins[1] = &twin{a: arbor.NewAgent(walked, arbor.WithID(twins[0].a.ID()))}
	tracer := func(a *arbor.Agent, e arbor.Event) {
		tw := twinOf(a)
		tw.events = append(tw.events, fmt.Sprintf("%v %d %v", e.Kind, e.Node, e.Status))
	}
	setTracer := func(tw *twin) { tw.a.SetTracer(tracer) }
	noTracer := func(tw *twin) { tw.a.SetTracer(nil) }
	set := func(key string, v any) func(*twin) {
		return func(tw *twin) { tw.a.Blackboard().Set(key, v) }
	}
	setTree := func(tree *arbor.Tree) func(*twin) {
		return func(tw *twin) {
			if err := tw.a.SetTree(tree); err != nil {
				t.Fatal(err)
			}
		}
	}
	force := func(tw *twin) {
		if err := tw.a.Force(1, arbor.Failure); err != nil { // Step
			t.Fatal(err)
		}
	}
	unforce := func(tw *twin) {
		if err := tw.a.Unforce(1); err != nil {
			t.Fatal(err)
		}
	}
	pause := func(tw *twin) { tw.a.Pause() }
	resume := func(tw *twin) { tw.a.Resume() }
	between = map[int]func(*twin){
		1: set("stop", false), 2: setTracer, 3: noTracer, 8: resume, 10: resume, 13: force, 14: unforce,
		18: set("stop", true), 19: set("stop", false),
		30: set("alarm", false), 32: set("alarm", true), 33: set("alarm", false), 35: set("alarm", true), 36: noTracer,
	}
	before = map[int]func(*twin){
		9: pause, 11: setTracer, 12: noTracer, 15: setTree(notWalked), 17: setTree(walked),
		20: func(tw *twin) { tw.a.Reset() }, 21: func(tw *twin) { tw.a.Halt() },
		24: setTracer, 25: func(tw *twin) { force(tw); noTracer(tw) }, 26: unforce,
		30: setTree(observed), 37: setTree(walked),
	}
	inTick = map[int]func(*twin){
		4: setTracer, 5: noTracer, 6: pause,
		22: func(tw *twin) { tw.a.Halt(); tw.a.Reset() }, 23: func(tw *twin) { tw.a.Pause(); tw.a.Resume() },
		27: func(tw *twin) { setTracer(tw); tw.a.Halt() }, 28: noTracer,
		33: setTracer,
	}
	var befores, idle, traced []int
	for tick := 1; tick <= 40; tick++ {
		now := time.Duration(tick) * time.Second
		for _, tw := range twins {
			tw.events, tw.steps = nil, 0
			if f := between[tick]; f != nil {
				f(tw)
			}
		}
		if f := before[tick]; f != nil && !twins[1].a.Paused() {
			f(twins[1])
		}
		twins[1].a.Tick(now)
		m.TickWith(now, func(a *arbor.Agent) {
			befores = append(befores, tick)
			if f := before[tick]; f != nil {
				f(twins[0])
			}
		})
		got, want := twins[0], twins[1]
		if got.a.Status() != want.a.Status() || got.a.Paused() != want.a.Paused() || got.steps != want.steps ||
			fmt.Sprint(got.events) != fmt.Sprint(want.events) {
			t.Fatalf("tick %d: managed agent: %v, paused %v, %d steps, events %v; ticked alone: %v, paused %v, %d steps, events %v",
				tick, got.a.Status(), got.a.Paused(), got.steps, got.events, want.a.Status(), want.a.Paused(), want.steps, want.events)
		}
		if got.steps == 0 {
			idle = append(idle, tick)
		}
		if len(got.events) > 0 {
			traced = append(traced, tick)
		}
		if tick == 34 && !strings.HasPrefix(fmt.Sprint(got.events), "[eval") {
			// The observer re-evaluates its Check.
			t.Errorf("tick 34: events %v, want an eval first", got.events)
		}
	}
	// Not ticked: 7 (paused in tick 6, resumed before 8) and 9 (paused by
	// before); no step in 13 and 25 (Step forced), nor from 31 to 36 but
	// in 33 (the observed tree runs its second branch, which its observer
	// of "alarm", registered in 30 and 33, aborts in 32 and 35). Before
	// is not called for a paused agent: in 7.
	if fmt.Sprint(idle) != "[7 9 13 25 31 32 34 35 36]" || fmt.Sprint(befores) != fmt.Sprint(slicesWithout(40, 7)) {
		t.Errorf("ticks without a step: %v; before called in ticks %v", idle, befores)
	}
	// Traced: 2 (set between ticks), 4 and 5 (set in 4, after which the
	// nodes that tickNode ticks emit their events; removed in 5), 11 (set
	// by before), 24 (before), 27 (set in that tick, then the halt that
	// waited for its end), 28 (removed in that tick), 33 to 35 (set in 33,
	// removed before 36).
	if fmt.Sprint(traced) != "[2 4 5 11 24 27 28 33 34 35]" {
		t.Errorf("ticks with events: %v", traced)
	}
}

// slicesWithout returns 1..n without the given numbers.
func slicesWithout(n int, skip ...int) []int {
	var out []int
	for i := 1; i <= n; i++ {
		if !slices.Contains(skip, i) {
			out = append(out, i)
		}
	}
	return out
}
