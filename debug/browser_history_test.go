package debug

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	bt "github.com/arborbt/arbor/internal/browsertest"
)

// The tests of the Node tab's history of the selected node and of
// playback (node-history.js, playback.js).

// nodeHistCells is, for the Node tab's history strip, the colour of each
// cell it has room for (#rrggbb in the middle of the cell's coloured
// part, "" where nothing is drawn) and the records of the page's
// timeline, whose order the cells follow.
const nodeHistCells = `(() => {
	const c = document.querySelector('#nh-strip');
	const L = nhLayout(c.clientWidth);
	const ctx = c.getContext('2d');
	const cells = [];
	for (let i = 0; i < L.n; i++) {
		const x = Math.floor((i % L.cols) * L.cw + L.cw / 2), y = Math.floor(i / L.cols) * L.rh + Math.floor(L.rh / 2) - 1;
		const d = ctx.getImageData(x, y, 1, 1).data;
		cells.push(d[3] === 0 ? '' : '#' + [d[0], d[1], d[2]].map((v) => v.toString(16).padStart(2, '0')).join(''));
	}
	return JSON.stringify({ cells, seqs: S.timeline.map((t) => t[0]) });
})()`

// cellColour is the colour of a cell of a node in status letter st: the
// page's status colours, faded (30% strong) when not visited, white when
// idle.
func cellColour(st byte) string {
	rgb := map[byte][3]int{'r': {0xf0, 0xa0, 0x20}, 's': {0x1c, 0x7f, 0x50}, 'f': {0xd1, 0x3f, 0x35}, 'h': {0x6b, 0x74, 0x80}}
	c, ok := rgb[st|0x20]
	if st == '.' || !ok {
		return "#ffffff"
	}
	if st >= 'a' {
		for i, v := range c {
			c[i] = (v*3 + 255*7 + 5) / 10
		}
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// nodeHistory is what api/agents/{id}/nodes/{node}/history answers.
type nodeHistory struct {
	First, Last, From uint64
	Statuses, Events  string
}

func getNodeHistory(t *testing.T, base string, agent, node int) nodeHistory {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("%s/api/agents/%d/nodes/%d/history", base, agent, node))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v nodeHistory
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("node history: %d %v", resp.StatusCode, err)
	}
	return v
}

// checkStrip waits until the strip shows statuses, a letter per record
// from record first on: a cell per record in that order, coloured by the
// letter, and nothing after them.
func checkStrip(t *testing.T, ctx context.Context, what string, first uint64, statuses string) {
	t.Helper()
	want := struct {
		Cells []string `json:"cells"`
		Seqs  []uint64 `json:"seqs"`
	}{Cells: []string{}, Seqs: []uint64{}}
	for i := range statuses {
		want.Cells = append(want.Cells, cellColour(statuses[i]))
		want.Seqs = append(want.Seqs, first+uint64(i))
	}
	exp, _ := json.Marshal(want)
	// The cells past the records are empty: as many as the strip has
	// room for beyond them.
	cond := fmt.Sprintf(`(() => { const got = JSON.parse(%s), want = %s;
		return JSON.stringify(got.seqs) === JSON.stringify(want.seqs) && got.cells.length >= want.cells.length &&
			JSON.stringify(got.cells.slice(0, want.cells.length)) === JSON.stringify(want.cells) &&
			got.cells.slice(want.cells.length).every((c) => c === ''); })()`, nodeHistCells, exp)
	for deadline := time.Now().Add(5 * time.Second * bt.Slack); !bt.Eval[bool](t, ctx, cond); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			bt.Screenshot(t, ctx, "node-history.png", artifacts)
			t.Fatalf("%s: the strip shows %s\nwant %s", what, bt.Eval[string](t, ctx, nodeHistCells), exp)
		}
	}
}

// clickCell clicks the strip's cell of the i-th record of the timeline.
func clickCell(t *testing.T, ctx context.Context, i int) {
	t.Helper()
	at := bt.Eval[[]float64](t, ctx, fmt.Sprintf(`(() => { const c = document.querySelector('#nh-strip'); const r = c.getBoundingClientRect();
		const L = nhLayout(c.clientWidth);
		return [r.left + (%[1]d %% L.cols) * L.cw + L.cw / 2, r.top + Math.floor(%[1]d / L.cols) * L.rh + L.rh / 2 - 1]; })()`, i))
	bt.Run(t, ctx, chromedp.MouseClickXY(at[0], at[1]))
}

