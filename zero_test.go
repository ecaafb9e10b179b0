package arbor_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// zeroCase is one exported method called on a zero value: call returns
// what is wrong with its answers, nil when they are as documented.
type zeroCase[T any] struct {
	method string
	call   func(v *T) error
}

// checkAllMethods fails unless cases name every exported method of *T, so
// that a method added later cannot escape the zero-value tests.
func checkAllMethods[T any](t *testing.T, cases []zeroCase[T]) {
	t.Helper()
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.method] = true
	}
	typ := reflect.TypeFor[*T]()
	for i := 0; i < typ.NumMethod(); i++ {
		if name := typ.Method(i).Name; !covered[name] {
			t.Errorf("%v.%s is not called on a zero value", typ, name)
		}
	}
}

// runZeroCase calls c on a zero T, a panic being a failure, then has check
// look at the value left.
func runZeroCase[T any](t *testing.T, c zeroCase[T], check func(v *T) error) {
	t.Run(c.method, func(t *testing.T) {
		var v T
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			if err := c.call(&v); err != nil {
				t.Error(err)
			}
			if err := check(&v); err != nil {
				t.Errorf("afterwards: %v", err)
			}
		}()
	})
}

// isStr reports whether v is the string s.
func isStr(v arbor.Value, s string) bool {
	str, ok := v.Str()
	return ok && str == s
}

// wantNoTree checks that err is a zero Agent's refusal.
func wantNoTree(err error) error {
	if !errors.Is(err, arbor.ErrNoTree) {
		return fmt.Errorf("error %v, want one wrapping ErrNoTree", err)
	}
	return nil
}

