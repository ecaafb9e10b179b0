package fsm_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/fsm"
)

const guardYAML = `
format: arbor/1
comment: a guard that patrols, fights what it sees and may die
trees:
  Fight:
    type: Sequence
    children:
      - { type: Check, key: enemy, op: "==", value: true }
      - { type: Work, label: swing, ticks: 1 }
  Patrol: { type: Work, label: walk, ticks: 99 }
fsm:
  Guard:
    initial: Alive
    states:
      Alive:
        initial: Patrol
        any:
          - { to: Patrol, when: { key: order, op: "==", value: patrol } }
        transitions:
          - { to: Dead, when: { key: hp, op: "<=", value: 0 }, do: [obituary, { set: { mood: null } }] }
        states:
          Patrol:
            tree: Patrol
            enter: { set: { mood: bored } }
            transitions:
              - { to: Combat, when: [ { key: enemy, op: "==", value: true }, { not: scared } ] }
          Combat:
            tree: Fight
            enter: [ { set: { mood: angry } }, shout ]
            transitions:
              - to: Patrol
                when: { or: [ { tree: failure }, { and: [ { tree: success }, { after: 100 } ] } ] }
      Dead: { final: true, enter: shout }
`

const guardJSON = `{
  "format": "arbor/1",
  "trees": {
    "Fight": { "type": "Sequence", "children": [
      { "type": "Check", "key": "enemy", "op": "==", "value": true },
      { "type": "Work", "label": "swing", "ticks": 1 } ] },
    "Patrol": { "type": "Work", "label": "walk", "ticks": 99 }
  },
  "fsm": {
    "Guard": {
      "initial": "Alive",
      "states": {
        "Alive": {
          "initial": "Patrol",
          "any": [ { "to": "Patrol", "when": { "key": "order", "op": "==", "value": "patrol" } } ],
          "transitions": [ { "to": "Dead", "when": { "key": "hp", "op": "<=", "value": 0 },
                             "do": ["obituary", { "set": { "mood": null } }] } ],
          "states": {
            "Patrol": { "tree": "Patrol", "enter": { "set": { "mood": "bored" } },
              "transitions": [ { "to": "Combat", "when": [ { "key": "enemy", "op": "==", "value": true }, { "not": "scared" } ] } ] },
            "Combat": { "tree": "Fight", "enter": [ { "set": { "mood": "angry" } }, "shout" ],
              "transitions": [ { "to": "Patrol", "when": { "or": [ { "tree": "failure" },
                { "and": [ { "tree": "success" }, { "after": 100 } ] } ] } } ] }
          }
        },
        "Dead": { "final": true, "enter": "shout" }
      }
    }
  }
}`

