package arbor

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

type describeTeam string

type describeParams struct {
	Target   Param[string]         `arbor:"target,required"`
	Speed    float64               `arbor:"speed,default=1.5"`
	Mode     string                `arbor:"mode,default=walk"`
	Count    int                   // no tag: named "count"
	Loud     bool                  `arbor:"loud"`
	Wait     time.Duration         `arbor:"wait"`
	Hold     Param[time.Duration]  `arbor:"hold,default=250"`
	Team     describeTeam          `arbor:"team"`
	Names    []string              `arbor:"names"`
	Refs     []Param[float64]      `arbor:"refs"`
	Weights  map[string]float64    `arbor:"weights"`
	Anything any                   `arbor:"anything"`
	Points   Param[[]float64]      `arbor:"points,default=[1]"`
	Tags     map[string]Param[int] `arbor:"tags"`
	Skipped  int                   `arbor:"-"`
}

func (*describeParams) Tick(*Ctx, *struct{}) (Status, error) { return Success, nil }

type describeCond struct{}

func (describeCond) Check(*Ctx) (bool, error) { return true, nil }

type describeCtl struct {
	Times int `arbor:"times,default=3"`
}

func (*describeCtl) Tick(_ *Ctx, _ *struct{}, kids Children) (Status, error) {
	return kids.Tick(0), nil
}

func TestDescribe(t *testing.T) {
	reg := NewRegistry()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(RegisterAction[describeParams, struct{}](reg, "Move", AnyParams()))
	must(RegisterCondition[describeCond](reg, "Near"))
	must(RegisterDecorator[describeCtl, struct{}](reg, "Retry"))
	must(RegisterActionFactory[struct{}](reg, "Dyn", []string{"zone", "speed"},
		func(map[string]any) (Action[struct{}], error) { return nil, nil }))
	must(RegisterControlFactory[struct{}](reg, "DynCtl", nil,
		func(map[string]any) (Control[struct{}], error) { return nil, nil }))
	must(reg.ActionFunc("Plain", func(*Ctx) (Status, error) { return Success, nil }))

	typ := reflect.TypeFor[string]
	tests := []struct {
		name string
		want TypeInfo
	}{
		{"Move", TypeInfo{Name: "Move", Category: CategoryAction, AnyParams: true, Params: []ParamInfo{
			{Name: "target", Type: typ(), Required: true, Ref: true},
			{Name: "speed", Type: reflect.TypeFor[float64](), Default: 1.5},
			{Name: "mode", Type: typ(), Default: "walk"},
			{Name: "count", Type: reflect.TypeFor[int](), Default: 0.0},
			{Name: "loud", Type: reflect.TypeFor[bool](), Default: false},
			{Name: "wait", Type: reflect.TypeFor[time.Duration](), Default: 0.0},
			{Name: "hold", Type: reflect.TypeFor[time.Duration](), Ref: true, Default: 250.0},
			{Name: "team", Type: reflect.TypeFor[describeTeam](), Default: ""},
			{Name: "names", Type: reflect.TypeFor[[]string](), Default: []any{}},
			{Name: "refs", Type: reflect.TypeFor[[]float64](), Default: []any{}},
			{Name: "weights", Type: reflect.TypeFor[map[string]float64](), Default: map[string]any{}},
			{Name: "anything", Type: reflect.TypeFor[any]()},
			{Name: "points", Type: reflect.TypeFor[[]float64](), Ref: true, Default: []any{1.0}},
			{Name: "tags", Type: reflect.TypeFor[map[string]int](), Default: map[string]any{}},
		}}},
		{"Near", TypeInfo{Name: "Near", Category: CategoryCondition}},
		{"Retry", TypeInfo{Name: "Retry", Category: CategoryDecorator, Params: []ParamInfo{
			{Name: "times", Type: reflect.TypeFor[int](), Default: 3.0}}}},
		{"Dyn", TypeInfo{Name: "Dyn", Category: CategoryAction, Params: []ParamInfo{{Name: "zone"}, {Name: "speed"}}}},
		{"DynCtl", TypeInfo{Name: "DynCtl", Category: CategoryControl}},
		{"Plain", TypeInfo{Name: "Plain", Category: CategoryAction}},
		{"Fallback", TypeInfo{Name: "Selector", Category: CategoryControl, Builtin: true, Abort: true}},
		{"SequenceWithMemory", TypeInfo{Name: "SequenceWithMemory", Category: CategoryControl, Builtin: true, Abort: true}},
		{"ReactiveSequence", TypeInfo{Name: "ReactiveSequence", Category: CategoryControl, Builtin: true}},
		{"Cooldown", TypeInfo{Name: "Cooldown", Category: CategoryDecorator, Builtin: true, Params: []ParamInfo{
			{Name: "ms", Type: reflect.TypeFor[time.Duration](), Required: true}}}},
		{"Check", TypeInfo{Name: "Check", Category: CategoryCondition, Builtin: true, Params: []ParamInfo{
			{Name: "key", Type: typ(), Required: true},
			{Name: "op", Type: typ(), Required: true},
			{Name: "value", Type: reflect.TypeFor[any](), Ref: true}}}},
		{"Parallel", TypeInfo{Name: "Parallel", Category: CategoryControl, Builtin: true, Params: []ParamInfo{
			{Name: "success", Type: reflect.TypeFor[int](), Default: -1.0},
			{Name: "failure", Type: reflect.TypeFor[int](), Default: 0.0},
			{Name: "retryFailed", Type: reflect.TypeFor[bool](), Default: false}}}},
		{"SubTree", TypeInfo{Name: "SubTree", Category: CategorySubTree, Builtin: true, Params: []ParamInfo{
			{Name: "tree", Type: typ(), Required: true}}}},
	}
	for _, tc := range tests {
		got, ok := reg.Describe(tc.name)
		if !ok {
			t.Errorf("Describe(%q): not found", tc.name)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Describe(%q) =\n%+v\nwant\n%+v", tc.name, got, tc.want)
		}
	}
	if _, ok := reg.Describe("Nope"); ok {
		t.Error(`Describe("Nope") found a type`)
	}
	// A copy: changing it changes nothing in the registry.
	got, _ := reg.Describe("Move")
	got.Params[0].Name = "x"
	got.Params[12].Default.([]any)[0] = 9.0
	again, _ := reg.Describe("Move")
	if again.Params[0].Name != "target" || again.Params[12].Default.([]any)[0] != 1.0 {
		t.Errorf("Describe's result shares the registry's: %+v", again.Params)
	}
	// The zero Registry describes the built-ins.
	var zero Registry
	if info, ok := zero.Describe("Wait"); !ok || len(info.Params) != 2 {
		t.Errorf("zero Registry: Describe(Wait) = %+v, %v", info, ok)
	}
}

