package debug

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
)

// guardTree compiles a reactive tree: fight while there is an alarm (a
// Check), else alert on an Alert (a condition of the program's), else
// rest while not tired (a guard). Work is an action that keeps running.
func guardTree(t testing.TB) *arbor.Tree {
	t.Helper()
	reg := arbor.NewRegistry()
	if err := reg.ConditionFunc("Alert", func(*arbor.Ctx) (bool, error) { return false, nil }); err != nil {
		t.Fatal(err)
	}
	if err := reg.ActionFunc("Work", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Running, nil }); err != nil {
		t.Fatal(err)
	}
	tree, err := arbor.Compile(&arbor.Document{Main: "Guard", Trees: map[string]*arbor.Node{
		"Guard": arbor.ReactiveSelector(
			arbor.ReactiveSequence(arbor.Check("alarm", "exists").Named("alarm?"), arbor.Set("mode", "fight"), arbor.Leaf("Work").Named("fighting")).Named("fight"),
			arbor.Sequence(arbor.Leaf("Alert"), arbor.Set("mode", "alert")).Named("alert"),
			arbor.Sequence(arbor.Set("mode", "rest"), arbor.Leaf("Work").Named("resting")).Named("rest").
				WithGuard(arbor.Check("tired", "missing").Named("rested?")),
		),
	}}, reg)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// nodeID returns the id of the node of tree labelled label.
func nodeID(t testing.TB, tree *arbor.Tree, label string) int {
	t.Helper()
	for i := 0; i < tree.Len(); i++ {
		if tree.Node(i).Label() == label {
			return i
		}
	}
	t.Fatalf("no node %q", label)
	return -1
}

// forceSession is newControlSession with one more agent running
// guardTree, whose id it returns.
func forceSession(t *testing.T, opts Options) (s *Session, h http.Handler, tree *arbor.Tree, id int) {
	t.Helper()
	s, h = newControlSession(t, opts)
	tree = guardTree(t)
	s.Do(func(m *arbor.Manager) { id = m.Add(tree).ID() })
	return s, h, tree, id
}

// force sets or lifts forces and fails the test unless it is accepted.
func force(t *testing.T, h http.Handler, method string, agent int, query, body string) map[string]any {
	t.Helper()
	path := fmt.Sprintf("/api/agents/%d/forces%s", agent, query)
	code, out := do(t, h, method, path, body, controlHeaders)
	if code != http.StatusOK {
		t.Fatalf("%s %s %s: %d %v", method, path, body, code, out)
	}
	return out
}

// forcesIn lists "node:status" of a forces list (the answers of the
// forces requests, or the agent's JSON).
func forcesIn(m map[string]any) string {
	fs, _ := m["forces"].([]any)
	var out []string
	for _, f := range fs {
		f := f.(map[string]any)
		out = append(out, fmt.Sprintf("%v:%v", f["node"], f["status"]))
	}
	return strings.Join(out, ",")
}

// mode is the agent's blackboard value "mode".
func mode(s *Session, id int) string {
	var out string
	s.Do(func(m *arbor.Manager) {
		v, _ := m.Agent(id).Blackboard().Lookup("mode")
		out, _ = v.Str()
	})
	return out
}

