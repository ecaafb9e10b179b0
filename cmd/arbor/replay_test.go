package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/debug"
)

// recordSentry ticks a sentry of examples/sentry.yaml, watched, and
// writes its export (the debugger's own) to dir/agent-0.json.
func recordSentry(t *testing.T, dir string, ticks int) string {
	t.Helper()
	tree, _, err := loadMocked(filepath.Join("..", "..", "examples", "sentry.yaml"), mockFlags{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := arbor.NewManager(arbor.WithWorkers(1))
	defer m.Close()
	m.Add(tree)
	sess := debug.NewSession(m, debug.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	stop, err := sess.Watch(0)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for i := 1; i <= ticks; i++ {
		sess.Tick(time.Duration(i) * 100 * time.Millisecond)
	}
	rec := httptest.NewRecorder()
	sess.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/agents/0/export", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("export: %d %s", rec.Code, rec.Body)
	}
	return writeFile(t, dir, "agent-0.json", rec.Body.String())
}

func TestReplayCommand(t *testing.T) {
	dir := t.TempDir()
	path := recordSentry(t, dir, 25)
	out, code := serveFor(t, runReplay, []string{path, "-addr", "127.0.0.1:0"}, func(base string) {
		var sess struct {
			Title     string
			Controls  bool
			Recording struct{ Name, Exported string }
		}
		getJSON(t, base+"/api/session", &sess)
		if sess.Controls || sess.Recording.Name != "agent-0.json" || sess.Recording.Exported == "" || !strings.Contains(sess.Title, "agent-0.json") {
			t.Errorf("session %+v", sess)
		}
		var rec struct {
			Format string
			Tree   struct{ Name string }
			Ticks  []struct{ Seq int }
		}
		getJSON(t, base+"/api/recording", &rec)
		if rec.Format != debug.RecordingFormat || rec.Tree.Name != "Sentry" || len(rec.Ticks) != 25 || rec.Ticks[24].Seq != 25 {
			t.Errorf("recording: %s %s, %d ticks", rec.Format, rec.Tree.Name, len(rec.Ticks))
		}
		resp, err := http.Get(base + "/api/agents")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("api/agents: %d, want 404", resp.StatusCode)
		}
	})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out, "arbor replay: agent-0.json: agent #0 (Sentry), 25 ticks, exported 20") || !strings.Contains(out, "debugger: http://127.0.0.1:") {
		t.Errorf("output:\n%s", out)
	}

	// A file that is not a recording is refused before serving.
	tree := filepath.Join("..", "..", "examples", "sentry.yaml")
	truncated := writeFile(t, dir, "cut.json", `{"format": "arbor-debug/1", "agent": {"id": 0}, "tree": {"nodes": [`)
	for file, want := range map[string]string{
		tree:      "not a debugger recording: bad JSON",
		truncated: "not a debugger recording: bad JSON: unexpected end of JSON input",
		writeFile(t, dir, "v2.json", `{"format": "arbor-debug/2"}`): `format "arbor-debug/2", want "arbor-debug/1"`,
		filepath.Join(dir, "nope.json"):                             "open recording",
	} {
		var o, e bytes.Buffer
		if code := runReplay(context.Background(), []string{"-addr", "127.0.0.1:0", file}, &o, &e, nil); code != 1 ||
			!strings.HasPrefix(e.String(), "arbor replay: ") || !strings.Contains(e.String(), want) {
			t.Errorf("%s: exit %d: %s", file, code, e.String())
		}
	}
	for _, args := range [][]string{{}, {path, path}, {"--nope", path}} {
		if _, _, code := runCLI(t, append([]string{"replay"}, args...)...); code != 2 {
			t.Errorf("replay %v: exit %d, want 2", args, code)
		}
	}
	if out, _, _ := runCLI(t, "help"); !strings.Contains(out, "replay [-addr A] FILE.json") {
		t.Errorf("usage lacks replay:\n%s", out)
	}
	var o, e bytes.Buffer
	if code := runReplay(context.Background(), []string{"-addr", "nonsense", path}, &o, &e, nil); code != 1 || !strings.Contains(e.String(), "nonsense") {
		t.Errorf("bad address: exit %d: %s", code, e.String())
	}
}
