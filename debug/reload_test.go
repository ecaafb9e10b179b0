package debug

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// A watched agent moved to a bigger tree (hot reload) is recorded on the
// new tree, without a crash.
func TestWatchSurvivesHotReload(t *testing.T) {
	s := newTestSession(t, Options{})
	sentry, blink := testTrees(t)
	stop, err := s.Watch(5) // a blinker: 3 nodes
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	tickN(s, 0, 3)
	var old *arbor.Tree
	s.Do(func(m *arbor.Manager) {
		old = m.Agent(5).Tree()
		if n := m.Reload(old, sentry); n != 3 {
			t.Errorf("reloaded %d agents, want 3", n)
		}
	})
	tickN(s, 3, 3)
	code, body := get(t, s.Handler(), "/api/agents/5/timeline")
	if code != http.StatusOK {
		t.Fatalf("timeline: %d %v", code, body)
	}
	s.Do(func(m *arbor.Manager) { m.Reload(sentry, blink) }) // and back to a smaller one
	tickN(s, 6, 2)
	if code, _ := get(t, s.Handler(), "/api/agents/5/stats"); code != http.StatusOK {
		t.Fatalf("stats: %d", code)
	}
}

// Watching chains to the agent's own tracer and gives it back afterwards;
// other sites cannot open a stream (which would start a watch).
func TestWatchChainsTracerAndRefusesCrossSiteStreams(t *testing.T) {
	s := newTestSession(t, Options{Linger: time.Nanosecond})
	var mine int
	own := func(*arbor.Agent, arbor.Event) { mine++ }
	s.Do(func(m *arbor.Manager) { m.Agent(5).SetTracer(own) })
	stop, err := s.Watch(5)
	if err != nil {
		t.Fatal(err)
	}
	tickN(s, 0, 2)
	if mine == 0 {
		t.Fatal("the agent's own tracer got no events while watched")
	}
	stop()
	time.Sleep(time.Millisecond)
	tickN(s, 2, 1) // past the linger time the watch ends at a tick
	before := mine
	s.Do(func(m *arbor.Manager) {
		if s.watches[5] != nil {
			t.Fatal("the watch did not end")
		}
		m.Agent(5).Tracer()(m.Agent(5), arbor.Event{})
	})
	if mine != before+1 {
		t.Error("the agent's own tracer was not given back")
	}
	req := httptest.NewRequest(http.MethodGet, "/api/stream?agent=1", nil)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Fatalf("cross-site stream: %d, want 403", rec.Code)
	}
}

// statusForHost GETs url with the Host header host and returns the status.
func statusForHost(t *testing.T, url, host string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Mounted on a program's own server bound to loopback, the handler refuses
// requests naming another host (DNS rebinding).
func TestOwnMuxRefusesForeignHostsOnLoopback(t *testing.T) {
	s := newTestSession(t, Options{})
	mux := http.NewServeMux()
	mux.Handle("/debug/arbor/", http.StripPrefix("/debug/arbor", s.Handler()))
	srv := httptest.NewServer(mux) // listens on 127.0.0.1
	defer srv.Close()
	get := func(host string) int { return statusForHost(t, srv.URL+"/debug/arbor/api/session", host) }
	if code := get("evil.example:80"); code != http.StatusForbidden {
		t.Fatalf("foreign host: %d, want 403", code)
	}
	if code := get(strings.TrimPrefix(srv.URL, "http://")); code != http.StatusOK {
		t.Fatalf("loopback host: %d, want 200", code)
	}
}

// After a hot reload, the stream sends the new tree's records from the
// first (the history starts again at record 1, below the records sent
// before).
func TestStreamAfterReloadSendsTheNewRecords(t *testing.T) {
	s, h := newControlSession(t, Options{MaxRate: 1000})
	resp := openStream(t, h, 5)
	next := sseEvents(t, resp.Body)
	nextAgentEvent(t, next)
	for i := 1; i <= 5; i++ {
		tickN(s, i-1, 1)
		nextAgentEvent(t, next)
	}
	sentry, _ := testTrees(t)
	s.Do(func(m *arbor.Manager) { m.Reload(m.Agent(5).Tree(), sentry) })
	var seqs []float64
	for i := 6; len(seqs) < 2 && i < 40; i++ {
		tickN(s, i-1, 1)
		ev := nextAgentEvent(t, next)
		if ev["agent"].(map[string]any)["treeName"] != "Sentry" {
			continue
		}
		for _, tk := range ev["timeline"].([]any) {
			seqs = append(seqs, tk.([]any)[0].(float64))
		}
	}
	if len(seqs) < 2 || seqs[0] != 1 || seqs[1] != 2 {
		t.Errorf("records sent after the reload: %v, want 1, 2, …", seqs)
	}
}

// An agent reloaded to another tree and back between two sends of a
// stream: the watch's history started again twice, and the stream sends
// it from its first record, though the tree is the one of the records it
// sent before.
func TestStreamAfterReloadAndBack(t *testing.T) {
	s, _ := newControlSession(t, Options{})
	s.Watch(5)
	tickN(s, 0, 6)
	s.mu.Lock()
	w := s.watches[5]
	var sent streamPos
	if from := sent.from(w); from != 0 {
		t.Fatalf("a new stream sends from %d, want 0", from)
	}
	sent.seq = w.seq
	if from := sent.from(w); from != w.seq || from < 6 {
		t.Fatalf("the next send from %d, want %d", from, w.seq)
	}
	s.mu.Unlock()
	var old *arbor.Tree
	sentry, _ := testTrees(t)
	s.Do(func(m *arbor.Manager) { old = m.Agent(5).Tree(); m.Reload(old, sentry) })
	tickN(s, 6, 1)
	s.Do(func(m *arbor.Manager) { m.Reload(sentry, old) })
	tickN(s, 7, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.tree != old || w.gen != 2 {
		t.Fatalf("the watch is of tree %v at generation %d, want the first tree at generation 2", w.tree.Name(), w.gen)
	}
	if from := sent.from(w); from != 0 {
		t.Errorf("after a reload and back, the stream sends from record %d, want 0 (the history started again)", from)
	}
}
