package debug

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// newControlSession is newTestSession with controls, and its handler.
func newControlSession(t *testing.T, opts Options) (*Session, http.Handler) {
	t.Helper()
	opts.Controls, opts.Token = true, "secret"
	s := newTestSession(t, opts)
	return s, s.Handler()
}

// watched reports whether the session watches agent id.
func watched(s *Session, id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.watches[id] != nil
}

// controlHeaders are the headers of a good control request.
var controlHeaders = map[string]string{"X-Arbor-Token": "secret", "Content-Type": "application/json",
	"Origin": "http://127.0.0.1:7777", "Sec-Fetch-Site": "same-origin"}

const bpPath = "/api/agents/5/breakpoints"

// The blinkers (ids 5-7) run Sequence(WaitTicks(1), AlwaysFailure()):
// node 2 fails on every even tick.
const blinkFail = 2

func TestBreakpointRequests(t *testing.T) {
	s, h := newControlSession(t, Options{})
	tickN(s, 0, 1)
	noToken := map[string]string{"Content-Type": "application/json"}
	form := map[string]string{"X-Arbor-Token": "secret", "Content-Type": "text/plain"}
	cases := []apiErrorCase{
		{"no token", "POST", bpPath, `{"node":2,"on":["failure"]}`, noToken, 401, "token"},
		{"no token to clear", "DELETE", bpPath, ``, noToken, 401, "token"},
		{"not JSON", "POST", bpPath, `{"node":2,"on":["failure"]}`, form, 415, "Content-Type"},
		{"unknown node", "POST", bpPath, `{"node":3,"on":["failure"]}`, controlHeaders, 400, "no node 3 in tree Blink: want 0 to 2"},
		{"negative node", "POST", bpPath, `{"node":-1,"on":[]}`, controlHeaders, 400, "no node -1"},
		{"fractional node", "POST", bpPath, `{"node":1.5,"on":["start"]}`, controlHeaders, 400, "bad body"},
		{"unknown event", "POST", bpPath, `{"node":2,"on":["failure","explode"]}`, controlHeaders, 400, `unknown event "explode": want one of start, success, failure, running, halt, abort`},
		{"event kind of the engine, not breakable", "POST", bpPath, `{"node":2,"on":["result"]}`, controlHeaders, 400, "unknown event"},
		{"no node", "POST", bpPath, `{"on":["failure"]}`, controlHeaders, 400, `want {"node": N`},
		{"no events", "POST", bpPath, `{"node":2}`, controlHeaders, 400, `want {"node": N`},
		{"unknown field", "POST", bpPath, `{"node":2,"on":[],"when":"now"}`, controlHeaders, 400, "unknown field"},
		{"unknown agent", "POST", "/api/agents/42/breakpoints", `{"node":0,"on":["start"]}`, controlHeaders, 404, "no agent 42"},
		{"bad agent id", "DELETE", "/api/agents/x/breakpoints", ``, controlHeaders, 400, "bad agent id"},
		{"list of unknown agent", "GET", "/api/agents/42/breakpoints", ``, nil, 404, "no agent 42"},
	}
	checkAPIErrors(t, h, cases)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.watches) != 0 {
		t.Errorf("refused requests started %d watches", len(s.watches))
	}
}

func TestBreakpointsNeedControls(t *testing.T) {
	s := newTestSession(t, Options{Token: "secret"})
	h := s.Handler()
	for _, method := range []string{"POST", "DELETE"} {
		code, body := do(t, h, method, bpPath, `{"node":2,"on":["failure"]}`, controlHeaders)
		if code != http.StatusForbidden || !strings.Contains(body["error"].(string), "read-only") {
			t.Errorf("%s: %d %v", method, code, body)
		}
	}
	// Listing is read-only: there are none.
	code, body := get(t, h, bpPath)
	if code != 200 || len(body["breakpoints"].([]any)) != 0 || len(body["events"].([]any)) != 6 {
		t.Errorf("list: %d %v", code, body)
	}
}

// setBreak posts a breakpoint and fails the test unless it is accepted.
func setBreak(t *testing.T, h http.Handler, agent, node int, on ...string) map[string]any {
	t.Helper()
	body := fmt.Sprintf(`{"node":%d,"on":[%s]}`, node, quoteAll(on))
	code, out := do(t, h, "POST", fmt.Sprintf("/api/agents/%d/breakpoints", agent), body, controlHeaders)
	if code != 200 {
		t.Fatalf("set breakpoint %s: %d %v", body, code, out)
	}
	return out
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = `"` + s + `"`
	}
	return strings.Join(q, ",")
}

// agentState is what the agent JSON says about time and breakpoints.
type agentState struct {
	now    time.Duration
	paused bool
	hit    map[string]any
}

