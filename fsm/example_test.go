package fsm_test

import (
	"fmt"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/fsm"
)

// A hierarchical machine built in Go: a guard is On duty (Patrol, then
// Chase when an intruder is close) until its shift ends.
func Example() {
	say := func(s string) func(*fsm.Ctx) { return func(*fsm.Ctx) { fmt.Println(" ", s) } }

	m := fsm.NewMachine("Guard", "OnDuty")
	duty := m.State("OnDuty").OnEnter(say("clock in")).OnExit(say("clock out"))
	duty.To("OffDuty", fsm.Check("shiftOver", "==", true)).OnTransition(say("hand over the keys"))
	shift := duty.Machine("Patrol")
	shift.State("Patrol").OnUpdate(say("patrol")).
		To("Chase", fsm.Check("intruderDist", "<", 5))
	shift.State("Chase").OnEnter(say("shout")).OnUpdate(say("chase")).
		To("Patrol", fsm.Check("intruderDist", "missing"))
	m.State("OffDuty").SetFinal(arbor.Success).OnEnter(say("go home"))

	def, err := fsm.Compile(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	guard, _ := fsm.NewInstance(def) // one per guard; def is shared
	bb := guard.Blackboard()
	for tick, set := range []map[string]any{
		{},
		{"intruderDist": 3},
		{},
		{"intruderDist": nil}, // nil deletes the key
		{"shiftOver": true},
	} {
		for k, v := range set {
			bb.Set(k, v)
		}
		status := guard.Update(time.Duration(tick) * time.Second)
		fmt.Println(tick, guard.ActivePath(), status)
	}
	// Output:
	//   clock in
	//   patrol
	// 0 OnDuty/Patrol running
	//   shout
	//   chase
	// 1 OnDuty/Chase running
	//   chase
	// 2 OnDuty/Chase running
	//   patrol
	// 3 OnDuty/Patrol running
	//   clock out
	//   hand over the keys
	//   go home
	// 4 OffDuty success
}

// A state machine as one action of a behavior tree: the tree's FSM node
// runs the lock picking machine until it reaches a final state.
func ExampleRegister() {
	m := fsm.NewMachine("PickLock", "Probe")
	probe := m.State("Probe").OnUpdate(func(c *fsm.Ctx) {
		pins, _ := c.Blackboard().Value("pins").Number()
		c.Blackboard().Set("pins", pins+1) // one more pin each tick
	})
	probe.To("Open", fsm.Check("pins", ">=", 3))
	probe.To("Jammed", fsm.Check("pins", "<", 0))
	m.State("Open").SetFinal(arbor.Success)
	m.State("Jammed").SetFinal(arbor.Failure)
	def, err := fsm.Compile(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := arbor.NewRegistry()
	if err := fsm.Register(reg, []*fsm.Definition{def}); err != nil {
		fmt.Println(err)
		return
	}
	doc, err := arbor.ParseYAML([]byte(`
trees:
  Burgle:
    type: Sequence
    children:
      - { type: Set, key: pins, value: 0 }
      - { type: FSM, machine: PickLock }
      - { type: Set, key: loot, value: gold }
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, err := arbor.Compile(doc, reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	thief := arbor.NewAgent(tree)
	for tick := 0; tick < 4; tick++ {
		status := thief.Tick(time.Duration(tick) * time.Second)
		fmt.Println(tick, status, thief.Blackboard().Value("pins"), thief.Blackboard().Value("loot"))
	}
	// Output:
	// 0 running 1 <missing>
	// 1 running 2 <missing>
	// 2 running 3 <missing>
	// 3 success 3 "gold"
}

// A machine loaded from a file's fsm section, beside the trees its states
// run; conditions are written like the Check node.
func ExampleParseYAML() {
	doc, err := fsm.ParseYAML([]byte(`
format: arbor/1
trees:
  Sleep: { type: Wait, ticks: 1 }
fsm:
  Cat:
    initial: Nap
    states:
      Nap:
        tree: Sleep
        enter: { set: { mood: sleepy } }
        transitions:
          - { to: Play, when: { tree: success } }
      Play:
        enter: { set: { mood: playful } }
        transitions:
          - { to: Nap, when: { after: 1500 } }
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	def, err := doc.Compile("Cat", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	cat, _ := fsm.NewInstance(def)
	for tick := 0; tick < 6; tick++ {
		cat.Update(time.Duration(tick) * time.Second)
		fmt.Println(tick, cat.Active(), cat.Blackboard().Value("mood"))
	}
	// Output:
	// 0 Nap "sleepy"
	// 1 Nap "sleepy"
	// 2 Play "playful"
	// 3 Play "playful"
	// 4 Nap "sleepy"
	// 5 Nap "sleepy"
}