func TestLoad(t *testing.T) {
	for _, format := range []string{"yaml", "json"} {
		t.Run(format, func(t *testing.T) {
			var doc *fsm.Document
			var err error
			if format == "yaml" {
				doc, err = fsm.ParseYAML([]byte(guardYAML))
			} else {
				doc, err = fsm.ParseJSON([]byte(guardJSON))
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := doc.MachineNames(); !reflect.DeepEqual(got, []string{"Guard"}) {
				t.Fatalf("machines %q", got)
			}
			if got := doc.Trees.TreeNames(); !reflect.DeepEqual(got, []string{"Fight", "Patrol"}) {
				t.Fatalf("trees %q", got)
			}
			r := &recorder{}
			funcs := fsm.Funcs{
				Calls: map[string]func(*fsm.Ctx){
					"shout":    func(c *fsm.Ctx) { r.add("shout in " + c.State())(c) },
					"obituary": func(c *fsm.Ctx) { r.add("obituary for " + c.StatePath() + ">" + c.Target())(c) },
				},
				Conds: map[string]func(*fsm.Ctx) bool{"scared": func(c *fsm.Ctx) bool { return false }},
			}
			def, err := doc.Compile("", workRegistry(t), fsm.WithFuncs(funcs))
			if err != nil {
				t.Fatal(err)
			}
			if len(def.Warnings()) != 0 {
				t.Errorf("warnings: %v", def.Warnings())
			}
			in, err := fsm.NewInstance(def, fsm.WithOwner(r), fsm.WithErrorHandler(func(e *fsm.RunError) { t.Error(e) }))
			if err != nil {
				t.Fatal(err)
			}
			bb := in.Blackboard()
			mood := func() string { s, _ := bb.Value("mood").Str(); return s }
			steps := []struct {
				set  map[string]any
				path string
				mood string
				log  []string
			}{
				{map[string]any{"hp": 3}, "Alive/Patrol", "bored", []string{"walk:start", "walk:running"}},
				{map[string]any{"enemy": true}, "Alive/Combat", "angry", []string{"walk:halt", "shout in Combat", "swing:start", "swing:running"}},
				{nil, "Alive/Combat", "angry", []string{"swing:success"}},
				{nil, "Alive/Combat", "angry", []string{"swing:start", "swing:running"}}, // tree success, but not 100 ms yet
				{map[string]any{"order": "patrol"}, "Alive/Patrol", "bored", []string{"swing:halt", "walk:start", "walk:running"}},
				{map[string]any{"order": nil, "enemy": false}, "Alive/Patrol", "bored", []string{"walk:running"}},
				{map[string]any{"hp": 0}, "Dead", "", []string{"walk:halt", "obituary for Alive>Dead", "shout in Dead"}},
			}
			for i, s := range steps {
				for k, v := range s.set {
					bb.Set(k, v)
				}
				st := in.Update(time.Duration(i) * 40 * time.Millisecond)
				if in.ActivePath() != s.path || mood() != s.mood {
					t.Errorf("update %d: in %q, mood %q; want %q, %q", i+1, in.ActivePath(), mood(), s.path, s.mood)
				}
				if got := r.take(); !reflect.DeepEqual(got, s.log) {
					t.Errorf("update %d:\n got  %q\n want %q", i+1, got, s.log)
				}
				if (s.path == "Dead") != (st == arbor.Success) {
					t.Errorf("update %d: status %s", i+1, st)
				}
			}
		})
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	y := filepath.Join(dir, "guard.yaml")
	j := filepath.Join(dir, "guard.json")
	os.WriteFile(y, []byte(guardYAML), 0o644)
	os.WriteFile(j, []byte(guardJSON), 0o644)
	for _, p := range []string{y, j} {
		if _, err := fsm.LoadFile(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := fsm.LoadFile(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
	// A document of machines only.
	doc, err := fsm.ParseYAML([]byte("fsm:\n  Lamp:\n    initial: Off\n    states:\n      Off:\n      On: { final: failure }\n"))
	if err != nil {
		t.Fatal(err)
	}
	if doc.Trees != nil {
		t.Error("trees from a document without trees")
	}
	def, err := doc.Compile("Lamp", nil)
	if err != nil {
		t.Fatal(err)
	}
	if w := def.Warnings().Error(); !strings.Contains(w, "fsm.Lamp.states.On: state On is unreachable from the initial state Off") {
		t.Errorf("warnings: %s", w)
	}
	for _, tc := range []struct{ name, want string }{
		{"Lmap", `no machine "Lmap" in the document (machines: Lamp) (did you mean "Lamp"?)`},
	} {
		if _, err := doc.Compile(tc.name, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%q): %v, want %q", tc.name, err, tc.want)
		}
	}
	two, _ := fsm.ParseJSON([]byte(`{"fsm": {"A": {"initial": "X", "states": {"X": {}}}, "B": {"initial": "X", "states": {"X": {}}}}}`))
	if _, err := two.Compile("", nil); err == nil || !strings.Contains(err.Error(), "the document has 2 machines (A, B); name one") {
		t.Errorf("Compile(\"\") with two machines: %v", err)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string
	}{
		{"not an object", "- 1\n", []string{"a document must be an object, got a list"}},
		{"syntax", "fsm: [\n", []string{"did not find expected node content"}},
		{"no fsm section", "format: arbor/1\n", []string{"fsm: the document has no fsm section (machine name → machine) [line 1]"}},
		{"document keys", "format: arbor/2\nmain: X\ntres: {}\nfsm: {}\nfsm: {}\n", []string{
			`format: unsupported format "arbor/2" (this version reads "arbor/1") [line 1]`,
			"main: main names the tree to run, but the document has no trees [line 2]",
			`tres: unknown document key "tres" (did you mean "trees"?) [line 3]`,
			`fsm: duplicate key "fsm" [line 5]`,
			"fsm: the fsm section has no machines [line 4]",
		}},
		{"tree errors come from the tree loader", "trees:\n  T: { typ: Wait }\nfsm:\n  M: { initial: A, states: { A: {} } }\n", []string{
			`trees.T: missing node type (the "type" key) [line 2]`,
		}},
		{"machine keys", "fsm:\n  M:\n    initail: A\n    states: []\n  N: 3\n", []string{
			`fsm.M: unknown machine key "initail" (did you mean "initial"?) [line 3]`,
			"fsm.M.states: states must be an object of state name → state, got an empty list [line 4]",
			"fsm.N: a machine must be an object, got the number 3 [line 5]",
		}},
		{"no states", "fsm:\n  M: { initial: A }\n", []string{"fsm.M: the machine has no states [line 2]"}},
		{"state keys", `
fsm:
  M:
    initial: A
    states:
      A:
        enterr: x
        initial: B
        final: maybe
        tree: ""
        update: [[x]]
        exit: 3
      B: 4
      A: {}
`, []string{
			`fsm.M.states.A: unknown state key "enterr" (did you mean "enter"?) [line 7]`,
			"fsm.M.states.A: initial belongs to a state's own machine: give the state states too [line 8]",
			`fsm.M.states.A: final must be true, false, "success" or "failure", got "maybe" [line 9]`,
			`fsm.M.states.A: tree must be a non-empty string, got "" [line 10]`,
			"fsm.M.states.A.update[0]: a callback is a name or {set: {...}}, got a list [line 11]",
			"fsm.M.states.A.exit: a callback is a name, {set: {...}} or a list of those, got the number 3 [line 12]",
			"fsm.M.states.B: a state must be an object, got the number 4 [line 13]",
			`fsm.M.states.A: duplicate key "A": two states have the same name [line 14]`,
		}},
		{"callbacks", `
fsm:
  M:
    initial: A
    states:
      A:
        enter: [ "", { set: 1 }, { sett: {} }, { set: { a: 1, a: 2 } } ]
`, []string{
			"fsm.M.states.A.enter[0]: empty callback name [line 7]",
			"fsm.M.states.A.enter[1].set: set must be an object of key → value, got the number 1 [line 7]",
			"fsm.M.states.A.enter[2]: a callback object is {set: {key: value, ...}} (blackboard writes), got keys sett [line 7]",
			`fsm.M.states.A.enter[3].set: duplicate key "a" [line 7]`,
		}},
		{"transitions", `
fsm:
  M:
    initial: A
    any: { to: A }
    states:
      A:
        transitions:
          - B
          - { when: done, goto: A }
`, []string{
			"fsm.M.any: any must be a list of transitions, got an object [line 5]",
			"fsm.M.states.A.transitions[0]: a transition must be an object ({to: State, when: ...}), got \"B\" [line 9]",
			`fsm.M.states.A.transitions[1]: unknown transition key "goto" [line 10]`,
			"fsm.M.states.A.transitions[1]: a transition needs a target state (to) [line 10]",
		}},
		{"conditions", `
fsm:
  M:
    initial: A
    states:
      A:
        transitions:
          - { to: A, when: { key: hp, after: 3 } }
          - { to: A, when: { kye: hp } }
          - { to: A, when: { and: [] } }
          - { to: A, when: { or: x } }
          - { to: A, when: { after: -1 } }
          - { to: A, when: { tree: done } }
          - { to: A, when: 3 }
          - { to: A, when: "" }
          - { to: A, when: { op: "==" } }
          - { to: A, when: { key: hp } }
          - { to: A, when: {} }
          - { to: A, when: { not: [] } }
`, []string{
			"transitions[0].when: a condition has one form, got both key and after (combine conditions with and/or) [line 8]",
			`transitions[1].when: unknown condition key "kye" (did you mean "key"?) [line 9]`,
			"transitions[2].when.and: want a non-empty list of conditions, got an empty list [line 10]",
			`transitions[3].when.or: want a non-empty list of conditions, got "x" [line 11]`,
			"transitions[4].when: after must be a number of milliseconds ≥ 0, got the number -1 [line 12]",
			`transitions[5].when: tree must be success, failure or running, got "done" [line 13]`,
			"transitions[6].when: a condition is a check {key, op, value}, a list, {and|or|not|after|tree: ...}, \"done\" or a condition name, got the number 3 [line 14]",
			"transitions[7].when: empty condition name [line 15]",
			"transitions[8].when: a check needs a key (a string) [line 16]",
			"transitions[9].when: a check needs an op (a string: ==, !=, <, <=, >, >=, exists, missing) [line 17]",
			"transitions[10].when: empty condition [line 18]",
			"transitions[11].when.not: want a non-empty list of conditions, got an empty list [line 19]",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fsm.ParseYAML([]byte(tt.yaml))
			if err == nil {
				t.Fatalf("loaded, want errors %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
			if n := strings.Count(err.Error(), "\n") + 1; n != len(tt.want) {
				t.Errorf("%d errors, want %d:\n%v", n, len(tt.want), err)
			}
		})
	}
}

func TestLoadThenCompileErrors(t *testing.T) {
	doc, err := fsm.ParseYAML([]byte(`
fsm:
  M:
    initial: Calm
    states:
      Calm:
        transitions:
          - { to: Alret, when: { key: dist, op: "<", value: "{range}" } }
          - { to: Calm, when: done }
        enter: roar
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = doc.Compile("M", nil)
	for _, w := range []string{
		`fsm.M.states.Calm.transitions[0]: unknown target state "Alret": not a state of this machine (Calm) [line 8]`,
		"fsm.M.states.Calm.transitions[1].when: done: state Calm has no machine of its own to finish [line 9]",
		`fsm.M.states.Calm.enter[0]: unknown callback "roar" (give it to Compile with WithFuncs) [line 10]`,
	} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error does not contain %q:\n%v", w, err)
		}
	}
}

// FuzzLoad feeds arbitrary documents to the loader, the compiler and a few
// updates: errors are fine, panics are not.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(guardYAML), true)
	f.Add([]byte(guardJSON), false)
	f.Add([]byte("fsm:\n  M:\n    initial: A\n    states:\n      A: { transitions: [ { to: A, when: { after: 1 } } ] }\n"), true)
	f.Add([]byte(`{"fsm":{"M":{"initial":"A","any":[{"to":"B","when":"done"}],"states":{"A":{"initial":"X","states":{"X":{"final":"failure"}}},"B":{"final":true}}}}}`), false)
	f.Fuzz(func(t *testing.T, data []byte, yaml bool) {
		var doc *fsm.Document
		var err error
		if yaml {
			doc, err = fsm.ParseYAML(data)
		} else {
			doc, err = fsm.ParseJSON(data)
		}
		if err != nil {
			return
		}
		reg := arbor.NewRegistry()
		for _, name := range doc.MachineNames() {
			def, err := doc.Compile(name, reg)
			if err != nil {
				continue
			}
			in, err := fsm.NewInstance(def, fsm.WithErrorHandler(func(*fsm.RunError) {}))
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 4; i++ {
				in.Blackboard().Set("k", i)
				in.Update(time.Duration(i) * time.Second)
			}
			in.Stop()
		}
	})
}

// A condition object takes a comment or a description, as machines,
// states and transitions do; any other unknown key is an error.
func TestConditionComments(t *testing.T) {
	for _, key := range []string{"comment", "description"} {
		src := `{"fsm": {"M": {"initial": "A", "states": {"A": {"transitions": [
			{"to": "B", "when": {"key": "hp", "op": "<", "value": 1, "` + key + `": "hurt"}}]}, "B": {}}}}}`
		if _, err := fsm.ParseJSON([]byte(src)); err != nil {
			t.Errorf("%s on a condition: %v", key, err)
		}
	}
	src := `{"fsm": {"M": {"initial": "A", "states": {"A": {"transitions": [
		{"to": "B", "when": {"key": "hp", "op": "<", "value": 1, "note": "hurt"}}]}, "B": {}}}}}`
	if _, err := fsm.ParseJSON([]byte(src)); err == nil {
		t.Error("an unknown key on a condition parsed")
	}
}
