package debug

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format"
)

// The paths of testTrees' sentry (Selector(investigate, patrol)).
const (
	pathNoise      = "Sentry.children[0].children[0]"       // Check noise exists
	pathInvestWait = "Sentry.children[0].children[2]"       // Wait ticks 2
	pathRest       = "Sentry.children[1].children[3]>Rest"  // the Rest subtree's Wait ticks 1
	pathRestCall   = "Sentry.children[1].children[3]"       // SubTree Rest
	pathGuard      = "Sentry.children[1].guard"             // Check blocked missing
	pathPatrolStep = "Sentry.children[1].children[2]"       // Step
	pathMissing    = "Sentry.children[1].children[9]"       // no such node
	pathPrefix     = "Sentry.children[1].children[3]>Restx" // no such node either
)

// editSession is newControlSession with Recompile (compiling with
// testRegistry, counting its calls in *calls) and the session's tree id
// of the sentries.
func editSession(t *testing.T, opts Options) (s *Session, h http.Handler, sentryTID int, calls *int) {
	t.Helper()
	reg := testRegistry(t)
	calls = new(int)
	if opts.Recompile == nil {
		opts.Recompile = func(old *arbor.Tree, doc *arbor.Document) (*arbor.Tree, error) {
			*calls++
			return arbor.Compile(doc, reg)
		}
	}
	s, h = newControlSession(t, opts)
	tickN(s, 0, 2)
	_, a := get(t, h, "/api/agents/0")
	return s, h, int(a["tree"].(float64)), calls
}

// editTree posts an edit of tree tid and returns the status and the answer.
func editTree(t *testing.T, h http.Handler, tid int, body string) (int, map[string]any) {
	t.Helper()
	return do(t, h, "POST", fmt.Sprintf("/api/trees/%d/edit", tid), body, controlHeaders)
}

// treesOf returns the trees agents 0-7 run.
func treesOf(s *Session) []*arbor.Tree {
	var out []*arbor.Tree
	s.Do(func(m *arbor.Manager) {
		for _, a := range m.Agents() {
			out = append(out, a.Tree())
		}
	})
	return out
}

