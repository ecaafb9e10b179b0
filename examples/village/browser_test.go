package village

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/debug"
	bt "github.com/arborbt/arbor/internal/browsertest"
)

const testToken = "browser-test-token"

var updateDocs = flag.Bool("update-docs", false, "also write the README's screenshots docs/debugger.png and docs/world.png")

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
	base = serveTest(t, w.Mux(sess), func(ctx context.Context) { Run(ctx, w, sess, 0) }, w.Manager().Close)
	return base, w
}

// serveTest serves h on a loopback port and runs run (the ticking loop)
// until the test ends, then stops both and calls done. It returns the
// server's base URL.
func serveTest(t *testing.T, h http.Handler, run func(ctx context.Context), done func()) string {
	t.Helper()
	ln, err := debug.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	ran := make(chan struct{})
	go func() { served <- debug.Serve(ctx, ln, h) }()
	go func() {
		defer close(ran)
		run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-ran
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		done()
	})
	return "http://" + ln.Addr().String()
}

// screenshot saves the page to testdata/artifacts and, with -update-docs,
// the README's two pictures (debugger.png, world.png) to docs too.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dirs := []string{filepath.Join("..", "..", "testdata", "artifacts")}
	if *updateDocs && (name == "debugger.png" || name == "world.png") {
		dirs = append(dirs, filepath.Join("..", "..", "docs"))
	}
	bt.Screenshot(t, ctx, name, dirs...)
}

// nodeStates returns the tree's painted node states: status and visited.
const nodeStates = `Array.from(document.querySelectorAll('#tree g.node')).map(g => g.getAttribute('data-status') + ':' + g.getAttribute('data-visited')).join(',')`

// paintedStates is what nodeStates returns for the status letters of a
// tick as the API serves them.
func paintedStates(letters string) string {
	names := map[byte]string{'r': "running", 's': "success", 'f': "failure", 'h': "halted", '.': "never"}
	var out []string
	for i := 0; i < len(letters); i++ {
		c := letters[i]
		visited := "0"
		if c >= 'A' && c <= 'Z' {
			visited, c = "1", c+('a'-'A')
		}
		out = append(out, names[c]+":"+visited)
	}
	return strings.Join(out, ",")
}

// holdUpdates makes the pages the browser opens from now on hold their
// live agent updates while window.__hold is set (in window.__held, each a
// function delivering it), to deliver them later: out of order with the
// replies to control requests, as a slow network may.
func holdUpdates(t *testing.T, ctx context.Context) {
	t.Helper()
	const script = `(() => {
		const ES = window.EventSource;
		window.__hold = false;
		window.__held = [];
		window.EventSource = function (url) {
			const es = new ES(url);
			const add = es.addEventListener.bind(es);
			es.addEventListener = (name, fn, opts) => add(name, (e) => {
				if (name === 'agent' && window.__hold) window.__held.push(() => fn(e)); else fn(e);
			}, opts);
			return es;
		};
	})()`
	if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(script).Do(ctx)
		return err
	})); err != nil {
		t.Fatal(err)
	}
}

