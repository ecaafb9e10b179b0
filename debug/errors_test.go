package debug

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// erringTree compiles a tree whose Check compares "hp" with a number: an
// agent whose hp is a string reports a node error at every tick.
func erringTree(t testing.TB) *arbor.Tree {
	t.Helper()
	tree, err := arbor.Compile(&arbor.Document{Main: "Fighter", Trees: map[string]*arbor.Node{
		"Fighter": arbor.Selector(
			arbor.Sequence(arbor.Check("hp", "<", 30).Named("low"), arbor.Set("mode", "flee")),
			arbor.Set("mode", "fight"),
		),
	}}, arbor.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// newErrorSession makes a session over n fighters (4 workers) whose error
// handler reports to it; the agents of odd id have hp = "lots" and err.
func newErrorSession(t testing.TB, n int) *Session {
	t.Helper()
	tree := erringTree(t)
	var s *Session
	m := arbor.NewManager(arbor.WithWorkers(4), arbor.WithManagerErrorHandler(func(e *arbor.NodeError) { s.ReportError(e) }))
	t.Cleanup(m.Close)
	for i := 0; i < n; i++ {
		a := m.Add(tree)
		if i%2 == 1 {
			arbor.NewKey[string]("hp").Set(a.Blackboard(), "lots")
		} else {
			arbor.NewKey[int]("hp").Set(a.Blackboard(), 50)
		}
	}
	s = NewSession(m, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return s
}

func TestNodeErrorsAPI(t *testing.T) {
	s := newErrorSession(t, 40)
	tickN(s, 0, 30)
	h := s.Handler()

	code, body := get(t, h, "/api/agents/3/errors")
	if code != 200 || body["count"].(float64) != 30 || body["history"].(float64) != ErrorHistory {
		t.Fatalf("errors: %d %v", code, body)
	}
	errs := body["errors"].([]any)
	if len(errs) != ErrorHistory {
		t.Fatalf("%d errors kept, want %d", len(errs), ErrorHistory)
	}
	checkID := -1
	tree := s.Manager().Agent(3).Tree()
	for i := 0; i < tree.Len(); i++ {
		if tree.Node(i).Name == "low" {
			checkID = i
		}
	}
	for i, x := range errs {
		e := x.(map[string]any)
		// Newest first: ticks 30, 29, ...
		if e["tick"].(float64) != float64(30-i) || e["nowMs"].(float64) != float64((30-i)*100) {
			t.Fatalf("error %d: tick %v at %v ms, want %d", i, e["tick"], e["nowMs"], 30-i)
		}
		if e["node"].(float64) != float64(checkID) || e["type"] != "Check" || e["name"] != "low" || e["path"] == "" ||
			e["message"] == "" || e["at"] == "" {
			t.Fatalf("error %d: %v (check is node %d)", i, e, checkID)
		}
	}
	if _, ok := body["byNode"]; ok {
		t.Errorf("per-node counts of an agent not watched: %v", body["byNode"])
	}
	// An agent without errors: an empty list.
	if code, body := get(t, h, "/api/agents/2/errors"); code != 200 || body["count"].(float64) != 0 || len(body["errors"].([]any)) != 0 {
		t.Fatalf("agent without errors: %d %v", code, body)
	}
	// Bad and unknown ids answer as the other endpoints do.
	if code, body := get(t, h, "/api/agents/x/errors"); code != http.StatusBadRequest || body["error"] == nil {
		t.Fatalf("bad id: %d %v", code, body)
	}
	if code, body := get(t, h, "/api/agents/999/errors"); code != http.StatusNotFound || body["error"] == nil {
		t.Fatalf("unknown id: %d %v", code, body)
	}

	// The list and the agent carry the counts.
	_, list := get(t, h, "/api/agents?limit=6")
	for _, x := range list["agents"].([]any) {
		a := x.(map[string]any)
		id := int(a["id"].(float64))
		n, has := a["errors"]
		if id%2 == 1 && (!has || n.(float64) != 30) || id%2 == 0 && has {
			t.Errorf("agent %d in the list: errors %v", id, n)
		}
	}
	if _, a := get(t, h, "/api/agents/5"); a["errors"].(float64) != 30 {
		t.Errorf("agent 5: errors %v", a["errors"])
	}

	// Watched: per-node counts, and the tick records name the nodes.
	stop, err := s.Watch(5)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	tickN(s, 30, 3)
	_, body = get(t, h, "/api/agents/5/errors")
	if bn := fmt.Sprint(body["byNode"]); bn != fmt.Sprintf("[[%d 3]]", checkID) {
		t.Errorf("byNode %s, want [[%d 3]]", bn, checkID)
	}
	_, tl := get(t, h, "/api/agents/5/timeline")
	ticks := tl["ticks"].([]any)
	last := ticks[len(ticks)-1].([]any)[0].(float64)
	if marks := ticks[len(ticks)-1].([]any)[6].(float64); int(marks)&markError == 0 {
		t.Errorf("timeline: the last tick's marks %v, want the error mark", marks)
	}
	_, tv := get(t, h, fmt.Sprintf("/api/agents/5/ticks/%v", last))
	if fmt.Sprint(tv["errorNodes"]) != fmt.Sprintf("[%d]", checkID) {
		t.Errorf("tick record: errorNodes %v, want [%d]", tv["errorNodes"], checkID)
	}
	// The agent fixed: no more errors, its record names none.
	s.Do(func(m *arbor.Manager) { arbor.NewKey[int]("hp").Set(m.Agent(5).Blackboard(), 10) })
	tickN(s, 33, 1)
	_, tv = get(t, h, fmt.Sprintf("/api/agents/5/ticks/%v", last+1))
	if _, has := tv["errorNodes"]; has || tv["seq"].(float64) != last+1 {
		t.Errorf("tick without errors: %v", tv)
	}
	_, tl = get(t, h, "/api/agents/5/timeline")
	ticks = tl["ticks"].([]any)
	if marks := ticks[len(ticks)-1].([]any)[6].(float64); int(marks)&markError != 0 {
		t.Errorf("timeline: a tick without errors has marks %v", marks)
	}
	if _, body = get(t, h, "/api/agents/5/errors"); body["count"].(float64) != 33 {
		t.Errorf("count %v, want 33", body["count"])
	}
}

// TestReportErrorConcurrent reports errors from many goroutines at once
// (run with -race) while pages read them: the counts add up and the
// history stays bounded.
func TestReportErrorConcurrent(t *testing.T) {
	s := newErrorSession(t, 8)
	h := s.Handler()
	agents := s.Manager().Agents()
	stop, err := s.Watch(1)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	path := agents[0].Tree().Node(1).Path
	const goroutines, each = 16, 2000
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			a := agents[g%len(agents)]
			for i := 0; i < each; i++ {
				s.ReportError(&arbor.NodeError{Path: path, Type: "Sequence", Agent: a, Time: time.Duration(i), Err: errors.New("boom")})
			}
		}(g)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 50; i++ {
			get(t, h, "/api/agents/1/errors")
			get(t, h, "/api/agents")
		}
	}()
	s.ReportError(nil)
	(*Session)(nil).ReportError(&arbor.NodeError{Agent: agents[0]})
	wg.Wait()
	<-done
	want := float64(goroutines / len(agents) * each)
	for id := range agents {
		_, body := get(t, h, fmt.Sprintf("/api/agents/%d/errors", id))
		if body["count"].(float64) != want || len(body["errors"].([]any)) != ErrorHistory {
			t.Fatalf("agent %d: count %v, %d kept; want %v, %d", id, body["count"], len(body["errors"].([]any)), want, ErrorHistory)
		}
	}
	s.errs.mu.Lock()
	ae := s.errs.agents[1]
	if ae.n != ErrorHistory || len(ae.pending) != maxPending || len(ae.byNode) != agents[1].Tree().Len() || ae.byNode[1] != uint64(want) {
		t.Errorf("agent 1: %d kept, %d pending, byNode %v", ae.n, len(ae.pending), ae.byNode)
	}
	s.errs.mu.Unlock()
}

// TestErrorsOfRemovedAgentsForgotten: the errors of an agent removed from
// the manager go with it.
func TestErrorsOfRemovedAgentsForgotten(t *testing.T) {
	s := newErrorSession(t, 4)
	tickN(s, 0, 2)
	s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(1)) })
	tickN(s, 2, 1)
	s.errs.mu.Lock()
	_, has1 := s.errs.agents[1]
	_, has3 := s.errs.agents[3]
	s.errs.mu.Unlock()
	if has1 || !has3 {
		t.Errorf("after removing agent 1: its errors kept %v, agent 3's kept %v", has1, has3)
	}
	if code, _ := get(t, s.Handler(), "/api/agents/1/errors"); code != http.StatusNotFound {
		t.Errorf("removed agent: %d", code)
	}
}

// TestErrorHandlerForwards: ErrorHandler reports and calls the next
// handler.
func TestErrorHandlerForwards(t *testing.T) {
	s := newErrorSession(t, 2)
	var got int
	h := s.ErrorHandler(func(*arbor.NodeError) { got++ })
	h(&arbor.NodeError{Path: "nowhere", Agent: s.Manager().Agent(0), Err: errors.New("x")})
	if got != 1 || s.errs.count(s.Manager().Agent(0)) != 1 {
		t.Errorf("forwarded %d, counted %d", got, s.errs.count(s.Manager().Agent(0)))
	}
	_, body := get(t, s.Handler(), "/api/agents/0/errors")
	if e := body["errors"].([]any)[0].(map[string]any); e["node"].(float64) != -1 || e["path"] != "nowhere" {
		t.Errorf("error naming no node: %v", e)
	}
}
