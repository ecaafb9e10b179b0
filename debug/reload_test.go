package debug

import (
	"net/http"
	"testing"

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
