package arbor_test

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

func TestWatchdogReportsSlowTicks(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := reg.ActionFunc("Slow", func(*arbor.Ctx) (arbor.Status, error) {
		time.Sleep(20 * time.Millisecond)
		return arbor.Success, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := reg.ActionFunc("Fast", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }); err != nil {
		t.Fatal(err)
	}
	var slow []*arbor.NodeError
	a := arbor.NewAgent(mustCompile(t, reg, arbor.Sequence(arbor.Leaf("Fast"), arbor.Leaf("Slow"))),
		arbor.WithWatchdog(time.Millisecond, func(e *arbor.NodeError) { slow = append(slow, e) }))
	if s := a.Tick(time.Second); s != arbor.Success {
		t.Fatalf("status %v: the watchdog must not change results", s)
	}
	var se *arbor.SlowError
	if len(slow) != 1 || slow[0].Path != "main.children[1]" || !errors.As(slow[0].Err, &se) || se.Elapsed < se.Budget {
		t.Fatalf("reports %v", slow)
	}
}

// slowStart takes its time in Start and Halt, not in Tick.
type slowStart struct{}

func (slowStart) Start(*arbor.Ctx, *struct{}) error { time.Sleep(20 * time.Millisecond); return nil }
func (slowStart) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) {
	return arbor.Running, nil
}
func (slowStart) Halt(*arbor.Ctx, *struct{}) { time.Sleep(20 * time.Millisecond) }

// The watchdog times every user callback, not only Tick; with a nil
// handler it logs.
func TestWatchdogTimesEveryCallback(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[slowStart, struct{}](reg, "SlowStart"); err != nil {
		t.Fatal(err)
	}
	tree := mustCompile(t, reg, arbor.Leaf("SlowStart"))
	var slow []*arbor.NodeError
	a := arbor.NewAgent(tree, arbor.WithWatchdog(time.Millisecond, func(e *arbor.NodeError) { slow = append(slow, e) }))
	a.Tick(time.Second)
	a.Halt()
	if len(slow) != 2 {
		t.Fatalf("%d reports, want 2 (start and halt): %v", len(slow), slow)
	}

	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	b := arbor.NewAgent(tree, arbor.WithWatchdog(time.Millisecond, nil))
	// The default log is rate-limited per second, and other tests log too:
	// keep starting and halting until a second lets the report through.
	for i := 0; i < 40 && !strings.Contains(buf.String(), "over the watchdog budget"); i++ {
		b.Tick(time.Second)
		b.Halt()
	}
	if !strings.Contains(buf.String(), "over the watchdog budget") {
		t.Fatalf("nil handler: log %q", buf.String())
	}
}

// Node errors logged by default are rate-limited.
func TestDefaultErrorLogIsRateLimited(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	a := arbor.NewAgent(mustCompile(t, arbor.NewRegistry(), arbor.Leaf(arbor.ErrorType, "message", "boom")))
	for i := 0; i < 200; i++ {
		a.Tick(time.Duration(i) * time.Millisecond)
	}
	if n := strings.Count(buf.String(), "boom"); n == 0 || n > 20 {
		t.Fatalf("%d of 200 errors logged, want a few (at most 10 a second)", n)
	}
}

// panicky panics on every third tick of its agent.
type panicky struct{}

type panickyMem struct{ n int }

func (panicky) Tick(_ *arbor.Ctx, m *panickyMem) (arbor.Status, error) {
	m.n++
	if m.n%3 == 0 {
		panic("boom")
	}
	return arbor.Running, nil
}

