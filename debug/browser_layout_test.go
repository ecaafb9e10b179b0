package debug

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	bt "github.com/arborbt/arbor/internal/browsertest"
)

// Expressions of the layout button: its label, and the choice kept.
const (
	layoutLabel = `document.querySelector('#btn-layout').textContent`
	layoutKept  = `localStorage.getItem('arbor-layout')`
)

// drawnKids lists the nodes n is drawn with, as the page does: its guard
// first, then its children.
func drawnKids(n nodeDesc) []int {
	if n.Guard >= 0 {
		return append([]int{n.Guard}, n.Children...)
	}
	return n.Children
}

// leftRightProblems lists what is wrong with the page's drawing of d
// (the nodes shown) as a left to right tree: each level in a column (the
// same left side, clear of the level before), siblings stacked from the
// top down in their order without overlapping, each parent centred up
// and down on its first and last child, and each edge from its parent's
// right side to its child's left.
func leftRightProblems(t *testing.T, ctx context.Context, d treeDesc) []string {
	t.Helper()
	at := bt.Eval[map[string][2]float64](t, ctx, drawnAt)
	pos := func(i int) ([2]float64, bool) { p, ok := at[fmt.Sprint(i)]; return p, ok }
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.01 }
	// The shown nodes by level, from the root down.
	var levels [][]int
	var walk func(i, depth int)
	walk = func(i, depth int) {
		if _, ok := pos(i); !ok {
			return
		}
		if depth == len(levels) {
			levels = append(levels, nil)
		}
		levels[depth] = append(levels[depth], i)
		for _, c := range drawnKids(d.Nodes[i]) {
			walk(c, depth+1)
		}
	}
	walk(0, 0)
	if len(levels) < 2 {
		return []string{fmt.Sprintf("%d levels drawn", len(levels))}
	}
	right := 0.0 // the right side of the level before
	for depth, ids := range levels {
		left := at[fmt.Sprint(ids[0])][0]
		if depth > 0 && left <= right {
			bad("level %d starts at x=%.1f, not right of level %d (x≤%.1f)", depth, left, depth-1, right)
		}
		right = 0
		tops := make([]float64, 0, len(ids))
		for _, i := range ids {
			p, _ := pos(i)
			if !near(p[0], left) {
				bad("node %d at x=%.1f, not in its level's column (x=%.1f)", i, p[0], left)
			}
			right = math.Max(right, p[0]+d.Nodes[i].W)
			tops = append(tops, p[1])
		}
		sort.Float64s(tops)
		for k := 1; k < len(tops); k++ {
			if tops[k] < tops[k-1]+nodeH {
				bad("level %d: nodes at y=%.1f and y=%.1f overlap", depth, tops[k-1], tops[k])
			}
		}
	}
	for depth := 0; depth+1 < len(levels); depth++ {
		for _, i := range levels[depth] {
			kids := drawnKids(d.Nodes[i])
			if len(kids) == 0 {
				continue
			}
			if _, ok := pos(kids[0]); !ok { // collapsed
				continue
			}
			p, _ := pos(i)
			for k, c := range kids {
				q, ok := pos(c)
				if !ok {
					bad("node %d drawn, not its sibling %d", kids[0], c)
					continue
				}
				if q[0] <= p[0]+d.Nodes[i].W {
					bad("node %d (x=%.1f) is not right of its parent %d (x=%.1f to %.1f)", c, q[0], i, p[0], p[0]+d.Nodes[i].W)
				}
				if k == 0 {
					continue
				}
				if prev, _ := pos(kids[k-1]); q[1] < prev[1]+nodeH {
					bad("node %d (y=%.1f) is not below its sibling %d (y=%.1f)", c, q[1], kids[k-1], prev[1])
				}
			}
			first, _ := pos(kids[0])
			last, _ := pos(kids[len(kids)-1])
			if !near(p[1], (first[1]+last[1])/2) {
				bad("node %d at y=%.1f, not centred on its children (y=%.1f to %.1f)", i, p[1], first[1], last[1])
			}
		}
	}
	// The edges, by the ends of their paths.
	edges := bt.Eval[[]string](t, ctx, `(() => {
		const out = [];
		const box = (i) => {
			const g = document.querySelector('#tree g.node[data-id="' + i + '"]');
			const m = /translate\(([-\d.e]+),([-\d.e]+)\)/.exec(g.getAttribute('transform'));
			return { x: Number(m[1]), y: Number(m[2]), w: Number(g.querySelector('rect').getAttribute('width')) };
		};
		const far = (a, x, y) => Math.abs(a.x - x) > 0.01 || Math.abs(a.y - y) > 0.01;
		for (const g of document.querySelectorAll('#tree g.node')) {
			const c = Number(g.dataset.id), p = drawParent(c);
			if (p < 0) continue;
			const e = S.edgeEls[c];
			if (!e) { out.push('no edge to ' + c); continue; }
			const from = e.getPointAtLength(0), to = e.getPointAtLength(e.getTotalLength());
			const a = box(p), b = box(c);
			if (far(from, a.x + a.w, a.y + 20)) out.push('the edge to ' + c + ' starts at ' + from.x + ',' + from.y + ', not at ' + p + "'s right side");
			if (far(to, b.x, b.y + 20)) out.push('the edge to ' + c + ' ends at ' + to.x + ',' + to.y + ", not at its left side");
		}
		return out;
	})()`)
	return append(out, edges...)
}