// An edit moves every agent of the tree to the edited one, which runs
// the new parameter from the next tick; the tree's Document is not
// changed; blackboards, forces and breakpoints stay.
func TestEditAppliesToEveryAgent(t *testing.T) {
	s, h, tid, calls := editSession(t, Options{})
	before := treesOf(s)
	old := before[0]
	if mode(s, 0) != "patrolling" {
		t.Fatalf("mode %q before the edit, want patrolling", mode(s, 0))
	}
	// Kept across the edit: a blackboard value, a force (agent 1), a
	// breakpoint (agent 0, watched).
	s.Do(func(m *arbor.Manager) {
		m.Agent(2).Blackboard().Set("kept", 7)
		if err := m.Agent(1).Force(nodeID(t, old, "patrol"), arbor.Failure); err != nil {
			t.Fatal(err)
		}
	})
	stop, err := s.Watch(0)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	setBreak(t, h, 0, 2, "halt")

	code, ans := editTree(t, h, tid, `{"path": "`+pathNoise+`", "params": {"op": "missing"}}`)
	if code != 200 || ans["ok"] != true || ans["agents"] != 5.0 || ans["node"] != 2.0 || ans["tree"] == float64(tid) || ans["treeName"] != "Sentry" {
		t.Fatalf("edit: %d %v", code, ans)
	}
	if *calls != 1 {
		t.Errorf("Recompile called %d times, want 1", *calls)
	}
	after := treesOf(s)
	nt := after[0]
	for i, tr := range after {
		if i < 5 && (tr != nt || tr == old) || i >= 5 && tr != before[i] {
			t.Errorf("agent %d runs %p (old %p, edited %p)", i, tr, before[i], nt)
		}
	}
	if op := old.Document().Trees["Sentry"].Children[0].Children[0].Params["op"]; op != "exists" {
		t.Errorf("the old tree's Document changed: op %v", op)
	}
	if op := nt.Node(2).Params["op"]; op != "missing" {
		t.Errorf("the edited tree's Check: op %v", op)
	}
	_, info := get(t, h, fmt.Sprintf("/api/trees/%v", ans["tree"]))
	if sub := info["nodes"].([]any)[2].(map[string]any)["sub"]; sub != "noise missing" {
		t.Errorf("the edited tree's description: %v", sub)
	}
	// The next tick investigates (noise is missing: the Check holds).
	tickN(s, 2, 1)
	if mode(s, 0) != "investigating" {
		t.Errorf("mode %q after the edit, want investigating", mode(s, 0))
	}
	s.Do(func(m *arbor.Manager) {
		if v, _ := m.Agent(2).Blackboard().Lookup("kept"); v.String() != "7" {
			t.Errorf("blackboard value after the edit: %v", v)
		}
		if st := m.Agent(1).Forced(nodeID(t, nt, "patrol")); st != arbor.Failure {
			t.Errorf("force after the edit: %v", st)
		}
	})
	if _, bps := get(t, h, "/api/agents/0/breakpoints"); len(bps["breakpoints"].([]any)) != 1 {
		t.Errorf("breakpoints after the edit: %v", bps)
	}

	// A name, and a parameter of a subtree (its definition, shared by its
	// uses), on the tree the agents run now.
	tid2 := int(ans["tree"].(float64))
	code, ans = editTree(t, h, tid2, `{"path": "`+pathRest+`", "params": {"ticks": 3}, "name": "rest a while"}`)
	if code != 200 || ans["agents"] != 5.0 {
		t.Fatalf("edit of the subtree: %d %v", code, ans)
	}
	nt2 := treesOf(s)[0]
	if d := nt2.Document().Trees["Rest"]; d.Name != "rest a while" || d.Params["ticks"] != 3.0 {
		t.Errorf("Rest after the edit: %q %v", d.Name, d.Params)
	}
	if nt2.Document().Trees["Sentry"].Children[0].Children[0].Params["op"] != "missing" {
		t.Error("the second edit lost the first")
	}
	// The same values again: nothing to do, nobody moves.
	code, ans = editTree(t, h, int(ans["tree"].(float64)), `{"path": "`+pathRest+`", "params": {"ticks": 3.0}, "name": "rest a while"}`)
	if code != 200 || ans["unchanged"] != true || ans["agents"] != 0.0 || treesOf(s)[0] != nt2 || *calls != 2 {
		t.Errorf("an edit changing nothing: %d %v (%d compiles)", code, ans, *calls)
	}
	// A parameter removed (null): the Wait then has neither ticks nor ms.
	code, ans = editTree(t, h, int(ans["tree"].(float64)), `{"path": "`+pathInvestWait+`", "params": {"ticks": null, "ms": 250}}`)
	if code != 200 {
		t.Fatalf("edit removing a parameter: %d %v", code, ans)
	}
	if p := treesOf(s)[0].Node(4).Params; p["ms"] != 250.0 || p["ticks"] != nil {
		t.Errorf("the Wait after the edit: %v", p)
	}
}

// A Wait's ticks edited takes effect at the agent's next start of it.
func TestEditWaitTicks(t *testing.T) {
	s, h, _, _ := editSession(t, Options{})
	_, a := get(t, h, "/api/agents/5")
	blink := int(a["tree"].(float64))
	runs := func() string { // the blinker's statuses over 8 ticks
		var out []string
		for i := 0; i < 8; i++ {
			tickN(s, 10+i, 1)
			s.Do(func(m *arbor.Manager) { out = append(out, m.Agent(5).Status().String()[:1]) })
		}
		return strings.Join(out, "")
	}
	before := runs()
	if code, ans := editTree(t, h, blink, `{"path": "Blink.children[0]", "params": {"ticks": 3}}`); code != 200 || ans["agents"] != 3.0 {
		t.Fatalf("edit: %d %v", code, ans)
	}
	if after := runs(); before != "rfrfrfrf" || after != "rrrfrrrf" {
		t.Errorf("blinker before the edit %s, after %s; want rfrfrfrf, rrrfrrrf", before, after)
	}
}

