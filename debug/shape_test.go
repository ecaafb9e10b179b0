package debug

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format"
)

// More paths of testTrees' sentry (pathNoise and the others: edit_test.go).
const (
	pathRoot      = "Sentry"                         // Selector, node 0
	pathInvest    = "Sentry.children[0]"             // investigate, node 1
	pathInvestSet = "Sentry.children[0].children[1]" // Set mode investigating, node 3
	pathPatrol    = "Sentry.children[1]"             // patrol, node 5
	pathPatrolSet = "Sentry.children[1].children[0]" // Set mode patrolling, node 6
)

// shapeEdit posts a shape edit of tree tid.
func shapeEdit(t *testing.T, h http.Handler, tid any, body string) (int, map[string]any) {
	t.Helper()
	return do(t, h, "POST", fmt.Sprintf("/api/trees/%v/shape", tid), body, controlHeaders)
}

// redoEdit posts a redo of tree tid's last edit undone.
func redoEdit(t *testing.T, h http.Handler, tid any) (int, map[string]any) {
	t.Helper()
	return do(t, h, "POST", fmt.Sprintf("/api/trees/%v/redo", tid), "", controlHeaders)
}

// undoEdit posts an undo of tree tid's last edit.
func undoEdit(t *testing.T, h http.Handler, tid any) (int, map[string]any) {
	t.Helper()
	return do(t, h, "POST", fmt.Sprintf("/api/trees/%v/undo", tid), "", controlHeaders)
}

// outline writes tree t's shape: each node's label, its guard in [ ] and
// its children in ( ).
func outline(t *arbor.Tree) string {
	var b strings.Builder
	var walk func(i int)
	walk = func(i int) {
		n := t.Node(i)
		b.WriteString(n.Label())
		if n.Guard >= 0 {
			b.WriteString("[")
			walk(n.Guard)
			b.WriteString("]")
		}
		if len(n.Children) > 0 {
			b.WriteString("(")
			for j, k := range n.Children {
				if j > 0 {
					b.WriteString(" ")
				}
				walk(k)
			}
			b.WriteString(")")
		}
	}
	walk(0)
	return b.String()
}

// The sentry's outline before any edit.
const sentryOutline = "Selector(investigate(Check Set Wait) patrol[Check](Set Wait Step SubTree(Wait)))"

// checkIDs checks an edit's id map from tree old to tree nt: every node
// kept maps to a node of the same type and name, and deleted nodes
// (want of them) map to -1.
func checkIDs(t *testing.T, ans map[string]any, old, nt *arbor.Tree, deleted int) {
	t.Helper()
	raw, _ := ans["ids"].([]any)
	if len(raw) != old.Len() {
		t.Fatalf("ids %v: want %d entries", ans["ids"], old.Len())
	}
	gone := 0
	seen := map[int]bool{}
	for i, v := range raw {
		j := int(v.(float64))
		if j < 0 {
			gone++
			continue
		}
		if seen[j] {
			t.Errorf("ids: two nodes map to %d", j)
		}
		seen[j] = true
		a, b := old.Node(i), nt.Node(j)
		if a.Type != b.Type || a.Name != b.Name || fmt.Sprint(a.Params) != fmt.Sprint(b.Params) {
			t.Errorf("ids: node %d (%s %q %v) → %d (%s %q %v)", i, a.Type, a.Name, a.Params, j, b.Type, b.Name, b.Params)
		}
	}
	if gone != deleted {
		t.Errorf("ids %v: %d nodes gone, want %d", raw, gone, deleted)
	}
}

