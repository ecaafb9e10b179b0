package arbor_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// unLog records user callbacks. Agents carry it as their owner, so that
// probes (shared by every agent) log to the agent's own record.
type unLog struct{ events []string }

func (l *unLog) add(format string, args ...any) {
	if l != nil {
		l.events = append(l.events, fmt.Sprintf(format, args...))
	}
}

// take returns the events recorded since the last take.
func (l *unLog) take() []string {
	e := l.events
	l.events = nil
	return e
}

func unLogOf(c *arbor.Ctx) *unLog { return arbor.Owner[*unLog](c) }

// unProbe is a recording action with every callback. It runs for `run`
// ticks (-1: forever) and then returns `result`; `panic` names a callback
// that panics, `fail` one (start or tick) that returns an error.
type unProbe struct {
	Run    int    `arbor:"run"`
	Result string `arbor:"result,default=success"`
	Panic  string `arbor:"panic"`
	Fail   string `arbor:"fail"`
}

type unProbeMem struct{ ticks int }

func (p *unProbe) Awake(c *arbor.Ctx, _ *unProbeMem) {
	unLogOf(c).add("%s:awake", c.Name())
	if p.Panic == "awake" {
		panic("awake boom")
	}
}

func (p *unProbe) Start(c *arbor.Ctx, _ *unProbeMem) error {
	unLogOf(c).add("%s:start", c.Name())
	if p.Panic == "start" {
		panic("start boom")
	}
	if p.Fail == "start" {
		return errors.New("start failed")
	}
	return nil
}

func (p *unProbe) Tick(c *arbor.Ctx, m *unProbeMem) (arbor.Status, error) {
	unLogOf(c).add("%s:tick", c.Name())
	if p.Panic == "tick" {
		panic("tick boom")
	}
	if p.Fail == "tick" {
		return arbor.Success, errors.New("tick failed")
	}
	m.ticks++
	if p.Run < 0 || m.ticks <= p.Run {
		return arbor.Running, nil
	}
	s, _ := arbor.ParseStatus(p.Result)
	return s, nil
}

func (p *unProbe) End(c *arbor.Ctx, _ *unProbeMem, s arbor.Status) {
	unLogOf(c).add("%s:end(%v)", c.Name(), s)
	if p.Panic == "end" {
		panic("end boom")
	}
}

func (p *unProbe) Halt(c *arbor.Ctx, _ *unProbeMem) {
	unLogOf(c).add("%s:halt", c.Name())
	if p.Panic == "halt" {
		panic("halt boom")
	}
}

func (p *unProbe) Pause(c *arbor.Ctx, _ *unProbeMem, paused bool) {
	unLogOf(c).add("%s:pause(%v)", c.Name(), paused)
	if p.Panic == "pause" {
		panic("pause boom")
	}
}

// unCounter logs its memory at start and counts ticks in it; it succeeds
// when the count reaches `done`.
type unCounter struct {
	Done   int    `arbor:"done,default=2"`
	Result string `arbor:"result,default=success"`
}

type unCounterMem struct{ n int }

func (p *unCounter) Start(c *arbor.Ctx, m *unCounterMem) error {
	unLogOf(c).add("%s:start n=%d", c.Name(), m.n)
	return nil
}

func (p *unCounter) End(c *arbor.Ctx, m *unCounterMem, s arbor.Status) {
	unLogOf(c).add("%s:end n=%d", c.Name(), m.n)
}

func (p *unCounter) Halt(c *arbor.Ctx, m *unCounterMem) {
	unLogOf(c).add("%s:halt n=%d", c.Name(), m.n)
}

func (p *unCounter) Tick(c *arbor.Ctx, m *unCounterMem) (arbor.Status, error) {
	m.n++
	if m.n < p.Done {
		return arbor.Running, nil
	}
	s, _ := arbor.ParseStatus(p.Result)
	return s, nil
}

// unClock logs the agent's time at start and halt, and checks the Ctx's
// node accessors.
type unClock struct{}

func (unClock) Start(c *arbor.Ctx, _ *struct{}) error {
	unLogOf(c).add("%s:start@%v", c.Name(), c.Now())
	if info := c.Agent().Tree().Node(c.Node()); c.Path() != info.Path || c.Name() != info.Label() {
		unLogOf(c).add("Ctx node mismatch: %q %q", c.Path(), info.Path)
	}
	if c.Blackboard() != c.Agent().Blackboard() || c.Now() != c.Agent().Now() {
		unLogOf(c).add("Ctx agent mismatch")
	}
	return nil
}

func (unClock) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) { return arbor.Running, nil }

func (unClock) Halt(c *arbor.Ctx, _ *struct{}) { unLogOf(c).add("%s:halt@%v", c.Name(), c.Now()) }

// unMove exercises parameter decoding.
type unMove struct {
	Target arbor.Param[string] `arbor:"target,required"`
	Speed  float64             `arbor:"speed,default=2.5"`
	Steps  int                 `arbor:"steps,default=3"`
	Mode   string              `arbor:"mode,default=walk"`
	Delay  time.Duration       `arbor:"delayMs"`
	Tags   []string            `arbor:"tags"`
	Big    int64               `arbor:"big"`
	Loud   bool
}

type unMoveMem struct{ target string }

// unMoveOut is what MoveTo writes to the blackboard key "out".
type unMoveOut struct {
	Target string
	Speed  float64
	Steps  int
	Mode   string
	Delay  time.Duration
	Tags   []string
	Loud   bool
}

var unOutKey = arbor.NewKey[unMoveOut]("out")

func (p *unMove) Start(c *arbor.Ctx, m *unMoveMem) error {
	t, err := p.Target.Get(c)
	if err != nil {
		return err
	}
	m.target = t
	return nil
}

func (p *unMove) Tick(c *arbor.Ctx, m *unMoveMem) (arbor.Status, error) {
	unOutKey.Set(c.Blackboard(), unMoveOut{m.target, p.Speed, p.Steps, p.Mode, p.Delay, p.Tags, p.Loud})
	return arbor.Success, nil
}

// unRequestKey holds an agent operation for the Req action to request from
// inside the tick.
var unRequestKey = arbor.NewKey[string]("request")

// unRegistry returns a registry with the test node types.
func unRegistry(t *testing.T) *arbor.Registry {
	t.Helper()
	reg := arbor.NewRegistry()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(arbor.RegisterAction[unProbe, unProbeMem](reg, "Probe"))
	must(arbor.RegisterAction[unCounter, unCounterMem](reg, "Counter"))
	must(arbor.RegisterAction[unCounter, unCounterMem](reg, "KeepCounter", arbor.KeepMemory()))
	must(arbor.RegisterAction[unMove, unMoveMem](reg, "MoveTo"))
	must(arbor.RegisterAction[unClock, struct{}](reg, "Clock"))
	must(reg.ActionFunc("Req", func(c *arbor.Ctx) (arbor.Status, error) {
		req, err := unRequestKey.Get(c.Blackboard())
		if err != nil {
			return arbor.Running, nil
		}
		unRequestKey.Delete(c.Blackboard())
		unLogOf(c).add("req:%s", req)
		switch req {
		case "halt":
			c.Agent().Halt()
		case "reset":
			c.Agent().Reset()
		case "pause":
			c.Agent().Pause()
		}
		return arbor.Running, nil
	}))
	must(reg.ActionFunc("ReqHaltNow", func(c *arbor.Ctx) (arbor.Status, error) {
		unLogOf(c).add("req:halt")
		c.Agent().Halt()
		return arbor.Success, nil
	}))
	must(reg.ConditionFunc("Flaky", func(c *arbor.Ctx) (bool, error) {
		mode, _ := arbor.NewKey[string]("mode").Get(c.Blackboard())
		switch mode {
		case "error":
			return false, errors.New("flaky failed")
		case "true-with-error":
			return true, errors.New("flaky failed but said true")
		case "panic":
			panic("flaky boom")
		}
		return mode == "true", nil
	}))
	return reg
}

func unCompile(t *testing.T, reg *arbor.Registry, root *arbor.Node) *arbor.Tree {
	t.Helper()
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": root}}, reg)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return tree
}

// unRun is an agent with its log and the errors it reported.
type unRun struct {
	*arbor.Agent
	log  *unLog
	errs []*arbor.NodeError
}

