package debug

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
)

// exported returns the export of agent id, made by the real handler.
func exported(t testing.TB, s *Session, id int) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/agents/"+strconv.Itoa(id)+"/export", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("export of agent %d: %d %s", id, rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

// recordedSession returns a session whose agent 0 (a sentry) was watched
// for 10 ticks, keeping the last 6, with its export.
func recordedSession(t testing.TB) (*Session, []byte) {
	t.Helper()
	s := newTestSession(t, Options{History: 6})
	tickN(s, 0, 2)
	stop, err := s.Watch(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	tickN(s, 2, 4)
	s.Do(func(m *arbor.Manager) { m.Agent(0).Blackboard().Set("noise", "bang") })
	tickN(s, 6, 6)
	return s, exported(t, s, 0)
}

// sameJSON reports whether two JSON documents hold the same values.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

func TestLoadRecordingRoundTrip(t *testing.T) {
	s, data := recordedSession(t)
	rec, err := LoadRecording(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("load the export: %v", err)
	}
	if rec.Agent() != 0 || rec.TreeName() != "Sentry" || rec.Ticks() != 6 || rec.Exported() == "" {
		t.Errorf("agent %d, tree %q, %d ticks, exported %q", rec.Agent(), rec.TreeName(), rec.Ticks(), rec.Exported())
	}
	// Served as exported, and loading what is served gives it again.
	code, body := getRaw(t, rec.Handler(), "/api/recording")
	if code != http.StatusOK || !sameJSON(t, body, data) {
		t.Fatalf("api/recording: %d\n%s\nwant\n%s", code, body, data)
	}
	again, err := LoadRecording(bytes.NewReader(body))
	if err != nil || !bytes.Equal(again.data, rec.data) {
		t.Fatalf("reload: %v", err)
	}
	// The recorded ticks are the ones the live debugger served.
	_, v := get(t, s.Handler(), "/api/agents/0/ticks/9")
	if got := rec.ev.Ticks[9-5]; got.Seq != 9 || got.Nodes != v["nodes"] {
		t.Errorf("record 9: %d %q, served %q", got.Seq, got.Nodes, v["nodes"])
	}
	if !strings.Contains(string(rec.data), `"bang"`) {
		t.Error("the recorded blackboard lost a value")
	}
	// An agent nobody watched exports no ticks: still a recording.
	idle, err := LoadRecording(bytes.NewReader(exported(t, s, 5)))
	if err != nil || idle.Ticks() != 0 || idle.TreeName() != "Blink" {
		t.Fatalf("unwatched agent: %v", err)
	}
	// A byte-order mark is skipped.
	if _, err := LoadRecording(bytes.NewReader(append([]byte("\xef\xbb\xbf"), data...))); err != nil {
		t.Errorf("with a BOM: %v", err)
	}
}

func TestSessionRecording(t *testing.T) {
	s, data := recordedSession(t)
	rec, err := s.Recording(0)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Agent() != 0 || rec.TreeName() != "Sentry" || rec.Ticks() != 6 || rec.Name != "agent-0.json" {
		t.Errorf("agent %d, tree %q, %d ticks, name %q", rec.Agent(), rec.TreeName(), rec.Ticks(), rec.Name)
	}
	// What it writes is the page's export (but for the time of export),
	// and loads back as the same recording.
	var buf bytes.Buffer
	n, err := rec.WriteTo(&buf)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d bytes of %d, %v", n, buf.Len(), err)
	}
	stamp := func(b []byte) []byte {
		return edit(t, b, func(m map[string]any) { m["exported"] = "" })
	}
	if !sameJSON(t, stamp(buf.Bytes()), stamp(data)) {
		t.Errorf("written\n%s\nexported\n%s", buf.Bytes(), data)
	}
	back, err := LoadRecording(&buf)
	if err != nil || !bytes.Equal(back.data, rec.data) {
		t.Fatalf("load what WriteTo wrote: %v", err)
	}
	// An agent nobody watched: a recording without ticks; no agent: an
	// error.
	if idle, err := s.Recording(5); err != nil || idle.Ticks() != 0 || idle.TreeName() != "Blink" {
		t.Errorf("unwatched agent: %v", err)
	}
	if _, err := s.Recording(100); !errors.Is(err, ErrNoAgent) {
		t.Errorf("unknown agent: %v, want ErrNoAgent", err)
	}
}