func TestForceRequests(t *testing.T) {
	s, h, tree, id := forceSession(t, Options{})
	tickN(s, 0, 1)
	path := fmt.Sprintf("/api/agents/%d/forces", id)
	noToken := map[string]string{"Content-Type": "application/json"}
	form := map[string]string{"X-Arbor-Token": "secret", "Content-Type": "text/plain"}
	alarm, alert, rested := nodeID(t, tree, "alarm?"), nodeID(t, tree, "Alert"), nodeID(t, tree, "rested?")
	cases := []apiErrorCase{
		{"no token", "POST", path, `{"node":1,"status":"success"}`, noToken, 401, "token"},
		{"no token to lift", "DELETE", path + "?node=1", ``, noToken, 401, "token"},
		{"no token to clear", "DELETE", path, ``, noToken, 401, "token"},
		{"not JSON", "POST", path, `{"node":1,"status":"success"}`, form, 415, "Content-Type"},
		{"running Check", "POST", path, fmt.Sprintf(`{"node":%d,"status":"running"}`, alarm), controlHeaders, 400,
			fmt.Sprintf("force node %d of agent %d: a condition or guard node cannot be running", alarm, id)},
		{"running condition", "POST", path, fmt.Sprintf(`{"node":%d,"status":"running"}`, alert), controlHeaders, 400, "cannot be running"},
		{"running guard", "POST", path, fmt.Sprintf(`{"node":%d,"status":"running"}`, rested), controlHeaders, 400, "cannot be running"},
		{"unknown node", "POST", path, `{"node":99,"status":"failure"}`, controlHeaders, 400, "no such node (the tree has 12)"},
		{"negative node", "POST", path, `{"node":-1,"status":"failure"}`, controlHeaders, 400, "no such node"},
		{"fractional node", "POST", path, `{"node":1.5,"status":"failure"}`, controlHeaders, 400, "bad body"},
		{"unknown status", "POST", path, `{"node":1,"status":"halted"}`, controlHeaders, 400, `bad status "halted": want success, failure or running`},
		{"invalid status", "POST", path, `{"node":1,"status":"invalid"}`, controlHeaders, 400, "bad status"},
		{"no status", "POST", path, `{"node":1}`, controlHeaders, 400, `want {"node": N, "status"`},
		{"no node", "POST", path, `{"status":"success"}`, controlHeaders, 400, `want {"node": N, "status"`},
		{"unknown field", "POST", path, `{"node":1,"status":"success","for":3}`, controlHeaders, 400, "unknown field"},
		{"unknown agent", "POST", "/api/agents/42/forces", `{"node":0,"status":"success"}`, controlHeaders, 404, "no agent 42"},
		{"bad node to lift", "DELETE", path + "?node=x", ``, controlHeaders, 400, `bad node "x"`},
		{"unknown node to lift", "DELETE", path + "?node=99", ``, controlHeaders, 400, "no such node"},
		{"empty node to lift", "DELETE", path + "?node=", ``, controlHeaders, 400, `bad node ""`},
		{"misspelt parameter to lift", "DELETE", path + "?nodes=1", ``, controlHeaders, 400, "bad query"},
		{"two nodes to lift", "DELETE", path + "?node=1&node=2", ``, controlHeaders, 400, "bad query"},
		{"list of unknown agent", "GET", "/api/agents/42/forces", ``, nil, 404, "no agent 42"},
	}
	checkAPIErrors(t, h, cases)
	if code, list := get(t, h, path); code != 200 || forcesIn(list) != "" || list["agent"].(float64) != float64(id) {
		t.Errorf("forces after refused requests: %d %v", code, list)
	}
	if watched(s, id) {
		t.Error("refused requests started a watch")
	}
	// Lifting a force that is not set, or all when there are none: fine.
	force(t, h, "DELETE", id, fmt.Sprintf("?node=%d", alarm), "")
	force(t, h, "DELETE", id, "", "")
}

func TestForcesNeedControls(t *testing.T) {
	s := newTestSession(t, Options{Token: "secret"})
	h := s.Handler()
	for _, c := range []struct{ method, query string }{{"POST", ""}, {"DELETE", ""}, {"DELETE", "?node=1"}} {
		code, body := do(t, h, c.method, "/api/agents/5/forces"+c.query, `{"node":1,"status":"success"}`, controlHeaders)
		if code != http.StatusForbidden || !strings.Contains(body["error"].(string), "read-only") {
			t.Errorf("%s%s: %d %v", c.method, c.query, code, body)
		}
	}
	// Listing is read-only: the program's own forces show.
	s.Do(func(m *arbor.Manager) {
		if err := m.Agent(5).Force(2, arbor.Success); err != nil {
			t.Fatal(err)
		}
	})
	if code, body := get(t, h, "/api/agents/5/forces"); code != 200 || forcesIn(body) != "2:success" {
		t.Errorf("list: %d %v", code, body)
	}
}