// Every exported method of a zero Agent answers as documented and leaves
// it inert: no tree, never paused, Tick returning Invalid.
func TestZeroAgent(t *testing.T) {
	tree := mustCompile(t, nil, arbor.Sequence(arbor.AlwaysSuccess()))
	snap, err := arbor.NewAgent(tree).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	cases := []zeroCase[arbor.Agent]{
		{"Tick", func(a *arbor.Agent) error {
			if s := a.Tick(time.Second); s != arbor.Invalid {
				return fmt.Errorf("Tick = %v, want Invalid", s)
			}
			if a.Now() != 0 {
				return fmt.Errorf("Tick moved the clock to %v", a.Now())
			}
			return nil
		}},
		{"Halt", func(a *arbor.Agent) error { a.Halt(); return nil }},
		{"Reset", func(a *arbor.Agent) error { a.Reset(); return nil }},
		{"Pause", func(a *arbor.Agent) error {
			a.Pause()
			if a.Paused() {
				return errors.New("Pause paused a zero Agent")
			}
			return nil
		}},
		{"Resume", func(a *arbor.Agent) error { a.Pause(); a.Resume(); return nil }},
		{"Paused", func(a *arbor.Agent) error {
			if a.Paused() {
				return errors.New("Paused = true")
			}
			return nil
		}},
		{"Status", func(a *arbor.Agent) error {
			if s := a.Status(); s != arbor.Invalid {
				return fmt.Errorf("Status = %v, want Invalid", s)
			}
			return nil
		}},
		{"Tree", func(a *arbor.Agent) error {
			if a.Tree() != nil {
				return errors.New("Tree != nil")
			}
			return nil
		}},
		{"ID", func(a *arbor.Agent) error {
			if a.ID() != 0 {
				return fmt.Errorf("ID = %d, want 0", a.ID())
			}
			return nil
		}},
		{"Now", func(a *arbor.Agent) error {
			if a.Now() != 0 {
				return fmt.Errorf("Now = %v, want 0", a.Now())
			}
			return nil
		}},
		{"Owner", func(a *arbor.Agent) error {
			if a.Owner() != nil {
				return fmt.Errorf("Owner = %v, want nil", a.Owner())
			}
			return nil
		}},
		{"SetOwner", func(a *arbor.Agent) error {
			a.SetOwner("npc")
			if a.Owner() != "npc" {
				return fmt.Errorf("Owner = %v after SetOwner", a.Owner())
			}
			return nil
		}},
		{"Tracer", func(a *arbor.Agent) error {
			if a.Tracer() != nil {
				return errors.New("Tracer != nil")
			}
			return nil
		}},
		{"SetTracer", func(a *arbor.Agent) error {
			events := 0
			a.SetTracer(func(*arbor.Agent, arbor.Event) { events++ })
			a.Tick(time.Second)
			a.Halt()
			if a.Tracer() == nil || events != 0 {
				return fmt.Errorf("tracer set %v, %d events, want set and none", a.Tracer() != nil, events)
			}
			return nil
		}},
		{"Running", func(a *arbor.Agent) error {
			for _, id := range []int{-1, 0, 1} {
				if a.Running(id) {
					return fmt.Errorf("Running(%d) = true", id)
				}
			}
			return nil
		}},
		{"Forced", func(a *arbor.Agent) error {
			if s := a.Forced(0); s != arbor.Invalid {
				return fmt.Errorf("Forced(0) = %v, want Invalid", s)
			}
			return nil
		}},
		{"Force", func(a *arbor.Agent) error { return wantNoTree(a.Force(0, arbor.Success)) }},
		{"Unforce", func(a *arbor.Agent) error { return wantNoTree(a.Unforce(0)) }},
		{"Snapshot", func(a *arbor.Agent) error {
			data, err := a.Snapshot()
			if data != nil {
				return fmt.Errorf("Snapshot gave %d bytes", len(data))
			}
			return wantNoTree(err)
		}},
		{"Restore", func(a *arbor.Agent) error {
			return errors.Join(wantNoTree(a.Restore(snap)), wantNoTree(a.Restore(nil, arbor.KeepBlackboard())))
		}},
		{"SetTree", func(a *arbor.Agent) error { // a tree: TestZeroAgentSetTree
			if err := a.SetTree(nil); err == nil || !strings.Contains(err.Error(), "nil tree") {
				return fmt.Errorf("SetTree(nil): %v", err)
			}
			return nil
		}},
		{"Blackboard", func(a *arbor.Agent) error {
			bb := a.Blackboard()
			if bb == nil || bb != a.Blackboard() || bb.Globals() == nil {
				return errors.New("no blackboard, a new one each call, or no global scope")
			}
			hpKey.Set(bb, 12)
			bb.Set("@weather", "rain")
			hp, err := hpKey.Get(bb)
			weather, _ := bb.Globals().Lookup("weather", 0)
			if err != nil || hp != 12 || !isStr(weather, "rain") || len(bb.Entries()) != 2 {
				return fmt.Errorf("hp %v (%v), @weather %v, entries %v", hp, err, weather, bb.Entries())
			}
			bb.Delete("hp")
			if hpKey.Has(bb) {
				return errors.New("Delete left hp")
			}
			return nil
		}},
	}
	checkAllMethods(t, cases)
	inert := func(a *arbor.Agent) error {
		if s := a.Tick(time.Minute); s != arbor.Invalid || a.Status() != arbor.Invalid || a.Tree() != nil || a.Paused() || a.Running(0) {
			return fmt.Errorf("Tick %v, Status %v, Tree %v, Paused %v: want an inert agent", s, a.Status(), a.Tree(), a.Paused())
		}
		return nil
	}
	for _, c := range cases {
		runZeroCase(t, c, inert)
	}
}

// zeroProbe is an action that records its agent's awake callbacks and, on
// each tick, that its Ctx reaches the agent and reads the blackboard.
type zeroProbe struct{}

type zeroProbeMem struct{}

func (zeroProbe) Awake(c *arbor.Ctx, _ *zeroProbeMem) { arbor.Owner[*zeroLog](c).awakes++ }

func (zeroProbe) Tick(c *arbor.Ctx, _ *zeroProbeMem) (arbor.Status, error) {
	l := arbor.Owner[*zeroLog](c)
	l.agents = append(l.agents, c.Agent())
	kept, _ := c.Blackboard().Value("kept").Str()
	l.kept = append(l.kept, kept)
	return arbor.Success, nil
}

// zeroLog is what zeroProbe records (the agent's owner).
type zeroLog struct {
	awakes int
	agents []*arbor.Agent
	kept   []string
}