// Each shape operation changes the tree every agent of the sentry runs,
// keeps the old tree's Document as it was, maps the nodes kept to their
// new ids and names the node to select.
func TestShapeOps(t *testing.T) {
	for _, c := range []struct {
		name, body, want, sel string
		deleted               int
	}{
		{"add last", `{"op": "add", "path": "` + pathPatrol + `", "node": {"type": "Step", "name": "again"}}`,
			"Selector(investigate(Check Set Wait) patrol[Check](Set Wait Step SubTree(Wait) again))", "Sentry.children[1].children[4]", 0},
		{"add first", `{"op": "add", "path": "` + pathInvest + `", "index": 0, "node": {"type": "Wait", "params": {"ticks": 3}}}`,
			"Selector(investigate(Wait Check Set Wait) patrol[Check](Set Wait Step SubTree(Wait)))", "Sentry.children[0].children[0]", 0},
		{"add to the root", `{"op": "add", "path": "` + pathRoot + `", "node": {"type": "Running", "name": "idle"}}`,
			"Selector(investigate(Check Set Wait) patrol[Check](Set Wait Step SubTree(Wait)) idle)", "Sentry.children[2]", 0},
		{"insert", `{"op": "insert", "path": "` + pathNoise + `", "node": {"type": "Check", "params": {"key": "hp", "op": ">", "value": 1}}}`,
			"Selector(investigate(Check Check Set Wait) patrol[Check](Set Wait Step SubTree(Wait)))", "Sentry.children[0].children[1]", 0},
		{"delete a leaf", `{"op": "delete", "path": "` + pathInvestWait + `"}`,
			"Selector(investigate(Check Set) patrol[Check](Set Wait Step SubTree(Wait)))", "Sentry.children[0].children[1]", 1},
		{"delete a branch", `{"op": "delete", "path": "` + pathInvest + `"}`,
			"Selector(patrol[Check](Set Wait Step SubTree(Wait)))", "Sentry.children[0]", 4},
		{"delete a subtree's use", `{"op": "delete", "path": "` + pathRestCall + `"}`,
			"Selector(investigate(Check Set Wait) patrol[Check](Set Wait Step))", "Sentry.children[1].children[2]", 2},
		{"delete a guard", `{"op": "delete", "path": "` + pathGuard + `"}`,
			"Selector(investigate(Check Set Wait) patrol(Set Wait Step SubTree(Wait)))", pathPatrol, 1},
		{"move up", `{"op": "move", "path": "` + pathPatrolStep + `", "by": -1}`,
			"Selector(investigate(Check Set Wait) patrol[Check](Set Step Wait SubTree(Wait)))", "Sentry.children[1].children[1]", 0},
		{"move down", `{"op": "move", "path": "` + pathInvest + `", "by": 1}`,
			"Selector(patrol[Check](Set Wait Step SubTree(Wait)) investigate(Check Set Wait))", "Sentry.children[1]", 0},
		{"wrap", `{"op": "wrap", "path": "` + pathPatrolStep + `", "node": {"type": "Inverter"}}`,
			"Selector(investigate(Check Set Wait) patrol[Check](Set Wait Inverter(Step) SubTree(Wait)))", pathPatrolStep, 0},
		{"wrap in a composite", `{"op": "wrap", "path": "` + pathNoise + `", "node": {"type": "Sequence", "name": "checks"}}`,
			"Selector(investigate(checks(Check) Set Wait) patrol[Check](Set Wait Step SubTree(Wait)))", pathNoise, 0},
		{"wrap the root", `{"op": "wrap", "path": "` + pathRoot + `", "node": {"type": "Repeat", "params": {"count": 3}}}`,
			"Repeat(Selector(investigate(Check Set Wait) patrol[Check](Set Wait Step SubTree(Wait))))", pathRoot, 0},
		{"wrap a subtree's root", `{"op": "wrap", "path": "` + pathRest + `", "node": {"type": "Timeout", "params": {"ms": 500}}}`,
			"Selector(investigate(Check Set Wait) patrol[Check](Set Wait Step SubTree(Timeout(Wait))))", pathRest, 0},
		{"wrap a guard", `{"op": "wrap", "path": "` + pathGuard + `", "node": {"type": "Inverter"}}`,
			"Selector(investigate(Check Set Wait) patrol[Inverter(Check)](Set Wait Step SubTree(Wait)))", pathGuard, 0},
		{"move into another composite", `{"op": "move", "path": "` + pathNoise + `", "to": "` + pathPatrol + `", "index": 0}`,
			"Selector(investigate(Set Wait) patrol[Check](Check Set Wait Step SubTree(Wait)))", "Sentry.children[1].children[0]", 0},
		{"move to the end of its parent", `{"op": "move", "path": "` + pathNoise + `", "to": "` + pathInvest + `"}`,
			"Selector(investigate(Set Wait Check) patrol[Check](Set Wait Step SubTree(Wait)))", "Sentry.children[0].children[2]", 0},
		{"move up two levels", `{"op": "move", "path": "` + pathPatrolStep + `", "to": "` + pathRoot + `", "index": 0}`,
			"Selector(Step investigate(Check Set Wait) patrol[Check](Set Wait SubTree(Wait)))", "Sentry.children[0]", 0},
		{"guard a node", `{"op": "guard", "path": "` + pathPatrolStep + `", "node": {"type": "Check", "params": {"key": "hp", "op": ">", "value": 1}}}`,
			"Selector(investigate(Check Set Wait) patrol[Check](Set Wait Step[Check] SubTree(Wait)))", pathPatrolStep + ".guard", 0},
		{"guard the root", `{"op": "guard", "path": "` + pathRoot + `", "node": {"type": "Success"}}`,
			"Selector[Success](investigate(Check Set Wait) patrol[Check](Set Wait Step SubTree(Wait)))", pathRoot + ".guard", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, h, tid, calls := editSession(t, Options{})
			old := treesOf(s)[0]
			code, ans := shapeEdit(t, h, tid, c.body)
			if code != 200 || ans["ok"] != true || ans["agents"] != 5.0 || ans["tree"] == float64(tid) || ans["path"] != c.sel {
				t.Fatalf("%s: %d %v", c.body, code, ans)
			}
			if *calls != 1 {
				t.Errorf("Recompile called %d times", *calls)
			}
			nt := treesOf(s)[0]
			if got := outline(nt); got != c.want {
				t.Errorf("the tree after the edit:\n%s\nwant\n%s", got, c.want)
			}
			if got := outline(old); got != sentryOutline {
				t.Errorf("the old tree changed: %s", got)
			}
			if got := outline(mustCompile(t, old.Document())); got != sentryOutline {
				t.Errorf("the old tree's Document changed: %s", got)
			}
			if sel := int(ans["node"].(float64)); nt.Node(sel).Path != c.sel {
				t.Errorf("node %d is %s, path %q", sel, nt.Node(sel).Path, ans["path"])
			}
			checkIDs(t, ans, old, nt, c.deleted)
			for i, tr := range treesOf(s) {
				if i < 5 && tr != nt {
					t.Errorf("agent %d runs another tree", i)
				}
			}
			// The agents run the new tree.
			tickN(s, 2, 2)
			_, info := get(t, h, fmt.Sprintf("/api/trees/%v", ans["tree"]))
			if n := len(info["nodes"].([]any)); n != nt.Len() {
				t.Errorf("the new tree's description: %d nodes", n)
			}
		})
	}
}

// Unwrap replaces a node with its only child: a decorator, a composite
// of one child, a root.
func TestShapeUnwrap(t *testing.T) {
	s, h, tid, _ := editSession(t, Options{Registry: testRegistry(t)})
	for _, c := range []struct{ wrap, unwrap, sel string }{
		{`{"op": "wrap", "path": "` + pathPatrolStep + `", "node": {"type": "Inverter"}}`, `{"op": "unwrap", "path": "` + pathPatrolStep + `"}`, pathPatrolStep},
		{`{"op": "wrap", "path": "` + pathNoise + `", "node": {"type": "Selector", "name": "one"}}`, `{"op": "unwrap", "path": "` + pathNoise + `"}`, pathNoise},
		{`{"op": "wrap", "path": "` + pathRoot + `", "node": {"type": "ForceSuccess"}}`, `{"op": "unwrap", "path": "` + pathRoot + `"}`, pathRoot},
		{`{"op": "wrap", "path": "` + pathRest + `", "node": {"type": "Inverter"}}`, `{"op": "unwrap", "path": "` + pathRest + `"}`, pathRest},
	} {
		code, ans := shapeEdit(t, h, tid, c.wrap)
		if code != 200 {
			t.Fatalf("%s: %d %v", c.wrap, code, ans)
		}
		wrapped := treesOf(s)[0]
		if code, ans = shapeEdit(t, h, ans["tree"], c.unwrap); code != 200 || ans["path"] != c.sel {
			t.Fatalf("%s: %d %v", c.unwrap, code, ans)
		}
		tid = int(ans["tree"].(float64))
		nt := treesOf(s)[0]
		if got := outline(nt); got != sentryOutline {
			t.Errorf("%s: %s", c.unwrap, got)
		}
		checkIDs(t, ans, wrapped, nt, 1)
	}
	// A node with a guard keeps it: unwrapping it would lose it.
	code, ans := shapeEdit(t, h, tid, `{"op": "delete", "path": "`+pathPatrolSet+`"}`)
	for _, p := range []string{"Sentry.children[1].children[0]", "Sentry.children[1].children[0]", "Sentry.children[1].children[0]"} {
		if code != 200 {
			t.Fatalf("delete: %d %v", code, ans)
		}
		code, ans = shapeEdit(t, h, ans["tree"], `{"op": "delete", "path": "`+p+`"}`)
	}
	if got := outline(treesOf(s)[0]); code != 400 || got != "Selector(investigate(Check Set Wait) patrol[Check](SubTree(Wait)))" {
		t.Fatalf("the patrol down to its SubTree: %d %v %s", code, ans, got)
	}
	_, a := get(t, h, "/api/agents/0")
	if code, ans := shapeEdit(t, h, a["tree"], `{"op": "unwrap", "path": "`+pathPatrol+`"}`); code != 400 || !strings.Contains(ans["error"].(string), "has a guard, which unwrapping would lose") {
		t.Errorf("unwrap of a node with a guard: %d %v", code, ans)
	}
}