// Forcing the ReactiveSelector's first condition makes the agent fight at
// the next tick; forced to fail, it rests again. The agent needs no watch.
func TestForceChangesTheRunningBranch(t *testing.T) {
	s, h, tree, id := forceSession(t, Options{})
	tickN(s, 0, 2)
	alarm, fighting, resting := nodeID(t, tree, "alarm?"), nodeID(t, tree, "fighting"), nodeID(t, tree, "resting")
	running := func() (fight, rest bool) {
		s.Do(func(m *arbor.Manager) { fight, rest = m.Agent(id).Running(fighting), m.Agent(id).Running(resting) })
		return fight, rest
	}
	if got := mode(s, id); got != "rest" {
		t.Fatalf("mode %q before forcing, want rest", got)
	}
	out := force(t, h, "POST", id, "", fmt.Sprintf(`{"node":%d,"status":"success"}`, alarm))
	want := fmt.Sprintf("%d:success", alarm)
	if forcesIn(out) != want || out["forces"].([]any)[0].(map[string]any)["label"] != "alarm?" {
		t.Fatalf("answer %v, want forces %s", out, want)
	}
	if _, a := get(t, h, fmt.Sprintf("/api/agents/%d", id)); forcesIn(a) != want || revOf(t, a) != revOf(t, out) {
		t.Errorf("agent JSON %v, want forces %s (rev %v)", a, want, revOf(t, out))
	}
	tickN(s, 2, 1)
	if fight, rest := running(); mode(s, id) != "fight" || !fight || rest {
		t.Errorf("forced alarm: mode %q, fighting %v, resting %v; want fight, true, false", mode(s, id), fight, rest)
	}
	if _, list := get(t, h, fmt.Sprintf("/api/agents/%d/forces", id)); forcesIn(list) != want {
		t.Errorf("list %v, want %s", list, want)
	}
	force(t, h, "POST", id, "", fmt.Sprintf(`{"node":%d,"status":"failure"}`, alarm))
	tickN(s, 3, 1)
	if fight, rest := running(); mode(s, id) != "rest" || fight || !rest {
		t.Errorf("alarm forced to fail: mode %q, fighting %v, resting %v; want rest, false, true", mode(s, id), fight, rest)
	}
	force(t, h, "POST", id, "", fmt.Sprintf(`{"node":%d,"status":"success"}`, alarm))
	out = force(t, h, "DELETE", id, fmt.Sprintf("?node=%d", alarm), "")
	if forcesIn(out) != "" || out["forces"] == nil {
		t.Errorf("after lifting: %v, want an empty list", out)
	}
	tickN(s, 4, 1)
	if _, a := get(t, h, fmt.Sprintf("/api/agents/%d", id)); a["forces"] != nil || mode(s, id) != "rest" {
		t.Errorf("lifted: agent %v, mode %q", a, mode(s, id))
	}
	if watched(s, id) {
		t.Error("forcing started a watch")
	}
	s.Do(func(m *arbor.Manager) {
		if m.Agent(id).Tracer() != nil {
			t.Error("the agent has a tracer after its forces were lifted")
		}
	})
}

// A node forced to Running stays running on a watched agent's running
// path; lifting it ends it at once, and the page sees the halt without
// waiting for a tick.
func TestForceRunningOnAWatchedAgent(t *testing.T) {
	s, h, tree, id := forceSession(t, Options{})
	stop, err := s.Watch(id)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	tickN(s, 0, 1)
	fight, resting := nodeID(t, tree, "fight"), nodeID(t, tree, "resting")
	force(t, h, "POST", id, "", fmt.Sprintf(`{"node":%d,"status":"running"}`, fight))
	tickN(s, 1, 2)
	s.mu.Lock()
	w := s.watches[id]
	paths := runningPaths(w.td, w.liveStatuses())
	seq := w.seq
	s.mu.Unlock()
	if fmt.Sprint(paths) != fmt.Sprintf("[[0 %d]]", fight) {
		t.Errorf("running paths %v, want [[0 %d]]", paths, fight)
	}
	s.Do(func(m *arbor.Manager) {
		if m.Agent(id).Running(resting) {
			t.Error("the branch after the forced one still runs")
		}
	})
	force(t, h, "DELETE", id, "", "")
	code, tv := get(t, h, fmt.Sprintf("/api/agents/%d/ticks/%d", id, seq+1))
	if code != 200 || tv["between"] != true || tv["nodes"].(string)[fight] != 'H' {
		t.Fatalf("record after lifting: %d %v, want a record between ticks with node %d halted", code, tv, fight)
	}
	tickN(s, 3, 1)
	if mode(s, id) != "rest" {
		t.Errorf("mode %q after lifting, want rest", mode(s, id))
	}
}