// edit returns the recording data changed by fn.
func edit(t *testing.T, data []byte, fn func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLoadRecordingRejects(t *testing.T) {
	_, good := recordedSession(t)
	tree := func(m map[string]any) map[string]any { return m["tree"].(map[string]any) }
	node := func(m map[string]any, i int) map[string]any { return tree(m)["nodes"].([]any)[i].(map[string]any) }
	tick := func(m map[string]any, i int) map[string]any { return m["ticks"].([]any)[i].(map[string]any) }
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "bad JSON"},
		{"truncated", good[:len(good)/2], "bad JSON: unexpected end of JSON input"},
		{"trailing data", append(append([]byte(nil), good...), "{}"...), "bad JSON"},
		{"array", []byte(`[1, 2]`), "want a JSON object"},
		{"a tree file", []byte(`{"type": "Sequence", "children": []}`), "no format field"},
		{"other format", edit(t, good, func(m map[string]any) { m["format"] = "arbor-debug/2" }), `format "arbor-debug/2", want "arbor-debug/1"`},
		{"format not a string", edit(t, good, func(m map[string]any) { m["format"] = 1 }), "no format field"},
		{"no tree", edit(t, good, func(m map[string]any) { delete(m, "tree") }), "missing tree"},
		{"null tree", edit(t, good, func(m map[string]any) { m["tree"] = nil }), "missing tree"},
		{"no ticks", edit(t, good, func(m map[string]any) { delete(m, "ticks") }), "missing ticks"},
		{"no agent", edit(t, good, func(m map[string]any) { delete(m, "agent") }), "missing agent"},
		{"no base", edit(t, good, func(m map[string]any) { delete(m, "base") }), "missing base"},
		{"no nodes", edit(t, good, func(m map[string]any) { tree(m)["nodes"] = []any{} }), "tree: no nodes"},
		{"ticks not a list", edit(t, good, func(m map[string]any) { m["ticks"] = "many" }), "bad recording: json: cannot unmarshal string"},
		{"seq a string", edit(t, good, func(m map[string]any) { tick(m, 0)["seq"] = "5" }), "bad recording: json: cannot unmarshal string"},
		{"child out of range", edit(t, good, func(m map[string]any) { node(m, 1)["children"] = []any{99} }), "tree: node 1: bad child 99"},
		{"child cycle", edit(t, good, func(m map[string]any) { node(m, 1)["children"] = []any{0} }), "tree: node 1: bad child 0"},
		{"node id", edit(t, good, func(m map[string]any) { node(m, 3)["id"] = 4 }), "tree: node 3 has id 4"},
		{"guard missing", edit(t, good, func(m map[string]any) { delete(node(m, 5), "guard") }), "tree: node 5: bad guard 0"},
		{"root with a parent", edit(t, good, func(m map[string]any) { node(m, 0)["parent"] = 1 }), "node 0 is not the root"},
		{"short base", edit(t, good, func(m map[string]any) { m["base"] = m["base"].(string)[1:] }), "base: 11 status letters for 12 nodes"},
		{"visited base", edit(t, good, func(m map[string]any) { m["base"] = "R" + m["base"].(string)[1:] }), `base: node 0: status letter 'R'`},
		{"long tick", edit(t, good, func(m map[string]any) { tick(m, 2)["nodes"] = tick(m, 2)["nodes"].(string) + "." }),
			"ticks[2] (record 7): nodes: 13 status letters for 12 nodes"},
		{"bad letter", edit(t, good, func(m map[string]any) { tick(m, 1)["nodes"] = "x" + tick(m, 1)["nodes"].(string)[1:] }),
			`ticks[1] (record 6): nodes: node 0: status letter 'x'`},
		{"gap", edit(t, good, func(m map[string]any) { tick(m, 3)["seq"] = 20 }), "ticks: record 20 follows record 7"},
		{"record 0", edit(t, good, func(m map[string]any) { m["ticks"] = []any{tick(m, 0)}; tick(m, 0)["seq"] = 0 }), "record numbers start at 1"},
		{"root status", edit(t, good, func(m map[string]any) { tick(m, 0)["status"] = "great" }), `root status "great"`},
		{"event node", edit(t, good, func(m map[string]any) { tick(m, 0)["events"].([]any)[0].(map[string]any)["node"] = 12 }),
			"ticks[0] (record 5): event 0: node out of the tree"},
		{"event kind", edit(t, good, func(m map[string]any) { tick(m, 0)["events"].([]any)[0].(map[string]any)["kind"] = "boom" }), `event 0: kind "boom"`},
		{"running path", edit(t, good, func(m map[string]any) { tick(m, 0)["running"] = []any{[]any{0, -1}} }), "running path through node -1"},
		{"stats rows", edit(t, good, func(m map[string]any) {
			st := m["stats"].(map[string]any)
			st["nodes"] = st["nodes"].([]any)[:3]
		}), "stats: 3 rows for 12 nodes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadRecording(bytes.NewReader(c.data))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), "not a debugger recording: ") {
				t.Errorf("error %q lacks its context", err)
			}
		})
	}
}