// mustCompile compiles doc with testRegistry.
func mustCompile(t *testing.T, doc *arbor.Document) *arbor.Tree {
	t.Helper()
	tr, err := arbor.Compile(doc, testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// An inserted node runs from the next tick: a Set after the patrol's
// changes the mode the sentries write.
func TestShapeAgentsRunTheNewTree(t *testing.T) {
	s, h, tid, _ := editSession(t, Options{})
	if mode(s, 0) != "patrolling" {
		t.Fatalf("mode %q", mode(s, 0))
	}
	code, ans := shapeEdit(t, h, tid, `{"op": "insert", "path": "`+pathPatrolSet+`", "node": {"type": "Set", "params": {"key": "mode", "value": "strolling"}}}`)
	if code != 200 {
		t.Fatalf("insert: %d %v", code, ans)
	}
	tickN(s, 2, 1)
	if mode(s, 0) != "strolling" || mode(s, 4) != "strolling" {
		t.Errorf("mode %q, %q after the insert, want strolling", mode(s, 0), mode(s, 4))
	}
}

// Every refused shape edit is a 4xx with a message, and changes nothing.
func TestShapeErrors(t *testing.T) {
	s, h, tid, calls := editSession(t, Options{Registry: testRegistry(t)})
	before := treesOf(s)[0]
	node := func(typ string) string { return `"node": {"type": "` + typ + `"}` }
	for _, c := range []struct {
		body string
		code int
		msg  string
	}{
		{`{"op": "graft", "path": "` + pathRoot + `"}`, 400, `bad op "graft": want one of add, insert, delete, move, wrap, unwrap`},
		{`{"op": "delete"}`, 400, "bad body: want"},
		{`{"op": "delete", "path": "` + pathMissing + `"}`, 400, "no node at path"},
		{`{"op": "delete", "path": "` + pathPrefix + `"}`, 400, "no node at path"},
		{`{"op": "delete", "path": "` + pathRoot + `", "by": 1}`, 400, "by is for move"},
		{`{"op": "delete", "path": "` + pathRoot + `", ` + node("Step") + `}`, 400, "delete takes no node"},
		{`{"op": "add", "path": "` + pathRoot + `"}`, 400, "add wants the new node"},
		{`{"op": "add", "path": "` + pathRoot + `", "node": {"type": ""}}`, 400, "add wants the new node"},
		{`{"op": "add", "path": "` + pathRoot + `", "node": {"type": "Step", "bogus": 1}}`, 400, "unknown field"},
		{`{"op": "add", "path": "` + pathRoot + `", "node": {"type": "Step", "params": {"children": []}}}`, 400, `"children" is not a parameter`},
		{`{"op": "add", "path": "` + pathRoot + `", "node": {"type": "Step", "params": {"": 1}}}`, 400, "bad parameter name"},
		{`{"op": "insert", "path": "` + pathNoise + `", "index": 1, ` + node("Step") + `}`, 400, "index is for add"},
		{`{"op": "move", "path": "` + pathNoise + `"}`, 400, `move wants "by"`},
		// The root, and a subtree's.
		{`{"op": "delete", "path": "` + pathRoot + `"}`, 400, "Selector is the root of tree Sentry: a root cannot be deleted"},
		{`{"op": "delete", "path": "` + pathRest + `"}`, 400, "Wait is the root of tree Rest: a root cannot be deleted (delete the SubTree that runs it"},
		{`{"op": "insert", "path": "` + pathRoot + `", ` + node("Step") + `}`, 400, "Selector is the root of tree Sentry: a root has no siblings to insert"},
		{`{"op": "move", "path": "` + pathRoot + `", "by": 1}`, 400, "a root has no siblings to move"},
		{`{"op": "move", "path": "` + pathGuard + `", "by": 1}`, 400, "Check is the guard of \"patrol\" (Sequence): a guard has no siblings (cannot move it)"},
		{`{"op": "insert", "path": "` + pathGuard + `", ` + node("Step") + `}`, 400, "a guard has no siblings (cannot insert a sibling after it)"},
		// Children where none go.
		{`{"op": "add", "path": "` + pathPatrolStep + `", ` + node("Step") + `}`, 400, "Step is a leaf: it takes no children"},
		{`{"op": "add", "path": "` + pathRestCall + `", ` + node("Step") + `}`, 400, "SubTree is a SubTree: its child is the tree it runs"},
		{`{"op": "add", "path": "` + pathRoot + `", "index": 3, ` + node("Step") + `}`, 400, "bad index 3: want 0 to 2"},
		{`{"op": "add", "path": "` + pathRoot + `", "index": -1, ` + node("Step") + `}`, 400, "bad index -1"},
		// Types.
		{`{"op": "add", "path": "` + pathRoot + `", ` + node("Stpe") + `}`, 400, `unknown node type "Stpe" (did you mean "Step"?)`},
		{`{"op": "add", "path": "` + pathRoot + `", ` + node("Teleport") + `}`, 400, `unknown node type "Teleport": want a built-in type`},
		{`{"op": "add", "path": "` + pathRoot + `", ` + node("Sequence") + `}`, 400, "Sequence is a composite: it needs children, and a new node has none (add a leaf, then wrap it in a Sequence)"},
		{`{"op": "insert", "path": "` + pathNoise + `", ` + node("Inverter") + `}`, 400, "Inverter is a decorator: it needs children"},
		{`{"op": "wrap", "path": "` + pathNoise + `", ` + node("Step") + `}`, 400, "Step is not a decorator nor a composite (action)"},
		{`{"op": "add", "path": "` + pathRoot + `", ` + node("Check") + `}`, 400, "Check needs key and op: give them"},
		{`{"op": "wrap", "path": "` + pathNoise + `", ` + node("Repeat") + `}`, 400, "Repeat needs count: give it"},
		// Moves past the ends.
		{`{"op": "move", "path": "` + pathNoise + `", "by": -1}`, 400, "Check is the first child of \"investigate\" (Sequence) already"},
		{`{"op": "move", "path": "` + pathPatrol + `", "by": 1}`, 400, "is the last child of Selector already"},
		// One place at a time: the answer says which way an edit went.
		{`{"op": "move", "path": "` + pathInvest + `", "by": 5}`, 400, `move wants "by": -1 (up) or 1 (down)`},
		{`{"op": "move", "path": "` + pathPatrol + `", "by": -9223372036854775808}`, 400, `move wants "by": -1 (up) or 1 (down)`},
		// Moves to another parent.
		{`{"op": "move", "path": "` + pathNoise + `", "by": 1, "to": "` + pathPatrol + `"}`, 400, `move takes "by" (among siblings) or "to" (another parent), not both`},
		{`{"op": "move", "path": "` + pathNoise + `", "index": 0, "by": 1}`, 400, "index is for add, and for move with to"},
		{`{"op": "delete", "path": "` + pathNoise + `", "to": "` + pathPatrol + `"}`, 400, "to is for move"},
		{`{"op": "move", "path": "` + pathInvest + `", "to": "` + pathInvest + `"}`, 400, `"investigate" (Sequence) is "investigate" (Sequence) or in it: a node cannot move into itself`},
		{`{"op": "move", "path": "` + pathInvest + `", "to": "` + pathNoise + `"}`, 400, "a node cannot move into itself"},
		{`{"op": "move", "path": "` + pathNoise + `", "to": "` + pathPatrolStep + `"}`, 400, "cannot move Check there: Step is a leaf"},
		{`{"op": "move", "path": "` + pathNoise + `", "to": "` + pathRestCall + `"}`, 400, "SubTree is a SubTree"},
		{`{"op": "move", "path": "` + pathNoise + `", "to": "` + pathMissing + `"}`, 400, "no node at path"},
		{`{"op": "move", "path": "` + pathNoise + `", "to": "` + pathPatrol + `", "index": 5}`, 400, "bad index 5: want 0 to 4"},
		{`{"op": "move", "path": "` + pathRoot + `", "to": "` + pathPatrol + `"}`, 400, "a root has no siblings to move"},
		{`{"op": "move", "path": "` + pathGuard + `", "to": "` + pathRoot + `"}`, 400, "a guard has no siblings (cannot move it)"},
		// Deleting the only child; unwrapping what has not one child.
		{`{"op": "unwrap", "path": "` + pathNoise + `"}`, 400, "Check has 0 children: only a node with one child can be unwrapped"},
		{`{"op": "unwrap", "path": "` + pathPatrol + `"}`, 400, "has 4 children"},
		{`{"op": "unwrap", "path": "` + pathRestCall + `"}`, 400, "SubTree is a SubTree: its child is the tree it runs"},
		// The compiler's refusals: a SubTree of no tree, a Wait with both
		// ticks and ms, a condition in a guard's place refused.
		{`{"op": "add", "path": "` + pathRoot + `", "node": {"type": "SubTree", "params": {"tree": "Nope"}}}`, 400, "Nope"},
		{`{"op": "add", "path": "` + pathRoot + `", "node": {"type": "Wait", "params": {"ticks": 1, "ms": 5}}}`, 400, "Wait"},
		{`{"op": "wrap", "path": "` + pathGuard + `", "node": {"type": "Repeat", "params": {"count": 2}}}`, 400, "not allowed in a guard"},
		// Guards: a condition, on a node that has none.
		{`{"op": "guard", "path": "` + pathPatrol + `", "node": {"type": "Success"}}`, 400, `patrol has a guard already (Check): delete it first, or wrap it`},
		{`{"op": "guard", "path": "` + pathNoise + `", ` + node("Step") + `}`, 400, "Step is not a condition (action): a guard is a condition"},
		{`{"op": "guard", "path": "` + pathNoise + `", ` + node("Inverter") + `}`, 400, "Inverter is not a condition (decorator)"},
		{`{"op": "guard", "path": "` + pathNoise + `"}`, 400, "guard wants the new node"},
	} {
		code, ans := shapeEdit(t, h, tid, c.body)
		msg, _ := ans["error"].(string)
		if code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: %d %q, want %d %q", c.body, code, msg, c.code, c.msg)
		}
	}
	if *calls != 3 {
		t.Errorf("Recompile called %d times, want 3 (the edits the compiler refused)", *calls)
	}
	// A compile error says so.
	if _, ans := shapeEdit(t, h, tid, `{"op": "add", "path": "`+pathRoot+`", "node": {"type": "SubTree", "params": {"tree": "Nope"}}}`); ans["compile"] != true {
		t.Errorf("a compile error: %v", ans)
	}
	// A required parameter missing is named.
	if _, ans := shapeEdit(t, h, tid, `{"op": "add", "path": "`+pathRoot+`", "node": {"type": "Check", "params": {"key": "k"}}}`); ans["param"] != "op" {
		t.Errorf("Check without op: %v", ans)
	}
	if tr := treesOf(s)[0]; tr != before {
		t.Fatalf("a refused edit moved the agents")
	}
	// The only child of a decorator: wrapped, then its child deleted.
	code, ans := shapeEdit(t, h, tid, `{"op": "wrap", "path": "`+pathPatrolStep+`", "node": {"type": "Inverter"}}`)
	if code != 200 {
		t.Fatalf("wrap: %d %v", code, ans)
	}
	tid2 := ans["tree"]
	for _, c := range []struct {
		body, msg string
		code      int
	}{
		{`{"op": "delete", "path": "` + pathPatrolStep + `.child"}`, "Step is the only child of Inverter, which needs one: delete Inverter, or unwrap it", 400},
		{`{"op": "add", "path": "` + pathPatrolStep + `", ` + node("Step") + `}`, "Inverter is a decorator: it takes exactly one child, and has it", 400},
		{`{"op": "insert", "path": "` + pathPatrolStep + `.child", ` + node("Step") + `}`, "cannot insert a sibling: Inverter is a decorator", 400},
		{`{"op": "move", "path": "` + pathPatrolStep + `.child", "by": 1}`, "Step has no siblings to move among", 400},
	} {
		code, ans := shapeEdit(t, h, tid2, c.body)
		if msg, _ := ans["error"].(string); code != c.code || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: %d %q, want %d %q", c.body, code, msg, c.code, c.msg)
		}
	}
	// The tree before the edit no longer runs.
	if code, ans := shapeEdit(t, h, tid, `{"op": "delete", "path": "`+pathNoise+`"}`); code != 409 || !strings.Contains(ans["error"].(string), "no longer runs") {
		t.Errorf("an edit of a tree replaced: %d %v", code, ans)
	}
	for _, c := range []struct {
		path string
		code int
	}{{"/api/trees/x/shape", 400}, {"/api/trees/99/shape", 404}, {"/api/trees/-1/undo", 400}, {"/api/trees/99/undo", 404},
		{"/api/trees/-1/redo", 400}, {"/api/trees/99/redo", 404}} {
		body := `{"op": "delete", "path": "` + pathNoise + `"}`
		if strings.HasSuffix(c.path, "undo") || strings.HasSuffix(c.path, "redo") {
			body = ""
		}
		if code, ans := do(t, h, "POST", c.path, body, controlHeaders); code != c.code {
			t.Errorf("%s: %d %v", c.path, code, ans)
		}
	}
	// A body that is not JSON, the token, Content-Type.
	if code, _ := shapeEdit(t, h, tid2, `{"op": `); code != 400 {
		t.Errorf("a bad body: %d", code)
	}
	if code, _ := do(t, h, "POST", fmt.Sprintf("/api/trees/%v/shape", tid2), `{}`, map[string]string{"Content-Type": "application/json"}); code != 401 {
		t.Errorf("without the token: %d", code)
	}
	if code, _ := do(t, h, "POST", fmt.Sprintf("/api/trees/%v/undo", tid2), ``, map[string]string{"Content-Type": "application/json"}); code != 401 {
		t.Errorf("undo without the token: %d", code)
	}
	if code, _ := do(t, h, "POST", fmt.Sprintf("/api/trees/%v/undo", tid2), `{"x": 1}`, controlHeaders); code != 400 {
		t.Errorf("undo with a body: %d", code)
	}
	if code, _ := do(t, h, "POST", fmt.Sprintf("/api/trees/%v/redo", tid2), ``, map[string]string{"Content-Type": "application/json"}); code != 401 {
		t.Errorf("redo without the token: %d", code)
	}
	if code, _ := do(t, h, "POST", fmt.Sprintf("/api/trees/%v/redo", tid2), `{"x": 1}`, controlHeaders); code != 400 {
		t.Errorf("redo with a body: %d", code)
	}

	// Without Recompile: 403.
	_, h3 := newControlSession(t, Options{})
	if code, ans := shapeEdit(t, h3, 0, `{"op": "delete", "path": "`+pathNoise+`"}`); code != 403 {
		t.Errorf("without Recompile: %d %v", code, ans)
	}
	if code, ans := undoEdit(t, h3, 0); code != 403 {
		t.Errorf("undo without Recompile: %d %v", code, ans)
	}
	if code, ans := redoEdit(t, h3, 0); code != 403 {
		t.Errorf("redo without Recompile: %d %v", code, ans)
	}
}

