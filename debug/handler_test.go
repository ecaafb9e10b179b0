package debug

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// testTrees compiles the two trees the tests run: a sentry that patrols
// and investigates noises (aborts, a guard, blackboard writes) and a tiny
// blinker.
func testTrees(t testing.TB) (sentry, blink *arbor.Tree) {
	t.Helper()
	reg := testRegistry(t)
	doc := &arbor.Document{Main: "Sentry", Trees: map[string]*arbor.Node{
		"Sentry": arbor.Selector(
			arbor.Sequence(arbor.Check("noise", "exists"), arbor.Set("mode", "investigating"), arbor.WaitTicks(2)).
				Named("investigate").WithAbort(arbor.AbortLower),
			arbor.Sequence(arbor.Set("mode", "patrolling"), arbor.WaitTicks(1), arbor.Leaf("Step"), arbor.SubTree("Rest")).
				Named("patrol").WithGuard(arbor.Check("blocked", "missing")),
		),
		"Rest": arbor.WaitTicks(1),
	}}
	var err error
	if sentry, err = arbor.Compile(doc, reg); err != nil {
		t.Fatal(err)
	}
	if blink, err = arbor.Compile(&arbor.Document{Main: "Blink", Trees: map[string]*arbor.Node{
		"Blink": arbor.Sequence(arbor.WaitTicks(1), arbor.AlwaysFailure()),
	}}, reg); err != nil {
		t.Fatal(err)
	}
	return sentry, blink
}

// testRegistry is the registry of testTrees: the built-ins and Step, an
// action that succeeds; and, for the edit form's parameters (tinkerTree),
// Aim (aim) and Note, an action that succeeds and takes any parameters.
func testRegistry(t testing.TB) *arbor.Registry {
	t.Helper()
	reg := arbor.NewRegistry()
	succeed := func(c *arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }
	for _, err := range []error{
		reg.ActionFunc("Step", succeed),
		arbor.RegisterAction[aim, struct{}](reg, "Aim"),
		reg.ActionFunc("Note", succeed, arbor.AnyParams()),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// aim is an action with optional parameters of every kind the edit form
// knows: it writes its speed to the blackboard (key "speed") and
// succeeds.
type aim struct {
	Speed  float64             `arbor:"speed,default=1.5"`
	Loud   bool                `arbor:"loud"`
	Tags   []string            `arbor:"tags"`
	Target arbor.Param[string] `arbor:"target"`
	Extra  map[string]any      `arbor:"extra"`
}

func (a *aim) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	c.Blackboard().Set("speed", a.Speed)
	return arbor.Success, nil
}

// tinkerTree is a tree of testRegistry's Aim and Note:
// Sequence(Aim target "door", Note mood "calm", Wait ticks 1).
func tinkerTree(t testing.TB) *arbor.Tree {
	t.Helper()
	tree, err := arbor.Compile(&arbor.Document{Main: "Tinker", Trees: map[string]*arbor.Node{
		"Tinker": arbor.Sequence(arbor.Leaf("Aim", "target", "door"), arbor.Leaf("Note", "mood", "calm"), arbor.WaitTicks(1)),
	}}, testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// newTestSession makes a session with 5 sentries (ids 0-4) and 3 blinkers
// (ids 5-7).
func newTestSession(t testing.TB, opts Options) *Session {
	t.Helper()
	sentry, blink := testTrees(t)
	m := arbor.NewManager(arbor.WithWorkers(1))
	for i := 0; i < 5; i++ {
		m.Add(sentry)
	}
	for i := 0; i < 3; i++ {
		m.Add(blink)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Label == nil {
		opts.Label = func(a *arbor.Agent) string { return "unit-" + a.Tree().Name() }
	}
	return NewSession(m, opts)
}

// tickN ticks the session n times, 100 ms apart, after tick from.
func tickN(s *Session, from, n int) {
	for i := from + 1; i <= from+n; i++ {
		s.Tick(time.Duration(i) * 100 * time.Millisecond)
	}
}

func get(t *testing.T, h http.Handler, path string) (int, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	var body map[string]any
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("GET %s: bad JSON %q: %v", path, rec.Body.String(), err)
		}
	}
	return rec.Code, body
}

var scriptSrc = regexp.MustCompile(`<script src="([^"]+)"></script>`)

// pageScripts lists the scripts a page loads, in order, as paths from the
// handler's root.
func pageScripts(page string) []string {
	var paths []string
	for _, m := range scriptSrc.FindAllStringSubmatch(page, -1) {
		paths = append(paths, "/"+m[1])
	}
	return paths
}

func TestEndpoints(t *testing.T) {
	s := newTestSession(t, Options{})
	tickN(s, 0, 3)
	h := s.Handler()

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "<svg id=\"tree\"") {
		t.Fatalf("page: %d %.200s", rec.Code, rec.Body.String())
	}
	// The page's scripts (in order, start.js last) and its style sheet.
	scripts := pageScripts(rec.Body.String())
	if len(scripts) == 0 || scripts[len(scripts)-1] != "/static/start.js" {
		t.Errorf("page scripts: %v, want start.js last", scripts)
	}
	// Every script in static is one the page loads.
	if files, err := fs.Glob(static, "static/*.js"); err != nil || len(files) != len(scripts) {
		t.Errorf("static has %v (%v), the page loads %v", files, err, scripts)
	}
	for _, asset := range append(scripts, "/static/style.css") {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, asset, nil))
		ct, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type"))
		typeOK := ct == "text/css"
		if strings.HasSuffix(asset, ".js") {
			typeOK = ct == "text/javascript" || ct == "application/javascript"
		}
		if rec.Code != 200 || !typeOK || rec.Body.Len() == 0 {
			t.Errorf("%s: %d, %s, %d bytes", asset, rec.Code, rec.Header().Get("Content-Type"), rec.Body.Len())
		}
	}

	code, sess := get(t, h, "/api/session")
	if code != 200 || sess["tick"].(float64) != 3 || sess["agents"].(float64) != 8 || sess["controls"] != false {
		t.Fatalf("session: %d %v", code, sess)
	}
	trees := sess["trees"].([]any)
	if len(trees) != 2 || trees[0].(map[string]any)["name"] != "Sentry" || trees[0].(map[string]any)["count"].(float64) != 5 ||
		trees[1].(map[string]any)["count"].(float64) != 3 {
		t.Fatalf("tree counts: %v", trees)
	}

	cases := []struct {
		query string
		want  int
	}{
		{"", 8}, {"?tree=0", 5}, {"?tree=1", 3}, {"?tree=1&status=running", 3}, {"?status=failure", 0},
		{"?q=blink", 3}, {"?q=7", 1}, {"?limit=2", 8}, {"?status=paused", 0},
	}
	for _, c := range cases {
		code, list := get(t, h, "/api/agents"+c.query)
		if code != 200 || int(list["matches"].(float64)) != c.want {
			t.Errorf("agents%s: %d, matches %v, want %d", c.query, code, list["matches"], c.want)
		}
	}
	_, list := get(t, h, "/api/agents?limit=2&offset=3")
	agents := list["agents"].([]any)
	if len(agents) != 2 || agents[0].(map[string]any)["id"].(float64) != 3 || agents[0].(map[string]any)["label"] != "unit-Sentry" {
		t.Fatalf("paged agents: %v", agents)
	}

	code, a := get(t, h, "/api/agents/6")
	if code != 200 || a["treeName"] != "Blink" || a["status"] != "running" || a["watched"] != false {
		t.Fatalf("agent 6: %d %v", code, a)
	}
	code, tree := get(t, h, "/api/trees/0")
	nodes := tree["nodes"].([]any)
	if code != 200 || len(nodes) != s.Manager().Agent(0).Tree().Len() {
		t.Fatalf("tree: %d %v", code, tree)
	}
	first := nodes[1].(map[string]any)
	if first["label"] != "investigate" || first["abort"] != "lower" || first["sub"] != "Sequence" {
		t.Errorf("node 1: %v", first)
	}
	guarded := 0
	for _, n := range nodes {
		if n.(map[string]any)["guard"].(float64) >= 0 {
			guarded++
		}
	}
	if guarded != 1 {
		t.Errorf("%d guarded nodes, want 1", guarded)
	}

	s.Do(func(m *arbor.Manager) {
		m.Agent(0).Blackboard().SetTTL("noise", "rustle", time.Second)
		m.Globals().Set("@alarm", true)
	})
	code, bb := get(t, h, "/api/agents/0/blackboard")
	if code != 200 {
		t.Fatalf("blackboard: %d", code)
	}
	local := bb["agentScope"].([]any)
	var keys []string
	for _, e := range local {
		e := e.(map[string]any)
		keys = append(keys, e["key"].(string))
		if e["key"] == "noise" && (e["type"] != "string" || e["value"] != "rustle" || e["expiresMs"].(float64) != 1300) {
			t.Errorf("noise entry: %v", e)
		}
	}
	if strings.Join(keys, ",") != "mode,noise" {
		t.Errorf("agent keys %v", keys)
	}
	if g := bb["globalScope"].([]any); len(g) != 1 || g[0].(map[string]any)["value"] != true {
		t.Errorf("global scope %v", g)
	}
	if code, g := get(t, h, "/api/globals"); code != 200 || len(g["globalScope"].([]any)) != 1 {
		t.Errorf("globals: %d %v", code, g)
	}
	// Not watched: empty timeline and statistics, no records.
	if code, tl := get(t, h, "/api/agents/0/timeline"); code != 200 || tl["watching"] != false || len(tl["ticks"].([]any)) != 0 {
		t.Errorf("timeline of unwatched agent: %d %v", code, tl)
	}
	if code, st := get(t, h, "/api/agents/0/stats"); code != 200 || st["watching"] != false {
		t.Errorf("stats of unwatched agent: %d %v", code, st)
	}
}

