package conv

import (
	"strings"
	"testing"

	"github.com/arborbt/arbor"
)

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{{"1", true}, {"-2.5", true}, {"+3", true}, {".5", true}, {"5.", true}, {"1e3", true}, {"1E-3", true},
		{"", false}, {"-", false}, {"1e", false}, {"0x10", false}, {"inf", false}, {"NaN", false}, {"1_000", false}, {" 1", false}, {"1e999", false}} {
		if _, ok := ParseNumber(c.in); ok != c.ok {
			t.Errorf("ParseNumber(%q) ok = %v", c.in, ok)
		}
	}
	for f, want := range map[float64]string{5: "5", -1: "-1", 0.1: "0.1", 1e21: "1e+21", 1.5e-7: "1.5e-07", 123456789: "123456789"} {
		if got := FormatNumber(f); got != want {
			t.Errorf("FormatNumber(%v) = %q, want %q", f, got, want)
		}
		if back, ok := ParseNumber(FormatNumber(f)); !ok || back != f {
			t.Errorf("%v does not read back", f)
		}
	}
	if _, ok := ParseInt("0x1"); ok {
		t.Error("ParseInt accepts hex")
	}
}

func TestGuards(t *testing.T) {
	g := arbor.Check("k", "exists")
	shared := arbor.Check("s", "exists")
	doc := &arbor.Document{Main: "m", Trees: map[string]*arbor.Node{
		"m":        arbor.Sequence(arbor.AlwaysSuccess().WithGuard(g), arbor.AlwaysSuccess().WithGuard(g), arbor.AlwaysSuccess().WithGuard(shared)),
		"m.guard1": arbor.AlwaysFailure(),
		"s":        shared,
	}}
	names, trees := PlanGuards(doc)
	var list []string
	for _, tr := range trees {
		list = append(list, tr.Name)
	}
	if got := strings.Join(list, ","); got != "m.guard2" {
		t.Errorf("guard trees %s (one per shared guard, none for a guard that is a tree, names unique)", got)
	}
	kids := doc.Trees["m"].Children
	if names[kids[0]] != "m.guard2" || names[kids[1]] != "m.guard2" || names[kids[2]] != "s" {
		t.Errorf("names %v", names)
	}

	// ResolveGuards shares the named tree and drops the trees used only
	// as guards.
	a, b := arbor.AlwaysSuccess(), arbor.AlwaysSuccess()
	doc = &arbor.Document{Main: "m", Trees: map[string]*arbor.Node{
		"m": arbor.Sequence(a, b, arbor.SubTree("kept")), "g": arbor.Check("k", "exists"), "kept": arbor.Check("x", "exists"),
	}}
	var el Errors
	ResolveGuards(doc, []GuardRef{{Node: a, Tree: "g"}, {Node: b, Tree: "kept"}}, &el)
	if el.Err() != nil || a.Guard == nil || a.Guard.Params["key"] != "k" || b.Guard != doc.Trees["kept"] {
		t.Fatalf("err %v, guards %v %v", el.Err(), a.Guard, b.Guard)
	}
	if got := strings.Join(doc.TreeNames(), ","); got != "kept,m" {
		t.Errorf("trees %s", got)
	}
}

func TestGuardsBlowUp(t *testing.T) {
	// g0's two nodes are guarded by g1, whose two nodes are guarded by g2...
	doc := &arbor.Document{Main: name(0), Trees: map[string]*arbor.Node{}}
	var refs []GuardRef
	for i := 0; i < 30; i++ {
		a, b := arbor.AlwaysSuccess(), arbor.AlwaysSuccess()
		doc.Trees[name(i)] = arbor.Sequence(a, b)
		refs = append(refs, GuardRef{Node: a, Tree: name(i + 1)}, GuardRef{Node: b, Tree: name(i + 1)})
	}
	doc.Trees[name(30)] = arbor.AlwaysSuccess()
	var el Errors
	ResolveGuards(doc, refs, &el)
	if el.Err() == nil || !strings.Contains(el.Err().Error(), "once guards are expanded, over the limit") {
		t.Fatalf("err = %v", el.Err())
	}
}