func unStart(tree *arbor.Tree, opts ...arbor.AgentOption) *unRun {
	r := &unRun{log: &unLog{}}
	opts = append([]arbor.AgentOption{arbor.WithOwner(r.log), arbor.WithErrorHandler(func(e *arbor.NodeError) { r.errs = append(r.errs, e) })}, opts...)
	r.Agent = arbor.NewAgent(tree, opts...)
	return r
}

// unP is a Probe leaf named name.
func unP(name string, params ...any) *arbor.Node { return arbor.Leaf("Probe", params...).Named(name) }

// unID returns the id of the node labelled label.
func unID(t *testing.T, tree *arbor.Tree, label string) int {
	t.Helper()
	for i := 0; i < tree.Len(); i++ {
		if tree.Node(i).Label() == label {
			return i
		}
	}
	t.Fatalf("no node labelled %q", label)
	return -1
}

func unEqual(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// unStep is one tick of a lifecycle table: the time, the expected root
// status and the user callbacks logged during the tick.
type unStep struct {
	now    time.Duration
	before func(r *unRun)
	status arbor.Status
	events []string
}

func unSteps(t *testing.T, r *unRun, steps []unStep) {
	t.Helper()
	for i, s := range steps {
		if s.before != nil {
			s.before(r)
		}
		got := r.Tick(s.now)
		if got != s.status {
			t.Errorf("tick %d (t=%v): status %v, want %v", i, s.now, got, s.status)
		}
		unEqual(t, fmt.Sprintf("tick %d (t=%v) events", i, s.now), r.log.take(), s.events)
	}
}

func TestUserNodeLifecycle(t *testing.T) {
	reg := unRegistry(t)
	ms := time.Millisecond

	t.Run("awake is called once per agent when it is bound, never by ticks or reset", func(t *testing.T) {
		tree := unCompile(t, reg, arbor.Sequence(unP("A", "run", 1), unP("B")))
		r1 := unStart(tree)
		awake := r1.log.take()
		if len(awake) != 2 || !unContains(awake, "A:awake") || !unContains(awake, "B:awake") {
			t.Fatalf("awake events for a new agent: %q, want A:awake and B:awake once each", awake)
		}
		r2 := unStart(tree)
		if got := r2.log.take(); len(got) != 2 {
			t.Fatalf("second agent: %q, want its own two awake events", got)
		}
		if got := r1.log.take(); len(got) != 0 {
			t.Fatalf("binding a second agent called the first agent's awake: %q", got)
		}
		for i := 0; i < 4; i++ {
			r1.Tick(time.Duration(i) * ms)
		}
		r1.Halt()
		r1.Reset()
		r1.Tick(10 * ms)
		for _, e := range r1.log.take() {
			if strings.HasSuffix(e, ":awake") {
				t.Fatalf("awake called again after binding: %q", e)
			}
		}
	})

	lifecycles := []struct {
		name  string
		root  *arbor.Node
		steps []unStep
	}{
		{"an action completing at once gets start, tick, end(success) in one tick",
			unP("A"),
			[]unStep{
				{0, nil, arbor.Success, []string{"A:start", "A:tick", "A:end(success)"}},
				{ms, nil, arbor.Success, []string{"A:start", "A:tick", "A:end(success)"}},
			}},
		{"a failing action gets end(failure)",
			unP("A", "result", "failure"),
			[]unStep{{0, nil, arbor.Failure, []string{"A:start", "A:tick", "A:end(failure)"}}}},
		{"a running action is started once and ended after its last tick",
			unP("A", "run", 2),
			[]unStep{
				{0, nil, arbor.Running, []string{"A:start", "A:tick"}},
				{ms, nil, arbor.Running, []string{"A:tick"}},
				{2 * ms, nil, arbor.Success, []string{"A:tick", "A:end(success)"}},
				{3 * ms, nil, arbor.Running, []string{"A:start", "A:tick"}},
			}},
		{"start and end follow the sequence order",
			arbor.Sequence(unP("A"), unP("B", "run", 1)),
			[]unStep{
				{0, nil, arbor.Running, []string{"A:start", "A:tick", "A:end(success)", "B:start", "B:tick"}},
				{ms, nil, arbor.Success, []string{"B:tick", "B:end(success)"}},
			}},
		{"Agent.Halt halts running nodes only, children before parents, siblings in child order, exactly once",
			arbor.Parallel(-1, 0, arbor.Sequence(unP("A", "run", -1)), unP("B", "run", -1), unP("C")),
			[]unStep{
				{0, nil, arbor.Running, []string{"A:start", "A:tick", "B:start", "B:tick", "C:start", "C:tick", "C:end(success)"}},
				{ms, func(r *unRun) {
					r.Halt()
					unEqual(t, "Agent.Halt events", r.log.take(), []string{"A:halt", "B:halt"})
					r.Halt()
					unEqual(t, "second Agent.Halt events", r.log.take(), nil)
				}, arbor.Running, []string{"A:start", "A:tick", "B:start", "B:tick", "C:start", "C:tick", "C:end(success)"}},
			}},
		{"a decided Parallel halts its running children in child order and not the completed one",
			arbor.Parallel(1, 0, unP("A", "run", -1), arbor.Sequence(unP("B", "run", -1)), unP("C", "run", 1)),
			[]unStep{
				{0, nil, arbor.Running, []string{"A:start", "A:tick", "B:start", "B:tick", "C:start", "C:tick"}},
				{ms, nil, arbor.Success, []string{"A:tick", "B:tick", "C:tick", "C:end(success)", "A:halt", "B:halt"}},
				{2 * ms, func(r *unRun) {
					r.Halt()
					unEqual(t, "Agent.Halt after the Parallel decided", r.log.take(), nil)
				}, arbor.Running, []string{"A:start", "A:tick", "B:start", "B:tick", "C:start", "C:tick"}},
			}},
		{"a node halted by a Timeout is not halted again by Agent.Halt",
			arbor.Sequence(arbor.Timeout(10*ms, unP("A", "run", -1)), unP("B")),
			[]unStep{
				{0, nil, arbor.Running, []string{"A:start", "A:tick"}},
				{5 * ms, nil, arbor.Running, []string{"A:tick"}},
				{10 * ms, nil, arbor.Failure, []string{"A:halt"}},
				{11 * ms, func(r *unRun) {
					r.Halt()
					unEqual(t, "Agent.Halt after the timeout", r.log.take(), nil)
				}, arbor.Running, []string{"A:start", "A:tick"}},
			}},
		{"a failing guard halts the running node once and does not tick it",
			unP("A", "run", -1).WithGuard(arbor.Check("go", "==", true)),
			[]unStep{
				{0, func(r *unRun) { r.Blackboard().Set("go", true) }, arbor.Running, []string{"A:start", "A:tick"}},
				{ms, func(r *unRun) { r.Blackboard().Set("go", false) }, arbor.Failure, []string{"A:halt"}},
				{2 * ms, nil, arbor.Failure, nil},
				{3 * ms, func(r *unRun) { r.Blackboard().Set("go", true) }, arbor.Running, []string{"A:start", "A:tick"}},
			}},
		{"a pre-empted branch is halted after the higher branch's tick",
			arbor.ReactiveSelector(
				arbor.Sequence(arbor.Check("enemy", "==", true), unP("Fight", "run", -1)),
				arbor.Sequence(unP("Patrol", "run", -1)),
			),
			[]unStep{
				{0, nil, arbor.Running, []string{"Patrol:start", "Patrol:tick"}},
				{ms, func(r *unRun) { r.Blackboard().Set("enemy", true) }, arbor.Running, []string{"Fight:start", "Fight:tick", "Patrol:halt"}},
				{2 * ms, nil, arbor.Running, []string{"Fight:tick"}},
			}},
		{"pause(true) and pause(false) go to the running nodes in tree order; a paused agent is not ticked",
			arbor.Parallel(-1, 0, unP("A", "run", -1), arbor.Sequence(unP("B", "run", -1)), unP("C")),
			[]unStep{
				{0, nil, arbor.Running, []string{"A:start", "A:tick", "B:start", "B:tick", "C:start", "C:tick", "C:end(success)"}},
				{ms, func(r *unRun) {
					r.Pause()
					unEqual(t, "Pause events", r.log.take(), []string{"A:pause(true)", "B:pause(true)"})
					if !r.Paused() {
						t.Errorf("Paused() = false after Pause")
					}
				}, arbor.Running, nil},
				{2 * ms, func(r *unRun) {
					r.Resume()
					unEqual(t, "Resume events", r.log.take(), []string{"A:pause(false)", "B:pause(false)"})
				}, arbor.Running, []string{"A:tick", "B:tick"}},
			}},
		{"pausing an agent with nothing running sends no pause",
			unP("A"),
			[]unStep{
				{0, nil, arbor.Success, []string{"A:start", "A:tick", "A:end(success)"}},
				{ms, func(r *unRun) {
					r.Pause()
					r.Resume()
					unEqual(t, "Pause/Resume events", r.log.take(), nil)
				}, arbor.Success, []string{"A:start", "A:tick", "A:end(success)"}},
			}},
	}
	for _, c := range lifecycles {
		t.Run(c.name, func(t *testing.T) {
			tree := unCompile(t, reg, c.root)
			r := unStart(tree)
			r.log.take() // awake
			unSteps(t, r, c.steps)
			if len(r.errs) > 0 {
				t.Errorf("unexpected node errors: %v", r.errs)
			}
		})
	}

	t.Run("halts outside a tick happen at the time of the last tick", func(t *testing.T) {
		tree := unCompile(t, reg, arbor.Sequence(arbor.Leaf("Clock").Named("C")))
		r := unStart(tree)
		r.Tick(30 * ms)
		r.Tick(50 * ms)
		r.Halt()
		r.Tick(70 * ms)
		r.Reset()
		unEqual(t, "events", r.log.take(), []string{"C:start@30ms", "C:halt@50ms", "C:start@70ms", "C:halt@70ms"})
	})
	t.Run("Reset keeps the blackboard", func(t *testing.T) {
		tree := unCompile(t, reg, arbor.Sequence(arbor.Set("k", 1), unP("A", "run", -1)))
		r := unStart(tree)
		r.Tick(0)
		r.Blackboard().Set("@g", 2)
		r.Reset()
		if v := r.Blackboard().Value("k"); !v.Equal(arbor.Number(1)) {
			t.Errorf("k = %v after Reset, want 1", v)
		}
		if v := r.Blackboard().Value("@g"); !v.Equal(arbor.Number(2)) {
			t.Errorf("@g = %v after Reset, want 2", v)
		}
	})
	t.Run("halt events reach built-in parents after their children", func(t *testing.T) {
		tree := unCompile(t, reg, arbor.Parallel(-1, 0,
			arbor.Sequence(unP("A", "run", -1)).Named("seq"),
			unP("B", "run", -1),
			unP("C"),
		).Named("par"))
		var halts []string
		r := unStart(tree, arbor.WithTracer(func(a *arbor.Agent, e arbor.Event) {
			if e.Kind == arbor.EventHalt {
				halts = append(halts, a.Tree().Node(int(e.Node)).Label())
			}
		}))
		r.Tick(0)
		r.Halt()
		unEqual(t, "halt order", halts, []string{"A", "seq", "B", "par"})
		for _, l := range []string{"A", "B", "C", "seq", "par"} {
			if r.Running(unID(t, tree, l)) {
				t.Errorf("%s still running after Agent.Halt", l)
			}
		}
	})
}

func unContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestUserNodeMemory(t *testing.T) {
	reg := unRegistry(t)
	ms := time.Millisecond
	cases := []struct {
		name  string
		root  *arbor.Node
		steps []unStep
	}{
		{"end sees the activation's memory, which is zeroed after a success",
			arbor.Leaf("Counter").Named("K"),
			[]unStep{
				{0, nil, arbor.Running, []string{"K:start n=0"}},
				{ms, nil, arbor.Success, []string{"K:end n=2"}},
				{2 * ms, nil, arbor.Running, []string{"K:start n=0"}},
			}},
		{"end sees the activation's memory, which is zeroed after a failure",
			arbor.Leaf("Counter", "result", "failure").Named("K"),
			[]unStep{
				{0, nil, arbor.Running, []string{"K:start n=0"}},
				{ms, nil, arbor.Failure, []string{"K:end n=2"}},
				{2 * ms, nil, arbor.Running, []string{"K:start n=0"}},
			}},
		{"halt sees the activation's memory, which is zeroed after Agent.Halt",
			arbor.Leaf("Counter", "done", 5).Named("K"),
			[]unStep{
				{0, nil, arbor.Running, []string{"K:start n=0"}},
				{ms, nil, arbor.Running, nil},
				{2 * ms, func(r *unRun) { r.Halt() }, arbor.Running, []string{"K:halt n=2", "K:start n=0"}},
			}},
		{"memory is zeroed after a halt by a timeout",
			arbor.Timeout(ms, arbor.Leaf("Counter", "done", 5).Named("K")),
			[]unStep{
				{0, nil, arbor.Running, []string{"K:start n=0"}},
				{ms, nil, arbor.Failure, []string{"K:halt n=1"}},
				{2 * ms, nil, arbor.Running, []string{"K:start n=0"}},
			}},
		{"KeepMemory keeps memory over activations and halts until Agent.Reset",
			arbor.Leaf("KeepCounter").Named("K"),
			[]unStep{
				{0, nil, arbor.Running, []string{"K:start n=0"}},
				{ms, nil, arbor.Success, []string{"K:end n=2"}},
				{2 * ms, nil, arbor.Success, []string{"K:start n=2", "K:end n=3"}},
				{3 * ms, func(r *unRun) { r.Halt() }, arbor.Success, []string{"K:start n=3", "K:end n=4"}},
				{4 * ms, func(r *unRun) { r.Reset() }, arbor.Running, []string{"K:start n=0"}},
			}},
		{"KeepMemory survives a halt of a running node",
			arbor.Leaf("KeepCounter", "done", 10).Named("K"),
			[]unStep{
				{0, nil, arbor.Running, []string{"K:start n=0"}},
				{ms, func(r *unRun) { r.Halt() }, arbor.Running, []string{"K:halt n=1", "K:start n=1"}},
			}},
		{"two nodes of one type have separate memory",
			arbor.Sequence(arbor.Leaf("Counter").Named("K1"), arbor.Leaf("Counter").Named("K2")),
			[]unStep{
				{0, nil, arbor.Running, []string{"K1:start n=0"}},
				{ms, nil, arbor.Running, []string{"K1:end n=2", "K2:start n=0"}},
				{2 * ms, nil, arbor.Success, []string{"K2:end n=2"}},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := unStart(unCompile(t, reg, c.root))
			unSteps(t, r, c.steps)
		})
	}
	t.Run("each agent has its own memory", func(t *testing.T) {
		tree := unCompile(t, reg, arbor.Leaf("KeepCounter").Named("K"))
		r1, r2 := unStart(tree), unStart(tree)
		for i := 0; i < 3; i++ {
			r1.Tick(time.Duration(i) * ms)
		}
		r1.log.take()
		r2.Tick(0)
		unEqual(t, "second agent", r2.log.take(), []string{"K:start n=0"})
	})
}

func TestUserNodePanicsAndErrors(t *testing.T) {
	reg := unRegistry(t)
	ms := time.Millisecond

	checkReport := func(t *testing.T, r *unRun, tree *arbor.Tree, label string, wantPanic bool) {
		t.Helper()
		if len(r.errs) == 0 {
			t.Fatalf("no error reported")
		}
		e := r.errs[0]
		info := tree.Node(unID(t, tree, label))
		if e.Path != info.Path || e.Name != label || e.Type != info.Type || e.Agent != r.Agent {
			t.Errorf("NodeError{Path %q, Name %q, Type %q}, want {%q, %q, %q} of this agent", e.Path, e.Name, e.Type, info.Path, label, info.Type)
		}
		var pe *arbor.PanicError
		if got := errors.As(e, &pe); got != wantPanic {
			t.Errorf("error %v: is a PanicError = %v, want %v", e, got, wantPanic)
		}
		if !strings.Contains(e.Error(), info.Path) {
			t.Errorf("message %q does not contain the path %q", e.Error(), info.Path)
		}
	}

	fails := []struct {
		name     string
		params   []any
		panicErr bool
		noTick   bool // A's tick must not be called
	}{
		{"a panic in start fails the node without ticking it", []any{"panic", "start"}, true, true},
		{"a panic in tick fails the node", []any{"panic", "tick"}, true, false},
		{"an error from start fails the node without ticking it", []any{"fail", "start"}, false, true},
		{"an error from tick fails the node", []any{"fail", "tick"}, false, false},
	}
	for _, c := range fails {
		t.Run(c.name+", is reported, and the agent keeps running", func(t *testing.T) {
			tree := unCompile(t, reg, arbor.Selector(unP("A", c.params...), unP("B")))
			r := unStart(tree)
			r.log.take()
			for tick := 0; tick < 3; tick++ {
				if s := r.Tick(time.Duration(tick) * ms); s != arbor.Success {
					t.Fatalf("tick %d: %v, want success (A fails, B succeeds)", tick, s)
				}
				ev := r.log.take()
				if !unContains(ev, "A:start") || (c.noTick && unContains(ev, "A:tick")) {
					t.Errorf("tick %d: events %q: want A started, and ticked only if start succeeded", tick, ev)
				}
				if !unContains(ev, "B:end(success)") {
					t.Errorf("tick %d: B did not run after A failed: %q", tick, ev)
				}
				if unContains(ev, "A:halt") {
					t.Errorf("tick %d: A, which never ran, was halted: %q", tick, ev)
				}
				if r.Running(unID(t, tree, "A")) {
					t.Errorf("A is running after failing")
				}
			}
			if len(r.errs) != 3 {
				t.Errorf("%d errors reported, want one per tick", len(r.errs))
			}
			checkReport(t, r, tree, "A", c.panicErr)
		})
	}

	t.Run("a panic in end is reported and the node is idle", func(t *testing.T) {
		tree := unCompile(t, reg, unP("A", "panic", "end"))
		r := unStart(tree)
		r.log.take()
		if s := r.Tick(0); s == arbor.Running {
			t.Fatalf("tick = running")
		}
		checkReport(t, r, tree, "A", true)
		if r.Running(unID(t, tree, "A")) {
			t.Fatalf("A is running after its end panicked")
		}
		r.log.take()
		r.Tick(ms)
		unEqual(t, "next tick", r.log.take(), []string{"A:start", "A:tick", "A:end(success)"})
	})
	t.Run("a panic in halt during Agent.Halt is reported and the node is idle", func(t *testing.T) {
		tree := unCompile(t, reg, arbor.Sequence(unP("A", "run", -1, "panic", "halt")))
		r := unStart(tree)
		r.Tick(0)
		r.log.take()
		r.Halt()
		unEqual(t, "halt", r.log.take(), []string{"A:halt"})
		checkReport(t, r, tree, "A", true)
		if r.Running(unID(t, tree, "A")) || r.Running(0) {
			t.Fatalf("nodes still running after Agent.Halt")
		}
		r.Halt()
		unEqual(t, "second halt", r.log.take(), nil)
		r.Tick(ms)
		unEqual(t, "next tick (a new activation)", r.log.take(), []string{"A:start", "A:tick"})
	})
	t.Run("a panic in halt during a tick (timeout) is reported and the agent keeps running", func(t *testing.T) {
		tree := unCompile(t, reg, arbor.Timeout(ms, unP("A", "run", -1, "panic", "halt")))
		r := unStart(tree)
		r.Tick(0)
		if s := r.Tick(ms); s != arbor.Failure {
			t.Fatalf("timeout tick: %v, want failure", s)
		}
		checkReport(t, r, tree, "A", true)
		r.log.take()
		if s := r.Tick(2 * ms); s != arbor.Running {
			t.Fatalf("next tick: %v, want running", s)
		}
		unEqual(t, "next tick", r.log.take(), []string{"A:start", "A:tick"})
	})
	t.Run("a panic in pause is reported and the other running nodes still get pause", func(t *testing.T) {
		tree := unCompile(t, reg, arbor.Parallel(-1, 0, unP("A", "run", -1, "panic", "pause"), unP("B", "run", -1)))
		r := unStart(tree)
		r.Tick(0)
		r.log.take()
		r.Pause()
		unEqual(t, "pause", r.log.take(), []string{"A:pause(true)", "B:pause(true)"})
		checkReport(t, r, tree, "A", true)
		if !r.Paused() {
			t.Fatalf("agent not paused")
		}
		r.Resume()
		unEqual(t, "resume", r.log.take(), []string{"A:pause(false)", "B:pause(false)"})
		if len(r.errs) != 2 {
			t.Fatalf("%d errors, want 2", len(r.errs))
		}
		if s := r.Tick(ms); s != arbor.Running {
			t.Fatalf("tick after resume: %v", s)
		}
	})
	t.Run("a panic in awake is reported and the agent works", func(t *testing.T) {
		tree := unCompile(t, reg, unP("A", "panic", "awake"))
		r := unStart(tree)
		checkReport(t, r, tree, "A", true)
		if s := r.Tick(0); s != arbor.Success {
			t.Fatalf("tick: %v, want success", s)
		}
	})

	conds := []struct {
		mode      string
		wantPanic bool
	}{
		{"error", false},
		{"true-with-error", false},
		{"panic", true},
	}
	for _, c := range conds {
		t.Run("a condition with "+c.mode+" fails and is reported", func(t *testing.T) {
			tree := unCompile(t, reg, arbor.Selector(arbor.Leaf("Flaky").Named("F"), arbor.Set("fallback", true)))
			r := unStart(tree)
			r.Blackboard().Set("mode", c.mode)
			if s := r.Tick(0); s != arbor.Success {
				t.Fatalf("tick: %v, want success through the fallback", s)
			}
			if v, _ := r.Blackboard().Lookup("fallback"); !v.Equal(arbor.Bool(true)) {
				t.Fatalf("the condition did not fail: fallback not set")
			}
			checkReport(t, r, tree, "F", c.wantPanic)
		})
		t.Run("a condition with "+c.mode+" fails and is reported in a manager tick", func(t *testing.T) {
			// The root's walk ticks F bare: the manager's barrier reports
			// a panic, and the tick resumes after F.
			tree := unCompile(t, reg, arbor.Selector(arbor.Leaf("Flaky").Named("F"), arbor.Set("fallback", true)))
			m := arbor.NewManager(arbor.WithWorkers(1))
			defer m.Close()
			r := &unRun{log: &unLog{}}
			r.Agent = m.Add(tree, arbor.WithOwner(r.log), arbor.WithErrorHandler(func(e *arbor.NodeError) { r.errs = append(r.errs, e) }))
			r.Blackboard().Set("mode", c.mode)
			for tick := range 2 {
				m.Tick(time.Duration(tick) * time.Millisecond)
				if s := r.Status(); s != arbor.Success {
					t.Fatalf("tick %d: %v, want success through the fallback", tick, s)
				}
				if v, _ := r.Blackboard().Lookup("fallback"); !v.Equal(arbor.Bool(true)) {
					t.Fatalf("tick %d: the condition did not fail: fallback not set", tick)
				}
				if len(r.errs) != tick+1 {
					t.Fatalf("tick %d: %d errors reported, want %d", tick, len(r.errs), tick+1)
				}
				checkReport(t, r, tree, "F", c.wantPanic)
				r.Blackboard().Delete("fallback")
			}
		})
		t.Run("a guard condition with "+c.mode+" fails the guarded node and is reported", func(t *testing.T) {
			tree := unCompile(t, reg, unP("A").WithGuard(arbor.Leaf("Flaky").Named("F")))
			r := unStart(tree)
			r.log.take()
			r.Blackboard().Set("mode", c.mode)
			if s := r.Tick(0); s != arbor.Failure {
				t.Fatalf("tick: %v, want failure", s)
			}
			unEqual(t, "guarded node events", r.log.take(), nil)
			if len(r.errs) != 1 {
				t.Fatalf("%d errors reported, want 1", len(r.errs))
			}
			var pe *arbor.PanicError
			if errors.As(r.errs[0], &pe) != c.wantPanic {
				t.Fatalf("error %v, panic = %v", r.errs[0], c.wantPanic)
			}
		})
	}
	t.Run("without an error handler, errors are logged and the agent keeps running", func(t *testing.T) {
		tree := unCompile(t, reg, arbor.Selector(unP("A", "panic", "tick"), unP("B")))
		a := arbor.NewAgent(tree)
		if s := a.Tick(0); s != arbor.Success {
			t.Fatalf("tick: %v", s)
		}
	})
}

func TestAgentOperationsInsideTick(t *testing.T) {
	reg := unRegistry(t)
	ms := time.Millisecond
	// Req (which requests the operation) is ticked before A; L runs once in
	// the agent's life unless the agent is reset.
	root := func() *arbor.Node {
		return arbor.Parallel(-1, 0,
			arbor.Leaf("Req"),
			unP("A", "run", -1),
			arbor.ForceSuccess(arbor.Limiter(1, unP("L"))),
		)
	}
	first := []string{"A:start", "A:tick", "L:start", "L:tick", "L:end(success)"}
	request := func(op string) func(r *unRun) {
		return func(r *unRun) { unRequestKey.Set(r.Blackboard(), op) }
	}
	cases := []struct {
		name  string
		steps []unStep
		after func(t *testing.T, r *unRun)
	}{
		{"Halt requested in a tick halts right after it; life-long memory stays",
			[]unStep{
				{0, nil, arbor.Running, first},
				{ms, request("halt"), arbor.Running, []string{"req:halt", "A:tick", "A:halt"}},
				{2 * ms, nil, arbor.Running, []string{"A:start", "A:tick"}},
			}, nil},
		{"Reset requested in a tick halts right after it and clears life-long memory",
			[]unStep{
				{0, nil, arbor.Running, first},
				{ms, request("reset"), arbor.Running, []string{"req:reset", "A:tick", "A:halt"}},
				{2 * ms, nil, arbor.Running, first},
			}, nil},
		{"Pause requested in a tick pauses right after it",
			[]unStep{
				{0, nil, arbor.Running, first},
				{ms, request("pause"), arbor.Running, []string{"req:pause", "A:tick", "A:pause(true)"}},
				{2 * ms, nil, arbor.Running, nil},
				{3 * ms, func(r *unRun) {
					if !r.Paused() {
						t.Errorf("not paused")
					}
					r.Resume()
					unEqual(t, "resume", r.log.take(), []string{"A:pause(false)"})
				}, arbor.Running, []string{"A:tick"}},
			}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree := unCompile(t, reg, root())
			r := unStart(tree)
			r.log.take()
			unSteps(t, r, c.steps)
			if len(r.errs) > 0 {
				t.Errorf("errors: %v", r.errs)
			}
		})
	}
	t.Run("nodes after the requesting one still run in the same tick", func(t *testing.T) {
		tree := unCompile(t, reg, arbor.Sequence(arbor.Leaf("ReqHaltNow"), unP("A", "run", -1)))
		r := unStart(tree)
		r.log.take()
		if s := r.Tick(0); s != arbor.Running {
			t.Fatalf("tick: %v, want running (the tick's own result)", s)
		}
		unEqual(t, "events", r.log.take(), []string{"req:halt", "A:start", "A:tick", "A:halt"})
		if r.Running(unID(t, tree, "A")) {
			t.Fatalf("A still running after the requested halt")
		}
	})
}