// checkLeftRight fails the test when the page does not draw d (the nodes
// shown) as a left to right tree (leftRightProblems).
func checkLeftRight(t *testing.T, ctx context.Context, d treeDesc, when string) {
	t.Helper()
	p := leftRightProblems(t, ctx, d)
	if len(p) > 8 {
		p = append(p[:8], fmt.Sprintf("and %d more", len(p)-8))
	}
	for _, s := range p {
		t.Errorf("%s: %s", when, s)
	}
}

// checkLayout checks the layout button on the wide tree (agent 0) and
// the sentry (agent 1, a guard): top-down (the server's layout) at
// first; left to right after a click, with the selected node still in
// view; collapsing, the tree's keys (turned with it), the finder,
// Follow, the minimap and Fit working so; kept across a reload; and a
// click back restoring the top-down layout, with the selected node
// brought back into view.
func checkLayout(t *testing.T, ctx context.Context, base string, mode *atomic.Int32) {
	mode.Store(modePatrol)
	defer bt.Run(t, ctx, chromedp.Evaluate(`localStorage.removeItem('arbor-layout')`, nil))
	d := serverLayout(t, base, 0)
	kids := d.Nodes[0].Children
	if len(d.Nodes) != 216 || len(kids) != 54 {
		t.Fatalf("wide tree: %d nodes, %d under the root", len(d.Nodes), len(kids))
	}
	attack, patrol := kids[1], kids[53]
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"),
		chromedp.Evaluate(`localStorage.removeItem('arbor-layout')`, nil),
		chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "the wide tree, top-down", treeNodes+` === 216 && `+layoutLabel+` === '↓ Top-down'`, 10*time.Second)
	if ok := bt.Eval[bool](t, ctx, `(() => { const b = document.querySelector('#btn-layout');
		return b.tagName === 'BUTTON' && b.closest('#view-controls') !== null && /left to right/.test(b.title); })()`); !ok {
		t.Error("the layout button is not among the view's buttons, or its title does not say what it does")
	}
	checkSameLayout(t, ctx, d)
	top := bt.Eval[map[string][2]float64](t, ctx, drawnAt)

	// A node selected (with the finder) stays in view when the layout
	// changes.
	find := func(id int) {
		t.Helper()
		bt.Run(t, ctx, chromedp.SetValue("#node-find", "", chromedp.ByID), chromedp.SendKeys("#node-find", d.Nodes[id].Path+"\n", chromedp.ByID))
		bt.Wait(t, ctx, "found and in view", fmt.Sprintf(`S.selected === %d && %s`, id, nodeInView(id)), 5*time.Second)
		bt.Run(t, ctx, chromedp.SendKeys("#node-find", kb.Escape, chromedp.ByID))
	}
	sel := d.Nodes[attack].Children[1]
	find(sel)
	bt.Click(t, ctx, "#btn-layout")
	bt.Wait(t, ctx, "left to right", layoutLabel+` === '→ Left-right' && `+layoutKept+` === 'lr'`, 5*time.Second)
	if !bt.Eval[bool](t, ctx, fmt.Sprintf(`S.selected === %d && %s`, sel, nodeInView(sel))) {
		bt.Screenshot(t, ctx, "layout-switched.png", artifacts)
		t.Errorf("node %d, selected, is not in view after the switch", sel)
	}
	checkLeftRight(t, ctx, d, "left to right")
	if wide := bt.Eval[[]float64](t, ctx, `(() => { const b = document.querySelector('#tree g.nodes').getBBox(); return [b.width, b.height]; })()`); wide[1] < 3*wide[0] {
		t.Errorf("left to right, the wide tree is %.0f × %.0f: want it tall", wide[0], wide[1])
	}
	bt.Screenshot(t, ctx, "layout-lr-1024.png", artifacts)

	// Collapsing: the fold control on the node's right side, the tree
	// still laid out left to right without the nodes hidden.
	find(attack)
	fold := fmt.Sprintf(`document.querySelector('#tree g.fold[data-fold="%d"]')`, attack)
	if !bt.Eval[bool](t, ctx, `(() => {
		const n = document.querySelector('#tree g.node[data-id="`+fmt.Sprint(attack)+`"] rect').getBoundingClientRect();
		const f = (`+fold+`).querySelector('rect').getBoundingClientRect();
		return f.left >= n.right - 8 && f.left < n.right && Math.abs((f.top + f.bottom) / 2 - (n.top + n.bottom) / 2) < 1;
	})()`) {
		t.Error("left to right, the fold control is not on the node's right side")
	}
	pressFold(t, ctx, fold)
	bt.Wait(t, ctx, "collapsed", fmt.Sprintf(`%s === 213 && (%s).querySelector('text').textContent === '+3'`, treeNodes, fold), 5*time.Second)
	checkLeftRight(t, ctx, d, "collapsed")
	pressFold(t, ctx, fold)
	bt.Wait(t, ctx, "expanded", treeNodes+` === 216`, 5*time.Second)

	// The keys, turned with the tree: → the first child, ↓ the next
	// sibling, ↑ the one before, ← the parent.
	selected := `(document.querySelector('#tree g.node.selected') || {dataset: {}}).dataset.id`
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#node-find').focus()`, nil), chromedp.KeyEvent("\t"))
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#tree').focus()`, nil))
	rk := drawnKids(d.Nodes[0])
	for _, step := range []struct {
		key  string
		want int
	}{
		{kb.Home, 0}, {kb.ArrowRight, rk[0]}, {kb.ArrowDown, rk[1]}, {kb.ArrowDown, rk[2]}, {kb.ArrowUp, rk[1]},
		{kb.ArrowRight, drawnKids(d.Nodes[rk[1]])[0]}, {kb.ArrowLeft, rk[1]},
	} {
		bt.Run(t, ctx, chromedp.KeyEvent(step.key))
		bt.Wait(t, ctx, "selected after a key", fmt.Sprintf(`%s === '%d' && %s`, selected, step.want, nodeInView(step.want)), 5*time.Second)
	}
	bt.Wait(t, ctx, "the history still live", `document.querySelector('#tl-label').textContent.startsWith('live')`, 5*time.Second)

	// Follow: the patrol (at the bottom) comes into view; the minimap, as
	// tall as the tree, follows it, and a click in it moves the view.
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#btn-follow').classList.contains('on') || document.querySelector('#btn-follow').click()`, nil))
	bt.Wait(t, ctx, "following the patrol", fmt.Sprintf(`(() => { const [id, v] = %s; return id > %d && v; })()`, runningLeaf, patrol), 5*time.Second)
	bt.Wait(t, ctx, "a tall minimap", fmt.Sprintf(`%s && %s === 216 && %s[3] > 2 * %s[2]`, mmShown, mmNodes, mmMap, mmMap), 5*time.Second)
	m := bt.Eval[[]float64](t, ctx, mmMap)
	x, y := m[0]+m[2]/2, m[1]+m[3]/4
	bt.Run(t, ctx, chromedp.MouseClickXY(x, y))
	bt.Wait(t, ctx, "clicked in the map: the frame around the click", fmt.Sprintf(`!document.querySelector('#btn-follow').classList.contains('on') &&
		(() => { const [, fy, , fh] = %s; return fy - 1 <= %f && %f <= fy + fh + 1; })()`, mmFrame, y, y), 5*time.Second)

	// Fit shows the whole tree, and a view of the whole tree stays so
	// when the layout changes (back and forth).
	whole := `(() => { const s = document.querySelector('#tree').getBoundingClientRect(), v = document.querySelector('#viewport').getBoundingClientRect();
		return v.height > 0 && v.left >= s.left && v.right <= s.right && v.top >= s.top && v.bottom <= s.bottom; })()`
	bt.Click(t, ctx, "#btn-fit")
	bt.Wait(t, ctx, "Fit: the whole tree in view", whole, 5*time.Second)
	bt.Click(t, ctx, "#btn-layout")
	bt.Wait(t, ctx, "top-down, the whole tree in view", layoutLabel+` === '↓ Top-down' && `+whole, 5*time.Second)
	bt.Click(t, ctx, "#btn-layout")
	bt.Wait(t, ctx, "left to right, the whole tree in view", layoutLabel+` === '→ Left-right' && `+whole, 5*time.Second)

	// A reload keeps the layout.
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "reloaded: left to right", treeNodes+` === 216 && `+layoutLabel+` === '→ Left-right'`, 10*time.Second)
	checkLeftRight(t, ctx, d, "reloaded")

	// The sentry: its guard drawn as its node's first child, the edge to
	// it dashed.
	s := serverLayout(t, base, 1)
	guarded := guardedNode(t, s)
	bt.Run(t, ctx, chromedp.Evaluate(`location.hash = '#agent=1'`, nil))
	bt.Wait(t, ctx, "the sentry", fmt.Sprintf(`document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') && %s === %d`, treeNodes, len(s.Nodes)), 10*time.Second)
	checkLeftRight(t, ctx, s, "the sentry")
	if !bt.Eval[bool](t, ctx, fmt.Sprintf(`S.edgeEls[%d].classList.contains('guard')`, s.Nodes[guarded].Guard)) {
		t.Error("the edge to the guard is not a guard's")
	}
	bt.Run(t, ctx, chromedp.Evaluate(`location.hash = '#agent=0'`, nil))
	bt.Wait(t, ctx, "the wide tree", `document.querySelector('#agent-title').textContent.startsWith('Agent #0 ') && `+treeNodes+` === 216`, 10*time.Second)

	// Back to top-down: the server's layout again, and the selected node,
	// out of view before (the map clicked far from it), brought into view.
	sel = d.Nodes[patrol].Children[2]
	find(sel)
	m = bt.Eval[[]float64](t, ctx, mmMap)
	bt.Run(t, ctx, chromedp.MouseClickXY(m[0]+m[2]/2, m[1]+4))
	bt.Wait(t, ctx, "the selected node out of view", `!`+nodeInView(sel), 5*time.Second)
	bt.Click(t, ctx, "#btn-layout")
	bt.Wait(t, ctx, "top-down again", layoutLabel+` === '↓ Top-down' && `+layoutKept+` === null && `+treeNodes+` === 216`, 5*time.Second)
	if !bt.Eval[bool](t, ctx, fmt.Sprintf(`S.selected === %d && %s`, sel, nodeInView(sel))) {
		bt.Screenshot(t, ctx, "layout-back.png", artifacts)
		t.Errorf("node %d, selected, is not in view after the switch back", sel)
	}
	checkSameLayout(t, ctx, d)
	if again := bt.Eval[map[string][2]float64](t, ctx, drawnAt); fmt.Sprint(again) != fmt.Sprint(top) {
		t.Error("top-down again, the nodes are not where they were at first")
	}
}