func agentAt(t *testing.T, h http.Handler, id int) agentState {
	t.Helper()
	code, a := get(t, h, fmt.Sprintf("/api/agents/%d", id))
	if code != 200 {
		t.Fatalf("agent %d: %d %v", id, code, a)
	}
	hit, _ := a["lastBreak"].(map[string]any)
	return agentState{now: time.Duration(a["nowMs"].(float64)) * time.Millisecond, paused: a["paused"].(bool), hit: hit}
}

// wantHit checks the agent's last breakpoint hit.
func wantHit(t *testing.T, st agentState, node int, event string, tick int, paused bool) {
	t.Helper()
	h := st.hit
	if h == nil {
		t.Fatalf("no breakpoint hit reported")
	}
	if h["node"].(float64) != float64(node) || h["event"] != event || h["tick"].(float64) != float64(tick) ||
		h["paused"] != paused || h["nowMs"].(float64) != float64(tick*100) || h["label"] == "" || h["at"] == "" {
		t.Errorf("hit %v, want node %d %s at tick %d, paused %v", h, node, event, tick, paused)
	}
}

func TestBreakpointPausesAtTheEndOfTheTick(t *testing.T) {
	s, h := newControlSession(t, Options{})
	out := setBreak(t, h, 5, blinkFail, "failure", "halt")
	bps := out["breakpoints"].([]any)
	if len(bps) != 1 || fmt.Sprint(bps[0].(map[string]any)["on"]) != "[failure halt]" {
		t.Fatalf("breakpoints %v", out)
	}
	// Each step: a control request (if any), then ticks; then the agent's
	// time (ms), whether it is paused, and its last hit (tick, still
	// paused at it; tick 0: none).
	steps := []struct {
		name      string
		op        string
		ticks     int
		nowMs     int
		paused    bool
		hitTick   int
		hitPaused bool
	}{
		{"tick 1: running, no failure yet", "", 1, 100, false, 0, false},
		{"tick 2: the node fails, paused once this tick ends", "", 1, 200, true, 2, true},
		{"ticks 3-4: not ticked again", "", 2, 200, true, 2, true},
		{"step: one tick, running, paused again", "step", 2, 500, true, 2, false},
		{"step: the node fails in the step's tick", "step", 2, 700, true, 7, true},
		{"resume: ticks again", "resume", 1, 900, false, 7, false},
		{"resumed: paused at the next failure", "", 2, 1000, true, 10, true},
	}
	tick := 0
	for _, c := range steps {
		if c.op != "" {
			if code, body := do(t, h, "POST", "/api/agents/5/"+c.op, "", controlHeaders); code != 200 {
				t.Fatalf("%s: %d %v", c.name, code, body)
			}
		}
		tickN(s, tick, c.ticks)
		tick += c.ticks
		st := agentAt(t, h, 5)
		if st.paused != c.paused || st.now != time.Duration(c.nowMs)*time.Millisecond {
			t.Fatalf("%s: %+v, want paused %v at %dms", c.name, st, c.paused, c.nowMs)
		}
		if c.hitTick == 0 && st.hit != nil {
			t.Fatalf("%s: hit %v", c.name, st.hit)
		}
		if c.hitTick != 0 {
			wantHit(t, st, blinkFail, "failure", c.hitTick, c.hitPaused)
		}
	}
	s.Do(func(m *arbor.Manager) {
		if m.Agent(5).Status() != arbor.Failure || m.Agent(6).Now() != 1100*time.Millisecond {
			t.Errorf("agent 5 %v, agent 6 at %v", m.Agent(5).Status(), m.Agent(6).Now())
		}
	})
	// The record of the hit is the tick in which it happened.
	code, rec := get(t, h, fmt.Sprintf("/api/agents/5/ticks/%v", agentAt(t, h, 5).hit["seq"]))
	if code != 200 || rec["tick"].(float64) != 10 || rec["status"] != "failure" {
		t.Errorf("record of the hit: %d %v", code, rec)
	}

	// Clearing ends the watch that only the breakpoints kept, and gives
	// the agent its tracer back; the agent stays paused until resumed.
	code, out = do(t, h, "DELETE", bpPath, "", controlHeaders)
	if code != 200 || len(out["breakpoints"].([]any)) != 0 {
		t.Fatalf("clear: %d %v", code, out)
	}
	s.Do(func(m *arbor.Manager) {
		if a := m.Agent(5); a.Tracer() != nil || s.watches[5] != nil || !a.Paused() {
			t.Errorf("after clearing: tracer %v, watched %v, paused %v", a.Tracer() != nil, s.watches[5] != nil, a.Paused())
		}
	})
	do(t, h, "POST", "/api/agents/5/resume", "", controlHeaders)
	tickN(s, 11, 4)
	if st := agentAt(t, h, 5); st.paused || st.now != 1500*time.Millisecond || st.hit != nil {
		t.Fatalf("after clearing and resuming: %+v", st)
	}
}

