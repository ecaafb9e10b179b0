package arbor_test

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/arborbt/arbor"
)

// Loading and compiling a native tree file, then ticking an agent: the
// sentry patrols, hears a noise and investigates it (its abort: lower
// pre-empts the patrol).
func ExampleLoadTree() {
	tree, err := arbor.LoadTree("examples/sentry.yaml", nil) // built-in nodes only: no registry needed
	if err != nil {
		fmt.Println(err)
		return
	}
	agent := arbor.NewAgent(tree)
	mode := arbor.NewKey[string]("mode")
	for tick := 0; tick < 5; tick++ {
		status := agent.Tick(time.Duration(tick) * 100 * time.Millisecond)
		m, _ := mode.Get(agent.Blackboard())
		fmt.Println(status, m)
	}
	_, err = arbor.LoadTree("examples/missing.yaml", nil)
	fmt.Println(errors.Is(err, fs.ErrNotExist)) // "load examples/missing.yaml: open ...", wrapped
	// Output:
	// running patrolling
	// running patrolling
	// running patrolling
	// running investigating
	// running investigating
	// true
}

// A node error (an error returned by a user node, a wrong blackboard type,
// a panic) fails the node and goes to the agent's error handler with the
// node's path; the agent keeps working.
func ExampleWithErrorHandler() {
	reg := arbor.NewRegistry()
	reg.ConditionFunc("Armed", func(c *arbor.Ctx) (bool, error) {
		ammo, err := arbor.NewKey[int]("ammo").Get(c.Blackboard())
		return ammo > 0, err
	})
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"guard": arbor.Selector(
		arbor.Sequence(arbor.Leaf("Armed"), arbor.Set("mode", "shoot")),
		arbor.Set("mode", "hide"),
	)}}, reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	agent := arbor.NewAgent(tree, arbor.WithErrorHandler(func(e *arbor.NodeError) {
		fmt.Println("node error:", e)
		var missing *arbor.MissingError
		fmt.Println("missing key:", errors.As(e, &missing) && missing.Key == "ammo")
	}))
	fmt.Println(agent.Tick(0), agent.Blackboard().Value("mode"))
	agent.Blackboard().Set("ammo", 2.5) // not an int: a *TypeError
	fmt.Println(agent.Tick(time.Second), agent.Blackboard().Value("mode"))
	// Output:
	// node error: guard.children[0].children[0] (Armed): blackboard key "ammo" is missing
	// missing key: true
	// success "hide"
	// node error: guard.children[0].children[0] (Armed): blackboard key "ammo" holds a number (2.5), not the int the handle reads
	// missing key: false
	// success "hide"
}
