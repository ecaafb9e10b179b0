package arbor_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/arborbt/arbor"
)

// Typed blackboard keys: resolved once to an integer slot, read and
// written without maps or boxing; keys beginning with "@" are global.
func ExampleKey() {
	hp := arbor.NewKey[float64]("hp")
	name := arbor.NewKey[string]("name")
	alarm := arbor.NewKey[bool]("@alarm") // shared by every agent of a Manager

	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{
		"t": arbor.Check("hp", "<", 30),
	}}, arbor.NewRegistry())
	if err != nil {
		fmt.Println(err)
		return
	}
	bb := arbor.NewAgent(tree).Blackboard()
	hp.Set(bb, 25)
	name.Set(bb, "Grunt")
	alarm.Set(bb, true)
	h, _ := hp.Get(bb)
	n, _ := name.Get(bb)
	_, err = arbor.NewKey[int]("name").Get(bb) // the wrong type is an error, not a panic
	fmt.Println(h, n, alarm.Has(bb))
	fmt.Println(err)
	// Output:
	// 25 Grunt true
	// blackboard key "name" holds a string ("Grunt"), not the int the handle reads
}

// A tracer sees every node event of an agent: the debugger, arbor run
// -trace and the scenario runner are built on it.
func ExampleWithTracer() {
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{
		"t": arbor.Sequence(arbor.Check("ready", "==", true), arbor.WaitTicks(1)),
	}}, arbor.NewRegistry())
	if err != nil {
		fmt.Println(err)
		return
	}
	trace := func(a *arbor.Agent, e arbor.Event) {
		label := a.Tree().Node(int(e.Node)).Label()
		switch e.Kind {
		case arbor.EventResult:
			fmt.Printf("  %s: %s\n", label, e.Status)
		default:
			fmt.Printf("  %s: %s\n", label, e.Kind)
		}
	}
	agent := arbor.NewAgent(tree, arbor.WithTracer(trace))
	arbor.NewKey[bool]("ready").Set(agent.Blackboard(), true)
	for tick := 1; tick <= 2; tick++ {
		fmt.Println("tick", tick)
		agent.Tick(time.Duration(tick) * 100 * time.Millisecond)
	}
	// Output:
	// tick 1
	//   Sequence: start
	//   Check: start
	//   Check: success
	//   Wait: start
	//   Wait: running
	//   Sequence: running
	// tick 2
	//   Wait: success
	//   Sequence: success
}

// A snapshot saves an agent's running state and blackboard; a fresh agent
// of the same tree restored from it continues where the first left off.
func ExampleAgent_Snapshot() {
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{
		"t": arbor.Sequence(arbor.WaitTicks(2), arbor.Set("done", true)),
	}}, arbor.NewRegistry())
	if err != nil {
		fmt.Println(err)
		return
	}
	a := arbor.NewAgent(tree)
	fmt.Println(a.Tick(100 * time.Millisecond)) // Wait: 1 of 2 ticks
	data, err := a.Snapshot()
	if err != nil {
		fmt.Println(err)
		return
	}
	b := arbor.NewAgent(tree)
	if err := b.Restore(data); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Tick(200*time.Millisecond), b.Tick(300*time.Millisecond))
	done, _ := arbor.NewKey[bool]("done").Get(b.Blackboard())
	fmt.Println(done)
	// Output:
	// running
	// running success
	// true
}

// Forcing a node's result tries another path of a live agent without
// editing the tree or its blackboard (the debugger's Node tab does this).
func ExampleAgent_Force() {
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{
		"t": arbor.ReactiveSelector(
			arbor.Check("hp", "<", 30).Named("low hp"),
			arbor.WaitTicks(3).Named("patrol"),
		),
	}}, arbor.NewRegistry())
	if err != nil {
		fmt.Println(err)
		return
	}
	agent := arbor.NewAgent(tree)
	arbor.NewKey[float64]("hp").Set(agent.Blackboard(), 80)
	fmt.Println(agent.Tick(0))                            // hp is 80: patrol
	if err := agent.Force(1, arbor.Success); err != nil { // node 1 is "low hp"
		fmt.Println(err)
		return
	}
	fmt.Println(agent.Tick(time.Second), agent.Running(2)) // the patrol is halted
	_ = agent.Unforce(1)
	fmt.Println(agent.Tick(2 * time.Second))
	// Output:
	// running
	// success false
	// running
}

