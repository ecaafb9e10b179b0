package debug

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/arborbt/arbor"
	bt "github.com/arborbt/arbor/internal/browsertest"
)

// The tests of a first-time user's review: the page in narrow windows,
// agents' labels in the list, and the timeline's label.

// layoutProblems says what is clipped or overlaps in the page as shown:
// the three columns must lie side by side in the window; the agent
// list's search and filters in the list's column, their text in full;
// the agent list's entries in the list; the agent bar's parts in the bar,
// apart, the title and the buttons in full; the tabs in the panel, in
// full; the timeline's controls in the timeline, apart; the view's
// buttons and the history banner in the tree's view, apart.
const layoutProblems = `(() => {
	const out = [];
	const shown = (e) => !!e && e.getClientRects().length > 0 && e.getBoundingClientRect().width > 0;
	const name = (e) => (e.id ? '#' + e.id : e.tagName.toLowerCase()) + ' "' + e.textContent.trim().slice(0, 20) + '"';
	const box = (r) => [r.left, r.right, r.top, r.bottom].map(Math.round).join(',');
	const inside = (e, c, what) => {
		const r = e.getBoundingClientRect(), q = c.getBoundingClientRect ? c.getBoundingClientRect() : c;
		if (r.left < q.left - 0.5 || r.right > q.right + 0.5 || r.top < q.top - 0.5 || r.bottom > q.bottom + 0.5) out.push(name(e) + ' (' + box(r) + ') leaves ' + what + ' (' + box(q) + ')');
	};
	const apart = (els, what) => {
		els = els.filter(shown);
		for (let i = 0; i < els.length; i++) for (let j = i + 1; j < els.length; j++) {
			const a = els[i].getBoundingClientRect(), b = els[j].getBoundingClientRect();
			if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) out.push(what + ': ' + name(els[i]) + ' over ' + name(els[j]));
		}
	};
	const uncut = (e) => { if (e.scrollWidth > e.clientWidth + 1) out.push(name(e) + ' cut (' + e.scrollWidth + 'px in ' + e.clientWidth + 'px)'); };
	// The width of e's text (a field's placeholder or the option chosen) in its font.
	const ctx = document.createElement('canvas').getContext('2d');
	const textFits = (e, text, extra) => {
		const cs = getComputedStyle(e);
		ctx.font = cs.font;
		const room = e.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - extra;
		if (ctx.measureText(text).width > room + 0.5) out.push(name(e) + ': "' + text + '" cut (' + Math.ceil(ctx.measureText(text).width) + 'px in ' + Math.floor(room) + 'px)');
	};
	const $ = (s) => document.querySelector(s);
	const win = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
	if (document.documentElement.scrollWidth > innerWidth) out.push('the page scrolls sideways (' + document.documentElement.scrollWidth + 'px)');
	const cols = [$('#sidebar'), $('#center'), $('#panel')];
	for (const c of cols) inside(c, win, 'the window');
	apart(cols, 'columns');
	// The agent list's search and filters.
	const side = $('#sidebar');
	for (const e of [$('#search'), $('#filter-tree'), $('#filter-status'), $('#list-info')]) inside(e, side, 'the list');
	apart([$('#search'), $('#filter-tree'), $('#filter-status')], 'filters');
	textFits($('#search'), $('#search').placeholder, 0);
	// (A select's arrow takes 20 px.)
	for (const e of [$('#filter-tree'), $('#filter-status')]) textFits(e, e.selectedOptions[0].text, 20);
	for (const chip of document.querySelectorAll('#tree-counts .chip')) inside(chip, side, 'the list');
	const list = $('#agent-list');
	const lr = list.getBoundingClientRect();
	for (const li of Array.from(list.children).slice(0, 30)) {
		const r = li.getBoundingClientRect();
		if (r.left < lr.left - 0.5 || r.right > lr.right + 0.5) out.push('entry ' + name(li) + ' (' + box(r) + ') leaves the list (' + box(lr) + ')');
		for (const k of li.children) if (shown(k) && (k.getBoundingClientRect().right > r.right + 0.5)) out.push(name(k) + ' leaves its entry');
	}
	// The agent bar.
	const bar = $('#agent-bar');
	const parts = Array.from(bar.querySelectorAll('h2, .pill, #agent-label, button, .button, input')).filter(shown);
	for (const e of parts) inside(e, bar, 'the agent bar');
	apart(parts, 'agent bar');
	for (const e of parts) if (e.id !== 'agent-label' && e.tagName !== 'INPUT') uncut(e);
	// The tabs.
	for (const b of document.querySelectorAll('.tabs button')) { inside(b, $('#panel'), 'the panel'); uncut(b); }
	// The timeline.
	const tl = Array.from(document.querySelectorAll('.tl-head > :not(#play-ctl), #play-ctl > *')).filter(shown);
	for (const e of tl) inside(e, $('#timeline'), 'the timeline');
	apart(tl, 'timeline');
	// The view's buttons, and the banner of an earlier tick.
	const view = Array.from($('#view-controls').children).concat([$('#past')]).filter(shown);
	for (const e of view) inside(e, $('#tree-wrap'), 'the view');
	apart(view, 'view');
	return out.join('; ');
})()`