func TestBadRequests(t *testing.T) {
	s := newTestSession(t, Options{})
	tickN(s, 0, 1)
	h := s.Handler()
	cases := []struct {
		path string
		code int
	}{
		{"/api/agents/abc", 400},
		{"/api/agents/-1", 400},
		{"/api/agents/99999999999999999999999", 400},
		{"/api/agents/8", 404},
		{"/api/agents/999/blackboard", 404},
		{"/api/agents/999/timeline", 404},
		{"/api/agents/x/stats", 400},
		{"/api/agents/0/ticks/zz", 400},
		{"/api/agents/0/ticks/1", 404}, // not watched
		{"/api/agents/999/export", 404},
		{"/api/trees/7", 404},
		{"/api/trees/x", 404},
		{"/api/agents?status=bogus", 400},
		{"/api/agents?tree=x", 400},
		{"/api/agents?limit=0", 400},
		{"/api/agents?offset=-3", 400},
		{"/api/stream?agent=x", 400},
		{"/api/stream?agent=42", 404},
		{"/api/nothing", 404},
	}
	for _, c := range cases {
		code, body := get(t, h, c.path)
		if code != c.code {
			t.Errorf("GET %s: %d, want %d", c.path, code, c.code)
		}
		if code >= 400 && code != 404 || strings.HasPrefix(c.path, "/api/agents/") && code >= 400 {
			if body == nil || body["error"] == "" {
				t.Errorf("GET %s: no JSON error: %v", c.path, body)
			}
		}
	}
}

// do sends a request with headers and returns the code and JSON body.
func do(t *testing.T, h http.Handler, method, path, body string, headers map[string]string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Host = "127.0.0.1:7777"
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var out map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil && rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("%s %s: bad JSON %q", method, path, rec.Body.String())
	}
	return rec.Code, out
}

func TestReadOnlyRejectsWrites(t *testing.T) {
	s := newTestSession(t, Options{Token: "secret"}) // a token alone does not enable controls
	tickN(s, 0, 1)
	h := s.Handler()
	hdr := map[string]string{"X-Arbor-Token": "secret", "Content-Type": "application/json"}
	for _, path := range []string{"/api/agents/0/pause", "/api/agents/0/resume", "/api/agents/0/step", "/api/agents/0/blackboard", "/api/globals"} {
		code, body := do(t, h, http.MethodPost, path, `{"key":"x","value":1}`, hdr)
		if code != http.StatusForbidden || !strings.Contains(body["error"].(string), "read-only") {
			t.Errorf("POST %s: %d %v", path, code, body)
		}
	}
	if code, _ := do(t, h, http.MethodGet, "/api/agents/0/pause", "", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("GET pause: %d, want 405", code)
	}
	if code, _ := do(t, h, http.MethodDelete, "/api/agents/0", "", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("DELETE agent: %d, want 405", code)
	}
	s.Do(func(m *arbor.Manager) {
		if m.Agent(0).Paused() {
			t.Error("a read-only debugger paused an agent")
		}
		if _, ok := m.Agent(0).Blackboard().Lookup("x"); ok {
			t.Error("a read-only debugger wrote the blackboard")
		}
	})
	if s.Token() != "" {
		t.Error("Token() should be empty without controls")
	}
}