// A RandomSelector tries its children in an order drawn when each
// activation starts: here "Bark" weighs three times "Growl", and "Sulk"
// (weight 0) comes last. The draws are reproducible: a seed (or, without
// one, the agent's id) and the node's id seed them.
func ExampleRandomSelector() {
	reg := arbor.NewRegistry()
	var tried []string
	for _, name := range []string{"Bark", "Growl", "Sulk"} {
		if err := reg.ActionFunc(name, func(*arbor.Ctx) (arbor.Status, error) {
			tried = append(tried, name)
			return arbor.Failure, nil // fails: the selector tries the next one
		}); err != nil {
			fmt.Println(err)
			return
		}
	}
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{
		"t": arbor.RandomSelector(arbor.Leaf("Bark"), arbor.Leaf("Growl"), arbor.Leaf("Sulk")).
			With("weights", []any{3, 1, 0}).With("seed", 42),
	}}, reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	agent := arbor.NewAgent(tree)
	for tick := 1; tick <= 3; tick++ {
		tried = tried[:0]
		agent.Tick(time.Duration(tick) * 100 * time.Millisecond)
		fmt.Println(strings.Join(tried, " "))
	}
	// Output:
	// Growl Bark Sulk
	// Bark Growl Sulk
	// Bark Growl Sulk
}

// A Switch runs the child of the case equal to a blackboard value, or its
// last child, the default; when the value changes, the child that was
// running is halted first. An IfThenElse asks its condition once per
// activation, then runs the branch it chose until that ends (here Fight
// goes on while hp falls; a WhileDoElse would switch to Flee).
func ExampleSwitch() {
	reg := arbor.NewRegistry()
	for _, name := range []string{"Patrol", "Fight", "Flee", "Idle"} {
		if err := reg.ActionFunc(name, func(*arbor.Ctx) (arbor.Status, error) { return arbor.Running, nil }); err != nil {
			fmt.Println(err)
			return
		}
	}
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{
		"t": arbor.Switch("mode", []any{"patrol", "alert"},
			arbor.Leaf("Patrol"),
			arbor.IfThenElse(arbor.Check("hp", ">", 30), arbor.Leaf("Fight"), arbor.Leaf("Flee")),
			arbor.Leaf("Idle")),
	}}, reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	var events []string
	agent := arbor.NewAgent(tree, arbor.WithTracer(func(a *arbor.Agent, e arbor.Event) {
		n := a.Tree().Node(int(e.Node))
		switch {
		case len(n.Children) > 0 || n.Condition:
		case e.Kind == arbor.EventResult:
			events = append(events, n.Type+":"+e.Status.String())
		default:
			events = append(events, n.Type+":"+e.Kind.String())
		}
	}))
	for tick, step := range []struct {
		mode any
		hp   int
	}{{"patrol", 50}, {"alert", 50}, {"alert", 10}, {nil, 10}} {
		if step.mode == nil {
			agent.Blackboard().Delete("mode")
		} else {
			agent.Blackboard().Set("mode", step.mode)
		}
		agent.Blackboard().Set("hp", step.hp)
		events = events[:0]
		agent.Tick(time.Duration(tick+1) * 100 * time.Millisecond)
		fmt.Println(strings.Join(events, " "))
	}
	// Output:
	// Patrol:start Patrol:running
	// Patrol:halt Fight:start Fight:running
	// Fight:running
	// Fight:halt Idle:start Idle:running
}