type unNPC struct{ Name string }

func TestOwner(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := reg.ActionFunc("Greet", func(c *arbor.Ctx) (arbor.Status, error) {
		npc := arbor.Owner[*unNPC](c)
		if npc == nil {
			return arbor.Failure, nil
		}
		if arbor.Owner[string](c) != "" {
			return arbor.Failure, errors.New("Owner of another type must be the zero value")
		}
		c.Blackboard().Set("greeter", npc.Name)
		return arbor.Success, nil
	}); err != nil {
		t.Fatal(err)
	}
	tree := unCompile(t, reg, arbor.Leaf("Greet"))
	cases := []struct {
		name   string
		owner  any
		want   arbor.Status
		writes string
	}{
		{"the owner of the agent reaches the node typed", &unNPC{"orc"}, arbor.Success, "orc"},
		{"each agent has its own owner", &unNPC{"elf"}, arbor.Success, "elf"},
		{"an owner of another type reads as the zero value", "not an npc", arbor.Failure, ""},
		{"no owner reads as the zero value", nil, arbor.Failure, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var opts []arbor.AgentOption
			if c.owner != nil {
				opts = append(opts, arbor.WithOwner(c.owner))
			}
			var errs []*arbor.NodeError
			opts = append(opts, arbor.WithErrorHandler(func(e *arbor.NodeError) { errs = append(errs, e) }))
			a := arbor.NewAgent(tree, opts...)
			if a.Owner() != c.owner {
				t.Fatalf("Agent.Owner() = %v, want %v", a.Owner(), c.owner)
			}
			if s := a.Tick(0); s != c.want {
				t.Fatalf("tick: %v, want %v (errors %v)", s, c.want, errs)
			}
			got, _ := arbor.NewKey[string]("greeter").Get(a.Blackboard())
			if got != c.writes {
				t.Fatalf("greeter = %q, want %q", got, c.writes)
			}
		})
	}
}

