package b3_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/b3"
)

// registryFor returns a registry knowing every node type of doc: the
// built-ins, and any other type as an action taking any parameters.
func registryFor(t testing.TB, doc *arbor.Document) *arbor.Registry {
	reg := arbor.NewRegistry()
	seen := map[string]bool{}
	var walk func(n *arbor.Node, depth int)
	walk = func(n *arbor.Node, depth int) {
		if n == nil || depth > 300 {
			return
		}
		if !reg.Has(n.Type) && !seen[n.Type] && n.Type != "" {
			seen[n.Type] = true
			if err := reg.ActionFunc(n.Type, func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }, arbor.AnyParams()); err != nil {
				t.Fatalf("register %q: %v", n.Type, err)
			}
		}
		for _, c := range n.Children {
			walk(c, depth+1)
		}
		walk(n.Guard, depth+1)
	}
	for _, root := range doc.Trees {
		walk(root, 0)
	}
	return reg
}

// FuzzLoadB3 checks that Load never panics, that what loads compiles (or
// fails with errors) without panicking, and that whatever Export writes
// loads again.
func FuzzLoadB3(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "formats", "b3", "*.json"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		`{}`, `[]`, `{"scope":"tree","root":"a","nodes":{"a":{"name":"Runner"}}}`,
		`{"scope":"project","trees":[{"id":"x","root":"a","nodes":{"a":{"name":"x"}}}]}`,
		`{"root":"a","nodes":{"a":{"name":"Wait","properties":{"ticks":1}},"b":{"name":"Error"}}}`,
		`{"root":"a","nodes":{"a":{"name":"Repeater","title":"<maxLoop><x>","properties":{"maxLoop":-3},"child":"b"},"b":{"name":"Error"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := b3.Load(data)
		if err != nil {
			return
		}
		if _, err := arbor.Compile(doc, registryFor(t, doc)); err != nil {
			_ = err.Error()
		}
		out, err := b3.Export(doc)
		if err != nil {
			return
		}
		if _, err := b3.Load(out); err != nil {
			t.Fatalf("the export does not load: %v\n%s", err, out)
		}
	})
}
