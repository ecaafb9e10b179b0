package arbor_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// ldMove is the MoveTo of format.md's example.
type ldMove struct {
	Target string `arbor:"target,required"`
}

func (m *ldMove) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	c.Blackboard().Set("at", m.Target)
	return arbor.Success, nil
}

// ldRegistry has the program types of format.md's example.
func ldRegistry(t testing.TB) *arbor.Registry {
	t.Helper()
	reg := arbor.NewRegistry()
	for _, err := range []error{
		reg.ActionFunc("Attack", func(c *arbor.Ctx) (arbor.Status, error) { return arbor.Running, nil }),
		reg.ConditionFunc("IsReady", func(c *arbor.Ctx) (bool, error) {
			v, _ := c.Blackboard().Lookup("ready")
			return v.Equal(arbor.Bool(true)), nil
		}),
		arbor.RegisterAction[ldMove, struct{}](reg, "MoveTo"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// ldLoad parses and compiles a native document.
func ldLoad(t testing.TB, src string, yaml bool) (*arbor.Tree, error) {
	t.Helper()
	var doc *arbor.Document
	var err error
	if yaml {
		doc, err = arbor.ParseYAML([]byte(src))
	} else {
		doc, err = arbor.ParseJSON([]byte(src))
	}
	if err != nil {
		return nil, err
	}
	return arbor.Compile(doc, ldRegistry(t))
}

// ldGuardDoc wraps a root node as the tree "Guard" of a document, like the
// example of format.md; extra adds trees.
func ldGuardDoc(root string, extra ...string) string {
	trees := `"Guard": ` + root
	for _, e := range extra {
		trees += ", " + e
	}
	return `{"format": "arbor/1", "main": "Guard", "trees": {` + trees + `}}`
}

// ldIn puts node as the second child of a Sequence root, at the path
// trees.Guard.children[1].
func ldIn(node string) string {
	return ldGuardDoc(`{"type": "Sequence", "children": [{"type": "Success"}, ` + node + `]}`)
}

const ldAt = "trees.Guard.children[1]"

type ldCase struct {
	name    string
	src     string
	yaml    bool
	want    []string // substrings of the message: path, type and what is wrong
	notWant []string
}

func ldCheckErrors(t *testing.T, cases []ldCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("loading panicked: %v\n%s", r, debug.Stack())
				}
			}()
			tree, err := ldLoad(t, c.src, c.yaml)
			if err == nil {
				t.Fatalf("loaded (%d nodes); want a load error containing %q", tree.Len(), c.want)
			}
			msg := err.Error()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message does not contain %q:\n%s", w, msg)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(msg, w) {
					t.Errorf("message contains %q:\n%s", w, msg)
				}
			}
		})
	}
}

func TestLoadUnknownNodeType(t *testing.T) {
	ldCheckErrors(t, []ldCase{
		{name: "the example of format.md: a misspelt registered type",
			src: ldGuardDoc(`{"type": "ReactiveSelector", "children": [{"type": "Success"},
				{"type": "Inverter", "child": {"type": "Atack"}}]}`),
			want: []string{"trees.Guard.children[1].child", `unknown node type "Atack"`, `(did you mean "Attack"?)`}},
		{name: "a misspelt built-in type", src: ldIn(`{"type": "Sequense", "children": [{"type": "Success"}]}`),
			want: []string{ldAt, "Sequense", "unknown node type", `did you mean "Sequence"`}},
		{name: "a misspelt alias", src: ldIn(`{"type": "Falback", "children": [{"type": "Success"}]}`),
			want: []string{ldAt, "Falback", "unknown node type", `did you mean "Fallback"`}},
		{name: "a type with the wrong case", src: ldIn(`{"type": "sequence", "children": [{"type": "Success"}]}`),
			want: []string{ldAt, "unknown node type", `did you mean "Sequence"`}},
		{name: "what is below an unknown type is checked too",
			src:  ldGuardDoc(`{"type": "Pipeline", "guard": {"type": "Wait", "ticks": 1}, "children": [{"type": "Wait", "tick": 2}, {"type": "Success"}]}`),
			want: []string{`trees.Guard: unknown node type "Pipeline"`, `trees.Guard.children[0]: unknown parameter "tick"`, "trees.Guard.guard: a guard may contain only conditions"}},
		{name: "a type close to nothing has no suggestion", src: ldIn(`{"type": "Xylophone"}`),
			want: []string{ldAt, "Xylophone", "unknown node type"}, notWant: []string{"did you mean"}},
		{name: "an unknown type in YAML", yaml: true,
			src:  "main: Guard\ntrees:\n  Guard:\n    type: Sequence\n    children:\n      - type: Success\n      - type: Atack\n",
			want: []string{ldAt, "Atack", "unknown node type", `did you mean "Attack"`}},
		{name: "an unknown type inside a subtree", src: ldGuardDoc(`{"type": "SubTree", "tree": "Fight"}`,
			`"Fight": {"type": "Sequence", "children": [{"type": "Atack"}]}`),
			want: []string{"trees.Fight.children[0]", "Atack", "unknown node type"}},
		{name: "an unknown type in a guard", src: ldIn(`{"type": "Success", "guard": {"type": "IsRedy"}}`),
			want: []string{ldAt + ".guard", "IsRedy", "unknown node type", `did you mean "IsReady"`}},
	})
}

func TestLoadChildCounts(t *testing.T) {
	ldCheckErrors(t, []ldCase{
		{name: "a decorator without a child", src: ldIn(`{"type": "Inverter"}`),
			want: []string{ldAt, "Inverter", "children"}},
		{name: "a decorator with two children", src: ldIn(`{"type": "ForceSuccess", "children": [{"type": "Success"}, {"type": "Failure"}]}`),
			want: []string{ldAt, "ForceSuccess", "children"}},
		{name: "a decorator with an empty children list", src: ldIn(`{"type": "Repeat", "count": 2, "children": []}`),
			want: []string{ldAt, "Repeat", "children"}},
		{name: "a built-in leaf with a child", src: ldIn(`{"type": "Success", "child": {"type": "Failure"}}`),
			want: []string{ldAt, "Success", "children"}},
		{name: "a Check with children", src: ldIn(`{"type": "Check", "key": "k", "op": "exists", "children": [{"type": "Failure"}]}`),
			want: []string{ldAt, "Check", "children"}},
		{name: "a Wait with a child", src: ldIn(`{"type": "Wait", "ticks": 1, "child": {"type": "Failure"}}`),
			want: []string{ldAt, "Wait", "children"}},
		{name: "a registered action with a child", src: ldIn(`{"type": "Attack", "child": {"type": "Failure"}}`),
			want: []string{ldAt, "Attack", "children"}},
		{name: "a registered condition with children", src: ldIn(`{"type": "IsReady", "children": [{"type": "Failure"}]}`),
			want: []string{ldAt, "IsReady", "children"}},
		{name: "a Sequence with no children", src: ldIn(`{"type": "Sequence", "children": []}`),
			want: []string{ldAt, "Sequence", "children"}},
		{name: "a Selector without a children key", src: ldIn(`{"type": "Selector"}`),
			want: []string{ldAt, "Selector", "children"}},
		{name: "a Parallel with no children", src: ldIn(`{"type": "Parallel", "children": []}`),
			want: []string{ldAt, "Parallel", "children"}},
		{name: "a ParallelAll with no children", src: ldIn(`{"type": "ParallelAll"}`),
			want: []string{ldAt, "ParallelAll", "children"}},
		{name: "a ReactiveSelector with no children", src: ldIn(`{"type": "ReactiveSelector", "children": []}`),
			want: []string{ldAt, "ReactiveSelector", "children"}},
		{name: "a SubTree with a child", src: ldGuardDoc(`{"type": "Sequence", "children": [{"type": "Success"}, {"type": "SubTree", "tree": "B", "child": {"type": "Success"}}]}`, `"B": {"type": "Success"}`),
			want: []string{ldAt, "SubTree", "children"}},
		{name: "a SubTree with children", src: ldGuardDoc(`{"type": "Sequence", "children": [{"type": "Success"}, {"type": "SubTree", "tree": "B", "children": [{"type": "Success"}]}]}`, `"B": {"type": "Success"}`),
			want: []string{ldAt, "SubTree", "children"}},
		{name: "a node with both child and children", src: ldIn(`{"type": "Inverter", "child": {"type": "Success"}, "children": [{"type": "Success"}]}`),
			want: []string{ldAt, "Inverter", "child"}},
		{name: "a decorator without a child in YAML", yaml: true,
			src:  "main: Guard\ntrees:\n  Guard:\n    type: Sequence\n    children:\n      - type: Success\n      - type: Inverter\n",
			want: []string{ldAt, "Inverter", "children"}},
	})
}