func TestUserNodeParams(t *testing.T) {
	reg := unRegistry(t)
	compile := func(params string) (*arbor.Tree, error) {
		src := `{"format": "arbor/1", "main": "main", "trees": {"main": {"type": "Sequence", "children": [
			{"type": "Success"}, {"type": "MoveTo"` + params + `}]}}}`
		doc, err := arbor.ParseJSON([]byte(src))
		if err != nil {
			return nil, err
		}
		return arbor.Compile(doc, reg)
	}
	good := []struct {
		name   string
		params string
		bb     map[string]any
		want   unMoveOut
	}{
		{"defaults apply to omitted parameters", `, "target": "A"`, nil,
			unMoveOut{Target: "A", Speed: 2.5, Steps: 3, Mode: "walk"}},
		{"given parameters override the defaults", `, "target": "B", "speed": 4, "steps": 7, "mode": "run", "delayMs": 1500, "tags": ["x", "y"], "loud": true`, nil,
			unMoveOut{Target: "B", Speed: 4, Steps: 7, Mode: "run", Delay: 1500 * time.Millisecond, Tags: []string{"x", "y"}, Loud: true}},
		{"an integral float is accepted for an int parameter", `, "target": "A", "steps": 7.0`, nil,
			unMoveOut{Target: "A", Speed: 2.5, Steps: 7, Mode: "walk"}},
		{"a {key} parameter reads the blackboard", `, "target": "{goal}"`, map[string]any{"goal": "C"},
			unMoveOut{Target: "C", Speed: 2.5, Steps: 3, Mode: "walk"}},
		{"a {key} parameter reads the global scope", `, "target": "{@rally}"`, map[string]any{"@rally": "R"},
			unMoveOut{Target: "R", Speed: 2.5, Steps: 3, Mode: "walk"}},
		{"a string that is not a whole {key} is a literal", `, "target": "go to {goal} now"`, nil,
			unMoveOut{Target: "go to {goal} now", Speed: 2.5, Steps: 3, Mode: "walk"}},
	}
	for _, c := range good {
		t.Run(c.name, func(t *testing.T) {
			tree, err := compile(c.params)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			r := unStart(tree)
			for k, v := range c.bb {
				r.Blackboard().Set(k, v)
			}
			if s := r.Tick(0); s != arbor.Success {
				t.Fatalf("tick: %v (errors %v)", s, r.errs)
			}
			got, err := unOutKey.Get(r.Blackboard())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("params = %+v, want %+v", got, c.want)
			}
		})
	}
	t.Run("a {key} parameter is read anew on each activation", func(t *testing.T) {
		tree, err := compile(`, "target": "{goal}"`)
		if err != nil {
			t.Fatal(err)
		}
		r := unStart(tree)
		for i, goal := range []string{"C", "D"} {
			r.Blackboard().Set("goal", goal)
			r.Tick(time.Duration(i) * time.Millisecond)
			if got, _ := unOutKey.Get(r.Blackboard()); got.Target != goal {
				t.Fatalf("activation %d: target %q, want %q", i, got.Target, goal)
			}
		}
	})

	bad := []struct {
		name   string
		params string
		want   []string
	}{
		{"a missing required parameter", ``, []string{`"target"`, "missing"}},
		{"a number for a string parameter", `, "target": 5`, []string{`"target"`}},
		{"null for a string parameter", `, "target": null`, []string{`"target"`}},
		{"a string for a float parameter", `, "target": "A", "speed": "fast"`, []string{`"speed"`}},
		{"a fractional number for an int parameter", `, "target": "A", "steps": 2.5`, []string{`"steps"`}},
		{"a string for an int parameter", `, "target": "A", "steps": "3"`, []string{`"steps"`}},
		{"a {key} for an int parameter that is not a Param", `, "target": "A", "steps": "{n}"`, []string{`"steps"`, "a {key} reference needs a field of type arbor.Param[int]"}},
		{"a {key} for a duration parameter that is not a Param", `, "target": "A", "delayMs": "{d}"`, []string{`"delayMs"`, "arbor.Param[time.Duration]"}},
		{"2^63 for an int64 parameter", `, "target": "A", "big": 9223372036854775808`, []string{`"big"`}},
		{"a boolean for a string parameter", `, "target": "A", "mode": true`, []string{`"mode"`}},
		{"a negative duration", `, "target": "A", "delayMs": -1`, []string{`"delayMs"`}},
		{"a string for a list parameter", `, "target": "A", "tags": "x"`, []string{`"tags"`}},
		{"numbers in a list of strings", `, "target": "A", "tags": [1]`, []string{`"tags"`}},
		{"a string for a bool parameter", `, "target": "A", "loud": "yes"`, []string{`"loud"`}},
		{"an unknown parameter close to a known one", `, "target": "A", "sped": 3`, []string{"unknown parameter", `"sped"`, `did you mean "speed"`}},
		{"an unknown parameter", `, "target": "A", "colour": "red"`, []string{"unknown parameter", `"colour"`}},
	}
	for _, c := range bad {
		t.Run("load error: "+c.name, func(t *testing.T) {
			_, err := compile(c.params)
			if err == nil {
				t.Fatalf("compiled; want a load error")
			}
			msg := err.Error()
			for _, w := range append([]string{"trees.main.children[1]", "MoveTo"}, c.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q does not contain %q", msg, w)
				}
			}
			var le *arbor.LoadError
			if !errors.As(err, &le) || le.Path != "trees.main.children[1]" || le.Type != "MoveTo" {
				t.Errorf("errors.As LoadError: %+v", le)
			}
		})
	}

	runtime := []struct {
		name    string
		bb      map[string]any
		missing bool
	}{
		{"a missing {key} reference fails the node and reports it", nil, true},
		{"a {key} reference of the wrong type fails the node and reports it", map[string]any{"goal": 5}, false},
	}
	for _, c := range runtime {
		t.Run(c.name, func(t *testing.T) {
			doc := &arbor.Document{Main: "main", Trees: map[string]*arbor.Node{
				"main": arbor.Selector(arbor.AlwaysFailure(), arbor.SubTree("walk"), arbor.Set("fallback", true)),
				"walk": arbor.Sequence(arbor.AlwaysSuccess(), arbor.Leaf("MoveTo", "target", "{goal}").Named("mv")),
			}}
			tree, err := arbor.Compile(doc, reg)
			if err != nil {
				t.Fatal(err)
			}
			r := unStart(tree)
			for k, v := range c.bb {
				r.Blackboard().Set(k, v)
			}
			if s := r.Tick(0); s != arbor.Success {
				t.Fatalf("tick: %v, want success through the fallback", s)
			}
			if _, err := unOutKey.Get(r.Blackboard()); err == nil {
				t.Fatalf("MoveTo ticked although its parameter could not be read")
			}
			if len(r.errs) != 1 {
				t.Fatalf("%d errors, want 1: %v", len(r.errs), r.errs)
			}
			e := r.errs[0]
			info := tree.Node(unID(t, tree, "mv"))
			if e.Path != info.Path || e.Type != "MoveTo" {
				t.Errorf("NodeError path %q type %q; want %q, MoveTo", e.Path, e.Type, info.Path)
			}
			// The path goes through the inlined subtree to the node.
			if !strings.Contains(e.Path, "walk") || !strings.HasSuffix(e.Path, "children[1]") {
				t.Errorf("path %q does not locate the node through the subtree walk", e.Path)
			}
			var te *arbor.TypeError
			if c.missing && !errors.Is(e, arbor.ErrMissing) {
				t.Errorf("error %v is not ErrMissing", e)
			}
			if !c.missing && !errors.As(e, &te) {
				t.Errorf("error %v is not a TypeError", e)
			}
			if !strings.Contains(e.Error(), `parameter "target" ({goal})`) {
				t.Errorf("message %q does not name the parameter and the key", e.Error())
			}
		})
	}

	t.Run("an element of a list of Params is named by its index", func(t *testing.T) {
		reg := arbor.NewRegistry()
		if err := arbor.RegisterAction[unRoute, struct{}](reg, "Route"); err != nil {
			t.Fatal(err)
		}
		var errs []*arbor.NodeError
		a := arbor.NewAgent(mustCompile(t, reg, arbor.Leaf("Route", "stops", []any{"gate", "{next}"})),
			arbor.WithErrorHandler(func(e *arbor.NodeError) { errs = append(errs, e) }))
		a.Tick(0)
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), `parameter "stops[1]" ({next}): blackboard key "next" is missing`) {
			t.Fatalf("errors %v", errs)
		}
	})

	t.Run("Param Lit and Ref", func(t *testing.T) {
		if k, ok := arbor.Ref[string]("goal").IsRef(); !ok || k != "goal" {
			t.Errorf("Ref.IsRef() = %q, %v", k, ok)
		}
		if _, ok := arbor.Lit("x").IsRef(); ok {
			t.Errorf("Lit.IsRef() = true")
		}
	})
}

