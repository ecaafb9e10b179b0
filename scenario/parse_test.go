package scenario_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arborbt/arbor/scenario"
)

func TestParseTickMs(t *testing.T) {
	tests := []struct {
		doc  string
		yaml bool
		want float64 // the parsed tickMs, when err is empty
		err  string
	}{
		{doc: `{"name": "a", "tree": {"type": "Success"}, "ticks": []}`, want: 100},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "tickMs": 0, "ticks": []}`, want: 0},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "tickMs": 16.5, "ticks": []}`, want: 16.5},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "tickMs": -1, "ticks": []}`, err: "tickMs must be a finite number ≥ 0"},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "tickMs": "10", "ticks": []}`, err: "tickMs must be"},
		{doc: "name: a\ntree: {type: Success}\ntickMs: .inf\nticks: []\n", yaml: true, err: "tickMs must be"},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "tickMs": 1e12, "ticks": [{"repeat": 9}, {"status": "success"}]}`, err: "10 ticks of 1e+12 ms go past the clock's range"},
		{doc: "name: a\ntree: {type: Success}\ntickMs: .nan\nticks: []\n", yaml: true, err: "tickMs must be"},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "ticks": [{"repeat": 0}]}`, err: "repeat must be an integer from 1 to 10,000,000"},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "ticks": [{"repeat": 2000000000}]}`, err: "repeat must be an integer from 1 to 10,000,000"},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "ticks": [{"repeat": 1.5}]}`, err: "repeat must be an integer from 1 to 10,000,000"},
	}
	for _, tt := range tests {
		list, err := scenario.Parse([]byte(tt.doc), tt.yaml, "t")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.doc, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.doc, err)
			continue
		}
		if got := list[0].TickMs; got != tt.want {
			t.Errorf("%s: tickMs %v, want %v", tt.doc, got, tt.want)
		}
	}
}

// A tree file given where a scenario is expected says so, rather than
// "unknown scenario field".
func TestParseTreeDocument(t *testing.T) {
	for _, doc := range []string{
		`{"format": "arbor/1", "trees": {"t": {"type": "Success"}}}`,
		`{"type": "Sequence", "children": [{"type": "Success"}]}`,
		`{"scope": "tree", "root": "1", "nodes": {"1": {"id": "1", "name": "Succeeder"}}}`,
	} {
		_, err := scenario.Parse([]byte(doc), false, "t.json")
		if err == nil || !strings.Contains(err.Error(), "tree document, not a scenario") {
			t.Errorf("%s: %v, want a tree-document error", doc, err)
		}
	}
	// Nor is the Behavior3 editor's node export (a palette).
	_, err := scenario.Parse([]byte(`[{"version": "0.3.0", "scope": "node", "name": "MoveTo", "category": "action"}]`), false, "p.json")
	if err == nil || !strings.Contains(err.Error(), "Behavior3 node export") {
		t.Errorf("a node export: %v", err)
	}
	// A scenario with an unknown field is still reported as such.
	_, err = scenario.Parse([]byte(`{"name": "a", "tree": {"type": "Success"}, "tick": []}`), false, "t.json")
	if err == nil || !strings.Contains(err.Error(), `unknown scenario field "tick"`) {
		t.Errorf("unknown field: %v", err)
	}
}

// A field given as null is the field left out; an unknown one is still an
// error.
func TestParseNullFields(t *testing.T) {
	doc := `{"name": "a", "description": null, "tickMs": null, "mocks": null, "loadError": null, "tree": {"type": "Success"},
		"ticks": [{"status": null, "trace": null, "set": null, "delete": null, "repeat": null, "blackboard": null}]}`
	list, err := scenario.Parse([]byte(doc), false, "t.json")
	if err != nil {
		t.Fatal(err)
	}
	if s := list[0]; s.TickMs != 100 || s.LoadError != "" || len(s.Steps) != 1 || s.Steps[0].Repeat != 1 || s.Steps[0].Trace != nil {
		t.Errorf("parsed %+v", s)
	}
	if r := list[0].Run(); !r.Passed {
		t.Errorf("run: %s", r.Failure)
	}
	for _, doc := range []string{
		`{"name": "a", "tree": {"type": "Success"}, "tick": null}`,
		`{"name": "a", "tree": {"type": "Success"}, "ticks": [{"stat": null}]}`,
	} {
		if _, err := scenario.Parse([]byte(doc), false, "t.json"); err == nil || !strings.Contains(err.Error(), "unknown") {
			t.Errorf("%s: %v, want an unknown field", doc, err)
		}
	}
	if _, err := scenario.Parse([]byte(`{"name": null, "tree": {"type": "Success"}}`), false, "t.json"); err == nil {
		t.Error("a null name parsed")
	}
}