// jump clicks one of the strip's buttons (jump: change, failure, start,
// halt; dir -1 or 1).
func jump(t *testing.T, ctx context.Context, kind string, dir int) {
	t.Helper()
	bt.Click(t, ctx, fmt.Sprintf(`#node-hist button[data-jump="%s"][data-dir="%d"]`, kind, dir))
}

// find is the last record before (dir -1) or the first after (dir 1)
// record seq whose index in h satisfies ok, or 0.
func (h nodeHistory) find(seq uint64, dir int, ok func(i int) bool) uint64 {
	for s := int(seq) + dir; s >= int(h.From) && s < int(h.From)+len(h.Statuses); s += dir {
		if ok(s - int(h.From)) {
			return uint64(s)
		}
	}
	return 0
}

// checkNodeHistory checks the Node tab's strip of the selected node on a
// live agent (the sentry): it keeps up with the history while the agent
// runs; paused, it has a cell per record coloured as the API's statuses
// say; a click on a cell shows that record, and the buttons go to the
// previous and next record in which the node failed or its status
// changed.
func checkNodeHistory(t *testing.T, ctx context.Context, base string) {
	openLive(t, ctx, base, 1, 10)
	investigate, patrol := nodeNamed(t, ctx, "investigate"), nodeNamed(t, ctx, "patrol")
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`selectNode(%d)`, investigate), nil))
	bt.Wait(t, ctx, "the strip in the Node tab", `!document.querySelector('#tab-node').hidden && !document.querySelector('#node-hist').hidden`, 5*time.Second)
	// Live, the statuses held follow the history as it moves on (a
	// request for the new records after each update).
	for i := 0; i < 3; i++ {
		seq := bt.Eval[int](t, ctx, `S.timeline[S.timeline.length - 1][0]`) + 2
		bt.Wait(t, ctx, fmt.Sprintf("the statuses held up to record %d", seq), fmt.Sprintf(`(() => { const h = S.nodeHist, tl = S.timeline;
			return !!h && nhLast(h) >= %d && nhLast(h) >= tl[tl.length - 1][0] - 3 && h.first <= tl[0][0]; })()`, seq), 5*time.Second)
	}

	// Paused, the history stands still: the strip is compared with it.
	t.Cleanup(func() { control(t, base, "POST", "/api/agents/1/resume", "{}") })
	control(t, base, "POST", "/api/agents/1/pause", "{}")
	h := getNodeHistory(t, base, 1, investigate)
	bt.Wait(t, ctx, "paused at the newest record", fmt.Sprintf(`document.querySelector('#agent-status').textContent === 'paused' && (/^live · paused · tick \d+ \(record (\d+)\)/.exec(%s) || [])[1] === '%d'`, tlLabel, h.Last), 5*time.Second)
	if h.From != h.First || len(h.Statuses) != int(h.Last-h.First+1) || !strings.Contains(h.Statuses, "F") {
		t.Fatalf("investigate's history: %+v, want failures in it", h)
	}
	checkStrip(t, ctx, "investigate, live", h.From, h.Statuses)
	if got := bt.Eval[string](t, ctx, fmt.Sprintf(`S.shown.nodes[%d]`, investigate)); got != h.Statuses[len(h.Statuses)-1:] {
		t.Errorf("live: the tree shows %q, the strip's last cell %q", got, h.Statuses[len(h.Statuses)-1:])
	}

	// A click on a cell shows its record.
	i := len(h.Statuses) - 15
	clickCell(t, ctx, i)
	at := h.From + uint64(i)
	bt.Wait(t, ctx, "the record clicked shown", fmt.Sprintf(`(/^history · tick \d+ \(record (\d+)\)/.exec(%s) || [])[1] === '%d'`, tlLabel, at), 5*time.Second)

	// ◀ failure, failure ▶: records in which the node failed.
	failed := func(i int) bool { return h.Statuses[i] == 'F' }
	for _, dir := range []int{-1, -1, 1} {
		want := h.find(at, dir, failed)
		if want == 0 {
			if !bt.Eval[bool](t, ctx, fmt.Sprintf(`document.querySelector('#node-hist button[data-jump="failure"][data-dir="%d"]').disabled`, dir)) {
				t.Errorf("no failure that way of record %d (dir %d), and the button is enabled", at, dir)
			}
			continue
		}
		jump(t, ctx, "failure", dir)
		bt.Wait(t, ctx, fmt.Sprintf("failure %+d from record %d: record %d", dir, at, want), fmt.Sprintf(`(/^history · tick \d+ \(record (\d+)\)/.exec(%s) || [])[1] === '%d'`, tlLabel, want), 5*time.Second)
		if st := bt.Eval[string](t, ctx, fmt.Sprintf(`S.shown.nodes[%d]`, investigate)); st != "F" {
			t.Errorf("record %d: investigate %q, want F (failed in it)", want, st)
		}
		at = want
	}

	// ◀ change on the patrol (running, then its result).
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`selectNode(%d)`, patrol), nil))
	p := getNodeHistory(t, base, 1, patrol)
	checkStrip(t, ctx, "patrol", p.From, p.Statuses)
	changed := func(i int) bool { return i > 0 && p.Statuses[i]|0x20 != p.Statuses[i-1]|0x20 }
	want := p.find(at, -1, changed)
	if want == 0 {
		t.Fatalf("patrol: no change before record %d: %s", at, p.Statuses)
	}
	jump(t, ctx, "change", -1)
	bt.Wait(t, ctx, fmt.Sprintf("◀ change: record %d", want), fmt.Sprintf(`(/^history · tick \d+ \(record (\d+)\)/.exec(%s) || [])[1] === '%d'`, tlLabel, want), 5*time.Second)
	if title := bt.Eval[string](t, ctx, `document.querySelector('#node-hist button[data-jump="change"][data-dir="1"]').title`); !strings.HasPrefix(title, "Next record in which its status changed: tick ") {
		t.Errorf("change ▶'s tooltip: %q", title)
	}
}

