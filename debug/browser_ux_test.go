package debug

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
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
)

// slowClick presses the mouse on the element sel finds and releases it
// after 150 ms, as a person clicks, while the page goes on updating.
func slowClick(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	// Whether the last press landed on an element sel finds: the page may
	// redraw between the test finding the element and the press (the
	// running list says "nothing running" for a tick), and the press then
	// lands on something else, which a person would see, and press again.
	bt.Run(t, ctx, chromedp.Evaluate(`window.__slowSel = `+strconv.Quote(sel)+`;
		if (!window.__slowHits) {
			window.__slowHits = true;
			document.addEventListener('pointerdown', (e) => {
				window.__slowHit = !!e.target.closest(window.__slowSel);
				window.__slowOn = e.target.outerHTML.slice(0, 80);
			}, true);
		}`, nil))
	for deadline := time.Now().Add(5 * time.Second * bt.Slack); ; {
		// The element may be missing for an update (a list redrawn, a tick
		// in which nothing runs): its place is asked again.
		var at []float64
		for len(at) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("no element %s to click", sel)
			}
			bt.Run(t, ctx, chromedp.Evaluate(`(() => { const e = document.querySelector(`+strconv.Quote(sel)+`); if (!e) return [];
				const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, &at))
			if len(at) == 0 {
				time.Sleep(20 * time.Millisecond)
			}
		}
		bt.Run(t, ctx, chromedp.Evaluate(`window.__slowHit = false`, nil),
			input.DispatchMouseEvent(input.MouseMoved, at[0], at[1]),
			input.DispatchMouseEvent(input.MousePressed, at[0], at[1]).WithButton(input.Left).WithClickCount(1),
			chromedp.Sleep(150*time.Millisecond),
			input.DispatchMouseEvent(input.MouseReleased, at[0], at[1]).WithButton(input.Left).WithClickCount(1))
		if bt.Eval[bool](t, ctx, `window.__slowHit`) {
			return
		}
		on := bt.Eval[string](t, ctx, `window.__slowOn || 'nothing'`)
		if time.Now().After(deadline) {
			t.Fatalf("the press at %v never landed on %s (last on %s)", at, sel, on)
		}
		t.Logf("the press at %v landed on %s, not %s: again", at, on, sel)
		time.Sleep(20 * time.Millisecond)
	}
}

// checkSlowClicks: a node picked in a list that is redrawn on every update
// (running now, statistics) is selected also when the click takes a
// person's time; a blackboard row that keeps its value is not redrawn (its
// text can be selected and copied).
func checkSlowClicks(t *testing.T, ctx context.Context, base string, mode *atomic.Int32) {
	mode.Store(modePatrol)
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "running crumbs", `document.querySelectorAll('#running-list .crumb').length > 0 &&
		document.querySelector('#tl-label').textContent.startsWith('live · tick ')`, 10*time.Second)
	// The leaf may change between the press and the check: the page
	// notes what was pressed.
	bt.Run(t, ctx, chromedp.Evaluate(`document.addEventListener('pointerdown', (e) => { window.pressed = e.target.textContent; }, true)`, nil))
	slowClick(t, ctx, "#running-list .crumb")
	bt.Wait(t, ctx, "the running root selected", `!document.querySelector('#tab-node').hidden && !!window.pressed &&
		(document.querySelector('#node-info dd') || {}).textContent === window.pressed`, 5*time.Second)

	bt.Run(t, ctx, chromedp.Click(`.tabs button[data-tab="stats"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "stats rows", `document.querySelectorAll('#stats-table tbody tr').length > 3`, 5*time.Second)
	slowClick(t, ctx, "#stats-table tbody tr:nth-child(3) td")
	bt.Wait(t, ctx, "a stats row selected", `!document.querySelector('#tab-node').hidden`, 5*time.Second)

	bt.Run(t, ctx, chromedp.Click(`.tabs button[data-tab="bb"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "hp on the blackboard", `!!document.querySelector('#bb-agent tr[data-key="hp"]')`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#bb-agent tr[data-key="hp"]').dataset.kept = 'yes'`, nil), chromedp.Sleep(600*time.Millisecond))
	if kept := bt.Eval[bool](t, ctx, `(document.querySelector('#bb-agent tr[data-key="hp"]') || {dataset: {}}).dataset.kept === 'yes'`); !kept {
		t.Error("the row of an unchanged blackboard value was redrawn")
	}
}

// checkNarrow: at 800 px the page does not scroll sideways and the buttons
// above the tree do not lie on one another.
func checkNarrow(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.EmulateViewport(800, 600))
	defer bt.Run(t, ctx, chromedp.EmulateViewport(1024, 768))
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=1"))
	bt.Wait(t, ctx, "agent 1", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ')`, 10*time.Second)
	problems := bt.Eval[string](t, ctx, `(() => {
		const out = [];
		if (document.documentElement.scrollWidth > innerWidth) out.push('the page is ' + document.documentElement.scrollWidth + 'px wide');
		const els = Array.from(document.querySelectorAll('#agent-bar button, #agent-bar .button, #agent-bar .pill')).filter((b) => b.offsetParent);
		for (const a of els) for (const b of els) {
			if (a === b || a.contains(b) || b.contains(a)) continue;
			const r = a.getBoundingClientRect(), q = b.getBoundingClientRect();
			if (r.left < q.right - 1 && q.left < r.right - 1 && r.top < q.bottom - 1 && q.top < r.bottom - 1) out.push('"' + a.textContent + '" over "' + b.textContent + '"');
		}
		return out.join('; ');
	})()`)
	if problems != "" {
		bt.Screenshot(t, ctx, "narrow-800.png", artifacts)
		t.Errorf("at 800 px: %s", problems)
	}
}

// checkStaleToken: a control refused for its token brings the token field
// back, where the right one can be entered.
func checkStaleToken(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=1&token=stale"))
	bt.Wait(t, ctx, "controls, token field hidden", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') &&
		!document.querySelector('#controls').hidden && document.querySelector('#token').hidden`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-pause", chromedp.ByID))
	bt.Wait(t, ctx, "token field shown", `!document.querySelector('#token').hidden && !document.querySelector('#notice').hidden`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SendKeys("#token", browserToken+"\n", chromedp.ByID), chromedp.Click("#btn-pause", chromedp.ByID))
	bt.Wait(t, ctx, "paused with the right token", `document.querySelector('#agent-status').textContent === 'paused'`, 5*time.Second)
	control(t, base, "POST", "/api/agents/1/resume", "{}")
}

// checkNoToken checks the page without the control token: the controls
// that write are shown but disabled, saying what they need (they would
// fail), and a token that comes with the address enables them.
func checkNoToken(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=1"),
		chromedp.Evaluate(`sessionStorage.removeItem('arbor-token')`, nil),
		chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=1"))
	bt.Wait(t, ctx, "agent 1 without a token", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') &&
		!document.querySelector('#controls').hidden && !document.querySelector('#token').hidden`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Click(`nav.tabs button[data-tab="node"]`, chromedp.ByQuery))
	bt.Run(t, ctx, chromedp.SendKeys("#node-find", "Selector\n", chromedp.ByID))
	bt.Wait(t, ctx, "a node selected", `!!document.querySelector('#tree g.node.selected') && !document.querySelector('#bp-box').hidden`, 5*time.Second)
	disabled := `(() => {
		const need = (el) => !!el && el.disabled && /control token/.test(el.title || (el.closest('label') || {}).title || '');
		const boxes = Array.from(document.querySelectorAll('#bp-box input, #force-box input'));
		return need(document.querySelector('#btn-pause')) && need(document.querySelector('#btn-step')) &&
			need(document.querySelector('#bb-set')) && need(document.querySelector('#btn-pause-all')) &&
			boxes.length > 0 && boxes.every(need);
	})()`
	bt.Wait(t, ctx, "the controls that write disabled, saying why", disabled, 5*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(`location.hash = '#agent=1&token=`+browserToken+`'`, nil))
	bt.Wait(t, ctx, "enabled by the token in the address", `(() => {
		const on = (el) => !el.disabled && !/control token/.test(el.title || (el.closest('label') || {}).title || '');
		return on(document.querySelector('#btn-pause')) && on(document.querySelector('#btn-step')) && on(document.querySelector('#bb-set')) &&
			Array.from(document.querySelectorAll('#bp-box input, #force-box input')).every(on) && document.querySelector('#token').hidden;
	})()`, 5*time.Second)
}

// TestBrowserProgramRestart: when the program behind the page restarts on
// the same address, the page starts again with the new session (its
// history, revisions and token were the old one's).
func TestBrowserProgramRestart(t *testing.T) {
	ctx := bt.Start(t, 1024, 768)
	var current atomic.Pointer[http.Handler]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*current.Load()).ServeHTTP(w, r) }))
	defer func() {
		// The page's stream would hold Close up: the page goes first.
		bt.Run(t, ctx, chromedp.Navigate("about:blank"))
		srv.Close()
	}()
	sessionOf := func() *Session {
		sentry, _ := testTrees(t)
		m := arbor.NewManager(arbor.WithWorkers(1))
		t.Cleanup(m.Close)
		m.Add(sentry)
		return NewSession(m, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	}
	first, second := sessionOf(), sessionOf()
	h := first.Handler()
	current.Store(&h)
	tctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go bt.TickEvery(tctx, 50*time.Millisecond, func(now time.Duration) { first.Tick(now); second.Tick(now) })

	bt.Run(t, ctx, chromedp.Navigate(srv.URL+"/#agent=0"))
	bt.Wait(t, ctx, "agent 0 live", `document.querySelector('#tl-label').textContent.startsWith('live · tick ')`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(`window.beforeRestart = true`, nil))
	h2 := second.Handler()
	current.Store(&h2)
	srv.CloseClientConnections()
	bt.Wait(t, ctx, "the page started again", `window.beforeRestart === undefined && !!document.querySelector('#tl-label')?.textContent.startsWith('live · tick ')`, 20*time.Second)
}