// agentForces returns agent id's forces as "label:status" in node order,
// and its breakpoints as "label:events".
func agentMarks(t *testing.T, h http.Handler, id int) (forces, bps string) {
	t.Helper()
	_, f := get(t, h, fmt.Sprintf("/api/agents/%d/forces", id))
	var fs []string
	for _, x := range f["forces"].([]any) {
		m := x.(map[string]any)
		fs = append(fs, fmt.Sprintf("%v:%v", m["label"], m["status"]))
	}
	_, b := get(t, h, fmt.Sprintf("/api/agents/%d/breakpoints", id))
	var bs []string
	for _, x := range b["breakpoints"].([]any) {
		m := x.(map[string]any)
		bs = append(bs, fmt.Sprintf("%v:%v", m["label"], m["on"]))
	}
	return strings.Join(fs, " "), strings.Join(bs, " ")
}

// Forces and breakpoints follow their nodes through shape edits (moved,
// wrapped, their neighbours deleted), and go with the nodes deleted; the
// answer counts those dropped.
func TestShapeRemapsForcesAndBreakpoints(t *testing.T) {
	s, h, tid, _ := watchedEditSession(t)
	old := treesOf(s)[0]
	s.Do(func(m *arbor.Manager) {
		for _, f := range []struct {
			agent int
			label string
			st    arbor.Status
		}{{1, "Step", arbor.Failure}, {1, "patrol", arbor.Running}, {0, "Step", arbor.Success}, {0, "investigate", arbor.Failure}} {
			if err := m.Agent(f.agent).Force(nodeID(t, old, f.label), f.st); err != nil {
				t.Fatal(err)
			}
		}
	})
	setBreak(t, h, 0, nodeID(t, old, "Step"), "success")
	setBreak(t, h, 0, 2, "start") // the Check noise exists
	setBreak(t, h, 0, 9, "halt")  // the SubTree

	step := func(body string, wantForces, wantDropped string) map[string]any {
		t.Helper()
		code, ans := shapeEdit(t, h, tid, body)
		if code != 200 {
			t.Fatalf("%s: %d %v", body, code, ans)
		}
		tid = int(ans["tree"].(float64))
		dropped := ""
		if d, ok := ans["dropped"].(map[string]any); ok {
			dropped = fmt.Sprintf("%v forces, %v breakpoints", d["forces"], d["breakpoints"])
		}
		if dropped != wantDropped {
			t.Errorf("%s: dropped %q, want %q", body, dropped, wantDropped)
		}
		f1, _ := agentMarks(t, h, 1)
		if f1 != wantForces {
			t.Errorf("%s: agent 1's forces %q, want %q", body, f1, wantForces)
		}
		return ans
	}
	// Step moves up: its id goes from 8 to 7, its marks with it.
	ans := step(`{"op": "move", "path": "`+pathPatrolStep+`", "by": -1}`, "patrol:running Step:failure", "")
	if ans["node"] != 7.0 {
		t.Errorf("Step moved to %v", ans["node"])
	}
	nt := treesOf(s)[0]
	s.Do(func(m *arbor.Manager) {
		if st := m.Agent(1).Forced(7); st != arbor.Failure || nt.Node(7).Label() != "Step" {
			t.Errorf("agent 1's node 7 (%s) forced %v", nt.Node(7).Label(), st)
		}
	})
	f0, b0 := agentMarks(t, h, 0)
	if f0 != "investigate:failure Step:success" || b0 != "Check:[start] Step:[success] SubTree:[halt]" {
		t.Errorf("agent 0's marks after the move: %q, %q", f0, b0)
	}
	// Wrapped: one node more before the SubTree.
	step(`{"op": "wrap", "path": "Sentry.children[1].children[1]", "node": {"type": "Inverter"}}`, "patrol:running Step:failure", "")
	if _, b0 = agentMarks(t, h, 0); b0 != "Check:[start] Step:[success] SubTree:[halt]" {
		t.Errorf("agent 0's breakpoints after the wrap: %q", b0)
	}
	if nt = treesOf(s)[0]; outline(nt) != "Selector(investigate(Check Set Wait) patrol[Check](Set Inverter(Step) Wait SubTree(Wait)))" {
		t.Errorf("after the wrap: %s", outline(nt))
	}
	// Delete the Inverter and Step: their force (agent 1 and 0) and
	// breakpoint go.
	step(`{"op": "delete", "path": "Sentry.children[1].children[1]"}`, "patrol:running", "2 forces, 1 breakpoints")
	f0, b0 = agentMarks(t, h, 0)
	if f0 != "investigate:failure" || b0 != "Check:[start] SubTree:[halt]" {
		t.Errorf("agent 0's marks after the delete: %q, %q", f0, b0)
	}
	// The branch first: investigate's force and the Check's breakpoint
	// stay on them.
	step(`{"op": "delete", "path": "`+pathInvest+`"}`, "patrol:running", "1 forces, 1 breakpoints")
	if f0, b0 = agentMarks(t, h, 0); f0 != "" || b0 != "SubTree:[halt]" {
		t.Errorf("agent 0's marks after deleting investigate: %q, %q", f0, b0)
	}
	// A breakpoint still stops the agent: the SubTree's halt, once a
	// force halts the patrol... its start is enough: the watch works on
	// the new ids.
	setBreak(t, h, 0, 2, "start") // now the patrol's Set
	tickN(s, 2, 3)
	_, bps := get(t, h, "/api/agents/0/breakpoints")
	if lb, _ := bps["lastBreak"].(map[string]any); lb == nil || lb["label"] != "Set" {
		t.Errorf("no break on the patrol's Set after the edits: %v", bps)
	}
}