func TestBreakpointKindsAndRemoval(t *testing.T) {
	s, h := newControlSession(t, Options{})
	// Agent 0 is a sentry: its root is running from the first tick.
	setBreak(t, h, 0, 0, "start")
	out := setBreak(t, h, 0, 3, "running", "success")
	if bps := out["breakpoints"].([]any); len(bps) != 2 || bps[0].(map[string]any)["node"].(float64) != 0 {
		t.Fatalf("breakpoints %v", out)
	}
	tickN(s, 0, 1)
	wantHit(t, agentAt(t, h, 0), 0, "start", 1, true)
	// The list and the agent JSON agree.
	_, list := get(t, h, "/api/agents/0/breakpoints")
	_, a := get(t, h, "/api/agents/0")
	if fmt.Sprint(list["breakpoints"]) != fmt.Sprint(a["breakpoints"]) || fmt.Sprint(list["lastBreak"]) != fmt.Sprint(a["lastBreak"]) {
		t.Errorf("list %v\nagent %v", list, a)
	}
	// An empty list removes one node's breakpoint; removing the last ends
	// the watch.
	setBreak(t, h, 0, 0)
	_, list = get(t, h, "/api/agents/0/breakpoints")
	if bps := list["breakpoints"].([]any); len(bps) != 1 || bps[0].(map[string]any)["node"].(float64) != 3 {
		t.Fatalf("after removing node 0: %v", list)
	}
	setBreak(t, h, 0, 3)
	setBreak(t, h, 1, 2) // removing where there is none is no error
	s.Do(func(m *arbor.Manager) {
		if len(s.watches) != 0 || m.Agent(0).Tracer() != nil || m.Agent(1).Tracer() != nil {
			t.Errorf("watches left: %d", len(s.watches))
		}
	})
}

// A page (or Session.Watch) keeps watching an agent whose breakpoints are
// cleared; a watch kept by breakpoints alone outlives the linger time.
func TestBreakpointsAndViewers(t *testing.T) {
	s, h := newControlSession(t, Options{Linger: time.Nanosecond})
	setBreak(t, h, 6, blinkFail, "failure")
	tickN(s, 0, 3)
	stop, err := s.Watch(6)
	if err != nil {
		t.Fatal(err)
	}
	do(t, h, "DELETE", "/api/agents/6/breakpoints", "", controlHeaders)
	if !watched(s, 6) {
		t.Fatal("clearing breakpoints ended a watch a viewer holds")
	}
	if st := agentAt(t, h, 6); st.hit == nil || !st.paused {
		t.Errorf("the last hit is kept while watched: %+v", st)
	}
	stop()
	time.Sleep(time.Millisecond)
	tickN(s, 3, 1)
	if watched(s, 6) {
		t.Error("watch kept after its viewer left and its breakpoints were cleared")
	}
}

// Only agents with breakpoints (or viewers) get a tracer; the others tick
// untraced.
func TestAgentsWithoutBreakpointsAreNotTraced(t *testing.T) {
	s, h := newControlSession(t, Options{})
	setBreak(t, h, 5, blinkFail, "failure")
	tickN(s, 0, 2)
	s.Do(func(m *arbor.Manager) {
		for _, a := range m.Agents() {
			if traced := a.Tracer() != nil; traced != (a.ID() == 5) {
				t.Errorf("agent %d traced: %v", a.ID(), traced)
			}
			if a.Paused() != (a.ID() == 5) {
				t.Errorf("agent %d paused: %v", a.ID(), a.Paused())
			}
		}
	})
	_, sess := get(t, h, "/api/session")
	if fmt.Sprint(sess["watched"]) != "[5]" {
		t.Errorf("watched %v", sess["watched"])
	}
}

func TestRemovedAgentDropsBreakpoints(t *testing.T) {
	s, h := newControlSession(t, Options{})
	setBreak(t, h, 7, blinkFail, "failure")
	tickN(s, 0, 1)
	s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(7)) })
	if code, _ := get(t, h, "/api/agents/7/breakpoints"); code != 404 {
		t.Errorf("breakpoints of a removed agent: %d", code)
	}
	tickN(s, 1, 2)
	if watched(s, 7) {
		t.Error("a removed agent is still watched for its breakpoints")
	}
}

// A hot reload to another tree drops the breakpoints: they named nodes of
// the old tree.
func TestReloadDropsBreakpoints(t *testing.T) {
	s, h := newControlSession(t, Options{Linger: time.Nanosecond})
	sentry, _ := testTrees(t)
	setBreak(t, h, 5, blinkFail, "failure")
	tickN(s, 0, 1)
	s.Do(func(m *arbor.Manager) { m.Reload(m.Agent(5).Tree(), sentry) })
	tickN(s, 1, 3)
	if st := agentAt(t, h, 5); st.paused {
		t.Errorf("paused by a breakpoint of the old tree: %+v", st)
	}
	if _, list := get(t, h, bpPath); len(list["breakpoints"].([]any)) != 0 {
		t.Errorf("breakpoints after reload: %v", list)
	}
}

