package scenario_test

import (
	"fmt"
	"os"

	"github.com/arborbt/arbor/scenario"
)

// A scenario ticks a tree with scripted actions and checks each tick's
// result and trace; a failing one says where it first differs.
func ExampleScenario_Run() {
	data := []byte(`
name: guard pre-empts the patrol
tree:
  type: ReactiveSelector
  children:
    - type: Sequence
      children:
        - {type: Check, key: enemy, op: "==", value: true}
        - {type: Attack}
    - {type: Patrol}
mocks: {Attack: [running, success], Patrol: [running]}
blackboard: {enemy: false}
ticks:
  - {status: running, trace: ["Patrol:start", "Patrol:running"]}
  - set: {enemy: true}
    status: running
    trace: ["Attack:start", "Attack:running", "Patrol:halt"]
  - {status: success, trace: ["Attack:failure"]}
`)
	scenarios, err := scenario.Parse(data, true, "guard.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range scenarios {
		res := s.Run()
		fmt.Println(res.Passed, res.Name)
		fmt.Println(res.Failure)
	}
	// Output:
	// false guard pre-empts the patrol
	// tick 3 (ticks[2]): trace:
	//     expected ["Attack:failure"]
	//     actual   ["Attack:success"]
}

// RunPaths is what arbor test does: every scenario file under the paths,
// a line per scenario and a summary.
func ExampleRunPaths() {
	dir, err := os.MkdirTemp("", "scenarios")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	_ = os.WriteFile(dir+"/wait.json", []byte(`{"name": "wait two ticks",
	  "tree": {"type": "Wait", "ticks": 2},
	  "ticks": [{"status": "running", "repeat": 2}, {"status": "success"}]}`), 0o644)
	sum, err := scenario.RunPaths(os.Stdout, []string{dir}, false)
	fmt.Println(sum.Failed, err)
	// Output:
	// PASS wait two ticks
	// 1 passed, 0 failed
	// 0 <nil>
}
