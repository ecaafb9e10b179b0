package btcpp_test

import (
	"strings"
	"testing"

	"github.com/arborbt/arbor/format/btcpp"
	"github.com/arborbt/arbor/format/internal/formattest"
)

// What Models writes, ReadModels reads back: each program type's category,
// its parameters (in the file's order: Models sorts them), their types as the ports' C++ types read,
// whether they are required, and their defaults.
func TestReadModelsReadsModels(t *testing.T) {
	data, err := btcpp.Models(paletteRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	infos, err := btcpp.ReadModels(data)
	if err != nil {
		t.Fatal(err)
	}
	program := formattest.ProgramTypes(infos)
	want := `Feel action: zone <nil>
MoveTo action: anything <nil>, count int64 =3, flags []bool, loud bool, max uint64, mode string =walk, opts <nil>, pause float64 =250, speed float64 =1.5, speeds []float64, target string required, waypoints []string
Near condition: range float64
Retry decorator: times int64 =3
Tired condition
Utility control: scores <nil>
`
	if got := formattest.Types(program); got != want {
		t.Errorf("ReadModels(Models(reg)):\n%s\nwant:\n%s", got, want)
	}
	if len(program) == len(infos) {
		t.Error("the palette's Arbor built-ins (Check, Cooldown, ...) are not marked Builtin")
	}
}

func TestReadModels(t *testing.T) {
	for _, tc := range []struct {
		name, xml, want string
	}{
		{"a tree file's model, in file order, SubTree models skipped",
			`<root BTCPP_format="4"><BehaviorTree ID="M"><Go/></BehaviorTree><TreeNodesModel>
			<Action ID="Go"><input_port name="to" type="std::string"/><output_port name="eta" type="double"/><inout_port name="n" type="int" default="2"/></Action>
			<SubTree ID="M"/>
			<Condition ID="Far"><input_port name="d" type="std::vector&lt;int, std::allocator&lt;int&gt; &gt;" default="1;2"/></Condition>
			<Control ID="Ring"/><Decorator ID="Twice"><input_port name="on" type="bool" default="true"/><input_port name="pose" type="Pose2D"/></Decorator>
			<Metadata/></TreeNodesModel></root>`,
			"Go action: to string, eta float64, n int64 =2\nFar condition: d []float64 =[1 2]\nRing control\nTwice decorator: on bool =true, pose <nil>\n"},
		{"a required port has no default", `<root><TreeNodesModel><Action ID="A"><input_port name="p" type="double" default="2">required</input_port></Action></TreeNodesModel></root>`,
			"A action: p float64 required\n"},
		{"no model", `<root BTCPP_format="4"><BehaviorTree ID="M"><A/></BehaviorTree></root>`, ""},
	} {
		infos, err := btcpp.ReadModels([]byte(tc.xml))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := formattest.Types(infos); got != tc.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
	}
}

func TestReadModelsErrors(t *testing.T) {
	for _, tc := range []struct{ name, xml, want string }{
		{"not XML", `{"type": "Sequence"}`, "BT.CPP models: "},
		{"not a root", `<BehaviorTree ID="M"/>`, "line 1: the document element is <BehaviorTree>, want <root>"},
		{"no ID", `<root><TreeNodesModel>
<Action/></TreeNodesModel></root>`, "line 2: a <Action> model needs an ID attribute"},
		{"a port without name", `<root><TreeNodesModel><Action ID="A"><input_port type="int"/></Action></TreeNodesModel></root>`, `a <input_port> of model "A" needs a name`},
		{"a bad default", `<root><TreeNodesModel><Action ID="A"><input_port name="n" type="int" default="many"/></Action></TreeNodesModel></root>`, `model "A": the default of port "n": want a number, got "many"`},
		{"twice", `<root><TreeNodesModel><Action ID="A"/>
<Condition ID="A"/></TreeNodesModel></root>`, `line 2: node type "A" is declared twice (also at line 1)`},
		{"a port twice", `<root><TreeNodesModel><Action ID="A"><input_port name="n" type="int"/>
<input_port name="n" type="std::string"/></Action></TreeNodesModel></root>`, `line 2: model "A" declares port "n" twice (also at line 1)`},
		{"a reserved port name", `<root><TreeNodesModel><Action ID="A"><input_port name="_skipIf"/></Action></TreeNodesModel></root>`,
			`line 1: model "A": "_skipIf" cannot be a port name (reserved, or not an XML attribute name)`},
		{"a port name that is no attribute name", `<root><TreeNodesModel><Action ID="A"><input_port name="two words"/></Action></TreeNodesModel></root>`,
			`model "A": "two words" cannot be a port name`},
	} {
		_, err := btcpp.ReadModels([]byte(tc.xml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want one containing %q", tc.name, err, tc.want)
		}
	}
}
