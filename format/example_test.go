package format_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format"
)

// Any supported format in, any format out: here a BehaviorTree.CPP tree
// drawn for a terminal and written in the native format.
func ExampleConvert() {
	xml := []byte(`<root BTCPP_format="4"><BehaviorTree ID="Main">
	  <ReactiveFallback><Inverter><AlwaysFailure/></Inverter><Sleep msec="200"/></ReactiveFallback>
	</BehaviorTree></root>`)
	doc, err := format.Parse(xml, format.DetectData(xml))
	if err != nil {
		fmt.Println(err)
		return
	}
	text, err := format.Render(doc, format.RenderASCII)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(text)
	out, err := format.Convert(doc, format.Arbor)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s", out)
	// Output:
	// Main (main tree)
	// `-- ReactiveSelector
	//     |-- Inverter
	//     |   `-- Failure
	//     `-- Wait ms=200
	// {
	//   "format": "arbor/1",
	//   "main": "Main",
	//   "trees": {
	//     "Main": {
	//       "type": "ReactiveSelector",
	//       "children": [
	//         {
	//           "type": "Inverter",
	//           "child": {
	//             "type": "Failure"
	//           }
	//         },
	//         {
	//           "type": "Wait",
	//           "ms": 200
	//         }
	//       ]
	//     }
	//   }
	// }
}

// A tree file in any format, compiled in one call: here a Groot2 file
// whose Approach action the program registers.
func ExampleLoadTree() {
	dir, err := os.MkdirTemp("", "arbor-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "guard.xml")
	xml := `<root BTCPP_format="4" main_tree_to_execute="Guard">
  <BehaviorTree ID="Guard">
    <Sequence>
      <Approach name="approach the gate"/>
      <Sleep msec="200"/>
    </Sequence>
  </BehaviorTree>
</root>`
	if err := os.WriteFile(path, []byte(xml), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	reg := arbor.NewRegistry()
	if err := reg.ActionFunc("Approach", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }); err != nil {
		fmt.Println(err)
		return
	}
	tree, err := format.LoadTree(path, reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	agent := arbor.NewAgent(tree)
	for now := time.Duration(0); now <= 300*time.Millisecond; now += 100 * time.Millisecond {
		fmt.Println(now, agent.Tick(now))
	}
	// Output:
	// 0s running
	// 100ms running
	// 200ms success
	// 300ms running
}