// checkNarrowWindows checks the page at 1400, 1000, 900 and 800 px wide
// with the agent bar's controls and a breakpoint's Clear button, live and
// scrubbed back (the history banner over the view):
// nothing that matters is cut, leaves its panel or lies over another
// (layoutProblems). At 800 px the agent list's search field and filters
// are in the window, left of the tree's column, their text in full.
func checkNarrowWindows(t *testing.T, ctx context.Context, base string) {
	defer bt.Run(t, ctx, chromedp.EmulateViewport(1024, 768))
	// A breakpoint that never stops it (a leaf fires no abort): its Clear
	// button shows.
	control(t, base, "POST", "/api/agents/1/breakpoints", `{"node": 3, "on": ["abort"]}`)
	defer control(t, base, "DELETE", "/api/agents/1/breakpoints", "")
	for _, width := range []int64{1400, 1000, 900, 800} {
		bt.Run(t, ctx, chromedp.EmulateViewport(width, 700))
		openLive(t, ctx, base, 1, 3)
		bt.Wait(t, ctx, "Clear breakpoints and the list", `!document.querySelector('#btn-clear-bps').hidden && document.querySelectorAll('#agent-list li[data-id]').length >= 3`, 5*time.Second)
		// Live, then an earlier tick (its banner over the view).
		for _, past := range []bool{false, true} {
			if past {
				bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
				bt.Wait(t, ctx, "the banner of an earlier tick", `!document.querySelector('#past').hidden`, 5*time.Second)
			}
			if p := bt.Eval[string](t, ctx, layoutProblems); p != "" {
				bt.Screenshot(t, ctx, fmt.Sprintf("narrow-%d.png", width), artifacts)
				t.Errorf("at %d px (past %v): %s", width, past, p)
			}
		}
	}
	// At 800 px: the agent list's search and filters in the window, left
	// of the tree.
	got := bt.Eval[string](t, ctx, `(() => {
		const tree = document.querySelector('#tree-wrap').getBoundingClientRect();
		return ['#search', '#filter-tree', '#filter-status'].map((s) => {
			const r = document.querySelector(s).getBoundingClientRect();
			return r.width > 0 && r.left >= 0 && r.top >= 0 && r.bottom <= innerHeight && r.right <= tree.left ? '' : s + ' at ' + [r.left, r.right, r.top, r.bottom].map(Math.round) + ', the tree from ' + Math.round(tree.left);
		}).filter((s) => s).join('; ');
	})()`)
	if got != "" {
		t.Errorf("at 800 px: %s", got)
	}
}