// playEnded records, in window.__played, the records the label names
// while playback runs, and in window.__stopped when it stopped (the
// button says Play again).
const playWatch = `(() => {
	window.__played = []; window.__stopped = 0; window.__started = performance.now();
	if (window.__watching) return;
	window.__watching = true;
	const seen = () => { const m = /record (\d+)/.exec(document.querySelector('#tl-label').textContent); if (m) window.__played.push(Number(m[1])); };
	new MutationObserver(seen).observe(document.querySelector('#tl-label'), { childList: true, characterData: true, subtree: true });
	new MutationObserver(() => { if (!S.play.on && !window.__stopped) window.__stopped = performance.now(); })
		.observe(document.querySelector('#btn-play'), { childList: true, characterData: true, subtree: true, attributes: true });
})()`

// setSpeed chooses a playback speed.
func setSpeed(t *testing.T, ctx context.Context, speed string) {
	t.Helper()
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`(() => { const s = document.querySelector('#play-speed'); s.value = %q; s.dispatchEvent(new Event('change')); })()`, speed), nil))
}

// checkPlayback checks ▶ Play on a live agent's history (paused, so that
// its newest record stays put): it steps through the records and goes
// live at the newest; a scrub stops it. In a recording, it plays at the
// recorded pace, up to the end, where it stops; the node's strip there
// has a cell per recorded tick.
func checkPlayback(t *testing.T, ctx context.Context, base string) {
	openLive(t, ctx, base, 1, 40)
	t.Cleanup(func() { control(t, base, "POST", "/api/agents/1/resume", "{}") })
	control(t, base, "POST", "/api/agents/1/pause", "{}")
	newest := getNodeHistory(t, base, 1, 0).Last
	bt.Wait(t, ctx, "paused at the newest record", fmt.Sprintf(`(/^live · paused · tick \d+ \(record (\d+)\)/.exec(%s) || [])[1] === '%d'`, tlLabel, newest), 5*time.Second)
	playing := `S.play.on && document.querySelector('#btn-play').textContent === '⏸ Pause'`
	stopped := `!S.play.on && document.querySelector('#btn-play').textContent === '▶ Play'`

	// From 30 records back, at 4×: on to the newest, then live.
	from := newest - 30
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`scrubTo(%d)`, from), nil))
	bt.Wait(t, ctx, "scrubbed back", fmt.Sprintf(`(/^history · tick \d+ \(record (\d+)\)/.exec(%s) || [])[1] === '%d'`, tlLabel, from), 5*time.Second)
	setSpeed(t, ctx, "4")
	bt.Run(t, ctx, chromedp.Evaluate(playWatch, nil))
	bt.Click(t, ctx, "#btn-play")
	bt.Wait(t, ctx, "playing: the record shown moves on", fmt.Sprintf(`%s > %d`, tlRecord, from+2), 5*time.Second)
	bt.Wait(t, ctx, "played to the newest record: live, stopped", fmt.Sprintf(`(/^live · paused · tick \d+ \(record (\d+)\)/.exec(%s) || [])[1] === '%d' && S.live && %s`, tlLabel, newest, stopped), 10*time.Second)
	if got := bt.Eval[[]int](t, ctx, `Array.from(new Set(window.__played))`); len(got) < 20 {
		t.Errorf("played records %v, want the 30 on the way", got)
	}

	// A scrub stops it, at 1×.
	setSpeed(t, ctx, "1")
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`scrubTo(%d)`, from), nil))
	bt.Wait(t, ctx, "scrubbed back", fmt.Sprintf(`(/^history · tick \d+ \(record (\d+)\)/.exec(%s) || [])[1] === '%d'`, tlLabel, from), 5*time.Second)
	bt.Click(t, ctx, "#btn-play")
	bt.Wait(t, ctx, "playing at 1×", fmt.Sprintf(`%s && %s >= %d`, playing, tlRecord, from+3), 5*time.Second)
	bt.Click(t, ctx, "#btn-prev")
	bt.Wait(t, ctx, "◀ stops playback, and shows the record before", stopped+` && `+tlLabel+`.startsWith('history · tick ') &&
		S.scrubWait < 0 && S.shown.seq === S.scrubSeq && `+tlRecord+` === S.scrubSeq`, 5*time.Second)
	at := bt.Eval[int](t, ctx, tlRecord)
	time.Sleep(300 * time.Millisecond) // what playback would have moved on by (6 records)
	if got := bt.Eval[int](t, ctx, tlRecord); got != at || bt.Eval[bool](t, ctx, `S.play.on`) {
		t.Errorf("after ◀, the record shown went from %d to %d", at, got)
	}

	// A recording: the agent's export, opened in the page.
	bt.Run(t, ctx, chromedp.Evaluate(`fetch('api/agents/1/export').then((r) => r.json()).then((d) => { window.__rec = d; openRecording(d, 'agent-1.json'); })`, nil))
	bt.Wait(t, ctx, "the recording shown", `!!window.__rec && `+tlLabel+`.startsWith('recording · tick ' + window.__rec.ticks[window.__rec.ticks.length - 1].tick + ' (record ' + window.__rec.ticks[window.__rec.ticks.length - 1].seq + ') ')`, 5*time.Second)
	investigate := nodeNamed(t, ctx, "investigate")
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`selectNode(%d)`, investigate), nil))
	first := bt.Eval[uint64](t, ctx, `window.__rec.ticks[0].seq`)
	checkStrip(t, ctx, "recording", first, bt.Eval[string](t, ctx, fmt.Sprintf(`window.__rec.ticks.map((t) => t.nodes[%d]).join('')`, investigate)))

	// From 20 ticks before the end, at 4×: the recorded pace (50 ms a
	// tick, 12.5 ms at 4×) up to the end, where it stops.
	last := bt.Eval[int](t, ctx, `window.__rec.ticks[window.__rec.ticks.length - 1].seq`)
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`scrubTo(%d)`, last-20), nil))
	bt.Wait(t, ctx, "scrubbed back", fmt.Sprintf(`(/^recording · tick \d+ \(record (\d+)\)/.exec(%s) || [])[1] === '%d'`, tlLabel, last-20), 5*time.Second)
	setSpeed(t, ctx, "4")
	bt.Run(t, ctx, chromedp.Evaluate(playWatch, nil))
	bt.Click(t, ctx, "#btn-play")
	bt.Wait(t, ctx, "played to the recording's end, stopped", fmt.Sprintf(`(/^recording · tick \d+ \(record (\d+)\)/.exec(%s) || [])[1] === '%d' && %s && window.__stopped > 0`, tlLabel, last, stopped), 10*time.Second)
	if got, want := bt.Eval[[]int](t, ctx, `window.__played`), last-20+1; len(got) != 20 || got[0] != want || got[19] != last {
		t.Errorf("played records %v, want %d to %d in turn", got, want, last)
	}
	// Each step waits the records' game times apart / 4, clamped (timers
	// never fire early): 12.5 ms a tick at least.
	pace := bt.Eval[float64](t, ctx, `(() => { const tk = window.__rec.ticks, n = tk.length; let ms = 0;
		for (let i = n - 21; i < n - 1; i++) ms += Math.min(PLAY_MAX_MS, Math.max(PLAY_MIN_MS, (tk[i + 1].nowMs - tk[i].nowMs) / 4));
		return ms; })()`)
	if took := bt.Eval[float64](t, ctx, `window.__stopped - window.__started`); pace < 200 || took < pace-5 {
		t.Errorf("20 ticks played in %.0f ms at 4×, want the recorded pace (%.0f ms)", took, pace)
	}
}