func name(i int) string { return "g" + string(rune('A'+i)) }

// TestShapesMatchTheRegistry: the converters' shapes of the built-in
// types agree with the engine's categories (a composite left out would be
// drawn as a leaf by arbor render).
func TestShapesMatchTheRegistry(t *testing.T) {
	reg := arbor.NewRegistry()
	for _, typ := range reg.Types() {
		want := Leaf
		switch reg.Category(typ) {
		case arbor.CategoryControl:
			want = Composite
		case arbor.CategoryDecorator:
			want = Decorator
		case arbor.CategorySubTree:
			want = SubTreeRef
		}
		if got := ShapeOf(typ); got != want {
			t.Errorf("%s: shape %d, want %d (category %s)", typ, got, want, reg.Category(typ))
		}
	}
}

// TestUserCategories: a registry's category first, then the one the file
// declared when every node of the type fits it, then the nodes' shape.
func TestUserCategories(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterConditionFactory(reg, "Registered", nil, func(map[string]any) (arbor.Condition, error) { return always{}, nil }); err != nil {
		t.Fatal(err)
	}
	doc := &arbor.Document{Main: "m", Trees: map[string]*arbor.Node{"m": arbor.Sequence(
		arbor.Leaf("Declared"),
		arbor.Leaf("Registered"),
		arbor.Leaf("Plain"),
		arbor.Branch("Wrapper", arbor.Leaf("Declared")),
		arbor.Branch("Misfit", arbor.Leaf("Plain")),
		arbor.Leaf("Misfit"),
	)}, Categories: map[string]arbor.Category{
		"Declared":   arbor.CategoryCondition,
		"Registered": arbor.CategoryAction, // the registry wins
		"Wrapper":    arbor.CategoryControl,
		"Misfit":     arbor.CategoryDecorator, // one of its nodes has no child
		"Unused":     arbor.CategoryCondition,
	}}
	for _, c := range []struct {
		reg  *arbor.Registry
		typ  string
		want arbor.Category
	}{
		{nil, "Declared", arbor.CategoryCondition},
		{nil, "Registered", arbor.CategoryAction},
		{reg, "Registered", arbor.CategoryCondition},
		{nil, "Plain", arbor.CategoryAction},
		{nil, "Wrapper", arbor.CategoryControl},
		{nil, "Misfit", arbor.CategoryDecorator}, // by shape: first seen with one child
	} {
		if got := UserCategories(doc, c.reg)[c.typ]; got != c.want {
			t.Errorf("registry %v: %s is %v, want %v", c.reg != nil, c.typ, got, c.want)
		}
	}
	if _, ok := UserCategories(doc, nil)["Unused"]; ok {
		t.Error("a declared type no node uses has a category")
	}
	doc.Categories = nil
	if got := UserCategories(doc, nil)["Declared"]; got != arbor.CategoryAction {
		t.Errorf("without declarations a leaf is %v, want an action", got)
	}

	// A leaf type some node of which stands in a guard is a condition,
	// also when the guard is a tree of the document seen first as such.
	shared := arbor.Leaf("InBoth")
	doc = &arbor.Document{Main: "b", Trees: map[string]*arbor.Node{
		"b": arbor.Sequence(arbor.Leaf("Act"), arbor.Leaf("Guarded").WithGuard(arbor.Inverter(arbor.Leaf("Cond"))), arbor.Leaf("Act").WithGuard(shared)),
		"a": shared,
	}}
	cats := UserCategories(doc, nil)
	for typ, want := range map[string]arbor.Category{"Act": arbor.CategoryAction, "Guarded": arbor.CategoryAction,
		"Cond": arbor.CategoryCondition, "InBoth": arbor.CategoryCondition} {
		if cats[typ] != want {
			t.Errorf("%s is %v, want %v", typ, cats[typ], want)
		}
	}
}

// always is a condition that holds.
type always struct{}

func (always) Check(*arbor.Ctx) (bool, error) { return true, nil }