// Panics in user nodes under parallel ticking fail only those nodes: the
// manager keeps ticking every agent, and each fault is reported with its
// agent (run with -race).
func TestPanicsUnderParallelTicking(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[panicky, panickyMem](reg, "Panicky"); err != nil {
		t.Fatal(err)
	}
	tree := mustCompile(t, reg, arbor.Selector(arbor.Leaf("Panicky"), arbor.Set("fallback", true)))
	var mu sync.Mutex
	faults := map[int]int{}
	m := arbor.NewManager(arbor.WithWorkers(2), arbor.WithManagerErrorHandler(func(e *arbor.NodeError) {
		var pe *arbor.PanicError
		if !errors.As(e.Err, &pe) {
			t.Errorf("fault %v is not a panic", e)
		}
		mu.Lock()
		faults[e.Agent.ID()]++
		mu.Unlock()
	}))
	defer m.Close()
	for i := 0; i < 1000; i++ {
		m.Add(tree)
	}
	for tick := 1; tick <= 9; tick++ {
		m.Tick(time.Duration(tick) * time.Second)
	}
	for _, a := range m.Agents() {
		if faults[a.ID()] != 3 {
			t.Fatalf("agent %d: %d faults, want 3", a.ID(), faults[a.ID()])
		}
		if v := a.Blackboard().Value("fallback"); v.String() != "true" {
			t.Fatalf("agent %d: the selector did not fall back after the panic", a.ID())
		}
	}
}

// A panicking error handler or tracer is logged and goes no further: the
// tick completes and the agent is not left inside it.
func TestPanickingHandlersDoNotBreakTheAgent(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	tree := mustCompile(t, arbor.NewRegistry(), arbor.Sequence(arbor.Leaf(arbor.ErrorType, "message", "boom")))
	for name, opt := range map[string]arbor.AgentOption{
		"error handler": arbor.WithErrorHandler(func(*arbor.NodeError) { panic("handler") }),
		"tracer":        arbor.WithTracer(func(*arbor.Agent, arbor.Event) { panic("tracer") }),
	} {
		a := arbor.NewAgent(tree, opt)
		if s := a.Tick(time.Second); s != arbor.Failure {
			t.Errorf("%s: tick %v, want failure", name, s)
		}
		if _, err := a.Snapshot(); err != nil {
			t.Errorf("%s: the agent is still inside its tick: %v", name, err)
		}
	}
}

// The default log of a panic in a user node carries the stack, which
// points at the program's code.
func TestDefaultErrorLogOfAPanicHasTheStack(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[panicky, panickyMem](reg, "Panicky"); err != nil {
		t.Fatal(err)
	}
	a := arbor.NewAgent(mustCompile(t, reg, arbor.Leaf("Panicky")))
	// The default log is rate-limited per second, and other tests log
	// too: tick until a second lets the report through.
	deadline := time.Now().Add(3 * time.Second)
	for i := 0; time.Now().Before(deadline) && !strings.Contains(buf.String(), "panicky.Tick"); i++ {
		a.Tick(time.Duration(i) * time.Millisecond)
		time.Sleep(time.Millisecond)
	}
	if log := buf.String(); !strings.Contains(log, "panic: boom") || !strings.Contains(log, "stack=") || !strings.Contains(log, "panicky.Tick") {
		t.Fatalf("log %q: want the panic with a stack through panicky.Tick", log)
	}
}

