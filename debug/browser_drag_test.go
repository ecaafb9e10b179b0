package debug

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/arborbt/arbor"
	bt "github.com/arborbt/arbor/internal/browsertest"
)

// nodePoint returns the client point at fraction (fx, fy) of node id's
// box on the tree.
func nodePoint(t *testing.T, ctx context.Context, id int, fx, fy float64) (x, y float64) {
	t.Helper()
	p := bt.Eval[[]float64](t, ctx, fmt.Sprintf(`(() => { const r = document.querySelector('#tree g.node[data-id="%d"] rect').getBoundingClientRect();
		return [r.left + r.width * %g, r.top + r.height * %g]; })()`, id, fx, fy))
	return p[0], p[1]
}

// pressAndDrag presses the mouse at (x, y) and moves it to (x2, y2) in
// steps, the button held; release lets it go there.
func pressAndDrag(t *testing.T, ctx context.Context, x, y, x2, y2 float64, release bool) {
	t.Helper()
	bt.Run(t, ctx, input.DispatchMouseEvent(input.MousePressed, x, y).WithButton(input.Left).WithButtons(1).WithClickCount(1))
	for i := 1; i <= 6; i++ {
		f := float64(i) / 6
		bt.Run(t, ctx, input.DispatchMouseEvent(input.MouseMoved, x+(x2-x)*f, y+(y2-y)*f).WithButton(input.Left).WithButtons(1))
	}
	if release {
		bt.Run(t, ctx, input.DispatchMouseEvent(input.MouseReleased, x2, y2).WithButton(input.Left).WithClickCount(1))
	}
}