// checkKeys: ← and → go through the history, End goes live, Space pauses
// and resumes, S steps.
func checkKeys(t *testing.T, ctx context.Context, base string, s *Session) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=1&token="+browserToken))
	bt.Wait(t, ctx, "agent 1 live", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') &&
		Number((/^live · tick \d+ \(record (\d+)\)/.exec(document.querySelector('#tl-label').textContent) || [0, 0])[1]) >= 3`, 10*time.Second)
	label := `document.querySelector('#tl-label').textContent`
	status := `document.querySelector('#agent-status').textContent`
	bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	bt.Wait(t, ctx, "← : history", label+`.startsWith('history · tick ')`, 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.End))
	bt.Wait(t, ctx, "End: live", label+`.startsWith('live · tick ')`, 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(" "))
	bt.Wait(t, ctx, "Space: paused", status+` === 'paused'`, 5*time.Second)
	// The reply to Pause can come before the live update with the agent's
	// last ticks: the label may still show an older record. S steps from
	// the newest, which the page shows once that update came.
	s.mu.Lock()
	rec := s.watches[1].seq
	s.mu.Unlock()
	bt.Wait(t, ctx, "paused at the newest record", fmt.Sprintf(`(/^live · paused · tick \d+ \(record (\d+)\)/.exec(%s) || [])[1] === '%d'`, label, rec), 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent("s"))
	bt.Wait(t, ctx, "S: one more tick, paused", fmt.Sprintf(`%s === 'paused' && (/^live · paused · tick \d+ \(record (\d+)\)/.exec(%s) || [])[1] === '%d'`, status, label, rec+1), 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(" "))
	bt.Wait(t, ctx, "Space: running again", status+` !== 'paused'`, 5*time.Second)
}

// Expressions of the timeline's label: its text and the record it names.
const (
	tlLabel  = `document.querySelector('#tl-label').textContent`
	tlRecord = `Number((/record (\d+)/.exec(` + tlLabel + `) || [0, 0])[1])`
)

// openLive opens agent id in a new page with the control token and waits
// until it is shown live with at least records records.
func openLive(t *testing.T, ctx context.Context, base string, id, records int) {
	t.Helper()
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(fmt.Sprintf("%s/#agent=%d&token=%s", base, id, browserToken)))
	bt.Wait(t, ctx, fmt.Sprintf("agent %d live", id), fmt.Sprintf(`document.querySelector('#agent-title').textContent.startsWith('Agent #%d ') && %s.startsWith('live · tick ') && %s >= %d`,
		id, tlLabel, tlRecord, records), 10*time.Second)
}

// checkKeysAfterClick checks that the page's keys work after a click on
// one of its buttons (◀, a tab, Step): a button clicked with the mouse
// does not keep the focus, so ← goes on scrubbing and Space pauses or
// resumes rather than pressing the button again.
func checkKeysAfterClick(t *testing.T, ctx context.Context, base string) {
	openLive(t, ctx, base, 1, 4)
	label, record := tlLabel, tlRecord
	bt.Run(t, ctx, chromedp.Click("#btn-prev", chromedp.ByID))
	bt.Wait(t, ctx, "◀ clicked: history", label+`.startsWith('history · tick ')`, 5*time.Second)
	at := bt.Eval[int](t, ctx, record)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	bt.Wait(t, ctx, "then ←: one record back", fmt.Sprintf(`%s.startsWith('history · tick ') && %s === %d`, label, record, at-1), 5*time.Second)
	bt.Run(t, ctx, chromedp.Click(`nav.tabs button[data-tab="events"]`, chromedp.ByQuery), chromedp.KeyEvent(kb.End))
	bt.Wait(t, ctx, "a tab clicked, then End: live", label+`.startsWith('live · tick ')`, 5*time.Second)
	status := `document.querySelector('#agent-status').textContent`
	bt.Run(t, ctx, chromedp.Click("#btn-step", chromedp.ByID))
	bt.Wait(t, ctx, "Step clicked: paused", status+` === 'paused'`, 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(" "))
	bt.Wait(t, ctx, "then Space: running again", status+` !== 'paused'`, 5*time.Second)
}

// checkNodeListKeys checks the keys of the lists of nodes: each is a Tab
// stop; ↑ and ↓ go through its rows, ← and → along a running path (not
// through the history), and Enter selects the node under the cursor.
func checkNodeListKeys(t *testing.T, ctx context.Context, base string) {
	pausedWithPath(t, ctx, base)
	status := `document.querySelector('#agent-status').textContent`
	kbd := `document.querySelector('#running-list .kbd')`
	// The path's place of the cursor: the number of nodes after it.
	after := `(() => { const k = ` + kbd + `; if (!k) return -1; const ns = Array.from(k.closest('li').querySelectorAll('[data-node]')); return ns.length - 1 - ns.indexOf(k); })()`
	// A click gives the page the focus (a page without it gets no focus
	// events), on a heading that does nothing.
	bt.Click(t, ctx, "#running-now h3")
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#running-list').focus()`, nil))
	bt.Wait(t, ctx, "focused: the cursor on the first path's last node", `document.activeElement.id === 'running-list' && `+after+` === 0 &&
		`+kbd+`.closest('li') === document.querySelector('#running-list > li')`, 5*time.Second)
	if n := bt.Eval[int](t, ctx, `document.querySelectorAll('#running-list > li').length`); n > 1 {
		bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowDown))
		bt.Wait(t, ctx, "↓: the second path", kbd+`.closest('li') === document.querySelectorAll('#running-list > li')[1]`, 5*time.Second)
		bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowUp))
		bt.Wait(t, ctx, "↑: the first path", kbd+`.closest('li') === document.querySelector('#running-list > li')`, 5*time.Second)
	}
	bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	bt.Wait(t, ctx, "←: one node up the path", after+` === 1`, 5*time.Second)
	if got := bt.Eval[string](t, ctx, tlLabel); !strings.HasPrefix(got, "live · paused") {
		t.Errorf("← in the running list moved the timeline: %q", got)
	}
	want := bt.Eval[int](t, ctx, `Number(`+kbd+`.dataset.node)`)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.Enter))
	bt.Wait(t, ctx, "Enter: that node selected", fmt.Sprintf(`S.selected === %d && !document.querySelector('#tab-node').hidden`, want), 5*time.Second)
	// The statistics: rows of the table.
	bt.Run(t, ctx, chromedp.Click(`nav.tabs button[data-tab="stats"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#stats-table').focus()`, nil))
	row := `document.querySelector('#stats-table tr.kbd')`
	bt.Wait(t, ctx, "the stats focused: the cursor on the selected node's row", fmt.Sprintf(`!!%s && Number(%s.dataset.node) === %d`, row, row, want), 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.Home), chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown))
	bt.Wait(t, ctx, "Home ↓ ↓: the third row", row+` === document.querySelectorAll('#stats-table tbody > tr')[2]`, 5*time.Second)
	want = bt.Eval[int](t, ctx, `Number(`+row+`.dataset.node)`)
	bt.Run(t, ctx, chromedp.KeyEvent(" "))
	bt.Wait(t, ctx, "Space: that node selected, the agent still paused", fmt.Sprintf(`S.selected === %d && %s === 'paused'`, want, status), 5*time.Second)
	// A list with no node to select keeps Space too: the agent stays paused.
	bt.Run(t, ctx, chromedp.Click(`nav.tabs button[data-tab="errors"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#errors-list').focus()`, nil))
	if n := bt.Eval[int](t, ctx, `document.querySelectorAll('#errors-list [data-node]').length`); n != 0 {
		t.Fatalf("the sentry has %d node errors listed, want none here", n)
	}
	bt.Run(t, ctx, chromedp.KeyEvent(" "))
	time.Sleep(300 * time.Millisecond) // what a resume would take to show
	if got := bt.Eval[string](t, ctx, status); got != "paused" {
		t.Errorf("Space in an empty list of nodes reached the page: the agent is %q", got)
	}
}