// In a manager tick the plain user nodes that the root's walk ticks have
// no panic barrier of their own: the manager's has one for all its agents
// and resumes the agent's tick after the node that panicked. Agents ticked
// by managers (one and two workers, so chunks of agents, several panics
// in one chunk and in one agent's tick) must do exactly what the same
// agents ticked one by one do: statuses, running nodes, agent-scope
// blackboards, node errors and the user nodes' calls, tick after tick;
// and global writes made after a panic in the tick are applied (the
// manager's global scope holds the last writer's value).
func TestManagerBarrierMatchesAgentTick(t *testing.T) {
	type rec struct {
		calls []string
		errs  []string
		wrote bool // G ran this tick
	}
	reg := arbor.NewRegistry()
	for _, name := range []string{"A", "B", "C", "D"} {
		key := arbor.NewKey[float64]("r" + name)
		if err := reg.ActionFunc(name, func(c *arbor.Ctx) (arbor.Status, error) {
			r := arbor.Owner[*rec](c)
			v, _ := key.Get(c.Blackboard())
			r.calls = append(r.calls, fmt.Sprintf("%s %v %v", name, c.Path(), v))
			switch v {
			case 0:
				return arbor.Success, nil
			case 1:
				return arbor.Failure, nil
			case 2:
				return arbor.Running, nil
			}
			panic(fmt.Sprintf("%s panics", name))
		}); err != nil {
			t.Fatal(err)
		}
	}
	g := arbor.NewKey[float64]("@g")
	if err := reg.ActionFunc("G", func(c *arbor.Ctx) (arbor.Status, error) {
		arbor.Owner[*rec](c).wrote = true
		g.Set(c.Blackboard(), float64(c.Agent().ID()*1000)+c.Now().Seconds())
		return arbor.Success, nil
	}); err != nil {
		t.Fatal(err)
	}
	tree := mustCompile(t, reg, arbor.ReactiveSelector(
		arbor.Sequence(arbor.Check("hp", "<", 30), arbor.Leaf("A"), arbor.Set("x", 1)).WithAbort(arbor.AbortLower),
		arbor.ReactiveSequence(arbor.Leaf("B"), arbor.Sequence(arbor.Leaf("C"), arbor.Leaf("A")), arbor.Leaf("G")),
		arbor.Inverter(arbor.Sequence(arbor.Leaf("D"), arbor.Leaf("B"))),
		arbor.SequenceWithMemory(arbor.Leaf("C"), arbor.Leaf("D"), arbor.Leaf("G")),
	))
	const n, ticks = 300, 60
	sense := func(a *arbor.Agent, tick int) {
		x := uint64(a.ID()*7919+tick*104729) * 0x9e3779b97f4a7c15
		bb := a.Blackboard()
		arbor.NewKey[float64]("hp").Set(bb, float64(x>>8%60))
		for k, name := range []string{"A", "B", "C", "D"} {
			arbor.NewKey[float64]("r"+name).Set(bb, float64(x>>(16+4*k)%4))
		}
	}
	local := func(a *arbor.Agent) string {
		var b strings.Builder
		for _, e := range a.Blackboard().Entries() {
			if !strings.HasPrefix(e.Key, "@") {
				fmt.Fprintf(&b, "%s=%v ", e.Key, e.Value)
			}
		}
		return b.String()
	}
	for _, workers := range []int{1, 2} {
		m := arbor.NewManager(arbor.WithWorkers(workers))
		var want, got []*arbor.Agent
		var wantRec, gotRec []*rec
		for i := 0; i < n; i++ {
			gr, wr := &rec{}, &rec{}
			handler := func(r *rec) arbor.AgentOption {
				return arbor.WithErrorHandler(func(e *arbor.NodeError) {
					var pe *arbor.PanicError
					if errors.As(e.Err, &pe) && !strings.Contains(pe.Stack, "TestManagerBarrierMatchesAgentTick") {
						t.Errorf("the panic's stack does not show the node's function:\n%s", pe.Stack)
					}
					r.errs = append(r.errs, fmt.Sprintf("%s at %v: %v", e.Path, e.Time, e.Err))
				})
			}
			got = append(got, m.Add(tree, arbor.WithOwner(gr), handler(gr)))
			want = append(want, arbor.NewAgent(tree, arbor.WithID(i), arbor.WithOwner(wr), handler(wr)))
			gotRec, wantRec = append(gotRec, gr), append(wantRec, wr)
		}
		panics, writes, lastG := 0, 0, 0.0
		for tick := 1; tick <= ticks; tick++ {
			now := time.Duration(tick) * time.Second
			m.TickWith(now, func(a *arbor.Agent) { sense(a, tick) })
			for i, a := range want {
				sense(a, tick)
				a.Tick(now)
				ga, gr, wr := got[i], gotRec[i], wantRec[i]
				var diff string
				switch {
				case ga.Status() != a.Status():
					diff = fmt.Sprintf("status %v, want %v", ga.Status(), a.Status())
				case local(ga) != local(a):
					diff = fmt.Sprintf("blackboard %s, want %s", local(ga), local(a))
				case !slices.Equal(gr.errs, wr.errs):
					diff = fmt.Sprintf("errors %q, want %q", gr.errs, wr.errs)
				case !slices.Equal(gr.calls, wr.calls) || gr.wrote != wr.wrote:
					diff = fmt.Sprintf("calls %q (G %v), want %q (G %v)", gr.calls, gr.wrote, wr.calls, wr.wrote)
				}
				for id := 0; diff == "" && id < tree.Len(); id++ {
					if ga.Running(id) != a.Running(id) {
						diff = fmt.Sprintf("node %s running %v, want %v", tree.Node(id).Path, ga.Running(id), a.Running(id))
					}
				}
				if diff != "" {
					t.Fatalf("workers=%d, tick %d, agent %d: %s", workers, tick, i, diff)
				}
				if wr.wrote {
					lastG = float64(i*1000 + tick)
					if len(wr.errs) > 0 {
						writes++
					}
				}
				panics += len(wr.errs)
				gr.calls, gr.errs, gr.wrote, wr.calls, wr.errs, wr.wrote = nil, nil, false, nil, nil, false
			}
			if v, _ := m.Globals().Lookup("@g", now); !v.Equal(arbor.ValueOf(lastG)) {
				t.Fatalf("workers=%d, tick %d: @g = %v, want %v (the last writer's)", workers, tick, v, lastG)
			}
		}
		m.Close()
		if panics < n*ticks/10 || writes < 20 {
			t.Fatalf("workers=%d: only %d panics, %d global writes in a tick with a panic", workers, panics, writes)
		}
	}
}