// Breakpoints edited over HTTP while a multi-worker manager ticks: the
// race detector checks the tracer's reads against the handlers' writes.
func TestBreakpointsWhileTicking(t *testing.T) {
	sentry, blink := testTrees(t)
	m := arbor.NewManager(arbor.WithWorkers(4))
	defer m.Close()
	for i := 0; i < 300; i++ {
		m.Add(sentry)
		m.Add(blink)
	}
	s := NewSession(m, Options{Controls: true, Token: "secret", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := s.Handler()
	stop := tickInBackground(s)
	for i := 0; i < 200; i++ {
		id := 2*(i%50) + 1 // blinkers
		setBreak(t, h, id, blinkFail, "failure", "start")
		if i%3 == 0 {
			do(t, h, "POST", fmt.Sprintf("/api/agents/%d/resume", id), "", controlHeaders)
		}
		if i%7 == 0 {
			do(t, h, "DELETE", fmt.Sprintf("/api/agents/%d/breakpoints", id), "", controlHeaders)
		}
		get(t, h, fmt.Sprintf("/api/agents/%d", id))
	}
	stop()
	hits := 0
	s.Do(func(m *arbor.Manager) {
		for _, w := range s.watches {
			if w.lastHit != nil {
				hits++
			}
		}
	})
	if hits == 0 {
		t.Error("no breakpoint hit while ticking")
	}
}

func TestBreakEventNames(t *testing.T) {
	cases := []struct {
		e    arbor.Event
		want string
	}{
		{arbor.Event{Kind: arbor.EventStart}, "start"},
		{arbor.Event{Kind: arbor.EventResult, Status: arbor.Success}, "success"},
		{arbor.Event{Kind: arbor.EventResult, Status: arbor.Failure}, "failure"},
		{arbor.Event{Kind: arbor.EventResult, Status: arbor.Running}, "running"},
		{arbor.Event{Kind: arbor.EventEval, Status: arbor.Failure}, "failure"}, // a guard's node
		{arbor.Event{Kind: arbor.EventHalt}, "halt"},
		{arbor.Event{Kind: arbor.EventAbort}, "abort"},
		{arbor.Event{Kind: arbor.EventResult}, ""},
	}
	for _, c := range cases {
		got := fmt.Sprint(eventBit(c.e).names())
		if want := "[" + c.want + "]"; got != want {
			t.Errorf("%v %v: %s, want %s", c.e.Kind, c.e.Status, got, want)
		}
	}
	all, err := parseBreakMask(breakEvents)
	if err != nil || len(all.names()) != len(breakEvents) {
		t.Errorf("all kinds: %v %v", all.names(), err)
	}
}

// The live stream carries the hit in its agent events.
func TestStreamReportsBreakpointHit(t *testing.T) {
	s, h := newControlSession(t, Options{MaxRate: 50})
	setBreak(t, h, 5, blinkFail, "failure")
	tickN(s, 0, 2)
	resp := openStream(t, h, 5)
	agents, _ := readEvents(t, resp.Body, 1, 5*time.Second)
	if len(agents) != 1 {
		t.Fatalf("%d agent events", len(agents))
	}
	a := agents[0]["agent"].(map[string]any)
	hit, _ := a["lastBreak"].(map[string]any)
	if hit == nil || hit["event"] != "failure" || hit["paused"] != true || len(a["breakpoints"].([]any)) != 1 {
		t.Fatalf("agent event: %v", a)
	}
}

// tickInBackground ticks s as fast as it can, 100 ms of game time a tick,
// until stop is called; stop returns once the ticking has ended.
func tickInBackground(s *Session) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; ; i++ {
			select {
			case <-done:
				return
			default:
			}
			s.Tick(time.Duration(i) * 100 * time.Millisecond)
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// apiErrorCase is a request the API must refuse: its answer's status code
// and a part of its error message.
type apiErrorCase struct {
	name, method, path, body string
	hdr                      map[string]string
	code                     int
	msg                      string // in the error
}

// checkAPIErrors sends each request of cases to h and checks its refusal.
func checkAPIErrors(t *testing.T, h http.Handler, cases []apiErrorCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body := do(t, h, c.method, c.path, c.body, c.hdr)
			if code != c.code {
				t.Fatalf("%s %s: %d %v, want %d", c.method, c.path, code, body, c.code)
			}
			if msg, _ := body["error"].(string); !strings.Contains(msg, c.msg) {
				t.Errorf("error %q, want it to contain %q", msg, c.msg)
			}
		})
	}
}
