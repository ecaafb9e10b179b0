package fsm_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/fsm"
)

// work is a tree action that logs its lifecycle to the agent's owner (a
// *recorder) and runs for Ticks ticks before succeeding.
type work struct {
	Label string `arbor:"label,required"`
	Ticks int    `arbor:"ticks,default=1"`
}

type workMem struct{ n int }

func (w *work) Start(c *arbor.Ctx, _ *workMem) error {
	arbor.Owner[*recorder](c).add(w.Label + ":start")(nil)
	return nil
}

func (w *work) Tick(c *arbor.Ctx, m *workMem) (arbor.Status, error) {
	if m.n < w.Ticks {
		m.n++
		arbor.Owner[*recorder](c).add(w.Label + ":running")(nil)
		return arbor.Running, nil
	}
	arbor.Owner[*recorder](c).add(w.Label + ":success")(nil)
	return arbor.Success, nil
}

func (w *work) Halt(c *arbor.Ctx, _ *workMem) {
	arbor.Owner[*recorder](c).add(w.Label + ":halt")(nil)
}

func workRegistry(t *testing.T) *arbor.Registry {
	t.Helper()
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[work, workMem](reg, "Work"); err != nil {
		t.Fatal(err)
	}
	return reg
}

// jobMachine: Job{Prepare → Act} ends in Succeeded or Failed.
func jobMachine() *fsm.Machine {
	m := fsm.NewMachine("Job", "Job")
	job := m.State("Job")
	job.To("Succeeded", on("ok"))
	job.To("Failed", on("fail"))
	job.Machine("Prepare").State("Prepare").To("Act", on("ready"))
	job.Sub.State("Act")
	m.State("Succeeded").SetFinal(arbor.Success)
	m.State("Failed").SetFinal(arbor.Failure)
	return m
}