// pausedWithPath opens agent 1 live, pauses it (it runs again when the
// test ends, for the checks that follow) and steps it until the Running
// list shows a path of two nodes or more.
func pausedWithPath(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	openLive(t, ctx, base, 1, 4)
	status := `document.querySelector('#agent-status').textContent`
	t.Cleanup(func() { control(t, base, "POST", "/api/agents/1/resume", "{}") })
	control(t, base, "POST", "/api/agents/1/pause", "{}")
	bt.Wait(t, ctx, "paused", status+` === 'paused'`, 5*time.Second)
	paths := `Array.from(document.querySelectorAll('#running-list > li')).some((li) => li.querySelectorAll('[data-node]').length >= 2)`
	// Each step waits for its tick to be shown: a step still on its way
	// would change the paths under the caller's keys.
	for i := 0; i < 20 && !bt.Eval[bool](t, ctx, paths); i++ {
		rec := bt.Eval[int](t, ctx, tlRecord)
		control(t, base, "POST", "/api/agents/1/step", "{}")
		bt.Wait(t, ctx, "the step shown", fmt.Sprintf(`%s === 'paused' && %s > %d`, status, tlRecord, rec), 5*time.Second)
	}
	bt.Wait(t, ctx, "a running path of two nodes or more", paths, 5*time.Second)
}

