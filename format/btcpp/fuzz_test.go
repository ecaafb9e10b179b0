package btcpp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/btcpp"
	"github.com/arborbt/arbor/format/internal/formattest"
)

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
		`<root BTCPP_format="4"><BehaviorTree ID="M"><RandomSelector weights="2;0.5;0" seed="-4"><A/><RandomSequence><B/></RandomSequence><Control ID="RandomSequence" weights=" 1 "><C/></Control></RandomSelector></BehaviorTree></root>`,
		`<root BTCPP_format="4"><BehaviorTree ID="M"><Switch2 variable="{m}" case_1="1" case_2="x"><IfThenElse><A/><B/><C/></IfThenElse><WhileDoElse><A/><B/></WhileDoElse><Control ID="Switch3" variable="{=}" case_1="true" case_2="" case_3="{k}"><A/></Control></Switch2></BehaviorTree></root>`,
		`<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence><Go a="1;2;" b="x;;" c="json:[true]" d="{k}"/><Go a="" b=";" c="1;0" d="json:[]"/></Sequence></BehaviorTree><TreeNodesModel><Action ID="Go"><input_port name="a" type="std::vector&lt;double, std::allocator&lt;double&gt; &gt;"/><input_port name="b" type="std::vector&lt;std::string&gt;"/><input_port name="c" type="std::vector&lt;bool&gt;"/><input_port name="d" type="std::vector&lt;int&gt;"/></Action></TreeNodesModel></root>`,
	} {
		f.Add([]byte(s))
	}
	opts := btcpp.Options{NoIncludes: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := btcpp.LoadWith(data, opts)
		if err != nil {
			return
		}
		if _, err := arbor.Compile(doc, formattest.RegistryFor(t, doc)); err != nil {
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

// FuzzReadModels checks that ReadModels never panics, and that every type
// it reads has a name and only named parameters.
func FuzzReadModels(f *testing.F) {
	for _, p := range []string{
		filepath.Join("..", "..", "examples", "village", "palette.xml"),
	} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte(`<root><TreeNodesModel><Action ID="Go"><input_port name="d" type="std::vector&lt;int&gt;" default="1;2"/><inout_port name="b" type="bool" default="true">required; x</inout_port></Action><Condition ID="C"/></TreeNodesModel></root>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		infos, err := btcpp.ReadModels(data)
		if err != nil {
			return
		}
		formattest.CheckNamed(t, infos)
	})
}
