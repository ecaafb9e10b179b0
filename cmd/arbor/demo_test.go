package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestDemoHeadless(t *testing.T) {
	var out, errOut bytes.Buffer
	code := cmdDemo([]string{"-headless", "-ticks", "400", "-villagers", "50", "-monsters", "3"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	s := out.String()
	for _, want := range []string{"village: 50 villagers, 3 monsters, 400 ticks (20s of game time)", "ticks/s",
		"activities started: HaveFun ", "Work ", "doing now: ", "deaths: ", "monsters: "} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
	started := s[strings.Index(s, "activities started:"):]
	started = started[:strings.Index(started, "\n")]
	if strings.Contains(started, "Work 0,") {
		t.Errorf("nobody worked in 20 s:\n%s", s)
	}
}

func TestDemoFlags(t *testing.T) {
	for _, args := range [][]string{{"-ticks", "-1"}, {"-villagers", "0"}, {"extra"}, {"--nope"}} {
		var out, errOut bytes.Buffer
		if code := cmdDemo(args, &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	var out, errOut bytes.Buffer
	if code := cmdDemo([]string{"-headless", "-trees", t.TempDir()}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "villager") {
		t.Errorf("empty trees dir: exit %d: %s", code, errOut.String())
	}
	dir := t.TempDir()
	writeFile(t, dir, "villager.yaml", "type: Sequence\nchildren:\n  - {type: Wrok}\n")
	writeFile(t, dir, "monster.yaml", "type: Success\n")
	out.Reset()
	errOut.Reset()
	if code := cmdDemo([]string{"-headless", "-trees", dir}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "Wrok") {
		t.Errorf("bad tree: exit %d: %s", code, errOut.String())
	}
	// The user's trees run: a villager that only works.
	writeFile(t, dir, "villager.yaml", "type: Sequence\nchildren:\n  - {type: FeelPoor}\n  - {type: WalkTo}\n  - {type: Work}\n")
	out.Reset()
	errOut.Reset()
	if code := cmdDemo([]string{"-headless", "-trees", dir, "-ticks", "100", "-villagers", "3"}, &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), "HaveFun 0, EatFood 0, DrinkWater 0, HaveRest 0, Work 3") {
		t.Errorf("custom trees: exit %d: %s%s", code, out.String(), errOut.String())
	}
}

// serveFor runs a serving command until the test has fetched what it
// needs, and returns the base URL through ready.
func serveFor(t *testing.T, run func(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(string)) int,
	args []string, check func(base string)) (string, int) {
	t.Helper()
	var errOut bytes.Buffer
	return serveForErr(t, run, args, &errOut, check)
}

// serveForErr is serveFor writing the command's standard error to errOut.
func serveForErr(t *testing.T, run func(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(string)) int,
	args []string, errOut *bytes.Buffer, check func(base string)) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	done := make(chan int, 1)
	urls := make(chan string, 1)
	go func() { done <- run(ctx, args, &out, errOut, func(base string) { urls <- base }) }()
	select {
	case base := <-urls:
		check(base)
	case code := <-done:
		t.Fatalf("exited %d before serving: %s", code, errOut.String())
	}
	cancel()
	code := <-done // before reading out: the command may still write
	return out.String(), code
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}

func TestDemoServes(t *testing.T) {
	out, code := serveFor(t, runDemo, []string{"-addr", "127.0.0.1:0", "-villagers", "20", "-monsters", "2", "-controls"}, func(base string) {
		var info struct{ Villagers, FirstMonster int }
		getJSON(t, base+"/world/info", &info)
		if info.Villagers != 20 || info.FirstMonster != 20 {
			t.Errorf("world info %+v", info)
		}
		var sess struct {
			Agents   int
			Controls bool
			Trees    []struct{ Name string }
		}
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			getJSON(t, base+"/debug/api/session", &sess)
			var s struct{ Tick int }
			getJSON(t, base+"/debug/api/session", &s)
			if s.Tick > 2 || time.Now().After(deadline) {
				break
			}
		}
		if sess.Agents != 22 || !sess.Controls || len(sess.Trees) != 2 || sess.Trees[0].Name != "Villager" {
			t.Errorf("session %+v", sess)
		}
		resp, err := http.Get(base + "/")
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(page), "<canvas id=\"world\"") {
			t.Errorf("world page: %.200s", page)
		}
	})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	// Both addresses carry the token (the world page hands it on).
	if !regexp.MustCompile(`world view: http://127\.0\.0\.1:\d+/#token=\S+\n\s+debugger: +http://127\.0\.0\.1:\d+/debug/#token=\S+\n`).MatchString(out) {
		t.Errorf("output:\n%s", out)
	}
}

