package debug

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	bt "github.com/arborbt/arbor/internal/browsertest"
)

// Expressions of the minimap: whether it is shown, its nodes, the tree's,
// the frame of the part in view and the map itself (page coordinates:
// [left, top, width, height]).
const (
	mmShown   = `(!document.querySelector('#minimap-box').hidden && document.querySelector('#minimap').getBoundingClientRect().width > 40)`
	mmNodes   = `document.querySelectorAll('#minimap rect.mm-n').length`
	treeNodes = `document.querySelectorAll('#tree g.node').length`
	mmFrame   = `(() => { const r = document.querySelector('#minimap .mm-view').getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()`
	mmMap     = `(() => { const r = document.querySelector('#minimap').getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()`
)

// mmAround is true when the minimap's frame is around the point (x, y) of
// the page: centred on it across, and over it up and down.
func mmAround(x, y float64) string {
	return fmt.Sprintf(`(() => { const [fx, fy, fw, fh] = %s; return Math.abs(fx + fw / 2 - %f) <= 1.5 && fy - 1 <= %f && %f <= fy + fh + 1; })()`, mmFrame, x, y, y)
}

// checkMinimap checks the minimap of the wide tree (216 nodes; agent 0):
// shown for it, not for the small tree of agent 1; a node of the map for
// each node of the tree, in its colour; clear of the view's buttons and
// the legend; its frame following Fit, zoom and a resize; a click and a
// drag in it moving the view there (and stopping Follow); collapsing
// subtrees drawing it again; and its button hiding it, which a reload
// remembers.
func checkMinimap(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"),
		chromedp.Evaluate(`localStorage.removeItem('arbor-minimap')`, nil),
		chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "the wide tree and its minimap", treeNodes+` === 216 && `+mmShown+` && `+mmNodes+` === 216 &&
		document.querySelector('#btn-follow').classList.contains('on')`, 10*time.Second)
	if a11y := bt.Eval[bool](t, ctx, `(() => { const b = document.querySelector('#btn-minimap');
		return b.tagName === 'BUTTON' && !!b.title && !!b.getAttribute('aria-label') && b.getAttribute('aria-pressed') === 'true' &&
			!!document.querySelector('#minimap').getAttribute('aria-label'); })()`); !a11y {
		t.Error("the Map button has no title, aria-label or aria-pressed, or the map no aria-label")
	}
	// Each node in its status's colour at the tick shown (the tree's and
	// the map's are painted together), some of them run.
	bt.Wait(t, ctx, "the map's nodes coloured as the tree's", `(() => {
		const rs = Array.from(document.querySelectorAll('#minimap rect.mm-n'));
		return rs.some((r) => !r.classList.contains('st-never')) && rs.every((r) => {
			const g = document.querySelector('#tree g.node[data-id="' + r.dataset.id + '"]');
			return g && r.classList.contains('st-' + g.dataset.status) && getComputedStyle(r).fill === getComputedStyle(g.querySelector('rect')).fill;
		});
	})()`, 5*time.Second)
	if over := bt.Eval[string](t, ctx, `(() => {
		const box = document.querySelector('#minimap-box').getBoundingClientRect(), out = [];
		for (const sel of ['#view-controls', '#legend', '#timeline']) {
			const q = document.querySelector(sel).getBoundingClientRect();
			if (box.left < q.right && q.left < box.right && box.top < q.bottom && q.top < box.bottom) out.push(sel);
		}
		const wrap = document.querySelector('#tree-wrap').getBoundingClientRect();
		if (box.left < wrap.left || box.right > wrap.right || box.top < wrap.top || box.bottom > wrap.bottom) out.push('out of the view');
		return out.join(', ');
	})()`); over != "" {
		bt.Screenshot(t, ctx, "minimap-over.png", artifacts)
		t.Errorf("the minimap lies over %s", over)
	}

	// At the readable zoom the frame is a narrow part of the map; Fit shows
	// the whole tree, the frame takes the whole map; zooming in narrows it.
	bt.Wait(t, ctx, "a narrow frame", fmt.Sprintf(`(() => { const [, , fw] = %s, [, , mw] = %s; return fw < mw / 10; })()`, mmFrame, mmMap), 5*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-fit", chromedp.ByID))
	bt.Wait(t, ctx, "Fit: the frame around the whole map", fmt.Sprintf(`(() => { const [fx, , fw] = %s, [mx, , mw] = %s; return fx <= mx + 6 && fw >= mw - 12; })()`, mmFrame, mmMap), 5*time.Second)
	fitW := bt.Eval[[]float64](t, ctx, mmFrame)[2]
	bt.Run(t, ctx, chromedp.Click("#btn-zoom-in", chromedp.ByID), chromedp.Click("#btn-zoom-in", chromedp.ByID))
	bt.Wait(t, ctx, "zoomed in: a narrower frame", fmt.Sprintf(`%s[2] < %f`, mmFrame, fitW*0.8), 5*time.Second)

	// Follow brings the readable zoom back; a click in the map, a quarter
	// of the way across, moves the view there and stops following.
	bt.Run(t, ctx, chromedp.Click("#btn-follow", chromedp.ByID))
	bt.Wait(t, ctx, "following, at the readable zoom", fmt.Sprintf(`document.querySelector('#btn-follow').classList.contains('on') &&
		(() => { const [, , fw] = %s, [, , mw] = %s; return fw < mw / 10; })()`, mmFrame, mmMap), 5*time.Second)
	m := bt.Eval[[]float64](t, ctx, mmMap)
	x, y := m[0]+m[2]/4, m[1]+m[3]/2
	bt.Run(t, ctx, chromedp.MouseClickXY(x, y))
	bt.Wait(t, ctx, "clicked: the frame around the click, Follow off", `!document.querySelector('#btn-follow').classList.contains('on') && `+mmAround(x, y), 5*time.Second)
	// A drag from there to three quarters of the way takes the view along.
	x2 := m[0] + m[2]*3/4
	bt.Run(t, ctx, input.DispatchMouseEvent(input.MousePressed, x, y).WithButton(input.Left).WithClickCount(1))
	for i := 1; i <= 5; i++ {
		bt.Run(t, ctx, input.DispatchMouseEvent(input.MouseMoved, x+(x2-x)*float64(i)/5, y).WithButton(input.Left).WithButtons(1))
	}
	bt.Wait(t, ctx, "dragging: the frame along", mmAround(x2, y), 5*time.Second)
	bt.Run(t, ctx, input.DispatchMouseEvent(input.MouseReleased, x2, y).WithButton(input.Left).WithClickCount(1))

	// A wider view: a bigger map, the frame wider in it.
	before := bt.Eval[[]float64](t, ctx, mmFrame)
	bt.Run(t, ctx, chromedp.EmulateViewport(1400, 900))
	bt.Wait(t, ctx, "resized: a bigger map, a wider frame", fmt.Sprintf(`%s[2] > %f && %s[2] > %f`, mmMap, m[2]+20, mmFrame, before[2]+1), 5*time.Second)
	bt.Run(t, ctx, chromedp.EmulateViewport(1024, 768))
	bt.Wait(t, ctx, "back to 1024×768", fmt.Sprintf(`Math.abs(%s[2] - %f) < 1`, mmMap, m[2]), 5*time.Second)

	// Collapsing the idle subtrees draws the map again, with the nodes
	// left; expanding them brings the others back.
	bt.Run(t, ctx, chromedp.Click("#btn-fold-idle", chromedp.ByID))
	bt.Wait(t, ctx, "collapsed: fewer nodes in the map", treeNodes+` < 100 && `+mmShown+` && `+mmNodes+` === `+treeNodes, 5*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-unfold", chromedp.ByID))
	bt.Wait(t, ctx, "expanded: all of them", treeNodes+` === 216 && `+mmNodes+` === 216`, 5*time.Second)

	// The Map button hides the map (the button stays), and a reload keeps
	// it hidden; shown again, it stays shown.
	bt.Run(t, ctx, chromedp.Click("#btn-minimap", chromedp.ByID))
	hidden := `!document.querySelector('#minimap-box').hidden && document.querySelector('#minimap').getBoundingClientRect().width === 0 &&
		document.querySelector('#btn-minimap').getBoundingClientRect().width > 0 && document.querySelector('#btn-minimap').getAttribute('aria-pressed') === 'false'`
	bt.Wait(t, ctx, "hidden", hidden, 5*time.Second)
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "reloaded: still hidden", treeNodes+` === 216 && `+hidden, 10*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-minimap", chromedp.ByID))
	bt.Wait(t, ctx, "shown again", mmShown+` && `+mmNodes+` === 216`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "reloaded: still shown", treeNodes+` === 216 && `+mmShown+` && `+mmNodes+` === 216`, 10*time.Second)

	// The blinker's tree (3 nodes) fits the view: no map, no button. The
	// sentry's (11) fits at a readable size in a wider window only.
	bt.Run(t, ctx, chromedp.Evaluate(`location.hash = '#agent=2'`, nil))
	bt.Wait(t, ctx, "a small tree, no minimap", `document.querySelector('#agent-title').textContent.startsWith('Agent #2 ') && `+treeNodes+` === 3 &&
		document.querySelector('#minimap-box').hidden`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(`location.hash = '#agent=1'`, nil))
	bt.Wait(t, ctx, "the sentry's tree at 1024×768: a minimap", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') && `+mmShown+` && `+mmNodes+` === `+treeNodes, 10*time.Second)
	bt.Run(t, ctx, chromedp.EmulateViewport(1400, 900))
	defer bt.Run(t, ctx, chromedp.EmulateViewport(1024, 768))
	bt.Wait(t, ctx, "at 1400×900: no minimap", `document.querySelector('#minimap-box').hidden`, 5*time.Second)
}
