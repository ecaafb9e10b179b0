package format_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format"
)

const formats = "../testdata/formats/"

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	native := filepath.Join(dir, "native.json")
	os.WriteFile(native, []byte(`{"type": "Success"}`), 0o644)
	noext := filepath.Join(dir, "tree")
	os.WriteFile(noext, []byte("  <root BTCPP_format=\"4\"/>"), 0o644)
	for path, want := range map[string]string{
		formats + "b3/project.b3.json":                   format.B3,
		formats + "b3/saved-project.b3.json":             format.B3,
		formats + "b3/retry-legacy.b3.json":              format.B3,
		formats + "btcpp/basic.xml":                      format.BTCPP,
		"../testdata/examples/abort-lower-priority.yaml": format.Arbor,
		native: format.Arbor,
		noext:  format.BTCPP,
	} {
		got, err := format.Detect(path)
		if err != nil || got != want {
			t.Errorf("Detect(%s) = %q, %v; want %q", path, got, err, want)
		}
	}
	if _, err := format.Detect(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("Detect of a missing file: no error")
	}
}

func TestLoad(t *testing.T) {
	for _, c := range []struct{ path, name, main string }{
		{formats + "b3/project.b3.json", "", "Guard"},
		{formats + "b3/project.b3.json", format.B3, "Guard"},
		{formats + "btcpp/use-subtrees.xml", "", "Subtrees"},
		{"../testdata/examples/abort-self-chain.json", "", ""},
		{"../examples/sentry.yaml", "", ""},
	} {
		doc, err := format.Load(c.path, c.name)
		if c.main == "" {
			// Scenario files and native trees: native loads (or fails) as
			// arbor.LoadFile does.
			_, want := arbor.LoadFile(c.path)
			if (err == nil) != (want == nil) {
				t.Errorf("Load(%s): %v, arbor.LoadFile: %v", c.path, err, want)
			}
			continue
		}
		if err != nil || doc.Main != c.main {
			t.Errorf("Load(%s, %q): main %v, err %v", c.path, c.name, doc, err)
		}
	}
	if _, err := format.Load(formats+"b3/project.b3.json", "yaml"); err == nil || !strings.Contains(err.Error(), `unknown tree format "yaml"`) {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := format.Load(formats+"b3/project.b3.json", format.BTCPP); err == nil || !strings.Contains(err.Error(), "XML") {
		t.Errorf("wrong explicit format: %v", err)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct{ in, name, want string }{
		{`{"type": "Success"}`, "", "Success"},
		{"type: Failure\n", "", "Failure"},
		{`{"root": "a", "nodes": {"a": {"name": "Runner"}}}`, "", "Running"},
		{`<root BTCPP_format="4"><BehaviorTree ID="M"><AlwaysSuccess/></BehaviorTree></root>`, "", "Success"},
		{`{"root": "a", "nodes": {"a": {"name": "Failer"}}}`, format.B3, "Failure"},
		{`{"type": "Success", "nodes": 3, "scope": "x"}`, "", "Success"},
	} {
		doc, err := format.Parse([]byte(c.in), c.name)
		if err != nil {
			t.Errorf("Parse(%s): %v", c.in, err)
			continue
		}
		if got := doc.Trees[doc.Main].Type; got != c.want {
			t.Errorf("Parse(%s): root %s, want %s", c.in, got, c.want)
		}
	}
}

// A file of zhandouxiaojiji/behavior3editor (a nested root node) is named
// for what it is, not answered with a list of unknown document keys.
func TestForeignEditorFile(t *testing.T) {
	src := `{"version": "1.2", "name": "hero", "root": {"id": 1, "name": "Sequence", "args": {},
		"children": [{"id": 2, "name": "Wait", "args": {"time": 1}}]}}`
	const want = "format of zhandouxiaojiji/behavior3editor"
	if _, err := format.Parse([]byte(src), ""); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Parse: %v", err)
	}
	path := filepath.Join(t.TempDir(), "hero.json")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := format.Load(path, ""); err == nil || !strings.Contains(err.Error(), "load "+path+": not a tree format Arbor reads") {
		t.Errorf("Load: %v", err)
	}
	// A native document is not taken for one.
	if _, err := format.Parse([]byte(`{"trees": {"root": {"type": "Success"}}}`), ""); err != nil {
		t.Errorf("native: %v", err)
	}
}

// The Behavior3 editor's node export (a list of node definitions) is
// recognised from a .json file and refused for what it is.
func TestBehavior3NodeExport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodes.json")
	src := `[{"version": "0.3.0", "scope": "node", "name": "Dig", "category": "action", "title": "Dig", "properties": {}}]`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := format.Detect(path); err != nil || got != format.B3 {
		t.Errorf("Detect = %q, %v; want %q", got, err, format.B3)
	}
	if _, err := format.Load(path, ""); err == nil || !strings.Contains(err.Error(), "a Behavior3 node export") {
		t.Errorf("Load: %v", err)
	}
	// A list that is not one stays the native loader's to refuse.
	if got := format.DetectData([]byte(`[{"type": "Success"}]`)); got != format.Arbor {
		t.Errorf("DetectData of a list = %q, want %q", got, format.Arbor)
	}
}