func TestServeCommand(t *testing.T) {
	dir := t.TempDir()
	guard := filepath.Join("..", "..", "testdata", "bench", "guard.json")
	sentry := filepath.Join("..", "..", "examples", "sentry.yaml")
	out, code := serveFor(t, runServe, []string{guard, sentry, "-addr", "127.0.0.1:0", "-agents", "3", "-tick-ms", "20",
		"-mock", "Attack=running,success"}, func(base string) {
		var list struct {
			Total  int
			Agents []struct {
				Label    string
				TreeName string
				NowMs    float64
			}
		}
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			getJSON(t, base+"/api/agents", &list)
			if list.Total > 0 && list.Agents[0].NowMs > 0 || time.Now().After(deadline) {
				break
			}
		}
		if list.Total != 6 || list.Agents[0].TreeName != "Guard" || list.Agents[0].Label != "guard.json" || list.Agents[3].TreeName != "Sentry" {
			t.Errorf("agents %+v", list)
		}
		if list.Agents[0].NowMs <= 0 {
			t.Error("the agents do not tick")
		}
	})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out, "6 agents of 2 trees") || !strings.Contains(out, "debugger: http://127.0.0.1:") {
		t.Errorf("output:\n%s", out)
	}

	bad := writeFile(t, dir, "bad.json", `{"type": "Sequence", "children": [{"type": "Wait"}]}`)
	var o, e bytes.Buffer
	if code := runServe(context.Background(), []string{"-addr", "127.0.0.1:0", bad}, &o, &e, nil); code != 1 || !strings.Contains(e.String(), "Wait") {
		t.Errorf("bad file: exit %d: %s", code, e.String())
	}
	for _, args := range [][]string{{}, {"-agents", "0", bad}, {"-tick-ms", "0", bad}} {
		o.Reset()
		e.Reset()
		if code := runServe(context.Background(), args, &o, &e, nil); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 agents"}, {1, "1 agent"}, {2, "2 agents"}} {
		if got := plural(tc.n, "agent"); got != tc.want {
			t.Errorf("plural(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

// TestDemoReloadsTreeFiles: the demo reloads a tree file it reads when the
// file changes, whichever extension it has (villager.yml here).
func TestDemoReloadsTreeFiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join("..", "..", "examples", "village")
	villager, err := os.ReadFile(filepath.Join(src, "villager.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	monster, err := os.ReadFile(filepath.Join(src, "monster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "villager.yml", string(villager))
	writeFile(t, dir, "monster.yaml", string(monster))
	villagerTree := func(base string) int {
		var sess struct {
			Trees []struct {
				ID   int
				Name string
			}
		}
		getJSON(t, base+"/debug/api/session", &sess)
		for _, tr := range sess.Trees {
			if tr.Name == "Villager" {
				return tr.ID
			}
		}
		return -1
	}
	out, code := serveFor(t, runDemo, []string{"-addr", "127.0.0.1:0", "-villagers", "3", "-monsters", "1", "-trees", dir}, func(base string) {
		first := villagerTree(base)
		edited := strings.Replace(string(villager), `{ type: Check, key: Food, op: ">=", value: 30 }`, `{ type: Check, key: Food, op: ">=", value: 300 }`, 1)
		if edited == string(villager) {
			t.Fatal("the villager tree has no Check to edit")
		}
		writeFile(t, dir, "villager.yml", edited)
		for deadline := time.Now().Add(10 * time.Second); villagerTree(base) == first; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the edited villager.yml was not reloaded")
			}
		}
	})
	if code != 0 || !strings.Contains(out, "reloaded the trees (3 agents)") {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}