// labelledSession serves a session of 8 walkers (running, always) whose
// labels, long and changing with every tick as the village demo's do, are
// Options.Label's; agent 7's is short and stays. It is ticked at 20 Hz
// until the test ends.
func labelledSession(t *testing.T, ctx context.Context) string {
	walk, err := arbor.Compile(&arbor.Document{Main: "Walk", Trees: map[string]*arbor.Node{
		"Walk": arbor.Sequence(arbor.Set("mode", "walking"), arbor.WaitTicks(1<<30)),
	}}, arbor.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	m := arbor.NewManager(arbor.WithWorkers(1))
	for range 8 {
		m.Add(walk)
	}
	var ticks atomic.Int64
	label := func(a *arbor.Agent) string {
		if a.ID() == 7 {
			return "monster 1 · calm"
		}
		n := ticks.Load()
		return fmt.Sprintf("villager %d · walking to the Restaurant · food %d water %d energy %d mood %d money %d",
			a.ID(), 50+n%40, 40+n%30, 90-n%50, 60+n%7, 100+n)
	}
	s := NewSession(m, Options{Label: label, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(s.Handler())
	tctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		bt.TickEvery(tctx, 50*time.Millisecond, func(now time.Duration) { s.Tick(now); ticks.Add(1) })
	}()
	t.Cleanup(func() {
		// The page's stream would hold Close up.
		bt.Run(t, ctx, chromedp.Navigate("about:blank"))
		stop()
		<-done
		srv.CloseClientConnections()
		srv.Close()
		m.Close()
	})
	return srv.URL
}

// entryLabel describes agent id's entry in the list: whether the text of
// its id and label is shown in full (not cut, not clamped), its height in
// lines, the label, and the entry's tooltip.
func entryLabel(id int) string {
	return fmt.Sprintf(`(() => {
		const li = document.querySelector('#agent-list li[data-id="%d"]');
		if (!li) return null;
		const text = li.querySelector('.atext');
		const lh = parseFloat(getComputedStyle(text).lineHeight);
		return { full: text.scrollHeight <= text.clientHeight + 1 && text.scrollWidth <= text.clientWidth + 1,
			lines: Math.round(text.clientHeight / lh), label: li.querySelector('.alabel').textContent, title: li.title,
			inList: li.getBoundingClientRect().right <= document.querySelector('#agent-list').getBoundingClientRect().right + 0.5 };
	})()`, id)
}

type entryState struct {
	Full         bool
	Lines        int
	Label, Title string
	InList       bool
}

// checkAgentLabels checks agents' labels in the list at 900 px: a long
// label wraps in two lines at most (the list stays compact) and is in the
// entry's tooltip, whose entry stays the same element as the label
// changes (the tooltip stays up); the open agent's entry, and an entry
// focused with the keys, show the label in full; a short label is shown
// in full, on one line. The agent bar's label has it in its tooltip.
func checkAgentLabels(t *testing.T, ctx context.Context) {
	bt.Run(t, ctx, chromedp.EmulateViewport(900, 700))
	defer bt.Run(t, ctx, chromedp.EmulateViewport(1024, 768))
	base := labelledSession(t, ctx)
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=2"))
	bt.Wait(t, ctx, "agent 2 open, the list", `document.querySelector('#agent-title').textContent.startsWith('Agent #2 ') &&
		document.querySelectorAll('#agent-list li[data-id]').length === 8 && document.querySelector('#agent-label').textContent.startsWith('villager 2 ')`, 10*time.Second)
	entry := func(id int) entryState {
		t.Helper()
		return bt.Eval[entryState](t, ctx, entryLabel(id))
	}
	long := func(id int, e entryState) {
		t.Helper()
		if !strings.HasPrefix(e.Label, fmt.Sprintf("villager %d · walking to the Restaurant · food ", id)) || !strings.Contains(e.Label, " money ") {
			t.Fatalf("agent %d's label %q", id, e.Label)
		}
		if !strings.Contains(e.Title, e.Label) {
			t.Errorf("agent %d's entry: tooltip %q, label %q", id, e.Title, e.Label)
		}
		if !e.InList {
			t.Errorf("agent %d's entry leaves the list", id)
		}
	}
	// The open agent: its label in full.
	open := entry(2)
	long(2, open)
	if !open.Full || open.Lines < 3 {
		bt.Screenshot(t, ctx, "labels-900.png", artifacts)
		t.Errorf("the open agent's entry: %+v, want its label in full (on 3 lines or more at 900 px)", open)
	}
	// The others: two lines, the rest in the tooltip.
	other := entry(0)
	long(0, other)
	if other.Lines != 2 {
		bt.Screenshot(t, ctx, "labels-900.png", artifacts)
		t.Errorf("another agent's entry: %d lines, want 2", other.Lines)
	}
	if short := entry(7); !short.Full || short.Lines != 1 || short.Label != "monster 1 · calm" {
		t.Errorf("agent 7's entry: %+v, want its short label in full on one line", short)
	}
	if title := bt.Eval[string](t, ctx, `document.querySelector('#agent-label').title`); !strings.HasPrefix(title, "villager 2 · walking to the Restaurant · food ") {
		t.Errorf("the agent bar's label: tooltip %q", title)
	}

	// The label changes (every tick): the entry stays, its text and tooltip
	// change.
	bt.Run(t, ctx, chromedp.Evaluate(`window.__entry = document.querySelector('#agent-list li[data-id="0"]'); window.__was = window.__entry.title`, nil))
	bt.Wait(t, ctx, "agent 0's label changed", `document.querySelector('#agent-list li[data-id="0"]').title !== window.__was`, 5*time.Second)
	if !bt.Eval[bool](t, ctx, `document.querySelector('#agent-list li[data-id="0"]') === window.__entry`) {
		t.Error("agent 0's entry was redrawn when its label changed: a tooltip shown would go")
	}
	long(0, entry(0))

	// An entry focused with the keys: its label in full.
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#agent-list li[data-id="2"]').focus()`, nil), chromedp.KeyEvent(kb.ArrowDown))
	bt.Wait(t, ctx, "agent 3's entry focused", `document.activeElement.dataset.id === '3'`, 5*time.Second)
	if e := entry(3); !e.Full || e.Lines < 3 {
		t.Errorf("agent 3's entry, focused: %+v, want its label in full", e)
	}
	if e := entry(0); e.Lines != 2 {
		t.Errorf("agent 0's entry, not focused: %d lines, want 2", e.Lines)
	}
}

// checkTimelineLabel checks that the timeline's label names the tick
// shown as the rest of the page does (the header's count, the history
// banner, the tick field), then its record (the strip's and the slider's
// number), each number said for what it is: "tick N (record S)"; the
// strip's tooltip and the node's history say the same.
func checkTimelineLabel(t *testing.T, ctx context.Context, base string) {
	openLive(t, ctx, base, 1, 6)
	// shown is the tick and the record of the label, and the tick of that
	// record in the page's timeline.
	shown := `(() => {
		const m = /^(live|history) · tick (\d+) \(record (\d+)\) · t=/.exec(document.querySelector('#tl-label').textContent);
		if (!m) return null;
		const row = S.timeline.find((t) => t[0] === Number(m[3]));
		return [Number(m[2]), Number(m[3]), row ? row[1] : -1];
	})()`
	bt.Wait(t, ctx, "live: tick and record", shown+` !== null`, 5*time.Second)
	if v := bt.Eval[[]int](t, ctx, shown); v[0] != v[2] {
		t.Errorf("live: the label's tick %d, its record %d's %d", v[0], v[1], v[2])
	}
	if title := bt.Eval[string](t, ctx, `document.querySelector('#tl-label').title`); !strings.Contains(title, "tick: the session's tick count") || !strings.Contains(title, "record: ") {
		t.Errorf("the label's tooltip says not what the numbers are: %q", title)
	}
	bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowLeft))
	// (Settled: the record of the second ←, where the slider is.)
	bt.Wait(t, ctx, "history: the banner", `document.querySelector('#tl-label').textContent.startsWith('history · tick ') && !document.querySelector('#past').hidden &&
		(/\(record (\d+)\)/.exec(document.querySelector('#tl-label').textContent) || [])[1] === document.querySelector('#tl-range').value`, 5*time.Second)
	v := bt.Eval[[]int](t, ctx, shown)
	tick, seq := v[0], v[1]
	if tick != v[2] {
		t.Errorf("history: the label's tick %d, its record %d's %d", tick, seq, v[2])
	}
	if b := bt.Eval[string](t, ctx, `document.querySelector('#past').textContent`); !strings.HasPrefix(b, fmt.Sprintf("Viewing tick %d ", tick)) {
		t.Errorf("the label shows tick %d (record %d), the banner %q", tick, seq, b)
	}
	// The tick typed in the tick field, from the live view: that record.
	bt.Run(t, ctx, chromedp.Click("#btn-live", chromedp.ByID))
	bt.Wait(t, ctx, "live again", `document.querySelector('#tl-label').textContent.startsWith('live · ')`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SetValue("#tl-goto", "", chromedp.ByID), chromedp.SendKeys("#tl-goto", fmt.Sprintf("%d\n", tick), chromedp.ByID))
	bt.Wait(t, ctx, "the tick typed shown", fmt.Sprintf(`document.querySelector('#tl-label').textContent.startsWith('history · tick %d (record %d) · ')`, tick, seq), 5*time.Second)
	// The strip's tooltip over the record shown.
	strip := bt.Eval[string](t, ctx, fmt.Sprintf(`(() => {
		const c = document.querySelector('#tl-strip'), r = c.getBoundingClientRect();
		for (let x = 0; x < c.clientWidth; x++) {
			const row = stripAt(x);
			if (row && row[0] === %d) {
				c.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + x + 0.5, clientY: r.top + 10, bubbles: true }));
				return c.title;
			}
		}
		return 'no bar of record %d';
	})()`, seq, seq))
	want := fmt.Sprintf("tick %d (record %d) · ", tick, seq)
	if !strings.HasPrefix(strip, want) {
		t.Errorf("the strip's tooltip %q, want it to start %q", strip, want)
	}
	// The node's history: its cell of the record shown.
	bt.Run(t, ctx, chromedp.Evaluate(`selectNode(0)`, nil))
	bt.Wait(t, ctx, "the node's history", `!document.querySelector('#node-hist').hidden && S.nodeHist && S.nodeHist.st.length > 0`, 5*time.Second)
	cell := bt.Eval[string](t, ctx, fmt.Sprintf(`(() => {
		const c = document.querySelector('#nh-strip'), r = c.getBoundingClientRect();
		const L = nhLayout(c.clientWidth);
		const i = S.timeline.findIndex((t) => t[0] === %d);
		c.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + (i %% L.cols) * L.cw + 1, clientY: r.top + Math.floor(i / L.cols) * L.rh + 2, bubbles: true }));
		return c.title;
	})()`, seq))
	if !strings.HasPrefix(cell, want) {
		t.Errorf("the node history's tooltip %q, want it to start %q", cell, want)
	}
	bt.Run(t, ctx, chromedp.Click("#btn-live", chromedp.ByID))
}
