package formattest

import (
	"testing"

	"github.com/arborbt/arbor"
)

// RegisterControls registers program node types for import and export
// tests: the decorator "Flip" (its child's result inverted), the control
// nodes "FirstOf" and "Any" (their children in order until one succeeds,
// like a memoryless Selector) and the condition "Ready" (true).
func RegisterControls(reg *arbor.Registry) error {
	for _, err := range []error{
		arbor.RegisterDecorator[flip, struct{}](reg, "Flip"),
		arbor.RegisterControl[firstOf, struct{}](reg, "FirstOf"),
		arbor.RegisterControl[firstOf, struct{}](reg, "Any"),
		reg.ConditionFunc("Ready", func(*arbor.Ctx) (bool, error) { return true, nil }),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

type flip struct{}

func (flip) Tick(_ *arbor.Ctx, _ *struct{}, kids arbor.Children) (arbor.Status, error) {
	switch s := kids.Tick(0); s {
	case arbor.Success:
		return arbor.Failure, nil
	case arbor.Failure:
		return arbor.Success, nil
	default:
		return s, nil
	}
}

type firstOf struct{}

func (firstOf) Tick(_ *arbor.Ctx, _ *struct{}, kids arbor.Children) (arbor.Status, error) {
	for i := 0; i < kids.Len(); i++ {
		if s := kids.Tick(i); s != arbor.Failure {
			return s, nil
		}
	}
	return arbor.Failure, nil
}

// ControlDoc is a document using the types of RegisterControls (the
// control node Any with one child only); its tree succeeds.
func ControlDoc() *arbor.Document {
	root := arbor.Sequence(arbor.Branch("Flip", arbor.AlwaysFailure()),
		arbor.Branch("FirstOf", arbor.AlwaysFailure(), arbor.Branch("Flip", arbor.AlwaysFailure())),
		arbor.Branch("Any", arbor.Leaf("Ready")))
	return &arbor.Document{Trees: map[string]*arbor.Node{"M": root}}
}

// TickControlDoc compiles doc with the types of RegisterControls and
// reports an error unless its first tick succeeds.
func TickControlDoc(t testing.TB, doc *arbor.Document) {
	t.Helper()
	reg := arbor.NewRegistry()
	if err := RegisterControls(reg); err != nil {
		t.Fatal(err)
	}
	tree, err := arbor.Compile(doc, reg)
	if err != nil {
		t.Fatal(err)
	}
	if s := arbor.NewAgent(tree).Tick(0); s != arbor.Success {
		t.Errorf("tick: %v, want success", s)
	}
}