func TestLoadAbortPlacement(t *testing.T) {
	var cases []ldCase
	for _, node := range []string{
		`{"type": "Parallel", "abort": "self", "children": [{"type": "Success"}]}`,
		`{"type": "ParallelAll", "abort": "lower", "children": [{"type": "Success"}]}`,
		`{"type": "ReactiveSequence", "abort": "lower", "children": [{"type": "Success"}]}`,
		`{"type": "ReactiveSelector", "abort": "both", "children": [{"type": "Success"}]}`,
		`{"type": "Inverter", "abort": "self", "child": {"type": "Success"}}`,
		`{"type": "Check", "abort": "self", "key": "k", "op": "exists"}`,
		`{"type": "Attack", "abort": "lower"}`,
		`{"type": "Success", "abort": "both"}`,
	} {
		var typ struct{ Type string }
		if err := json.Unmarshal([]byte(node), &typ); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, ldCase{name: "abort on " + typ.Type, src: ldIn(node), want: []string{ldAt, typ.Type, "abort"}})
	}
	cases = append(cases,
		ldCase{name: "abort on a SubTree", src: ldGuardDoc(`{"type": "Sequence", "children": [{"type": "Success"}, {"type": "SubTree", "tree": "B", "abort": "self"}]}`, `"B": {"type": "Success"}`),
			want: []string{ldAt, "SubTree", "abort"}},
		ldCase{name: "an unknown abort mode", src: ldIn(`{"type": "Sequence", "abort": "sometimes", "children": [{"type": "Success"}]}`),
			want: []string{ldAt, "Sequence", "abort"}},
		ldCase{name: "an abort mode that is not a string", src: ldIn(`{"type": "Selector", "abort": 1, "children": [{"type": "Success"}]}`),
			want: []string{ldAt, "Selector", "abort"}},
	)
	ldCheckErrors(t, cases)

	for _, typ := range []string{"Sequence", "SequenceWithMemory", "Selector", "MemSequence", "Fallback", "MemPriority"} {
		for _, mode := range []string{"none", "self", "lower", "both"} {
			t.Run(fmt.Sprintf("abort %s on %s loads", mode, typ), func(t *testing.T) {
				if _, err := ldLoad(t, ldIn(fmt.Sprintf(`{"type": %q, "abort": %q, "children": [{"type": "Success"}]}`, typ, mode)), false); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

func TestLoadGuards(t *testing.T) {
	ldCheckErrors(t, []ldCase{
		{name: "a Wait as a guard", src: ldIn(`{"type": "Success", "guard": {"type": "Wait", "ticks": 1}}`),
			want: []string{ldAt + ".guard", "Wait", "guard"}},
		{name: "a registered action as a guard", src: ldIn(`{"type": "Success", "guard": {"type": "Attack"}}`),
			want: []string{ldAt + ".guard", "Attack", "guard"}},
		{name: "an action nested in a guard's sequence", src: ldIn(`{"type": "Success", "guard": {"type": "Sequence", "children": [{"type": "Check", "key": "k", "op": "exists"}, {"type": "MoveTo", "target": "A"}]}}`),
			want: []string{ldAt + ".guard.children[1]", "MoveTo", "guard"}},
		{name: "Running in a guard", src: ldIn(`{"type": "Success", "guard": {"type": "Selector", "children": [{"type": "Failure"}, {"type": "Running"}]}}`),
			want: []string{ldAt + ".guard.children[1]", "Running", "guard"}},
		{name: "a Set in a guard", src: ldIn(`{"type": "Success", "guard": {"type": "Set", "key": "k", "value": 1}}`),
			want: []string{ldAt + ".guard", "Set", "guard"}},
		{name: "a Parallel in a guard", src: ldIn(`{"type": "Success", "guard": {"type": "Parallel", "children": [{"type": "Success"}]}}`),
			want: []string{ldAt + ".guard", "Parallel", "guard"}},
		{name: "a SequenceWithMemory in a guard", src: ldIn(`{"type": "Success", "guard": {"type": "SequenceWithMemory", "children": [{"type": "Success"}]}}`),
			want: []string{ldAt + ".guard", "SequenceWithMemory", "guard"}},
		{name: "a Repeat in a guard", src: ldIn(`{"type": "Success", "guard": {"type": "Repeat", "count": 2, "child": {"type": "Success"}}}`),
			want: []string{ldAt + ".guard", "Repeat", "guard"}},
		{name: "a Timeout in a guard", src: ldIn(`{"type": "Success", "guard": {"type": "Timeout", "ms": 5, "child": {"type": "Success"}}}`),
			want: []string{ldAt + ".guard", "Timeout", "guard"}},
		{name: "a SubTree in a guard", src: ldGuardDoc(`{"type": "Sequence", "children": [{"type": "Success"}, {"type": "Success", "guard": {"type": "SubTree", "tree": "B"}}]}`, `"B": {"type": "Success"}`),
			want: []string{ldAt + ".guard", "SubTree", "guard"}},
		{name: "an action in the guard of a guard's node", src: ldIn(`{"type": "Success", "guard": {"type": "Check", "key": "k", "op": "exists", "guard": {"type": "Wait", "ticks": 0}}}`),
			want: []string{ldAt + ".guard.guard", "Wait", "guard"}},
		{name: "an action in a guard in YAML", yaml: true,
			src:  "main: Guard\ntrees:\n  Guard:\n    type: Sequence\n    children:\n      - type: Success\n      - type: Success\n        guard: { type: Attack }\n",
			want: []string{ldAt + ".guard", "Attack", "guard"}},
	})
	for _, g := range []string{
		`{"type": "Check", "key": "k", "op": "exists"}`,
		`{"type": "IsReady"}`,
		`{"type": "Success"}`,
		`{"type": "Failure"}`,
		`{"type": "Inverter", "child": {"type": "IsReady"}}`,
		`{"type": "ForceSuccess", "child": {"type": "Check", "key": "k", "op": "==", "value": 1}}`,
		`{"type": "ForceFailure", "child": {"type": "Success"}}`,
		`{"type": "Selector", "children": [{"type": "Sequence", "children": [{"type": "IsReady"}, {"type": "Check", "key": "k", "op": "missing"}]}, {"type": "ForceFailure", "child": {"type": "Success"}}]}`,
		`{"type": "ReactiveSequence", "children": [{"type": "Inverter", "child": {"type": "Failure"}}, {"type": "ReactiveSelector", "children": [{"type": "IsReady"}]}]}`,
		`{"type": "Fallback", "children": [{"type": "IsReady"}]}`,
	} {
		t.Run("a guard of conditions loads: "+g, func(t *testing.T) {
			if _, err := ldLoad(t, ldIn(`{"type": "Success", "guard": `+g+`}`), false); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestLoadSubTrees(t *testing.T) {
	ldCheckErrors(t, []ldCase{
		{name: "a SubTree naming a missing tree", src: ldGuardDoc(`{"type": "Sequence", "children": [{"type": "Success"}, {"type": "SubTree", "tree": "Fihgt"}]}`, `"Fight": {"type": "Success"}`),
			want: []string{ldAt, "SubTree", `"Fihgt"`}},
		{name: "a SubTree without a tree", src: ldIn(`{"type": "SubTree"}`),
			want: []string{ldAt, "SubTree", `"tree"`}},
		{name: "a SubTree naming the empty tree name", src: ldIn(`{"type": "SubTree", "tree": ""}`),
			want: []string{ldAt, "SubTree", `""`}},
		{name: "a SubTree whose tree is not a string", src: ldIn(`{"type": "SubTree", "tree": 5}`),
			want: []string{ldAt, "SubTree", `"tree"`}},
		{name: "a tree including itself", src: ldGuardDoc(`{"type": "Sequence", "children": [{"type": "Success"}, {"type": "SubTree", "tree": "Guard"}]}`),
			want: []string{ldAt, "SubTree", "cycle"}},
		{name: "two trees including each other", src: ldGuardDoc(`{"type": "Sequence", "children": [{"type": "Success"}, {"type": "SubTree", "tree": "A"}]}`,
			`"A": {"type": "Selector", "children": [{"type": "SubTree", "tree": "B"}]}`,
			`"B": {"type": "Inverter", "child": {"type": "SubTree", "tree": "A"}}`),
			want: []string{"SubTree", "cycle"}},
		{name: "a cycle in trees the main tree does not use", src: ldGuardDoc(`{"type": "Success"}`,
			`"A": {"type": "SubTree", "tree": "B"}`, `"B": {"type": "SubTree", "tree": "A"}`),
			want: []string{"SubTree", "cycle"}},
	})
	t.Run("a subtree used twice (not a cycle) loads and runs both copies", func(t *testing.T) {
		tree, err := ldLoad(t, ldGuardDoc(`{"type": "Sequence", "children": [{"type": "SubTree", "tree": "Step"}, {"type": "SubTree", "tree": "Step"}]}`,
			`"Step": {"type": "Wait", "ticks": 1}`), false)
		if err != nil {
			t.Fatal(err)
		}
		a := arbor.NewAgent(tree)
		want := []arbor.Status{arbor.Running, arbor.Running, arbor.Success}
		for i, w := range want {
			if s := a.Tick(time.Duration(i)); s != w {
				t.Fatalf("tick %d: %v, want %v", i, s, w)
			}
		}
	})
}

func TestLoadParameters(t *testing.T) {
	p := func(name, node, param string, extra ...string) ldCase {
		var typ struct{ Type string }
		if err := json.Unmarshal([]byte(node), &typ); err != nil {
			panic(err)
		}
		return ldCase{name: name, src: ldIn(node), want: append([]string{ldAt, typ.Type, `"` + param + `"`}, extra...)}
	}
	ldCheckErrors(t, []ldCase{
		p("Repeat without count", `{"type": "Repeat", "child": {"type": "Success"}}`, "count", "missing"),
		p("Repeat count as a string", `{"type": "Repeat", "count": "2", "child": {"type": "Success"}}`, "count"),
		p("Repeat count below -1", `{"type": "Repeat", "count": -2, "child": {"type": "Success"}}`, "count"),
		p("Repeat count fractional", `{"type": "Repeat", "count": 1.5, "child": {"type": "Success"}}`, "count"),
		p("Repeat with a misspelt parameter", `{"type": "Repeat", "count": 1, "cuont": 2, "child": {"type": "Success"}}`, "cuont", "unknown parameter", `did you mean "count"`),
		p("RetryUntilSuccessful attempts 0", `{"type": "RetryUntilSuccessful", "attempts": 0, "child": {"type": "Success"}}`, "attempts"),
		p("RetryUntilSuccessful without attempts", `{"type": "RetryUntilSuccessful", "child": {"type": "Success"}}`, "attempts"),
		p("RepeatUntilFailure max 0", `{"type": "RepeatUntilFailure", "max": 0, "child": {"type": "Success"}}`, "max"),
		p("Limiter max 0", `{"type": "Limiter", "max": 0, "child": {"type": "Success"}}`, "max"),
		p("Limiter without max", `{"type": "Limiter", "child": {"type": "Success"}}`, "max"),
		p("Timeout with a negative ms", `{"type": "Timeout", "ms": -5, "child": {"type": "Success"}}`, "ms"),
		p("Timeout without ms", `{"type": "Timeout", "child": {"type": "Success"}}`, "ms"),
		p("MaxTime alias without ms", `{"type": "MaxTime", "child": {"type": "Success"}}`, "ms"),
		p("Delay ms as a string", `{"type": "Delay", "ms": "soon", "child": {"type": "Success"}}`, "ms"),
		p("Cooldown without ms", `{"type": "Cooldown", "child": {"type": "Success"}}`, "ms"),
		p("Parallel success above the child count", `{"type": "Parallel", "success": 3, "children": [{"type": "Success"}, {"type": "Success"}]}`, "success"),
		p("Parallel success 0", `{"type": "Parallel", "success": 0, "children": [{"type": "Success"}]}`, "success"),
		p("Parallel failure above the child count", `{"type": "Parallel", "failure": 3, "children": [{"type": "Success"}, {"type": "Success"}]}`, "failure"),
		p("Parallel retryFailed not a boolean", `{"type": "Parallel", "retryFailed": "yes", "children": [{"type": "Success"}]}`, "retryFailed"),
		p("ParallelAll maxFailures above the child count", `{"type": "ParallelAll", "maxFailures": 3, "children": [{"type": "Success"}, {"type": "Success"}]}`, "maxFailures"),
		p("ParallelAll maxFailures 0", `{"type": "ParallelAll", "maxFailures": 0, "children": [{"type": "Success"}]}`, "maxFailures"),
		p("Wait with both ticks and ms", `{"type": "Wait", "ticks": 1, "ms": 10}`, "ticks"),
		p("Wait with neither ticks nor ms", `{"type": "Wait"}`, "ticks"),
		p("Wait with negative ticks", `{"type": "Wait", "ticks": -1}`, "ticks"),
		p("Wait with fractional ticks", `{"type": "Wait", "ticks": 1.5}`, "ticks"),
		p("Wait with negative ms", `{"type": "Wait", "ms": -1}`, "ms"),
		p("RunOnce then running", `{"type": "RunOnce", "then": "running", "child": {"type": "Success"}}`, "then"),
		p("RunOnce then a number", `{"type": "RunOnce", "then": 1, "child": {"type": "Success"}}`, "then"),
		p("Check without key", `{"type": "Check", "op": "exists"}`, "key"),
		p("Check key not a string", `{"type": "Check", "key": 5, "op": "exists"}`, "key"),
		p("Check with an unknown op", `{"type": "Check", "key": "k", "op": "=~", "value": 1}`, "op"),
		p("Check without op", `{"type": "Check", "key": "k", "value": 1}`, "op"),
		p("Check exists with a value", `{"type": "Check", "key": "k", "op": "exists", "value": 1}`, "value"),
		p("Check missing with a value", `{"type": "Check", "key": "k", "op": "missing", "value": 1}`, "value"),
		p("Check == without value", `{"type": "Check", "key": "k", "op": "=="}`, "value"),
		p("Check < with a boolean value", `{"type": "Check", "key": "k", "op": "<", "value": true}`, "value"),
		p("Check >= with a list value", `{"type": "Check", "key": "k", "op": ">=", "value": [1]}`, "value"),
		p("Check with a misspelt parameter", `{"type": "Check", "key": "k", "op": "==", "value": 1, "vaule": 2}`, "vaule", "unknown parameter"),
		p("Check of the key @", `{"type": "Check", "key": "@", "op": "exists"}`, "key", `"@" names no key`),
		p("Set of the key @", `{"type": "Set", "key": "@", "value": 1}`, "key", `"@" names no key`),
		p("Set without value", `{"type": "Set", "key": "k"}`, "value"),
		p("Set without key", `{"type": "Set", "value": 1}`, "key"),
		p("Set with a negative ttlMs", `{"type": "Set", "key": "k", "value": 1, "ttlMs": -1}`, "ttlMs"),
		p("Set with ttlMs as a string", `{"type": "Set", "key": "k", "value": 1, "ttlMs": "x"}`, "ttlMs"),
		p("a parameter on Success", `{"type": "Success", "x": 1}`, "x", "unknown parameter"),
		p("a parameter on Sequence", `{"type": "Sequence", "foo": 1, "children": [{"type": "Success"}]}`, "foo", "unknown parameter"),
		p("a registered action missing its parameter", `{"type": "MoveTo"}`, "target", "missing"),
		p("a registered action with an unknown parameter", `{"type": "MoveTo", "target": "A", "speed": 2}`, "speed", "unknown parameter"),
		p("a registered action with a wrong parameter type", `{"type": "MoveTo", "target": 5}`, "target"),
	})
	for _, node := range []string{
		`{"type": "Repeat", "count": 0, "child": {"type": "Success"}}`,
		`{"type": "Repeat", "count": -1, "child": {"type": "Success"}}`,
		`{"type": "RetryUntilSuccessful", "attempts": -1, "child": {"type": "Success"}}`,
		`{"type": "RepeatUntilFailure", "child": {"type": "Success"}}`,
		`{"type": "Limiter", "max": -1, "child": {"type": "Success"}}`,
		`{"type": "Timeout", "ms": 0, "child": {"type": "Success"}}`,
		`{"type": "Parallel", "success": -1, "failure": -1, "children": [{"type": "Success"}, {"type": "Success"}]}`,
		`{"type": "Parallel", "success": 2, "failure": 2, "retryFailed": true, "children": [{"type": "Success"}, {"type": "Success"}]}`,
		`{"type": "ParallelAll", "maxFailures": -1, "children": [{"type": "Success"}]}`,
		`{"type": "Wait", "ticks": 0}`,
		`{"type": "Wait", "ms": 0}`,
		`{"type": "RunOnce", "then": "failure", "child": {"type": "Success"}}`,
		`{"type": "Check", "key": "k", "op": "<", "value": "b"}`,
		`{"type": "Check", "key": "k", "op": "<", "value": "{other}"}`,
		`{"type": "Check", "key": "k", "op": "==", "value": [1, {"a": null}]}`,
		`{"type": "Set", "key": "k", "value": {"a": [1, 2]}, "ttlMs": 0}`,
		`{"type": "Set", "key": "@k", "value": "{other}"}`,
		`{"type": "Success", "name": "ok", "comment": "ignored"}`,
		`{"type": "Inverter", "children": [{"type": "Failure"}]}`,
	} {
		t.Run("valid parameters load: "+node, func(t *testing.T) {
			if _, err := ldLoad(t, ldIn(node), false); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestLoadDocumentStructure(t *testing.T) {
	ldCheckErrors(t, []ldCase{
		{name: "a child that is not an object", src: ldGuardDoc(`{"type": "Sequence", "children": [{"type": "Success"}, 5]}`),
			want: []string{ldAt, "object"}},
		{name: "a node without type", src: ldIn(`{"name": "nameless"}`),
			want: []string{ldAt, "type"}},
		{name: "a type that is not a string", src: ldIn(`{"type": 5}`),
			want: []string{ldAt, "type"}},
		{name: "a name that is not a string", src: ldIn(`{"type": "Success", "name": 5}`),
			want: []string{ldAt, "Success", "name"}},
		{name: "children that are not a list", src: ldIn(`{"type": "Sequence", "children": {"type": "Success"}}`),
			want: []string{ldAt, "Sequence", "children"}},
		{name: "format of an unknown major version", src: `{"format": "arbor/2", "trees": {"A": {"type": "Success"}}}`,
			want: []string{"format", "arbor/2"}},
		{name: "format arbor/10", src: `{"format": "arbor/10", "trees": {"A": {"type": "Success"}}}`,
			want: []string{"format"}},
		{name: "format of another engine", src: `{"format": "b3/1", "trees": {"A": {"type": "Success"}}}`,
			want: []string{"format"}},
		{name: "format as a number", src: `{"format": 1, "trees": {"A": {"type": "Success"}}}`,
			want: []string{"format"}},
		{name: "main naming a missing tree", src: `{"main": "Patrol", "trees": {"Guard": {"type": "Success"}}}`,
			want: []string{"main", `"Patrol"`}},
		{name: "main as a number", src: `{"main": 5, "trees": {"Guard": {"type": "Success"}}}`,
			want: []string{"main"}},
		{name: "two trees and no main", src: `{"trees": {"B": {"type": "Success"}, "A": {"type": "Failure"}}}`,
			want: []string{"main", `2 trees ("A", "B")`}},
		{name: "no trees and no type", src: `{"format": "arbor/1", "main": "A"}`,
			want: []string{"trees"}},
		{name: "trees not an object", src: `{"trees": [{"type": "Success"}]}`,
			want: []string{"trees"}},
		{name: "no trees at all", src: `{"trees": {}}`,
			want: []string{"trees"}},
		{name: "a misspelt document key", src: `{"mian": "A", "trees": {"A": {"type": "Success"}}}`,
			want: []string{"mian", `did you mean "main"`}},
		{name: "a document that is a list", src: `[{"type": "Success"}]`,
			want: []string{"object"}},
		{name: "a tree root that is not an object", src: `{"trees": {"A": "Success"}}`,
			want: []string{"trees.A"}},
		{name: "format of an unknown major version in YAML", yaml: true, src: "format: arbor/2\ntrees:\n  A: {type: Success}\n",
			want: []string{"format"}},
		{name: "format of an unknown major version on a bare node", src: `{"format": "arbor/2", "type": "Success"}`,
			want: []string{"format", "arbor/2"}},
	})
	good := []struct {
		name string
		src  string
		yaml bool
		want arbor.Status
	}{
		{"format arbor/1", `{"format": "arbor/1", "main": "A", "trees": {"A": {"type": "Failure"}}}`, false, arbor.Failure},
		{"no format", `{"main": "A", "trees": {"A": {"type": "Failure"}}}`, false, arbor.Failure},
		{"main omitted with one tree", `{"trees": {"Only": {"type": "Failure"}}}`, false, arbor.Failure},
		{"main chooses among trees", `{"main": "B", "trees": {"A": {"type": "Success"}, "B": {"type": "Failure"}}}`, false, arbor.Failure},
		{"a comment and a description at the top", `{"comment": "c", "description": "d", "trees": {"A": {"type": "Failure"}}}`, false, arbor.Failure},
		{"a bare node document", `{"type": "Sequence", "children": [{"type": "Set", "key": "k", "value": 1}, {"type": "Check", "key": "k", "op": "==", "value": 1}]}`, false, arbor.Success},
		{"a bare node document in YAML", "type: Sequence\nchildren:\n  - {type: Set, key: k, value: 1}\n  - {type: Check, key: k, op: '==', value: 1}\n", true, arbor.Success},
		{"a bare leaf document", `{"type": "Failure"}`, false, arbor.Failure},
		// The document's format on a bare node is the document's, not a
		// parameter of the node (Failure takes none).
		{"a bare node document with a format", `{"format": "arbor/1", "type": "Failure"}`, false, arbor.Failure},
		{"a bare node document with a format in YAML", "format: arbor/1.2\ntype: Failure\n", true, arbor.Failure},
	}
	for _, c := range good {
		t.Run(c.name, func(t *testing.T) {
			tree, err := ldLoad(t, c.src, c.yaml)
			if err != nil {
				t.Fatal(err)
			}
			if s := arbor.NewAgent(tree).Tick(0); s != c.want {
				t.Fatalf("tick: %v, want %v", s, c.want)
			}
		})
	}
	t.Run("every problem of a document is reported, each with its path", func(t *testing.T) {
		// A SubTree naming a missing tree is reported with the others
		// (it was reported only once every other problem was fixed).
		_, err := ldLoad(t, ldGuardDoc(`{"type": "Sequence", "children": [{"type": "Inverter"}, {"type": "Atack"}, {"type": "Repeat", "count": "x", "child": {"type": "Success"}}, {"type": "SubTree", "tree": "Fihgt"}, {"type": "Wiat"}]}`, `"Fight": {"type": "Success"}`), false)
		var les arbor.LoadErrors
		if !errors.As(err, &les) {
			t.Fatalf("error %v is not LoadErrors", err)
		}
		var paths []string
		for _, e := range les {
			paths = append(paths, e.Path)
		}
		want := []string{"trees.Guard.children[0]", "trees.Guard.children[1]", "trees.Guard.children[2]", "trees.Guard.children[3]", "trees.Guard.children[4]"}
		if !reflect.DeepEqual(paths, want) {
			t.Errorf("errors at %q, want one at each of %q, in document order: %v", paths, want, err)
		}
		if !strings.Contains(les[3].Msg, `missing tree "Fihgt" (did you mean "Fight"?)`) {
			t.Errorf("SubTree error: %v", les[3])
		}
	})
}

// Load errors come tree by tree in the order of the file, not of the
// trees' names.
func TestLoadErrorsInFileOrder(t *testing.T) {
	doc, err := arbor.ParseYAML([]byte(`
main: Zed
trees:
  Zed: { type: Sequence, children: [ { type: Atack }, { type: SubTree, tree: Alpha } ] }
  Mid: { type: Wiat }
  Alpha: { type: Sucess }
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = arbor.Compile(doc, nil)
	var les arbor.LoadErrors
	if !errors.As(err, &les) {
		t.Fatalf("error %v is not LoadErrors", err)
	}
	var paths []string
	for _, e := range les {
		paths = append(paths, e.Path)
	}
	if want := []string{"trees.Zed.children[0]", "trees.Mid", "trees.Alpha"}; !reflect.DeepEqual(paths, want) {
		t.Errorf("errors at %q, want %q: %v", paths, want, err)
	}
}

func TestLoadSyntax(t *testing.T) {
	parseErr := []struct {
		name string
		src  string
		yaml bool
		want string
	}{
		{"a duplicate key in a JSON node", `{"type": "Wait", "ticks": 1, "ticks": 2}`, false, "duplicate"},
		{"a duplicate type key in JSON", `{"type": "Success", "type": "Failure"}`, false, "duplicate"},
		{"a duplicate tree name in JSON", `{"trees": {"A": {"type": "Success"}, "A": {"type": "Failure"}}}`, false, "duplicate"},
		{"a duplicate document key in JSON", `{"main": "A", "main": "B", "trees": {"A": {"type": "Success"}}}`, false, "duplicate"},
		{"a duplicate key in a YAML node", "type: Wait\nticks: 1\nticks: 2\n", true, "duplicate"},
		{"a duplicate tree name in YAML", "trees:\n  A: {type: Success}\n  A: {type: Failure}\n", true, "duplicate"},
		{"a duplicate key in a YAML flow mapping", "{type: Success, type: Failure}\n", true, "duplicate"},
		{"trailing garbage after JSON", `{"type": "Success"} x`, false, ""},
		{"a second JSON object", `{"type": "Success"}{"type": "Failure"}`, false, ""},
		{"a stray closing brace", `{"type": "Success"}}`, false, ""},
		{"a trailing comma", `{"type": "Success"},`, false, ""},
		{"a comment after JSON", "{\"type\": \"Success\"}\n// done\n", false, ""},
		{"a second YAML document", "type: Success\n---\ntype: Failure\n", true, ""},
		{"YAML garbage after the document end", "type: Success\n...\ngarbage: [\n", true, ""},
		{"an empty JSON document", ``, false, ""},
		{"an empty YAML document", ``, true, ""},
		{"truncated JSON", `{"type": "Sequence", "children": [`, false, ""},
		{"a bad JSON literal", `{"type": "Success", "name": tru}`, false, ""},
	}
	for _, c := range parseErr {
		t.Run(c.name, func(t *testing.T) {
			tree, err := ldLoad(t, c.src, c.yaml)
			if err == nil {
				t.Fatalf("loaded (%d nodes); want an error", tree.Len())
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("message %q does not contain %q", err, c.want)
			}
		})
	}
	// format.md: all loading rules are reported with the path of the
	// offending node, and the message contains the path and the type.
	dupPath := []struct {
		name string
		src  string
		yaml bool
	}{
		{"JSON", ldIn(`{"type": "Wait", "ticks": 1, "ticks": 2}`), false},
		{"YAML", "main: Guard\ntrees:\n  Guard:\n    type: Sequence\n    children:\n      - type: Success\n      - type: Wait\n        ticks: 1\n        ticks: 2\n", true},
	}
	for _, c := range dupPath {
		t.Run("a duplicate key's error has the node's path and type: "+c.name, func(t *testing.T) {
			_, err := ldLoad(t, c.src, c.yaml)
			if err == nil {
				t.Fatal("loaded; want a duplicate key error")
			}
			for _, w := range []string{ldAt, "Wait", "duplicate", "ticks"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not contain %q", err, w)
				}
			}
		})
	}
}

// ldNested returns a bare node document of n nested Inverters around a
// Success leaf, written with "child".
func ldNested(n int) string {
	return strings.Repeat(`{"type": "Inverter", "child": `, n) + `{"type": "Success"}` + strings.Repeat(`}`, n)
}

func TestLoadLimits(t *testing.T) {
	for _, yaml := range []bool{false, true} {
		lang := map[bool]string{false: "JSON", true: "YAML"}[yaml]
		t.Run(lang+": nesting well within the default depth of 256 loads", func(t *testing.T) {
			tree, err := ldLoad(t, ldNested(200), yaml)
			if err != nil {
				t.Fatal(err)
			}
			// 200 inverters: an even number, so the result is Success's.
			if s := arbor.NewAgent(tree).Tick(0); s != arbor.Success {
				t.Fatalf("tick: %v", s)
			}
		})
		t.Run(lang+": nesting deeper than 256 is a load error", func(t *testing.T) {
			_, err := ldLoad(t, ldNested(300), yaml)
			if err == nil {
				t.Fatal("loaded; want a depth error")
			}
			if !strings.Contains(err.Error(), "256") {
				t.Errorf("message %q does not mention the limit", err)
			}
		})
		t.Run(lang+": a configured depth limit", func(t *testing.T) {
			if _, err := arbor.ParseDocument([]byte(ldNested(4)), yaml, arbor.Limits{MaxDepth: 8}); err != nil {
				t.Fatalf("within the limit: %v", err)
			}
			if _, err := arbor.ParseDocument([]byte(ldNested(20)), yaml, arbor.Limits{MaxDepth: 8}); err == nil {
				t.Fatal("over the limit: loaded")
			}
		})
		t.Run(lang+": a configured size limit", func(t *testing.T) {
			src := []byte(`{"type": "Success", "name": "` + strings.Repeat("x", 100) + `"}`)
			if _, err := arbor.ParseDocument(src, yaml, arbor.Limits{MaxBytes: len(src)}); err != nil {
				t.Fatalf("at the limit: %v", err)
			}
			if _, err := arbor.ParseDocument(src, yaml, arbor.Limits{MaxBytes: len(src) - 1}); err == nil {
				t.Fatal("over the limit: loaded")
			}
		})
	}
	t.Run("Go-built definitions: nesting depth 256, and cycles stop", func(t *testing.T) {
		chain := func(n int) *arbor.Node {
			node := arbor.AlwaysSuccess()
			for i := 1; i < n; i++ {
				node = arbor.Inverter(node)
			}
			return node
		}
		compile := func(root *arbor.Node, o ...arbor.CompileOptions) error {
			_, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"t": root}}, nil, o...)
			return err
		}
		if err := compile(chain(256)); err != nil {
			t.Fatalf("256 nodes deep: %v", err)
		}
		if err := compile(chain(257)); err == nil || !strings.Contains(err.Error(), "nesting depth over the limit of 256") {
			t.Fatalf("257 nodes deep: %v", err)
		}
		if err := compile(chain(300), arbor.CompileOptions{MaxDepth: 300}); err != nil {
			t.Fatalf("300 nodes deep with MaxDepth 300: %v", err)
		}
		loop := arbor.Sequence(arbor.AlwaysSuccess())
		loop.Children = append(loop.Children, loop)
		if err := compile(loop); err == nil || !strings.Contains(err.Error(), "cycle") {
			t.Fatalf("a node that is its own child: %v", err)
		}
		// Below a node of unknown type the compiler still looks for
		// errors, each definition once: a cycle there stops at once, and
		// a definition sharing its nodes (2^30 paths) does not take
		// forever.
		unknown := &arbor.Node{Type: "Pipeline"}
		unknown.Children = []*arbor.Node{unknown}
		var les arbor.LoadErrors
		if err := compile(unknown); !errors.As(err, &les) || len(les) != 2 {
			t.Fatalf("an unknown node that is its own child: %v", err)
		}
		shared := arbor.AlwaysSuccess()
		for i := 0; i < 30; i++ {
			shared = &arbor.Node{Type: "Pipeline", Children: []*arbor.Node{shared, shared}}
		}
		if err := compile(shared); !errors.As(err, &les) || len(les) != 59 {
			t.Fatalf("shared nodes below unknown ones: %d errors: %v", len(les), err)
		}
	})
	t.Run("DecodeDocument of a map that contains itself", func(t *testing.T) {
		m := map[string]any{"type": "Inverter"}
		m["child"] = m
		if _, err := arbor.DecodeDocument(m); err == nil || !strings.Contains(err.Error(), "contain itself") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a very deep document is rejected without crashing", func(t *testing.T) {
		deep := strings.Repeat("[", 1_000_000)
		if _, err := arbor.ParseJSON([]byte(deep)); err == nil {
			t.Fatal("loaded")
		}
		if _, err := arbor.ParseYAML([]byte(deep)); err == nil {
			t.Fatal("loaded as YAML")
		}
	})
	t.Run("files over 16 MiB are refused", func(t *testing.T) {
		dir := t.TempDir()
		body := `{"type": "Success"}`
		ok := filepath.Join(dir, "ok.json")
		big := filepath.Join(dir, "big.json")
		if err := os.WriteFile(ok, []byte(body+strings.Repeat(" ", 16<<20-len(body))), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(big, []byte(body+strings.Repeat(" ", 16<<20-len(body)+1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := arbor.LoadFile(ok); err != nil {
			t.Fatalf("a 16 MiB file: %v", err)
		}
		if _, err := arbor.LoadFile(big); err == nil {
			t.Fatal("a file of 16 MiB + 1 byte loaded")
		}
	})
	t.Run("a configured node limit after inlining", func(t *testing.T) {
		doc := &arbor.Document{Trees: map[string]*arbor.Node{"main": arbor.Sequence(arbor.AlwaysSuccess(), arbor.AlwaysSuccess(), arbor.AlwaysSuccess(), arbor.AlwaysSuccess())}}
		if _, err := arbor.Compile(doc, nil, arbor.CompileOptions{MaxNodes: 5}); err != nil {
			t.Fatalf("5 nodes with a limit of 5: %v", err)
		}
		if _, err := arbor.Compile(doc, nil, arbor.CompileOptions{MaxNodes: 4}); err == nil {
			t.Fatal("5 nodes with a limit of 4: compiled")
		} else if want := "trees.main: the tree has 5 nodes after subtree inlining, over the limit of 4 [Sequence]"; err.Error() != want {
			t.Fatalf("5 nodes with a limit of 4: %v, want %s", err, want)
		}
	})
	t.Run("exponential subtree inlining hits the default limit of 100,000 nodes", func(t *testing.T) {
		trees := map[string]*arbor.Node{}
		for i := 0; i < 40; i++ {
			next := fmt.Sprintf("t%d", i+1)
			trees[fmt.Sprintf("t%d", i)] = arbor.Sequence(arbor.SubTree(next), arbor.SubTree(next))
		}
		trees["t40"] = arbor.AlwaysSuccess()
		// Counting stops at the limit: 2^40 nodes are never walked (the
		// test would not end).
		_, err := arbor.Compile(&arbor.Document{Main: "t0", Trees: trees}, nil)
		if err == nil {
			t.Fatal("compiled 2^40 nodes")
		}
		if !strings.Contains(err.Error(), "over the limit of 100000 (100,000)") {
			t.Errorf("message %q does not give the limit", err)
		}
	})
	t.Run("a large tree under the node limit compiles", func(t *testing.T) {
		// Each level is a Sequence of two SubTrees of the next: level k
		// has 2^(levels-k+2) - 3 nodes, so 14 levels give 65,533.
		trees := map[string]*arbor.Node{}
		const levels = 14
		for i := 0; i < levels; i++ {
			next := fmt.Sprintf("t%d", i+1)
			trees[fmt.Sprintf("t%d", i)] = arbor.Sequence(arbor.SubTree(next), arbor.SubTree(next))
		}
		trees[fmt.Sprintf("t%d", levels)] = arbor.AlwaysSuccess()
		tree, err := arbor.Compile(&arbor.Document{Main: "t0", Trees: trees}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tree.Len() > arbor.DefaultMaxNodes {
			t.Fatalf("%d nodes", tree.Len())
		}
	})
}

// ldExampleJSON is the document of format.md.
const ldExampleJSON = `{
  "format": "arbor/1",
  "main": "Guard",
  "trees": {
    "Guard":  { "type": "ReactiveSelector", "children": [
                  { "type": "SubTree", "tree": "Fight" },
                  { "type": "SubTree", "tree": "Patrol" } ] },
    "Fight":  { "type": "Sequence", "abort": "lower", "children": [
                  { "type": "Check", "key": "enemyVisible", "op": "==", "value": true },
                  { "type": "Attack", "name": "attack enemy" } ] },
    "Patrol": { "type": "Sequence", "children": [
                  { "type": "MoveTo", "target": "A" }, { "type": "Wait", "ticks": 2 },
                  { "type": "MoveTo", "target": "B" }, { "type": "Wait", "ticks": 2 } ] }
  }
}`

const ldExampleYAML = `format: arbor/1
main: Guard
trees:
  Guard:
    type: ReactiveSelector
    children:
      - type: SubTree
        tree: Fight
      - type: SubTree
        tree: Patrol
  Fight:
    type: Sequence
    abort: lower
    children:
      - type: Check
        key: enemyVisible
        op: "=="
        value: true
      - type: Attack
        name: attack enemy
  Patrol:
    type: Sequence
    children:
      - { type: MoveTo, target: A }
      - { type: Wait, ticks: 2 }
      - { type: MoveTo, target: B }
      - { type: Wait, ticks: 2 }
`

func TestLoadYAMLEquivalentToJSON(t *testing.T) {
	jt, err := ldLoad(t, ldExampleJSON, false)
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	variants := []struct {
		name string
		src  string
	}{
		{"block YAML", ldExampleYAML},
		{"the JSON text read as YAML", ldExampleJSON},
	}
	for _, v := range variants {
		t.Run(v.name+" compiles to the same tree", func(t *testing.T) {
			yt, err := ldLoad(t, v.src, true)
			if err != nil {
				t.Fatalf("YAML: %v", err)
			}
			if jt.Len() != yt.Len() || jt.Name() != yt.Name() {
				t.Fatalf("JSON tree %q has %d nodes, YAML tree %q %d", jt.Name(), jt.Len(), yt.Name(), yt.Len())
			}
			for i := 0; i < jt.Len(); i++ {
				if j, y := jt.Node(i), yt.Node(i); !reflect.DeepEqual(j, y) {
					t.Errorf("node %d:\n JSON %+v\n YAML %+v", i, j, y)
				}
			}
		})
		t.Run(v.name+" behaves the same", func(t *testing.T) {
			yt, err := ldLoad(t, v.src, true)
			if err != nil {
				t.Fatal(err)
			}
			trace := func(tree *arbor.Tree) []string {
				var out []string
				a := arbor.NewAgent(tree, arbor.WithTracer(func(a *arbor.Agent, e arbor.Event) {
					out = append(out, fmt.Sprintf("%s:%v:%v", a.Tree().Node(int(e.Node)).Label(), e.Kind, e.Status))
				}))
				for i := 0; i < 12; i++ {
					if i == 5 {
						a.Blackboard().Set("enemyVisible", true)
					}
					if i == 8 {
						a.Blackboard().Set("enemyVisible", false)
					}
					out = append(out, fmt.Sprintf("tick %d: %v at %v", i, a.Tick(time.Duration(i)*time.Millisecond), a.Blackboard().Value("at")))
				}
				return out
			}
			j, y := trace(jt), trace(yt)
			if !reflect.DeepEqual(j, y) {
				t.Fatalf("traces differ:\n JSON %q\n YAML %q", j, y)
			}
		})
	}
	t.Run("the example runs: patrol, then the attack pre-empts it", func(t *testing.T) {
		a := arbor.NewAgent(jt)
		if s := a.Tick(0); s != arbor.Running {
			t.Fatalf("tick 0: %v", s)
		}
		if v := a.Blackboard().Value("at"); !v.Equal(arbor.String("A")) {
			t.Fatalf("at = %v, want A", v)
		}
		a.Blackboard().Set("enemyVisible", true)
		attack := -1
		for i := 0; i < jt.Len(); i++ {
			if jt.Node(i).Label() == "attack enemy" {
				attack = i
			}
		}
		if s := a.Tick(time.Millisecond); s != arbor.Running || !a.Running(attack) {
			t.Fatalf("tick 1: %v, attack running %v", s, a.Running(attack))
		}
	})
}

func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	files := []struct {
		name, body string
		ok         bool
	}{
		{"tree.json", ldExampleJSON, true},
		{"tree.yaml", ldExampleYAML, true},
		{"tree.yml", ldExampleYAML, true},
		{"yaml-in.json", ldExampleYAML, false},
		{"bad.json", ldGuardDoc(`{"type": "Atack"}`), false},
	}
	for _, f := range files {
		t.Run(f.name, func(t *testing.T) {
			p := write(f.name, f.body)
			tree, err := arbor.LoadTree(p, ldRegistry(t))
			if f.ok && (err != nil || tree.Len() == 0) {
				t.Fatalf("LoadTree: %v", err)
			}
			if !f.ok {
				if err == nil {
					t.Fatal("loaded")
				}
				if !strings.Contains(err.Error(), p) {
					t.Errorf("message %q does not name the file", err)
				}
			}
		})
	}
	t.Run("a missing file", func(t *testing.T) {
		if _, err := arbor.LoadFile(filepath.Join(dir, "nope.json")); err == nil {
			t.Fatal("loaded")
		}
	})
	t.Run("DecodeDocument reads plain Go values", func(t *testing.T) {
		var v any
		if err := json.Unmarshal([]byte(ldExampleJSON), &v); err != nil {
			t.Fatal(err)
		}
		doc, err := arbor.DecodeDocument(v)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := arbor.Compile(doc, ldRegistry(t))
		if err != nil {
			t.Fatal(err)
		}
		jt, _ := ldLoad(t, ldExampleJSON, false)
		if tree.Len() != jt.Len() {
			t.Fatalf("%d nodes, want %d", tree.Len(), jt.Len())
		}
	})
}

func TestBuilder(t *testing.T) {
	ms := time.Millisecond
	type step struct {
		now  time.Duration
		set  map[string]any
		want arbor.Status
	}
	S, F, R := arbor.Success, arbor.Failure, arbor.Running
	at := func(now time.Duration, want arbor.Status) step { return step{now: now, want: want} }
	seq := func(ss ...arbor.Status) []step {
		out := make([]step, len(ss))
		for i, s := range ss {
			out[i] = step{now: time.Duration(i) * ms, want: s}
		}
		return out
	}
	cases := []struct {
		name   string
		root   *arbor.Node
		steps  []step
		check  string // blackboard key that must hold val at the end
		val    arbor.Value
		extra  map[string]*arbor.Node
		bbInit map[string]any
	}{
		{name: "Sequence of Set and Check", root: arbor.Sequence(arbor.Set("a", 1), arbor.Check("a", "==", 1), arbor.Set("b", true)),
			steps: seq(S), check: "b", val: arbor.Bool(true)},
		{name: "Sequence stops at a failure", root: arbor.Sequence(arbor.Check("a", "exists"), arbor.Set("b", true)),
			steps: seq(F), check: "b", val: arbor.Value{}},
		{name: "Selector falls back", root: arbor.Selector(arbor.Check("a", ">", 5), arbor.Set("fallback", "yes")),
			steps: seq(S), check: "fallback", val: arbor.String("yes")},
		{name: "SequenceWithMemory resumes at the failed child", root: arbor.SequenceWithMemory(arbor.Set("n", 1), arbor.Check("go", "==", true)),
			steps: []step{at(0, F), {now: ms, set: map[string]any{"n": 0, "go": true}, want: S}}, check: "n", val: arbor.Number(0)},
		{name: "ReactiveSequence", root: arbor.ReactiveSequence(arbor.Check("go", "==", true), arbor.AlwaysRunning()),
			steps: []step{{now: 0, set: map[string]any{"go": true}, want: R}, {now: ms, set: map[string]any{"go": false}, want: F}}},
		{name: "ReactiveSelector", root: arbor.ReactiveSelector(arbor.Check("go", "==", true), arbor.AlwaysRunning()),
			steps: []step{at(0, R), {now: ms, set: map[string]any{"go": true}, want: S}}},
		{name: "Parallel with one success needed", root: arbor.Parallel(1, 0, arbor.WaitTicks(1), arbor.AlwaysRunning()),
			steps: seq(R, S)},
		{name: "Parallel of all", root: arbor.Parallel(-1, 0, arbor.WaitTicks(1), arbor.AlwaysSuccess()),
			steps: seq(R, S)},
		{name: "ParallelAll with a failure", root: arbor.ParallelAll(1, arbor.AlwaysFailure(), arbor.WaitTicks(1)),
			steps: seq(R, F)},
		{name: "ParallelAll tolerating failures", root: arbor.ParallelAll(-1, arbor.AlwaysFailure(), arbor.WaitTicks(1)),
			steps: seq(R, S)},
		{name: "Inverter", root: arbor.Inverter(arbor.AlwaysSuccess()), steps: seq(F)},
		{name: "ForceSuccess", root: arbor.ForceSuccess(arbor.AlwaysFailure()), steps: seq(S)},
		{name: "ForceFailure", root: arbor.ForceFailure(arbor.AlwaysSuccess()), steps: seq(F)},
		{name: "Repeat three times", root: arbor.Repeat(3, arbor.AlwaysSuccess()), steps: seq(R, R, S, R)},
		{name: "RetryUntilSuccessful", root: arbor.RetryUntilSuccessful(2, arbor.AlwaysFailure()), steps: seq(R, F)},
		{name: "RepeatUntilFailure with a max", root: arbor.RepeatUntilFailure(2, arbor.AlwaysSuccess()), steps: seq(R, F)},
		{name: "RepeatUntilFailure until failure", root: arbor.RepeatUntilFailure(-1, arbor.Check("go", "exists")),
			steps: []step{{now: 0, set: map[string]any{"go": 1}, want: R}, {now: ms, set: map[string]any{"go": nil}, want: S}}},
		{name: "Timeout", root: arbor.Timeout(100*ms, arbor.AlwaysRunning()), steps: []step{at(0, R), at(99*ms, R), at(100*ms, F)}},
		{name: "Delay", root: arbor.Delay(100*ms, arbor.AlwaysSuccess()), steps: []step{at(0, R), at(99*ms, R), at(100*ms, S)}},
		{name: "Cooldown", root: arbor.Cooldown(100*ms, arbor.AlwaysSuccess()), steps: []step{at(0, S), at(50*ms, F), at(99*ms, F), at(100*ms, S)}},
		{name: "Limiter", root: arbor.Limiter(2, arbor.AlwaysSuccess()), steps: seq(S, S, F, F)},
		{name: "RunOnce", root: arbor.RunOnce(arbor.WaitTicks(1)), steps: seq(R, S, S, S)},
		{name: "WaitTicks", root: arbor.WaitTicks(2), steps: seq(R, R, S)},
		{name: "WaitFor", root: arbor.WaitFor(10 * ms), steps: []step{at(0, R), at(9*ms, R), at(10*ms, S)}},
		{name: "AlwaysRunning", root: arbor.AlwaysRunning(), steps: seq(R, R)},
		{name: "Check exists and missing", root: arbor.Sequence(arbor.Check("a", "missing"), arbor.Set("a", 1), arbor.Check("a", "exists")), steps: seq(S, F)},
		{name: "Check against a {key}", root: arbor.Check("hp", "<", "{max}"), bbInit: map[string]any{"hp": 3, "max": 5}, steps: seq(S)},
		{name: "Set with a {key}", root: arbor.Set("copy", "{orig}"), bbInit: map[string]any{"orig": "v"}, steps: seq(S), check: "copy", val: arbor.String("v")},
		{name: "Leaf with parameters", root: arbor.Leaf("Wait", "ticks", 1), steps: seq(R, S)},
		{name: "With sets a parameter", root: arbor.Set("k", 1).With("ttlMs", 5), steps: []step{at(0, S)}, check: "k", val: arbor.Number(1)},
		{name: "SubTree", root: arbor.Sequence(arbor.SubTree("inner"), arbor.Set("after", true)),
			extra: map[string]*arbor.Node{"inner": arbor.WaitTicks(1)}, steps: seq(R, S), check: "after", val: arbor.Bool(true)},
		{name: "WithGuard", root: arbor.Set("x", 1).WithGuard(arbor.Check("go", "==", true)),
			steps: []step{at(0, F), {now: ms, set: map[string]any{"go": true}, want: S}}, check: "x", val: arbor.Number(1)},
		{name: "without an abort the patrol keeps running",
			root:  arbor.Selector(arbor.Sequence(arbor.Check("threat", "exists"), arbor.Set("fought", true)), arbor.AlwaysRunning()),
			steps: []step{at(0, R), {now: ms, set: map[string]any{"threat": 1}, want: R}}, check: "fought", val: arbor.Value{}},
		{name: "WithAbort lower pre-empts the patrol",
			root:  arbor.Selector(arbor.Sequence(arbor.Check("threat", "exists"), arbor.Set("fought", true)).WithAbort(arbor.AbortLower), arbor.AlwaysRunning()),
			steps: []step{at(0, R), {now: ms, set: map[string]any{"threat": 1}, want: S}}, check: "fought", val: arbor.Bool(true)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			trees := map[string]*arbor.Node{"main": c.root}
			for k, v := range c.extra {
				trees[k] = v
			}
			tree, err := arbor.Compile(&arbor.Document{Main: "main", Trees: trees}, nil)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			a := arbor.NewAgent(tree, arbor.WithErrorHandler(func(e *arbor.NodeError) { t.Errorf("node error: %v", e) }))
			for k, v := range c.bbInit {
				a.Blackboard().Set(k, v)
			}
			for i, s := range c.steps {
				for k, v := range s.set {
					a.Blackboard().Set(k, v)
				}
				if got := a.Tick(s.now); got != s.want {
					t.Fatalf("tick %d (t=%v): %v, want %v", i, s.now, got, s.want)
				}
			}
			if c.check != "" {
				if v := a.Blackboard().Value(c.check); !v.Equal(c.val) {
					t.Fatalf("%s = %v, want %v", c.check, v, c.val)
				}
			}
		})
	}
	t.Run("Named, WithGuard and WithAbort show in the compiled tree", func(t *testing.T) {
		guard := arbor.Check("ok", "==", true)
		root := arbor.Selector(arbor.AlwaysSuccess().Named("first")).Named("root").WithAbort(arbor.AbortSelf).WithGuard(guard)
		tree, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": root}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := tree.Node(0)
		if n.Name != "root" || n.Type != "Selector" || n.Abort != arbor.AbortSelf || n.Guard < 0 {
			t.Fatalf("root = %+v", n)
		}
		if g := tree.Node(n.Guard); g.Type != "Check" || g.GuardOf != 0 {
			t.Fatalf("guard = %+v", g)
		}
		if k := tree.Node(n.Children[0]); k.Name != "first" || k.Label() != "first" || k.Parent != 0 {
			t.Fatalf("child = %+v", k)
		}
	})
	builderErrs := []struct {
		name string
		root *arbor.Node
		want []string
	}{
		{"Repeat with a negative count", arbor.Repeat(-5, arbor.AlwaysSuccess()), []string{"trees.main", "Repeat", `"count"`}},
		{"Check ordering a boolean", arbor.Sequence(arbor.Check("k", "<", true)), []string{"trees.main.children[0]", "Check", `"value"`}},
		{"a Parallel threshold above the child count", arbor.Parallel(3, 0, arbor.AlwaysSuccess()), []string{"trees.main", "Parallel", `"success"`}},
		{"a Sequence without children", arbor.Sequence(), []string{"trees.main", "Sequence", "children"}},
		{"an abort on a Parallel", arbor.Parallel(-1, 0, arbor.AlwaysSuccess()).WithAbort(arbor.AbortSelf), []string{"trees.main", "Parallel", "abort"}},
		{"an action in a guard", arbor.AlwaysSuccess().WithGuard(arbor.WaitTicks(1)), []string{"trees.main.guard", "Wait", "guard"}},
		{"a nil child", arbor.Inverter(nil), []string{"trees.main"}},
		{"a SubTree naming a missing tree", arbor.SubTree("nowhere"), []string{"trees.main", "SubTree", "nowhere"}},
		{"a negative Timeout", arbor.Timeout(-time.Millisecond, arbor.AlwaysRunning()), []string{"trees.main", "Timeout", `"ms"`}},
	}
	for _, c := range builderErrs {
		t.Run("builder load error: "+c.name, func(t *testing.T) {
			_, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": c.root}}, nil)
			if err == nil {
				t.Fatal("compiled")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not contain %q", err, w)
				}
			}
		})
	}
	t.Run("a nil document or registry", func(t *testing.T) {
		if _, err := arbor.Compile(nil, nil); err == nil {
			t.Fatal("compiled a nil document")
		}
		if _, err := arbor.Compile(&arbor.Document{}, nil); err == nil {
			t.Fatal("compiled an empty document")
		}
	})
}

// The depth limit counts nodes: a tree 200 nodes deep written with
// children lists (two JSON levels a node) loads; 300 deep does not.
func TestNodeDepthLimitCountsNodes(t *testing.T) {
	deep := func(n int) []byte {
		s := `{"type": "Success"}`
		for i := 0; i < n-1; i++ {
			s = `{"type": "Sequence", "children": [` + s + `]}`
		}
		return []byte(s)
	}
	if _, err := arbor.ParseJSON(deep(200)); err != nil {
		t.Fatalf("200 nodes deep: %v", err)
	}
	_, err := arbor.ParseJSON(deep(300))
	if err == nil || !strings.Contains(err.Error(), "depth") {
		t.Fatalf("300 nodes deep: %v, want a depth error", err)
	}
}

func TestCanonicalType(t *testing.T) {
	for alias, want := range map[string]string{"Fallback": "Selector", "MaxTime": "Timeout", "Sequence": "Sequence", "Attack": "Attack"} {
		if got := arbor.CanonicalType(alias); got != want {
			t.Errorf("CanonicalType(%q) = %q, want %q", alias, got, want)
		}
	}
}

// A duplicate key of a bare root node is reported once, with the node's
// path.
func TestBareNodeDuplicateKeyReportedOnce(t *testing.T) {
	for _, src := range []struct {
		data string
		yaml bool
	}{
		{`{"type": "Sequence", "type": "Selector", "children": [{"type": "Success"}]}`, false},
		{"type: Sequence\ntype: Selector\nchildren: [{type: Success}]\n", true},
	} {
		parse := arbor.ParseJSON
		if src.yaml {
			parse = arbor.ParseYAML
		}
		_, err := parse([]byte(src.data))
		var le arbor.LoadErrors
		if !errors.As(err, &le) || len(le) != 1 || !strings.Contains(le[0].Error(), "trees.root: duplicate key \"type\" [Sequence") {
			t.Errorf("%q: %v", src.data, err)
		}
	}
}