// A treeFile of another format, given without treeFormat, fails to load
// as the native format with a message that names the treeFormat to use.
func TestTreeFileOfAnotherFormatNamesTreeFormat(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"guard.xml":     `<root BTCPP_format="4"><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree></root>`,
		"guard.b3.json": `{"scope": "tree", "root": "1", "nodes": {"1": {"id": "1", "name": "Succeeder"}}}`,
		"bad.json":      `{"trees": {"A": {"type": "Succes"}}}`,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ file, want, not string }{
		{"guard.xml", "treeFile guard.xml looks like BehaviorTree.CPP XML, which treeFormat btcpp reads", ""},
		{"guard.b3.json", "treeFile guard.b3.json looks like Behavior3 editor JSON, which treeFormat b3 reads", ""},
		{"bad.json", `unknown node type "Succes"`, "looks like"},
	} {
		list, err := scenario.Parse([]byte(`{"name": "a", "treeFile": "`+c.file+`", "ticks": [{"status": "success"}]}`), false, filepath.Join(dir, "s.json"))
		if err != nil {
			t.Fatal(err)
		}
		res := list[0].Run()
		if res.Passed || !strings.Contains(res.Failure, c.want) || c.not != "" && strings.Contains(res.Failure, c.not) {
			t.Errorf("%s: %+v, want a failure saying %q", c.file, res, c.want)
		}
	}
}

// Collect leaves out the Behavior3 editor's node exports (palettes) found
// in a directory, as it does tree files; given by name, one is an error.
func TestCollectSkipsNodeExports(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"palette.b3.json": `[{"version": "0.3.0", "scope": "node", "name": "MoveTo", "category": "action", "properties": {}}]`,
		"list.json":       `[{"name": "not a node export"}]`,
		"s.json":          `{"name": "a", "tree": {"type": "Success"}, "ticks": [{"status": "success"}]}`,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := scenario.Collect([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "list.json"), filepath.Join(dir, "s.json")}
	if !slices.Equal(got, want) {
		t.Errorf("Collect = %v, want %v", got, want)
	}
}

