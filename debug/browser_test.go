package debug

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/arborbt/arbor"
	bt "github.com/arborbt/arbor/internal/browsertest"
	"github.com/arborbt/arbor/internal/workload"
)

// The browser tests of the page's own behaviour, on a small session of
// their own (the village demo's tests in examples/village cover the page
// on a bigger program). They need Chromium: Debian's at /usr/bin/chromium,
// or $CHROMIUM.

const browserToken = "browser-test-token"

// artifacts is where the tests leave screenshots, for a look at a failure.
var artifacts = filepath.Join("..", "testdata", "artifacts")

// Modes of the wide agent's senses (see browserSession).
const (
	modePatrol int32 = iota // no enemy, healthy: the patrol branch runs (the right end of the tree)
	modeFlee                // hurt: the flee branch runs (the left end)
	modeAttack              // an enemy in reach: the first attack branch succeeds every tick, nothing runs
)

// browserHistory is the history of the page tests' session: 5 s at 20 Hz,
// so that a test sees it full and dropping its oldest ticks.
const browserHistory = 100

// browserSession serves a session ticked at 20 Hz until the test ends:
// agent 0 runs the wide benchmark tree (216 nodes) with senses set by
// mode, agent 1 a sentry, agent 2 a blinker (testTrees).
func browserSession(t *testing.T, opts Options) (base string, s *Session, mode *atomic.Int32) {
	t.Helper()
	wide, err := workload.LoadTree(filepath.Join("..", "testdata", "bench"), workload.Wide)
	if err != nil {
		t.Fatal(err)
	}
	sentry, blink := testTrees(t)
	// Node errors go to the session (s, made below, before any tick).
	m := arbor.NewManager(arbor.WithWorkers(1), arbor.WithManagerErrorHandler(func(e *arbor.NodeError) { s.ReportError(e) }))
	m.Add(wide, arbor.WithOwner(workload.Seed(0))) // Attack counts its attacks in its owner
	m.Add(sentry)
	m.Add(blink)
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	s = NewSession(m, opts)
	mode = new(atomic.Int32)
	sense := func(a *arbor.Agent) {
		if a.Tree() != wide {
			return
		}
		bb := a.Blackboard()
		hp, visible, dist := 100.0, false, 9.0
		switch mode.Load() {
		case modeFlee:
			hp = 10
		case modeAttack:
			visible, dist = true, 2
		}
		workload.HP.Set(bb, hp)
		workload.EnemyVisible.Set(bb, visible)
		workload.EnemyDist.Set(bb, dist)
	}
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	ticked := make(chan struct{})
	go func() { served <- Serve(ctx, ln, s.Handler()) }()
	go func() {
		defer close(ticked)
		bt.TickEvery(ctx, 50*time.Millisecond, func(now time.Duration) { s.TickWith(now, sense) })
	}()
	t.Cleanup(func() {
		cancel()
		<-ticked
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		m.Close()
	})
	return "http://" + ln.Addr().String(), s, mode
}

// TestBrowserPage checks the page at 1024×768, a subtest per feature (the
// t.Run list below); the node errors come last (they add an agent).
func TestBrowserPage(t *testing.T) {
	ctx := bt.Start(t, 1024, 768)
	thrown := bt.Errors(ctx)
	reg := browserRegistry(t)
	base, s, mode := browserSession(t, Options{Controls: true, Token: browserToken, History: browserHistory, Recompile: browserRecompile(reg), Registry: reg})
	bt.Run(t, ctx, chromedp.Navigate(base+"/#agent=0&token="+browserToken))
	bt.Wait(t, ctx, "agent 0 live", `document.querySelector('#agent-title').textContent.startsWith('Agent #0 ') && document.querySelectorAll('#tree g.node').length === 216 &&
		document.querySelector('#tl-label').textContent.startsWith('live · tick ')`, 10*time.Second)
	t.Run("stats", func(t *testing.T) { checkStatsTable(t, ctx, s) })
	t.Run("follow", func(t *testing.T) { checkFollow(t, ctx, mode) })
	t.Run("follow, nothing running", func(t *testing.T) { checkFollowVisited(t, ctx, mode) })
	t.Run("idle node", func(t *testing.T) { checkIdleNode(t, ctx) })
	t.Run("breakpoint banner", func(t *testing.T) { checkBreakBanner(t, ctx, base) })
	t.Run("scrub a full history", func(t *testing.T) { checkScrubFullHistory(t, ctx, base) })
	t.Run("force", func(t *testing.T) { checkForce(t, ctx, base) })
	t.Run("find", func(t *testing.T) { checkFind(t, ctx, base) })
	t.Run("collapse", func(t *testing.T) { checkFold(t, ctx, base, mode) })
	t.Run("timeline marks", func(t *testing.T) { checkTimelineMarks(t, ctx, base, mode) })
	t.Run("tree keys", func(t *testing.T) { checkTreeKeys(t, ctx, base) })
	t.Run("agent list keys", func(t *testing.T) { checkListKeys(t, ctx, base) })
	t.Run("find collapsed", func(t *testing.T) { checkFindCollapsed(t, ctx, base) })
	t.Run("minimap", func(t *testing.T) { checkMinimap(t, ctx, base) })
	t.Run("layout", func(t *testing.T) { checkLayout(t, ctx, base, mode) })
	t.Run("auto-collapse", func(t *testing.T) { checkAutoFold(t, ctx, base, mode) })
	t.Run("left to right marks", func(t *testing.T) { checkLeftRightMarks(t, ctx, base) })
	t.Run("world controls", func(t *testing.T) { checkWorldControls(t, ctx, base) })
	t.Run("events name checks", func(t *testing.T) { checkEventLabels(t, ctx, base) })
	t.Run("slow clicks", func(t *testing.T) { checkSlowClicks(t, ctx, base, mode) })
	t.Run("narrow window", func(t *testing.T) { checkNarrow(t, ctx, base) })
	t.Run("narrow windows, 1400 to 800 px", func(t *testing.T) { checkNarrowWindows(t, ctx, base) })
	t.Run("agent labels", func(t *testing.T) { checkAgentLabels(t, ctx) })
	t.Run("timeline label", func(t *testing.T) { checkTimelineLabel(t, ctx, base) })
	t.Run("stale token", func(t *testing.T) { checkStaleToken(t, ctx, base) })
	t.Run("no token", func(t *testing.T) { checkNoToken(t, ctx, base) })
	t.Run("keys", func(t *testing.T) { checkKeys(t, ctx, base, s) })
	t.Run("keys after a click", func(t *testing.T) { checkKeysAfterClick(t, ctx, base) })
	t.Run("node list keys", func(t *testing.T) { checkNodeListKeys(t, ctx, base) })
	t.Run("path end keys", func(t *testing.T) { checkPathEndKeys(t, ctx, base) })
	t.Run("review fixes", func(t *testing.T) { checkReviewFixes(t, ctx, base) })
	t.Run("past banner keeps up", func(t *testing.T) { checkPastBannerKeepsUp(t, ctx, base, s) })
	t.Run("sole agent", func(t *testing.T) { checkSoleAgent(t, ctx) })
	t.Run("go to tick, filter events", func(t *testing.T) { checkGotoAndFilter(t, ctx, base) })
	t.Run("node history", func(t *testing.T) { checkNodeHistory(t, ctx, base) })
	t.Run("playback", func(t *testing.T) { checkPlayback(t, ctx, base) })
	t.Run("set button still", func(t *testing.T) { checkSetButtonStill(t, ctx, base, s) })
	t.Run("hot reload", func(t *testing.T) { checkHotReload(t, ctx, base, s) })
	t.Run("collapsed across a reload", func(t *testing.T) { checkFoldAcrossReload(t, ctx, base, s) })
	t.Run("big tree", func(t *testing.T) { checkBigTree(t, ctx, base, s) })
	t.Run("agent not in the session", func(t *testing.T) { checkMissingAgent(t, ctx, base, s) })
	t.Run("list refresh", func(t *testing.T) { checkListRefresh(t, ctx, base, s) })
	t.Run("node errors", func(t *testing.T) { checkNodeErrors(t, ctx, base, s) })
	t.Run("errors in turn", func(t *testing.T) { checkErrorsInTurn(t, ctx, base, s) })
	t.Run("edit", func(t *testing.T) { checkEdit(t, ctx, base, s) })
	t.Run("edit left-out parameters", func(t *testing.T) { checkEditLeftOut(t, ctx, base, s) })
	t.Run("shape", func(t *testing.T) { checkShape(t, ctx, base, s) })
	t.Run("shape-stale-menu", func(t *testing.T) { checkShapeStaleMenu(t, ctx, base, s) })
	t.Run("shape-guard", func(t *testing.T) { checkShapeGuard(t, ctx, base, s) })
	t.Run("shape-move-to", func(t *testing.T) { checkShapeMoveTo(t, ctx, base, s) })
	t.Run("shape-drag", func(t *testing.T) { checkShapeDrag(t, ctx, base, s) })
	t.Run("menu-debug", func(t *testing.T) { checkMenuDebug(t, ctx, base, s) })
	t.Run("ux-panel-empty", func(t *testing.T) { checkPanelEmpty(t, ctx, base) })
	t.Run("ux-blackboard-fits", func(t *testing.T) { checkBlackboardFits(t, ctx, base) })
	t.Run("ux-tree-filter-edit", func(t *testing.T) { checkTreeFilterAcrossEdit(t, ctx, base, s) })
	t.Run("ux-opened-entry-in-view", func(t *testing.T) { checkOpenedEntryInView(t, ctx, base, s) })
	if errs := thrown(); len(errs) > 0 {
		t.Errorf("uncaught errors in the page: %q", errs)
	}
}