// An edit that does not compile is a 400 with the compiler's message,
// and changes nothing.
func TestEditCompileError(t *testing.T) {
	s, h, tid, calls := editSession(t, Options{})
	before := treesOf(s)
	_, sum := get(t, h, "/api/session")
	for _, c := range []struct{ body, msg string }{
		{`{"path": "` + pathNoise + `", "params": {"op": "bogus"}}`, `trees.Sentry.children[0].children[0]: parameter "op": unknown operator "bogus"`},
		{`{"path": "` + pathInvestWait + `", "params": {"ticks": -2}}`, `parameter "ticks"`},
		{`{"path": "` + pathInvestWait + `", "params": {"ticks": "two"}}`, `parameter "ticks"`},
		{`{"path": "` + pathPatrolStep + `", "params": {"speed": 2}}`, `unknown parameter "speed"`},
		{`{"path": "` + pathNoise + `", "abort": "self"}`, `abort "self" is only allowed on Sequence, SequenceWithMemory and Selector`},
	} {
		code, ans := editTree(t, h, tid, c.body)
		if msg, _ := ans["error"].(string); code != 400 || !strings.Contains(msg, c.msg) || ans["compile"] != true {
			t.Errorf("%s: %d %v, want 400 with %q", c.body, code, ans, c.msg)
		}
	}
	if *calls != 5 {
		t.Errorf("Recompile called %d times, want 5", *calls)
	}
	after := treesOf(s)
	for i := range before {
		if before[i] != after[i] {
			t.Errorf("agent %d moved to another tree", i)
		}
	}
	if _, sum2 := get(t, h, "/api/session"); len(sum2["trees"].([]any)) != len(sum["trees"].([]any)) {
		t.Errorf("trees after refused edits: %v, before %v", sum2["trees"], sum["trees"])
	}
	if op := before[0].Document().Trees["Sentry"].Children[0].Children[0].Params["op"]; op != "exists" {
		t.Errorf("the tree's Document changed: op %v", op)
	}
}

// The edit changes a composite's abort mode (the description says which
// nodes take one), alone or with its name; the same mode changes nothing.
func TestEditAbort(t *testing.T) {
	s, h, tid, _ := editSession(t, Options{})
	_, info := get(t, h, fmt.Sprintf("/api/trees/%d", tid))
	var abortable []string
	for _, x := range info["nodes"].([]any) {
		if nd := x.(map[string]any); nd["abortable"] == true {
			abortable = append(abortable, fmt.Sprintf("%v %v", nd["label"], nd["abort"]))
		}
	}
	if got := strings.Join(abortable, ", "); got != "Selector <nil>, investigate lower, patrol <nil>" {
		t.Errorf("abortable nodes: %s", got)
	}
	code, ans := editTree(t, h, tid, `{"path": "Sentry.children[0]", "abort": "lower"}`)
	if code != 200 || ans["unchanged"] != true {
		t.Errorf("the same mode: %d %v", code, ans)
	}
	code, ans = editTree(t, h, tid, `{"path": "Sentry.children[0]", "abort": "both", "name": "look"}`)
	if code != 200 || ans["unchanged"] == true {
		t.Fatalf("abort both: %d %v", code, ans)
	}
	nt := treesOf(s)[0]
	if n := nt.Node(1); n.Abort != arbor.AbortBoth || n.Name != "look" {
		t.Errorf("after the edit: %s %q", n.Abort, n.Name)
	}
	code, ans = editTree(t, h, int(ans["tree"].(float64)), `{"path": "Sentry.children[0]", "abort": "none"}`)
	if code != 200 || treesOf(s)[0].Node(1).Abort != arbor.AbortNone || ans["undo"].(map[string]any)["count"] != 2.0 {
		t.Errorf("abort none: %d %v", code, ans)
	}
}

