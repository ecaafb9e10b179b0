package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to read while a command writes it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var tokenRE = regexp.MustCompile(`#token=(\S+)`)

// serveWithToken runs a serving command with -controls until check is
// done, and gives check the base URL and the control token it printed.
func serveWithToken(t *testing.T, run func(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(string)) int,
	args []string, check func(base, token string)) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int, 1)
	urls := make(chan string, 1)
	go func() { done <- run(ctx, args, &out, &errOut, func(base string) { urls <- base }) }()
	select {
	case base := <-urls:
		m := tokenRE.FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("no token in the output:\n%s", out.String())
		}
		check(base, m[1])
	case code := <-done:
		t.Fatalf("exited %d before serving: %s", code, errOut.String())
	}
	cancel()
	code := <-done
	if code != 0 {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
	return code
}

// postJSON posts a control request and decodes its JSON answer into v.
func postJSON(t *testing.T, url, token, body string, v any) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Arbor-Token", token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if v != nil {
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatalf("POST %s: %v: %s", url, err, data)
		}
	}
	return resp.StatusCode
}

// waitFor polls cond every 50 ms for up to d.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v", what, d)
		}
	}
}

// agentView is what the tests read of an agent and its tree.
type agentView struct {
	Tree  int
	Label string
}

type treeView struct {
	Nodes []struct {
		Path   string
		Type   string
		Params map[string]any
	}
	Source struct{ File, Format string }
	// Types are the parameters of the tree's node types (for the edit
	// form), as JSON by type.
	Types map[string]json.RawMessage
}

// typeJSON returns the JSON of type typ's parameters in tv ("" when none).
func (tv *treeView) typeJSON(typ string) string { return string(tv.Types[typ]) }

// arbor serve -controls edits trees: an edit compiles with the file's
// mocks (Patrol, unknown, is one), every agent of the file runs it, the
// edited tree downloads as the file's format; the file changed on disk
// afterwards replaces the edited tree.
func TestServeEditsTrees(t *testing.T) {
	dir := t.TempDir()
	const tree = `type: Selector
children:
  - type: Sequence
    name: alert
    children:
      - {type: Check, key: noise, op: exists}
      - {type: Set, key: mode, value: alert}
  - type: Sequence
    children:
      - {type: Set, key: mode, value: patrol}
      - {type: Patrol}
`
	file := writeFile(t, dir, "guard.yaml", tree)
	serveWithToken(t, runServe, []string{"-addr", "127.0.0.1:0", "-controls", "-agents", "2", "-tick-ms", "20", file}, func(base, token string) {
		var sess struct{ Edit bool }
		getJSON(t, base+"/api/session", &sess)
		if !sess.Edit {
			t.Error("arbor serve -controls: no editing")
		}
		mode := func(id int) string {
			var bb struct {
				AgentScope []struct {
					Key   string
					Value any
				}
			}
			getJSON(t, fmt.Sprintf("%s/api/agents/%d/blackboard", base, id), &bb)
			for _, e := range bb.AgentScope {
				if e.Key == "mode" {
					s, _ := e.Value.(string)
					return s
				}
			}
			return ""
		}
		waitFor(t, "patrolling", 5*time.Second, func() bool { return mode(0) == "patrol" })
		var a agentView
		getJSON(t, base+"/api/agents/0", &a)
		// The edit form's types: the built-ins and the mocks (any
		// parameters).
		const anyParams = `{"anyParams":true}`
		var tv treeView
		getJSON(t, fmt.Sprintf("%s/api/trees/%d", base, a.Tree), &tv)
		if tv.typeJSON("Patrol") != anyParams || !strings.Contains(tv.typeJSON("Set"), `{"name":"ttlMs","kind":"number"}`) {
			t.Errorf("the tree's types: %s", tv.Types)
		}
		var ans struct {
			Agents int
			Tree   int
			Error  string
		}
		if code := postJSON(t, fmt.Sprintf("%s/api/trees/%d/edit", base, a.Tree), token,
			`{"path": "root.children[0].children[0]", "params": {"op": "missing"}}`, &ans); code != 200 || ans.Agents != 2 {
			t.Fatalf("edit: %d %+v", code, ans)
		}
		waitFor(t, "alert after the edit", 5*time.Second, func() bool { return mode(0) == "alert" && mode(1) == "alert" })
		var b agentView
		getJSON(t, base+"/api/agents/1", &b)
		if b.Tree != ans.Tree || b.Label != "guard.yaml" {
			t.Errorf("agent 1 after the edit: %+v (edited tree %d)", b, ans.Tree)
		}
		// A compile error: the compiler's message.
		var bad struct{ Error string }
		if code := postJSON(t, fmt.Sprintf("%s/api/trees/%d/edit", base, ans.Tree), token,
			`{"path": "root.children[0].children[1]", "params": {"ttlMs": -1}}`, &bad); code != 400 || !strings.Contains(bad.Error, `parameter "ttlMs"`) {
			t.Errorf("bad edit: %d %+v", code, bad)
		}
		// The edited tree downloads as guard.yaml.
		resp, err := http.Get(fmt.Sprintf("%s/api/trees/%d/document", base, ans.Tree))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		_, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Disposition"))
		if resp.StatusCode != 200 || params["filename"] != "guard.yaml" || !strings.Contains(string(data), "op: missing") || !strings.Contains(string(data), "type: Patrol") {
			t.Errorf("download: %d %v\n%s", resp.StatusCode, params, data)
		}
		// The file on disk is as it was; changed, it replaces the edit.
		if disk, _ := os.ReadFile(file); string(disk) != tree {
			t.Errorf("the edit rewrote the file:\n%s", disk)
		}
		writeFile(t, dir, "guard.yaml", strings.Replace(tree, "value: patrol", "value: patrolling", 1)+"      - {type: Rest}\n")
		waitFor(t, "the file's tree after its change", 10*time.Second, func() bool { return mode(0) == "patrolling" && mode(1) == "patrolling" })
		// A mock the reload brought is described too.
		getJSON(t, base+"/api/agents/0", &a)
		getJSON(t, fmt.Sprintf("%s/api/trees/%d", base, a.Tree), &tv)
		if tv.typeJSON("Rest") != anyParams || tv.typeJSON("Patrol") != anyParams {
			t.Errorf("the reloaded tree's types: %s", tv.Types)
		}
	})
}