// statsProblems lists what is wrong with the statistics table: the panel
// scrolling sideways, a number or heading that does not fit its cell, a
// node column too narrow to read.
const statsProblems = `(() => {
	const tab = document.querySelector('#tab-stats');
	const table = document.querySelector('#stats-table');
	const out = [];
	if (tab.scrollWidth > tab.clientWidth) out.push('the panel scrolls sideways: ' + tab.scrollWidth + 'px wide in ' + tab.clientWidth + 'px');
	const tr = table.getBoundingClientRect(), pr = tab.getBoundingClientRect();
	if (tr.right > pr.right || tr.left < pr.left) out.push('the table (' + tr.left + '-' + tr.right + ') leaves the panel (' + pr.left + '-' + pr.right + ')');
	const node = table.querySelector('th').getBoundingClientRect().width;
	if (node < 100) out.push('node column ' + node + 'px wide');
	for (const c of table.querySelectorAll('th, td:not(:first-child)')) {
		if (c.tagName === 'TH' && !c.title) out.push('heading "' + c.textContent + '" has no title');
		if (c.scrollWidth > c.clientWidth) out.push('"' + c.textContent + '" does not fit its cell (' + c.scrollWidth + 'px in ' + c.clientWidth + 'px)');
		if (out.length > 8) break;
	}
	return out.join('; ');
})()`