// Edits are controls: refused without them, without the token, from
// another origin; and refused when they name no node, a tree no longer
// run, or what an edit cannot change.
func TestEditRefused(t *testing.T) {
	s, h, tid, calls := editSession(t, Options{})
	path := fmt.Sprintf("/api/trees/%d/edit", tid)
	good := `{"path": "` + pathNoise + `", "params": {"op": "missing"}}`
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for k, v := range controlHeaders {
			m[k] = v
		}
		m[k] = v
		return m
	}
	cases := []apiErrorCase{
		{"no token", "POST", path, good, map[string]string{"Content-Type": "application/json"}, 401, "token"},
		{"bad token", "POST", path, good, with("X-Arbor-Token", "guess"), 401, "token"},
		{"other origin", "POST", path, good, with("Origin", "http://evil.example"), 403, "cross-origin"},
		{"other site", "POST", path, good, with("Sec-Fetch-Site", "cross-site"), 403, "cross-site"},
		{"not JSON", "POST", path, good, with("Content-Type", "text/plain"), 415, "Content-Type"},
		{"unknown path", "POST", path, `{"path": "` + pathMissing + `", "params": {"x": 1}}`, controlHeaders, 400, `no node at path "` + pathMissing + `" in tree`},
		{"path of no node, a prefix of one", "POST", path, `{"path": "` + pathPrefix + `", "params": {"x": 1}}`, controlHeaders, 400, "no node at path"},
		{"no path", "POST", path, `{"params": {"op": "missing"}}`, controlHeaders, 400, `want {"path"`},
		{"nothing to change", "POST", path, `{"path": "` + pathNoise + `"}`, controlHeaders, 400, `want {"path"`},
		{"a bad abort mode", "POST", path, `{"path": "Sentry.children[0]", "abort": "lowest"}`, controlHeaders, 400, `bad abort "lowest": want none, self, lower or both`},
		{"an empty abort mode", "POST", path, `{"path": "Sentry.children[0]", "abort": ""}`, controlHeaders, 400, `bad abort ""`},
		{"unknown field", "POST", path, `{"path": "` + pathNoise + `", "type": "Success"}`, controlHeaders, 400, "unknown field"},
		{"a SubTree's tree", "POST", path, `{"path": "` + pathRestCall + `", "params": {"tree": "Sentry"}}`, controlHeaders, 400, "a SubTree's tree cannot be edited"},
		{"children", "POST", path, `{"path": "` + pathNoise + `", "params": {"children": []}}`, controlHeaders, 400, `"children" is not a parameter`},
		{"abort", "POST", path, `{"path": "Sentry.children[0]", "params": {"abort": "none"}}`, controlHeaders, 400, `"abort" is not a parameter`},
		{"empty parameter name", "POST", path, `{"path": "` + pathNoise + `", "params": {"": 1}}`, controlHeaders, 400, "bad parameter name"},
		{"unknown tree", "POST", "/api/trees/99/edit", good, controlHeaders, 404, "no tree 99"},
		{"bad tree id", "POST", "/api/trees/x/edit", good, controlHeaders, 400, "bad tree id"},
	}
	checkAPIErrors(t, h, cases)
	if *calls != 0 {
		t.Errorf("refused edits compiled %d times", *calls)
	}
	// The guard's Check is a node like the others.
	if code, ans := editTree(t, h, tid, `{"path": "`+pathGuard+`", "params": {"key": "stuck"}}`); code != 200 {
		t.Fatalf("edit of a guard's node: %d %v", code, ans)
	}
	// The tree before the edit runs no more.
	code, ans := editTree(t, h, tid, good)
	if msg, _ := ans["error"].(string); code != http.StatusConflict || !strings.Contains(msg, "no longer runs") {
		t.Errorf("edit of a replaced tree: %d %v", code, ans)
	}
	_ = s

	// Without controls, or without Recompile: refused.
	ro := newTestSession(t, Options{Token: "secret", Recompile: func(*arbor.Tree, *arbor.Document) (*arbor.Tree, error) {
		t.Error("Recompile called without controls")
		return nil, nil
	}})
	tickN(ro, 0, 1)
	code, ans = editTree(t, ro.Handler(), 0, good)
	if msg, _ := ans["error"].(string); code != http.StatusForbidden || !strings.Contains(msg, "read-only") {
		t.Errorf("edit without controls: %d %v", code, ans)
	}
	if _, sum := get(t, ro.Handler(), "/api/session"); sum["edit"] != false {
		t.Errorf("session without controls: edit %v", sum["edit"])
	}
	nc, hc := newControlSession(t, Options{})
	tickN(nc, 0, 1)
	code, ans = editTree(t, hc, 0, good)
	if msg, _ := ans["error"].(string); code != http.StatusForbidden || !strings.Contains(msg, "editing is off") {
		t.Errorf("edit without Recompile: %d %v", code, ans)
	}
	if _, sum := get(t, hc, "/api/session"); sum["edit"] != false {
		t.Errorf("session without Recompile: edit %v", sum["edit"])
	}
	if _, sum := get(t, h, "/api/session"); sum["edit"] != true {
		t.Errorf("session with controls and Recompile: edit %v", sum["edit"])
	}
}