func TestLoadRecordingFile(t *testing.T) {
	_, good := recordedSession(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "agent-0.json")
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := LoadRecordingFile(path)
	if err != nil || rec.Name != "agent-0.json" || rec.Ticks() != 6 {
		t.Fatalf("load %s: %v %+v", path, err, rec)
	}
	if _, err := LoadRecordingFile(filepath.Join(dir, "nope.json")); err == nil || !strings.Contains(err.Error(), "open recording") {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "tree.json")
	if err := os.WriteFile(bad, []byte(`{"type": "Success"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRecordingFile(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": not a debugger recording: no format field") {
		t.Errorf("tree file: %v", err)
	}
}

// getRaw GETs path from h and returns the code and body.
func getRaw(t *testing.T, h http.Handler, path string) (int, []byte) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code, rec.Body.Bytes()
}

func TestRecordingHandler(t *testing.T) {
	_, good := recordedSession(t)
	rec, err := LoadRecording(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	rec.Name = "agent-0.json"
	h := rec.Handler()
	code, page := getRaw(t, h, "/")
	if code != http.StatusOK || !strings.Contains(string(page), `id="open-file"`) {
		t.Errorf("page: %d %.200s", code, page)
	}
	if !slices.Contains(pageScripts(string(page)), "/static/recordings.js") {
		t.Errorf("page: no recordings.js")
	}
	if code, js := getRaw(t, h, "/static/recordings.js"); code != http.StatusOK || !strings.Contains(string(js), "function openRecording(") {
		t.Errorf("recordings.js: %d", code)
	}
	code, sess := get(t, h, "/api/session")
	r, _ := sess["recording"].(map[string]any)
	if code != http.StatusOK || sess["controls"] != false || sess["title"] != "Arbor replay · agent-0.json" || r == nil ||
		r["name"] != "agent-0.json" || r["exported"] != rec.Exported() {
		t.Errorf("session: %d %v", code, sess)
	}
	// No live API: reads and controls alike are not found.
	for _, req := range []struct{ method, path string }{
		{http.MethodGet, "/api/agents"}, {http.MethodGet, "/api/agents/0"}, {http.MethodGet, "/api/stream?agent=0"},
		{http.MethodPost, "/api/agents/0/pause"}, {http.MethodPost, "/api/agents/0/breakpoints"}, {http.MethodPost, "/api/globals"},
	} {
		code, body := do(t, h, req.method, req.path, "{}", map[string]string{"Content-Type": "application/json"})
		if code != http.StatusNotFound || !strings.Contains(body["error"].(string), "a recording has no live agents") {
			t.Errorf("%s %s: %d %v", req.method, req.path, code, body)
		}
	}
	// A live session's page says it is not a recording.
	if _, live := get(t, newTestSession(t, Options{}).Handler(), "/api/session"); live["recording"] != nil {
		t.Errorf("live session: %v", live)
	}
}

// On a loopback listener the replay server refuses other host names, as
// the live one does.
func TestServeRecording(t *testing.T) {
	_, good := recordedSession(t)
	rec, err := LoadRecording(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rec.Handler())
	defer srv.Close()
	for host, want := range map[string]int{strings.TrimPrefix(srv.URL, "http://"): http.StatusOK, "evil.example:80": http.StatusForbidden} {
		if code := statusForHost(t, srv.URL+"/api/recording", host); code != want {
			t.Errorf("host %s: %d, want %d", host, code, want)
		}
	}
	if err := ServeRecording(context.Background(), "nonsense", rec); err == nil {
		t.Error("ServeRecording on a bad address succeeded")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ServeRecording(ctx, "127.0.0.1:0", rec); err != nil {
		t.Errorf("ServeRecording until cancelled: %v", err)
	}
}