func TestControls(t *testing.T) {
	s := newTestSession(t, Options{Controls: true, Token: "secret"})
	tickN(s, 0, 1)
	h := s.Handler()
	good := map[string]string{"X-Arbor-Token": "secret", "Content-Type": "application/json", "Origin": "http://127.0.0.1:7777", "Sec-Fetch-Site": "same-origin"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range good {
			m[a] = b
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	refused := []struct {
		name string
		hdr  map[string]string
		code int
	}{
		{"no token", with("X-Arbor-Token", ""), 401},
		{"wrong token", with("X-Arbor-Token", "guess"), 401},
		{"other origin", with("Origin", "http://evil.example"), 403},
		{"null origin", with("Origin", "null"), 403},
		{"cross-site fetch", with("Sec-Fetch-Site", "cross-site"), 403},
	}
	for _, c := range refused {
		if code, body := do(t, h, http.MethodPost, "/api/agents/0/pause", "{}", c.hdr); code != c.code {
			t.Errorf("%s: %d %v, want %d", c.name, code, body, c.code)
		}
	}
	bearer := with("X-Arbor-Token", "")
	bearer["Authorization"] = "Bearer secret"
	if code, body := do(t, h, http.MethodPost, "/api/agents/0/pause", "{}", bearer); code != 200 || body["agent"].(map[string]any)["paused"] != true {
		t.Fatalf("pause with bearer token: %d %v", code, body)
	}
	// A paused agent does not tick; step runs it for exactly one tick.
	tickN(s, 1, 2)
	s.Do(func(m *arbor.Manager) {
		if now := m.Agent(0).Now(); now != 100*time.Millisecond {
			t.Errorf("paused agent ticked: now %v", now)
		}
	})
	if code, body := do(t, h, http.MethodPost, "/api/agents/0/step", "", good); code != 200 {
		t.Fatalf("step: %d %v", code, body)
	}
	tickN(s, 3, 2)
	s.Do(func(m *arbor.Manager) {
		a := m.Agent(0)
		if a.Now() != 400*time.Millisecond || !a.Paused() {
			t.Errorf("after step: now %v paused %v, want 400ms and paused", a.Now(), a.Paused())
		}
	})
	if code, _ := do(t, h, http.MethodPost, "/api/agents/0/resume", "", good); code != 200 {
		t.Fatalf("resume: %d", code)
	}
	tickN(s, 5, 1)
	s.Do(func(m *arbor.Manager) {
		if a := m.Agent(0); a.Paused() || a.Now() != 600*time.Millisecond {
			t.Errorf("after resume: paused %v now %v", a.Paused(), a.Now())
		}
	})

	// Blackboard writes.
	if code, body := do(t, h, http.MethodPost, "/api/agents/1/blackboard", `{"key":"noise","value":"bang","ttlMs":250}`, good); code != 200 {
		t.Fatalf("set: %d %v", code, body)
	}
	if code, _ := do(t, h, http.MethodPost, "/api/agents/1/blackboard", `{"key":"speed","value":{"x":[1,2]}}`, good); code != 200 {
		t.Fatalf("set object: %d", code)
	}
	if code, _ := do(t, h, http.MethodPost, "/api/globals", `{"key":"@alarm","value":true}`, good); code != 200 {
		t.Fatalf("set global: %d", code)
	}
	s.Do(func(m *arbor.Manager) {
		bb := m.Agent(1).Blackboard()
		if v, ok := bb.Lookup("noise"); !ok || v.String() != `"bang"` {
			t.Errorf("noise = %v %v", v, ok)
		}
		if v, ok := m.Globals().Lookup("alarm", 0); !ok || v.String() != "true" {
			t.Errorf("@alarm = %v %v", v, ok)
		}
	})
	// A write that changes a key's kind is done, with a warning.
	for _, tc := range []struct{ body, warning string }{
		{`{"key":"noise","value":3}`, "noise held a string and now holds a number: nodes that read it as before will fail"},
		{`{"key":"noise","value":4}`, ""},
		{`{"key":"fresh","value":"x"}`, ""},
	} {
		code, body := do(t, h, http.MethodPost, "/api/agents/1/blackboard", tc.body, good)
		if w, _ := body["warning"].(string); code != 200 || !strings.HasPrefix(w, tc.warning) || (tc.warning == "") != (w == "") {
			t.Errorf("%s: %d, warning %q, want %q", tc.body, code, w, tc.warning)
		}
	}
	if code, _ := do(t, h, http.MethodPost, "/api/agents/1/blackboard", `{"key":"noise","value":null}`, good); code != 200 {
		t.Fatalf("delete: %d", code)
	}
	s.Do(func(m *arbor.Manager) {
		if _, ok := m.Agent(1).Blackboard().Lookup("noise"); ok {
			t.Error("noise not deleted")
		}
	})
	bad := []struct {
		name, path, body string
		hdr              map[string]string
		code             int
	}{
		{"form content type", "/api/agents/1/blackboard", `{"key":"a","value":1}`, with("Content-Type", "application/x-www-form-urlencoded"), 415},
		{"bad JSON", "/api/agents/1/blackboard", `{"key":`, good, 400},
		{"unknown field", "/api/agents/1/blackboard", `{"key":"a","valu":1}`, good, 400},
		{"trailing data", "/api/agents/1/blackboard", `{"key":"a","value":1} {}`, good, 400},
		{"empty key", "/api/agents/1/blackboard", `{"key":" ","value":1}`, good, 400},
		{"negative ttl", "/api/agents/1/blackboard", `{"key":"a","value":1,"ttlMs":-5}`, good, 400},
		{"global ttl", "/api/globals", `{"key":"@a","value":1,"ttlMs":5}`, good, 400},
		{"unknown agent", "/api/agents/77/pause", ``, good, 404},
		{"bad agent id", "/api/agents/zz/pause", ``, good, 400},
		{"unknown op", "/api/agents/1/explode", ``, good, 404},
		{"huge body", "/api/agents/1/blackboard", `{"key":"a","value":"` + strings.Repeat("x", 70000) + `"}`, good, 400},
	}
	for _, c := range bad {
		if code, body := do(t, h, http.MethodPost, c.path, c.body, c.hdr); code != c.code {
			t.Errorf("%s: %d %v, want %d", c.name, code, body, c.code)
		}
	}
}

func TestGeneratedToken(t *testing.T) {
	s := newTestSession(t, Options{Controls: true})
	if len(s.Token()) != 32 {
		t.Fatalf("token %q", s.Token())
	}
	if other := newTestSession(t, Options{Controls: true}); other.Token() == s.Token() {
		t.Fatal("two sessions share a token")
	}
}

func TestTimelineScrubAndExport(t *testing.T) {
	s := newTestSession(t, Options{History: 6})
	tickN(s, 0, 2)
	stop, err := s.Watch(0)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if _, err := s.Watch(100); !errors.Is(err, ErrNoAgent) {
		t.Fatalf("Watch(100): %v", err)
	}
	tickN(s, 2, 10)
	h := s.Handler()
	code, tl := get(t, h, "/api/agents/0/timeline")
	ticks := tl["ticks"].([]any)
	if code != 200 || tl["watching"] != true || len(ticks) != 6 {
		t.Fatalf("timeline: %d %v", code, tl)
	}
	firstSeq := ticks[0].([]any)[0].(float64)
	lastSeq := ticks[5].([]any)[0].(float64)
	if firstSeq != 5 || lastSeq != 10 || ticks[5].([]any)[1].(float64) != 12 {
		t.Fatalf("records %v..%v: %v", firstSeq, lastSeq, ticks)
	}
	if code, _ := get(t, h, "/api/agents/0/ticks/4"); code != 404 {
		t.Errorf("dropped record: %d, want 404", code)
	}
	// Every kept tick is served, and the node statuses change over ticks.
	seen := map[string]bool{}
	for seq := 5; seq <= 10; seq++ {
		code, v := get(t, h, "/api/agents/0/ticks/"+strconv.Itoa(seq))
		if code != 200 {
			t.Fatalf("tick %d: %d %v", seq, code, v)
		}
		nodes := v["nodes"].(string)
		if len(nodes) != s.Manager().Agent(0).Tree().Len() {
			t.Fatalf("tick %d: nodes %q", seq, nodes)
		}
		if nodes[0] < 'A' || nodes[0] > 'Z' {
			t.Errorf("tick %d: root %q, want visited", seq, nodes[0])
		}
		if len(v["events"].([]any)) == 0 || v["running"] == nil {
			t.Errorf("tick %d: no events or running paths: %v", seq, v)
		}
		seen[nodes] = true
	}
	if len(seen) < 2 {
		t.Errorf("node statuses never changed: %v", seen)
	}
	// The newest record reconstructed from history equals the live view.
	s.mu.Lock()
	w := s.watches[0]
	hist, _ := w.statusesAt(w.seq)
	live := w.liveStatuses()
	s.mu.Unlock()
	if hist != live {
		t.Errorf("history %q != live %q", hist, live)
	}

	code, st := get(t, h, "/api/agents/0/stats")
	rows := st["nodes"].([]any)
	root := rows[0].([]any)
	if code != 200 || root[0].(float64) != 10 || root[1].(float64)+root[3].(float64) != 10 {
		t.Errorf("root stats %v", root)
	}
	if root[7].(float64) <= 0 {
		t.Errorf("root time %v, want > 0", root[7])
	}

	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/agents/0/export", nil))
	if rec.Code != 200 || !strings.Contains(rec.Header().Get("Content-Disposition"), "agent-0.json") {
		t.Fatalf("export: %d %v", rec.Code, rec.Header())
	}
	var ex struct {
		Format string
		Tree   struct{ Nodes []any }
		Base   string
		Ticks  []struct {
			Seq    uint64
			Nodes  string
			Events []any
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &ex); err != nil {
		t.Fatal(err)
	}
	if ex.Format != "arbor-debug/1" || len(ex.Ticks) != 6 || ex.Ticks[0].Seq != 5 || len(ex.Tree.Nodes) != len(ex.Base) {
		t.Fatalf("export: %+v", ex)
	}
	_, v := get(t, h, "/api/agents/0/ticks/7")
	if ex.Ticks[2].Nodes != v["nodes"] {
		t.Errorf("export tick 7 %q != served %q", ex.Ticks[2].Nodes, v["nodes"])
	}
}

func TestWatchLingersThenEnds(t *testing.T) {
	s := newTestSession(t, Options{Linger: time.Millisecond})
	stop, err := s.Watch(3)
	if err != nil {
		t.Fatal(err)
	}
	tickN(s, 0, 2)
	stop()
	stop() // idempotent
	time.Sleep(5 * time.Millisecond)
	tickN(s, 2, 1)
	s.mu.Lock()
	n := len(s.watches)
	s.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d watches left", n)
	}
}

func TestRemovedAgentEndsWatch(t *testing.T) {
	s := newTestSession(t, Options{})
	stop, err := s.Watch(2)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	tickN(s, 0, 1)
	s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(2)) })
	tickN(s, 1, 1)
	s.mu.Lock()
	_, still := s.watches[2]
	s.mu.Unlock()
	if still {
		t.Fatal("watch of a removed agent kept")
	}
}