// A move to another parent is described by the parent's label and the
// place in it; a node its parent needs alone stays.
func TestShapeMoveInto(t *testing.T) {
	s, h, tid, _ := editSession(t, Options{})
	code, ans := shapeEdit(t, h, tid, `{"op": "move", "path": "`+pathNoise+`", "to": "`+pathPatrol+`", "index": 1}`)
	if code != 200 || ans["undo"].(map[string]any)["last"] != "move Check into patrol, after Set" {
		t.Fatalf("move: %d %v", code, ans)
	}
	code, ans = shapeEdit(t, h, ans["tree"], `{"op": "wrap", "path": "Sentry.children[1].children[3]", "node": {"type": "Inverter"}}`)
	if code != 200 || outline(treesOf(s)[0]) != "Selector(investigate(Set Wait) patrol[Check](Set Check Wait Inverter(Step) SubTree(Wait)))" {
		t.Fatalf("wrap: %d %v: %s", code, ans, outline(treesOf(s)[0]))
	}
	code, ans = shapeEdit(t, h, ans["tree"], `{"op": "move", "path": "Sentry.children[1].children[3].child", "to": "`+pathInvest+`"}`)
	if msg, _ := ans["error"].(string); code != 400 || msg != `Step is the only child of Inverter, which needs one: move another node in first, or unwrap Inverter` {
		t.Errorf("move of an only child: %d %v", code, ans)
	}
}

