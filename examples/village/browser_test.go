package village

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/arborbt/arbor/debug"
)

const testToken = "browser-test-token"

var updateDocs = flag.Bool("update-docs", false, "also write the README's screenshots docs/debugger.png and docs/world.png")

// chromiumPath is Debian's chromium, which CI installs; CHROMIUM overrides it.
func chromiumPath(t *testing.T) string {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the browser tests need Chromium at %s (apt-get install -y chromium): %v", path, err)
	}
	return path
}

// startDemo serves the demo (world view and debugger) on a loopback port,
// ticking at 20 Hz, until the test ends.
func startDemo(t *testing.T) (base string, w *World) {
	t.Helper()
	vt, mt, err := LoadTrees(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	w = New(Config{}, vt, mt)
	sess := debug.NewSession(w.Manager(), debug.Options{Label: w.Label, Title: "Arbor village · debugger",
		Links: []debug.Link{{Name: "← world view", URL: "../"}}, Controls: true, Token: testToken})
	ln, err := debug.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	ran := make(chan struct{})
	go func() { served <- debug.Serve(ctx, ln, w.Mux(sess)) }()
	go func() {
		defer close(ran)
		Run(ctx, w, sess, 0)
	}()
	t.Cleanup(func() {
		cancel()
		<-ran
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		w.Manager().Close()
	})
	return "http://" + ln.Addr().String(), w
}

// browser starts headless Chromium for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.WindowSize(1400, 850),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithErrorf(func(format string, args ...any) {
		// This chromedp does not know every event newer browsers send.
		if msg := fmt.Sprintf(format, args...); !strings.Contains(msg, "could not unmarshal event") {
			t.Logf("chromedp: %s", msg)
		}
	}))
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// waitJS polls a JavaScript expression until it is true.
func waitJS(t *testing.T, ctx context.Context, what, expr string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &ok)); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still false after %v: %s", what, timeout, expr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	var out T
	if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &out)); err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return out
}

// screenshot saves the page to testdata/artifacts and, with -update-docs,
// to docs.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	dirs := []string{filepath.Join("..", "..", "testdata", "artifacts")}
	if *updateDocs {
		dirs = append(dirs, filepath.Join("..", "..", "docs"))
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshot %s (%d bytes)", name, len(png))
}

// nodeStates returns the tree's painted node states: status and visited.
const nodeStates = `Array.from(document.querySelectorAll('#tree g.node')).map(g => g.getAttribute('data-status') + ':' + g.getAttribute('data-visited')).join(',')`