// readEvents reads SSE events from r until n "agent" events arrived or
// the deadline passed.
func readEvents(t *testing.T, body io.Reader, n int, deadline time.Duration) (agents []map[string]any, summaries int) {
	t.Helper()
	ch := scanSSE(body, 0)
	timeout := time.After(deadline)
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				return
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(e.data), &m); err != nil {
				t.Fatalf("event %s: bad JSON %q", e.name, e.data)
			}
			switch e.name {
			case "summary":
				summaries++
			case "agent":
				agents = append(agents, m)
				if len(agents) >= n {
					return
				}
			}
		case <-timeout:
			return
		}
	}
}

func TestEventStream(t *testing.T) {
	s := newTestSession(t, Options{MaxRate: 20})
	resp := openStream(t, s.Handler(), 1)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("stream: %d %v", resp.StatusCode, resp.Header)
	}
	// The stream watches the agent.
	s.mu.Lock()
	w := s.watches[1]
	s.mu.Unlock()
	if w == nil {
		t.Fatal("stream did not watch agent 1")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; ctx.Err() == nil; i++ {
			s.Tick(time.Duration(i) * 100 * time.Millisecond)
			time.Sleep(10 * time.Millisecond)
		}
	}()
	agents, summaries := readEvents(t, resp.Body, 4, 5*time.Second)
	if len(agents) < 4 || summaries < 4 {
		t.Fatalf("%d agent events, %d summaries", len(agents), summaries)
	}
	last := agents[len(agents)-1]
	if len(last["nodes"].(string)) != s.Manager().Agent(1).Tree().Len() || last["agent"].(map[string]any)["id"].(float64) != 1 {
		t.Fatalf("agent event: %v", last)
	}
	// Timeline entries are sent once each.
	var seqs []float64
	for _, a := range agents {
		for _, tk := range a["timeline"].([]any) {
			seqs = append(seqs, tk.([]any)[0].(float64))
		}
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("timeline seqs %v", seqs)
		}
	}
	cancel()
	<-done
	resp.Body.Close()
	// Closing the stream releases the viewer.
	deadline := time.Now().Add(2 * time.Second)
	for {
		s.mu.Lock()
		v := w.viewers
		s.mu.Unlock()
		if v == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("viewers %d after the stream closed", v)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestEventStreamThrottled(t *testing.T) {
	s := newTestSession(t, Options{MaxRate: 4})
	resp := openStream(t, s.Handler(), 0)
	stopTicks := make(chan struct{})
	ticked := make(chan int)
	go func() {
		n := 0
		for {
			select {
			case <-stopTicks:
				ticked <- n
				return
			default:
			}
			n++
			s.Tick(time.Duration(n) * time.Millisecond)
			time.Sleep(time.Millisecond)
		}
	}()
	agents, _ := readEvents(t, resp.Body, 1000, time.Second)
	close(stopTicks)
	n := <-ticked
	// One second at 4 updates/s: the first update, then at most ~4 more.
	if len(agents) > 6 || len(agents) < 2 {
		t.Fatalf("%d updates in 1s for %d ticks at MaxRate 4", len(agents), n)
	}
	if n < 50 {
		t.Logf("only %d ticks ran", n)
	}
}

func TestRedirectUnderPrefix(t *testing.T) {
	s := newTestSession(t, Options{})
	mux := http.NewServeMux()
	mux.Handle("/debug/arbor/", http.StripPrefix("/debug/arbor", s.Handler()))
	mux.Handle("/debug/arbor", http.StripPrefix("/debug/arbor", s.Handler()))
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/arbor", nil))
	if rec.Code != http.StatusMovedPermanently || rec.Header().Get("Location") != "/debug/arbor/" {
		t.Fatalf("redirect: %d %v", rec.Code, rec.Header())
	}
	rec = httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/debug/arbor/api/session", nil))
	if rec.Code != 200 {
		t.Fatalf("mounted API: %d", rec.Code)
	}
}

func TestListenAndLoopbackHosts(t *testing.T) {
	ln, err := Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ln.Addr().String(), "127.0.0.1:") {
		t.Fatalf("Listen(\":0\") bound %s", ln.Addr())
	}
	s := newTestSession(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, s.Handler()) }()
	url := "http://" + ln.Addr().String()
	resp, err := http.Get(url + "/api/session")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("loopback host: %d", resp.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodGet, url+"/api/session", nil)
	req.Host = "attacker.example:80"
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign host: %d, want 403", resp.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{"localhost:1": true, "127.0.0.2": true, "[::1]:80": true, "app.localhost": true, "example.com": false, "10.0.0.1:80": false} {
		if isLoopbackHost(host) != want {
			t.Errorf("isLoopbackHost(%q) = %v", host, !want)
		}
	}
	if _, err := Listen("nonsense"); err == nil {
		t.Error("Listen(nonsense) succeeded")
	}
}

// A guard's nodes get statuses from their evaluations: the patrol's guard
// (blocked missing) succeeds, then fails once "blocked" is set.
func TestGuardStatuses(t *testing.T) {
	s := newTestSession(t, Options{})
	stop, err := s.Watch(0)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	sentry := s.m.Agents()[0].Tree()
	guard := -1
	for i := 0; i < sentry.Len(); i++ {
		if sentry.Node(i).GuardOf >= 0 {
			guard = i
		}
	}
	if guard < 0 {
		t.Fatal("the sentry tree has no guard")
	}
	h := s.Handler()
	letter := func(seq int) string {
		t.Helper()
		code, v := get(t, h, "/api/agents/0/ticks/"+strconv.Itoa(seq))
		if code != 200 {
			t.Fatalf("latest tick: %d %v", code, v)
		}
		return v["nodes"].(string)[guard : guard+1]
	}
	tickN(s, 0, 1)
	if l := letter(1); l != "S" {
		t.Errorf("guard passing: status %q, want S (success, this tick)", l)
	}
	s.m.Agents()[0].Blackboard().Set("blocked", true)
	tickN(s, 1, 1)
	if l := letter(2); l != "F" {
		t.Errorf("guard failing: status %q, want F", l)
	}
}