// arbor demo -controls edits the village's trees.
func TestDemoEditsTrees(t *testing.T) {
	serveWithToken(t, runDemo, []string{"-addr", "127.0.0.1:0", "-villagers", "3", "-monsters", "1", "-controls"}, func(base, token string) {
		var sess struct {
			Edit  bool
			Trees []struct {
				ID   int
				Name string
			}
		}
		waitFor(t, "the trees", 5*time.Second, func() bool {
			getJSON(t, base+"/debug/api/session", &sess)
			return len(sess.Trees) == 2
		})
		if !sess.Edit {
			t.Error("arbor demo -controls: no editing")
		}
		var tv treeView
		getJSON(t, fmt.Sprintf("%s/debug/api/trees/%d", base, sess.Trees[0].ID), &tv)
		if tv.Source.File != "villager.yaml" || tv.Source.Format != "arbor" {
			t.Errorf("the villager tree's source: %+v", tv.Source)
		}
		// The edit form's types: the village's (a Feel's zone) too.
		if feel := tv.typeJSON("FeelBoring"); feel != `{"params":[{"name":"zone","kind":"other"}]}` || tv.typeJSON("Repeat") == "" {
			t.Errorf("the villager tree's types: %s", tv.Types)
		}
		// The first Check against a number of the villager's: its value
		// set to another.
		var path string
		for _, n := range tv.Nodes {
			if _, isNum := n.Params["value"].(float64); isNum && n.Params["op"] != nil && path == "" {
				path = n.Path
			}
		}
		if path == "" {
			t.Fatal("no Check against a number in the villager's tree")
		}
		var ans struct {
			Agents int
			Error  string
		}
		if code := postJSON(t, fmt.Sprintf("%s/debug/api/trees/%d/edit", base, sess.Trees[0].ID), token,
			fmt.Sprintf(`{"path": %q, "params": {"value": 12345}}`, path), &ans); code != 200 || ans.Agents != 3 {
			t.Fatalf("edit of %s: %d %+v", path, code, ans)
		}
	})
}
