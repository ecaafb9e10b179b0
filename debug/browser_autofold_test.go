package debug

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	bt "github.com/arborbt/arbor/internal/browsertest"
)

// Expressions of the Auto-collapse button: pressed (its look and its ARIA
// state agreeing), and the choice kept.
const (
	autoPressed = `(() => { const b = document.querySelector('#btn-fold-auto');
		const on = b.classList.contains('on');
		return b.getAttribute('aria-pressed') === String(on) ? on : 'disagree'; })()`
	autoKept = `localStorage.getItem('arbor-autofold')`
)

// drawn says whether node id is drawn.
func drawn(id int) string {
	return fmt.Sprintf(`!!document.querySelector('#tree g.node[data-id="%d"]')`, id)
}

// checkAutoFold checks Auto-collapse on the wide tree (agent 0): the
// button (and the key A) turns it on, kept in localStorage; the tree then
// shows the root, its children and the running branch, and follows the
// running path as it moves (a branch just left stays open a while), the
// node selected staying where it is on the screen through every redraw; a
// node the user expands or collapses stays so until it is turned off; a
// node selected, with a breakpoint or forced is shown; a tick of the
// history is collapsed by its own running nodes; C forgets what the user
// expanded; a reload keeps it on; Expand all (E) turns it off.
func checkAutoFold(t *testing.T, ctx context.Context, base string, mode *atomic.Int32) {
	mode.Store(modePatrol)
	defer mode.Store(modePatrol)
	defer bt.Run(t, ctx, chromedp.Evaluate(`localStorage.removeItem('arbor-autofold')`, nil))
	d := serverLayout(t, base, 0)
	kids := d.Nodes[0].Children
	if len(d.Nodes) != 216 || len(kids) != 54 {
		t.Fatalf("wide tree: %d nodes, %d under the root", len(d.Nodes), len(kids))
	}
	flee, chase, patrol := kids[0], kids[52], kids[53]
	fleeLeaf := d.Nodes[flee].Children[1]
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"),
		chromedp.Evaluate(`localStorage.removeItem('arbor-autofold'); localStorage.removeItem('arbor-layout')`, nil),
		chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "the wide tree, whole, Auto off", treeNodes+` === 216 && `+autoPressed+` === false && document.querySelector('#btn-fold-auto').textContent === 'Auto'`, 10*time.Second)
	if title := bt.Eval[string](t, ctx, `document.querySelector('#btn-fold-auto').title`); !strings.Contains(title, "after every tick") || !strings.Contains(title, "(A)") {
		t.Errorf("the Auto button's title %q does not say what it does", title)
	}
	blur := chromedp.Evaluate(`document.activeElement && document.activeElement.blur()`, nil)
	find := func(id int) {
		t.Helper()
		bt.Run(t, ctx, chromedp.SetValue("#node-find", "", chromedp.ByID), chromedp.SendKeys("#node-find", d.Nodes[id].Path+"\n", chromedp.ByID))
		bt.Wait(t, ctx, "found, in view, still", fmt.Sprintf(`S.selected === %d && %s && sameView(S.view, viewGoal())`, id, nodeInView(id)), 5*time.Second)
		bt.Run(t, ctx, chromedp.SendKeys("#node-find", kb.Escape, chromedp.ByID), blur)
	}
	// Follow off: the view moves only as Auto-collapse moves it.
	bt.Run(t, ctx, chromedp.Evaluate(`S.follow && document.querySelector('#btn-follow').click()`, nil))
	find(chase)

	// Every redraw of the tree, and move of the view, noted: the selected
	// node's place in the view (of the node that shows it), and which of
	// flee and patrol are open. rebase starts the notes again, after the
	// test moved the view itself.
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`(() => {
		window.__log = [];
		window.__note = () => {
			const r = document.querySelector('#tree g.node[data-id="' + shownAt(S.selected) + '"] rect').getBoundingClientRect();
			const v = document.querySelector('#tree').getBoundingClientRect(); // (bars above the tree move it)
			r.x -= v.x;
			r.y -= v.y;
			const open = (id) => ((document.querySelector('#tree g.fold[data-fold="' + id + '"] text') || {}).textContent === '−');
			window.__log.push({ at: performance.now(), sel: S.selected, x: r.x, y: r.y, flee: open(%d), patrol: open(%d) });
		};
		window.__note();
		new MutationObserver(window.__note).observe(document.querySelector('#viewport'), { childList: true, attributes: true, attributeFilter: ['transform'] });
	})()`, flee, patrol), nil))
	rebase := func() { bt.Run(t, ctx, chromedp.Evaluate(`window.__log = []; window.__note()`, nil)) }
	// stayed fails the test when the selected node moved in the view
	// since the notes began.
	stayed := func(when string) {
		t.Helper()
		moved := bt.Eval[[]string](t, ctx, `(() => { const l = window.__log, out = [];
			for (const e of l) if (e.sel !== l[0].sel || Math.abs(e.x - l[0].x) > 0.5 || Math.abs(e.y - l[0].y) > 0.5) out.push(e.sel + '@' + e.x.toFixed(1) + ',' + e.y.toFixed(1));
			if (out.length) out.unshift('at first ' + l[0].sel + '@' + l[0].x.toFixed(1) + ',' + l[0].y.toFixed(1));
			return out; })()`)
		if len(moved) > 0 {
			bt.Screenshot(t, ctx, "autofold-moved.png", artifacts)
			t.Errorf("%s: the selected node moved in the view (%d of %d redraws): %v", when, len(moved), bt.Eval[int](t, ctx, `window.__log.length`), moved)
		}
	}

	// A: on. The root, its 54 children and the patrol's 4 nodes.
	bt.Run(t, ctx, chromedp.KeyEvent("a"))
	bt.Wait(t, ctx, "Auto on: the idle branches collapsed", fmt.Sprintf(`%s === true && %s === 'on' && %s === 59 && %s === '−' && %s === '+2' && %s === '+2'`,
		autoPressed, autoKept, treeNodes, foldPill(patrol), foldPill(flee), foldPill(chase)), 5*time.Second)
	stayed("turned on")

	// Fleeing: the flee branch opens; the patrol, halted, stays open a
	// while (it changed), then closes.
	mode.Store(modeFlee)
	bt.Wait(t, ctx, "fleeing: flee open, patrol collapsed", fmt.Sprintf(`%s === '−' && %s && document.querySelector('#tree g.node[data-id="%d"]').dataset.status === 'running' && %s === '+4' && %s === 57`,
		foldPill(flee), drawn(fleeLeaf), fleeLeaf, foldPill(patrol), treeNodes), 10*time.Second)
	// The flee branch opened with the patrol still open, which closed
	// AUTO_RECENT (2 s) later, not before.
	if gap := bt.Eval[float64](t, ctx, `(() => { const l = window.__log;
		const both = l.find((e) => e.flee && e.patrol), alone = l.find((e) => e.flee && !e.patrol);
		return both && alone ? alone.at - both.at : -1; })()`); gap < 1500 {
		t.Errorf("the patrol closed %.0f ms after the flee branch opened: want it kept open a while (-1: never both open)", gap)
	}
	stayed("fleeing")

	// History: a tick in which the flee branch runs, shown after the
	// patrol came back, is collapsed by its own running nodes.
	// (Waited for: the flee leaf does not run in every tick, and the
	// checks above take a while on a loaded machine.)
	bt.Wait(t, ctx, "a tick shown in which the flee leaf runs", fmt.Sprintf(`(() => {
		if (!S.live || !S.shown || S.shown.nodes[%d] !== 'R') return false;
		window.__fleeSeq = S.shown.seq;
		return true; })()`, fleeLeaf), 5*time.Second)
	fleeSeq := bt.Eval[int](t, ctx, `window.__fleeSeq`)
	mode.Store(modePatrol)
	bt.Wait(t, ctx, "patrolling again: patrol open", foldPill(patrol)+` === '−'`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`(() => { const r = document.querySelector('#tl-range'); r.value = %d; r.dispatchEvent(new Event('input')); })()`, fleeSeq), nil))
	bt.Wait(t, ctx, "a fleeing tick of the history: flee open, patrol collapsed", fmt.Sprintf(`/^history · tick \d+ \(record %d\) /.test(%s) && %s === '−' && %s === '+4' && %s === 57`,
		fleeSeq, tlLabel, foldPill(flee), foldPill(patrol), treeNodes), 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.End))
	bt.Wait(t, ctx, "live: patrol open, flee collapsed", fmt.Sprintf(`%s.startsWith('live') && %s === '−' && %s === '+2' && %s === 59`,
		tlLabel, foldPill(patrol), foldPill(flee), treeNodes), 10*time.Second)
	stayed("through the history")

	// ticks waits until n more ticks were shown, live.
	ticks := func(n int) {
		t.Helper()
		from := bt.Eval[int](t, ctx, tlRecord)
		bt.Wait(t, ctx, fmt.Sprintf("%d more ticks", n), fmt.Sprintf(`%s.startsWith('live · tick') && %s >= %d`, tlLabel, tlRecord, from+n), 10*time.Second)
	}
	// Expanded and collapsed by the user: they stay so.
	attack, attack2 := kids[1], kids[2]
	find(attack)
	pressFold(t, ctx, fmt.Sprintf(`document.querySelector('#tree g.fold[data-fold="%d"]')`, attack))
	bt.Wait(t, ctx, "an attack branch expanded", foldPill(attack)+` === '−' && `+treeNodes+` === 62`, 5*time.Second)
	find(patrol)
	pressFold(t, ctx, fmt.Sprintf(`document.querySelector('#tree g.fold[data-fold="%d"]')`, patrol))
	bt.Wait(t, ctx, "the running patrol collapsed", foldPill(patrol)+` === '+4' && `+treeNodes+` === 58`, 5*time.Second)
	find(chase) // the others selected no more
	rebase()
	ticks(10)
	if got := bt.Eval[[]any](t, ctx, fmt.Sprintf(`[%s, %s, %s]`, foldPill(attack), foldPill(attack2), foldPill(patrol))); fmt.Sprint(got) != "[− +3 +4]" {
		t.Errorf("10 ticks after: attack branch, another one, patrol: %v, want [− +3 +4] (the user's choices kept)", got)
	}
	bt.Wait(t, ctx, "the patrol, collapsed, marked running", fmt.Sprintf(`%s === '+4' && document.querySelector('#tree g.node[data-id="%d"]').classList.contains('inner-running')`, foldPill(patrol), patrol), 5*time.Second)
	// C: what the user chose is forgotten.
	bt.Run(t, ctx, blur, chromedp.KeyEvent("c"))
	bt.Wait(t, ctx, "C: collapsed anew", fmt.Sprintf(`%s === '+3' && %s === '−' && %s === 59 && %s === true`, foldPill(attack), foldPill(patrol), treeNodes, autoPressed), 5*time.Second)
	stayed("the user's folds kept, then forgotten")

	// A hidden node selected, given a breakpoint or forced is shown while
	// it is.
	leafOf := func(branch int) int { return d.Nodes[branch].Children[2] }
	find(leafOf(kids[4]))
	bt.Wait(t, ctx, "the selected node shown", fmt.Sprintf(`%s && %s === '−'`, drawn(leafOf(kids[4])), foldPill(kids[4])), 5*time.Second)
	ticks(5)
	if !bt.Eval[bool](t, ctx, drawn(leafOf(kids[4]))) {
		t.Error("the node selected was collapsed again")
	}
	find(chase)
	rebase()
	bt.Wait(t, ctx, "selected no more: collapsed", foldPill(kids[4])+` === '+3'`, 5*time.Second)
	control(t, base, "POST", "/api/agents/0/breakpoints", fmt.Sprintf(`{"node": %d, "on": ["start"]}`, leafOf(kids[5])))
	control(t, base, "POST", "/api/agents/0/forces", fmt.Sprintf(`{"node": %d, "status": "failure"}`, leafOf(kids[6])))
	bt.Wait(t, ctx, "the nodes with a breakpoint and a force shown", fmt.Sprintf(`%s && %s && %s === 65 &&
		!document.querySelector('#tree .bp-dot[data-node="%d"]').textContent.includes('hidden in')`,
		drawn(leafOf(kids[5])), drawn(leafOf(kids[6])), treeNodes, leafOf(kids[5])), 5*time.Second)
	control(t, base, "DELETE", "/api/agents/0/breakpoints", "")
	control(t, base, "DELETE", "/api/agents/0/forces", "")
	bt.Wait(t, ctx, "without them: collapsed", fmt.Sprintf(`%s === '+3' && %s === '+3' && %s === 59`, foldPill(kids[5]), foldPill(kids[6]), treeNodes), 5*time.Second)
	stayed("through breakpoints and forces")

	// Off (the button): the tree stays as it is, and the user's choices
	// are forgotten when it is turned on again.
	pressFold(t, ctx, fmt.Sprintf(`document.querySelector('#tree g.fold[data-fold="%d"]')`, chase))
	bt.Wait(t, ctx, "chase expanded", foldPill(chase)+` === '−'`, 5*time.Second)
	bt.Click(t, ctx, "#btn-fold-auto")
	bt.Wait(t, ctx, "Auto off", autoPressed+` === false && `+autoKept+` === null`, 5*time.Second)
	ticks(3)
	if got := bt.Eval[[]any](t, ctx, fmt.Sprintf(`[%s, %s, %s]`, foldPill(chase), foldPill(attack), treeNodes)); fmt.Sprint(got) != "[− +3 61]" {
		t.Errorf("Auto off: chase, an attack branch, nodes drawn: %v, want the tree as it was: [− +3 61]", got)
	}
	bt.Click(t, ctx, "#btn-fold-auto")
	bt.Wait(t, ctx, "Auto on again: chase collapsed", autoPressed+` === true && `+foldPill(chase)+` === '+2' && `+treeNodes+` === 59`, 5*time.Second)

	// A reload keeps it on; E expands everything and turns it off.
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "reloaded: on, collapsed", autoPressed+` === true && `+treeNodes+` === 59`, 10*time.Second)
	bt.Run(t, ctx, blur, chromedp.KeyEvent("e"))
	bt.Wait(t, ctx, "E: all expanded, Auto off", treeNodes+` === 216 && `+autoPressed+` === false && `+autoKept+` === null`, 5*time.Second)
	ticks(3)
	if n := bt.Eval[int](t, ctx, treeNodes); n != 216 {
		t.Errorf("%d nodes drawn after Expand all, want 216", n)
	}
}