// The summary's counts follow ticks and changes made between ticks
// (Session.Do, controls), though they are cached in between.
func TestSummaryCountsFollowChanges(t *testing.T) {
	s := newTestSession(t, Options{Controls: true, Token: "t"})
	tickN(s, 0, 1)
	paused := func() int {
		t.Helper()
		s.mu.Lock()
		defer s.mu.Unlock()
		n := 0
		for _, ti := range s.summaryLocked().Trees {
			n += ti.ByStatus["paused"]
		}
		return n
	}
	if n := paused(); n != 0 {
		t.Fatalf("paused before: %d", n)
	}
	s.Do(func(m *arbor.Manager) { m.Agent(1).Pause() })
	if n := paused(); n != 1 {
		t.Errorf("after Do: %d paused, want 1", n)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/api/agents/2/pause", nil)
	req.Header.Set("X-Arbor-Token", "t")
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("pause control: %d %s", rec.Code, rec.Body.String())
	}
	if n := paused(); n != 2 {
		t.Errorf("after the pause control: %d paused, want 2", n)
	}
	s.Do(func(m *arbor.Manager) { m.Add(m.Agent(0).Tree()).Pause() })
	if n := paused(); n != 3 {
		t.Errorf("after adding a paused agent: %d paused, want 3", n)
	}
}

// rev of an agent answer (agent JSON, control reply, breakpoint list).
func revOf(t *testing.T, m map[string]any) float64 {
	t.Helper()
	if a, ok := m["agent"].(map[string]any); ok {
		m = a
	}
	r, ok := m["rev"].(float64)
	if !ok {
		t.Fatalf("no rev in %v", m)
	}
	return r
}

// Answers about an agent carry a revision that grows with every tick and
// every change between ticks, so that the page can tell an older answer
// (a live update made before a control request, but delivered after its
// reply) from a newer one.
func TestAgentRevOrdersAnswers(t *testing.T) {
	s, h := newControlSession(t, Options{})
	tickN(s, 0, 1)
	_, a := get(t, h, "/api/agents/1")
	r0 := revOf(t, a)
	tickN(s, 1, 1)
	_, a = get(t, h, "/api/agents/1")
	r1 := revOf(t, a)
	if r1 <= r0 {
		t.Fatalf("rev after a tick: %v, was %v", r1, r0)
	}
	last := r1
	for _, op := range []string{"pause", "step", "resume"} {
		code, out := do(t, h, "POST", "/api/agents/1/"+op, "{}", controlHeaders)
		if code != 200 {
			t.Fatalf("%s: %d %v", op, code, out)
		}
		if r := revOf(t, out); r <= last {
			t.Errorf("%s reply: rev %v, want above %v", op, r, last)
		} else {
			last = r
		}
	}
	out := setBreak(t, h, 1, 0, "running")
	if r := revOf(t, out); r <= last {
		t.Errorf("breakpoint reply: rev %v, want above %v", r, last)
	} else {
		last = r
	}
	_, a = get(t, h, "/api/agents/1")
	if r := revOf(t, a); r != last {
		t.Errorf("agent rev %v after the last change %v", r, last)
	}
	s.Do(func(*arbor.Manager) {})
	if _, a = get(t, h, "/api/agents/1"); revOf(t, a) <= last {
		t.Errorf("rev after Do: %v, was %v", revOf(t, a), last)
	}
}

// sseEvents returns a function reading the next event of an SSE stream
// (the test fails when none comes within 2 s).
func sseEvents(t *testing.T, body io.Reader) func() (name string, data map[string]any) {
	ch := scanSSE(body, 100)
	return func() (string, map[string]any) {
		t.Helper()
		deadline := time.After(2 * time.Second)
		for {
			select {
			case e, ok := <-ch:
				if !ok {
					t.Fatal("stream ended")
				}
				var data map[string]any
				if json.Unmarshal([]byte(e.data), &data) == nil {
					return e.name, data
				}
			case <-deadline:
				t.Fatal("no event in 2s")
			}
		}
	}
}

// openStream serves h and opens its event stream for agent id; the
// stream and the server close when the test ends.
func openStream(t *testing.T, h http.Handler, id int) *http.Response {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/stream?agent="+strconv.Itoa(id), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// sseEvent is an event of a Server-Sent Events stream.
type sseEvent struct{ name, data string }

// scanSSE reads the events of an SSE stream into a channel (of the given
// buffer), closed when the stream ends.
func scanSSE(body io.Reader, buffer int) <-chan sseEvent {
	ch := make(chan sseEvent, buffer)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		var name string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ch <- sseEvent{name, strings.TrimPrefix(line, "data: ")}
			}
		}
	}()
	return ch
}

// nextAgentEvent reads events until an "agent" one.
func nextAgentEvent(t *testing.T, next func() (string, map[string]any)) map[string]any {
	t.Helper()
	for {
		if name, data := next(); name == "agent" {
			return data
		}
	}
}

// A control request updates the pages watching the agent at once, not at
// the next tick (a program may tick slowly, or not at all while paused).
func TestControlUpdatesStreamsAtOnce(t *testing.T) {
	s, h := newControlSession(t, Options{MaxRate: 50})
	tickN(s, 0, 2)
	resp := openStream(t, h, 1)
	next := sseEvents(t, resp.Body)
	if first := nextAgentEvent(t, next); first["agent"].(map[string]any)["paused"] != false {
		t.Fatalf("first update: %v", first)
	}
	code, out := do(t, h, "POST", "/api/agents/1/pause", "{}", controlHeaders)
	if code != 200 {
		t.Fatalf("pause: %d %v", code, out)
	}
	// No tick runs: the update comes from the request.
	a := nextAgentEvent(t, next)["agent"].(map[string]any)
	if a["paused"] != true || revOf(t, a) != revOf(t, out) {
		t.Errorf("update after pause: %v (reply rev %v)", a, revOf(t, out))
	}
	setBreak(t, h, 1, 0, "running")
	if a := nextAgentEvent(t, next)["agent"].(map[string]any); len(a["breakpoints"].([]any)) != 1 {
		t.Errorf("update after a breakpoint: %v", a)
	}
}

// A watched agent removed from the manager keeps its recorded ticks for
// Linger: the page can still scrub them and export them. Its stream sends
// the last records, then "gone".
func TestRemovedAgentKeepsItsHistory(t *testing.T) {
	s, h := newControlSession(t, Options{MaxRate: 50, Linger: 300 * time.Millisecond})
	resp := openStream(t, h, 2)
	next := sseEvents(t, resp.Body)
	nextAgentEvent(t, next)
	tickN(s, 0, 2) // running: its removal halts nodes
	s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(2)) })
	tickN(s, 2, 1)
	var last map[string]any
	for {
		name, data := next()
		if name == "agent" {
			last = data
		}
		if name == "gone" {
			break
		}
	}
	if last == nil || last["agent"].(map[string]any)["removed"] != true {
		t.Fatalf("last update before gone: %v", last)
	}
	seq := int(last["seq"].(float64))
	if seq != 3 {
		t.Fatalf("last record %d: want the 2 ticks and the removal", seq)
	}
	// The removal (halt events between ticks) is the last record.
	code, tk := get(t, h, fmt.Sprintf("/api/agents/2/ticks/%d", seq))
	if code != 200 || tk["between"] != true {
		t.Fatalf("record %d of the removed agent: %d %v", seq, code, tk)
	}
	if code, _ := get(t, h, "/api/agents/2/ticks/1"); code != 200 {
		t.Errorf("first record of the removed agent: %d", code)
	}
	code, ex := get(t, h, "/api/agents/2/export")
	if code != 200 || len(ex["ticks"].([]any)) != seq || ex["agent"].(map[string]any)["removed"] != true {
		t.Fatalf("export of the removed agent: %d %v", code, ex["agent"])
	}
	// Not an agent of the manager any more: no controls.
	if code, _ := do(t, h, "POST", "/api/agents/2/pause", "{}", controlHeaders); code != 404 {
		t.Errorf("pause of a removed agent: %d", code)
	}
	// Forgotten after Linger.
	time.Sleep(350 * time.Millisecond)
	tickN(s, 3, 1)
	if code, _ := get(t, h, "/api/agents/2/ticks/1"); code != 404 {
		t.Errorf("record of an agent removed long ago: %d", code)
	}
}

