package btcpp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/btcpp"
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

// FuzzLoadBTCPP checks that Load never panics (includes are refused, so
// the file system is not touched), that what loads compiles (or fails with
// errors) without panicking, and that whatever Export writes loads again.
func FuzzLoadBTCPP(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "formats", "btcpp", "*", "*.xml"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "formats", "btcpp", "*.xml"))
	for _, p := range append(files, more...) {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		`<root BTCPP_format="4"><BehaviorTree ID="M"><AlwaysSuccess/></BehaviorTree></root>`,
		`<root BTCPP_format="4"><BehaviorTree ID="M"><KeepRunningUntilFailure><X a="{=}"/></KeepRunningUntilFailure></BehaviorTree></root>`,
		`<root BTCPP_format="4" main_tree_to_execute="M"><BehaviorTree ID="M"><Parallel success_count="-2"><A/><B/><C guard="G"/></Parallel></BehaviorTree><BehaviorTree ID="G"><Check key="k" op="exists"/></BehaviorTree></root>`,
		`<root BTCPP_format="4"><BehaviorTree ID="M"><Action ID="x y" p="1e3" q="true" r="s"/></BehaviorTree><TreeNodesModel><Action ID="x y"><input_port name="p" type="std::string"/></Action></TreeNodesModel></root>`,
	} {
		f.Add([]byte(s))
	}
	opts := btcpp.Options{NoIncludes: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := btcpp.LoadWith(data, opts)
		if err != nil {
			return
		}
		if _, err := arbor.Compile(doc, registryFor(t, doc)); err != nil {
			_ = err.Error()
		}
		out, err := btcpp.Export(doc)
		if err != nil {
			return
		}
		if _, err := btcpp.LoadWith(out, opts); err != nil {
			t.Fatalf("the export does not load: %v\n%s", err, out)
		}
	})
}
