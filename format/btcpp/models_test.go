package btcpp_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/btcpp"
)

// paletteMove is a program action with parameters of every kind.
type paletteMove struct {
	Target    arbor.Param[string] `arbor:"target,required"`
	Speed     float64             `arbor:"speed,default=1.5"`
	Waypoints []string            `arbor:"waypoints"`
	Speeds    []float64           `arbor:"speeds"`
	Flags     []bool              `arbor:"flags"`
	Pause     time.Duration       `arbor:"pause,default=250"`
	Loud      bool                `arbor:"loud"`
	Count     int                 `arbor:"count,default=3"`
	Max       uint8               `arbor:"max"`
	Mode      string              `arbor:"mode,default=walk"`
	Opts      map[string]any      `arbor:"opts"`
	Anything  any                 `arbor:"anything"`
}

func (*paletteMove) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) { return arbor.Success, nil }

type paletteNear struct {
	Range arbor.Param[float64] `arbor:"range"`
}

func (*paletteNear) Check(*arbor.Ctx) (bool, error) { return true, nil }

type paletteRetry struct {
	Times int `arbor:"times,default=3"`
}

func (*paletteRetry) Tick(_ *arbor.Ctx, _ *struct{}, kids arbor.Children) (arbor.Status, error) {
	return kids.Tick(0), nil
}