// treeFormat applies to an inline tree too: a format the scenario package
// does not know is an error there as it is for treeFile (it was ignored,
// the tree read as native), and a string tree needs a treeFormat that
// reads one. (Package format adds b3 and btcpp inline trees; the
// testdata/formats suites run them.)
func TestInlineTreeFormat(t *testing.T) {
	for _, c := range []struct{ doc, parseErr, loadErr string }{
		{doc: `{"name": "a", "tree": {"type": "Success"}, "treeFormat": "bogus", "ticks": [{"status": "success"}]}`,
			loadErr: `treeFormat "bogus" is not supported`},
		{doc: `{"name": "a", "tree": "<root/>", "ticks": []}`,
			parseErr: "line 1: tree must be a tree document or a root node (a string holds a tree of another treeFormat"},
		{doc: `{"name": "a", "tree": "<root/>", "treeFormat": "arbor", "ticks": []}`,
			parseErr: "tree must be a tree document or a root node"},
		{doc: `{"name": "a", "tree": 5, "ticks": []}`,
			parseErr: "tree must be a tree document or a root node"},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "treeFormat": "arbor", "ticks": [{"status": "success"}]}`},
	} {
		list, err := scenario.Parse([]byte(c.doc), false, "s.json")
		if c.parseErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.parseErr) {
				t.Errorf("%s: parse error %v, want %q", c.doc, err, c.parseErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.doc, err)
		}
		res := list[0].Run()
		switch {
		case c.loadErr == "" && !res.Passed:
			t.Errorf("%s: %s", c.doc, res.Failure)
		case c.loadErr != "" && (res.Passed || !strings.Contains(res.Failure, c.loadErr)):
			t.Errorf("%s: %+v, want a failure saying %q", c.doc, res, c.loadErr)
		}
	}
}

// A file with a list of scenarios may name and describe the suite; other
// keys beside the list are still errors.
func TestParseSuiteKeys(t *testing.T) {
	for _, c := range []struct {
		doc  string
		yaml bool
		n    int
		err  string
	}{
		{doc: `{"name": "suite", "description": "d", "comment": "c", "scenarios": [{"name": "a", "tree": {"type": "Success"}}, {"name": "b", "tree": {"type": "Failure"}}]}`, n: 2},
		{doc: "description: the suite\nscenarios:\n  - {name: a, tree: {type: Success}}\n", yaml: true, n: 1},
		{doc: `{"scenarios": [{"name": "a", "tree": {"type": "Success"}}], "ticks": []}`, err: `line 1: unknown key "ticks" beside "scenarios"`},
		{doc: `{"scenarios": [{"name": "a", "tree": {"type": "Success"}}], "name": 5}`, err: "name must be a string"},
	} {
		list, err := scenario.Parse([]byte(c.doc), c.yaml, "s.json")
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.doc, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.doc, err)
		case c.err == "" && len(list) != c.n:
			t.Errorf("%s: %d scenarios, want %d", c.doc, len(list), c.n)
		}
	}
}

// scenario.md makes an inline tree native: a native tree with treeFormat
// b3 or btcpp (which the spec ties to treeFile) still runs as native.
func TestInlineNativeTreeIgnoresTreeFormat(t *testing.T) {
	for _, tf := range []string{"b3", "btcpp"} {
		for _, tree := range []string{`{"type": "Success"}`, `{"format": "arbor/1", "trees": {"m": {"type": "Success"}}}`, `{"trees": {"m": {"type": "Success"}}}`} {
			doc := `{"name": "a", "tree": ` + tree + `, "treeFormat": "` + tf + `", "ticks": [{"status": "success"}]}`
			list, err := scenario.Parse([]byte(doc), false, "s.json")
			if err != nil {
				t.Fatalf("%s: %v", doc, err)
			}
			if res := list[0].Run(); !res.Passed {
				t.Errorf("%s: %s", doc, res.Failure)
			}
		}
	}
}

// TestParseFieldTypes: every field of scenario.md given the wrong type, a
// required one missing, or two that exclude each other, is a parse error
// that names it (arbor test prints it under "FAIL <file path>").
func TestParseFieldTypes(t *testing.T) {
	const tree, ticks = `"tree": {"type": "A"}, "mocks": {"A": ["success"]}`, `"ticks": [{"status": "success"}]`
	tests := []struct{ doc, err string }{
		{`{` + tree + `, ` + ticks + `}`, "a scenario needs a name"},
		{`{"name": "", ` + tree + `, ` + ticks + `}`, "a scenario needs a name"},
		{`{"name": 3, ` + tree + `, ` + ticks + `}`, "name must be a string"},
		{`{"name": "a", "description": 1, ` + tree + `, ` + ticks + `}`, "description must be a string"},
		{`{"name": "a", ` + ticks + `}`, "needs tree or treeFile"},
		{`{"name": "a", ` + tree + `, "treeFile": "t.json", ` + ticks + `}`, "has both tree and treeFile"},
		{`{"name": "a", "treeFile": 5, ` + ticks + `}`, "treeFile must be a string"},
		{`{"name": "a", ` + tree + `, "treeFormat": 1, ` + ticks + `}`, "treeFormat must be a string"},
		{`{"name": "a", "tree": "A", ` + ticks + `}`, "tree must be a tree document or a root node"},
		{`{"name": "a", "tree": {"type": "A"}, "mocks": ["A"], ` + ticks + `}`, "mocks must be an object"},
		{`{"name": "a", "tree": {"type": "A"}, "mocks": {"A": "success"}, ` + ticks + `}`, "mock script must be a list of strings"},
		{`{"name": "a", "tree": {"type": "A"}, "mocks": {"A": []}, ` + ticks + `}`, `mock "A": empty script`},
		{`{"name": "a", "tree": {"type": "A"}, "mocks": {"A": ["done"]}, ` + ticks + `}`, `script entry "done" is not success, failure or running`},
		{`{"name": "a", "tree": {"type": "A"}, "mocks": {"A": ["SUCCESS"]}, ` + ticks + `}`, `script entry "SUCCESS"`},
		{`{"name": "a", "tree": {"type": "A"}, "mocks": {"A": [1]}, ` + ticks + `}`, "mock script entry must be a string"},
		{`{"name": "a", "tree": {"type": "A"}, "mocks": {"A": ["success"], "A": ["failure"]}, ` + ticks + `}`, `duplicate key "A"`},
		{`{"name": "a", ` + tree + `, "conditions": ["C"], ` + ticks + `}`, "conditions must be an object"},
		{`{"name": "a", ` + tree + `, "conditions": {"C": 1}, ` + ticks + `}`, "condition key must be a string"},
		{`{"name": "a", ` + tree + `, "blackboard": [1], ` + ticks + `}`, "blackboard must be an object"},
		{`{"name": "a", ` + tree + `, "blackboard": {"k": 1, "k": 2}, ` + ticks + `}`, `duplicate key "k"`},
		{`{"name": "a", ` + tree + `, "ticks": {"status": "success"}}`, "ticks must be a list of steps"},
		{`{"name": "a", ` + tree + `, "ticks": ["success"]}`, "ticks[0] must be an object"},
		{`{"name": "a", ` + tree + `, "ticks": [{"stauts": "success"}]}`, `ticks[0]: unknown step field "stauts"`},
		{`{"name": "a", ` + tree + `, "ticks": [{"repeat": "2"}]}`, "repeat must be an integer"},
		{`{"name": "a", ` + tree + `, "ticks": [{"status": "ok"}]}`, `status must be success, failure or running, got "ok"`},
		{`{"name": "a", ` + tree + `, "ticks": [{"status": "SUCCESS"}]}`, `status must be success, failure or running, got "SUCCESS"`},
		{`{"name": "a", ` + tree + `, "ticks": [{"trace": "A:start"}]}`, "trace must be a list of strings"},
		{`{"name": "a", ` + tree + `, "ticks": [{"trace": [1]}]}`, "trace entry must be a string"},
		{`{"name": "a", ` + tree + `, "ticks": [{"set": ["a"]}]}`, "set must be an object"},
		{`{"name": "a", ` + tree + `, "ticks": [{"delete": "a"}]}`, "delete must be a list of strings"},
		{`{"name": "a", ` + tree + `, "ticks": [{"delete": [1]}]}`, "delete entry must be a string"},
		{`{"name": "a", ` + tree + `, "ticks": [{"blackboard": ["a"]}]}`, "blackboard must be an object"},
		{`{"name": "a", ` + tree + `, ` + ticks + `, "halt": "true"}`, "halt must be true or false"},
		{`{"name": "a", ` + tree + `, ` + ticks + `, "haltTrace": []}`, `haltTrace needs "halt": true`},
		{`{"name": "a", ` + tree + `, ` + ticks + `, "halt": true, "haltTrace": "A:halt"}`, "haltTrace must be a list of strings"},
		{`{"name": "a", ` + tree + `, ` + ticks + `, "loadError": "x"}`, "has both loadError and ticks"},
		{`{"name": "a", ` + tree + `, "loadError": 1}`, "loadError must be a string"},
		{`{"scenarios": {"name": "a"}}`, "scenarios must be a list"},
		{`{"scenarios": [{"name": "a", ` + tree + `, ` + ticks + `}, {"name": "b", ` + tree + `, "ticks": [{"repeat": 0}]}]}`, "scenarios[1]: line 1: repeat must be"},
		{`[{"name": "a", ` + tree + `, ` + ticks + `}]`, "a scenario file must be an object, got a list"},
		{`{"name": "a", ` + tree + `, ` + ticks + `} []`, "trailing garbage"},
	}
	for _, tt := range tests {
		_, err := scenario.Parse([]byte(tt.doc), false, "t.json")
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want %q", tt.doc, err, tt.err)
		}
	}
}