func TestOutputFormat(t *testing.T) {
	for path, want := range map[string]string{"a.xml": format.BTCPP, "a.b3.json": format.B3, "A.B3.JSON": format.B3,
		"a.json": format.Arbor, "a.yaml": format.Arbor, "a.yml": format.Arbor} {
		if got, err := format.OutputFormat(path); err != nil || got != want {
			t.Errorf("OutputFormat(%s) = %q, %v; want %q", path, got, err, want)
		}
	}
	if _, err := format.OutputFormat("a.txt"); err == nil {
		t.Error("a.txt: no error")
	}
}

// TestWriteEveryFormat converts one document to every format and reads
// each file back.
func TestWriteEveryFormat(t *testing.T) {
	doc, err := format.Load(formats+"b3/ext.b3.json", "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	want, err := format.MarshalArbor(doc, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"t.json", "t.yaml", "t.b3.json", "t.xml"} {
		p := filepath.Join(dir, name)
		if err := format.Write(p, doc, ""); err != nil {
			t.Fatal(err)
		}
		back, err := format.Load(p, "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := format.MarshalArbor(back, false)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s read back differs:\n%s\nwant\n%s", name, got, want)
		}
	}
	if err := format.Write(filepath.Join(dir, "t.txt"), doc, ""); err == nil {
		t.Error("t.txt: no error")
	}
	data, err := format.Convert(doc, format.Arbor)
	if err != nil || string(data) != string(want) {
		t.Errorf("Convert arbor: %v", err)
	}
}