// checkReviewFixes checks what a first-time user's review asked for: an
// earlier tick is marked (a banner that goes live), a Check's Node tab
// says what its key held at the tick shown, a blackboard row clicked fills
// the Set form, the tabs stay put as running paths come and go, and Open
// recording is a button for the keys too.
func checkReviewFixes(t *testing.T, ctx context.Context, base string) {
	openLive(t, ctx, base, 1, 4)
	past := `document.querySelector('#past')`
	if !bt.Eval[bool](t, ctx, past+`.hidden`) {
		t.Error("the history banner is shown live")
	}
	bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft))
	bt.Wait(t, ctx, "← ←: the banner says which tick, and how far behind", `!`+past+`.hidden && /^Viewing tick \d+ · \d+ ticks? behind the newest/.test(`+past+`.textContent) &&
		document.querySelector('#tree-wrap').classList.contains('past')`, 5*time.Second)
	bt.Click(t, ctx, "#past")
	bt.Wait(t, ctx, "the banner clicked: live", tlLabel+`.startsWith('live') && `+past+`.hidden && !document.querySelector('#tree-wrap').classList.contains('past')`, 5*time.Second)

	// The sentry's "Check noise exists": its Node tab shows the key.
	check := `Array.from(document.querySelectorAll('#tree g.node')).find((g) => g.textContent.includes('noise exists'))`
	bt.Wait(t, ctx, "the noise check drawn", `!!`+check, 5*time.Second)
	id := bt.Eval[int](t, ctx, `Number(`+check+`.dataset.id)`)
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`selectNode(%d)`, id), nil))
	bt.Wait(t, ctx, "the Node tab names the key and its value at the tick shown", `(() => {
		const dt = Array.from(document.querySelectorAll('#node-info dt')).find((d) => d.textContent === 'key noise');
		return !!dt && /at the tick shown/.test(dt.nextElementSibling.textContent) &&
			/^Selector › .* › Check noise exists$/.test(Array.from(document.querySelectorAll('#node-info dt')).find((d) => d.textContent === 'branch').nextElementSibling.textContent);
	})()`, 5*time.Second)

	// Other nodes' "{key}" parameters: the key's value, read at the start.
	if got := bt.Eval[string](t, ctx, `JSON.stringify(keysRead({ type: 'MoveTo', params: { goal: '{noSuchKey}', speed: 2 } }))`); got != `[["goal {noSuchKey}","missing at the tick shown; read when the node starts"]]` {
		t.Errorf("keysRead of a user node: %s", got)
	}

	// A blackboard row clicked: its key and value in the form.
	bt.Run(t, ctx, chromedp.Click(`nav.tabs button[data-tab="bb"]`, chromedp.ByQuery))
	row := `document.querySelector('#bb-agent tr[data-name]')`
	bt.Wait(t, ctx, "a blackboard row", `!!`+row+` && !document.querySelector('#bb-form').hidden`, 5*time.Second)
	key := bt.Eval[string](t, ctx, row+`.dataset.name`)
	bt.Run(t, ctx, chromedp.Evaluate(row+`.querySelector('td').click()`, nil))
	bt.Wait(t, ctx, "the form filled", fmt.Sprintf(`document.querySelector('#bb-key').value === %q && document.querySelector('#bb-value').value !== ''`, key), 5*time.Second)
	bt.Run(t, ctx, chromedp.SetValue("#bb-key", "", chromedp.ByID), chromedp.SetValue("#bb-value", "", chromedp.ByID))

	// The running list has a fixed height: the tabs do not move.
	if h := bt.Eval[float64](t, ctx, `document.querySelector('#running-now').getBoundingClientRect().height`); h < 60 {
		t.Errorf("Running now is %.0f px high, want a fixed height", h)
	}
	tabsTop := `document.querySelector('nav.tabs').getBoundingClientRect().top`
	top := bt.Eval[float64](t, ctx, tabsTop)
	for i := 0; i < 10; i++ {
		time.Sleep(100 * time.Millisecond)
		if now := bt.Eval[float64](t, ctx, tabsTop); now != top {
			t.Fatalf("the tabs moved from y=%.0f to y=%.0f", top, now)
		}
	}

	// Open recording: a Tab stop, Enter opens the file chooser.
	bt.Run(t, ctx, chromedp.Evaluate(`window.picked = 0; document.querySelector('#open-file').click = () => { window.picked++; }; document.querySelector('#open-rec').focus()`, nil))
	if !bt.Eval[bool](t, ctx, `document.querySelector('#open-rec').tabIndex === 0 && document.activeElement.id === 'open-rec'`) {
		t.Fatal("Open recording is not a Tab stop")
	}
	bt.Run(t, ctx, chromedp.KeyEvent(kb.Enter))
	bt.Wait(t, ctx, "Enter: the file chooser asked for", `window.picked === 1`, 5*time.Second)
}

