package b3_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/b3"
)

// paletteMove is a program action with parameters of several kinds.
type paletteMove struct {
	Target    arbor.Param[string] `arbor:"target,required"`
	Speed     float64             `arbor:"speed,default=1.5"`
	Waypoints []string            `arbor:"waypoints"`
	Pause     time.Duration       `arbor:"pause"`
	Loud      bool                `arbor:"loud"`
	Anything  any                 `arbor:"anything"`
}

func (*paletteMove) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) { return arbor.Success, nil }

type paletteRetry struct {
	Times int `arbor:"times,default=3"`
}

func (*paletteRetry) Tick(_ *arbor.Ctx, _ *struct{}, kids arbor.Children) (arbor.Status, error) {
	return kids.Tick(0), nil
}

func paletteRegistry(t *testing.T) *arbor.Registry {
	t.Helper()
	reg := arbor.NewRegistry()
	err := errors.Join(
		arbor.RegisterAction[paletteMove, struct{}](reg, "MoveTo"),
		arbor.RegisterDecorator[paletteRetry, struct{}](reg, "Retry"),
		arbor.RegisterControlFactory[struct{}](reg, "Utility", []string{"scores"},
			func(map[string]any) (arbor.Control[struct{}], error) { return &paletteRetry{}, nil }),
		arbor.RegisterActionFactory[struct{}](reg, "Feel", []string{"zone"},
			func(map[string]any) (arbor.Action[struct{}], error) { return &paletteMove{}, nil }, arbor.AnyParams()),
		reg.ConditionFunc("Tired", func(*arbor.Ctx) (bool, error) { return false, nil }),
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

type nodeDef struct {
	Version     string         `json:"version"`
	Scope       string         `json:"scope"`
	Name        string         `json:"name"`
	Category    string         `json:"category"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Properties  map[string]any `json:"properties"`
}

func nodeExport(t *testing.T, reg *arbor.Registry) (map[string]nodeDef, []byte) {
	t.Helper()
	data, err := b3.NodeExport(reg)
	if err != nil {
		t.Fatal(err)
	}
	var list []nodeDef
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	defs := map[string]nodeDef{}
	for i, d := range list {
		if i > 0 && list[i-1].Name >= d.Name {
			t.Errorf("not sorted by name: %s before %s", list[i-1].Name, d.Name)
		}
		if d.Version != b3.Version || d.Scope != "node" || d.Title != d.Name || d.Properties == nil {
			t.Errorf("definition %+v", d)
		}
		defs[d.Name] = d
	}
	return defs, data
}

func TestNodeExport(t *testing.T) {
	defs, _ := nodeExport(t, paletteRegistry(t))
	want := map[string]nodeDef{
		"MoveTo": {Category: "action", Properties: map[string]any{"target": "", "speed": 1.5, "waypoints": []any{}, "pause": 0.0, "loud": false},
			Description: "Parameters: target (string, required, or a {key}), speed (number, default 1.5), waypoints (list of strings), pause (milliseconds), loud (boolean), anything (any value)."},
		"Retry":   {Category: "decorator", Properties: map[string]any{"times": 3.0}, Description: "Parameters: times (integer, default 3)."},
		"Utility": {Category: "composite", Properties: map[string]any{}, Description: "Parameters: scores."},
		"Feel":    {Category: "action", Properties: map[string]any{}, Description: "Parameters: zone. Takes other parameters too."},
		"Tired":   {Category: "condition", Properties: map[string]any{}},
		// Arbor built-ins the editor lacks.
		"Parallel": {Category: "composite", Properties: map[string]any{"success": -1.0, "failure": 0.0, "retryFailed": false},
			Description: "Parameters: success (integer, default -1), failure (integer), retryFailed (boolean)."},
		"RandomSelector": {Category: "composite", Properties: map[string]any{}, Description: "Parameters: weights (list of numbers), seed (integer)."},
		"Check": {Category: "condition", Properties: map[string]any{"key": "", "op": ""},
			Description: "Parameters: key (string, required), op (string, required), value (any value, or a {key})."},
		"Set": {Category: "action", Properties: map[string]any{"key": ""},
			Description: "Parameters: key (string, required), value (any value, required, or a {key}), ttlMs (milliseconds)."},
		"Cooldown": {Category: "decorator", Properties: map[string]any{"ms": 0.0}, Description: "Parameters: ms (milliseconds, required)."},
		"Switch": {Category: "composite", Properties: map[string]any{"key": "", "cases": []any{}},
			Description: "Parameters: key (string, required), cases (list, required)."},
		"IfThenElse": {Category: "composite", Properties: map[string]any{}},
	}
	for name, w := range want {
		got, ok := defs[name]
		if !ok {
			t.Errorf("no definition of %s", name)
			continue
		}
		if got.Category != w.Category || got.Description != w.Description || !reflect.DeepEqual(got.Properties, w.Properties) {
			t.Errorf("%s:\n%+v\nwant\n%+v", name, got, w)
		}
	}
	// The editor's own nodes (Behavior3 built-ins, subtrees, Error) are
	// not redefined, nor are aliases.
	for _, name := range []string{"Sequence", "ReactiveSequence", "Selector", "Priority", "Wait", "Limiter", "Repeat",
		"RepeatUntilFailure", "Timeout", "Running", "SubTree", arbor.ErrorType, "Fallback"} {
		if _, ok := defs[name]; ok {
			t.Errorf("%s is defined", name)
		}
	}
	if n := len(defs); n != 5+15 {
		t.Errorf("%d definitions, want the 5 program types and the 15 Arbor built-ins the editor lacks", n)
	}
}

// Load refuses a node export, which holds no tree.
func TestNodeExportIsNotATree(t *testing.T) {
	_, data := nodeExport(t, paletteRegistry(t))
	if !b3.Detect(data) {
		t.Error("not detected as Behavior3 JSON")
	}
	if _, err := b3.Load(data); err == nil || !strings.Contains(err.Error(), "node export") {
		t.Errorf("Load: %v", err)
	}
}

// The definitions are custom_nodes entries: a project whose custom_nodes
// are the node export loads, also once the editor has given every node
// its definition's properties (as it does when it opens a project), with
// the same behaviour: the properties it adds are defaults.
func TestNodeExportAsCustomNodes(t *testing.T) {
	reg := paletteRegistry(t)
	defs, data := nodeExport(t, reg)
	doc := &arbor.Document{Trees: map[string]*arbor.Node{"Main": arbor.Sequence(
		arbor.Branch("Retry", arbor.Leaf("MoveTo", "target", "{post}")),
		arbor.Parallel(1, 0, arbor.Leaf("Feel", "zone", "River", "extra", 1), arbor.Leaf("Tired")),
		arbor.Cooldown(time.Second, arbor.Check("hp", "exists")),
		arbor.Set("k", "v"),
		arbor.RandomSelector(arbor.AlwaysRunning(), arbor.Branch("Utility", arbor.AlwaysSuccess())),
	)}}
	exported, err := b3.ExportWith(doc, b3.ExportOptions{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	var project map[string]any
	if err := json.Unmarshal(exported, &project); err != nil {
		t.Fatal(err)
	}
	// Export's custom_nodes are definitions of the node export, of the
	// same categories.
	for _, c := range project["custom_nodes"].([]any) {
		c := c.(map[string]any)
		d, ok := defs[c["name"].(string)]
		if !ok || d.Category != c["category"] {
			t.Errorf("custom node %v: the node export has %+v", c, d)
		}
	}
	var palette []any
	if err := json.Unmarshal(data, &palette); err != nil {
		t.Fatal(err)
	}
	project["custom_nodes"] = palette
	// The editor, opening the project: each node gets its definition's
	// properties, then its own.
	withTemplates := func(project map[string]any) {
		for _, tr := range project["trees"].([]any) {
			for _, n := range tr.(map[string]any)["nodes"].(map[string]any) {
				n := n.(map[string]any)
				d, ok := defs[n["name"].(string)]
				if !ok {
					continue
				}
				props := map[string]any{}
				for k, v := range d.Properties {
					props[k] = v
				}
				for k, v := range n["properties"].(map[string]any) {
					props[k] = v
				}
				n["properties"] = props
			}
		}
	}
	var first []byte
	for _, editor := range []bool{false, true} {
		if editor {
			withTemplates(project)
		}
		data, err := json.Marshal(project)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := b3.Load(data)
		if err != nil {
			t.Fatalf("editor %v: %v", editor, err)
		}
		tree, err := arbor.Compile(loaded, reg)
		if err != nil {
			t.Fatalf("editor %v: %v", editor, err)
		}
		a := arbor.NewAgent(tree)
		var trace []string
		for i := 1; i <= 3; i++ {
			trace = append(trace, a.Tick(time.Duration(i)*time.Millisecond).String())
		}
		got := []byte(strings.Join(trace, ","))
		if editor && string(got) != string(first) {
			t.Errorf("with the definitions' properties: %s, without: %s", got, first)
		}
		first = got
		if editor {
			move := loaded.Trees["Main"].Children[0].Children[0]
			if move.Params["speed"] != 1.5 || move.Params["target"] != "{post}" {
				t.Errorf("MoveTo's parameters %v", move.Params)
			}
		}
	}
}

type paletteReserved struct {
	Abort string `arbor:"abort"`
}

func (*paletteReserved) Tick(*arbor.Ctx, *struct{}) (arbor.Status, error) { return arbor.Success, nil }

func TestNodeExportErrors(t *testing.T) {
	if _, err := b3.NodeExport(nil); err == nil {
		t.Error("NodeExport(nil): no error")
	}
	reg := arbor.NewRegistry()
	ok := func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }
	err := errors.Join(
		reg.ActionFunc("Runner", ok),
		reg.ActionFunc("Error", ok),
		arbor.RegisterAction[paletteReserved, struct{}](reg, "Reserved"),
		arbor.RegisterActionFactory[struct{}](reg, "Guarded", []string{"guard"},
			func(map[string]any) (arbor.Action[struct{}], error) { return &paletteReserved{}, nil }),
	)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b3.NodeExport(reg)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{`node type "Runner" is a Behavior3 built-in`, `node type "Error" is a Behavior3 built-in`,
		`node type "Reserved": parameter "abort" is a reserved property`, `node type "Guarded": parameter "guard" is a reserved property`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %s: %v", want, err)
		}
	}
}

// ExampleNodeExport writes a program's node palette for the Behavior3
// editor (Project › Import › Nodes as JSON).
func ExampleNodeExport() {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterDecorator[paletteRetry, struct{}](reg, "Retry"); err != nil {
		fmt.Println(err)
		return
	}
	data, err := b3.NodeExport(reg) // os.WriteFile("palette.b3.json", data, 0o644)
	if err != nil {
		fmt.Println(err)
		return
	}
	var defs []map[string]any
	_ = json.Unmarshal(data, &defs)
	for _, d := range defs {
		if d["name"] == "Retry" {
			fmt.Println(d["scope"], d["category"], d["properties"], d["description"])
		}
	}
	// Output:
	// node decorator map[times:3] Parameters: times (integer, default 3).
}
