package arbor_test

import (
	"bytes"
	"errors"
	"log/slog"
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