// checkSoleAgent: a session with one agent opens it, with nothing to pick.
func checkSoleAgent(t *testing.T, ctx context.Context) {
	sentry, _ := testTrees(t)
	m := arbor.NewManager(arbor.WithWorkers(1))
	defer m.Close()
	m.Add(sentry)
	s := NewSession(m, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	s.Tick(100 * time.Millisecond)
	srv := httptest.NewServer(s.Handler())
	defer func() {
		// The page's stream would hold Close up.
		bt.Run(t, ctx, chromedp.Navigate("about:blank"))
		srv.CloseClientConnections()
		srv.Close()
	}()
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(srv.URL+"/"))
	bt.Wait(t, ctx, "the only agent opened", `document.querySelector('#agent-title').textContent.startsWith('Agent #0 ') && !document.querySelector('#agent-view').hidden`, 10*time.Second)
}

// checkGotoAndFilter checks the timeline's "go to tick" field and the
// Events tab's filter: a tick of the history typed there is shown; one
// not in it marks the field and says which ticks the history holds; the
// filter keeps the events whose words match, and counts them.
func checkGotoAndFilter(t *testing.T, ctx context.Context, base string) {
	openLive(t, ctx, base, 1, 6)
	label := tlLabel
	tick := `Number((/ tick (\d+) /.exec(` + label + `) || [0, 0])[1])`
	// A tick the history holds (the agent may have been paused for a
	// while: not every tick has a record), a few back from the newest.
	resp, err := http.Get(base + "/api/agents/1/timeline")
	if err != nil {
		t.Fatal(err)
	}
	var tl struct{ Ticks [][]any }
	err = json.NewDecoder(resp.Body).Decode(&tl)
	resp.Body.Close()
	if err != nil || len(tl.Ticks) < 6 {
		t.Fatalf("timeline: %d ticks, %v", len(tl.Ticks), err)
	}
	want := int(tl.Ticks[len(tl.Ticks)-4][1].(float64))
	bt.Run(t, ctx, chromedp.SendKeys("#tl-goto", fmt.Sprintf("%d\n", want), chromedp.ByID))
	bt.Wait(t, ctx, "the tick typed shown", fmt.Sprintf(`%s.startsWith('history · tick ') && %s === %d && !document.querySelector('#tl-goto').classList.contains('bad')`, label, tick, want), 5*time.Second)
	bt.Run(t, ctx, chromedp.SetValue("#tl-goto", "", chromedp.ByID), chromedp.SendKeys("#tl-goto", "999999999\n", chromedp.ByID))
	bt.Wait(t, ctx, "a tick not in the history", `document.querySelector('#tl-goto').classList.contains('bad') &&
		/not in the history: it holds ticks \d+ to \d+/.test(document.querySelector('#tl-goto').title)`, 5*time.Second)
	if got := bt.Eval[int](t, ctx, tick); got != want {
		t.Errorf("a tick not in the history moved the view to tick %d", got)
	}
	bt.Run(t, ctx, chromedp.Click(`nav.tabs button[data-tab="events"]`, chromedp.ByQuery), chromedp.Click("#btn-live", chromedp.ByID))
	bt.Wait(t, ctx, "a tick with several kinds of events", `new Set(Array.from(document.querySelectorAll('#events-list li span[class^="k-"]')).map((s) => s.className)).size >= 2`, 10*time.Second)
	bt.Run(t, ctx, chromedp.SendKeys("#events-filter", "result", chromedp.ByID))
	bt.Wait(t, ctx, "only result events, counted", `(() => {
		const li = Array.from(document.querySelectorAll('#events-list li'));
		return li.length > 0 && li.every((x) => x.textContent.includes('result')) && /^\d+ of \d+$/.test(document.querySelector('#events-count').textContent);
	})()`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SetValue("#events-filter", "", chromedp.ByID), chromedp.SendKeys("#events-filter", "nosuchnode", chromedp.ByID))
	bt.Wait(t, ctx, "nothing matches", `document.querySelector('#events-list li').textContent === 'no event of this tick matches the filter'`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SetValue("#events-filter", "", chromedp.ByID), chromedp.Evaluate(`document.querySelector('#events-filter').dispatchEvent(new Event('input'))`, nil))
}

