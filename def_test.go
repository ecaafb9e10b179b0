package arbor

import (
	"reflect"
	"testing"
)

// TestDocumentClone: the copy equals the original, shares none of its
// nodes, parameter maps, lists or objects, keeps a node shared in the
// original shared in the copy, and keeps what a file wrote of a node.
func TestDocumentClone(t *testing.T) {
	shared := Check("k", "exists")
	doc := &Document{Main: "m", Trees: map[string]*Node{
		"m": Sequence(
			Leaf("MoveTo", "path", []any{1.0, map[string]any{"x": 2.0}}).WithGuard(shared),
			Leaf("Bare"),
			SubTree("s").WithGuard(shared),
		).WithAbort(AbortLower),
		"s": AlwaysSuccess(),
	}, Categories: map[string]Category{"MoveTo": CategoryAction}}
	doc.Trees["m"].abortWritten = true
	c := doc.Clone()
	if !reflect.DeepEqual(c, doc) {
		t.Fatalf("the clone differs:\n%+v\n%+v", c, doc)
	}
	m, cm := doc.Trees["m"], c.Trees["m"]
	if cm == m || cm.Children[0] == m.Children[0] || !cm.abortWritten {
		t.Error("nodes shared, or what the file wrote lost")
	}
	if cm.Children[0].Guard != cm.Children[2].Guard || cm.Children[0].Guard == shared {
		t.Error("a node shared in the original is not shared (once) in the clone")
	}
	cm.Children[0].Params["path"].([]any)[1].(map[string]any)["x"] = 3.0
	cm.Children[0].Params["speed"] = 1.0
	c.Categories["MoveTo"] = CategoryCondition
	cm.Children = append(cm.Children, Leaf("Extra"))
	if got := m.Children[0].Params["path"].([]any)[1].(map[string]any)["x"]; got != 2.0 {
		t.Errorf("editing the clone's nested object changed the original: %v", got)
	}
	if _, ok := m.Children[0].Params["speed"]; ok || doc.Categories["MoveTo"] != CategoryAction || len(m.Children) != 3 {
		t.Error("editing the clone changed the original")
	}
	if (*Document)(nil).Clone() != nil {
		t.Error("a nil document's clone is not nil")
	}
}