// SetTree gives a zero Agent its first tree: the agent then works as one
// NewAgent makes, with what its blackboard held before the tree.
func TestZeroAgentSetTree(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[zeroProbe, zeroProbeMem](reg, "ZeroProbe"); err != nil {
		t.Fatal(err)
	}
	var a arbor.Agent
	log := &zeroLog{}
	a.SetOwner(log)
	a.Blackboard().Set("kept", "yes")
	if err := a.SetTree(mustCompile(t, reg, arbor.Sequence(arbor.Leaf("ZeroProbe")))); err != nil {
		t.Fatal(err)
	}
	if s := a.Tick(time.Second); s != arbor.Success || log.awakes != 1 || len(log.agents) != 1 || log.agents[0] != &a || log.kept[0] != "yes" {
		t.Fatalf("tick %v, %d awakes, ctx agents %v (want %p), kept %v", s, log.awakes, log.agents, &a, log.kept)
	}

	tree := benchGuardTree(t)
	var b arbor.Agent
	if err := b.SetTree(tree); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(driveGuard(&b, 7, 200)), fmt.Sprint(driveGuard(arbor.NewAgent(tree), 7, 200)); got != want {
		t.Fatalf("a zero Agent given a tree ticks\n%s\nwant, as NewAgent's,\n%s", got, want)
	}
	b.Pause()
	if s := b.Tick(time.Hour); !b.Paused() || s != b.Status() {
		t.Fatalf("paused: Paused %v, Tick %v, Status %v", b.Paused(), s, b.Status())
	}
	data, err := b.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	c := arbor.NewAgent(tree)
	if err := c.Restore(data); err != nil || !c.Paused() {
		t.Fatalf("restore: %v, paused %v", err, c.Paused())
	}
	b.Resume()
	c.Resume()
	if got, want := fmt.Sprint(driveGuard(&b, 9, 50)), fmt.Sprint(driveGuard(c, 9, 50)); got != want {
		t.Fatalf("after a snapshot round trip:\n%s\nwant\n%s", got, want)
	}
}

// Every exported method of a zero Manager answers as NewManager's would.
func TestZeroManager(t *testing.T) {
	tree := mustCompile(t, nil, arbor.Sequence(arbor.AlwaysSuccess()))
	trees := map[string]*arbor.Tree{"main": tree}
	stranger := arbor.NewManager().Add(tree)
	// Snapshots of a manager with agents, and of one with globals only.
	var snaps [2][]byte
	for i := range snaps {
		m := arbor.NewManager()
		m.Globals().Set("@weather", "rain")
		if i == 0 {
			m.Add(tree)
			m.Add(tree)
		}
		var buf bytes.Buffer
		if err := m.Snapshot(&buf); err != nil {
			t.Fatal(err)
		}
		snaps[i] = buf.Bytes()
	}
	// restores has restore read both snapshots, each into a zero Manager,
	// m the first.
	restores := func(m *arbor.Manager, restore func(m *arbor.Manager, r io.Reader, trees map[string]*arbor.Tree, opts ...arbor.AgentOption) error) error {
		var other arbor.Manager
		for i, into := range []*arbor.Manager{m, &other} {
			err := restore(into, bytes.NewReader(snaps[i]), trees)
			weather, _ := into.Globals().Lookup("weather", 0)
			if want := []int{2, 0}[i]; err != nil || into.Len() != want || !isStr(weather, "rain") {
				return fmt.Errorf("restore: %v, %d agents (want %d), @weather %v", err, into.Len(), want, weather)
			}
		}
		return nil
	}
	cases := []zeroCase[arbor.Manager]{
		{"Globals", func(m *arbor.Manager) error {
			g := m.Globals()
			if g == nil || g != m.Globals() {
				return errors.New("no global scope, or a new one each call")
			}
			g.Set("@weather", "rain")
			if v, ok := g.Lookup("weather", 0); !ok || !isStr(v, "rain") {
				return fmt.Errorf("@weather = %v", v)
			}
			return nil
		}},
		{"Workers", func(m *arbor.Manager) error {
			if w := m.Workers(); w != runtime.GOMAXPROCS(0) {
				return fmt.Errorf("Workers = %d, want GOMAXPROCS (%d)", w, runtime.GOMAXPROCS(0))
			}
			return nil
		}},
		{"Len", func(m *arbor.Manager) error {
			if m.Len() != 0 {
				return fmt.Errorf("Len = %d", m.Len())
			}
			return nil
		}},
		{"Agents", func(m *arbor.Manager) error {
			if len(m.Agents()) != 0 {
				return fmt.Errorf("Agents = %v", m.Agents())
			}
			return nil
		}},
		{"Agent", func(m *arbor.Manager) error {
			if m.Agent(0) != nil {
				return errors.New("Agent(0) != nil")
			}
			return nil
		}},
		{"Remove", func(m *arbor.Manager) error {
			if m.Remove(stranger) || m.Remove(&arbor.Agent{}) {
				return errors.New("Remove removed an agent it does not have")
			}
			return nil
		}},
		{"RemoveFunc", func(m *arbor.Manager) error {
			if n := m.RemoveFunc(func(*arbor.Agent) bool { return true }); n != 0 {
				return fmt.Errorf("RemoveFunc = %d", n)
			}
			return nil
		}},
		{"Reload", func(m *arbor.Manager) error {
			if n := m.Reload(tree, tree); n != 0 {
				return fmt.Errorf("Reload = %d", n)
			}
			return nil
		}},
		{"Stop", func(m *arbor.Manager) error { m.Stop(); return nil }},
		{"Close", func(m *arbor.Manager) error { m.Close(); return nil }},
		{"Tick", func(m *arbor.Manager) error { m.Tick(time.Second); return nil }},
		{"TickWith", func(m *arbor.Manager) error {
			called := false
			m.TickWith(time.Second, func(*arbor.Agent) { called = true })
			if called {
				return errors.New("before called without agents")
			}
			return nil
		}},
		{"Add", func(m *arbor.Manager) error {
			a, b := m.Add(tree), m.Add(tree)
			if a.ID() != 0 || b.ID() != 1 || m.Len() != 2 || m.Agent(1) != b {
				return fmt.Errorf("ids %d, %d, %d agents", a.ID(), b.ID(), m.Len())
			}
			if a.Blackboard().Globals() != m.Globals() || b.Blackboard().Globals() != m.Globals() {
				return errors.New("the agents do not share the manager's global scope")
			}
			m.Tick(time.Second)
			if a.Status() != arbor.Success || b.Status() != arbor.Success {
				return fmt.Errorf("ticked: %v, %v", a.Status(), b.Status())
			}
			if !m.Remove(a) || m.Len() != 1 {
				return errors.New("Remove failed")
			}
			return nil
		}},
		{"Snapshot", func(m *arbor.Manager) error {
			var buf bytes.Buffer
			if err := m.Snapshot(&buf); err != nil {
				return err
			}
			n := arbor.NewManager()
			if err := n.Restore(&buf, nil); err != nil || n.Len() != 0 {
				return fmt.Errorf("restoring the snapshot: %v, %d agents", err, n.Len())
			}
			return nil
		}},
		{"Restore", func(m *arbor.Manager) error { return restores(m, (*arbor.Manager).Restore) }},
		{"RestoreKeepingBlackboards", func(m *arbor.Manager) error {
			return restores(m, (*arbor.Manager).RestoreKeepingBlackboards)
		}},
	}
	checkAllMethods(t, cases)
	usable := func(m *arbor.Manager) error {
		defer m.Close()
		a := m.Add(tree)
		m.Tick(time.Hour)
		if a.Status() != arbor.Success || m.Globals() == nil || m.Workers() < 1 {
			return fmt.Errorf("an agent added ticks %v, globals %v, %d workers", a.Status(), m.Globals(), m.Workers())
		}
		return nil
	}
	for _, c := range cases {
		runZeroCase(t, c, usable)
	}
}