// checkSetButtonStill checks that the blackboard form stays where it is
// while rows come and go above it (they scroll in their own box): a click
// aimed at Set does not land elsewhere.
func checkSetButtonStill(t *testing.T, ctx context.Context, base string, s *Session) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=1&token="+browserToken))
	bt.Wait(t, ctx, "the form", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') && !document.querySelector('#bb-form').hidden &&
		document.querySelectorAll('#bb-agent tbody tr').length > 0`, 10*time.Second)
	top := `Math.round(document.querySelector('#bb-set').getBoundingClientRect().top)`
	before := bt.Eval[int](t, ctx, top)
	keys := make([]string, 30)
	for i := range keys {
		keys[i] = fmt.Sprintf("extra%02d", i)
	}
	s.Do(func(m *arbor.Manager) {
		for _, k := range keys {
			m.Agent(1).Blackboard().Set(k, 1)
		}
	})
	defer s.Do(func(m *arbor.Manager) {
		for _, k := range keys {
			m.Agent(1).Blackboard().Delete(k)
		}
	})
	bt.Wait(t, ctx, "30 more rows", `!!document.querySelector('#bb-agent tr[data-key="extra29"]')`, 10*time.Second)
	if after := bt.Eval[int](t, ctx, top); after != before {
		t.Errorf("the Set button moved from y=%d to y=%d when 30 rows came", before, after)
	}
}

// checkPastBannerKeepsUp checks that the banner of an earlier tick keeps
// saying how far behind the newest it is while the agent ticks on: it
// was written only when a record was shown, and then stayed.
func checkPastBannerKeepsUp(t *testing.T, ctx context.Context, base string, s *Session) {
	s.Do(func(m *arbor.Manager) { m.Agent(1).Resume() })
	openLive(t, ctx, base, 1, 4)
	past := `document.querySelector('#past')`
	behind := `Number((/(\d+) ticks? behind/.exec(` + past + `.textContent) || [0, -1])[1])`
	bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft))
	bt.Wait(t, ctx, "← ←: the banner says how far behind", `!`+past+`.hidden && `+behind+` > 0 && `+tlLabel+`.startsWith('history · tick ')`, 5*time.Second)
	was := bt.Eval[int](t, ctx, behind)
	time.Sleep(time.Second) // 20 ticks
	if now := bt.Eval[int](t, ctx, behind); now < was+5 || !bt.Eval[bool](t, ctx, tlLabel+`.startsWith('history · tick ')`) {
		t.Errorf("a second later: %q, want more than %d ticks behind", bt.Eval[string](t, ctx, past+`.textContent`), was+5)
	}
	bt.Click(t, ctx, "#past")
	bt.Wait(t, ctx, "the banner clicked: live", tlLabel+`.startsWith('live') && `+past+`.hidden`, 5*time.Second)
}
