package main

import (
	"encoding/json"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/debug"
)

// TestReportNodeErrors: agents made before the session (as the demo's
// village makes them), and one added later, report their node errors to
// the debugger and to the previous logging.
func TestReportNodeErrors(t *testing.T) {
	tree, err := arbor.Compile(&arbor.Document{Main: "T", Trees: map[string]*arbor.Node{
		"T": arbor.Check("hp", "<", 30),
	}}, arbor.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	m := arbor.NewManager(arbor.WithWorkers(2))
	defer m.Close()
	broken := func(a *arbor.Agent) { arbor.NewKey[string]("hp").Set(a.Blackboard(), "lots") }
	broken(m.Add(tree))
	sess := debug.NewSession(m, debug.Options{})
	var logged atomic.Int64
	reportNodeErrors(sess, func(*arbor.NodeError) { logged.Add(1) })
	sess.Do(func(m *arbor.Manager) { broken(m.Add(tree)) })
	for i := 1; i <= 3; i++ {
		sess.Tick(time.Duration(i) * time.Millisecond)
	}
	if n := logged.Load(); n != 6 {
		t.Errorf("%d errors logged, want 6", n)
	}
	for _, id := range []string{"0", "1"} {
		rec := httptest.NewRecorder()
		sess.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/api/agents/"+id+"/errors", nil))
		var body struct{ Count int }
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Count != 3 {
			t.Errorf("agent %s: %d %s", id, rec.Code, rec.Body)
		}
	}
}