// A zero Manager ticks with GOMAXPROCS workers exactly as NewManager's
// does (run with -race); Stop called from a node during its first tick
// waits for the end of the tick.
func TestZeroManagerTicksLikeNewManager(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	var m arbor.Manager
	defer m.Close()
	if m.Workers() != 2 {
		t.Fatalf("Workers = %d, want GOMAXPROCS (2)", m.Workers())
	}
	got := fmt.Sprint(runGuards(t, &m, 500, 40)) // over a chunk: the workers tick
	if want := fmt.Sprint(runManager(t, 1, 500, 40)); got != want {
		t.Fatal("a zero Manager's results differ from NewManager's")
	}

	var z arbor.Manager
	reg := arbor.NewRegistry()
	stops := 0
	if err := reg.ActionFunc("Stop", func(c *arbor.Ctx) (arbor.Status, error) {
		if c.Agent().ID() == 0 {
			stops++
			z.Stop()
		}
		return arbor.Running, nil
	}); err != nil {
		t.Fatal(err)
	}
	tree := mustCompile(t, reg, arbor.Leaf("Stop"))
	var halts atomic.Int32
	for i := 0; i < 200; i++ {
		z.Add(tree, arbor.WithTracer(func(_ *arbor.Agent, e arbor.Event) {
			if e.Kind == arbor.EventHalt {
				halts.Add(1)
			}
		}))
	}
	z.Tick(time.Second)
	if stops != 1 || halts.Load() != 200 {
		t.Fatalf("Stop from a node: %d stops, %d halts after the tick, want 1 and 200", stops, halts.Load())
	}
}