func TestBrowserDemo(t *testing.T) {
	ctx := bt.Start(t, 1400, 850)
	thrown := bt.Errors(ctx)
	base, w := startDemo(t)

	// The world view draws the village and counts the villagers.
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/")); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "world legend", `document.querySelectorAll('#acts li').length === 9`, 20*time.Second)
	bt.Wait(t, ctx, "villagers counted",
		`Array.from(document.querySelectorAll('#acts .n')).reduce((s, e) => s + Number(e.textContent), 0) === 200`, 10*time.Second)
	// Let the villagers spread over the zones before the picture.
	for w.Ticks() < 160 {
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	screenshot(t, ctx, "world.png")
	checkWorldView(t, ctx, base, thrown)

	// The debugger lists the agents, with counts per tree.
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/debug/")); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "agent list", `document.querySelectorAll('#agent-list li.agent-item').length === 200`, 20*time.Second)
	if info := bt.Eval[string](t, ctx, `document.querySelector('#list-info').textContent`); !strings.Contains(info, "206 of 206 agents") {
		t.Errorf("list info %q", info)
	}
	chips := bt.Eval[string](t, ctx, `document.querySelector('#tree-counts').textContent`)
	if !strings.Contains(chips, "Villager 200") || !strings.Contains(chips, "Monster 6") {
		t.Errorf("tree counts %q", chips)
	}
	// Filter by tree, then search.
	if err := chromedp.Run(ctx, chromedp.SetValue("#filter-tree", "1", chromedp.ByID),
		chromedp.Evaluate(`document.querySelector('#filter-tree').dispatchEvent(new Event('change'))`, nil)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "monster filter", `document.querySelectorAll('#agent-list li.agent-item').length === 6`, 10*time.Second)
	if err := chromedp.Run(ctx, chromedp.SetValue("#filter-tree", "", chromedp.ByID),
		chromedp.Evaluate(`document.querySelector('#filter-tree').dispatchEvent(new Event('change'))`, nil),
		chromedp.SendKeys("#search", "villager 17 ·", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "search", `document.querySelectorAll('#agent-list li.agent-item').length === 1 && document.querySelector('#agent-list li').dataset.id === '17'`, 10*time.Second)

	// Open the agent: its tree is drawn and its node statuses change over ticks.
	// (The entry is redrawn as the villager's needs change: bt.Click.)
	bt.Click(t, ctx, `#agent-list li[data-id="17"]`)
	treeLen := w.Villagers[17].agent.Tree().Len()
	bt.Wait(t, ctx, "tree drawn", fmt.Sprintf(`document.querySelectorAll('#tree g.node').length === %d`, treeLen), 10*time.Second)
	bt.Wait(t, ctx, "root visited", `(() => { const g = document.querySelector('#tree g.node[data-id="0"]'); return g && g.getAttribute('data-visited') === '1' && g.getAttribute('data-status') === 'running'; })()`, 10*time.Second)
	bt.Wait(t, ctx, "running leaf", `document.querySelectorAll('#running-list .crumb.leaf').length >= 1`, 10*time.Second)
	first := bt.Eval[string](t, ctx, nodeStates)
	changed := false
	for deadline := time.Now().Add(bt.Slack * 20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if bt.Eval[string](t, ctx, nodeStates) != first {
			changed = true
			break
		}
	}
	if !changed {
		t.Fatalf("node statuses did not change in 20s: %s", first)
	}

	// The blackboard panel shows the needs.
	bt.Wait(t, ctx, "blackboard", `(() => { const r = document.querySelector('#bb-agent tr[data-key="Food"] td.v'); return !!r && !isNaN(parseFloat(r.textContent)); })()`, 10*time.Second)
	for _, key := range []string{"Water", "Energy", "Mood", "Money", "thinking", "TargetMovePos"} {
		if !bt.Eval[bool](t, ctx, fmt.Sprintf(`!!document.querySelector('#bb-agent tr[data-key=%q]')`, key)) {
			t.Errorf("blackboard lacks %s", key)
		}
	}

	// The timeline scrubs back: the tree shows the recorded tick.
	// (The slider spans the history's capacity; the label names the newest
	// record.)
	const newest = `Number((/record (\d+)/.exec(document.querySelector('#tl-label').textContent) || [0, 0])[1])`
	bt.Wait(t, ctx, "history", `(() => { const r = document.querySelector('#tl-range'); return `+newest+` - Number(r.min) >= 30; })()`, 20*time.Second)
	seq := bt.Eval[float64](t, ctx, `(() => { const r = document.querySelector('#tl-range'); r.value = `+newest+` - 25; r.dispatchEvent(new Event('input')); return Number(r.value); })()`)
	bt.Wait(t, ctx, "scrubbed label", fmt.Sprintf(`(/^history · tick \d+ \(record (\d+)\)/.exec(document.querySelector('#tl-label').textContent) || [])[1] === '%d'`, int(seq)), 10*time.Second)
	if bt.Eval[bool](t, ctx, `document.querySelector('#btn-live').classList.contains('on')`) {
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
	// The page keeps showing the old tick while the world goes on.
	time.Sleep(400 * time.Millisecond)
	if got, want := bt.Eval[string](t, ctx, nodeStates), paintedStates(rec.Nodes); got != want {
		t.Errorf("scrubbed tree\n got %s\nwant %s", got, want)
	}
	if n := bt.Eval[float64](t, ctx, `document.querySelectorAll('#bb-agent tbody tr').length`); n < 5 {
		t.Errorf("scrubbed blackboard has %v rows", n)
	}
	// Events of that tick, and the per-node statistics.
	if err := chromedp.Run(ctx, chromedp.Click(`.tabs button[data-tab="events"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "events", `document.querySelectorAll('#events-list li .k-result, #events-list li .k-start').length > 0`, 5*time.Second)
	if err := chromedp.Run(ctx, chromedp.Click(`.tabs button[data-tab="stats"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "stats", `document.querySelectorAll('#stats-table tbody tr').length > 10 && Number(document.querySelector('#stats-table tbody tr td:nth-child(2)').textContent) > 0`, 5*time.Second)

	// Back to live; select a node for the picture.
	if err := chromedp.Run(ctx, chromedp.Click("#btn-live", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "live again", `document.querySelector('#tl-label').textContent.startsWith('live')`, 5*time.Second)
	if err := chromedp.Run(ctx, chromedp.Click(`.tabs button[data-tab="bb"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	// The picture with the controls enabled: the token, brought by the
	// address, enables them where they are.
	if err := chromedp.Run(ctx, chromedp.Evaluate(`location.hash += '&token=`+testToken+`'`, nil)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "controls enabled", `!document.querySelector('#btn-pause').disabled && !document.querySelector('#btn-pause-all').disabled && !location.hash.includes('token')`, 5*time.Second)
	time.Sleep(500 * time.Millisecond)
	screenshot(t, ctx, "debugger.png")

	// Controls: the token comes in the URL's fragment; pause, step, resume
	// and a blackboard write from the page.
	holdUpdates(t, ctx)
	// (A new document, where the script runs: not a change of fragment.)
	if err := chromedp.Run(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/debug/#agent=5&token="+testToken)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "agent 5 opened", `document.querySelector('#agent-title').textContent.startsWith('Agent #5 ')`, 10*time.Second)
	if strings.Contains(bt.Eval[string](t, ctx, `location.href`), testToken) {
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
	bt.Wait(t, ctx, "paused", `document.querySelector('#agent-status').textContent === 'paused'`, 5*time.Second)
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
	for deadline := time.Now().Add(bt.Slack * 5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
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
	// Live updates made while paused, delivered after the reply to Resume,
	// do not show the agent paused again.
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.__hold = true`, nil)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "updates held", `window.__held.length >= 2`, 5*time.Second)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.__stale = window.__held.length`, nil),
		chromedp.Click("#btn-resume", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "resumed", `document.querySelector('#agent-status').textContent === 'running'`, 5*time.Second)
	if st := bt.Eval[string](t, ctx, `(() => {
		window.__held.slice(0, window.__stale).forEach((f) => f());
		return document.querySelector('#agent-status').textContent + ' ' + document.querySelector('#btn-resume').disabled;
	})()`); st != "running true" {
		t.Errorf("after stale updates: status and Resume disabled %q, want running true", st)
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.__hold = false; window.__held.splice(0).forEach((f) => f())`, nil)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "resumed, live", `document.querySelector('#agent-status').textContent === 'running' && document.querySelector('#tl-label').textContent.startsWith('live · tick ')`, 5*time.Second)
	// The Set button stays put while the live rows above it come and go
	// (they scroll in their own box), so a click finds it.
	if err := chromedp.Run(ctx,
		chromedp.SendKeys("#bb-key", "note", chromedp.ByID),
		chromedp.SendKeys("#bb-value", `"hello from the page"`, chromedp.ByID),
		chromedp.Click("#bb-set", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	written := `(() => { const r = document.querySelector('#bb-agent tr[data-key="note"] td.v'); return !!r && r.textContent === '"hello from the page"'; })()`
	for deadline := time.Now().Add(bt.Slack * 5 * time.Second); !bt.Eval[bool](t, ctx, written); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("blackboard write: not shown: %s", bt.Eval[string](t, ctx, `JSON.stringify({ key: document.querySelector('#bb-key').value,
				value: document.querySelector('#bb-value').value, msg: document.querySelector('#bb-msg').textContent,
				hidden: document.querySelector('#bb-form').hidden, focus: document.activeElement && (document.activeElement.id || document.activeElement.tagName),
				button: document.querySelector('#bb-form button').getBoundingClientRect().toJSON(), notice: document.querySelector('#notice').textContent,
				tab: (document.querySelector('.tabs button.on') || {}).textContent, label: document.querySelector('#tl-label').textContent,
				rows: Array.from(document.querySelectorAll('#bb-agent tr[data-key]')).map((r) => r.dataset.key).join(',') })`))
		}
	}
}

// agentJSON reads one agent of the demo's debugger.
// worldPoint is the viewport position (CSS pixels) of the rightmost
// villager at work (at the Company, on the canvas's right), from a frame
// of the world's stream and the page's projection: [id, x, y].
const worldPoint = `(async () => {
	const info = await (await fetch('world/info')).json();
	const r = document.getElementById('world').getBoundingClientRect();
	const [x0, z0, x1, z1] = info.bounds;
	const s = Math.min(r.width / (x1 - x0), r.height / (z1 - z0));
	const ox = (r.width - (x1 - x0) * s) / 2 - x0 * s, oy = (r.height - (z1 - z0) * s) / 2 + z1 * s;
	const frame = await new Promise((res) => {
		const es = new EventSource('world/stream');
		es.addEventListener('frame', (e) => { es.close(); res(JSON.parse(e.data)); });
	});
	const work = info.activities.indexOf('Work');
	let best = -1;
	frame.villagers.forEach((v, i) => { if (!v[3] && v[2] === work && (best < 0 || v[0] > frame.villagers[best][0])) best = i; });
	if (best < 0) return [-1, 0, 0];
	const v = frame.villagers[best];
	return [best, r.left + ox + v[0] * s, r.top + oy - v[1] * s];
})()`

// checkWorldView checks the world view's legend, its tooltip (inside the
// canvas, even at its right edge, 1024 px wide), that clicking a villager opens it in
// the debugger, and that the page threw nothing.
func checkWorldView(t *testing.T, ctx context.Context, base string, thrown func() []string) {
	t.Helper()
	if href := bt.Eval[string](t, ctx, `document.querySelector('#dbg').href`); href != base+"/debug/" {
		t.Errorf("debugger link %q", href)
	}
	// Monsters: a diamond swatch per mode, in colours told apart, and the lairs.
	if got := bt.Eval[string](t, ctx, `Array.from(document.querySelectorAll('#mons li')).map((li) => li.textContent).join('|')`); !strings.HasPrefix(got, "patrol") || !strings.Contains(got, "|lair (where they heal)6") {
		t.Errorf("monster legend %q", got)
	}
	if d := bt.Eval[float64](t, ctx, `(() => {
		const cs = Array.from(document.querySelectorAll('#mons li .sw.diamond')).map((s) => getComputedStyle(s).backgroundColor.match(/\d+/g).map(Number));
		let min = Infinity;
		cs.forEach((a, i) => cs.slice(i + 1).forEach((b) => { min = Math.min(min, Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2])); }));
		return cs.length === 4 ? min : -1;
	})()`); d < 80 {
		t.Errorf("monster mode colours too alike: distance %v", d)
	}
	// The tooltip of a villager near the canvas's right edge stays inside
	// it, in a window 1024 px wide.
	size := bt.Eval[[]int64](t, ctx, `[innerWidth, innerHeight]`)
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1024, 700)); err != nil {
		t.Fatal(err)
	}
	defer func() { // back to the window's size, for the debugger's picture
		if err := chromedp.Run(ctx, chromedp.EmulateViewport(size[0], size[1])); err != nil {
			t.Error(err)
		}
	}()
	time.Sleep(300 * time.Millisecond)
	var id int
	for try := 0; ; try++ {
		var p []float64
		if err := chromedp.Run(ctx, chromedp.Evaluate(worldPoint, &p, func(e *cdpruntime.EvaluateParams) *cdpruntime.EvaluateParams {
			return e.WithAwaitPromise(true)
		})); err != nil {
			t.Fatal(err)
		}
		if p[0] < 0 {
			if try > 50 {
				t.Fatal("no villager at work")
			}
			time.Sleep(200 * time.Millisecond)
			continue
		}
		id = int(p[0])
		if err := chromedp.Run(ctx, chromedp.MouseEvent(input.MouseMoved, p[1], p[2])); err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond)
		tip := bt.Eval[string](t, ctx, `document.querySelector('#tip').hidden ? '' : document.querySelector('#tip').textContent`)
		if strings.HasPrefix(tip, fmt.Sprintf("villager %d · ", id)) {
			break
		}
		if try > 5 {
			t.Fatalf("hovering villager %d: tooltip %q", id, tip)
		}
	}
	if !bt.Eval[bool](t, ctx, `(() => {
		const s = document.querySelector('#stage').getBoundingClientRect(), r = document.querySelector('#tip').getBoundingClientRect();
		return r.left >= s.left && r.right <= s.right && r.top >= s.top && r.bottom <= s.bottom;
	})()`) {
		t.Errorf("tooltip out of the canvas: %v in %v", bt.Eval[any](t, ctx, `document.querySelector('#tip').getBoundingClientRect().toJSON()`),
			bt.Eval[any](t, ctx, `document.querySelector('#stage').getBoundingClientRect().toJSON()`))
	}
	if c := bt.Eval[string](t, ctx, `document.querySelector('#world').style.cursor`); c != "pointer" {
		t.Errorf("cursor over a villager %q", c)
	}
	// Clicking it opens it in the debugger.
	var pos []float64
	if err := chromedp.Run(ctx, chromedp.Evaluate(worldPoint, &pos, func(e *cdpruntime.EvaluateParams) *cdpruntime.EvaluateParams {
		return e.WithAwaitPromise(true)
	})); err != nil {
		t.Fatal(err)
	}
	if errs := thrown(); len(errs) > 0 {
		t.Errorf("uncaught errors in the world view: %q", errs)
	}
	if int(pos[0]) != id {
		return // it finished work meanwhile; the hover was checked
	}
	if err := chromedp.Run(ctx, chromedp.MouseClickXY(pos[1], pos[2])); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "villager opened in the debugger", fmt.Sprintf(`location.hash === '#agent=%d' && location.pathname === '/debug/' &&
		!!document.querySelector('#agent-title') && document.querySelector('#agent-title').textContent.startsWith('Agent #%d ')`, id, id), 10*time.Second)
}

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
	ctx := bt.Start(t, 1400, 850)
	base, _ := startDemo(t)
	// The token comes with the world view's address (as arbor demo
	// -controls prints it), which hands it on to the debugger it opens:
	// the breakpoint checkboxes below are enabled only with it.
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/#token="+testToken)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "the world view took the token", `document.querySelectorAll('#acts li').length > 0 && !location.hash.includes('token')`, 20*time.Second)
	if err := chromedp.Run(ctx, chromedp.Click("#dbg", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "the debugger, the token out of its address", `location.pathname.endsWith('/debug/') && !location.hash.includes('token') &&
		!!document.querySelector('#agent-list li[data-id="3"]')`, 10*time.Second)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`location.hash = '#agent=3'`, nil)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "agent 3 opened", `location.pathname.endsWith('/debug/') && (document.querySelector('#agent-title') || {textContent: ''}).textContent.startsWith('Agent #3 ')`, 10*time.Second)
	// The root ("live", a Repeat) is running on every tick: click it in
	// the whole tree (Fit also stops following the running node), and
	// break on "running".
	bt.Wait(t, ctx, "tree drawn", `document.querySelectorAll('#tree g.node').length > 10`, 10*time.Second)
	if err := chromedp.Run(ctx, chromedp.Click("#btn-fit", chromedp.ByID),
		chromedp.Click(`#tree g.node[data-id="0"] rect`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "breakpoint checkboxes", `document.querySelectorAll('#bp-box input[type=checkbox]:not(:disabled)').length === 6`, 5*time.Second)
	if err := chromedp.Run(ctx, chromedp.Click(`#bp-box input[data-event="running"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	const banner = `(() => { const b = document.querySelector('#break-banner'); return b.hidden ? '' : b.textContent; })()`
	bt.Wait(t, ctx, "banner", banner+`.startsWith('Paused at breakpoint: live running (tick ')`, 10*time.Second)
	if !bt.Eval[bool](t, ctx, `!!document.querySelector('#tree .bp-dot[data-node="0"]')`) {
		t.Error("no breakpoint marker on the root")
	}
	if !bt.Eval[bool](t, ctx, `document.querySelector('#tree g.node[data-id="0"]').classList.contains('breakhit')`) {
		t.Errorf("the node of the hit is not highlighted: %s", bt.Eval[string](t, ctx, `document.querySelector('#tree g.node[data-id="0"]').getAttribute('class')`))
	}
	if st := bt.Eval[string](t, ctx, `document.querySelector('#agent-status').textContent`); st != "paused" {
		t.Errorf("status %q, want paused", st)
	}
	a := agentJSON(t, base, 3)
	if !a.Paused || a.LastBreak == nil || a.LastBreak.Node != 0 || a.LastBreak.Event != "running" || !a.LastBreak.Paused {
		t.Fatalf("agent after the hit: %+v", a)
	}
	first := bt.Eval[string](t, ctx, banner)
	if !strings.HasSuffix(first, fmt.Sprintf("(tick %d)", a.LastBreak.Tick)) {
		t.Errorf("banner %q, hit at tick %d", first, a.LastBreak.Tick)
	}
	// The timeline shows the tick of the hit too, while the session ticks on.
	time.Sleep(300 * time.Millisecond)
	if l := bt.Eval[string](t, ctx, `document.querySelector('#tl-label').textContent`); !strings.HasPrefix(l, fmt.Sprintf("live · paused · tick %d (record ", a.LastBreak.Tick)) {
		t.Errorf("timeline label %q, hit at tick %d", l, a.LastBreak.Tick)
	}
	// The agent bar gives its room to the title first: "Agent #3 ·
	// Villager" whole, the label (activity and needs) cut after it.
	if clipped := bt.Eval[bool](t, ctx, `(() => { const h = document.querySelector('#agent-title'); return h.scrollWidth > h.clientWidth; })()`); clipped {
		t.Errorf("the agent's title is cut: %q", bt.Eval[string](t, ctx, `document.querySelector('#agent-title').textContent`))
	}
	screenshot(t, ctx, "breakpoint.png")

	// Scrubbed back, Step shows the new tick live.
	if err := chromedp.Run(ctx, chromedp.Click("#btn-prev", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "scrubbed back", `document.querySelector('#tl-label').textContent.startsWith('history · ')`, 5*time.Second)
	if err := chromedp.Run(ctx, chromedp.Click("#btn-step", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "stepped, live", fmt.Sprintf(`(() => { const t = %s; return t.startsWith('Paused at breakpoint: ') && t !== %q && document.querySelector('#tl-label').textContent.startsWith('live · paused · '); })()`, banner, first), 10*time.Second)
	a = agentJSON(t, base, 3)
	first = bt.Eval[string](t, ctx, banner)

	// Resume: one more tick, and the breakpoint stops it again.
	if err := chromedp.Run(ctx, chromedp.Click("#btn-resume", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "next hit", fmt.Sprintf(`(() => { const t = %s; return t.startsWith('Paused at breakpoint: ') && t !== %q; })()`, banner, first), 10*time.Second)
	if b := agentJSON(t, base, 3); !b.Paused || b.NowMs <= a.NowMs || b.LastBreak.Tick <= a.LastBreak.Tick {
		t.Errorf("after resume: %+v %+v, was %+v %+v; banner %q then %q", b, *b.LastBreak, a, *a.LastBreak, first, bt.Eval[string](t, ctx, banner))
	}

	// Clear all: the marker goes; the agent stays paused until resumed.
	if err := chromedp.Run(ctx, chromedp.Click("#btn-clear-bps", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "marker removed", `!document.querySelector('#tree .bp-dot') && document.querySelector('#btn-clear-bps').disabled`, 5*time.Second)
	if bt.Eval[bool](t, ctx, `document.querySelector('#bp-box input[data-event="running"]').checked`) {
		t.Error("checkbox still checked after clearing")
	}
	if err := chromedp.Run(ctx, chromedp.Click("#btn-resume", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "running again", `document.querySelector('#agent-status').textContent === 'running' && document.querySelector('#break-banner').hidden`, 5*time.Second)
	time.Sleep(300 * time.Millisecond)
	if c := agentJSON(t, base, 3); c.Paused {
		t.Errorf("paused again after clearing: %+v", c)
	}
}

// recording is the part of an export the browser tests check against.
type recording struct {
	Ticks []struct {
		Seq   int
		Tick  int
		Nodes string
	}
}

// recordAgent watches agent id in the page until it has 40 recorded
// ticks and its tree changed in them, and saves its export (as the page's
// Export JSON would) in a temporary directory.
func recordAgent(t *testing.T, ctx context.Context, base string, id int) (path string, data []byte, rec recording) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Navigate(fmt.Sprintf("%s/debug/#agent=%d", base, id))); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(bt.Slack * 30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		resp, err := http.Get(fmt.Sprintf("%s/debug/api/agents/%d/export", base, id))
		if err != nil {
			t.Fatal(err)
		}
		data, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("export: %d %v", resp.StatusCode, err)
		}
		rec = recording{}
		if err := json.Unmarshal(data, &rec); err != nil {
			t.Fatal(err)
		}
		// checkRecordingShown scrubs back to a tick after the first whose
		// tree differs from the last one's.
		changed := false
		for i := 1; i < len(rec.Ticks)-1 && !changed; i++ {
			changed = paintedStates(rec.Ticks[i].Nodes) != paintedStates(rec.Ticks[len(rec.Ticks)-1].Nodes)
		}
		if len(rec.Ticks) >= 40 && changed {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("export: %d ticks, tree changed: %v", len(rec.Ticks), changed)
		}
	}
	path = filepath.Join(t.TempDir(), fmt.Sprintf("agent-%d.json", id))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data, rec
}

// checkRecordingShown checks that the page shows recording rec of agent
// 17 (treeLen nodes), read-only, and scrubs it back to a tick whose tree
// differs from the last one's.
func checkRecordingShown(t *testing.T, ctx context.Context, name string, rec recording, treeLen int) {
	t.Helper()
	bt.Wait(t, ctx, "recording bar", fmt.Sprintf(`!document.querySelector('#rec-bar').hidden && document.querySelector('#rec-text').textContent.startsWith(%q)`,
		"Recording: "+name+", exported "), 10*time.Second)
	last := rec.Ticks[len(rec.Ticks)-1]
	tickLabel := func(seq, tick int) string {
		return fmt.Sprintf(`document.querySelector('#tl-label').textContent.startsWith('recording · tick %d (record %d) ')`, tick, seq)
	}
	bt.Wait(t, ctx, "last tick shown", tickLabel(last.Seq, last.Tick), 5*time.Second)
	if n := bt.Eval[float64](t, ctx, `document.querySelectorAll('#tree g.node').length`); int(n) != treeLen {
		t.Errorf("%v nodes drawn, want %d", n, treeLen)
	}
	if got, want := bt.Eval[string](t, ctx, nodeStates), paintedStates(last.Nodes); got != want {
		t.Errorf("last tick\n got %s\nwant %s", got, want)
	}
	if ids := bt.Eval[string](t, ctx, `Array.from(document.querySelectorAll('#agent-list li')).map(li => li.dataset.id).join(',')`); ids != "17" {
		t.Errorf("agent list %q, want the recorded agent alone", ids)
	}
	// Nothing acts on a live agent.
	for _, sel := range []string{"#controls", "#bb-form", "#btn-live", "#btn-export", "#search"} {
		if bt.Eval[bool](t, ctx, fmt.Sprintf(`document.querySelector(%q).offsetParent !== null`, sel)) {
			t.Errorf("%s is shown in a recording", sel)
		}
	}
	if c := bt.Eval[string](t, ctx, `document.querySelector('#conn').textContent`); c != "recording" {
		t.Errorf("connection %q", c)
	}
	if err := chromedp.Run(ctx, chromedp.Click("#btn-fit", chromedp.ByID),
		chromedp.Click(`#tree g.node[data-id="0"] rect`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "node tab", `!document.querySelector('#tab-node').hidden && document.querySelector('#node-info dl') !== null`, 5*time.Second)
	if !bt.Eval[bool](t, ctx, `document.querySelector('#bp-box').hidden`) {
		t.Error("breakpoints offered in a recording")
	}

	// Scrub back to a tick whose tree looks different.
	i := len(rec.Ticks) - 1
	for i > 1 && paintedStates(rec.Ticks[i].Nodes) == paintedStates(last.Nodes) {
		i--
	}
	old := rec.Ticks[i]
	if paintedStates(old.Nodes) == paintedStates(last.Nodes) {
		t.Fatal("the recorded tree never changed")
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(
		`(() => { const r = document.querySelector('#tl-range'); r.value = %d; r.dispatchEvent(new Event('input')); })()`, old.Seq), nil)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "scrubbed", tickLabel(old.Seq, old.Tick), 5*time.Second)
	if got, want := bt.Eval[string](t, ctx, nodeStates), paintedStates(old.Nodes); got != want {
		t.Errorf("record %d\n got %s\nwant %s", old.Seq, got, want)
	}
	if err := chromedp.Run(ctx, chromedp.Click("#btn-prev", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	prev := rec.Ticks[i-1]
	bt.Wait(t, ctx, "previous tick", tickLabel(prev.Seq, prev.Tick), 5*time.Second)
	// A recording does not move on by itself.
	time.Sleep(500 * time.Millisecond)
	if got, want := bt.Eval[string](t, ctx, nodeStates), paintedStates(prev.Nodes); got != want {
		t.Errorf("record %d\n got %s\nwant %s", prev.Seq, got, want)
	}
}

// An export opens in the live debugger's page (file input; bad files,
// also dropped, give an error and leave the page live) and in the page
// "arbor replay" serves.
func TestBrowserRecordings(t *testing.T) {
	ctx := bt.Start(t, 1400, 850)
	thrown := bt.Errors(ctx)
	base, w := startDemo(t)
	treeLen := w.Villagers[17].agent.Tree().Len()
	path, data, rec := recordAgent(t, ctx, base, 17)
	dir := filepath.Dir(path)

	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/debug/#agent=5&token="+testToken)); err != nil {
		t.Fatal(err)
	}
	const live = `document.querySelector('#agent-title').textContent.startsWith('Agent #5 ') && document.querySelector('#tl-label').textContent.startsWith('live') && !document.querySelector('#controls').hidden`
	bt.Wait(t, ctx, "agent 5 live", live, 10*time.Second)

	// Bad files: a readable error, and the page stays live.
	var bad map[string]any
	if err := json.Unmarshal(data, &bad); err != nil {
		t.Fatal(err)
	}
	bad["ticks"].([]any)[3].(map[string]any)["nodes"] = "RS."
	badTick, err := json.Marshal(bad)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ content, want string }{
		"cut.json":  {string(data[:len(data)/3]), "Cannot open cut.json: not JSON ("},
		"tick.json": {string(badTick), fmt.Sprintf("Cannot open tick.json: ticks[3] (record %d) nodes: want a status letter for each of the %d nodes", rec.Ticks[3].Seq, treeLen)},
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Run(ctx, chromedp.SetUploadFiles("#open-file", []string{p}, chromedp.ByID)); err != nil {
			t.Fatal(err)
		}
		bt.Wait(t, ctx, name+" refused", fmt.Sprintf(`!document.querySelector('#file-error').hidden && document.querySelector('#file-error-text').textContent.startsWith(%q)`, c.want), 5*time.Second)
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => {
		const dt = new DataTransfer();
		dt.items.add(new File(['{"format": "arbor-debug/0"}'], 'old.json', { type: 'application/json' }));
		document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
	})()`, nil)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "dropped file refused", `document.querySelector('#file-error-text').textContent === 'Cannot open old.json: format "arbor-debug/0", want "arbor-debug/1"'`, 5*time.Second)
	if !bt.Eval[bool](t, ctx, `document.querySelector('#rec-bar').hidden && `+live) {
		t.Error("a bad file left live mode")
	}

	// The good file: recording mode, read-only although the session has controls.
	if err := chromedp.Run(ctx, chromedp.SetUploadFiles("#open-file", []string{path}, chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	checkRecordingShown(t, ctx, "agent-17.json", rec, treeLen)
	if !bt.Eval[bool](t, ctx, `document.querySelector('#file-error').hidden`) {
		t.Error("the error of the bad file stays")
	}
	// Back to live: the agent shown before, with its controls.
	if err := chromedp.Run(ctx, chromedp.Click("#btn-close-rec", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "live again", `document.querySelector('#rec-bar').hidden && `+live, 10*time.Second)
	bt.Wait(t, ctx, "agent list", `document.querySelectorAll('#agent-list li.agent-item').length === 200`, 10*time.Second)

	// arbor replay's server: the page opens in recording mode, with no live mode to go back to.
	r, err := debug.LoadRecordingFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := debug.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- debug.Serve(sctx, ln, r.Handler()) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	if err := chromedp.Run(ctx, chromedp.Navigate("http://"+ln.Addr().String()+"/")); err != nil {
		t.Fatal(err)
	}
	checkRecordingShown(t, ctx, "agent-17.json", rec, treeLen)
	if !bt.Eval[bool](t, ctx, `document.querySelector('#btn-close-rec').hidden`) || bt.Eval[string](t, ctx, `document.title`) != "Arbor replay · agent-17.json" {
		t.Errorf("replay page: back button shown or title %q", bt.Eval[string](t, ctx, `document.title`))
	}
	if errs := thrown(); len(errs) > 0 {
		t.Errorf("uncaught errors in the page: %q", errs)
	}
}

// smallSession serves a debugger over a small manager of its own, ticked
// at 20 Hz: agent 0 and 1 run a patrol with a conditional abort, agents
// 2 and 3 two wide, flat trees of the same name.
func smallSession(t *testing.T) (base string, sess *debug.Session) {
	t.Helper()
	compile := func(doc *arbor.Document) *arbor.Tree {
		tr, err := arbor.Compile(doc, arbor.NewRegistry())
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	patrol := compile(&arbor.Document{Main: "Patrol", Trees: map[string]*arbor.Node{"Patrol": arbor.Selector(
		arbor.Sequence(arbor.Check("noise", "exists"), arbor.WaitTicks(5)).Named("investigate").WithAbort(arbor.AbortLower),
		arbor.Sequence(arbor.WaitTicks(3), arbor.WaitTicks(2)).Named("patrol"),
	)}})
	wide := func(n int) *arbor.Tree {
		kids := make([]*arbor.Node, n)
		for i := range kids {
			kids[i] = arbor.WaitTicks(40)
		}
		return compile(&arbor.Document{Main: "Wide", Trees: map[string]*arbor.Node{"Wide": arbor.Sequence(kids...)}})
	}
	m := arbor.NewManager(arbor.WithWorkers(1))
	m.Add(patrol)
	m.Add(patrol)
	m.Add(wide(40))
	m.Add(wide(3))
	sess = debug.NewSession(m, debug.Options{Controls: true, Token: testToken})
	base = serveTest(t, sess.Handler(), func(ctx context.Context) {
		bt.TickEvery(ctx, 50*time.Millisecond, sess.Tick)
	}, m.Close)
	return base, sess
}

// An agent removed from the manager while watched: the page keeps its
// last state read-only (no controls), its history scrubbable, and the
// header live. Also: a window 1024 px wide, wide trees, trees of the
// same name, and abort marks.
func TestBrowserRemovedAgentAndNarrowWindow(t *testing.T) {
	ctx := bt.Start(t, 1400, 850)
	thrown := bt.Errors(ctx)
	base, sess := smallSession(t)
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1024, 700),
		chromedp.Navigate(base+"/#agent=1&token="+testToken)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "agent 1 live", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') && !document.querySelector('#controls').hidden`, 10*time.Second)
	bt.Wait(t, ctx, "some history", `Number(document.querySelector('#tl-range').max) >= 5`, 10*time.Second)

	// Trees of the same name are told apart by their size.
	chips := bt.Eval[string](t, ctx, `Array.from(document.querySelectorAll('#tree-counts .chip')).map((c) => c.textContent).join('|')`)
	if !strings.Contains(chips, "Wide · 41 nodes 1") || !strings.Contains(chips, "Wide · 4 nodes 1") || !strings.Contains(chips, "Patrol 2") {
		t.Errorf("tree chips %q", chips)
	}
	// The abort mark does not cover the node's label.
	if gap := bt.Eval[float64](t, ctx, `(() => {
		const g = Array.from(document.querySelectorAll('#tree g.node')).find((g) => g.querySelector('text.mk'));
		return g.querySelector('text.mk').getBBox().x - (g.querySelector('text.lbl').getBBox().x + g.querySelector('text.lbl').getBBox().width);
	})()`); gap < 2 {
		t.Errorf("abort mark %vpx from the label's end", gap)
	}
	// 1024 px: the header, the Live button and the timeline label keep
	// to one line; nothing running is not numbered.
	for what, expr := range map[string]string{
		"header":         `document.querySelector('header').scrollHeight <= 42 && document.querySelector('header').scrollWidth <= document.querySelector('header').clientWidth`,
		"live button":    `document.querySelector('#btn-live').offsetHeight < 32`,
		"timeline label": `document.querySelector('#tl-label').offsetHeight < 24`,
		"tree width":     `document.querySelector('#tree').clientWidth >= 450`,
	} {
		if !bt.Eval[bool](t, ctx, expr) {
			t.Errorf("at 1024 px: %s breaks: %s", what, expr)
		}
	}
	// Statistics: numbers do not wrap.
	if err := chromedp.Run(ctx, chromedp.Click(`.tabs button[data-tab="stats"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "stats", `document.querySelectorAll('#stats-table tbody tr').length >= 5`, 5*time.Second)
	if tall := bt.Eval[float64](t, ctx, `Math.max(...Array.from(document.querySelectorAll('#stats-table tbody tr')).map((r) => r.offsetHeight))`); tall > 24 {
		t.Errorf("a statistics row is %vpx tall: its cells wrap", tall)
	}
	screenshot(t, ctx, "debugger-1024.png")

	// Removed while watched.
	sess.Do(func(m *arbor.Manager) { m.Remove(m.Agent(1)) })
	bt.Wait(t, ctx, "removed", `document.querySelector('#agent-status').textContent === 'removed' && document.querySelector('#controls').hidden &&
		document.querySelector('#bb-form').hidden && document.querySelector('#notice').textContent.startsWith('Agent #1 was removed from the manager.')`, 5*time.Second)
	bt.Wait(t, ctx, "header live", `document.querySelector('#conn').textContent === 'live' && document.querySelector('#clock').textContent.includes(' 3 agents')`, 5*time.Second)
	clock := bt.Eval[string](t, ctx, `document.querySelector('#clock').textContent`)
	bt.Wait(t, ctx, "header ticking", fmt.Sprintf(`document.querySelector('#clock').textContent !== %q`, clock), 5*time.Second)
	if l := bt.Eval[string](t, ctx, `document.querySelector('#tl-label').textContent`); !strings.HasPrefix(l, "last state · tick ") {
		t.Errorf("timeline label %q", l)
	}
	if err := chromedp.Run(ctx, chromedp.Click("#btn-prev", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "history of the removed agent", `document.querySelector('#tl-label').textContent.startsWith('history · tick ')`, 5*time.Second)
	resp, err := http.Get(base + "/api/agents/1/export")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("export of the removed agent: %d", resp.StatusCode)
	}

	// A wide, flat tree: Fit centres it, so that zooming in keeps it in view.
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/#agent=2")); err != nil {
		t.Fatal(err)
	}
	bt.Wait(t, ctx, "wide tree", `document.querySelectorAll('#tree g.node').length === 41 && document.querySelector('#tl-label').textContent.startsWith('live · tick ')`, 10*time.Second)
	inView := `(() => {
		const s = document.querySelector('#tree').getBoundingClientRect();
		const n = document.querySelector('#tree g.node[data-id="%s"] rect').getBoundingClientRect();
		return n.bottom > s.top && n.top < s.bottom && n.right > s.left && n.left < s.right;
	})()`
	if err := chromedp.Run(ctx, chromedp.Click("#btn-fit", chromedp.ByID), chromedp.Click("#btn-zoom-in", chromedp.ByID),
		chromedp.Click("#btn-zoom-in", chromedp.ByID), chromedp.Click("#btn-zoom-in", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	if !bt.Eval[bool](t, ctx, fmt.Sprintf(inView, "20")) {
		t.Error("zoomed in after Fit: the middle of the tree left the view")
	}
	// Following, a narrower window keeps the running node in view.
	if err := chromedp.Run(ctx, chromedp.Click("#btn-follow", chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	running := bt.Eval[string](t, ctx, `document.querySelector('#running-list .crumb.leaf') ? Array.from(document.querySelectorAll('#tree g.node')).filter((g) => g.getAttribute('data-status') === 'running' && g.dataset.id !== '0').map((g) => g.dataset.id)[0] || '' : ''`)
	if running == "" {
		t.Fatal("nothing running in the wide tree")
	}
	if !bt.Eval[bool](t, ctx, fmt.Sprintf(inView, running)) {
		t.Errorf("following: running node %s not in view", running)
	}
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1400, 800)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1024, 700)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if !bt.Eval[bool](t, ctx, fmt.Sprintf(inView, running)) {
		t.Errorf("following, after a resize: running node %s not in view", running)
	}
	if errs := thrown(); len(errs) > 0 {
		t.Errorf("uncaught errors in the page: %q", errs)
	}
}