// An undo puts back the forces and breakpoints its edit dropped with
// their nodes, on the agents still running the tree; a redo drops them
// again, and the next undo puts them back again.
func TestUndoRestoresMarks(t *testing.T) {
	s, h, tid, _ := watchedEditSession(t)
	orig := treesOf(s)[0]
	step := nodeID(t, orig, "Step")
	s.Do(func(m *arbor.Manager) {
		if err := m.Agent(1).Force(step, arbor.Failure); err != nil {
			t.Fatal(err)
		}
	})
	setBreak(t, h, 0, step, "start")
	code, ans := shapeEdit(t, h, tid, `{"op": "delete", "path": "`+pathPatrolStep+`"}`)
	if d, _ := ans["dropped"].(map[string]any); code != 200 || fmt.Sprint(d) != "map[breakpoints:1 forces:1]" {
		t.Fatalf("delete: %d %v", code, ans)
	}
	marks := func(what string) {
		t.Helper()
		if f, _ := agentMarks(t, h, 1); f != "Step:failure" {
			t.Errorf("%s: agent 1's forces %q", what, f)
		}
		if _, b := agentMarks(t, h, 0); b != "Step:[start]" {
			t.Errorf("%s: agent 0's breakpoints %q", what, b)
		}
	}
	code, ans = undoEdit(t, h, ans["tree"])
	if r, _ := ans["restored"].(map[string]any); code != 200 || fmt.Sprint(r) != "map[breakpoints:1 forces:1]" || ans["dropped"] != nil {
		t.Fatalf("undo: %d %v", code, ans)
	}
	marks("after the undo")
	code, ans = redoEdit(t, h, ans["tree"])
	if d, _ := ans["dropped"].(map[string]any); code != 200 || fmt.Sprint(d) != "map[breakpoints:1 forces:1]" || ans["restored"] != nil {
		t.Fatalf("redo: %d %v", code, ans)
	}
	if f, b := agentMarks(t, h, 1); f != "" || b != "" {
		t.Errorf("after the redo: agent 1's marks %q %q", f, b)
	}
	code, ans = undoEdit(t, h, ans["tree"])
	if r, _ := ans["restored"].(map[string]any); code != 200 || fmt.Sprint(r) != "map[breakpoints:1 forces:1]" {
		t.Fatalf("the second undo: %d %v", code, ans)
	}
	marks("after the second undo")
}