// A plain user action ticked bare by a manager (bareFunc) reports what
// the same action ticked by Agent.Tick reports: an error, an invalid
// status, or nothing; with its memory and running state the same.
func TestManagerBadResultsMatchAgentTick(t *testing.T) {
	reg := arbor.NewRegistry()
	r := arbor.NewKey[float64]("r")
	if err := arbor.RegisterActionFactory[oddMem](reg, "Odd", nil, func(map[string]any) (arbor.Action[oddMem], error) {
		return oddAction(func(c *arbor.Ctx, m *oddMem) (arbor.Status, error) {
			m.n++
			v, _ := r.Get(c.Blackboard())
			switch v {
			case 0:
				return arbor.Running, nil
			case 1:
				return arbor.Invalid, nil
			case 2:
				return arbor.Status(4), nil
			case 3:
				return arbor.Success, errors.New("odd")
			case 4:
				return arbor.Failure, nil
			}
			return arbor.Status(255), nil
		}), nil
	}); err != nil {
		t.Fatal(err)
	}
	tree := mustCompile(t, reg, arbor.ReactiveSelector(
		arbor.Sequence(arbor.Check("r", "==", 5), arbor.Leaf("Odd")),
		arbor.Sequence(arbor.Leaf("Odd"), arbor.Leaf("Odd")),
	))
	var errs [2][]string
	handler := func(k int) arbor.AgentOption {
		return arbor.WithErrorHandler(func(e *arbor.NodeError) {
			errs[k] = append(errs[k], fmt.Sprintf("%s at %v: %v", e.Path, e.Time, e.Err))
		})
	}
	m := arbor.NewManager(arbor.WithWorkers(1))
	defer m.Close()
	got := m.Add(tree, handler(0))
	want := arbor.NewAgent(tree, arbor.WithID(got.ID()), handler(1))
	for tick := 1; tick <= 200; tick++ {
		v := float64(uint64(tick*7919) * 0x9e3779b97f4a7c15 >> 20 % 6)
		now := time.Duration(tick) * time.Second
		m.TickWith(now, func(a *arbor.Agent) { r.Set(a.Blackboard(), v) })
		r.Set(want.Blackboard(), v)
		want.Tick(now)
		if got.Status() != want.Status() || !slices.Equal(errs[0], errs[1]) {
			t.Fatalf("tick %d: status %v, errors %q; want %v, %q", tick, got.Status(), errs[0], want.Status(), errs[1])
		}
		for id := 0; id < tree.Len(); id++ {
			if got.Running(id) != want.Running(id) {
				t.Fatalf("tick %d: node %s running %v, want %v", tick, tree.Node(id).Path, got.Running(id), want.Running(id))
			}
		}
		a, _ := got.Snapshot()
		b, _ := want.Snapshot()
		if !bytes.Equal(a, b) {
			t.Fatalf("tick %d: snapshots differ", tick)
		}
	}
	if len(errs[0]) < 50 {
		t.Fatalf("only %d errors", len(errs[0]))
	}
}

// oddMem is oddAction's memory: its ticks in the activation.
type oddMem struct{ n int64 }

type oddAction func(c *arbor.Ctx, m *oddMem) (arbor.Status, error)

func (f oddAction) Tick(c *arbor.Ctx, m *oddMem) (arbor.Status, error) { return f(c, m) }