// A page opened on a removed agent (after a reload: it never saw the
// agent live) gets what a page that watched it got: while the session
// lingers it, the agent's JSON (removed) and a stream of its last state,
// then "gone"; after that, a 404 saying that the agent is not in the
// session.
func TestRemovedAgentOpenedAfterItsRemoval(t *testing.T) {
	s, h := newControlSession(t, Options{MaxRate: 50, Linger: 300 * time.Millisecond})
	stop, err := s.Watch(2)
	if err != nil {
		t.Fatal(err)
	}
	tickN(s, 0, 2)
	stop()
	s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(2)) })
	tickN(s, 2, 1)

	code, a := get(t, h, "/api/agents/2")
	if code != 200 || a["removed"] != true || a["id"] != 2.0 || a["treeName"] != "Sentry" || a["watched"] != false {
		t.Fatalf("agent JSON of a lingering removed agent: %d %v", code, a)
	}
	resp := openStream(t, h, 2)
	if resp.StatusCode != 200 {
		t.Fatalf("stream of a lingering removed agent: %d", resp.StatusCode)
	}
	var names []string
	var last map[string]any
	for e := range scanSSE(resp.Body, 10) {
		names = append(names, e.name)
		if e.name == "agent" {
			if err := json.Unmarshal([]byte(e.data), &last); err != nil {
				t.Fatal(err)
			}
		}
	}
	if strings.Join(names, ",") != "summary,agent,gone" {
		t.Fatalf("stream of a lingering removed agent: events %v, want summary, agent, gone, then its end", names)
	}
	if last["agent"].(map[string]any)["removed"] != true || last["seq"] != 3.0 || len(last["timeline"].([]any)) != 3 {
		t.Errorf("its last state: agent %v, record %v, timeline %v", last["agent"], last["seq"], last["timeline"])
	}
	s.mu.Lock()
	_, rewatched := s.watches[2]
	s.mu.Unlock()
	if rewatched {
		t.Error("the stream watches the removed agent again")
	}

	// Forgotten after Linger: a 404 that says so.
	time.Sleep(350 * time.Millisecond)
	tickN(s, 3, 1)
	for _, path := range []string{"/api/agents/2", "/api/agents/2/export", "/api/stream?agent=2"} {
		code, out := get(t, h, path)
		if msg, _ := out["error"].(string); code != 404 || msg != "no agent 2 in the session (never added, or removed from the manager)" {
			t.Errorf("%s of an agent removed long ago: %d %q", path, code, msg)
		}
	}
}

// A node with a conditional abort is wide enough for its label and the
// abort mark drawn beside it ("investigate ⤴lower" overlapped).
func TestAbortMarkHasRoom(t *testing.T) {
	sentry, _ := testTrees(t)
	td := describeTree(sentry, 0)
	found := false
	for _, nd := range td.Nodes {
		if nd.Abort == "" {
			continue
		}
		found = true
		// The page draws the label from x=8 and the mark, at 10px, ending
		// 5px before the right edge; a character of the label is charW.
		need := 8 + float64(len([]rune(nd.Label))+1)*charW + float64(len([]rune(nd.Abort))+1)*charW*10/12 + 5
		if nd.W < need {
			t.Errorf("node %q (abort %s): width %v, label and mark need %v", nd.Label, nd.Abort, nd.W, need)
		}
	}
	if !found {
		t.Fatal("no node with an abort in the test tree")
	}
}