// paletteRegistry registers a program's types: struct-tag ones of every
// category, Factory variants and a parameterless function.
func paletteRegistry(t *testing.T) *arbor.Registry {
	t.Helper()
	reg := arbor.NewRegistry()
	err := errors.Join(
		arbor.RegisterAction[paletteMove, struct{}](reg, "MoveTo"),
		arbor.RegisterCondition[paletteNear](reg, "Near"),
		arbor.RegisterDecorator[paletteRetry, struct{}](reg, "Retry"),
		arbor.RegisterControlFactory[struct{}](reg, "Utility", []string{"scores"},
			func(map[string]any) (arbor.Control[struct{}], error) { return &paletteRetry{}, nil }),
		arbor.RegisterActionFactory[struct{}](reg, "Feel", []string{"zone"},
			func(map[string]any) (arbor.Action[struct{}], error) { return &paletteMove{}, nil }),
		reg.ConditionFunc("Tired", func(*arbor.Ctx) (bool, error) { return false, nil }),
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestModels(t *testing.T) {
	data, err := btcpp.Models(paletteRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	xml := string(data)
	for _, want := range []string{
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root BTCPP_format=\"4\">\n  <TreeNodesModel>\n",
		`<Action ID="MoveTo">`,
		`<input_port name="target" type="std::string">required</input_port>`,
		`<input_port name="speed" type="double" default="1.5"/>`,
		`<input_port name="waypoints" type="std::vector&lt;std::string&gt;"/>`,
		`<input_port name="speeds" type="std::vector&lt;double&gt;"/>`,
		`<input_port name="flags" type="std::vector&lt;bool&gt;"/>`,
		`<input_port name="pause" type="double" default="250">milliseconds</input_port>`,
		`<input_port name="loud" type="bool"/>`,
		`<input_port name="count" type="int" default="3"/>`,
		`<input_port name="max" type="unsigned int"/>`,
		`<input_port name="mode" type="std::string" default="walk"/>`,
		`<input_port name="opts"/>`,
		`<input_port name="anything"/>`,
		`<Condition ID="Near">`, `<input_port name="range" type="double"/>`,
		`<Decorator ID="Retry">`, `<input_port name="times" type="int" default="3"/>`,
		`<Control ID="Utility">`, `<input_port name="scores"/>`,
		`<Action ID="Feel">`, `<input_port name="zone"/>`,
		`<Condition ID="Tired"/>`,
		// The Arbor-only built-ins, as Export declares them.
		`<Condition ID="Check">`, `<input_port name="key" type="std::string">required</input_port>`, `<input_port name="value"/>`,
		`<Action ID="Set">`, `<input_port name="ttlMs" type="double">milliseconds</input_port>`,
		`<Action ID="Wait">`, `<input_port name="ticks" type="int"/>`,
		`<Decorator ID="Cooldown">`, `<input_port name="ms" type="double">required; milliseconds</input_port>`,
		`<Decorator ID="Limiter">`, `<Decorator ID="RepeatUntilFailure">`, `<input_port name="max" type="int" default="-1"/>`,
		`<Action ID="Running"/>`,
		`<Control ID="RandomSelector">`, `<Control ID="RandomSequence">`, `<input_port name="weights" type="std::vector&lt;double&gt;"/>`,
		"  </TreeNodesModel>\n</root>\n",
	} {
		if !strings.Contains(xml, want) {
			t.Errorf("the model lacks %s:\n%s", want, xml)
		}
	}
	// Only the program's types and the Arbor-only built-ins: no BT.CPP
	// built-in, alias or MaxTime (Export's form of a fractional Timeout).
	for _, not := range []string{`ID="Sequence"`, `ID="Fallback"`, `ID="Selector"`, `ID="Timeout"`, `ID="MaxTime"`,
		`ID="Parallel"`, `ID="SubTree"`, `ID="arbor.Error"`, `ID="Switch"`, `ID="Sleep"`} {
		if strings.Contains(xml, not) {
			t.Errorf("the model declares %s:\n%s", not, xml)
		}
	}
	// The same registry, the same bytes.
	again, _ := btcpp.Models(paletteRegistry(t))
	if string(again) != xml {
		t.Error("Models is not deterministic")
	}
}

// paletteTrees is a Groot2-style tree file using the program's types and
// Arbor-only built-ins, with the model given by extra (an include, or the
// model itself).
func paletteTrees(extra string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<root BTCPP_format="4" main_tree_to_execute="Main">
  ` + extra + `
  <BehaviorTree ID="Main">
    <Sequence>
      <Condition ID="Near" range="{reach}"/>
      <Retry times="2">
        <Action ID="MoveTo" target="{post}" speed="2" waypoints="A;B; C" speeds="1;2.5" flags="true;0" pause="100" loud="true" count="4" max="7" mode="5"/>
      </Retry>
      <Control ID="Utility" scores="1;2">
        <Feel zone="River"/>
        <Tired/>
      </Control>
      <Cooldown ms="500">
        <Check key="hp" op="&lt;" value="{max}"/>
      </Cooldown>
      <Wait ticks="2"/>
      <RandomSelector weights="3;1" seed="7"><Running/><Set key="k" value="x" ttlMs="20"/></RandomSelector>
    </Sequence>
  </BehaviorTree>
</root>`
}

// A tree file with the model (included, or as its own TreeNodesModel)
// loads, its ports typed by the model, and compiles with the registry.
func TestModelsLoadWithTrees(t *testing.T) {
	reg := paletteRegistry(t)
	model, err := btcpp.Models(reg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "palette.xml"), model, 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(data string) (*arbor.Document, error) {
		return btcpp.LoadWith([]byte(data), btcpp.Options{Dir: dir})
	}
	inline := strings.TrimSuffix(strings.SplitN(string(model), "<root BTCPP_format=\"4\">\n", 2)[1], "</root>\n")
	for name, data := range map[string]string{
		"included": paletteTrees(`<include path="palette.xml"/>`),
		"inline":   paletteTrees(inline),
	} {
		t.Run(name, func(t *testing.T) {
			doc, err := load(data)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := arbor.Compile(doc, reg); err != nil {
				t.Fatal(err)
			}
			move := doc.Trees["Main"].Children[1].Children[0]
			want := map[string]any{"target": "{post}", "speed": 2.0, "waypoints": []any{"A", "B", " C"}, "speeds": []any{1.0, 2.5},
				"flags": []any{true, false}, "pause": 100.0, "loud": true, "count": 4.0, "max": 7.0, "mode": "5"}
			if !reflect.DeepEqual(move.Params, want) {
				t.Errorf("MoveTo's parameters:\n%#v\nwant\n%#v", move.Params, want)
			}
			if got := doc.Categories["Near"]; got != arbor.CategoryCondition {
				t.Errorf("Near's category %v", got)
			}
		})
	}
	// The model checks the ports, as BT.CPP does: one it does not declare
	// is a load error.
	bad := strings.Replace(paletteTrees(`<include path="palette.xml"/>`), `count="4"`, `cout="4"`, 1)
	_, err = load(bad)
	if err == nil || !strings.Contains(err.Error(), `port "cout" is not declared for MoveTo`) {
		t.Errorf("an undeclared port: %v", err)
	}
}

// A tree exported with the registry declares its types as the palette
// does.
func TestModelsAgreeWithExport(t *testing.T) {
	reg := paletteRegistry(t)
	doc := &arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.Sequence(
		arbor.Leaf("Tired"),
		arbor.Branch("Retry", arbor.Leaf("MoveTo", "target", "A")),
		arbor.Cooldown(time.Second, arbor.Check("k", "exists")),
	)}}
	data, err := btcpp.ExportWith(doc, btcpp.ExportOptions{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	model, _ := btcpp.Models(reg)
	for _, id := range []string{`<Condition ID="Tired"`, `<Decorator ID="Retry"`, `<Action ID="MoveTo"`, `<Decorator ID="Cooldown"`, `<Condition ID="Check"`} {
		if !strings.Contains(string(data), id) || !strings.Contains(string(model), id) {
			t.Errorf("%s: not in both the export and the palette", id)
		}
	}
}

type paletteBadPort struct {
	Name string `arbor:"name"`
}

func (*paletteBadPort) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) { return arbor.Success, nil }

func TestModelsErrors(t *testing.T) {
	if _, err := btcpp.Models(nil); err == nil {
		t.Error("Models(nil): no error")
	}
	reg := arbor.NewRegistry()
	ok := func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }
	err := errors.Join(
		reg.ActionFunc("Sleep", ok),
		reg.ActionFunc("Switch3", ok),
		reg.ActionFunc("Script", ok),
		arbor.RegisterAction[paletteBadPort, struct{}](reg, "Named"),
		arbor.RegisterActionFactory[struct{}](reg, "Raw", []string{"_x", "a:b", "guard"},
			func(map[string]any) (arbor.Action[struct{}], error) { return &paletteBadPort{}, nil }),
	)
	if err != nil {
		t.Fatal(err)
	}
	_, err = btcpp.Models(reg)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`node type "Sleep" is also a BT.CPP built-in`, `node type "Switch3" is also a BT.CPP built-in`,
		`node type "Script" is also a BT.CPP built-in`, `node type "Named": parameter "name" cannot be a BT.CPP port`,
		`node type "Raw": parameter "_x"`, `node type "Raw": parameter "a:b"`, `node type "Raw": parameter "guard"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %s: %v", want, err)
		}
	}
}

// The built-ins only: the zero Registry's palette is Arbor's own nodes.
func TestModelsBuiltinsOnly(t *testing.T) {
	data, err := btcpp.Models(&arbor.Registry{})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), " ID=\""); n != 9 {
		t.Errorf("%d models, want the 9 Arbor-only built-ins:\n%s", n, data)
	}
}

