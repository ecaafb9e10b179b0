package arbor_test

import (
	"fmt"
	"time"

	"github.com/arborbt/arbor"
)

// A tree built in Go: attack when an enemy is close, otherwise wait.
func ExampleCompile() {
	root := arbor.Selector(
		arbor.Sequence(
			arbor.Check("enemyDist", "<", 5),
			arbor.Set("mode", "attack"),
		),
		arbor.Sequence(
			arbor.Set("mode", "idle"),
			arbor.WaitTicks(1),
		),
	)
	doc := &arbor.Document{Trees: map[string]*arbor.Node{"guard": root}}
	tree, err := arbor.Compile(doc, arbor.NewRegistry())
	if err != nil {
		fmt.Println(err)
		return
	}
	agent := arbor.NewAgent(tree)
	dist := arbor.NewKey[float64]("enemyDist")
	mode := arbor.NewKey[string]("mode")
	for tick, d := range []float64{9, 9, 3} {
		dist.Set(agent.Blackboard(), d)
		status := agent.Tick(time.Duration(tick) * 100 * time.Millisecond)
		m, _ := mode.Get(agent.Blackboard())
		fmt.Println(status, m)
	}
	// Output:
	// running idle
	// success idle
	// success attack
}

// A tree loaded from the native JSON format, with a load error reported
// with the node's path and a suggestion.
func ExampleParseJSON() {
	doc, err := arbor.ParseJSON([]byte(`{
	  "format": "arbor/1",
	  "main": "Guard",
	  "trees": {
	    "Guard": { "type": "Sequence", "children": [
	      { "type": "Check", "key": "alarm", "op": "==", "value": true },
	      { "type": "Wiat", "ticks": 2 } ] }
	  }
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = arbor.Compile(doc, arbor.NewRegistry())
	fmt.Println(err)
	// Output:
	// trees.Guard.children[1]: unknown node type "Wiat" (did you mean "Wait"?) [Wiat, line 7]
}

// MoveTo is an action: its exported fields are parameters read from the
// tree file; the per-agent memory is moveMem.
type MoveTo struct {
	Target arbor.Param[string] `arbor:"target,required"`
	Steps  int                 `arbor:"steps,default=2"`
}

type moveMem struct{ walked int }

func (m *MoveTo) Start(c *arbor.Ctx, mem *moveMem) error {
	target, err := m.Target.Get(c)
	if err != nil {
		return err
	}
	fmt.Println("walking to", target)
	return nil
}

func (m *MoveTo) Tick(c *arbor.Ctx, mem *moveMem) (arbor.Status, error) {
	if mem.walked < m.Steps {
		mem.walked++
		return arbor.Running, nil
	}
	return arbor.Success, nil
}

func (m *MoveTo) End(c *arbor.Ctx, mem *moveMem, s arbor.Status) {
	fmt.Println("arrived:", s)
}

// Registering an action with parameters and per-agent memory.
func ExampleRegisterAction() {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[MoveTo, moveMem](reg, "MoveTo"); err != nil {
		fmt.Println(err)
		return
	}
	doc, _ := arbor.ParseYAML([]byte(`
type: Sequence
children:
  - { type: MoveTo, target: "{post}" }
  - { type: MoveTo, target: gate, steps: 0 }
`))
	tree, err := arbor.Compile(doc, reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	agent := arbor.NewAgent(tree)
	agent.Blackboard().Set("post", "tower")
	for i := 1; i <= 3; i++ {
		fmt.Println("tick", i, agent.Tick(time.Duration(i)*time.Second))
	}
	// Output:
	// walking to tower
	// tick 1 running
	// tick 2 running
	// arrived: success
	// walking to gate
	// arrived: success
	// tick 3 success
}

// A manager ticks many agents of one tree over worker goroutines; sensing
// runs on the workers too.
func ExampleManager() {
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"guard": arbor.Selector(
		arbor.Sequence(arbor.Check("hp", "<", 30), arbor.Set("mode", "flee")),
		arbor.Set("mode", "fight"),
	)}}, arbor.NewRegistry())
	if err != nil {
		fmt.Println(err)
		return
	}
	m := arbor.NewManager(arbor.WithWorkers(2))
	defer m.Close()
	hp := arbor.NewKey[float64]("hp")
	for i := 0; i < 1000; i++ {
		m.Add(tree, arbor.WithOwner(float64(i%100)))
	}
	m.TickWith(time.Second, func(a *arbor.Agent) {
		hp.Set(a.Blackboard(), a.Owner().(float64)) // each agent senses its own state
	})
	mode := arbor.NewKey[string]("mode")
	counts := map[string]int{}
	for _, a := range m.Agents() {
		v, _ := mode.Get(a.Blackboard())
		counts[v]++
	}
	fmt.Println(counts["flee"], "flee,", counts["fight"], "fight")
	// Output: 300 flee, 700 fight
}

// Describing a registered type's parameters, as editors' palettes need
// them (btcpp.Models and b3.NodeExport write them for Groot2 and the
// Behavior3 editor).
func ExampleRegistry_Describe() {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[MoveTo, moveMem](reg, "MoveTo"); err != nil {
		fmt.Println(err)
		return
	}
	info, _ := reg.Describe("MoveTo")
	fmt.Println(info.Name, info.Category)
	for _, p := range info.Params {
		fmt.Printf("%s: %v required=%v {key}=%v default=%v\n", p.Name, p.Type, p.Required, p.Ref, p.Default)
	}
	// Output:
	// MoveTo action
	// target: string required=true {key}=true default=<nil>
	// steps: int required=false {key}=false default=2
}