// The description says which nodes are a subtree's root or in a subtree
// (the page's shape and edit forms read it), also for trees whose names
// contain the path's separators, and for a guard of a node in a subtree.
func TestDescribeSubtreeMembership(t *testing.T) {
	doc := &arbor.Document{Main: "M", Trees: map[string]*arbor.Node{
		"M":     arbor.Sequence(arbor.SubTree("a.b>c"), arbor.Leaf("Success")),
		"a.b>c": arbor.Sequence(arbor.Leaf("Success").WithGuard(arbor.Leaf("Failure"))),
	}}
	tree, err := arbor.Compile(doc, arbor.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, nd := range describeTree(tree, 0).Nodes {
		got = append(got, fmt.Sprintf("%s root=%v in=%v", nd.Path, nd.SubtreeRoot, nd.InSubtree))
	}
	want := []string{
		"M root=false in=false",
		"M.children[0] root=false in=false",
		"M.children[0]>a.b>c root=true in=true",
		"M.children[0]>a.b>c.children[0] root=false in=true",
		"M.children[1] root=false in=false",
		"M.children[0]>a.b>c.children[0].guard root=false in=true", // guards are numbered after the tree
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The tick rate follows the average interval between ticks: two ticks
// back to back (a ticker catching up) do not make it jump.
func TestTickRateIgnoresBursts(t *testing.T) {
	s := newTestSession(t, Options{})
	at := time.Unix(1000, 0)
	for i := 0; i < 50; i++ {
		at = at.Add(100 * time.Millisecond)
		s.noteTickAt(at)
	}
	if s.rate < 9.9 || s.rate > 10.1 {
		t.Fatalf("rate %v at 10 ticks/s", s.rate)
	}
	s.noteTickAt(at.Add(300 * time.Millisecond)) // a stall, then a tick caught up
	s.noteTickAt(at.Add(301 * time.Millisecond))
	if s.rate < 8 || s.rate > 12 {
		t.Errorf("rate %v after a stall and a burst, want about 10", s.rate)
	}
}

// A page scrubbing a full history asks for the records its slider offers,
// which the history may drop meanwhile: with clamp=1 such a record answers
// the oldest kept one (and says which), never a 404; the answer carries
// the history's bounds.
func TestTickOfDroppedRecord(t *testing.T) {
	s := newTestSession(t, Options{History: 6})
	stop, err := s.Watch(0)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	h := s.Handler()
	if code, _ := get(t, h, "/api/agents/0/ticks/1?clamp=1"); code != 404 {
		t.Errorf("no records yet: %d, want 404", code)
	}
	tickN(s, 0, 10) // records 1-10; 5-10 kept
	cases := []struct {
		path string
		code int
		seq  float64 // of the record answered
	}{
		{"/api/agents/0/ticks/4", 404, 0}, // without clamp, as before
		{"/api/agents/0/ticks/4?clamp=1", 200, 5},
		{"/api/agents/0/ticks/1?clamp=true", 200, 5},
		{"/api/agents/0/ticks/0?clamp=1", 200, 5},
		{"/api/agents/0/ticks/7?clamp=1", 200, 7},
		{"/api/agents/0/ticks/7", 200, 7},
		{"/api/agents/0/ticks/4?clamp=0", 404, 0},
		{"/api/agents/0/ticks/11?clamp=1", 404, 0}, // not recorded yet
		{"/api/agents/0/ticks/5?clamp=maybe", 400, 0},
	}
	for _, c := range cases {
		code, v := get(t, h, c.path)
		if code != c.code {
			t.Errorf("%s: %d %v, want %d", c.path, code, v, c.code)
			continue
		}
		if code != 200 {
			continue
		}
		if v["seq"] != c.seq || v["first"] != 5.0 || v["last"] != 10.0 || v["nodes"] == "" {
			t.Errorf("%s: record %v, history %v-%v, want record %v of 5-10", c.path, v["seq"], v["first"], v["last"], c.seq)
		}
	}
	// The clamped answer is the oldest record itself.
	_, oldest := get(t, h, "/api/agents/0/ticks/5")
	_, clamped := get(t, h, "/api/agents/0/ticks/2?clamp=1")
	if oldest["nodes"] != clamped["nodes"] || oldest["tick"] != clamped["tick"] || len(oldest["events"].([]any)) != len(clamped["events"].([]any)) {
		t.Errorf("clamped %v, want the oldest record %v", clamped, oldest)
	}
}

// A paused agent counts once, as paused (the list shows it so), in the
// tree counts and in the status filters.
func TestPausedAgentCountedOnce(t *testing.T) {
	s := newTestSession(t, Options{})
	tickN(s, 0, 2)
	s.Do(func(m *arbor.Manager) { m.Agent(1).Pause() })
	h := s.Handler()
	_, sess := get(t, h, "/api/session")
	for _, tr := range sess["trees"].([]any) {
		tr := tr.(map[string]any)
		sum := 0.0
		for _, n := range tr["byStatus"].(map[string]any) {
			sum += n.(float64)
		}
		if sum != tr["count"].(float64) {
			t.Errorf("tree %v: byStatus %v adds up to %v, want its count %v", tr["name"], tr["byStatus"], sum, tr["count"])
		}
	}
	if by := sess["trees"].([]any)[0].(map[string]any)["byStatus"].(map[string]any); by["paused"] != 1.0 || by["running"] != 4.0 {
		t.Errorf("sentries: %v, want 4 running and 1 paused", by)
	}
	ids := func(query string) string {
		t.Helper()
		code, list := get(t, h, "/api/agents"+query)
		if code != 200 {
			t.Fatalf("agents%s: %d %v", query, code, list)
		}
		var out []string
		for _, a := range list["agents"].([]any) {
			out = append(out, fmt.Sprint(a.(map[string]any)["id"]))
		}
		if got := strconv.Itoa(len(out)); fmt.Sprint(list["matches"]) != got {
			t.Errorf("agents%s: matches %v, %s listed", query, list["matches"], got)
		}
		return strings.Join(out, ",")
	}
	if got := ids("?tree=0&status=running"); got != "0,2,3,4" {
		t.Errorf("running sentries: %s, want 0,2,3,4 (not the paused 1)", got)
	}
	if got := ids("?status=paused"); got != "1" {
		t.Errorf("paused: %s, want 1", got)
	}
	if got := ids("?tree=0"); got != "0,1,2,3,4" {
		t.Errorf("sentries: %s, want all five", got)
	}
}

// The search finds ids as the list shows them ("#17"), and lists the agent
// whose id was asked for first, also on the first page of several.
func TestSearchByShownID(t *testing.T) {
	_, blink := testTrees(t)
	m := arbor.NewManager(arbor.WithWorkers(1))
	defer m.Close()
	for range 205 {
		m.Add(blink)
	}
	// Agent 13 escorts 17: its label holds 17.
	label := func(a *arbor.Agent) string {
		if a.ID() == 13 {
			return "escort of 17"
		}
		return "blinker"
	}
	s := NewSession(m, Options{Label: label, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	tickN(s, 0, 1)
	h := s.Handler()
	cases := []struct{ q, want string }{
		{"%23200", "200"},
		{"%20%23200%20", "200"},
		{"200", "200"},
		{"17", "17,13,117,170,171,172,173,174,175,176,177,178,179"},
		{"%2317", "17,170,171,172,173,174,175,176,177,178,179"},
		{"%2313", "13,130,131,132,133,134,135,136,137,138,139"},
		{"escort", "13"},
		{"%23999", ""},
		{"017", ""},
	}
	for _, c := range cases {
		code, list := get(t, h, "/api/agents?q="+c.q)
		var got []string
		for _, a := range list["agents"].([]any) {
			got = append(got, fmt.Sprint(a.(map[string]any)["id"]))
		}
		if code != 200 || strings.Join(got, ",") != c.want || fmt.Sprint(list["matches"]) != strconv.Itoa(len(got)) {
			t.Errorf("q=%s: %d %v (matches %v), want %s", c.q, code, got, list["matches"], c.want)
		}
	}
	// Paged: the exact match leads the first page and is not repeated.
	var pages []string
	for off := 0; off < 13; off += 5 {
		_, list := get(t, h, "/api/agents?q=17&limit=5&offset="+strconv.Itoa(off))
		for _, a := range list["agents"].([]any) {
			pages = append(pages, fmt.Sprint(a.(map[string]any)["id"]))
		}
	}
	if got := strings.Join(pages, ","); got != "17,13,117,170,171,172,173,174,175,176,177,178,179" {
		t.Errorf("paged: %s", got)
	}
	// The filters still apply to the exact match.
	if _, list := get(t, h, "/api/agents?q=17&status=paused"); list["matches"] != 0.0 {
		t.Errorf("q=17&status=paused: %v, want none", list)
	}
}

// TestSummarizeMarks checks the marks of a tick in the timeline: errors,
// and halts or aborts (the running branch changed).
func TestSummarizeMarks(t *testing.T) {
	ev := func(k arbor.EventKind) event { return event{Kind: k} }
	for _, c := range []struct {
		name string
		r    record
		want int
	}{
		{"quiet", record{Events: []event{ev(arbor.EventStart), ev(arbor.EventResult)}}, 0},
		{"error", record{Errs: []int32{3}}, markError},
		{"halt", record{Events: []event{ev(arbor.EventResult), ev(arbor.EventHalt)}}, markHalted},
		{"abort", record{Events: []event{ev(arbor.EventAbort)}}, markHalted},
		{"both", record{Errs: []int32{1}, Events: []event{ev(arbor.EventHalt)}}, markError | markHalted},
	} {
		if got := summarize(&c.r)[6]; got != c.want {
			t.Errorf("%s: marks %v, want %d", c.name, got, c.want)
		}
	}
}

// TestControlAll checks the session-wide controls: pause stops every
// agent, step runs each for exactly one tick, resume lets them go on; the
// controls need the token, and a read-only session refuses them.
func TestControlAll(t *testing.T) {
	s := newTestSession(t, Options{Controls: true, Token: "secret"})
	h := s.Handler()
	good := map[string]string{"X-Arbor-Token": "secret", "Content-Type": "application/json"}
	tickN(s, 0, 1)
	nows := func() (nows []time.Duration, paused int) {
		s.Do(func(m *arbor.Manager) {
			for _, a := range m.Agents() {
				nows = append(nows, a.Now())
				if a.Paused() {
					paused++
				}
			}
		})
		return nows, paused
	}
	if code, _ := do(t, h, http.MethodPost, "/api/session/pause", "", nil); code != http.StatusUnauthorized {
		t.Errorf("pause without the token: %d, want 401", code)
	}
	if code, _ := do(t, h, http.MethodPost, "/api/session/explode", "", good); code != http.StatusNotFound {
		t.Errorf("unknown operation: %d, want 404", code)
	}
	if code, body := do(t, h, http.MethodPost, "/api/session/pause", "", good); code != 200 || body["agents"] != 8.0 {
		t.Fatalf("pause: %d %v", code, body)
	}
	tickN(s, 1, 2)
	ns, _ := nows()
	for i, now := range ns {
		if now != 100*time.Millisecond {
			t.Errorf("agent %d ticked while paused: now %v", i, now)
		}
	}
	if code, _ := do(t, h, http.MethodPost, "/api/session/step", "", good); code != 200 {
		t.Fatalf("step: %d", code)
	}
	tickN(s, 3, 2)
	ns, paused := nows()
	for i, now := range ns {
		if now != 400*time.Millisecond {
			t.Errorf("agent %d after a step: now %v, want 400ms (one tick)", i, now)
		}
	}
	if paused != 8 {
		t.Errorf("%d agents paused after the step, want 8", paused)
	}
	if code, _ := do(t, h, http.MethodPost, "/api/session/resume", "", good); code != 200 {
		t.Fatalf("resume: %d", code)
	}
	tickN(s, 5, 1)
	ns, paused = nows()
	for i, now := range ns {
		if now != 600*time.Millisecond {
			t.Errorf("agent %d after resume: now %v, want 600ms", i, now)
		}
	}
	if paused != 0 {
		t.Errorf("%d agents paused after resume", paused)
	}
	ro := newTestSession(t, Options{Token: "secret"})
	if code, _ := do(t, ro.Handler(), http.MethodPost, "/api/session/pause", "", good); code != http.StatusForbidden {
		t.Errorf("read-only session: %d, want 403", code)
	}
}

// TestNodeHistory checks api/agents/{id}/nodes/{node}/history against the
// records it sums up: each node's letter in every kept record is that
// record's (ticks/{seq}), and its events digit has the bits of the node's
// events and errors there; ?after= answers the newer records only.
func TestNodeHistory(t *testing.T) {
	s := newTestSession(t, Options{History: 12})
	stop, err := s.Watch(0)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	h := s.Handler()
	_, tree := get(t, h, "/api/trees/0")
	nodes := tree["nodes"].([]any)
	erring := nodes[2].(map[string]any)
	tickN(s, 0, 5)
	// A noise while the patrol runs: the sentry investigates (an abort,
	// a halt); a node error.
	s.Do(func(m *arbor.Manager) { m.Agent(0).Blackboard().Set("noise", true) })
	s.ReportError(&arbor.NodeError{Path: erring["path"].(string), Type: "Check", Agent: s.Manager().Agent(0), Err: errors.New("boom")})
	tickN(s, 5, 4)
	s.Do(func(m *arbor.Manager) { m.Agent(0).Blackboard().Delete("noise") })
	tickN(s, 9, 8) // the history (12) drops its oldest records
	bits := map[string]int{"start": 1, "halt": 2, "abort": 4}
	type hist struct {
		First, Last, From uint64
		Statuses, Events  string
	}
	read := func(path string) hist {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var v hist
		if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &v) != nil {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		return v
	}
	seen := uint64(0) // the event bits met
	for node := range nodes {
		v := read(fmt.Sprintf("/api/agents/0/nodes/%d/history", node))
		if v.From != v.First || v.Last-v.First+1 != 12 || len(v.Statuses) != 12 || len(v.Events) != 12 {
			t.Fatalf("node %d: %+v", node, v)
		}
		for i := range v.Statuses {
			seq := v.From + uint64(i)
			_, tk := get(t, h, fmt.Sprintf("/api/agents/0/ticks/%d", seq))
			if want := tk["nodes"].(string)[node]; v.Statuses[i] != want {
				t.Errorf("node %d, record %d: %q, want %q", node, seq, v.Statuses[i], want)
			}
			want := 0
			for _, e := range tk["events"].([]any) {
				if e := e.(map[string]any); int(e["node"].(float64)) == node {
					want |= bits[e["kind"].(string)]
				}
			}
			if en, ok := tk["errorNodes"].([]any); ok {
				for _, x := range en {
					if int(x.(float64)) == node {
						want |= 8
					}
				}
			}
			got, _ := strconv.ParseUint(v.Events[i:i+1], 16, 8)
			if int(got) != want {
				t.Errorf("node %d, record %d: events %q, want %x", node, seq, v.Events[i], want)
			}
			seen |= got
		}
		// The newer records only (from the oldest kept: all of them).
		for a := v.First - 3; a < v.Last; a++ {
			n := min(12, int(v.Last-a))
			after := read(fmt.Sprintf("/api/agents/0/nodes/%d/history?after=%d", node, a))
			if after.From != v.Last-uint64(n)+1 || after.Statuses != v.Statuses[12-n:] || after.Events != v.Events[12-n:] {
				t.Errorf("node %d after %d: %+v, want the last %d of %+v", node, a, after, n, v)
			}
		}
		if none := read(fmt.Sprintf("/api/agents/0/nodes/%d/history?after=%d", node, v.Last)); none.From != 0 || none.Statuses != "" {
			t.Errorf("node %d after the newest: %+v", node, none)
		}
	}
	if seen != 15 {
		t.Errorf("events met: %b, want start, halt, abort and error", seen)
	}
	for path, code := range map[string]int{
		"/api/agents/0/nodes/x/history":           400,
		"/api/agents/0/nodes/-1/history":          400,
		"/api/agents/0/nodes/0/history?after=z":   400,
		"/api/agents/0/nodes/999/history":         404,
		"/api/agents/1/nodes/0/history":           404, // not watched
		"/api/agents/99/nodes/0/history":          404,
		"/api/agents/0/nodes/0/history?after=999": 200,
	} {
		if got, _ := get(t, h, path); got != code {
			t.Errorf("GET %s: %d, want %d", path, got, code)
		}
	}
}

// An ?after= of node history past any int answers no newer record: it
// panicked under the session lock, which then stayed held.
func TestNodeHistoryAfterPastInt(t *testing.T) {
	s := newTestSession(t, Options{History: 4})
	// No stop: after a panic the lock is held and stop would wait.
	if _, err := s.Watch(0); err != nil {
		t.Fatal(err)
	}
	tickN(s, 0, 6)
	h := s.Handler()
	for _, after := range []string{"18446744073709551615", "9223372036854775808", "9223372036854775806"} {
		path := "/api/agents/0/nodes/0/history?after=" + after
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("GET %s panicked: %v", path, r)
				}
			}()
			code, v := get(t, h, path)
			if code != http.StatusOK || v["from"] != float64(0) || v["statuses"] != "" {
				t.Errorf("GET %s: %d %v, want 200 and no record", path, code, v)
			}
		}()
	}
	if _, v := get(t, h, "/api/agents/0/nodes/0/history"); v["from"] != float64(3) {
		t.Errorf("the whole history: %v, want records 3 to 6", v)
	}
}

// A panicking Options.Label costs the agent its label, not the session: it
// runs under the session's lock, which must be released for the ticks and
// the other requests to go on.
func TestLabelPanicReleasesLock(t *testing.T) {
	s := newTestSession(t, Options{Label: func(a *arbor.Agent) string {
		if a.ID() == 1 {
			panic("label bug")
		}
		return "fine"
	}})
	h := s.Handler()
	code, body := do(t, h, http.MethodGet, "/api/agents", "", nil)
	if code != http.StatusOK {
		t.Fatalf("list: %d %v", code, body)
	}
	labels := map[float64]any{}
	for _, a := range body["agents"].([]any) {
		m := a.(map[string]any)
		labels[m["id"].(float64)] = m["label"]
	}
	if labels[0] != "fine" || labels[1] != nil {
		t.Errorf("labels %v: want agent 0's, and none for agent 1", labels)
	}
	if code, body := do(t, h, http.MethodGet, "/api/agents/1", "", nil); code != http.StatusOK || body["label"] != nil {
		t.Errorf("agent 1: %d %v", code, body)
	}
	done := make(chan struct{})
	go func() { s.Tick(time.Second); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a tick after the panic waits for the session's lock")
	}
}