// checkStatsTable checks that the Stats tab is readable at 1024 px with
// the counts of a long session (a day at 20 ticks a second).
func checkStatsTable(t *testing.T, ctx context.Context, s *Session) {
	s.mu.Lock()
	wt := s.watches[0]
	for i := range wt.stats {
		wt.stats[i] = nodeStats{Ticks: 1728000 + uint64(i), Successes: 864000 + uint64(i), Failures: 863990,
			Running: 12, Starts: 864000, Halts: 12345, Aborts: 3, Time: 321*time.Second + time.Duration(i)*time.Millisecond}
	}
	s.mu.Unlock()
	bt.Run(t, ctx, chromedp.Click(`.tabs button[data-tab="stats"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "long-session counts", `Array.from(document.querySelectorAll('#stats-table tbody tr:first-child td')).some((td) => td.title.startsWith('1,728,') || td.textContent.startsWith('1728'))`, 5*time.Second)
	if p := bt.Eval[string](t, ctx, statsProblems); p != "" {
		bt.Screenshot(t, ctx, "stats-1024.png", artifacts)
		t.Errorf("at 1024 px: %s", p)
	}
	bt.Run(t, ctx, chromedp.Click(`.tabs button[data-tab="bb"]`, chromedp.ByQuery))
}

// runningLeaf is the id of the deepest node running in the tick shown
// (-1: none), and whether all of it is in the tree's view.
const runningLeaf = `(() => {
	const ids = Array.from(document.querySelectorAll('#tree g.node[data-status="running"][data-visited="1"]')).map((g) => Number(g.dataset.id));
	if (!ids.length) return [-1, false];
	const id = Math.max(...ids);
	const s = document.querySelector('#tree').getBoundingClientRect();
	const n = document.querySelector('#tree g.node[data-id="' + id + '"] rect').getBoundingClientRect();
	return [id, n.left >= s.left && n.right <= s.right && n.top >= s.top && n.bottom <= s.bottom];
})()`

// nodeNamed is the id of the first node labelled name.
func nodeNamed(t *testing.T, ctx context.Context, name string) int {
	t.Helper()
	id := bt.Eval[int](t, ctx, fmt.Sprintf(`Number((Array.from(document.querySelectorAll('#tree g.node')).find((g) => g.querySelector('text.lbl').textContent === %q) || { dataset: { id: -1 } }).dataset.id)`, name))
	if id < 0 {
		t.Fatalf("no node %q", name)
	}
	return id
}

// checkFollow checks that following the running node of the wide tree
// pans only when the node leaves the view: while the patrol runs (its
// four leaves in turn, at the right end of the tree) the view stays
// still; fleeing (the left end) pans once, then stays.
func checkFollow(t *testing.T, ctx context.Context, mode *atomic.Int32) {
	if !bt.Eval[bool](t, ctx, `document.querySelector('#btn-follow').classList.contains('on')`) {
		bt.Run(t, ctx, chromedp.Click("#btn-follow", chromedp.ByID))
	}
	// Every change of the view's transform, with its time.
	bt.Run(t, ctx, chromedp.Evaluate(`window.__pans = []; new MutationObserver(() => window.__pans.push(performance.now())).observe(
		document.querySelector('#viewport'), { attributes: true, attributeFilter: ['transform'] })`, nil))
	flee, patrol := nodeNamed(t, ctx, "Flee"), nodeNamed(t, ctx, "patrol")
	// watch samples the running leaf for d, or until enough leaves were
	// seen (0: for d): each must be in view, and the view must not move.
	watch := func(what string, d time.Duration, want func(leaf int) bool, enough int) map[int]bool {
		t.Helper()
		// Settled: no pan for half a second.
		bt.Wait(t, ctx, what+": the view keeps moving (never still for half a second)", `!window.__pans.length || performance.now() - window.__pans[window.__pans.length - 1] > 500`, 5*time.Second)
		bt.Run(t, ctx, chromedp.Evaluate(`window.__pans = []`, nil))
		seen := map[int]bool{}
		for end := time.Now().Add(d); (enough == 0 || len(seen) < enough) && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
			got := bt.Eval[[]any](t, ctx, runningLeaf)
			id, visible := int(got[0].(float64)), got[1].(bool)
			if id < 0 {
				continue
			}
			if !want(id) {
				t.Fatalf("%s: node %d runs", what, id)
			}
			if !visible {
				t.Errorf("%s: running node %d out of view", what, id)
			}
			seen[id] = true
		}
		if n := bt.Eval[int](t, ctx, `window.__pans.length`); n > 0 {
			bt.Screenshot(t, ctx, "follow.png", artifacts)
			t.Errorf("%s: the view moved %d times while the running node stayed in view (leaves %v)", what, n, seen)
		}
		return seen
	}
	// The patrol: MoveTo A, Wait, MoveTo B, Wait.
	isPatrol := func(id int) bool { return id > patrol && id <= patrol+4 }
	bt.Wait(t, ctx, "patrol in view", fmt.Sprintf(`(() => { const [id, v] = %s; return id > %d && v; })()`, runningLeaf, patrol), 5*time.Second)
	if seen := watch("patrolling", 15*time.Second, isPatrol, 3); len(seen) < 3 {
		t.Errorf("patrolling: leaves %v ran, want the patrol's four in turn", seen)
	}
	// Fleeing: the view pans to the other end of the tree, once.
	mode.Store(modeFlee)
	bt.Wait(t, ctx, "flee in view", fmt.Sprintf(`(() => { const [id, v] = %s; return id === %d && v; })()`, runningLeaf, flee), 5*time.Second)
	if bt.Eval[int](t, ctx, `window.__pans.length`) == 0 {
		t.Error("the view did not pan to the fleeing node")
	}
	watch("fleeing", time.Second, func(id int) bool { return id == flee }, 0)
	// The wide tree is flat enough to fit the view's height: the view
	// centres it there, below the view's buttons.
	if !bt.Eval[bool](t, ctx, `(() => {
		const view = document.querySelector('#tree').getBoundingClientRect();
		const tree = document.querySelector('#viewport').getBoundingClientRect();
		const buttons = document.querySelector('#view-controls').getBoundingClientRect();
		return tree.top >= buttons.bottom && Math.abs((tree.top - view.top) - (view.bottom - 30 - tree.bottom)) < 40;
	})()`) {
		t.Error("the followed tree is not centred in the view's height, below its buttons")
	}
	mode.Store(modePatrol)
	bt.Wait(t, ctx, "patrol in view again", fmt.Sprintf(`(() => { const [id, v] = %s; return id > %d && v; })()`, runningLeaf, patrol), 5*time.Second)
}

// control sends a control request to the session as the page does.
func control(t *testing.T, base, method, path, body string) {
	t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Arbor-Token", browserToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, msg)
	}
}

// The banner of the breakpoint the agent is paused at, "" when hidden.
const banner = `(() => { const b = document.querySelector('#break-banner'); return b.hidden ? '' : b.textContent; })()`

// checkBreakBanner checks that the breakpoint banner (and the mark of the
// node of the hit) show while the page shows the live tick, not while it
// shows another tick of the history.
func checkBreakBanner(t *testing.T, ctx context.Context, base string) {
	// The blinker fails at node 2 every other tick.
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=2"))
	bt.Wait(t, ctx, "agent 2 live with some history", `document.querySelector('#agent-title').textContent.startsWith('Agent #2 ') &&
		Number((/^live · tick \d+ \(record (\d+)\)/.exec(document.querySelector('#tl-label').textContent) || [0, 0])[1]) >= 6`, 10*time.Second)
	control(t, base, "POST", "/api/agents/2/breakpoints", `{"node": 2, "on": ["failure"]}`)
	defer func() {
		control(t, base, "DELETE", "/api/agents/2/breakpoints", "")
		control(t, base, "POST", "/api/agents/2/resume", "{}")
	}()
	marked := `(() => { const g = document.querySelector('#tree g.node.breakhit'); return g ? g.dataset.id : ''; })()`
	bt.Wait(t, ctx, "banner", banner+`.startsWith('Paused at breakpoint: ') && document.querySelector('#tl-label').textContent.startsWith('live · paused')`, 10*time.Second)
	hit := bt.Eval[string](t, ctx, banner)
	if m := bt.Eval[string](t, ctx, marked); m != "2" {
		t.Errorf("node %q marked, want 2", m)
	}
	var a struct{ LastBreak struct{ Seq int } }
	resp, err := http.Get(base + "/api/agents/2")
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&a)
	resp.Body.Close()
	if err != nil || a.LastBreak.Seq < 4 {
		t.Fatalf("agent 2: %v %+v", err, a)
	}

	// Scrubbed back: the tick shown is not where the agent stopped.
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`(() => { const r = document.querySelector('#tl-range'); r.value = %d; r.dispatchEvent(new Event('input')); })()`, a.LastBreak.Seq-3), nil))
	bt.Wait(t, ctx, "scrubbed back", fmt.Sprintf(`(/^history · tick \d+ \(record (\d+)\)/.exec(document.querySelector('#tl-label').textContent) || [])[1] === '%d'`, a.LastBreak.Seq-3), 5*time.Second)
	if b := bt.Eval[string](t, ctx, banner); b != "" {
		t.Errorf("banner %q shown at an earlier tick", b)
	}
	if m := bt.Eval[string](t, ctx, marked); m != "" {
		t.Errorf("node %s marked as the hit at an earlier tick", m)
	}
	// The record of the hit itself, scrubbed to: shown. It is the newest
	// record (the agent is paused there), so the page is live again.
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`(() => { const r = document.querySelector('#tl-range'); r.value = %d; r.dispatchEvent(new Event('input')); })()`, a.LastBreak.Seq), nil))
	bt.Wait(t, ctx, "the hit's record", fmt.Sprintf(`(/^live · paused · tick \d+ \(record (\d+)\)/.exec(document.querySelector('#tl-label').textContent) || [])[1] === '%d' && %s === %q`, a.LastBreak.Seq, banner, hit), 5*time.Second)
	// Live again, still paused there: shown.
	bt.Run(t, ctx, chromedp.Click("#btn-prev", chromedp.ByID))
	bt.Wait(t, ctx, "scrubbed back again", `document.querySelector('#tl-label').textContent.startsWith('history · ') && `+banner+` === ''`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-live", chromedp.ByID))
	bt.Wait(t, ctx, "live again", `document.querySelector('#tl-label').textContent.startsWith('live · paused')`, 5*time.Second)
	if b := bt.Eval[string](t, ctx, banner); b != hit {
		t.Errorf("live again: banner %q, want %q", b, hit)
	}
	if m := bt.Eval[string](t, ctx, marked); m != "2" {
		t.Errorf("live again: node %q marked, want 2", m)
	}
}

// agentBarProblems says what is wrong with the bar above the tree: it
// must keep to one row, its buttons in full.
const agentBarProblems = `(() => {
	const bar = document.querySelector('#agent-bar');
	const out = [];
	if (bar.offsetHeight > 36) out.push(bar.offsetHeight + 'px tall');
	if (bar.scrollWidth > bar.clientWidth) out.push('its content is ' + bar.scrollWidth + 'px wide in ' + bar.clientWidth + 'px');
	const top = bar.getBoundingClientRect().top;
	for (const b of bar.querySelectorAll('button, .button, .pill, h2')) {
		if (!b.offsetParent) continue; // hidden
		const r = b.getBoundingClientRect();
		if (r.top - top > 12) out.push('"' + b.textContent + '" on a second row');
		if (b.tagName !== 'H2' && b.scrollWidth > b.clientWidth + 1) out.push('"' + b.textContent + '" cut');
		if (r.right > bar.getBoundingClientRect().right) out.push('"' + b.textContent + '" beyond the bar');
	}
	return out.join('; ');
})()`

// checkForce forces the sentry's first condition from the Node tab: the
// node is marked and listed, the other branch runs; Clear forces lifts it.
// At 1024 px the bar above the tree keeps to one row, with breakpoints
// and forces.
func checkForce(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=1"))
	running := `document.querySelector('#running-list').textContent`
	bt.Wait(t, ctx, "agent 1 patrolling", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') &&
		document.querySelector('#tl-label').textContent.startsWith('live · tick ') && `+running+`.includes('patrol')`, 10*time.Second)
	// A breakpoint that never stops it (a leaf fires no abort): its Clear
	// button shows.
	control(t, base, "POST", "/api/agents/1/breakpoints", `{"node": 3, "on": ["abort"]}`)
	defer control(t, base, "DELETE", "/api/agents/1/breakpoints", "")
	bt.Wait(t, ctx, "Clear breakpoints", `!document.querySelector('#btn-clear-bps').hidden`, 5*time.Second)
	// Node 2 is the Check "noise exists" of the investigate branch.
	bt.Run(t, ctx, chromedp.Click("#btn-fit", chromedp.ByID), chromedp.Click(`#tree g.node[data-id="2"] rect`, chromedp.ByQuery))
	bt.Wait(t, ctx, "Force result in the Node tab", `!document.querySelector('#force-box').hidden &&
		document.querySelectorAll('#force-box input[name="force"]').length === 4 && document.querySelector('#force-box input[value="none"]').checked`, 5*time.Second)
	if title := bt.Eval[string](t, ctx, `(() => { const r = document.querySelector('#force-box input[value="running"]'); return r.disabled ? r.parentElement.title : ''; })()`); !strings.Contains(title, "condition") {
		t.Errorf("running for a Check: title %q, want it disabled and explained", title)
	}
	bt.Run(t, ctx, chromedp.Click(`#force-box input[value="success"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "forced: marked, listed, investigating", `(() => {
		const m = document.querySelector('#tree .force-mark[data-node="2"]');
		return m && m.querySelector('.force-outline') && m.querySelector('text').textContent === 'S' && !document.querySelector('#force-bar').hidden &&
			document.querySelector('#force-list').textContent.startsWith('Check noise exists → success') && `+running+`.includes('investigate');
	})()`, 5*time.Second)
	if p := bt.Eval[string](t, ctx, agentBarProblems); p != "" {
		bt.Screenshot(t, ctx, "agent-bar-1024.png", artifacts)
		t.Errorf("at 1024 px the bar above the tree: %s", p)
	}
	// Running is offered for a composite.
	bt.Run(t, ctx, chromedp.Click(`#tree g.node[data-id="1"] rect`, chromedp.ByQuery))
	bt.Wait(t, ctx, "Force result of node 1", `document.querySelector('#node-info').textContent.includes('investigate') &&
		!document.querySelector('#force-box input[value="running"]').disabled`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-clear-forces", chromedp.ByID))
	bt.Wait(t, ctx, "forces cleared, patrolling again", `!document.querySelector('#tree .force-mark') && document.querySelector('#force-bar').hidden && `+
		running+`.includes('patrol')`, 5*time.Second)
}

// checkMissingAgent opens agents the page never saw live, by their
// address: one that never was in the session gets a message saying so
// with a link back to the agent list; one removed from the manager, which
// the session still keeps (watched before its removal), its last state,
// as a page that watched it shows it.
func checkMissingAgent(t *testing.T, ctx context.Context, base string, s *Session) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=99"))
	bt.Wait(t, ctx, "message", `!document.querySelector('#missing').hidden && document.querySelector('#agent-view').hidden &&
		document.querySelector('#missing-text').textContent.startsWith('Agent #99 is not in this session, or no longer') &&
		document.querySelector('#conn').textContent === 'live'`, 10*time.Second)
	if n := bt.Eval[string](t, ctx, `document.querySelector('#notice').hidden ? '' : document.querySelector('#notice').textContent`); n != "" {
		t.Errorf("notice %q beside the message", n)
	}
	clock := bt.Eval[string](t, ctx, `document.querySelector('#clock').textContent`)
	bt.Wait(t, ctx, "header ticking", fmt.Sprintf(`document.querySelector('#clock').textContent !== %q`, clock), 5*time.Second)
	bt.Run(t, ctx, chromedp.Click("#missing-back", chromedp.ByID))
	bt.Wait(t, ctx, "back to the list", `document.querySelector('#missing').hidden && !document.querySelector('#empty').hidden && location.hash === '' &&
		document.querySelectorAll('#agent-list li.agent-item').length === 3`, 5*time.Second)

	// Agent 1, watched, then removed while no page showed it.
	bt.Run(t, ctx, chromedp.Navigate(base+"/#agent=1"))
	bt.Wait(t, ctx, "agent 1 live", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') &&
		Number((/^live · tick \d+ \(record (\d+)\)/.exec(document.querySelector('#tl-label').textContent) || [0, 0])[1]) >= 3`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Navigate("about:blank"))
	s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(1)) })
	for deadline := time.Now().Add(bt.Slack * 5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		s.mu.Lock()
		kept := s.removed[1] != nil
		s.mu.Unlock()
		if kept {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("agent 1 not kept after its removal")
		}
	}
	bt.Run(t, ctx, chromedp.Navigate(base+"/#agent=1"))
	bt.Wait(t, ctx, "its last state", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') &&
		document.querySelector('#agent-status').textContent === 'removed' && document.querySelector('#controls').hidden &&
		document.querySelector('#missing').hidden && !document.querySelector('#agent-view').hidden &&
		document.querySelector('#notice').textContent.startsWith('Agent #1 was removed from the manager.') &&
		document.querySelector('#tl-label').textContent.startsWith('last state · tick ') &&
		document.querySelector('#conn').textContent === 'live'`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-prev", chromedp.ByID))
	bt.Wait(t, ctx, "its history", `document.querySelector('#tl-label').textContent.startsWith('history · tick ')`, 5*time.Second)
}

// checkHotReload checks that the page showing an agent draws its new tree
// when a hot reload moves it to another one (and not the new statuses on
// the old drawing).
func checkHotReload(t *testing.T, ctx context.Context, base string, s *Session) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=2"))
	bt.Wait(t, ctx, "the blinker shown", `document.querySelectorAll('#tree g.node').length === 3 && document.querySelector('#tl-label').textContent.startsWith('live · tick ')`, 10*time.Second)
	blinks, err := arbor.Compile(&arbor.Document{Main: "Blinks", Trees: map[string]*arbor.Node{
		"Blinks": arbor.Sequence(arbor.WaitTicks(1).Named("on"), arbor.WaitTicks(1).Named("off"), arbor.WaitTicks(2).Named("pause"), arbor.AlwaysFailure()),
	}}, arbor.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	s.Do(func(m *arbor.Manager) {
		old := m.Agent(2).Tree()
		if n := m.Reload(old, blinks); n != 1 {
			t.Errorf("reload moved %d agents, want 1", n)
		}
	})
	bt.Wait(t, ctx, "the new tree drawn", `document.querySelectorAll('#tree g.node').length === 5 &&
		Array.from(document.querySelectorAll('#tree text.lbl')).some((e) => e.textContent === 'pause')`, 10*time.Second)
	bt.Wait(t, ctx, "the new tree live", `document.querySelectorAll('#tree g.node[data-visited="1"]').length > 0 &&
		document.querySelector('#tl-label').textContent.startsWith('live · tick ')`, 10*time.Second)
}

// checkFind checks the node finder on the wide tree: typing marks the
// matching nodes and counts them, Enter selects and shows the next one
// (Shift+Enter the previous), Esc clears.
func checkFind(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "the wide tree shown", `document.querySelectorAll('#tree g.node').length === 216`, 10*time.Second)
	// "/" from the page goes to the finder.
	bt.Run(t, ctx, chromedp.Evaluate(`document.activeElement && document.activeElement.blur()`, nil), chromedp.KeyEvent("/"))
	if id := bt.Eval[string](t, ctx, `document.activeElement ? document.activeElement.id : ''`); id != "node-find" {
		t.Errorf(`"/" focused %q, want the node finder`, id)
	}
	// (DevTools types the "/" as text too, which a real keypress does not.)
	bt.Run(t, ctx, chromedp.SetValue("#node-find", "", chromedp.ByID), chromedp.SendKeys("#node-find", "chase", chromedp.ByID))
	// The chase branch: its sequence (named chase) and its Chase action.
	bt.Wait(t, ctx, "matches marked", `document.querySelectorAll('#tree g.node.match').length === 2 && document.querySelector('#node-find-count').textContent === '2'`, 5*time.Second)
	shown := `(() => {
		const g = document.querySelector('#tree g.node.selected');
		if (!g || !g.classList.contains('match')) return '';
		const s = document.querySelector('#tree').getBoundingClientRect(), n = g.querySelector('rect').getBoundingClientRect();
		const inView = n.left >= s.left && n.right <= s.right && n.top >= s.top && n.bottom <= s.bottom;
		return inView ? g.querySelector('text.lbl').textContent + ' ' + document.querySelector('#node-find-count').textContent : '';
	})()`
	bt.Run(t, ctx, chromedp.SendKeys("#node-find", kb.Enter, chromedp.ByID))
	bt.Wait(t, ctx, "first match selected and in view", shown+` === 'chase 1/2'`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SendKeys("#node-find", kb.Enter, chromedp.ByID))
	bt.Wait(t, ctx, "second match", shown+` === 'Chase 2/2'`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#node-find').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', shiftKey: true }))`, nil))
	bt.Wait(t, ctx, "back to the first", shown+` === 'chase 1/2'`, 5*time.Second)
	bt.Screenshot(t, ctx, "find-1024.png", artifacts)
	if tab := bt.Eval[string](t, ctx, `document.querySelector('.tabs button.on').dataset.tab`); tab != "node" {
		t.Errorf("the Node tab is not shown: %s", tab)
	}
	// Marks survive the live updates' repaints.
	time.Sleep(300 * time.Millisecond)
	if n := bt.Eval[int](t, ctx, `document.querySelectorAll('#tree g.node.match').length`); n != 2 {
		t.Errorf("%d nodes marked after updates, want 2", n)
	}
	bt.Run(t, ctx, chromedp.SendKeys("#node-find", kb.Escape, chromedp.ByID))
	bt.Wait(t, ctx, "cleared", `!document.querySelector('#tree g.node.match') && document.querySelector('#node-find').value === ''`, 5*time.Second)
}

// nodeInView says whether all of node id is in the tree's view.
func nodeInView(id int) string {
	return fmt.Sprintf(`(() => {
	const s = document.querySelector('#tree').getBoundingClientRect();
	const n = document.querySelector('#tree g.node[data-id="%d"] rect').getBoundingClientRect();
	return n.left >= s.left && n.right <= s.right && n.top >= s.top && n.bottom <= s.bottom;
})()`, id)
}

// checkFollowVisited checks Follow on ticks where nothing runs: the wide
// agent attacks (its first attack branch succeeds every tick), and the
// deepest node visited, that branch's Attack, comes into view, with the
// live updates and when Follow is clicked.
func checkFollowVisited(t *testing.T, ctx context.Context, mode *atomic.Int32) {
	defer mode.Store(modePatrol)
	attack, patrol := nodeNamed(t, ctx, "Attack"), nodeNamed(t, ctx, "patrol")
	follow := func() {
		t.Helper()
		bt.Run(t, ctx, chromedp.Click("#btn-follow", chromedp.ByID))
	}
	if !bt.Eval[bool](t, ctx, `document.querySelector('#btn-follow').classList.contains('on')`) {
		follow()
	}
	patrolling := fmt.Sprintf(`(() => { const [id, v] = %s; return id > %d && v; })()`, runningLeaf, patrol)
	attacking := fmt.Sprintf(`document.querySelector('#running-list').textContent === 'nothing running' &&
		document.querySelector('#tree g.node[data-id="%d"]').dataset.visited === '1'`, attack)
	bt.Wait(t, ctx, "patrol in view", patrolling, 5*time.Second)
	if bt.Eval[bool](t, ctx, nodeInView(attack)) {
		t.Fatalf("the Attack (node %d) is in view at the patrol: the test shows nothing", attack)
	}
	mode.Store(modeAttack)
	bt.Wait(t, ctx, "attacking, nothing running", attacking, 5*time.Second)
	bt.Wait(t, ctx, "the Attack followed into view", nodeInView(attack), 5*time.Second)

	// Back at the patrol, Follow off: attacking, the view stays; Follow
	// clicked, it shows the Attack.
	mode.Store(modePatrol)
	bt.Wait(t, ctx, "patrol in view again", patrolling, 5*time.Second)
	follow()
	mode.Store(modeAttack)
	bt.Wait(t, ctx, "attacking again", attacking, 5*time.Second)
	time.Sleep(300 * time.Millisecond)
	if bt.Eval[bool](t, ctx, nodeInView(attack)) {
		t.Fatal("Follow off, the view moved to the Attack")
	}
	follow()
	bt.Wait(t, ctx, "Follow clicked: the Attack in view", nodeInView(attack), 5*time.Second)
	mode.Store(modePatrol)
	bt.Wait(t, ctx, "patrol in view at the end", patrolling, 5*time.Second)
}

// checkIdleNode checks the Node tab of a node that never ran (the last
// attack branch's Attack: the first branch takes every attack): its status
// reads as the legend calls it, idle, and names no tick it ran in.
func checkIdleNode(t *testing.T, ctx context.Context) {
	// The last match of "Attack" is the last branch's action.
	bt.Run(t, ctx, chromedp.SetValue("#node-find", "", chromedp.ByID), chromedp.SendKeys("#node-find", "Attack", chromedp.ByID),
		chromedp.Evaluate(`document.querySelector('#node-find').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', shiftKey: true }))`, nil))
	defer bt.Run(t, ctx, chromedp.SendKeys("#node-find", kb.Escape, chromedp.ByID))
	status := `(() => {
		const dt = Array.from(document.querySelectorAll('#node-info dt')).find((e) => e.textContent === 'status');
		return dt ? dt.nextElementSibling.textContent : '';
	})()`
	bt.Wait(t, ctx, "the last Attack in the Node tab", `(() => {
		const g = document.querySelector('#tree g.node.selected');
		return !!g && g.querySelector('text.lbl').textContent === 'Attack' && g.dataset.status === 'never' &&
			document.querySelector('#node-info').textContent.includes('Guard.children[51].children[2]');
	})()`, 5*time.Second)
	got := bt.Eval[string](t, ctx, status)
	idle := bt.Eval[string](t, ctx, `document.querySelector('#legend .st-never').textContent`)
	if !strings.HasPrefix(got, idle+" ") || strings.Contains(got, "never") || strings.Contains(got, "tick") {
		t.Errorf("status %q for a node that never ran, want it %q as in the legend, and no tick", got, idle)
	}
	// A node visited in the tick shown: its status in this tick.
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#node-find').dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }))`, nil))
	bt.Wait(t, ctx, "the first match, visited", `(() => {
		const g = document.querySelector('#tree g.node.selected');
		return !!g && g.dataset.id === '4' && g.dataset.visited === '1';
	})()`, 5*time.Second)
	if got := bt.Eval[string](t, ctx, status); !strings.HasSuffix(got, " (this tick)") {
		t.Errorf("status %q for a node visited in the tick", got)
	}
}

// scrubProblems says where the timeline scrubbed back disagrees with
// itself: the label's record, the slider's thumb and the strip's cursor
// must be the same record, one the slider offers, and the label no error.
var scrubProblems = fmt.Sprintf(`(() => {
	const label = document.querySelector('#tl-label').textContent;
	const r = document.querySelector('#tl-range');
	const m = /^history · tick \d+ \(record (\d+)\)/.exec(label);
	if (!m) return 'label "' + label + '"';
	const seq = Number(m[1]), min = Number(r.min), max = Number(r.max), value = Number(r.value);
	if (value !== seq) return 'the label shows record ' + seq + ', the slider ' + value + ' (of ' + min + '-' + max + ')';
	if (seq < min || seq > max) return 'record ' + seq + ' is not on the slider (' + min + '-' + max + ')';
	const c = document.querySelector('#tl-strip');
	const bw = c.width / Math.max(%d, max - min + 1);
	const x = Math.floor((seq - min) * bw + bw / 2);
	const px = Array.from(c.getContext('2d').getImageData(x, 0, 1, 1).data.slice(0, 3)).join(',');
	if (px !== '29,35,48') return 'no strip cursor at record ' + seq + ' (x ' + x + ': ' + px + ')';
	return '';
})()`, browserHistory)

// checkScrubFullHistory scrubs the history of the blinker once it is full
// (the oldest records drop as it ticks on): a record scrubbed to stays
// shown while it is kept, the oldest one offered is shown (or, dropped
// meanwhile, the oldest kept), never an error; a record shown that drops
// gives way to the oldest kept, and the label says so; the label, the
// slider and the strip agree all along.
func checkScrubFullHistory(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=2"))
	bt.Wait(t, ctx, "agent 2 live, its history full", `document.querySelector('#agent-title').textContent.startsWith('Agent #2 ') &&
		document.querySelector('#tl-label').textContent.startsWith('live · tick ') && Number(document.querySelector('#tl-range').min) > 1`, 15*time.Second)
	label := func() string { return bt.Eval[string](t, ctx, `document.querySelector('#tl-label').textContent`) }
	record := func() int {
		t.Helper()
		var n int
		if _, err := fmt.Sscanf(label(), "history · tick %d (record %d) ", new(int), &n); err != nil {
			t.Fatalf("label %q: %v", label(), err)
		}
		return n
	}
	// agree fails when the label, the slider and the strip disagree for
	// longer than a record's fetch may take on a loaded machine: as the
	// oldest records drop, the slider moves at once and the label once
	// the record it names has come (the two may differ for a moment).
	agree := func(what string) {
		t.Helper()
		p := bt.Eval[string](t, ctx, scrubProblems)
		for end := time.Now().Add(2 * time.Second * bt.Slack); p != "" && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
			p = bt.Eval[string](t, ctx, scrubProblems)
		}
		if p != "" {
			bt.Screenshot(t, ctx, "scrub.png", artifacts)
			t.Fatalf("%s: %s", what, p)
		}
	}
	// shownAfter waits for the label to show a record of the history
	// (not an error), then for the page to settle on it.
	shownAfter := func(what string) {
		t.Helper()
		bt.Wait(t, ctx, what, `(() => { const l = document.querySelector('#tl-label').textContent; return l.startsWith('history · tick ') || l.startsWith('record '); })()`, 5*time.Second)
		if l := label(); !strings.HasPrefix(l, "history · tick ") {
			bt.Screenshot(t, ctx, "scrub.png", artifacts)
			t.Fatalf("%s: %q", what, l)
		}
		time.Sleep(30 * time.Millisecond)
		agree(what)
	}

	// The slider's left end: the oldest record offered, or the oldest
	// kept when that one dropped meanwhile.
	offered := bt.Eval[int](t, ctx, `(() => { const r = document.querySelector('#tl-range'); r.value = r.min; r.dispatchEvent(new Event('input')); return Number(r.value); })()`)
	shownAfter("scrubbed to the left end")
	if n := record(); n < offered {
		t.Fatalf("record %d shown, the slider offered %d", n, offered)
	}
	// Parked there, the record shown drops as the agent ticks on: the
	// oldest kept takes its place, and the label says why.
	prev, notes := record(), 0
	for end := time.Now().Add(1500 * time.Millisecond); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		agree("at the left end")
		n := record()
		if n < prev {
			t.Fatalf("at the left end: record %d after %d", n, prev)
		}
		if n > prev && strings.Contains(label(), "record "+strconv.Itoa(prev)+" left the history") {
			notes++
		}
		prev = n
	}
	if notes == 0 || prev <= offered {
		t.Errorf("at the left end: shown up to record %d from %d, %d moves said: want it to move to the oldest kept, and say so", prev, offered, notes)
	}
	// ◀ at the left end: no error, the oldest kept.
	bt.Run(t, ctx, chromedp.Click("#btn-prev", chromedp.ByID))
	time.Sleep(100 * time.Millisecond)
	shownAfter("◀ at the left end")

	// A recent record stays shown while the history moves on (it is kept
	// for 4.5 s more).
	bt.Run(t, ctx, chromedp.Evaluate(`(() => { const r = document.querySelector('#tl-range'); r.value = Number(r.max) - 10; r.dispatchEvent(new Event('input')); })()`, nil))
	bt.Wait(t, ctx, "scrubbed to a recent record", `(() => { const r = document.querySelector('#tl-range'); return document.querySelector('#tl-label').textContent.startsWith('history · tick ') && document.querySelector('#tl-label').textContent.includes(' (record ' + r.value + ') '); })()`, 5*time.Second)
	mid := record()
	min0 := bt.Eval[string](t, ctx, `document.querySelector('#tl-range').min`)
	for end := time.Now().Add(time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		agree("at a recent record")
		if n := record(); n != mid {
			t.Fatalf("at a recent record: record %d shown, then %d", mid, n)
		}
	}
	if min := bt.Eval[string](t, ctx, `document.querySelector('#tl-range').min`); min == min0 {
		t.Errorf("the slider still starts at record %s: the history did not move on", min)
	}
	// ▶ and ◀ step from the record shown.
	step := func(button string, want int) {
		t.Helper()
		bt.Run(t, ctx, chromedp.Click(button, chromedp.ByID))
		bt.Wait(t, ctx, button, fmt.Sprintf(`(/^history · tick \d+ \(record (\d+)\)/.exec(document.querySelector('#tl-label').textContent) || [])[1] === '%d'`, want), 5*time.Second)
		agree(button)
	}
	step("#btn-next", mid+1)
	step("#btn-prev", mid)
	step("#btn-prev", mid-1)
	bt.Run(t, ctx, chromedp.Click("#btn-live", chromedp.ByID))
	bt.Wait(t, ctx, "live again", `document.querySelector('#tl-label').textContent.startsWith('live · tick ')`, 5*time.Second)
}

// checkNodeErrors breaks an agent from the page, as a user would: its
// Check compares "hp" with a number, and the blackboard form writes a
// string there. The page then shows the error count (agent bar, Errors
// tab, agent list), rings the Check in the tree, lists the error, and a
// click on its node shows the node. The agent is removed at the end.
func checkNodeErrors(t *testing.T, ctx context.Context, base string, s *Session) {
	tree := erringTree(t)
	var id int
	s.Do(func(m *arbor.Manager) {
		a := m.Add(tree)
		arbor.NewKey[int]("hp").Set(a.Blackboard(), 50)
		id = a.ID()
	})
	defer s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(id)) })
	check := -1
	for i := 0; i < tree.Len(); i++ {
		if tree.Node(i).Name == "low" {
			check = i
		}
	}
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(fmt.Sprintf("%s/#agent=%d", base, id)))
	bt.Wait(t, ctx, "agent live", fmt.Sprintf(`document.querySelector('#agent-title').textContent.startsWith('Agent #%d ') &&
		document.querySelector('#tl-label').textContent.startsWith('live · tick ') && !document.querySelector('#bb-form').hidden`, id), 10*time.Second)
	if bt.Eval[bool](t, ctx, `!document.querySelector('#agent-errors').hidden || !document.querySelector('#err-badge').hidden || !!document.querySelector('#tree g.node.errored')`) {
		t.Fatal("error marks on an agent without errors")
	}
	bt.Run(t, ctx, chromedp.SetValue("#bb-key", "hp", chromedp.ByID), chromedp.SetValue("#bb-value", `"lots"`, chromedp.ByID),
		chromedp.Click(`#bb-form button[type="submit"]`, chromedp.ByQuery))
	// The write is done, and the form warns that the key changed kind.
	bt.Wait(t, ctx, "kind warning", `document.querySelector('#bb-msg').textContent.startsWith('set hp. Warning: hp held a number and now holds a string')`, 10*time.Second)
	bt.Wait(t, ctx, "error count and mark", fmt.Sprintf(`(() => {
		const pill = document.querySelector('#agent-errors'), badge = document.querySelector('#err-badge');
		return !pill.hidden && /^⚠ \d+ errors?$/.test(pill.textContent) && !badge.hidden && Number(badge.textContent) >= 1 &&
			document.querySelector('#tree g.node[data-id="%d"]').classList.contains('errored') &&
			document.querySelectorAll('#tree g.node.errored').length === 1;
	})()`, check), 10*time.Second)
	bt.Wait(t, ctx, "count in the agent list", fmt.Sprintf(`(() => { const c = document.querySelector('#agent-list li[data-id="%d"] .errc');
		return !!c && /^⚠ \d+$/.test(c.textContent); })()`, id), 10*time.Second)
	if n := bt.Eval[int](t, ctx, `document.querySelectorAll('#agent-list .errc').length`); n != 1 {
		t.Errorf("%d agents with an error count in the list, want 1", n)
	}

	bt.Run(t, ctx, chromedp.Click(`.tabs button[data-tab="errors"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "errors listed", `(() => { const li = document.querySelector('#errors-list li');
		return !!li && li.querySelector('.err-node').textContent === 'low' && li.querySelector('.err-msg').textContent !== '' &&
			/^t=.+ · tick \d+ $/.test(li.querySelector('.muted').textContent) &&
			/node errors? since the session began/.test(document.querySelector('#errors-note').textContent); })()`, 10*time.Second)
	msg := bt.Eval[string](t, ctx, `document.querySelector('#errors-list li').textContent`)
	t.Logf("error shown: %s", msg)
	// The counts by node since watching began: the Check, ×N.
	bt.Wait(t, ctx, "counts by node", `(() => { const n = document.querySelector('#errors-by .err-node'), c = document.querySelector('#errors-by .err-rep');
		return !document.querySelector('#errors-by').hidden && !!n && n.textContent === 'low' && !!c && Number(c.textContent.replace(' ×', '')) >= 1; })()`, 10*time.Second)
	// The Check errs on every tick with the same message: one entry, ×N.
	bt.Wait(t, ctx, "repeats grouped", `(() => { const li = document.querySelectorAll('#errors-list li'), rep = li.length && li[0].querySelector('.err-rep');
		return li.length === 1 && !!rep && Number(rep.textContent.replace(' ×', '')) >= 2; })()`, 10*time.Second)
	// The list follows new errors while the tab is open.
	first := bt.Eval[string](t, ctx, `document.querySelector('#errors-list li .muted').textContent`)
	bt.Wait(t, ctx, "newer errors", fmt.Sprintf(`document.querySelector('#errors-list li .muted').textContent !== %q`, first), 10*time.Second)
	// With the pointer over it, the list holds still (the Check errs every
	// tick), so that the entry under the pointer is the one clicked.
	xy := bt.Eval[[]float64](t, ctx, `(() => { const r = document.querySelector('#errors-list li .err-node').getBoundingClientRect();
		return [r.x + r.width / 2, r.y + r.height / 2]; })()`)
	bt.Run(t, ctx, chromedp.MouseEvent(input.MouseMoved, xy[0], xy[1]))
	bt.Wait(t, ctx, "list held", `/list held while the pointer is over it \(\d+ newer\)$/.test(document.querySelector('#errors-note').textContent)`, 10*time.Second)
	held := bt.Eval[string](t, ctx, `document.querySelector('#errors-list li .muted').textContent`)
	time.Sleep(300 * time.Millisecond)
	if now := bt.Eval[string](t, ctx, `document.querySelector('#errors-list li .muted').textContent`); now != held {
		t.Fatalf("the list moved under the pointer: %q, then %q", held, now)
	}
	bt.Run(t, ctx, chromedp.Click(`#errors-list li .err-node`, chromedp.ByQuery))
	bt.Wait(t, ctx, "node shown", fmt.Sprintf(`document.querySelector('#tree g.node[data-id="%d"]').classList.contains('selected') &&
		!document.querySelector('#tab-node').hidden`, check), 5*time.Second)
	bt.Run(t, ctx, chromedp.Click(`#agent-errors`, chromedp.ByID))
	bt.Wait(t, ctx, "the pill opens the tab", `!document.querySelector('#tab-errors').hidden`, 5*time.Second)
	bt.Wait(t, ctx, "the list moves again with the pointer away", fmt.Sprintf(`!document.querySelector('#errors-note').textContent.includes('held') &&
		document.querySelector('#errors-list li .muted').textContent !== %q`, held), 10*time.Second)
	bt.Screenshot(t, ctx, "node-errors.png", artifacts)

	// Fixed: the tree mark goes with the next ticks, the count stays.
	bt.Run(t, ctx, chromedp.SetValue("#bb-value", "10", chromedp.ByID))
	bt.Run(t, ctx, chromedp.Click(`.tabs button[data-tab="bb"]`, chromedp.ByQuery), chromedp.Click(`#bb-form button[type="submit"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "mark gone", `!document.querySelector('#tree g.node.errored') && !document.querySelector('#agent-errors').hidden`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Click(`.tabs button[data-tab="bb"]`, chromedp.ByQuery), chromedp.Navigate("about:blank"))
}

// checkEventLabels checks that the Events tab names an unnamed Check by
// its comparison ("Check hp < 30"), so that a tree's many Checks can be
// told apart.
func checkEventLabels(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "the wide tree shown", `document.querySelectorAll('#tree g.node').length === 216 && document.querySelector('#tl-label').textContent.startsWith('live · tick ')`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Click(`button[data-tab="events"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "a Check named by its comparison", `Array.from(document.querySelectorAll('#events-list li')).some((li) => li.textContent.includes('Check hp < 30'))`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Click(`button[data-tab="bb"]`, chromedp.ByQuery))
}

// checkListRefresh checks that the agent list, asked for every 1.5 s,
// leaves what did not change alone: the entry of a paused agent and the
// tree filter's options stay the same elements (a menu held open stays
// open, a click in progress lands), while a changed entry is redrawn; a
// click held while its entry is redrawn opens the agent.
func checkListRefresh(t *testing.T, ctx context.Context, base string, s *Session) {
	s.Do(func(m *arbor.Manager) { m.Agent(0).Pause() })
	defer s.Do(func(m *arbor.Manager) { m.Agent(0).Resume() })
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/"))
	bt.Wait(t, ctx, "agent 0 paused in the list", `!!document.querySelector('#agent-list li[data-id="0"] .dot.paused') &&
		document.querySelectorAll('#filter-tree option').length > 1`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#agent-list li[data-id="0"]').__kept = true;
		document.querySelector('#filter-tree option:last-child').__kept = true`, nil))
	time.Sleep(3200 * time.Millisecond) // two refreshes
	if !bt.Eval[bool](t, ctx, `!!document.querySelector('#agent-list li[data-id="0"]').__kept`) {
		t.Error("the unchanged entry of paused agent 0 was redrawn")
	}
	if !bt.Eval[bool](t, ctx, `!!document.querySelector('#filter-tree option:last-child').__kept`) {
		t.Error("the unchanged tree filter options were redrawn")
	}
	s.Do(func(m *arbor.Manager) { m.Agent(0).Resume() })
	bt.Wait(t, ctx, "agent 0 redrawn when it changed", `(() => { const li = document.querySelector('#agent-list li[data-id="0"]');
		return !li.__kept && !li.querySelector('.dot.paused'); })()`, 10*time.Second)

	// A click held while a refresh redraws the entry (its agent changed)
	// opens the agent all the same.
	xy := bt.Eval[[]float64](t, ctx, `(() => { const li = document.querySelector('#agent-list li[data-id="0"]'); li.__kept = true;
		const r = li.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`)
	bt.Run(t, ctx, input.DispatchMouseEvent(input.MouseMoved, xy[0], xy[1]),
		input.DispatchMouseEvent(input.MousePressed, xy[0], xy[1]).WithButton(input.Left).WithClickCount(1))
	s.Do(func(m *arbor.Manager) { m.Agent(0).Pause() })
	bt.Wait(t, ctx, "agent 0 redrawn under the pointer", `(() => { const li = document.querySelector('#agent-list li[data-id="0"]');
		return !li.__kept && !!li.querySelector('.dot.paused'); })()`, 10*time.Second)
	bt.Run(t, ctx, input.DispatchMouseEvent(input.MouseReleased, xy[0], xy[1]).WithButton(input.Left).WithClickCount(1))
	bt.Wait(t, ctx, "the click opened agent 0", `!document.querySelector('#agent-view').hidden &&
		document.querySelector('#agent-title').textContent.startsWith('Agent #0 ')`, 5*time.Second)
}

// checkErrorsInTurn: two Checks of the same name err on every tick, one
// after the other. The Errors tab gives one entry to each, with its count
// (not an entry per tick), and its counts by node tell them apart by
// number.
func checkErrorsInTurn(t *testing.T, ctx context.Context, base string, s *Session) {
	tree, err := arbor.Compile(&arbor.Document{Main: "Turns", Trees: map[string]*arbor.Node{
		"Turns": arbor.Selector(
			arbor.Sequence(arbor.Check("hp", "<", 30).Named("hp check"), arbor.Set("mode", "flee")),
			arbor.Sequence(arbor.Check("hp", ">", 90).Named("hp check"), arbor.Set("mode", "rest")),
			arbor.Set("mode", "fight"),
		),
	}}, arbor.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var id int
	s.Do(func(m *arbor.Manager) {
		a := m.Add(tree)
		a.Blackboard().Set("hp", "lots")
		id = a.ID()
	})
	defer s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(id)) })
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(fmt.Sprintf("%s/#agent=%d", base, id)))
	bt.Wait(t, ctx, "agent live", fmt.Sprintf(`document.querySelector('#agent-title').textContent.startsWith('Agent #%d ')`, id), 10*time.Second)
	bt.Run(t, ctx, chromedp.Click(`.tabs button[data-tab="errors"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "an entry for each Check, with its count", `(() => {
		const li = Array.from(document.querySelectorAll('#errors-list li'));
		return li.length === 2 && li[0].dataset.node !== li[1].dataset.node &&
			li.every((x) => x.querySelector('.err-node').textContent === 'hp check' && Number(((x.querySelector('.err-rep') || {}).textContent || '').replace(' ×', '')) >= 2);
	})()`, 10*time.Second)
	bt.Wait(t, ctx, "counts by node with numbers", `(() => {
		const names = Array.from(document.querySelectorAll('#errors-by .err-node')).map((e) => e.textContent);
		return names.length === 2 && names.every((n) => /^hp check #\d+$/.test(n)) && names[0] !== names[1];
	})()`, 10*time.Second)
}