// watchedEditSession is editSession with the test registry's types
// described, and agent 0 watched (its breakpoints work) until the test
// ends.
func watchedEditSession(t *testing.T) (s *Session, h http.Handler, sentryTID int, calls *int) {
	t.Helper()
	s, h, sentryTID, calls = editSession(t, Options{Registry: testRegistry(t)})
	stop, err := s.Watch(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return s, h, sentryTID, calls
}

// threeEdits makes three edits of tree tid: noise's Check made
// "missing", Step wrapped in an Inverter, a Note inserted after it; it
// returns the last one's answer.
func threeEdits(t *testing.T, h http.Handler, tid int) map[string]any {
	t.Helper()
	code, ans := editTree(t, h, tid, `{"path": "`+pathNoise+`", "params": {"op": "missing"}}`)
	if code != 200 || ans["undo"].(map[string]any)["count"] != 1.0 || ans["undo"].(map[string]any)["last"] != "edit Check" {
		t.Fatalf("edit: %d %v", code, ans)
	}
	code, ans = shapeEdit(t, h, ans["tree"], `{"op": "wrap", "path": "`+pathPatrolStep+`", "node": {"type": "Inverter"}}`)
	if code != 200 {
		t.Fatalf("wrap: %d %v", code, ans)
	}
	code, ans = shapeEdit(t, h, ans["tree"], `{"op": "insert", "path": "`+pathPatrolStep+`", "node": {"type": "Note", "params": {"text": "hi"}}}`)
	if code != 200 {
		t.Fatalf("insert: %d %v", code, ans)
	}
	return ans
}

// An undo puts the document back as it was before the last edit (of
// shape or of parameters), moves the agents there, maps forces and
// breakpoints back, and can go on to the first edit; then there is
// nothing to undo. The tree's description says what can be undone.
func TestShapeUndo(t *testing.T) {
	s, h, tid, calls := watchedEditSession(t)
	orig := treesOf(s)[0]
	s.Do(func(m *arbor.Manager) {
		if err := m.Agent(1).Force(nodeID(t, orig, "Step"), arbor.Failure); err != nil {
			t.Fatal(err)
		}
	})
	setBreak(t, h, 0, 10, "start") // Rest's Wait
	if code, ans := undoEdit(t, h, tid); code != 409 || !strings.Contains(ans["error"].(string), "nothing to undo") {
		t.Errorf("undo of a tree no edit made: %d %v", code, ans)
	}
	if _, info := get(t, h, fmt.Sprintf("/api/trees/%d", tid)); info["undo"] != nil {
		t.Errorf("undo of a tree no edit made: %v", info["undo"])
	}
	ans := threeEdits(t, h, tid)
	var code int
	added := int(ans["node"].(float64))
	s.Do(func(m *arbor.Manager) {
		if err := m.Agent(1).Force(added, arbor.Success); err != nil {
			t.Fatal(err)
		}
	})
	_, info := get(t, h, fmt.Sprintf("/api/trees/%v", ans["tree"]))
	if u := info["undo"].(map[string]any); u["count"] != 3.0 || u["last"] != "insert Note after Inverter" {
		t.Errorf("the tree's undo: %v", u)
	}
	const edited = "Selector(investigate(Check Set Wait) patrol[Check](Set Wait Inverter(Step) Note SubTree(Wait)))"
	if got := outline(treesOf(s)[0]); got != edited {
		t.Fatalf("edited: %s", got)
	}
	if f, b := agentMarks(t, h, 1); f != "Step:failure Note:success" || b != "" {
		t.Errorf("agent 1 after the edits: %q %q", f, b)
	}
	// Undo the insert: the Note and its force go.
	cur := treesOf(s)[0]
	code, ans = undoEdit(t, h, ans["tree"])
	if code != 200 || ans["undone"] != "insert Note after Inverter" || ans["op"] != "undo" || ans["agents"] != 5.0 {
		t.Fatalf("undo: %d %v", code, ans)
	}
	if d := ans["dropped"].(map[string]any); d["forces"] != 1.0 {
		t.Errorf("undo dropped %v", d)
	}
	if got := outline(treesOf(s)[0]); got != "Selector(investigate(Check Set Wait) patrol[Check](Set Wait Inverter(Step) SubTree(Wait)))" {
		t.Errorf("after one undo: %s", got)
	}
	checkIDs(t, ans, cur, treesOf(s)[0], 1)
	if u := ans["undo"].(map[string]any); u["count"] != 2.0 || u["last"] != "wrap Step in Inverter" {
		t.Errorf("after one undo, the undo: %v", u)
	}
	// Undo the wrap, then the parameter edit.
	cur = treesOf(s)[0]
	code, ans = undoEdit(t, h, ans["tree"])
	if code != 200 || ans["undone"] != "wrap Step in Inverter" {
		t.Fatalf("undo: %d %v", code, ans)
	}
	checkIDs(t, ans, cur, treesOf(s)[0], 1)
	code, ans = undoEdit(t, h, ans["tree"])
	if code != 200 || ans["undone"] != "edit Check" || ans["undo"] != nil {
		t.Fatalf("undo: %d %v", code, ans)
	}
	back := treesOf(s)[0]
	if got := outline(back); got != sentryOutline || back.Node(2).Params["op"] != "exists" {
		t.Errorf("after three undos: %s, op %v", got, back.Node(2).Params["op"])
	}
	if f, b := agentMarks(t, h, 1); f != "Step:failure" || b != "" {
		t.Errorf("agent 1 after the undos: %q %q", f, b)
	}
	if _, b := agentMarks(t, h, 0); b != "Wait:[start]" || back.Node(10).Path != pathRest {
		t.Errorf("agent 0's breakpoints after the undos: %q", b)
	}
	if code, ans := undoEdit(t, h, ans["tree"]); code != 409 {
		t.Errorf("a fourth undo: %d %v", code, ans)
	}
	if *calls != 6 {
		t.Errorf("Recompile called %d times, want 6", *calls)
	}

	// A reload from a file starts afresh: the edited tree replaced, there
	// is nothing to undo.
	code, ans = shapeEdit(t, h, ans["tree"], `{"op": "delete", "path": "`+pathInvest+`"}`)
	if code != 200 {
		t.Fatalf("delete: %d %v", code, ans)
	}
	fresh, _ := testTrees(t)
	s.Do(func(m *arbor.Manager) { m.Reload(m.Agent(0).Tree(), fresh) })
	if code, _ := undoEdit(t, h, ans["tree"]); code != 409 {
		t.Errorf("undo of a tree a reload replaced: %d", code)
	}
	_, a := get(t, h, "/api/agents/0")
	// The replaced tree's stack went when the page met the new tree.
	s.mu.Lock()
	stacks := len(s.undo) + len(s.redo)
	s.mu.Unlock()
	if stacks != 0 {
		t.Errorf("%d undo and redo stacks kept after a reload replaced the edited tree", stacks)
	}
	if code, ans := undoEdit(t, h, a["tree"]); code != 409 || !strings.Contains(ans["error"].(string), "nothing to undo") {
		t.Errorf("undo of a reloaded tree: %d %v", code, ans)
	}
}

// A redo makes the last edit undone again (of shape or of parameters),
// nodes mapped as the edit mapped them; redos go on until the last edit
// undone, and a new edit clears them. The tree's description and each
// answer say what can be redone.
func TestShapeRedo(t *testing.T) {
	s, h, tid, _ := editSession(t, Options{Registry: testRegistry(t)})
	if code, ans := redoEdit(t, h, tid); code != 409 || !strings.Contains(ans["error"].(string), "nothing to redo") {
		t.Errorf("redo of a tree no undo made: %d %v", code, ans)
	}
	ans := threeEdits(t, h, tid)
	if ans["redo"] != nil {
		t.Errorf("redo after edits: %v", ans["redo"])
	}
	var code int
	const edited = "Selector(investigate(Check Set Wait) patrol[Check](Set Wait Inverter(Step) Note SubTree(Wait)))"
	const wrapped = "Selector(investigate(Check Set Wait) patrol[Check](Set Wait Inverter(Step) SubTree(Wait)))"
	// Two undos, two redos.
	for _, want := range []string{wrapped, sentryOutline} {
		if code, ans = undoEdit(t, h, ans["tree"]); code != 200 {
			t.Fatalf("undo: %d %v", code, ans)
		}
		if got := outline(treesOf(s)[0]); got != want {
			t.Fatalf("after an undo: %s, want %s", got, want)
		}
	}
	if r := ans["redo"].(map[string]any); r["count"] != 2.0 || r["last"] != "wrap Step in Inverter" {
		t.Errorf("after two undos, the redo: %v", r)
	}
	if _, info := get(t, h, fmt.Sprintf("/api/trees/%v", ans["tree"])); fmt.Sprint(info["redo"]) != "map[count:2 last:wrap Step in Inverter]" {
		t.Errorf("the tree's redo: %v", info["redo"])
	}
	cur := treesOf(s)[0]
	code, ans = redoEdit(t, h, ans["tree"])
	if code != 200 || ans["op"] != "redo" || ans["redone"] != "wrap Step in Inverter" || ans["agents"] != 5.0 {
		t.Fatalf("redo: %d %v", code, ans)
	}
	if got := outline(treesOf(s)[0]); got != wrapped {
		t.Errorf("after a redo: %s", got)
	}
	checkIDs(t, ans, cur, treesOf(s)[0], 0)
	if u, r := ans["undo"].(map[string]any), ans["redo"].(map[string]any); u["count"] != 2.0 || u["last"] != "wrap Step in Inverter" ||
		r["count"] != 1.0 || r["last"] != "insert Note after Inverter" {
		t.Errorf("after a redo: undo %v, redo %v", u, r)
	}
	if code, ans = redoEdit(t, h, ans["tree"]); code != 200 || ans["redone"] != "insert Note after Inverter" || ans["redo"] != nil {
		t.Fatalf("the second redo: %d %v", code, ans)
	}
	if got := outline(treesOf(s)[0]); got != edited {
		t.Errorf("after two redos: %s", got)
	}
	if code, ans := redoEdit(t, h, ans["tree"]); code != 409 {
		t.Errorf("a third redo: %d %v", code, ans)
	}
	// Undo and redo go on alternating: all the way back, then the
	// parameter edit made again.
	for range 3 {
		if code, ans = undoEdit(t, h, ans["tree"]); code != 200 {
			t.Fatalf("undo: %d %v", code, ans)
		}
	}
	if back := treesOf(s)[0]; outline(back) != sentryOutline || back.Node(2).Params["op"] != "exists" {
		t.Errorf("after three undos: %s, op %v", outline(back), back.Node(2).Params["op"])
	}
	if code, ans = redoEdit(t, h, ans["tree"]); code != 200 || ans["redone"] != "edit Check" || treesOf(s)[0].Node(2).Params["op"] != "missing" {
		t.Fatalf("redo of the parameter edit: %d %v", code, ans)
	}
	// A new edit clears what could be redone.
	code, ans = shapeEdit(t, h, ans["tree"], `{"op": "delete", "path": "`+pathInvest+`"}`)
	if code != 200 || ans["redo"] != nil {
		t.Fatalf("delete: %d %v", code, ans)
	}
	if code, ans := redoEdit(t, h, ans["tree"]); code != 409 || !strings.Contains(ans["error"].(string), "nothing to redo") {
		t.Errorf("redo after a new edit: %d %v", code, ans)
	}
	if u := ans["undo"].(map[string]any); u["count"] != 2.0 || u["last"] != "delete investigate" {
		t.Errorf("undo after a new edit: %v", u)
	}
}

// The palette lists the registry's types, aliases left out, by category;
// a session that cannot edit has none.
func TestShapePalette(t *testing.T) {
	_, h, tid, _ := editSession(t, Options{Registry: testRegistry(t)})
	_, info := get(t, h, fmt.Sprintf("/api/trees/%d", tid))
	var got []string
	cats := map[string]string{}
	for _, x := range info["palette"].([]any) {
		p := x.(map[string]any)
		got = append(got, p["type"].(string))
		cats[p["type"].(string)] = p["category"].(string)
	}
	for typ, cat := range map[string]string{"Step": "action", "Aim": "action", "Check": "condition", "SubTree": "subtree",
		"Inverter": "decorator", "Repeat": "decorator", "Sequence": "control", "Switch": "control"} {
		if cats[typ] != cat {
			t.Errorf("palette: %s is %q, want %q", typ, cats[typ], cat)
		}
	}
	if cats["Fallback"] != "" || cats["AlwaysSucceed"] != "" {
		t.Errorf("palette has aliases: %v", got)
	}
	if got[0] != "Aim" || cats[got[len(got)-1]] != "control" {
		t.Errorf("palette order: %v", got)
	}
	// The categories of the tree's types.
	if c := fmt.Sprint(info["categories"]); c != "map[Check:condition Selector:control Sequence:control Set:action Step:action SubTree:subtree Wait:action]" {
		t.Errorf("categories: %s", c)
	}
	s := newTestSession(t, Options{Registry: testRegistry(t)})
	tickN(s, 0, 1)
	get(t, s.Handler(), "/api/agents/0")
	if code, info := get(t, s.Handler(), "/api/trees/0"); code != 200 || info["palette"] != nil || info["categories"] != nil {
		t.Errorf("a read-only session's palette: %v", info["palette"])
	}
}

// nodeKeys and mapIDs keep apart the uses of one subtree: an edit of the
// subtree's definition changes every use, and each use's nodes map to
// that use's. Without Options.Registry, a program type the document uses
// can be added (Step).
func TestShapeSubtreeUses(t *testing.T) {
	reg := testRegistry(t)
	doc := &arbor.Document{Main: "Two", Trees: map[string]*arbor.Node{
		"Two": arbor.Sequence(arbor.SubTree("Leg").Named("first"), arbor.SubTree("Leg").Named("second")),
		"Leg": arbor.Sequence(arbor.Leaf("Step"), arbor.WaitTicks(1)),
	}}
	tree, err := arbor.Compile(doc, reg)
	if err != nil {
		t.Fatal(err)
	}
	m := arbor.NewManager(arbor.WithWorkers(1))
	m.Add(tree)
	s := NewSession(m, Options{Controls: true, Token: "secret", Recompile: func(_ *arbor.Tree, d *arbor.Document) (*arbor.Tree, error) { return arbor.Compile(d, reg) }})
	h := s.Handler()
	tickN(s, 0, 1)
	get(t, h, "/api/agents/0") // describes its tree: tree 0
	s.Do(func(*arbor.Manager) {
		if err := m.Agent(0).Force(3, arbor.Failure); err != nil { // the first use's Step
			t.Fatal(err)
		}
		if err := m.Agent(0).Force(8, arbor.Success); err != nil { // the second use's Wait
			t.Fatal(err)
		}
	})
	code, ans := shapeEdit(t, h, 0, `{"op": "insert", "path": "Two.children[0]>Leg.children[0]", "node": {"type": "Step", "name": "more"}}`)
	if code != 200 {
		t.Fatalf("insert: %d %v", code, ans)
	}
	nt := m.Agent(0).Tree()
	if got := outline(nt); got != "Sequence(first(Sequence(Step more Wait)) second(Sequence(Step more Wait)))" {
		t.Errorf("after the insert: %s", got)
	}
	checkIDs(t, ans, tree, nt, 0)
	if ans["path"] != "Two.children[0]>Leg.children[1]" {
		t.Errorf("selected %v", ans["path"])
	}
	s.Do(func(*arbor.Manager) {
		a := m.Agent(0)
		if a.Forced(3) != arbor.Failure || a.Forced(10) != arbor.Success || nt.Node(10).Path != "Two.children[1]>Leg.children[2]" {
			t.Errorf("forces after the insert: 3 %v, 10 %v (%s)", a.Forced(3), a.Forced(10), nt.Node(10).Path)
		}
	})
}

// A tree whose shape was edited downloads in each format, and reads back
// as the tree the agents run.
func TestShapeDownload(t *testing.T) {
	s, h, tid, _ := editSession(t, Options{Registry: testRegistry(t)})
	var ans map[string]any
	for _, body := range []string{
		`{"op": "wrap", "path": "` + pathPatrolStep + `", "node": {"type": "Repeat", "params": {"count": 2}}}`,
		`{"op": "add", "path": "` + pathInvest + `", "node": {"type": "Wait", "name": "linger", "params": {"ms": 300}}}`,
		`{"op": "move", "path": "` + pathPatrol + `", "by": -1}`,
		`{"op": "wrap", "path": "` + pathRoot + `", "node": {"type": "ForceSuccess"}}`,
	} {
		var code int
		if code, ans = shapeEdit(t, h, tid, body); code != 200 {
			t.Fatalf("%s: %d %v", body, code, ans)
		}
		tid = int(ans["tree"].(float64))
	}
	const want = "ForceSuccess(Selector(patrol[Check](Set Wait Repeat(Step) SubTree(Wait)) investigate(Check Set Wait linger)))"
	if got := outline(treesOf(s)[0]); got != want {
		t.Fatalf("edited: %s", got)
	}
	for _, f := range []string{"arbor", "b3", "btcpp"} {
		code, data, _ := download(t, h, fmt.Sprintf("/api/trees/%d/document?format=%s", tid, f))
		if code != 200 {
			t.Errorf("%s: %d %s", f, code, data)
			continue
		}
		doc, err := format.Parse(data, f)
		if err != nil {
			t.Errorf("%s: %v\n%s", f, err, data)
			continue
		}
		if got := outline(mustCompile(t, doc)); got != want {
			t.Errorf("%s reads back as %s\n%s", f, got, data)
		}
	}
}