// A Recompile that panics is an error of the edit; the session's lock
// is released.
func TestEditRecompilePanics(t *testing.T) {
	s, h, tid, _ := editSession(t, Options{Recompile: func(*arbor.Tree, *arbor.Document) (*arbor.Tree, error) { panic("boom") }})
	code, ans := editTree(t, h, tid, `{"path": "`+pathNoise+`", "params": {"op": "missing"}}`)
	if msg, _ := ans["error"].(string); code != 400 || !strings.Contains(msg, "boom") {
		t.Errorf("edit: %d %v", code, ans)
	}
	tickN(s, 5, 1) // the lock is free
}

// download GETs a tree's document and returns its status, body and
// file name.
func download(t *testing.T, h http.Handler, path string) (int, []byte, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	_, params, _ := mime.ParseMediaType(rec.Header().Get("Content-Disposition"))
	return rec.Code, rec.Body.Bytes(), params["filename"]
}

// The document of a tree, as edited, downloads in each format, named
// after the file the tree came from.
func TestTreeDocument(t *testing.T) {
	s, h, tid, _ := editSession(t, Options{})
	code, ans := editTree(t, h, tid, `{"path": "`+pathNoise+`", "params": {"op": "missing"}, "name": "quiet?"}`)
	if code != 200 {
		t.Fatalf("edit: %d %v", code, ans)
	}
	nt := int(ans["tree"].(float64))
	for _, c := range []struct{ query, file string }{{"", "Sentry.json"}, {"?format=arbor", "Sentry.json"}, {"?format=b3", "Sentry.b3.json"}, {"?format=btcpp", "Sentry.xml"}} {
		code, data, file := download(t, h, fmt.Sprintf("/api/trees/%d/document%s", nt, c.query))
		if code != 200 || file != c.file {
			t.Errorf("%s: %d %q %.200s", c.query, code, file, data)
			continue
		}
		f := strings.TrimPrefix(c.query, "?format=")
		doc, err := format.Parse(data, f)
		if err != nil {
			t.Errorf("%s: %v\n%s", c.query, err, data)
			continue
		}
		tree, err := arbor.Compile(doc, testRegistry(t))
		if err != nil {
			t.Errorf("%s: %v\n%s", c.query, err, data)
			continue
		}
		if n := tree.Node(2); n.Params["op"] != "missing" || n.Name != "quiet?" {
			t.Errorf("%s: the Check reads %v, named %q\n%s", c.query, n.Params, n.Name, data)
		}
	}
	// The tree before the edit still downloads, unedited.
	if _, data, _ := download(t, h, fmt.Sprintf("/api/trees/%d/document", tid)); !strings.Contains(string(data), `"exists"`) || strings.Contains(string(data), "quiet?") {
		t.Errorf("the tree before the edit: %s", data)
	}
	for _, c := range []struct {
		path string
		code int
	}{{fmt.Sprintf("/api/trees/%d/document?format=png", nt), 400}, {"/api/trees/99/document", 404}, {"/api/trees/x/document", 400}} {
		if code, data, _ := download(t, h, c.path); code != c.code {
			t.Errorf("%s: %d %s, want %d", c.path, code, data, c.code)
		}
	}
	_ = s
}

