package b3_test

import (
	"fmt"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/b3"
)

// A tree exported by the Behavior3 editor loads as an Arbor document: its
// Priority becomes a ReactiveSelector, MemSequence a Sequence, and the
// program registers the custom node types (here Attack and Patrol).
func ExampleLoad() {
	data := []byte(`{
	  "scope": "tree", "title": "guard", "root": "1",
	  "nodes": {
	    "1": {"id": "1", "name": "Priority", "children": ["2", "4"]},
	    "2": {"id": "2", "name": "MemSequence", "children": ["3"]},
	    "3": {"id": "3", "name": "Attack", "title": "Attack <target>", "properties": {"target": "orc"}},
	    "4": {"id": "4", "name": "Patrol"}
	  }
	}`)
	doc, err := b3.Load(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	reg := arbor.NewRegistry()
	_ = reg.ActionFunc("Attack", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Failure, nil },
		arbor.AnyParams())
	_ = reg.ActionFunc("Patrol", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Running, nil })
	tree, err := arbor.Compile(doc, reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range tree.Len() {
		n := tree.Node(i)
		fmt.Println(n.Type, n.Label())
	}
	fmt.Println(arbor.NewAgent(tree).Tick(0))
	// Output:
	// ReactiveSelector ReactiveSelector
	// Sequence Sequence
	// Attack Attack orc
	// Patrol Patrol
	// running
}