// unRoute reads every stop of its list of parameters.
type unRoute struct {
	Stops []arbor.Param[string] `arbor:"stops"`
}

func (r *unRoute) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	for _, p := range r.Stops {
		if _, err := p.Get(c); err != nil {
			return arbor.Failure, err
		}
	}
	return arbor.Success, nil
}

type unWalk struct{ speed float64 }

func (w unWalk) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	c.Blackboard().Set("speed", w.speed)
	return arbor.Success, nil
}

type unKeyIs struct {
	key string
	val arbor.Value
}

func (k unKeyIs) Check(c *arbor.Ctx) (bool, error) {
	return c.Blackboard().Value(k.key).Equal(k.val), nil
}

func TestFactoriesAndFuncs(t *testing.T) {
	reg := arbor.NewRegistry()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(arbor.RegisterActionFactory[struct{}](reg, "Walk", []string{"speed"}, func(p map[string]any) (arbor.Action[struct{}], error) {
		speed, ok := p["speed"].(float64)
		if !ok {
			return nil, errors.New("speed must be a number")
		}
		if speed < 0 {
			return nil, fmt.Errorf("speed must be ≥ 0, got %v", speed)
		}
		return unWalk{speed}, nil
	}))
	must(arbor.RegisterConditionFactory(reg, "KeyIs", []string{"key", "value"}, func(p map[string]any) (arbor.Condition, error) {
		k, ok := p["key"].(string)
		if !ok {
			return nil, errors.New("key must be a string")
		}
		return unKeyIs{k, arbor.ValueOf(p["value"])}, nil
	}))
	must(arbor.RegisterConditionFactory(reg, "Loose", nil, func(map[string]any) (arbor.Condition, error) {
		return unKeyIs{"never", arbor.Bool(true)}, nil
	}, arbor.AnyParams()))
	day := arbor.NewKey[bool]("day")
	must(reg.ConditionFunc("IsDay", func(c *arbor.Ctx) (bool, error) {
		d, err := day.Get(c.Blackboard())
		return d, err
	}))
	calls := 0
	must(reg.ActionFunc("TwoTicks", func(c *arbor.Ctx) (arbor.Status, error) {
		calls++
		if calls%2 == 1 {
			return arbor.Running, nil
		}
		return arbor.Success, nil
	}))
	must(reg.ActionFunc("Anything", func(c *arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }, arbor.AnyParams()))

	for _, name := range []string{"Walk", "KeyIs", "Loose", "IsDay", "TwoTicks", "Anything"} {
		if !reg.Has(name) {
			t.Errorf("registry does not have %s", name)
		}
	}

	compile := func(root *arbor.Node) (*arbor.Tree, error) {
		return arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": arbor.Sequence(arbor.AlwaysSuccess(), root)}}, reg)
	}
	runs := []struct {
		name string
		root *arbor.Node
		bb   map[string]any
		want []arbor.Status
		key  string
		val  arbor.Value
	}{
		{"an action factory builds the node from its parameters", arbor.Leaf("Walk", "speed", 3.0), nil, []arbor.Status{arbor.Success}, "speed", arbor.Number(3)},
		{"an action factory gets a Go int parameter of the builder as a float64 (documented raw types)", arbor.Leaf("Walk", "speed", 3), nil, []arbor.Status{arbor.Success}, "speed", arbor.Number(3)},
		{"a condition factory: true", arbor.Leaf("KeyIs", "key", "a", "value", 1), map[string]any{"a": 1}, []arbor.Status{arbor.Success}, "", arbor.Value{}},
		{"a condition factory: false", arbor.Leaf("KeyIs", "key", "a", "value", 1), map[string]any{"a": 2}, []arbor.Status{arbor.Failure}, "", arbor.Value{}},
		{"a condition factory with an omitted parameter", arbor.Leaf("KeyIs", "key", "a"), nil, []arbor.Status{arbor.Success}, "", arbor.Value{}},
		{"AnyParams accepts undeclared parameters", arbor.Leaf("Loose", "whatever", 1), nil, []arbor.Status{arbor.Failure}, "", arbor.Value{}},
		{"ConditionFunc true", arbor.Leaf("IsDay"), map[string]any{"day": true}, []arbor.Status{arbor.Success}, "", arbor.Value{}},
		{"ConditionFunc false", arbor.Leaf("IsDay"), map[string]any{"day": false}, []arbor.Status{arbor.Failure}, "", arbor.Value{}},
		{"ActionFunc runs then succeeds", arbor.Leaf("TwoTicks"), nil, []arbor.Status{arbor.Running, arbor.Success, arbor.Running, arbor.Success}, "", arbor.Value{}},
		{"ActionFunc with AnyParams", arbor.Leaf("Anything", "x", 1), nil, []arbor.Status{arbor.Success}, "", arbor.Value{}},
		{"a ConditionFunc may be a guard", arbor.Set("ok", true).WithGuard(arbor.Leaf("IsDay")), map[string]any{"day": true}, []arbor.Status{arbor.Success}, "ok", arbor.Bool(true)},
	}
	for _, c := range runs {
		t.Run(c.name, func(t *testing.T) {
			calls = 0
			tree, err := compile(c.root)
			if err != nil {
				t.Fatal(err)
			}
			a := arbor.NewAgent(tree, arbor.WithErrorHandler(func(e *arbor.NodeError) { t.Errorf("node error: %v", e) }))
			for k, v := range c.bb {
				a.Blackboard().Set(k, v)
			}
			for i, want := range c.want {
				if s := a.Tick(time.Duration(i) * time.Millisecond); s != want {
					t.Fatalf("tick %d: %v, want %v", i, s, want)
				}
			}
			if c.key != "" {
				if v := a.Blackboard().Value(c.key); !v.Equal(c.val) {
					t.Fatalf("%s = %v, want %v", c.key, v, c.val)
				}
			}
		})
	}
	loadErrors := []struct {
		name string
		root *arbor.Node
		want []string
	}{
		{"an error from an action factory is a load error of the node", arbor.Leaf("Walk", "speed", -1.0), []string{"Walk", "speed must be ≥ 0"}},
		{"a missing factory parameter as the factory reports it", arbor.Leaf("Walk"), []string{"Walk", "speed must be a number"}},
		{"an unknown factory parameter", arbor.Leaf("Walk", "speed", 1.0, "sped", 2.0), []string{"Walk", `"sped"`}},
		{"an error from a condition factory", arbor.Leaf("KeyIs", "key", 5), []string{"KeyIs", "key must be a string"}},
		{"a parameter given to an ActionFunc", arbor.Leaf("TwoTicks", "speed", 1), []string{"TwoTicks", `"speed"`}},
		{"a parameter given to a ConditionFunc", arbor.Leaf("IsDay", "when", "noon"), []string{"IsDay", `"when"`}},
		{"an ActionFunc in a guard", arbor.Set("ok", true).WithGuard(arbor.Leaf("TwoTicks")), []string{"TwoTicks", "guard"}},
	}
	for _, c := range loadErrors {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(c.root)
			if err == nil {
				t.Fatalf("compiled; want a load error")
			}
			for _, w := range append([]string{"trees.main.children[1]"}, c.want...) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not contain %q", err, w)
				}
			}
		})
	}
}