// checkShapeDrag moves nodes by dragging them: noise's Check dropped on
// the right of patrol's Set goes after it (the hint says so while
// dragging, a bar marks the place), Undo takes it back; investigate
// dragged onto its own Set is refused and changes nothing; a drag into
// patrol's middle ended with Escape changes nothing; the root does not
// drag (the press pans the view); a click on a node still selects it.
func checkShapeDrag(t *testing.T, ctx context.Context, base string, s *Session) {
	id, remove := openNewSentry(t, ctx, base, s, "")
	defer remove()
	const before = "Selector(investigate(Check Set Wait) patrol[Check](Set Wait Step SubTree(Wait)))"
	tree := func(want string) {
		t.Helper()
		s.Do(func(m *arbor.Manager) {
			if got := outline(m.Agent(id).Tree()); got != want {
				t.Errorf("the agent's tree: %s, want %s", got, want)
			}
		})
	}
	check := nodeNamed(t, ctx, "Check")
	set := bt.Eval[int](t, ctx, `S.tree.nodes.find((n) => n.type === 'Set' && n.path === 'Sentry.children[1].children[0]').id`)
	bt.Run(t, ctx, chromedp.Click("#btn-fit", chromedp.ByID))

	// A click still selects.
	x, y := nodePoint(t, ctx, check, 0.5, 0.5)
	bt.Run(t, ctx, chromedp.MouseClickXY(x, y))
	bt.Wait(t, ctx, "the Check selected by a click", fmt.Sprintf(`S.selected === %d`, check), 5*time.Second)

	// Dropped after patrol's Set.
	x2, y2 := nodePoint(t, ctx, set, 0.9, 0.5)
	pressAndDrag(t, ctx, x, y, x2, y2, false)
	bt.Wait(t, ctx, "the hint and the bar after Set", fmt.Sprintf(`(() => { const hint = document.querySelector('#drag-hint'), bar = document.querySelector('#drop-bar');
		return !!hint && hint.textContent === 'Move Check noise exists after Set mode = patrolling, into patrol' && !hint.classList.contains('bad') && !!bar &&
			document.querySelector('#tree g.node[data-id="%d"]').classList.contains('drag-src'); })()`, check), 5*time.Second)
	bt.Screenshot(t, ctx, "drag-node.png", artifacts)
	bt.Run(t, ctx, input.DispatchMouseEvent(input.MouseReleased, x2, y2).WithButton(input.Left).WithClickCount(1))
	bt.Wait(t, ctx, "moved after Set", shapeNow(12, "Check", "Sentry.children[1].children[1]")+` && !document.querySelector('#drag-hint') && !document.querySelector('#drop-bar')`, 10*time.Second)
	tree("Selector(investigate(Set Wait) patrol[Check](Set Check Wait Step SubTree(Wait)))")
	bt.Run(t, ctx, chromedp.Evaluate(`document.activeElement && document.activeElement.blur()`, nil), chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)))
	bt.Wait(t, ctx, "the move undone", `S.tree.nodes.length === 12 && S.tree.nodes[S.selected].path === 'Sentry.children[0].children[0]'`, 10*time.Second)
	tree(before)

	// Into itself: refused while dragging, nothing sent on the drop.
	bt.Run(t, ctx, chromedp.Click("#btn-fit", chromedp.ByID))
	inv := nodeNamed(t, ctx, "investigate")
	own := bt.Eval[int](t, ctx, `S.tree.nodes.find((n) => n.path === 'Sentry.children[0].children[1]').id`)
	tid := bt.Eval[int](t, ctx, `S.treeId`)
	x, y = nodePoint(t, ctx, inv, 0.5, 0.5)
	x2, y2 = nodePoint(t, ctx, own, 0.5, 0.5)
	pressAndDrag(t, ctx, x, y, x2, y2, false)
	bt.Wait(t, ctx, "into itself: refused", fmt.Sprintf(`(() => { const hint = document.querySelector('#drag-hint');
		return !!hint && hint.classList.contains('bad') && hint.textContent.startsWith('Cannot move') &&
			document.querySelector('#tree g.node[data-id="%d"]').classList.contains('drop-no'); })()`, own), 5*time.Second)
	bt.Run(t, ctx, input.DispatchMouseEvent(input.MouseReleased, x2, y2).WithButton(input.Left).WithClickCount(1))
	bt.Wait(t, ctx, "the drag over", `!document.querySelector('#drag-hint') && !document.querySelector('#tree .drop-no, #tree .drag-src')`, 5*time.Second)

	// Into patrol, then Escape.
	patrol := nodeNamed(t, ctx, "patrol")
	wait := bt.Eval[int](t, ctx, `S.tree.nodes.find((n) => n.path === 'Sentry.children[0].children[2]').id`)
	x, y = nodePoint(t, ctx, wait, 0.5, 0.5)
	x2, y2 = nodePoint(t, ctx, patrol, 0.5, 0.5)
	pressAndDrag(t, ctx, x, y, x2, y2, false)
	bt.Wait(t, ctx, "into patrol", fmt.Sprintf(`(() => { const hint = document.querySelector('#drag-hint');
		return !!hint && hint.textContent === 'Move Wait ticks=2 into patrol, last' &&
			document.querySelector('#tree g.node[data-id="%d"]').classList.contains('drop-into'); })()`, patrol), 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.Escape))
	bt.Wait(t, ctx, "cancelled", `!document.querySelector('#drag-hint') && !document.querySelector('#tree .drop-into, #tree .drag-src')`, 5*time.Second)
	bt.Run(t, ctx, input.DispatchMouseEvent(input.MouseReleased, x2, y2).WithButton(input.Left).WithClickCount(1))

	// Left to right, the side is above or below: above Step is before it.
	bt.Run(t, ctx, chromedp.Click("#btn-layout", chromedp.ByID), chromedp.Click("#btn-fit", chromedp.ByID))
	step := nodeNamed(t, ctx, "Step")
	x, y = nodePoint(t, ctx, check, 0.5, 0.5)
	x2, y2 = nodePoint(t, ctx, step, 0.5, 0.1)
	pressAndDrag(t, ctx, x, y, x2, y2, false)
	bt.Wait(t, ctx, "before Step, left to right", `(() => { const hint = document.querySelector('#drag-hint'), bar = document.querySelector('#drop-bar');
		return S.lr && !!hint && hint.textContent === 'Move Check noise exists before Step, into patrol' && !!bar && bar.getAttribute('y1') === bar.getAttribute('y2'); })()`, 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.Escape), input.DispatchMouseEvent(input.MouseReleased, x2, y2).WithButton(input.Left).WithClickCount(1))
	bt.Run(t, ctx, chromedp.Click("#btn-layout", chromedp.ByID), chromedp.Click("#btn-fit", chromedp.ByID))
	bt.Wait(t, ctx, "top-down again", `!S.lr && !document.querySelector('#drag-hint')`, 5*time.Second)

	// The root pans the view.
	vx := bt.Eval[float64](t, ctx, `S.view.x`)
	x, y = nodePoint(t, ctx, 0, 0.5, 0.5)
	pressAndDrag(t, ctx, x, y, x+60, y, true)
	bt.Wait(t, ctx, "the root's drag panned", fmt.Sprintf(`Math.abs(S.view.x - %g - 60) < 1 && !document.querySelector('#drag-hint')`, vx), 5*time.Second)

	time.Sleep(300 * time.Millisecond) // a request sent would be answered by now
	if got := bt.Eval[int](t, ctx, `S.treeId`); got != tid {
		t.Errorf("the tree changed (%d, was %d) by drags that move nothing", got, tid)
	}
	tree(before)
}
