package b3_test

import (
	"strings"
	"testing"

	"github.com/arborbt/arbor/format/b3"
	"github.com/arborbt/arbor/format/internal/formattest"
)

// What NodeExport writes, ReadNodes reads back: the program's types with
// their categories and parameters (properties in the file's order, then
// those only the description lists), required ones as the description
// says, defaults from the properties; the Arbor built-ins it adds are
// marked Builtin.
func TestReadNodesReadsNodeExport(t *testing.T) {
	_, data := nodeExport(t, paletteRegistry(t))
	infos, err := b3.ReadNodes(data)
	if err != nil {
		t.Fatal(err)
	}
	program := formattest.ProgramTypes(infos)
	want := `Feel action any: zone <nil>
MoveTo action: loud bool =false, pause float64 =0, speed float64 =1.5, target string required, waypoints []interface {} =[], anything <nil>
Retry decorator: times float64 =3
Tired condition
Utility control: scores <nil>
`
	if got := formattest.Types(program); got != want {
		t.Errorf("ReadNodes(NodeExport(reg)):\n%s\nwant:\n%s", got, want)
	}
	if len(program) == len(infos) {
		t.Error("the export's Arbor built-ins (Check, Parallel, ...) are not marked Builtin")
	}
}

func TestReadNodes(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"a project's custom_nodes, as the editor writes them",
			`{"name": "p", "data": {"version": "0.3.0", "scope": "project", "trees": [], "custom_nodes": [
				{"version": "0.3.0", "scope": "node", "name": "Goto", "category": "action", "title": "Goto <target>", "description": "Walk there", "properties": {"target": "home", "run": false, "n": 2, "path": [1], "opts": {}, "x": null}},
				{"name": "Seen", "category": "condition", "parameters": {"who": ""}},
				{"name": "Odd"}]}}`,
			"Goto action: target string =home, run bool =false, n float64 =2, path []interface {} =[1], opts map[string]interface {} =map[], x <nil>\nSeen condition: who string =\nOdd none\n"},
		{"a tree export's custom_nodes",
			`{"version": "0.3.0", "scope": "tree", "custom_nodes": [{"name": "Hop", "category": "composite", "description": "Parameters: a (string, required, or a {key}), b (list of numbers, default [1,2]), c. Takes other parameters too.", "properties": {"b": [1, 2]}}]}`,
			"Hop control any: b []interface {} =[1 2], a <nil> required, c <nil>\n"},
		{"no custom_nodes", `{"scope": "tree", "nodes": {}}`, ""},
		{"a description in other words", `[{"scope": "node", "name": "A", "category": "action", "description": "Parameters: walk (fast) now, please."}]`, "A action\n"},
	} {
		infos, err := b3.ReadNodes([]byte(tc.json))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := formattest.Types(infos); got != tc.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
	}
}

func TestReadNodesErrors(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"not JSON", `<root/>`, "behavior3 nodes: "},
		{"a number", `3`, "want a node export (a list of node definitions) or a file with custom_nodes, got the number 3"},
		{"custom_nodes not a list", `{"custom_nodes": {}}`, "got an object"},
		{"a definition not an object", `[1]`, "[0] (line 1): a node definition must be an object"},
		{"no name", `[{"category": "action"}]`, "a node definition needs a name"},
		{"an unknown category", `[{"name": "Odd", "category": "sorcery"}]`, `node type "Odd": unknown category "sorcery" (composite, decorator, condition or action)`},
		{"twice", `[{"name": "A"},
{"name": "A"}]`, `[1] (line 2): node type "A" is defined twice`},
		{"properties not an object", `[{"name": "A", "properties": [1]}]`, `node type "A": properties must be an object, got a list`},
		{"a name twice", `[{"name": "A",
"name": "B"}]`, `line 2: duplicate key "name"`},
		{"a property twice", `[{"name": "A", "properties": {"x": 1,
"x": "s"}}]`, `line 2: duplicate key "x"`},
	} {
		_, err := b3.ReadNodes([]byte(tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want one containing %q", tc.name, err, tc.want)
		}
	}
}