func TestMarshalArbor(t *testing.T) {
	doc := &arbor.Document{Main: "m", Trees: map[string]*arbor.Node{
		"m": arbor.Sequence(arbor.Inverter(arbor.Check("hp", "<=", 5)), arbor.SubTree("s")).WithAbort(arbor.AbortSelf),
		"s": arbor.Leaf("Say", "text", "a <b> & c", "n", 2.5, "list", []any{1, "x"}).Named("say").WithGuard(arbor.Check("k", "exists")),
	}}
	data, err := format.MarshalArbor(doc, false)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "format": "arbor/1",
  "main": "m",
  "trees": {
    "m": {
      "type": "Sequence",
      "abort": "self",
      "children": [
        {
          "type": "Inverter",
          "child": {
            "type": "Check",
            "key": "hp",
            "op": "<=",
            "value": 5
          }
        },
        {
          "type": "SubTree",
          "tree": "s"
        }
      ]
    },
    "s": {
      "type": "Say",
      "name": "say",
      "list": [
        1,
        "x"
      ],
      "n": 2.5,
      "text": "a <b> & c",
      "guard": {
        "type": "Check",
        "key": "k",
        "op": "exists"
      }
    }
  }
}
`
	if string(data) != want {
		t.Errorf("got\n%s\nwant\n%s", data, want)
	}
	for _, yaml := range []bool{false, true} {
		data, err := format.MarshalArbor(doc, yaml)
		if err != nil {
			t.Fatal(err)
		}
		var back *arbor.Document
		if yaml {
			back, err = arbor.ParseYAML(data)
		} else {
			back, err = arbor.ParseJSON(data)
		}
		if err != nil {
			t.Fatalf("yaml=%v: %v\n%s", yaml, err, data)
		}
		if _, err := arbor.Compile(back, registry(t, "Say")); err != nil {
			t.Errorf("yaml=%v: %v", yaml, err)
		}
	}
	bad := &arbor.Document{Trees: map[string]*arbor.Node{"m": arbor.Leaf("X", "children", 1)}}
	if _, err := format.MarshalArbor(bad, false); err == nil || !strings.Contains(err.Error(), `parameter "children" has the name of a reserved key`) {
		t.Errorf("reserved key: %v", err)
	}
}

func registry(t *testing.T, actions ...string) *arbor.Registry {
	reg := arbor.NewRegistry()
	for _, a := range actions {
		if err := reg.ActionFunc(a, func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }, arbor.AnyParams()); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

func TestRender(t *testing.T) {
	doc, err := format.Load(formats+"b3/ext.b3.json", "")
	if err != nil {
		t.Fatal(err)
	}
	ascii, err := format.Render(doc, format.RenderASCII)
	if err != nil {
		t.Fatal(err)
	}
	want := "Guard (main tree)\n" +
		"`-- Selector\n" +
		"    |-- Sequence [abort=lower]\n" +
		"    |   |-- threat? (Check) key=\"threat\" op=\"exists\"\n" +
		"    |   `-- Fight\n" +
		"    `-- patrol (Sequence) [guarded]\n" +
		"        |-- guard: not tired (Check) key=\"tired\" op=\"missing\"\n" +
		"        |-- post A (MoveTo)\n" +
		"        |-- Wait ticks=1\n" +
		"        `-- post B (MoveTo)\n"
	if ascii != want {
		t.Errorf("ascii:\n%s\nwant\n%s", ascii, want)
	}
	sub, err := format.Load(formats+"btcpp/use-subtrees.xml", "")
	if err != nil {
		t.Fatal(err)
	}
	for style, wants := range map[string][]string{
		format.RenderDOT: {"digraph arbor {", `subgraph cluster_0 {`, `label="Subtrees (main tree)";`,
			`[label="again (SubTree)\ntree=\"Patrol\"", shape=component];`, `[style=dashed, label="subtree"];`, "}\n"},
		format.RenderMermaid: {"flowchart TD", `subgraph tree0["Subtrees (main tree)"]`, `[["again (SubTree)<br/>tree=#quot;Patrol#quot;"]]`, `-.->|subtree|`},
	} {
		out, err := format.Render(sub, style)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %s:\n%s", style, w, out)
			}
		}
	}
	guarded, _ := format.Render(doc, format.RenderDOT)
	for _, w := range []string{`label="guard"`, "abort: lower", "penwidth=2"} {
		if !strings.Contains(guarded, w) {
			t.Errorf("dot lacks %s:\n%s", w, guarded)
		}
	}
	if _, err := format.Render(doc, "svg"); err == nil {
		t.Error("unknown style: no error")
	}
}

// LoadTree loads any format and compiles it; its errors name the file and
// wrap the cause, as arbor.LoadTree's do.
func TestLoadTree(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.xml")
	if _, err := format.LoadTree(missing, nil); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "load "+missing+": ") {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.xml")
	if err := os.WriteFile(bad, []byte(`<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence><Attack/></Sequence></BehaviorTree></root>`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := format.LoadTree(bad, nil)
	var les arbor.LoadErrors
	if !errors.As(err, &les) || !strings.HasPrefix(err.Error(), "load "+bad+": ") || !strings.Contains(err.Error(), `unknown node type "Attack"`) {
		t.Errorf("unknown type: %v", err)
	}
	// One tree in each format: an Inverter over a Failure.
	for name, text := range map[string]string{
		"tree.b3.json": `{"scope": "tree", "root": "i", "nodes": {"i": {"id": "i", "name": "Inverter", "child": "f"}, "f": {"id": "f", "name": "Failer"}}}`,
		"tree.xml":     `<root BTCPP_format="4"><BehaviorTree ID="M"><Inverter><AlwaysFailure/></Inverter></BehaviorTree></root>`,
		"tree.yaml":    "type: Inverter\nchild: {type: Failure}\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		tree, err := format.LoadTree(path, nil)
		if err != nil || tree.Len() != 2 {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if s := arbor.NewAgent(tree).Tick(0); s != arbor.Success {
			t.Errorf("%s: ticked %v, want success", name, s)
		}
	}
}