type unBadField struct {
	C chan int `arbor:"c"`
}

func (unBadField) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) { return arbor.Success, nil }

type unBadTag struct {
	N int `arbor:"n,requird"`
}

func (unBadTag) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) { return arbor.Success, nil }

type unCond struct{}

func (unCond) Check(*arbor.Ctx) (bool, error) { return true, nil }

func TestRegisterErrors(t *testing.T) {
	noop := func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }
	yes := func(*arbor.Ctx) (bool, error) { return true, nil }
	cases := []struct {
		name     string
		register func(r *arbor.Registry) error
		mention  string
	}{
		{"RegisterAction with a built-in name", func(r *arbor.Registry) error { return arbor.RegisterAction[unProbe, unProbeMem](r, "Sequence") }, "Sequence"},
		{"RegisterAction with a built-in alias", func(r *arbor.Registry) error { return arbor.RegisterAction[unProbe, unProbeMem](r, "Fallback") }, "Fallback"},
		{"ActionFunc with a built-in leaf name", func(r *arbor.Registry) error { return r.ActionFunc("Wait", noop) }, "Wait"},
		{"ConditionFunc with a built-in condition name", func(r *arbor.Registry) error { return r.ConditionFunc("Check", yes) }, "Check"},
		{"RegisterCondition with a built-in name", func(r *arbor.Registry) error { return arbor.RegisterCondition[unCond](r, "Success") }, "Success"},
		{"RegisterActionFactory with a built-in name", func(r *arbor.Registry) error {
			return arbor.RegisterActionFactory[struct{}](r, "Set", nil, func(map[string]any) (arbor.Action[struct{}], error) { return unWalk{}, nil })
		}, "Set"},
		{"RegisterConditionFactory with a built-in alias", func(r *arbor.Registry) error {
			return arbor.RegisterConditionFactory(r, "Priority", nil, func(map[string]any) (arbor.Condition, error) { return unCond{}, nil })
		}, "Priority"},
		{"a duplicate action", func(r *arbor.Registry) error { return r.ActionFunc("Dup", noop) }, "Dup"},
		{"a condition with the name of a registered action", func(r *arbor.Registry) error { return r.ConditionFunc("Dup", yes) }, "Dup"},
		{"a duplicate through RegisterAction", func(r *arbor.Registry) error { return arbor.RegisterAction[unProbe, unProbeMem](r, "Dup") }, "Dup"},
		{"an empty name", func(r *arbor.Registry) error { return r.ActionFunc("", noop) }, ""},
		{"an unsupported parameter field type", func(r *arbor.Registry) error { return arbor.RegisterAction[unBadField, struct{}](r, "BadField") }, "BadField"},
		{"an unknown tag option", func(r *arbor.Registry) error { return arbor.RegisterAction[unBadTag, struct{}](r, "BadTag") }, "BadTag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := arbor.NewRegistry()
			if err := r.ActionFunc("Dup", noop); err != nil {
				t.Fatal(err)
			}
			err := c.register(r)
			if err == nil {
				t.Fatalf("registered; want an error")
			}
			if !strings.Contains(err.Error(), c.mention) {
				t.Errorf("error %q does not name %q", err, c.mention)
			}
			// The built-ins and the first registration are unaffected.
			tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": arbor.Sequence(arbor.Leaf("Dup"), arbor.WaitTicks(0))}}, r)
			if err != nil {
				t.Fatalf("compile after a failed registration: %v", err)
			}
			if s := arbor.NewAgent(tree).Tick(0); s != arbor.Success {
				t.Fatalf("tick: %v", s)
			}
		})
	}
	t.Run("registries are independent", func(t *testing.T) {
		r1, r2 := arbor.NewRegistry(), arbor.NewRegistry()
		if err := r1.ActionFunc("Mine", noop); err != nil {
			t.Fatal(err)
		}
		if r2.Has("Mine") {
			t.Fatalf("a type registered in one registry appears in another")
		}
		if err := r2.ActionFunc("Mine", noop); err != nil {
			t.Fatalf("registering the same name in another registry: %v", err)
		}
		if !r1.Has("Sequence") || !r1.Has("Fallback") || !arbor.IsBuiltin("Fallback") || arbor.IsBuiltin("Mine") {
			t.Fatalf("built-in lookups wrong")
		}
	})
}