func TestBrowserDemo(t *testing.T) {
	ctx := browser(t)
	base, w := startDemo(t)

	// The world view draws the village and counts the villagers.
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "world legend", `document.querySelectorAll('#acts li').length === 8`, 20*time.Second)
	waitJS(t, ctx, "villagers counted",
		`Array.from(document.querySelectorAll('#acts .n')).reduce((s, e) => s + Number(e.textContent), 0) === 200`, 10*time.Second)
	// Let the villagers spread over the zones before the picture.
	for w.Ticks() < 160 {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	screenshot(t, ctx, "world.png")

	// The debugger lists the agents, with counts per tree.
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/debug/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "agent list", `document.querySelectorAll('#agent-list li.agent-item').length === 200`, 20*time.Second)
	if info := eval[string](t, ctx, `document.querySelector('#list-info').textContent`); !strings.Contains(info, "206 of 206 agents") {
		t.Errorf("list info %q", info)
	}
	chips := eval[string](t, ctx, `document.querySelector('#tree-counts').textContent`)
	if !strings.Contains(chips, "Villager 200") || !strings.Contains(chips, "Monster 6") {
		t.Errorf("tree counts %q", chips)
	}
	// Filter by tree, then search.
	if err := chromedp.Run(ctx, chromedp.SetValue("#filter-tree", "1", chromedp.ByID),
		chromedp.Evaluate(`document.querySelector('#filter-tree').dispatchEvent(new Event('change'))`, nil)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "monster filter", `document.querySelectorAll('#agent-list li.agent-item').length === 6`, 10*time.Second)
	if err := chromedp.Run(ctx, chromedp.SetValue("#filter-tree", "", chromedp.ByID),
		chromedp.Evaluate(`document.querySelector('#filter-tree').dispatchEvent(new Event('change'))`, nil),
		chromedp.SendKeys("#search", "villager 17 ·", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "search", `document.querySelectorAll('#agent-list li.agent-item').length === 1 && document.querySelector('#agent-list li').dataset.id === '17'`, 10*time.Second)

	// Open the agent: its tree is drawn and its node statuses change over ticks.
	if err := chromedp.Run(ctx, chromedp.Click(`#agent-list li[data-id="17"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	treeLen := w.Villagers[17].agent.Tree().Len()
	waitJS(t, ctx, "tree drawn", fmt.Sprintf(`document.querySelectorAll('#tree g.node').length === %d`, treeLen), 10*time.Second)
	waitJS(t, ctx, "root visited", `(() => { const g = document.querySelector('#tree g.node[data-id="0"]'); return g && g.getAttribute('data-visited') === '1' && g.getAttribute('data-status') === 'running'; })()`, 10*time.Second)
	waitJS(t, ctx, "running leaf", `document.querySelectorAll('#running-list .crumb.leaf').length >= 1`, 10*time.Second)
	first := eval[string](t, ctx, nodeStates)
	changed := false
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if eval[string](t, ctx, nodeStates) != first {
			changed = true
			break
		}
	}
	if !changed {
		t.Fatalf("node statuses did not change in 20s: %s", first)
	}

	// The blackboard panel shows the needs.
	waitJS(t, ctx, "blackboard", `(() => { const r = document.querySelector('#bb-agent tr[data-key="Food"] td.v'); return !!r && !isNaN(parseFloat(r.textContent)); })()`, 10*time.Second)
	for _, key := range []string{"Water", "Energy", "Mood", "Money", "thinking", "TargetMovePos"} {
		if !eval[bool](t, ctx, fmt.Sprintf(`!!document.querySelector('#bb-agent tr[data-key=%q]')`, key)) {
			t.Errorf("blackboard lacks %s", key)
		}
	}

	// The timeline scrubs back: the tree shows the recorded tick.
	waitJS(t, ctx, "history", `(() => { const r = document.querySelector('#tl-range'); return Number(r.max) - Number(r.min) >= 30; })()`, 20*time.Second)
	seq := eval[float64](t, ctx, `(() => { const r = document.querySelector('#tl-range'); r.value = Number(r.max) - 25; r.dispatchEvent(new Event('input')); return Number(r.value); })()`)
	waitJS(t, ctx, "scrubbed label", fmt.Sprintf(`document.querySelector('#tl-label').textContent.startsWith('history · record %d ')`, int(seq)), 10*time.Second)
	if eval[bool](t, ctx, `document.querySelector('#btn-live').classList.contains('on')`) {
		t.Error("still live after scrubbing")
	}
	resp, err := http.Get(fmt.Sprintf("%s/debug/api/agents/17/ticks/%d", base, int(seq)))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct{ Nodes string }
	err = json.NewDecoder(resp.Body).Decode(&rec)
	resp.Body.Close()
	if err != nil || len(rec.Nodes) != treeLen {
		t.Fatalf("tick %d: %v %q", int(seq), err, rec.Nodes)
	}
	names := map[byte]string{'r': "running", 's': "success", 'f': "failure", 'h': "halted", '.': "never"}
	var want []string
	for i := 0; i < len(rec.Nodes); i++ {
		c := rec.Nodes[i]
		visited := "0"
		if c >= 'A' && c <= 'Z' {
			visited, c = "1", c+('a'-'A')
		}
		want = append(want, names[c]+":"+visited)
	}
	// The page keeps showing the old tick while the world goes on.
	time.Sleep(400 * time.Millisecond)
	if got := eval[string](t, ctx, nodeStates); got != strings.Join(want, ",") {
		t.Errorf("scrubbed tree\n got %s\nwant %s", got, strings.Join(want, ","))
	}
	if n := eval[float64](t, ctx, `document.querySelectorAll('#bb-agent tbody tr').length`); n < 5 {
		t.Errorf("scrubbed blackboard has %v rows", n)
	}
	// Events of that tick, and the per-node statistics.
	if err := chromedp.Run(ctx, chromedp.Click(`.tabs button[data-tab="events"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "events", `document.querySelectorAll('#events-list li .k-result, #events-list li .k-start').length > 0`, 5*time.Second)
	if err := chromedp.Run(ctx, chromedp.Click(`.tabs button[data-tab="stats"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "stats", `document.querySelectorAll('#stats-table tbody tr').length > 10 && Number(document.querySelector('#stats-table tbody tr td:nth-child(2)').textContent) > 0`, 5*time.Second)

	// Back to live; select a node for the picture.
	if err := chromedp.Run(ctx, chromedp.Click("#btn-live", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "live again", `document.querySelector('#tl-label').textContent.startsWith('live')`, 5*time.Second)
	if err := chromedp.Run(ctx, chromedp.Click(`.tabs button[data-tab="bb"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	screenshot(t, ctx, "debugger.png")

	// Controls: the token comes in the URL's fragment; pause, step, resume
	// and a blackboard write from the page.
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/debug/#agent=5&token="+testToken)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "agent 5 opened", `document.querySelector('#agent-title').textContent.startsWith('Agent #5 ')`, 10*time.Second)
	if strings.Contains(eval[string](t, ctx, `location.href`), testToken) {
		t.Error("the token stays in the address bar")
	}
	agent := func() (paused bool, nowMs float64) {
		var a struct {
			Paused bool
			NowMs  float64
		}
		resp, err := http.Get(base + "/debug/api/agents/5")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
			t.Fatal(err)
		}
		return a.Paused, a.NowMs
	}
	if err := chromedp.Run(ctx, chromedp.Click("#btn-pause", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "paused", `document.querySelector('#agent-status').textContent === 'paused'`, 5*time.Second)
	paused, at := agent()
	time.Sleep(300 * time.Millisecond)
	if p, now := agent(); !paused || !p || now != at {
		t.Fatalf("pause: paused %v, time %v then %v", p, at, now)
	}
	if err := chromedp.Run(ctx, chromedp.Click("#btn-step", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	// One tick at the world's current time, then paused again.
	var stepped float64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		p, now := agent()
		if now > at && p {
			stepped = now
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("step: paused %v, time %v (was %v)", p, now, at)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if p, now := agent(); !p || now != stepped {
		t.Fatalf("after step: paused %v, time %v then %v", p, stepped, now)
	}
	if err := chromedp.Run(ctx, chromedp.Click("#btn-resume", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "resumed", `document.querySelector('#agent-status').textContent === 'running'`, 5*time.Second)
	if err := chromedp.Run(ctx,
		chromedp.SendKeys("#bb-key", "note", chromedp.ByID),
		chromedp.SendKeys("#bb-value", `"hello from the page"`, chromedp.ByID),
		chromedp.Click(`#bb-form button[type="submit"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "blackboard write", `(() => { const r = document.querySelector('#bb-agent tr[data-key="note"] td.v'); return !!r && r.textContent === '"hello from the page"'; })()`, 5*time.Second)
}

// agentJSON reads one agent of the demo's debugger.
func agentJSON(t *testing.T, base string, id int) (a struct {
	Paused    bool
	NowMs     float64
	LastBreak *struct {
		Node   int
		Event  string
		Tick   int
		Paused bool
	}
}) {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("%s/debug/api/agents/%d", base, id))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatal(err)
	}
	return a
}

// A breakpoint set with a checkbox of the Node tab pauses the agent: the
// tree marks the node, a banner names the hit, Resume runs to the next.
func TestBrowserBreakpoints(t *testing.T) {
	ctx := browser(t)
	base, _ := startDemo(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/debug/#agent=3&token="+testToken)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "agent 3 opened", `document.querySelector('#agent-title').textContent.startsWith('Agent #3 ')`, 10*time.Second)
	// The root ("live", a Repeat) is running on every tick: click it in
	// the whole tree (Fit also stops following the running node), and
	// break on "running".
	waitJS(t, ctx, "tree drawn", `document.querySelectorAll('#tree g.node').length > 10`, 10*time.Second)
	if err := chromedp.Run(ctx, chromedp.Click("#btn-fit", chromedp.ByID),
		chromedp.Click(`#tree g.node[data-id="0"] rect`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "breakpoint checkboxes", `document.querySelectorAll('#bp-box input[type=checkbox]:not(:disabled)').length === 6`, 5*time.Second)
	if err := chromedp.Run(ctx, chromedp.Click(`#bp-box input[data-event="running"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	const banner = `(() => { const b = document.querySelector('#break-banner'); return b.hidden ? '' : b.textContent; })()`
	waitJS(t, ctx, "banner", banner+`.startsWith('Paused at breakpoint: live running (tick ')`, 10*time.Second)
	if !eval[bool](t, ctx, `!!document.querySelector('#tree .bp-dot[data-node="0"]')`) {
		t.Error("no breakpoint marker on the root")
	}
	if !eval[bool](t, ctx, `document.querySelector('#tree g.node[data-id="0"]').classList.contains('breakhit')`) {
		t.Errorf("the node of the hit is not highlighted: %s", eval[string](t, ctx, `document.querySelector('#tree g.node[data-id="0"]').getAttribute('class')`))
	}
	if st := eval[string](t, ctx, `document.querySelector('#agent-status').textContent`); st != "paused" {
		t.Errorf("status %q, want paused", st)
	}
	a := agentJSON(t, base, 3)
	if !a.Paused || a.LastBreak == nil || a.LastBreak.Node != 0 || a.LastBreak.Event != "running" || !a.LastBreak.Paused {
		t.Fatalf("agent after the hit: %+v", a)
	}
	first := eval[string](t, ctx, banner)
	if !strings.HasSuffix(first, fmt.Sprintf("(tick %d)", a.LastBreak.Tick)) {
		t.Errorf("banner %q, hit at tick %d", first, a.LastBreak.Tick)
	}
	screenshot(t, ctx, "breakpoint.png")

	// Resume: one more tick, and the breakpoint stops it again.
	if err := chromedp.Run(ctx, chromedp.Click("#btn-resume", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "next hit", fmt.Sprintf(`(() => { const t = %s; return t.startsWith('Paused at breakpoint: ') && t !== %q; })()`, banner, first), 10*time.Second)
	if b := agentJSON(t, base, 3); !b.Paused || b.NowMs <= a.NowMs || b.LastBreak.Tick <= a.LastBreak.Tick {
		t.Errorf("after resume: %+v %+v, was %+v %+v; banner %q then %q", b, *b.LastBreak, a, *a.LastBreak, first, eval[string](t, ctx, banner))
	}

	// Clear all: the marker goes; the agent stays paused until resumed.
	if err := chromedp.Run(ctx, chromedp.Click("#btn-clear-bps", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "marker removed", `!document.querySelector('#tree .bp-dot') && document.querySelector('#btn-clear-bps').disabled`, 5*time.Second)
	if eval[bool](t, ctx, `document.querySelector('#bp-box input[data-event="running"]').checked`) {
		t.Error("checkbox still checked after clearing")
	}
	if err := chromedp.Run(ctx, chromedp.Click("#btn-resume", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "running again", `document.querySelector('#agent-status').textContent === 'running' && document.querySelector('#break-banner').hidden`, 5*time.Second)
	time.Sleep(300 * time.Millisecond)
	if c := agentJSON(t, base, 3); c.Paused {
		t.Errorf("paused again after clearing: %+v", c)
	}
}