func compileTree(t *testing.T, reg *arbor.Registry, root *arbor.Node) *arbor.Tree {
	t.Helper()
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": root}}, reg)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

func TestFSMNode(t *testing.T) {
	type tick struct {
		set    map[string]any
		status arbor.Status
		want   []string
	}
	tests := []struct {
		name  string
		root  func() *arbor.Node
		ticks []tick
		after func(t *testing.T, a *arbor.Agent, r *recorder)
	}{
		{
			name: "running until a final state: success",
			root: func() *arbor.Node {
				return arbor.Sequence(arbor.Leaf("FSM", "machine", "Job"), arbor.Leaf("Work", "label", "next", "ticks", 0))
			},
			ticks: []tick{
				{status: arbor.Running, want: []string{"enter Job", "enter Prepare", "update Job", "update Prepare"}},
				{set: map[string]any{"ready": true}, status: arbor.Running, want: []string{"exit Prepare", "do Prepare>Act", "enter Act", "update Job", "update Act"}},
				{set: map[string]any{"ok": true}, status: arbor.Success, want: []string{
					"exit Act", "exit Job", "do Job>Succeeded", "enter Succeeded", "update Succeeded",
					"exit Succeeded", // the node ends: its machine stops
					"next:start", "next:success"}},
				// The next activation starts the machine afresh.
				{set: map[string]any{"ok": false, "ready": false}, status: arbor.Running, want: []string{"enter Job", "enter Prepare", "update Job", "update Prepare"}},
			},
		},
		{
			name: "failure by a failure final state",
			root: func() *arbor.Node { return arbor.Leaf("FSM") },
			ticks: []tick{
				{status: arbor.Running, want: []string{"enter Job", "enter Prepare", "update Job", "update Prepare"}},
				{set: map[string]any{"fail": true}, status: arbor.Failure, want: []string{
					"exit Prepare", "exit Job", "do Job>Failed", "enter Failed", "update Failed", "exit Failed"}},
			},
		},
		{
			name: "halted by a pre-empting branch: exit callbacks innermost first",
			root: func() *arbor.Node {
				return arbor.ReactiveSelector(
					arbor.ReactiveSequence(arbor.Check("alarm", "==", true), arbor.Leaf("Work", "label", "flee", "ticks", 5)),
					arbor.Leaf("FSM", "machine", "Job"),
				)
			},
			ticks: []tick{
				{status: arbor.Running, want: []string{"enter Job", "enter Prepare", "update Job", "update Prepare"}},
				{set: map[string]any{"alarm": true}, status: arbor.Running, want: []string{"flee:start", "flee:running", "exit Prepare", "exit Job"}},
				{set: map[string]any{"alarm": false}, status: arbor.Running, want: []string{"flee:halt", "enter Job", "enter Prepare", "update Job", "update Prepare"}},
			},
		},
		{
			name: "halted with the agent",
			root: func() *arbor.Node { return arbor.Leaf("FSM", "machine", "Job") },
			ticks: []tick{
				{set: map[string]any{"ready": true}, status: arbor.Running, want: []string{
					"enter Job", "enter Prepare", "exit Prepare", "do Prepare>Act", "enter Act", "update Job", "update Act"}},
			},
			after: func(t *testing.T, a *arbor.Agent, r *recorder) {
				a.Halt()
				if got, want := r.take(), []string{"exit Act", "exit Job"}; !reflect.DeepEqual(got, want) {
					t.Errorf("Halt: %q, want %q", got, want)
				}
				a.Tick(time.Second)
				r.take()
				a.Reset()
				if got, want := r.take(), []string{"exit Act", "exit Job"}; !reflect.DeepEqual(got, want) {
					t.Errorf("Reset: %q, want %q", got, want)
				}
				a.Tick(2 * time.Second)
				if got, want := r.take(), []string{"enter Job", "enter Prepare", "exit Prepare", "do Prepare>Act", "enter Act", "update Job", "update Act"}; !reflect.DeepEqual(got, want) {
					t.Errorf("tick after Reset: %q, want %q", got, want)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &recorder{}
			m := jobMachine()
			instrument(m, r)
			def, err := fsm.Compile(m)
			if err != nil {
				t.Fatal(err)
			}
			reg := workRegistry(t)
			if err := fsm.Register(reg, []*fsm.Definition{def}); err != nil {
				t.Fatal(err)
			}
			a := arbor.NewAgent(compileTree(t, reg, tt.root()), arbor.WithOwner(r),
				arbor.WithErrorHandler(func(e *arbor.NodeError) { t.Errorf("node error: %v", e) }))
			for i, tk := range tt.ticks {
				for k, v := range tk.set {
					a.Blackboard().Set(k, v)
				}
				st := a.Tick(time.Duration(i) * 100 * time.Millisecond)
				if st != tk.status {
					t.Errorf("tick %d: %s, want %s", i+1, st, tk.status)
				}
				if got := r.take(); !reflect.DeepEqual(got, tk.want) {
					t.Errorf("tick %d:\n got  %q\n want %q", i+1, got, tk.want)
				}
			}
			if tt.after != nil {
				tt.after(t, a, r)
			}
		})
	}
}

func TestFSMNodeErrors(t *testing.T) {
	job, err := fsm.Compile(jobMachine())
	if err != nil {
		t.Fatal(err)
	}
	door := fsm.NewMachine("Door", "Closed")
	door.State("Closed").To("Open", fsm.Check("push", ">", 0))
	door.State("Open")
	doorDef, err := fsm.Compile(door)
	if err != nil {
		t.Fatal(err)
	}
	withTree := fsm.NewMachine("Fighter", "Fight")
	withTree.State("Fight").RunTree("Fight")
	treeDef, err := fsm.Compile(withTree, fsm.WithTrees(&arbor.Document{Trees: map[string]*arbor.Node{"Fight": arbor.AlwaysRunning()}}, nil))
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		reg  *arbor.Registry
		defs []*fsm.Definition
		want string
	}{
		{nil, []*fsm.Definition{job}, "nil registry"},
		{arbor.NewRegistry(), nil, "no definitions"},
		{arbor.NewRegistry(), []*fsm.Definition{job, nil}, "definition 1 is nil"},
		{arbor.NewRegistry(), []*fsm.Definition{job, job}, `two definitions are named "Job"`},
		{arbor.NewRegistry(), []*fsm.Definition{treeDef}, "machine Fighter: states Fight run trees of the document"},
	} {
		if err := fsm.Register(tc.reg, tc.defs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Register: %v, want an error containing %q", err, tc.want)
		}
	}

	reg := arbor.NewRegistry()
	if err := fsm.Register(reg, []*fsm.Definition{job, doorDef}); err != nil {
		t.Fatal(err)
	}
	if err := fsm.Register(reg, []*fsm.Definition{job}); err == nil || !strings.Contains(err.Error(), "already registered") {
		t.Errorf("registering FSM twice: %v", err)
	}
	if err := fsm.Register(reg, []*fsm.Definition{job}, fsm.NodeOptions{Type: "Machine"}); err != nil {
		t.Errorf("registering under another type name: %v", err)
	}
	_, err = arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": arbor.Sequence(
		arbor.Leaf("FSM", "machine", "Dor"),
		arbor.Leaf("FSM"),
		arbor.Leaf("FSM", "machine", 3),
		arbor.Leaf("FSM", "machine", "Door", "speed", 2),
	)}}, reg)
	for _, want := range []string{
		`trees.main.children[0]: parameter "machine": unknown machine "Dor" (machines: Door, Job) (did you mean "Door"?)`,
		`trees.main.children[1]: parameter "machine": missing required parameter (one of Door, Job)`,
		`trees.main.children[2]: parameter "machine": want a machine name (a string), got 3`,
		`trees.main.children[3]: unknown parameter "speed"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("compile error does not contain %q:\n%v", want, err)
		}
	}

	// Run errors of a node's machine are node errors of the node.
	var nodeErrs []*arbor.NodeError
	reg2 := arbor.NewRegistry()
	if err := fsm.Register(reg2, []*fsm.Definition{doorDef}, fsm.NodeOptions{OnError: func(e *arbor.NodeError) { nodeErrs = append(nodeErrs, e) }}); err != nil {
		t.Fatal(err)
	}
	a := arbor.NewAgent(compileTree(t, reg2, arbor.Sequence(arbor.Leaf("FSM").Named("door"))))
	a.Blackboard().Set("push", "hard")
	if st := a.Tick(0); st != arbor.Running {
		t.Fatalf("tick: %s", st)
	}
	if len(nodeErrs) != 1 {
		t.Fatalf("node errors: %v", nodeErrs)
	}
	e := nodeErrs[0]
	var re *fsm.RunError
	if e.Path != "main.children[0]" || e.Type != "FSM" || e.Name != "door" || e.Agent != a || !errors.As(e, &re) || re.State != "Closed" {
		t.Errorf("node error %+v (%v)", e, e)
	}
	if !strings.Contains(e.Error(), "cannot order a string and a number") {
		t.Errorf("node error message: %v", e)
	}

	// Without OnError they go to the agent's error handler, like the
	// errors of any node.
	var agentErrs []*arbor.NodeError
	reg3 := arbor.NewRegistry()
	if err := fsm.Register(reg3, []*fsm.Definition{doorDef}); err != nil {
		t.Fatal(err)
	}
	b := arbor.NewAgent(compileTree(t, reg3, arbor.Sequence(arbor.Leaf("FSM").Named("door"))),
		arbor.WithErrorHandler(func(e *arbor.NodeError) { agentErrs = append(agentErrs, e) }))
	b.Blackboard().Set("push", "hard")
	b.Tick(0)
	if len(agentErrs) != 1 || agentErrs[0].Path != "main.children[0]" || !errors.As(agentErrs[0], &re) {
		t.Fatalf("agent error handler got %v", agentErrs)
	}
}

// fightDoc: a machine whose Combat state runs the tree Fight.
func fightDoc() *arbor.Document {
	return &arbor.Document{Trees: map[string]*arbor.Node{
		"Fight": arbor.Sequence(
			arbor.Check("enemy", "==", true),
			arbor.Leaf("Work", "label", "swing", "ticks", 2),
			arbor.Set("swung", true),
		),
		"Patrol": arbor.Leaf("Work", "label", "walk", "ticks", 9),
	}}
}

func TestTreeState(t *testing.T) {
	r := &recorder{}
	m := fsm.NewMachine("Guard", "Patrol")
	m.State("Patrol").RunTree("Patrol").To("Combat", on("enemy"))
	combat := m.State("Combat").RunTree("Fight")
	combat.To("Rest", fsm.TreeIs(arbor.Success))
	combat.To("Patrol", fsm.TreeIs(arbor.Failure))
	m.State("Rest").To("Patrol", fsm.After(100*time.Millisecond))
	instrument(m, r)
	def, err := fsm.Compile(m, fsm.WithTrees(fightDoc(), workRegistry(t)))
	if err != nil {
		t.Fatal(err)
	}
	if !def.RunsTrees() {
		t.Fatal("RunsTrees")
	}
	in, err := fsm.NewInstance(def, fsm.WithOwner(r), fsm.WithErrorHandler(func(e *fsm.RunError) { t.Errorf("%v", e) }))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		set  map[string]any
		want []string
	}{
		{nil, []string{"enter Patrol", "update Patrol", "walk:start", "walk:running"}},
		{nil, []string{"update Patrol", "walk:running"}},
		// Exit halts the tree (before the exit callbacks); the tree of the
		// new state starts fresh, sharing the instance's blackboard.
		{map[string]any{"enemy": true}, []string{"walk:halt", "exit Patrol", "do Patrol>Combat", "enter Combat", "update Combat", "swing:start", "swing:running"}},
		{nil, []string{"update Combat", "swing:running"}},
		{nil, []string{"update Combat", "swing:success"}},
		// The tree succeeded on the last tick.
		{nil, []string{"exit Combat", "do Combat>Rest", "enter Rest", "update Rest"}},
		{nil, []string{"update Rest"}},
		{nil, []string{"exit Rest", "do Rest>Patrol", "enter Patrol", "update Patrol", "walk:start", "walk:running"}},
		{nil, []string{"walk:halt", "exit Patrol", "do Patrol>Combat", "enter Combat", "update Combat", "swing:start", "swing:running"}},
		{map[string]any{"enemy": false}, []string{"update Combat", "swing:running"}},
		{nil, []string{"update Combat", "swing:success"}},
		{map[string]any{"swung": nil}, []string{"exit Combat", "do Combat>Rest", "enter Rest", "update Rest"}},
	}
	for i, s := range steps {
		for k, v := range s.set {
			in.Blackboard().Set(k, v)
		}
		in.Update(time.Duration(i) * 50 * time.Millisecond)
		if got := r.take(); !reflect.DeepEqual(got, s.want) {
			t.Errorf("update %d:\n got  %q\n want %q", i+1, got, s.want)
		}
	}
	if v, _ := in.Blackboard().Value("swung").Bool(); v {
		t.Error("swung should have been deleted")
	}
	// A Combat interrupted mid-swing: Stop halts the tree, then exits.
	in.Stop()
	in.Blackboard().Set("enemy", true)
	in.Update(time.Second)
	in.Update(time.Second + 50*time.Millisecond)
	r.take()
	in.Stop()
	if got, want := r.take(), []string{"swing:halt", "exit Combat"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Stop in Combat: %q, want %q", got, want)
	}
	if _, err := fsm.NewInstance(def, fsm.WithBlackboard(in.Blackboard())); err == nil {
		t.Error("WithBlackboard accepted for a definition whose states run trees")
	}
}

func TestAgentState(t *testing.T) {
	r := &recorder{}
	reg := workRegistry(t)
	tree := compileTree(t, reg, arbor.Leaf("Work", "label", "dig", "ticks", 9))
	digger := arbor.NewAgent(tree, arbor.WithOwner(r))
	m := fsm.NewMachine("Miner", "Idle")
	m.State("Idle").To("Dig", on("ore"))
	m.State("Dig").RunAgent(func(c *fsm.Ctx) *arbor.Agent { return digger }).To("Idle", fsm.Not(on("ore")))
	instrument(m, r)
	def, err := fsm.Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	// The machine runs as a node of another agent's tree; its Dig state
	// ticks the digger agent.
	if err := fsm.Register(reg, []*fsm.Definition{def}); err != nil {
		t.Fatal(err)
	}
	outer := arbor.NewAgent(compileTree(t, reg, arbor.ReactiveSelector(
		arbor.Sequence(arbor.Check("alarm", "==", true), arbor.AlwaysRunning()),
		arbor.Leaf("FSM"),
	)), arbor.WithOwner(r))
	bb := outer.Blackboard()
	ticks := []struct {
		set  map[string]any
		want []string
	}{
		{nil, []string{"enter Idle", "update Idle"}},
		{map[string]any{"ore": true}, []string{"exit Idle", "do Idle>Dig", "enter Dig", "update Dig", "dig:start", "dig:running"}},
		{nil, []string{"update Dig", "dig:running"}},
		{map[string]any{"ore": false}, []string{"dig:halt", "exit Dig", "do Dig>Idle", "enter Idle", "update Idle"}},
		{map[string]any{"ore": true}, []string{"exit Idle", "do Idle>Dig", "enter Dig", "update Dig", "dig:start", "dig:running"}},
		// The outer tree pre-empts the FSM node: the digger's tree is
		// halted, then Dig's exit callbacks run.
		{map[string]any{"alarm": true}, []string{"dig:halt", "exit Dig"}},
	}
	for i, tk := range ticks {
		for k, v := range tk.set {
			bb.Set(k, v)
		}
		outer.Tick(time.Duration(i) * time.Second)
		if got := r.take(); !reflect.DeepEqual(got, tk.want) {
			t.Errorf("tick %d:\n got  %q\n want %q", i+1, got, tk.want)
		}
	}
	if digger.Running(0) {
		t.Error("the digger still runs")
	}
}

func TestTreeStateErrors(t *testing.T) {
	// Node errors of a state's tree reach the instance's error handler,
	// naming the state; the tree's node failed, the instance goes on.
	doc := &arbor.Document{Trees: map[string]*arbor.Node{"Aim": arbor.Check("target", "<", 3)}}
	m := fsm.NewMachine("Archer", "Aim")
	m.State("Aim").RunTree("Aim").To("Shoot", fsm.TreeIs(arbor.Success))
	m.State("Shoot").SetFinal(arbor.Success)
	def, err := fsm.Compile(m, fsm.WithTrees(doc, nil))
	if err != nil {
		t.Fatal(err)
	}
	var errs []*fsm.RunError
	in, _ := fsm.NewInstance(def, fsm.WithErrorHandler(func(e *fsm.RunError) { errs = append(errs, e) }))
	in.Blackboard().Set("target", "far")
	in.Update(0)
	var ne *arbor.NodeError
	if len(errs) != 1 || errs[0].State != "Aim" || errs[0].Where != "tree" || !errors.As(errs[0], &ne) {
		t.Fatalf("errors %v", errs)
	}
	if in.Done() {
		t.Fatal("done while aiming")
	}
	in.Blackboard().Set("target", 1)
	in.Update(time.Second)
	in.Update(2 * time.Second)
	if !in.Done() || in.Status() != arbor.Success || in.Active() != "Shoot" {
		t.Fatalf("in %s, status %s", in.Active(), in.Status())
	}
}

func TestTransitionCallbackPanic(t *testing.T) {
	// A panicking transition callback is reported; the transition
	// completes.
	var errs []*fsm.RunError
	m := fsm.NewMachine("m", "A")
	m.State("A").To("B", nil).OnTransition(func(*fsm.Ctx) { panic("do boom") })
	m.State("B").RunAgent(func(*fsm.Ctx) *arbor.Agent { panic("no agent") })
	def, _ := fsm.Compile(m)
	in, _ := fsm.NewInstance(def, fsm.WithErrorHandler(func(e *fsm.RunError) { errs = append(errs, e) }))
	in.Update(0)
	if in.Active() != "B" || len(errs) != 2 || errs[0].Where != "transition to B" || errs[0].State != "A" || errs[1].Where != "agent" {
		t.Fatalf("in %s, errors %v", in.Active(), errs)
	}
	if !strings.Contains(errs[0].Error(), "fsm m: state A: transition to B: panic: do boom") {
		t.Errorf("message: %v", errs[0])
	}
}

func TestStateKey(t *testing.T) {
	// Standalone: the active path follows the configuration.
	m := fsm.NewMachine("m", "P")
	p := m.State("P")
	p.To("X", on("go"))
	p.Machine("Q").State("Q")
	m.State("X")
	def, _ := fsm.Compile(m)
	in, _ := fsm.NewInstance(def, fsm.WithStateKey("state"))
	state := func() string { s, _ := in.Blackboard().Value("state").Str(); return s }
	in.Update(0)
	if state() != "P/Q" {
		t.Fatalf("state %q", state())
	}
	in.Blackboard().Set("go", true)
	in.Update(0)
	if state() != "X" {
		t.Fatalf("state %q", state())
	}
	in.Stop()
	if _, ok := in.Blackboard().Lookup("state"); ok {
		t.Fatal("the state key outlives the instance's run")
	}

	// As a node parameter: shown in the agent's blackboard while it runs.
	job, _ := fsm.Compile(jobMachine())
	reg := arbor.NewRegistry()
	if err := fsm.Register(reg, []*fsm.Definition{job}); err != nil {
		t.Fatal(err)
	}
	a := arbor.NewAgent(compileTree(t, reg, arbor.Leaf("FSM", "stateKey", "jobState")))
	bb := a.Blackboard()
	a.Tick(0)
	if s, _ := bb.Value("jobState").Str(); s != "Job/Prepare" {
		t.Fatalf("jobState %v", bb.Value("jobState"))
	}
	bb.Set("ok", true)
	if st := a.Tick(time.Second); st != arbor.Success {
		t.Fatalf("status %s", st)
	}
	if _, ok := bb.Lookup("jobState"); ok {
		t.Fatal("jobState outlives the node's run")
	}
	if _, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.Leaf("FSM", "stateKey", 3)}}, reg); err == nil ||
		!strings.Contains(err.Error(), `parameter "stateKey": want a blackboard key (a non-empty string), got 3`) {
		t.Errorf("bad stateKey: %v", err)
	}
}

// An agent with an FSM node snapshots at any time: a restored agent's
// machine continues in the states it was in (and from scratch when the
// node was not running).
func TestFSMNodeSnapshots(t *testing.T) {
	def, err := fsm.Compile(jobMachine())
	if err != nil {
		t.Fatal(err)
	}
	reg := arbor.NewRegistry()
	if err := fsm.Register(reg, []*fsm.Definition{def}); err != nil {
		t.Fatal(err)
	}
	tree := compileTree(t, reg, arbor.Sequence(arbor.Leaf("FSM", "stateKey", "job"), arbor.Set("done", true)))
	restored := func(a *arbor.Agent) *arbor.Agent {
		t.Helper()
		data, err := a.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		b := arbor.NewAgent(tree)
		if err := b.Restore(data); err != nil {
			t.Fatal(err)
		}
		return b
	}
	a := arbor.NewAgent(tree)
	fresh := restored(a)
	if st := a.Tick(time.Second); st != arbor.Running || a.Blackboard().Value("job").String() != `"Job/Prepare"` {
		t.Fatalf("tick: %v, job %v", st, a.Blackboard().Value("job"))
	}
	a.Blackboard().Set("ready", true)
	a.Tick(2 * time.Second)
	if got := a.Blackboard().Value("job").String(); got != `"Job/Act"` {
		t.Fatalf("job %s, want Job/Act", got)
	}
	// Running in Job/Act: the restored agent goes on from there (a machine
	// started afresh would be in Job/Prepare, ready being unset).
	b := restored(a)
	for _, x := range []*arbor.Agent{a, b} {
		x.Blackboard().Set("ready", false)
		if st := x.Tick(3 * time.Second); st != arbor.Running {
			t.Fatalf("after restore: %v", st)
		}
	}
	if ja, jb := a.Blackboard().Value("job").String(), b.Blackboard().Value("job").String(); ja != `"Job/Act"` || jb != ja {
		t.Fatalf("after restore: original in %s, restored in %s, want Job/Act for both", ja, jb)
	}
	b.Blackboard().Set("ok", true)
	if st := b.Tick(4 * time.Second); st != arbor.Success || b.Blackboard().Value("done").String() != "true" {
		t.Fatalf("restored agent after ok: %v, done %v", st, b.Blackboard().Value("done"))
	}
	// The agent restored before any tick starts its machine afresh.
	if st := fresh.Tick(time.Second); st != arbor.Running || fresh.Blackboard().Value("job").String() != `"Job/Prepare"` {
		t.Fatalf("fresh restore: %v, job %v", st, fresh.Blackboard().Value("job"))
	}
}