// Actions whose optional callbacks have the wrong signature: each would
// never be called, so registering them is an error.
type (
	startNoError  struct{}
	haltNoMemory  struct{}
	endNoStatus   struct{}
	pauseNoFlag   struct{}
	awakeByValue  struct{}
	rightCallback struct{}
	cbMem         struct{}
)

func (startNoError) Tick(*arbor.Ctx, *cbMem) (arbor.Status, error)  { return arbor.Success, nil }
func (*startNoError) Start(*arbor.Ctx, *cbMem)                      {}
func (haltNoMemory) Tick(*arbor.Ctx, *cbMem) (arbor.Status, error)  { return arbor.Success, nil }
func (*haltNoMemory) Halt(*arbor.Ctx)                               {}
func (endNoStatus) Tick(*arbor.Ctx, *cbMem) (arbor.Status, error)   { return arbor.Success, nil }
func (*endNoStatus) End(*arbor.Ctx, *cbMem)                         {}
func (pauseNoFlag) Tick(*arbor.Ctx, *cbMem) (arbor.Status, error)   { return arbor.Success, nil }
func (*pauseNoFlag) Pause(*arbor.Ctx, *cbMem)                       {}
func (awakeByValue) Tick(*arbor.Ctx, *cbMem) (arbor.Status, error)  { return arbor.Success, nil }
func (*awakeByValue) Awake(*arbor.Ctx, cbMem)                       {}
func (rightCallback) Tick(*arbor.Ctx, *cbMem) (arbor.Status, error) { return arbor.Success, nil }
func (*rightCallback) Halt(*arbor.Ctx, *cbMem)                      {}