// With TreeSource, a tree downloads in the format of its file, under
// its name; so does a tree an edit made of it.
func TestTreeDocumentSource(t *testing.T) {
	var sentry *arbor.Tree
	opts := Options{TreeSource: func(tr *arbor.Tree) (string, string) {
		if tr == sentry {
			return "trees/sentry.yaml", ""
		}
		return "", ""
	}}
	reg := testRegistry(t)
	opts.Recompile = func(_ *arbor.Tree, doc *arbor.Document) (*arbor.Tree, error) { return arbor.Compile(doc, reg) }
	opts.Controls, opts.Token = true, "secret"
	s := newTestSession(t, opts)
	s.Do(func(m *arbor.Manager) { sentry = m.Agent(0).Tree() })
	h := s.Handler()
	tickN(s, 0, 1)
	_, a := get(t, h, "/api/agents/0")
	tid := int(a["tree"].(float64))
	if _, td := get(t, h, fmt.Sprintf("/api/trees/%d", tid)); fmt.Sprint(td["source"]) != "map[file:sentry.yaml format:arbor]" {
		t.Errorf("the tree's source: %v", td["source"])
	}
	code, ans := editTree(t, h, tid, `{"path": "`+pathNoise+`", "params": {"op": "missing"}}`)
	if code != 200 {
		t.Fatalf("edit: %d %v", code, ans)
	}
	code, data, file := download(t, h, fmt.Sprintf("/api/trees/%v/document", ans["tree"]))
	if code != 200 || file != "sentry.yaml" || !strings.Contains(string(data), "op: missing") {
		t.Errorf("download: %d %q\n%s", code, file, data)
	}
	if _, _, file := download(t, h, fmt.Sprintf("/api/trees/%v/document?format=btcpp", ans["tree"])); file != "sentry.xml" {
		t.Errorf("download as btcpp: %q", file)
	}
	// However many edits follow one another (a chain the source lookup
	// once followed, up to 1,000 links).
	last := ans["tree"]
	for i := 0; i < 1005; i++ {
		op := []string{"exists", "missing"}[i%2]
		code, ans := editTree(t, h, int(last.(float64)), `{"path": "`+pathNoise+`", "params": {"op": "`+op+`"}}`)
		if code != 200 {
			t.Fatalf("edit %d: %d %v", i, code, ans)
		}
		last = ans["tree"]
	}
	if _, _, file := download(t, h, fmt.Sprintf("/api/trees/%v/document", last)); file != "sentry.yaml" {
		t.Errorf("download after 1,006 edits: %q", file)
	}
	// A tree of no file: named after the tree.
	_, b := get(t, h, "/api/agents/5")
	if _, _, file := download(t, h, fmt.Sprintf("/api/trees/%v/document", b["tree"])); file != "Blink.json" {
		t.Errorf("download of the blinker: %q", file)
	}
}

