package btcpp_test

import (
	"fmt"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/btcpp"
)

// A BehaviorTree.CPP v4 file loads as an Arbor document: Fallback becomes
// Selector, Sleep a Wait, ports in braces read the blackboard.
func ExampleLoad() {
	data := []byte(`<root BTCPP_format="4" main_tree_to_execute="Main">
	  <BehaviorTree ID="Main">
	    <Fallback name="root">
	      <Sequence>
	        <Action ID="CheckBattery" level="{battery}"/>
	        <Sleep msec="500"/>
	      </Sequence>
	      <AlwaysFailure/>
	    </Fallback>
	  </BehaviorTree>
	</root>`)
	doc, err := btcpp.Load(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := arbor.NewRegistry()
	_ = reg.ActionFunc("CheckBattery", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }, arbor.AnyParams())
	tree, err := arbor.Compile(doc, reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range tree.Len() {
		n := tree.Node(i)
		fmt.Println(n.Type, n.Params)
	}
	// Output:
	// Selector map[]
	// Sequence map[]
	// CheckBattery map[level:{battery}]
	// Wait map[ms:500]
	// Failure map[]
}

// Patrol is a program action with list parameters.
type Patrol struct {
	Waypoints []string  `arbor:"waypoints"`
	Speeds    []float64 `arbor:"speeds"`
}

func (p *Patrol) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) {
	fmt.Println(p.Waypoints, p.Speeds)
	return arbor.Success, nil
}

// A port the TreeNodesModel declares a std::vector<T> is a list, written
// as BT.CPP writes one: elements separated by ';'.
func ExampleLoad_lists() {
	data := []byte(`<root BTCPP_format="4">
	  <BehaviorTree ID="Main">
	    <Patrol waypoints="dock;gate;tower" speeds="1.5;2"/>
	  </BehaviorTree>
	  <TreeNodesModel>
	    <Action ID="Patrol">
	      <input_port name="waypoints" type="std::vector&lt;std::string&gt;"/>
	      <input_port name="speeds" type="std::vector&lt;double, std::allocator&lt;double&gt; &gt;"/>
	    </Action>
	  </TreeNodesModel>
	</root>`)
	doc, err := btcpp.Load(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[Patrol, struct{}](reg, "Patrol"); err != nil {
		fmt.Println(err)
		return
	}
	tree, err := arbor.Compile(doc, reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	arbor.NewAgent(tree).Tick(0)
	// Output:
	// [dock gate tower] [1.5 2]
}

// ReadModels reads a palette back: the types a program declared, with
// their parameters, for tools that check trees without the program.
func ExampleReadModels() {
	palette := []byte(`<root BTCPP_format="4">
	  <TreeNodesModel>
	    <Action ID="MoveTo">
	      <input_port name="target" type="std::string">required</input_port>
	      <input_port name="speed" type="double" default="1.5"/>
	    </Action>
	    <Condition ID="EnemyNear"/>
	  </TreeNodesModel>
	</root>`)
	types, err := btcpp.ReadModels(palette)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range types {
		fmt.Println(t.Name, t.Category)
		for _, p := range t.Params {
			fmt.Printf("  %s %v required=%v default=%v\n", p.Name, p.Type, p.Required, p.Default)
		}
	}
	// Output:
	// MoveTo action
	//   target string required=true default=<nil>
	//   speed float64 required=false default=1.5
	// EnemyNear condition
}