// The built-ins' descriptions name their parameters as the registry does,
// and what they say about defaults and requirements holds when a tree
// compiles.
func TestDescribeBuiltins(t *testing.T) {
	reg := NewRegistry()
	for _, bt := range builtinTypes {
		info, ok := reg.Describe(bt.name)
		if !ok || !info.Builtin || info.Name != bt.name {
			t.Fatalf("Describe(%q) = %+v, %v", bt.name, info, ok)
		}
		var names []string
		for _, p := range info.Params {
			names = append(names, p.Name)
			if p.Type == nil {
				t.Errorf("%s.%s: no type", bt.name, p.Name)
			}
		}
		if !slices.Equal(names, bt.params) {
			t.Errorf("%s: described parameters %v, registered %v", bt.name, names, bt.params)
		}
	}
	for name := range builtinParams {
		if !IsBuiltin(name) {
			t.Errorf("builtinParams describes %q, not a built-in", name)
		}
	}
	// A required parameter left out is a load error naming it.
	kids := func(n int) []*Node {
		out := make([]*Node, n)
		for i := range out {
			out[i] = &Node{Type: "Success"}
		}
		return out
	}
	for _, bt := range builtinTypes {
		info, _ := reg.Describe(bt.name)
		if bt.name == "SubTree" || bt.name == "Wait" { // a tree to name; one of ticks and ms
			continue
		}
		// node returns a node with every required parameter but skip.
		node := func(skip string) *Node {
			n := &Node{Type: bt.name, Params: map[string]any{}}
			switch bt.shape {
			case shapeDecorator:
				n.Children = kids(1)
			case shapeComposite:
				n.Children = kids(2)
			}
			for _, q := range info.Params {
				if q.Name != skip && q.Required {
					n.Params[q.Name] = sampleParam(bt.name, q.Name)
				}
			}
			return n
		}
		compile := func(n *Node) error {
			_, err := Compile(&Document{Trees: map[string]*Node{"t": n}}, reg)
			return err
		}
		if err := compile(node("")); err != nil {
			t.Errorf("%s with its required parameters: %v", bt.name, err)
		}
		for _, p := range info.Params {
			if p.Required && compile(node(p.Name)) == nil {
				t.Errorf("%s without %s compiles", bt.name, p.Name)
			}
		}
	}
}

// sampleParam returns a valid value of a built-in's parameter.
func sampleParam(typ, name string) any {
	switch typ + "." + name {
	case "Switch.key", "Check.key", "Set.key":
		return "k"
	case "Switch.cases":
		return []any{1.0}
	case "Check.op":
		return "exists" // takes no value
	case "Set.value":
		return 1.0
	}
	return 1.0
}
