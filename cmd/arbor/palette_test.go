package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// paletteXML declares a program's types as Groot2's TreeNodesModel.
const paletteXML = `<root BTCPP_format="4">
  <TreeNodesModel>
    <Action ID="MoveTo">
      <input_port name="target" type="std::string">required</input_port>
      <input_port name="speed" type="double" default="1.5"/>
      <input_port name="stops" type="std::vector&lt;int&gt;"/>
    </Action>
    <Action ID="Rest"><input_port name="zone"/></Action>
    <Action ID="Hit"><input_port name="power" type="unsigned int">required</input_port></Action>
    <Condition ID="Sees"><input_port name="what" type="std::string"/></Condition>
    <Decorator ID="Twice"><input_port name="loud" type="bool"/></Decorator>
    <Control ID="Pick"/>
    <Condition ID="Check"><input_port name="key" type="std::string">required</input_port></Condition>
  </TreeNodesModel>
</root>
`

// validate -types checks a tree's program types against a palette: each
// type's parameters (undeclared, missing required, wrong type), category
// (a declared action is not a condition in a guard) and shape; types it
// does not declare stay unknown.
func TestValidateTypes(t *testing.T) {
	dir := t.TempDir()
	palette := writeFile(t, dir, "palette.xml", paletteXML)
	good := writeFile(t, dir, "good.yaml", `type: Sequence
children:
  - {type: MoveTo, target: well}
  - {type: MoveTo, target: "{home}", speed: 2, stops: [1, 2]}
  - {type: Rest, zone: 3}
  - {type: Hit, power: 4, guard: {type: Sees, what: troll}}
  - {type: Twice, loud: true, child: {type: Rest}}
  - {type: Pick, children: [{type: Sees}, {type: Hit, power: "{p}"}]}
  - {type: Check, key: hp, op: "<", value: 3}
`)
	out, errOut, code := runCLI(t, "validate", "-types", palette, good)
	if code != 0 || out != "ok: "+good+": tree \"root\", 12 nodes\n" || errOut != "" {
		t.Errorf("a tree the palette allows: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	bad := writeFile(t, dir, "bad.xml", `<root BTCPP_format="4"><BehaviorTree ID="Main"><Sequence>
<MoveTo speed="fast"/>
<Rest zone="x" colour="red"/>
<Hit power="-1"/>
<MoveTo target="w" stops="1;x"/>
<MoveTo target="w" stops="1;2;"/>
<Twice loud="maybe"><Rest/></Twice>
<Sequence><Hit power="1"/></Sequence>
<Frobnicate/>
</Sequence></BehaviorTree></root>`)
	out, errOut, code = runCLI(t, "validate", "-types", palette, bad)
	for _, want := range []string{
		`children[0]: missing required parameter "target" (the palette declares it required) [MoveTo, line 2]`,
		`children[1]: unknown parameter "colour"`,
		`children[2]: parameter "power": want an integer ≥ 0 (as the palette declares), got the number -1 [Hit, line 4]`,
		`children[3]: parameter "stops": want a list of numbers (as the palette declares), got the string "1;x" [MoveTo, line 5]`,
		`children[5]: parameter "loud": want true or false (as the palette declares), got the string "maybe" [Twice, line 7]`,
		`unknown node type "Frobnicate"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if code != 1 || strings.Count(out, "\n") != 6 || !strings.Contains(errOut, "not built in: Frobnicate (node types the program registers); the palette does not declare them;") {
		t.Errorf("exit %d, stdout:\n%s\nstderr %q; want 1, six problems and a hint naming Frobnicate", code, out, errOut)
	}
	// A declared action in a guard, a decorator with two children.
	misused := writeFile(t, dir, "misused.yaml", `type: Sequence
children:
  - {type: Rest, guard: {type: MoveTo, target: x}}
  - {type: Twice, children: [{type: Rest}, {type: Rest}]}
`)
	out, _, code = runCLI(t, "validate", "-types", palette, misused)
	if code != 1 || !strings.Contains(out, "guard") || !strings.Contains(out, "Twice") {
		t.Errorf("misused types: exit %d, stdout:\n%s", code, out)
	}
}

// The committed village palettes declare every type of the village's
// trees, as the program registers them.
func TestValidateVillageWithPalettes(t *testing.T) {
	village := filepath.Join("..", "..", "examples", "village")
	for _, palette := range []string{"palette.xml", "palette.b3.json"} {
		for _, tree := range []string{"villager.yaml", "monster.yaml"} {
			out, errOut, code := runCLI(t, "validate", "-types", filepath.Join(village, palette), filepath.Join(village, tree))
			if code != 0 || !strings.HasPrefix(out, "ok: ") {
				t.Errorf("%s with %s: exit %d, stdout %q, stderr %q", tree, palette, code, out, errOut)
			}
		}
	}
}

// A Behavior3 node export works as a palette too: its description says
// which parameters are required.
func TestValidateTypesB3(t *testing.T) {
	dir := t.TempDir()
	palette := writeFile(t, dir, "nodes.json", `[
  {"version": "0.3.0", "scope": "node", "name": "MoveTo", "category": "action", "title": "MoveTo",
   "description": "Parameters: target (string, required), speed (number, default 1.5).", "properties": {"target": "", "speed": 1.5}},
  {"version": "0.3.0", "scope": "node", "name": "Near", "category": "condition", "title": "Near", "description": "", "properties": {}}
]`)
	tree := writeFile(t, dir, "tree.yaml", "type: Sequence\nchildren:\n  - {type: Near}\n  - {type: MoveTo, speed: 2}\n")
	out, _, code := runCLI(t, "validate", "-types", palette, tree)
	if code != 1 || !strings.Contains(out, `missing required parameter "target"`) {
		t.Errorf("exit %d, stdout:\n%s", code, out)
	}
}

func TestTypesFlagErrors(t *testing.T) {
	dir := t.TempDir()
	tree := writeFile(t, dir, "tree.yaml", "type: Success\n")
	for _, tc := range []struct {
		cmd, palette, want string
	}{
		{"validate", filepath.Join(dir, "missing.xml"), "arbor validate: read palette " + filepath.Join(dir, "missing.xml") + ": open "},
		{"validate", tree, "not a palette: want a BT.CPP XML file with a <TreeNodesModel> or a Behavior3 node export"},
		{"run", writeFile(t, dir, "bad.xml", "<root><TreeNodesModel><Action/></TreeNodesModel></root>"), "arbor run: read palette " + filepath.Join(dir, "bad.xml") + ": BT.CPP models: line 1: a <Action> model needs an ID attribute"},
	} {
		_, errOut, code := runCLI(t, tc.cmd, "-types", tc.palette, tree)
		if code != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s -types %s: exit %d, stderr %q; want 1 and %q", tc.cmd, tc.palette, code, errOut, tc.want)
		}
	}
}

// run -types runs declared types as mocks of their categories: actions
// succeed or run their -mock script, conditions hold or give their
// script's first status; -scenario records them (conditions as
// conditions, wherever they are) and only the types the tree uses.
func TestRunTypes(t *testing.T) {
	dir := t.TempDir()
	palette := writeFile(t, dir, "palette.xml", paletteXML)
	tree := writeFile(t, dir, "tree.yaml", "type: Sequence\nchildren:\n  - {type: Sees, what: orc}\n  - {type: MoveTo, target: well}\n")
	out, errOut, code := runCLI(t, "run", "-ticks", "1", "-types", palette, tree)
	if code != 0 || !strings.Contains(out, "tick 1 (t=100ms): success") {
		t.Errorf("declared types: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, _, _ = runCLI(t, "run", "-ticks", "2", "-types", palette, "-mock", "MoveTo=running,success", tree)
	if !strings.Contains(out, "tick 1 (t=100ms): running") || !strings.Contains(out, "tick 2 (t=200ms): success") {
		t.Errorf("a scripted declared action: stdout %q", out)
	}
	out, _, _ = runCLI(t, "run", "-ticks", "1", "-types", palette, "-mock", "Sees=failure", tree)
	if !strings.Contains(out, "tick 1 (t=100ms): failure") {
		t.Errorf("a scripted declared condition: stdout %q", out)
	}
	_, errOut, code = runCLI(t, "run", "-ticks", "1", "-types", palette, "-mock", "Sees=running", tree)
	if code != 1 || !strings.Contains(errOut, "-mock Sees: the palette declares Sees a condition, which cannot be running") {
		t.Errorf("a running condition: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "run", "-ticks", "1", "-types", palette, "-mock", "Twice=success", tree)
	if code != 1 || !strings.Contains(errOut, "-mock Twice: the palette declares Twice a decorator, which runs as a stand-in ticking its children; only leaves can be scripted") {
		t.Errorf("a scripted decorator: exit %d, stderr %q", code, errOut)
	}
	rec := filepath.Join(dir, "rec.yaml")
	if _, errOut, code := runCLI(t, "run", "-ticks", "2", "-types", palette, "-mock", "Sees=failure", "-scenario", rec, tree); code != 0 {
		t.Fatalf("-scenario: exit %d, stderr %q", code, errOut)
	}
	data, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Sees:", "MoveTo:"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the recording lacks %q:\n%s", want, data)
		}
	}
	for _, unused := range []string{"Rest", "Hit", "Twice", "Pick"} {
		if strings.Contains(string(data), unused) {
			t.Errorf("the recording names %s, which the tree does not use:\n%s", unused, data)
		}
	}
	if out, _, code := runCLI(t, "test", rec); code != 0 {
		t.Errorf("arbor test of the recording: exit %d\n%s", code, out)
	}
}

// convert -types gives the exporters the categories of the program types
// a native file cannot declare: a condition is written as a <Condition>.
func TestConvertTypes(t *testing.T) {
	dir := t.TempDir()
	palette := writeFile(t, dir, "palette.xml", paletteXML)
	tree := writeFile(t, dir, "tree.yaml", "type: Sequence\nchildren:\n  - {type: Sees, what: orc}\n  - {type: MoveTo, target: well}\n")
	out, errOut, code := runCLI(t, "convert", tree, "-", "-to", "btcpp")
	if code != 0 || !strings.Contains(out, `<Action ID="Sees">`) {
		t.Fatalf("without -types: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	out, errOut, code = runCLI(t, "convert", "-types", palette, tree, "-", "-to", "btcpp")
	if code != 0 || !strings.Contains(out, `<Condition ID="Sees">`) || !strings.Contains(out, `<Action ID="MoveTo">`) {
		t.Errorf("with -types: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	// What the file declares wins over the palette.
	declared := writeFile(t, dir, "declared.xml", `<root BTCPP_format="4"><BehaviorTree ID="M"><Sequence><Sees/></Sequence></BehaviorTree>
<TreeNodesModel><Action ID="Sees"/></TreeNodesModel></root>`)
	out, _, _ = runCLI(t, "convert", "-types", palette, declared, "-", "-to", "btcpp")
	if !strings.Contains(out, `<Action ID="Sees"`) {
		t.Errorf("the file's own model: stdout:\n%s", out)
	}
	if _, errOut, code := runCLI(t, "convert", "-types", tree, tree, "-", "-to", "btcpp"); code != 1 || !strings.Contains(errOut, "not a palette") {
		t.Errorf("a tree as palette: exit %d, stderr %q", code, errOut)
	}
}

// serve -types runs the palette's types as mocks that take the declared
// parameters: the edit form's types list them (not "any parameters"),
// the palette's other types are offered too, and an edit is checked
// against the declaration.
func TestServeTypes(t *testing.T) {
	dir := t.TempDir()
	palette := writeFile(t, dir, "palette.xml", paletteXML)
	file := writeFile(t, dir, "tree.yaml", "type: Sequence\nchildren:\n  - {type: Sees, what: orc}\n  - {type: MoveTo, target: well}\n")
	serveWithToken(t, runServe, []string{"-addr", "127.0.0.1:0", "-controls", "-tick-ms", "20", "-types", palette, file}, func(base, token string) {
		var a agentView
		getJSON(t, base+"/api/agents/0", &a)
		var tv treeView
		getJSON(t, fmt.Sprintf("%s/api/trees/%d", base, a.Tree), &tv)
		if mv := tv.typeJSON("MoveTo"); !strings.Contains(mv, `"name":"target"`) || !strings.Contains(mv, `"name":"speed"`) || strings.Contains(mv, "anyParams") {
			t.Errorf("MoveTo in the edit form's types: %s", mv)
		}
		var ans struct{ Error string }
		code := postJSON(t, fmt.Sprintf("%s/api/trees/%d/edit", base, a.Tree), token,
			`{"path": "root.children[1]", "params": {"target": "well", "speed": "fast"}}`, &ans)
		if code != 400 || !strings.Contains(ans.Error, `parameter "speed": want a number`) {
			t.Errorf("an edit against the palette: %d %+v", code, ans)
		}
		code = postJSON(t, fmt.Sprintf("%s/api/trees/%d/edit", base, a.Tree), token,
			`{"path": "root.children[1]", "params": {"target": "well", "colour": "red"}}`, &ans)
		if code != 400 || !strings.Contains(ans.Error, `unknown parameter "colour"`) {
			t.Errorf("an undeclared parameter: %d %+v", code, ans)
		}
		var ok struct{ Agents int }
		if code := postJSON(t, fmt.Sprintf("%s/api/trees/%d/edit", base, a.Tree), token,
			`{"path": "root.children[1]", "params": {"target": "mill", "speed": 3}}`, &ok); code != 200 || ok.Agents != 1 {
			t.Errorf("a good edit: %d %+v", code, ok)
		}
	})
}
