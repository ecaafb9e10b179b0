package format_test

import (
	"fmt"

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
