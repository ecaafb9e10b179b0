package arbor_test

import (
	"testing"

	"github.com/arborbt/arbor"
)

// The zero Key is the handle of the key named "", not of whichever key
// the process interned first.
func TestZeroKeyAddressesEmptyName(t *testing.T) {
	arbor.NewKey[float64]("zeroKeyOther") // some key interned before any use of ""
	tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.Check("zeroKeyHP", ">", 1)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bb := arbor.NewAgent(tree).Blackboard()
	var zero arbor.Key[float64]
	if zero.Name() != "" {
		t.Fatalf("zero Key name %q", zero.Name())
	}
	zero.Set(bb, 42)
	es := bb.Entries()
	if len(es) != 1 || es[0].Key != "" {
		t.Fatalf("zero Key wrote %v, want the key \"\" only", es)
	}
	if v, err := zero.Get(bb); err != nil || v != 42 {
		t.Fatalf("zero Key read %v, %v", v, err)
	}
	if v, ok := bb.Lookup(""); !ok || v.String() != "42" {
		t.Fatalf(`Lookup("") = %v, %v`, v, ok)
	}
}

// OpNames returns a copy: changing it changes nothing in the package.
func TestOpNamesIsACopy(t *testing.T) {
	names := arbor.OpNames()
	names[0] = "eq"
	if op, ok := arbor.ParseOp("=="); !ok || op != arbor.OpEq {
		t.Fatalf(`ParseOp("==") = %v, %v after changing OpNames' result`, op, ok)
	}
	if s := arbor.OpEq.String(); s != "==" {
		t.Fatalf("OpEq.String() = %q after changing OpNames' result", s)
	}
	if got := arbor.OpNames()[0]; got != "==" {
		t.Fatalf("OpNames()[0] = %q", got)
	}
}

// Compare refuses the operators that compare no values instead of
// answering false without an error.
func TestCompareRefusesNonComparisons(t *testing.T) {
	for _, op := range []arbor.Op{arbor.OpExists, arbor.OpMissing, arbor.Op(42)} {
		if r, err := arbor.Compare(arbor.Number(1), op, arbor.Number(1)); err == nil {
			t.Errorf("Compare(1, %v, 1) = %v, nil; want an error", op, r)
		}
	}
	for op, want := range map[arbor.Op]bool{arbor.OpEq: true, arbor.OpNe: false, arbor.OpLt: false, arbor.OpLe: true, arbor.OpGt: false, arbor.OpGe: true} {
		if r, err := arbor.Compare(arbor.Number(1), op, arbor.Number(1)); err != nil || r != want {
			t.Errorf("Compare(1, %v, 1) = %v, %v; want %v", op, r, err, want)
		}
	}
}

// The zero Registry holds the built-ins and takes registrations, as
// NewRegistry's does.
func TestZeroRegistry(t *testing.T) {
	var reg arbor.Registry
	if !reg.Has("Sequence") || !reg.Has("Fallback") || reg.Category("Wait") != arbor.CategoryAction {
		t.Fatal("the zero Registry does not know the built-ins")
	}
	if len(reg.Types()) != len(arbor.NewRegistry().Types()) {
		t.Fatalf("zero Registry types %v", reg.Types())
	}
	doc := &arbor.Document{Trees: map[string]*arbor.Node{"t": arbor.Sequence(arbor.AlwaysSuccess(), arbor.Leaf("Go"))}}
	if _, err := arbor.Compile(doc, &reg); err == nil {
		t.Fatal("Go compiled before it was registered")
	}
	if err := reg.ActionFunc("Go", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }); err != nil {
		t.Fatal(err)
	}
	if err := reg.ActionFunc("Sequence", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }); err == nil {
		t.Fatal("registering a built-in name on a zero Registry succeeded")
	}
	tree, err := arbor.Compile(doc, &reg)
	if err != nil {
		t.Fatal(err)
	}
	if s := arbor.NewAgent(tree).Tick(0); s != arbor.Success {
		t.Fatalf("tick: %v", s)
	}
	// Another zero Registry, and NewRegistry's, do not see the type.
	var other arbor.Registry
	if other.Has("Go") || arbor.NewRegistry().Has("Go") {
		t.Fatal("a type registered on one zero Registry leaked to others")
	}
}

// Manager.Remove(nil) reports false instead of panicking.
func TestManagerRemoveNil(t *testing.T) {
	m := arbor.NewManager()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("Remove(nil) panicked: %v", r)
		}
	}()
	if m.Remove(nil) {
		t.Fatal("Remove(nil) = true")
	}
	var zero arbor.Manager
	if zero.Remove(nil) {
		t.Fatal("zero Manager: Remove(nil) = true")
	}
}
