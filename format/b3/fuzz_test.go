package b3_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/b3"
	"github.com/arborbt/arbor/format/internal/formattest"
)

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
		`{"root":"a","nodes":{"a":{"name":"RandomSelector","properties":{"weights":[3,0],"seed":-2},"children":["b","c"]},"b":{"name":"RandomSequence","children":["c"]},"c":{"name":"Runner"}}}`,
		`{"root":"a","nodes":{"a":{"name":"Switch","properties":{"key":"m","cases":[1,"x"]},"children":["b","c","d"]},"b":{"name":"IfThenElse","children":["c","d"]},"c":{"name":"Runner"},"d":{"name":"WhileDoElse","children":["c","c","c"]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := b3.Load(data)
		if err != nil {
			return
		}
		if _, err := arbor.Compile(doc, formattest.RegistryFor(t, doc)); err != nil {
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

// FuzzReadNodes checks that ReadNodes never panics, and that every type it
// reads has a name and only named parameters.
func FuzzReadNodes(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("..", "..", "examples", "village", "palette.b3.json")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"data": {"custom_nodes": [{"name": "A", "category": "action", "description": "Parameters: a (string, required), b. Takes other parameters too.", "properties": {"b": [1]}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		infos, err := b3.ReadNodes(data)
		if err != nil {
			return
		}
		formattest.CheckNamed(t, infos)
	})
}
