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