// typesOf returns the node types' parameters the description of tree tid
// carries, as JSON by type ("" when it carries none).
func typesOf(t *testing.T, h http.Handler, tid any) map[string]string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, fmt.Sprintf("/api/trees/%v", tid), nil))
	var td struct {
		Nodes []any                      `json:"nodes"`
		Types map[string]json.RawMessage `json:"types"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &td); rec.Code != 200 || err != nil || len(td.Nodes) == 0 {
		t.Fatalf("tree %v: %d %v %s", tid, rec.Code, err, rec.Body)
	}
	out := map[string]string{}
	for k, v := range td.Types {
		out[k] = string(v)
	}
	return out
}

// addTinker adds an agent running tinkerTree and returns its tree's id.
func addTinker(t *testing.T, s *Session, h http.Handler) any {
	t.Helper()
	tree := tinkerTree(t)
	var id int
	s.Do(func(m *arbor.Manager) { id = m.Add(tree).ID() })
	_, a := get(t, h, fmt.Sprintf("/api/agents/%d", id))
	return a["tree"]
}

// The description of a tree carries, when the page may edit, the
// parameters of its node types and of its palette's (the types a shape
// edit adds), once per type (those that take any): the built-ins' without
// Options.Registry, the program's too with it. Neither an export nor a
// session that cannot edit carries them.
func TestTreeTypes(t *testing.T) {
	const (
		set  = `{"params":[{"name":"key","kind":"string","required":true},{"name":"value","kind":"other","required":true,"ref":true},{"name":"ttlMs","kind":"number"}]}`
		wait = `{"params":[{"name":"ticks","kind":"number"},{"name":"ms","kind":"number"}]}`
		aim  = `{"params":[{"name":"speed","kind":"number","default":1.5},{"name":"loud","kind":"bool","default":false},` +
			`{"name":"tags","kind":"list","default":[]},{"name":"target","kind":"string","ref":true,"default":""},{"name":"extra","kind":"other","default":{}}]}`
		note = `{"anyParams":true}`
	)
	s, h, tid, _ := editSession(t, Options{})
	types := typesOf(t, h, tid)
	// The 18 built-ins that take parameters.
	if types["Set"] != set || types["Wait"] != wait || len(types) != 18 || types["Check"] == "" || types["SubTree"] == "" || types["Repeat"] == "" {
		t.Errorf("the sentry's types, built-ins only:\n%v", types)
	}
	// A program type is not described without Options.Registry.
	if types := typesOf(t, h, addTinker(t, s, h)); types["Wait"] != wait || types["Aim"] != "" || len(types) != 18 {
		t.Errorf("Tinker's types, built-ins only: %v", types)
	}

	s, h, tid, _ = editSession(t, Options{Registry: testRegistry(t)})
	if types := typesOf(t, h, tid); types["Set"] != set || types["Aim"] != aim || types["Step"] != "" || len(types) != 20 {
		t.Errorf("the sentry's types with the registry (Step takes no parameters): %v", types)
	}
	if types := typesOf(t, h, addTinker(t, s, h)); types["Aim"] != aim || types["Note"] != note || types["Wait"] != wait || len(types) != 20 {
		t.Errorf("Tinker's types with the registry:\n%v", types)
	}
	// Not in an export: a recording does not edit.
	if _, ex := get(t, h, "/api/agents/0/export"); ex["tree"] == nil || ex["tree"].(map[string]any)["types"] != nil {
		t.Errorf("an export's tree carries types: %v", ex["tree"])
	}

	// No editing, no types: without Recompile, or without Controls.
	for _, opts := range []Options{{Controls: true, Token: "secret", Registry: testRegistry(t)}, {Registry: testRegistry(t),
		Recompile: func(*arbor.Tree, *arbor.Document) (*arbor.Tree, error) { return nil, nil }}} {
		s := newTestSession(t, opts)
		h := s.Handler()
		tickN(s, 0, 1)
		_, a := get(t, h, "/api/agents/0")
		if types := typesOf(t, h, a["tree"]); len(types) != 0 {
			t.Errorf("types without editing (controls %v): %v", opts.Controls, types)
		}
		if types := typesOf(t, h, addTinker(t, s, h)); len(types) != 0 {
			t.Errorf("Tinker's types without editing (controls %v): %v", opts.Controls, types)
		}
	}
}
