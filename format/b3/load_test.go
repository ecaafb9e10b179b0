package b3_test

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/b3"
	"github.com/arborbt/arbor/format/internal/formattest"
)

// tree builds a tree export whose nodes are given as "id": {...} members.
func tree(root string, nodes ...string) string {
	return `{"scope": "tree", "id": "t", "title": "T", "root": "` + root + `", "nodes": {` + strings.Join(nodes, ",\n") + `}}`
}

func TestLoadMapsEveryType(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"Sequence is reactive", tree("a", `"a": {"name": "Sequence", "children": ["b"]}`, `"b": {"name": "Succeeder"}`), "ReactiveSequence(Success)"},
		{"Priority is reactive", tree("a", `"a": {"name": "Priority", "children": ["b"]}`, `"b": {"name": "Failer"}`), "ReactiveSelector(Failure)"},
		{"MemSequence", tree("a", `"a": {"name": "MemSequence", "children": ["b"]}`, `"b": {"name": "Runner"}`), "Sequence(Running)"},
		{"MemPriority", tree("a", `"a": {"name": "MemPriority", "children": ["b"]}`, `"b": {"name": "Runner"}`), "Selector(Running)"},
		{"Inverter", tree("a", `"a": {"name": "Inverter", "child": "b"}`, `"b": {"name": "Runner"}`), "Inverter(Running)"},
		{"Limiter", tree("a", `"a": {"name": "Limiter", "properties": {"maxLoop": 3}, "child": "b"}`, `"b": {"name": "Runner"}`), `Limiter{max:3}(Running)`},
		{"Limiter default", tree("a", `"a": {"name": "Limiter", "child": "b"}`, `"b": {"name": "Runner"}`), `Limiter{max:1}(Running)`},
		{"MaxTime", tree("a", `"a": {"name": "MaxTime", "properties": {"maxTime": 250}, "child": "b"}`, `"b": {"name": "Runner"}`), `Timeout{ms:250}(Running)`},
		{"Repeater", tree("a", `"a": {"name": "Repeater", "properties": {"maxLoop": 4}, "child": "b"}`, `"b": {"name": "Runner"}`), `Repeat{count:4}(Running)`},
		{"Repeater forever", tree("a", `"a": {"name": "Repeater", "properties": {"maxLoop": -5}, "child": "b"}`, `"b": {"name": "Runner"}`), `Repeat{count:-1}(Running)`},
		{"RepeatUntilFailure", tree("a", `"a": {"name": "RepeatUntilFailure", "properties": {"maxLoop": 2}, "child": "b"}`, `"b": {"name": "Runner"}`), `RepeatUntilFailure{max:2}(Running)`},
		{"RepeatUntilFailure default", tree("a", `"a": {"name": "RepeatUntilFailure", "child": "b"}`, `"b": {"name": "Runner"}`), `RepeatUntilFailure{max:-1}(Running)`},
		{"RepeatUntilSuccess", tree("a", `"a": {"name": "RepeatUntilSuccess", "properties": {"maxLoop": 3}, "child": "b"}`, `"b": {"name": "Runner"}`), `RetryUntilSuccessful{attempts:3}(Running)`},
		{"Wait", tree("a", `"a": {"name": "Wait", "properties": {"milliseconds": 150}}`), `Wait{ms:150}`},
		{"Wait default", tree("a", `"a": {"name": "Wait"}`), `Wait{ms:0}`},
		{"Wait in ticks (extension)", tree("a", `"a": {"name": "Wait", "properties": {"ticks": 2, "milliseconds": 0}}`), `Wait{ticks:2}`},
		{"Error", tree("a", `"a": {"name": "Error", "title": "Error"}`), `arbor.Error"Error"`},
		{"custom node: properties are parameters", tree("a", `"a": {"name": "MoveTo", "properties": {"target": "A", "speed": 2}}`), `MoveTo{speed:2,target:"A"}`},
		{"deprecated parameters", tree("a", `"a": {"name": "MoveTo", "parameters": {"target": "A", "speed": 1}, "properties": {"speed": 2}}`), `MoveTo{speed:2,target:"A"}`},
		{"built-ins drop other properties", tree("a", `"a": {"name": "MemSequence", "properties": {"debug": true}, "children": ["b"]}`, `"b": {"name": "Runner"}`), `Sequence(Running)`},
		{"numbers written as text", tree("a", `"a": {"name": "Repeater", "properties": {"maxLoop": " 3 "}, "child": "b"}`, `"b": {"name": "Runner"}`), `Repeat{count:3}(Running)`},
		{"title placeholders", tree("a", `"a": {"name": "MoveTo", "title": "MoveTo <post> at <speed>x <nope>", "properties": {"post": "A", "speed": 1.5}}`), `MoveTo"MoveTo A at 1.5x <nope>"{post:"A",speed:1.5}`},
		{"title placeholder from custom_nodes", `{"root": "a", "nodes": {"a": {"name": "MoveTo", "title": "go <post>"}}, "custom_nodes": [{"name": "MoveTo", "properties": {"post": "home"}}]}`, `MoveTo"go home"`},
		{"title equal to the type is no name", tree("a", `"a": {"name": "MoveTo", "title": "MoveTo"}`), `MoveTo`},
		{"built-in default title", tree("a", `"a": {"name": "Repeater", "title": "Repeat <maxLoop>x", "properties": {"maxLoop": 2}, "child": "b"}`, `"b": {"name": "Runner"}`), `Repeat"Repeat 2x"{count:2}(Running)`},
		{"unreachable nodes are ignored", tree("a", `"a": {"name": "Runner"}`, `"b": {"name": 5}`, `"c": {"children": "x"}`), `Running`},
		{"abort property (extension)", tree("a", `"a": {"name": "MemPriority", "properties": {"abort": "lower"}, "children": ["b"]}`, `"b": {"name": "Runner"}`), `Selector[lower](Running)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := b3.Load([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if got := formattest.Shape(doc.Trees[doc.Main]); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

func TestLoadProject(t *testing.T) {
	in := `{
  "scope": "project", "selectedTree": "m",
  "trees": [
    {"id": "m", "title": "Main", "root": "a", "nodes": {
      "a": {"name": "Priority", "children": ["b", "c"]},
      "b": {"name": "s", "title": "the sub tree"},
      "c": {"name": "s", "title": "Sub", "properties": {"guard": "g"}}}},
    {"id": "s", "title": "Sub", "root": "x", "nodes": {"x": {"name": "Runner"}}},
    {"id": "g", "title": "Guard", "root": "y", "nodes": {"y": {"name": "Check", "properties": {"key": "k", "op": "exists"}}}},
    {"id": "d1", "title": "A behavior tree", "root": "z", "nodes": {"z": {"name": "Succeeder"}}},
    {"id": "d2", "title": "A behavior tree", "root": null, "nodes": {}}
  ]}`
	doc, err := b3.Load([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Main != "Main" {
		t.Errorf("main %q", doc.Main)
	}
	if got, want := strings.Join(doc.TreeNames(), ","), "Main,Sub,d1"; got != want {
		t.Errorf("trees %s, want %s (the guard tree is inlined, the empty tree skipped, duplicate titles named by id)", got, want)
	}
	want := `ReactiveSelector(SubTree"the sub tree"{tree:"Sub"} SubTree{tree:"Sub"}?Check{key:"k",op:"exists"})`
	if got := formattest.Shape(doc.Trees["Main"]); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if _, err := arbor.Compile(doc, nil); err != nil {
		t.Error(err)
	}
}

func TestLoadErrors(t *testing.T) {
	deep := []string{}
	for i := 0; i < 300; i++ {
		deep = append(deep, fmt.Sprintf(`"n%d": {"name": "Inverter", "child": "n%d"}`, i, i+1))
	}
	deep = append(deep, `"n300": {"name": "Runner"}`)
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"not JSON", `{"scope": `, []string{"behavior3 JSON", "line 1"}},
		{"not an object", `[1]`, []string{"must be a JSON object"}},
		{"node export", "[\n  {\"version\": \"0.3.0\", \"scope\": \"node\", \"name\": \"Dig\", \"category\": \"action\", \"title\": \"Dig <depth>\", \"properties\": {\"depth\": 2}}\n]",
			[]string{"line 1", "a Behavior3 node export", "holds no tree: export the tree or the project"}},
		{"duplicate key", "{\"root\": \"a\",\n \"root\": \"b\"}", []string{"line 2", `duplicate key "root"`}},
		{"unknown scope", `{"scope": "node", "name": "x"}`, []string{`scope "node"`, "want \"tree\" or \"project\""}},
		{"not a b3 file", `{"hello": 1}`, []string{"not a Behavior3 tree or project export"}},
		{"trees not a list", `{"scope": "project", "trees": {}}`, []string{"needs a list of trees"}},
		{"no trees", `{"scope": "project", "trees": []}`, []string{"the project has no trees"}},
		{"missing child", tree("a", `"a": {"name": "Inverter", "child": "zz"}`), []string{"trees.T.child", `node id "zz" is not in nodes`}},
		{"missing root", tree("q", `"a": {"name": "Runner"}`), []string{"trees.T", `node id "q" is not in nodes`}},
		{"node without a name", tree("a", "\"a\": {\n\"title\": \"x\"}"), []string{`node "a" needs a name`, "line 1"}},
		{"cycle", tree("a", `"a": {"name": "MemSequence", "children": ["b"]}`, `"b": {"name": "Inverter", "child": "a"}`), []string{"trees.T.children[0].child", "reached twice"}},
		{"shared child", tree("a", `"a": {"name": "MemSequence", "children": ["b", "b"]}`, `"b": {"name": "Runner"}`), []string{"trees.T.children[1]", "reached twice"}},
		{"child and children", tree("a", `"a": {"name": "Inverter", "child": "b", "children": ["b"]}`, `"b": {"name": "Runner"}`), []string{"both child and children"}},
		{"children not a list", tree("a", `"a": {"name": "MemSequence", "children": "b"}`), []string{"children must be a list of node ids"}},
		{"bad property", tree("a", `"a": {"name": "Limiter", "properties": {"maxLoop": true}, "child": "b"}`, `"b": {"name": "Runner"}`), []string{"[Limiter, line 1]", "property maxLoop: want a number, got true"}},
		{"properties not an object", tree("a", `"a": {"name": "Runner", "properties": [1]}`), []string{"properties must be an object"}},
		{"title not a string", tree("a", `"a": {"name": "Runner", "title": 3}`), []string{"title must be a string"}},
		{"ticks and milliseconds", tree("a", `"a": {"name": "Wait", "properties": {"ticks": 1, "milliseconds": 5}}`), []string{"both ticks and milliseconds"}},
		{"bad abort", tree("a", `"a": {"name": "MemSequence", "properties": {"abort": "up"}, "children": ["b"]}`, `"b": {"name": "Runner"}`), []string{"property abort must be none, self, lower or both"}},
		{"abort none where aborts are not", tree("a", `"a": {"name": "Priority", "properties": {"abort": "none"}, "children": ["b"]}`, `"b": {"name": "Runner"}`), []string{`property abort "none" is only allowed on Sequence, SequenceWithMemory and Selector [ReactiveSelector`}},
		{"guard names no tree", tree("a", `"a": {"name": "Runner", "properties": {"guard": "nope"}}`), []string{"trees.T: guard names", `guard names a missing tree "nope"`}},
		{"guard cycle", `{"scope": "project", "selectedTree": "a", "trees": [
			{"id": "a", "title": "A", "root": "x", "nodes": {"x": {"name": "Runner", "properties": {"guard": "b"}}}},
			{"id": "b", "title": "B", "root": "y", "nodes": {"y": {"name": "Succeeder", "properties": {"guard": "b"}}}}]}`, []string{"guard cycle"}},
		{"selectedTree missing", `{"scope": "project", "selectedTree": "x", "trees": [{"id": "a", "root": "r", "nodes": {"r": {"name": "Runner"}}}]}`, []string{`selectedTree names a missing tree "x"`}},
		{"duplicate tree id", `{"scope": "project", "trees": [{"id": "a", "root": "r", "nodes": {"r": {"name": "Runner"}}}, {"id": "a", "root": "r", "nodes": {"r": {"name": "Runner"}}}]}`, []string{`duplicate tree id "a"`}},
		{"main tree without root", `{"scope": "tree", "title": "Empty", "root": null, "nodes": {}}`, []string{"the main tree has no root node"}},
		{"custom_nodes not a list", `{"root": "a", "nodes": {"a": {"name": "Runner"}}, "custom_nodes": {}}`, []string{"custom_nodes must be a list"}},
		{"custom node without name", `{"root": "a", "nodes": {"a": {"name": "Runner"}}, "custom_nodes": [{"title": "x"}]}`, []string{"custom_nodes[0]", "needs a name"}},
		{"too deep", tree("n0", deep...), []string{"nodes nested deeper than 256"}},
		{"too big", `{"root": "a", "nodes": {"a": {"name": "` + strings.Repeat("x", 16<<20) + `"}}}`, []string{"over the limit"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc, err := b3.Load([]byte(c.in))
			if err == nil {
				t.Fatalf("loaded: %s", formattest.Shape(doc.Trees[doc.Main]))
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestCompileErrorsHaveLines(t *testing.T) {
	in := "{\"root\": \"a\", \"nodes\": {\n\"a\": {\"name\": \"MemSequence\", \"children\": [\"b\"]},\n\"b\": {\"name\": \"Atack\"}}}"
	doc, err := b3.Load([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	_, err = arbor.Compile(doc, nil)
	if err == nil || !strings.Contains(err.Error(), `trees.root.children[0]: unknown node type "Atack" [Atack, line 3]`) {
		t.Fatalf("err = %v", err)
	}
}

// A property the compiler refuses is named as the file wrote it too.
func TestCompileErrorsNameProperties(t *testing.T) {
	for name, want := range map[string]string{
		`"Repeater", "properties": {"maxLoop": 2.5}, "child": "b"`:         `parameter "count" (maxLoop of Repeater in the file): want an integer, got 2.5`,
		`"RepeatUntilSuccess", "properties": {"maxLoop": 0}, "child": "b"`: `parameter "attempts" (maxLoop of RepeatUntilSuccess in the file)`,
		`"Limiter", "properties": {"maxLoop": 0}, "child": "b"`:            `parameter "max" (maxLoop of Limiter in the file)`,
		`"MaxTime", "properties": {"maxTime": -5}, "child": "b"`:           `parameter "ms" (maxTime of MaxTime in the file)`,
		`"Wait", "parameters": {"milliseconds": -1}`:                       `parameter "ms" (milliseconds of Wait in the file)`,
	} {
		in := `{"root": "a", "nodes": {"a": {"name": ` + name + `}, "b": {"name": "Succeeder"}}}`
		doc, err := b3.Load([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if _, err = arbor.Compile(doc, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", name, err, want)
		}
	}
}

func TestLoadFile(t *testing.T) {
	if _, err := b3.LoadFile("no/such/file.json"); err == nil || !strings.Contains(err.Error(), "no/such/file.json") {
		t.Errorf("err = %v", err)
	}
	doc, err := b3.LoadFile("../../testdata/formats/b3/project.b3.json")
	if err != nil {
		t.Fatal(err)
	}
	if doc.Main != "Guard" || len(doc.Trees) != 4 {
		t.Errorf("main %q, trees %v", doc.Main, doc.TreeNames())
	}
}

func TestByteOrderMark(t *testing.T) {
	if _, err := b3.Load([]byte("\xef\xbb\xbf" + tree("a", `"a": {"name": "Runner"}`))); err != nil {
		t.Fatal(err)
	}
}

func TestDetect(t *testing.T) {
	for _, tt := range []struct {
		data string
		want bool
	}{
		{`{"scope": "tree", "root": "a", "nodes": {"a": {"name": "Runner"}}}`, true},
		{`{"data": {"scope": "project", "trees": []}}`, true},
		{`{"trees": [{"id": "x", "root": "a", "nodes": {}}]}`, true},
		{`{"format": "arbor/1", "trees": {"T": {"type": "Success"}}}`, false},
		{`{"type": "Success"}`, false},
		{`not json`, false},
		{`[1, 2]`, false},
		{`[{"version": "0.3.0", "scope": "node", "name": "Dig", "category": "action"}]`, true}, // refused by Load, with a message
	} {
		if got := b3.Detect([]byte(tt.data)); got != tt.want {
			t.Errorf("Detect(%s) = %v, want %v", tt.data, got, tt.want)
		}
	}
}

func TestCustomControlAndDecorator(t *testing.T) {
	// Behavior3 custom composite and decorator nodes load when the program
	// registers them (RegisterControl, RegisterDecorator).
	in := tree("s",
		`"s": {"id": "s", "name": "MemSequence", "children": ["f", "o"]}`,
		`"f": {"id": "f", "name": "Flip", "child": "x"}`,
		`"x": {"id": "x", "name": "Failer"}`,
		`"o": {"id": "o", "name": "FirstOf", "children": ["y", "z"]}`,
		`"y": {"id": "y", "name": "Failer"}`,
		`"z": {"id": "z", "name": "Succeeder"}`)
	doc, err := b3.Load([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	formattest.TickControlDoc(t, doc)
}

// TestLoadCategories: the categories of custom types, from custom_nodes and
// from the nodes themselves, reach the document, and an export without a
// registry keeps them.
func TestLoadCategories(t *testing.T) {
	in := `{"scope": "tree", "id": "t", "title": "T", "root": "a", "nodes": {
		"a": {"id": "a", "name": "MemSequence", "children": ["b", "c", "d"]},
		"b": {"id": "b", "name": "IsHungry", "category": "condition"},
		"c": {"id": "c", "name": "Near", "category": "action"},
		"d": {"id": "d", "name": "Eat"}},
		"custom_nodes": [{"name": "Near", "category": "condition"}, {"name": "Spare", "category": "decorator"}, {"name": "Odd", "category": "tree"}]}`
	doc, err := b3.Load([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]arbor.Category{"IsHungry": arbor.CategoryCondition, "Near": arbor.CategoryCondition, "Spare": arbor.CategoryDecorator}
	if !maps.Equal(doc.Categories, want) {
		t.Errorf("categories %v, want %v", doc.Categories, want)
	}
	out, err := b3.Export(doc)
	if err != nil {
		t.Fatal(err)
	}
	back, err := b3.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	// Spare is not used, so not exported; Eat is an action by default.
	want = map[string]arbor.Category{"IsHungry": arbor.CategoryCondition, "Near": arbor.CategoryCondition, "Eat": arbor.CategoryAction}
	if !maps.Equal(back.Categories, want) {
		t.Errorf("categories after an export %v, want %v", back.Categories, want)
	}
}

// The categories a file writes on Arbor built-ins it holds as custom nodes
// (Check, Parallel, ...) are not program types' declarations: they stay out
// of Document.Categories, as custom_nodes' entries for them do.
func TestLoadCategoriesLeaveOutBuiltins(t *testing.T) {
	in := `{"scope": "tree", "id": "t", "title": "T", "root": "a", "nodes": {
		"a": {"id": "a", "name": "Parallel", "category": "composite", "children": ["b", "c"]},
		"b": {"id": "b", "name": "Check", "category": "condition", "properties": {"key": "k", "op": "exists"}},
		"c": {"id": "c", "name": "Near", "category": "condition"}}}`
	doc, err := b3.Load([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]arbor.Category{"Near": arbor.CategoryCondition}
	if !maps.Equal(doc.Categories, want) {
		t.Errorf("categories %v, want %v", doc.Categories, want)
	}
}