func TestRegisterRejectsMistypedCallbacks(t *testing.T) {
	tests := []struct {
		name string
		reg  func(r *arbor.Registry) error
		want string // "" for no error
	}{
		{"Start without error", func(r *arbor.Registry) error { return arbor.RegisterAction[startNoError, cbMem](r, "A") }, "method Start has type"},
		{"Halt without memory", func(r *arbor.Registry) error { return arbor.RegisterAction[haltNoMemory, cbMem](r, "A") }, "method Halt has type"},
		{"End without status", func(r *arbor.Registry) error { return arbor.RegisterAction[endNoStatus, cbMem](r, "A") }, "method End has type"},
		{"Pause without flag", func(r *arbor.Registry) error { return arbor.RegisterAction[pauseNoFlag, cbMem](r, "A") }, "method Pause has type"},
		{"Awake with memory by value", func(r *arbor.Registry) error { return arbor.RegisterAction[awakeByValue, cbMem](r, "A") }, "method Awake has type"},
		{"a right Halt", func(r *arbor.Registry) error { return arbor.RegisterAction[rightCallback, cbMem](r, "A") }, ""},
	}
	for _, tt := range tests {
		err := tt.reg(arbor.NewRegistry())
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	// A factory's actions are checked when the node loads.
	reg := arbor.NewRegistry()
	err := arbor.RegisterActionFactory[cbMem](reg, "F", nil, func(map[string]any) (arbor.Action[cbMem], error) {
		return &haltNoMemory{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.Leaf("F")}}, reg)
	if err == nil || !strings.Contains(err.Error(), "method Halt has type func(*arbor.Ctx)") {
		t.Errorf("factory action with a mistyped Halt: error %v", err)
	}
}

// A Param[time.Duration] literal is milliseconds, like a time.Duration
// field; type errors name the type with its article.
type durParams struct {
	Every arbor.Param[time.Duration] `arbor:"every"`
	Count arbor.Param[int]           `arbor:"count,default=1"`
	Level arbor.Param[level]         `arbor:"level"`
	Ratio arbor.Param[ratio]         `arbor:"ratio"`
}

var gotEvery time.Duration

func (p *durParams) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	d, err := p.Every.Get(c)
	gotEvery = d
	return arbor.Success, err
}

func TestParamDurationIsMilliseconds(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[durParams, struct{}](reg, "Every"); err != nil {
		t.Fatal(err)
	}
	// Named types of scalar kinds take literals of their kind.
	tree := mustCompile(t, reg, arbor.Leaf("Every", "every", 300, "level", 4, "ratio", 0.5))
	arbor.NewAgent(tree).Tick(time.Second)
	if gotEvery != 300*time.Millisecond {
		t.Errorf("every: 300 read as %v, want 300ms", gotEvery)
	}
	for _, tt := range []struct {
		leaf *arbor.Node
		want string
	}{
		{arbor.Leaf("Every", "every", -1), "want a duration in milliseconds"},
		{arbor.Leaf("Every", "every", "soon"), "want a duration in milliseconds"},
		{arbor.Leaf("Every", "every", 1, "count", "x"), "want an integer (int) or a {key} reference"},
		{arbor.Leaf("Every", "every", 1e13), "want a duration in milliseconds"},
		{arbor.Leaf("Every", "every", math.NaN()), "want a duration in milliseconds"},
		{arbor.Leaf("Every", "every", math.Inf(1)), "want a duration in milliseconds"},
		{arbor.Leaf("Every", "every", 1, "level", 300), "want an integer from 0 to 255 (arbor_test.level) or a {key} reference"},
		{arbor.Leaf("Every", "every", 1, "ratio", 0.1), "want a number a float32 holds exactly (arbor_test.ratio) or a {key} reference"},
	} {
		_, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": tt.leaf}}, reg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error %v, want %q", tt.leaf.Params, err, tt.want)
		}
	}
}

type intParam struct {
	N int `arbor:"n"`
}

func (*intParam) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) { return arbor.Success, nil }

// An integer parameter given a fraction is a load error.
func TestIntParamRejectsFractions(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[intParam, struct{}](reg, "I"); err != nil {
		t.Fatal(err)
	}
	_, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.Leaf("I", "n", 1.5)}}, reg)
	if err == nil || !strings.Contains(err.Error(), "n") {
		t.Fatalf("n: 1.5 loaded: %v", err)
	}
	if _, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.Leaf("I", "n", 2)}}, reg); err != nil {
		t.Fatal(err)
	}
}

// A factory that panics or returns nil makes a load error of the node, and
// a nil factory is refused when registering.
func TestFactoryFaultsAreLoadErrors(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterActionFactory[struct{}](reg, "Nil", nil, nil); err == nil {
		t.Error("a nil action factory registered")
	}
	if err := arbor.RegisterConditionFactory(reg, "NilCond", nil, nil); err == nil {
		t.Error("a nil condition factory registered")
	}
	if err := arbor.RegisterActionFactory[struct{}](reg, "Boom", nil, func(map[string]any) (arbor.Action[struct{}], error) {
		panic("boom")
	}); err != nil {
		t.Fatal(err)
	}
	if err := arbor.RegisterActionFactory[struct{}](reg, "Empty", nil, func(map[string]any) (arbor.Action[struct{}], error) {
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := arbor.RegisterConditionFactory(reg, "EmptyCond", nil, func(map[string]any) (arbor.Condition, error) {
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string]string{
		"Boom":      "trees.t: the node's factory panicked: boom [Boom]",
		"Empty":     "trees.t: the node's factory returned nil [Empty]",
		"EmptyCond": "trees.t: the node's factory returned nil [EmptyCond]",
	} {
		_, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.Leaf(typ)}}, reg)
		if err == nil || err.Error() != want {
			t.Errorf("%s: err = %v, want %s", typ, err, want)
		}
	}
}