// ExampleModels writes a program's node palette for Groot2.
func ExampleModels() {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterCondition[paletteNear](reg, "Near"); err != nil {
		fmt.Println(err)
		return
	}
	data, err := btcpp.Models(reg) // os.WriteFile("palette.xml", data, 0o644)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "Near") || strings.Contains(line, "range") {
			fmt.Println(strings.TrimSpace(line))
		}
	}
	// Output:
	// <Condition ID="Near">
	// <input_port name="range" type="double"/>
}

// TestExportWithRegistryPorts: with a registry, the model of a program
// type used in the document declares every parameter the type takes,
// typed from Registry.Describe, not only those the nodes give, typed from
// their values.
func TestExportWithRegistryPorts(t *testing.T) {
	reg := paletteRegistry(t)
	doc := &arbor.Document{Main: "M", Trees: map[string]*arbor.Node{
		"M": arbor.Sequence(arbor.Leaf("MoveTo", "target", "{goal}", "mode", "7"), arbor.Leaf("Near")),
	}}
	plain, err := btcpp.Export(doc)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(plain); strings.Contains(s, `name="speed"`) || strings.Contains(s, `<Condition ID="Near">`) {
		t.Errorf("without a registry, the ports the nodes give and the categories their shapes suggest:\n%s", s)
	}
	out, err := btcpp.ExportWith(doc, btcpp.ExportOptions{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<MoveTo mode="7" target="{goal}"/>`, `<input_port name="target" type="std::string">required</input_port>`,
		`<input_port name="speed" type="double" default="1.5"/>`, `<input_port name="waypoints" type="std::vector&lt;std::string&gt;"/>`,
		`<Condition ID="Near">`, `<input_port name="range" type="double"/>`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the export lacks %s:\n%s", want, out)
		}
	}
	back, err := btcpp.LoadWith(out, noIncludes)
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Trees["M"].Children[0].Params; got["target"] != "{goal}" || got["mode"] != "7" {
		t.Errorf("read back %v, want the strings", got)
	}
	if _, err := arbor.Compile(back, reg); err != nil {
		t.Errorf("compile: %v", err)
	}
}