// The tree's description says which nodes are conditions (NodeInfo), and
// describing it leaves the agent's forces as they were.
func TestTreeMarksConditions(t *testing.T) {
	s, h := newControlSession(t, Options{})
	tree := guardTree(t)
	var id int
	s.Do(func(m *arbor.Manager) {
		a := m.Add(tree)
		id = a.ID()
		// Forces of the program's own, before the debugger saw the tree.
		for label, st := range map[string]arbor.Status{"Alert": arbor.Failure, "fight": arbor.Running, "resting": arbor.Success} {
			if err := a.Force(nodeID(t, tree, label), st); err != nil {
				t.Fatal(err)
			}
		}
	})
	code, a := get(t, h, fmt.Sprintf("/api/agents/%d", id))
	if code != 200 {
		t.Fatalf("agent: %d %v", code, a)
	}
	want := fmt.Sprintf("%d:running,%d:failure,%d:success", nodeID(t, tree, "fight"), nodeID(t, tree, "Alert"), nodeID(t, tree, "resting"))
	if got := forcesIn(a); got != want {
		t.Errorf("forces %s after describing the tree, want %s", got, want)
	}
	_, td := get(t, h, fmt.Sprintf("/api/trees/%v", a["tree"]))
	var conds []string
	for _, n := range td["nodes"].([]any) {
		n := n.(map[string]any)
		if n["condition"] == true {
			conds = append(conds, n["label"].(string))
		}
	}
	if got := strings.Join(conds, ","); got != "alarm?,Alert,rested?" {
		t.Errorf("conditions %s, want alarm?,Alert,rested? (the last one the Check of a guard)", got)
	}
	s.Do(func(m *arbor.Manager) {
		if m.Agent(id).Tracer() != nil {
			t.Error("the agent got a tracer")
		}
	})
}

// A removed agent has no forces to show; a hot reload drops them.
func TestForcesOfRemovedAndReloadedAgents(t *testing.T) {
	s, h, tree, id := forceSession(t, Options{})
	sentry, _ := testTrees(t)
	alarm := nodeID(t, tree, "alarm?")
	force(t, h, "POST", id, "", fmt.Sprintf(`{"node":%d,"status":"success"}`, alarm))
	tickN(s, 0, 1)
	s.Do(func(m *arbor.Manager) { m.Reload(tree, sentry) })
	if _, list := get(t, h, fmt.Sprintf("/api/agents/%d/forces", id)); forcesIn(list) != "" {
		t.Errorf("forces after a hot reload: %v", list)
	}
	tickN(s, 1, 1)

	// A watched agent, removed: kept for a while, without forces.
	stop, err := s.Watch(0)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	force(t, h, "POST", 0, "", `{"node":2,"status":"success"}`)
	tickN(s, 2, 1)
	s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(0)) })
	tickN(s, 3, 1)
	if code, a := get(t, h, "/api/agents/0"); code != 200 || a["removed"] != true || a["forces"] != nil {
		t.Errorf("removed agent: %d %v", code, a)
	}
	if code, _ := get(t, h, "/api/agents/0/forces"); code != 404 {
		t.Errorf("forces of a removed agent: %d, want 404", code)
	}
}

// Forces set and lifted over HTTP while a multi-worker manager ticks: the
// race detector checks the handlers against the ticks.
func TestForcesWhileTicking(t *testing.T) {
	tree := guardTree(t)
	m := arbor.NewManager(arbor.WithWorkers(4))
	defer m.Close()
	for i := 0; i < 200; i++ {
		m.Add(tree)
	}
	s := NewSession(m, Options{Controls: true, Token: "secret", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := s.Handler()
	if _, err := s.Watch(3); err != nil {
		t.Fatal(err)
	}
	stop := tickInBackground(s)
	fight, alarm := nodeID(t, tree, "fight"), nodeID(t, tree, "alarm?")
	for i := 0; i < 150; i++ {
		id := i % 10
		switch i % 3 {
		case 0:
			force(t, h, "POST", id, "", fmt.Sprintf(`{"node":%d,"status":"running"}`, fight))
		case 1:
			force(t, h, "POST", id, "", fmt.Sprintf(`{"node":%d,"status":"success"}`, alarm))
		default:
			force(t, h, "DELETE", id, "", "")
		}
		get(t, h, fmt.Sprintf("/api/agents/%d", id))
	}
	stop()
}
