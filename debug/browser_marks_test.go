package debug

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	bt "github.com/arborbt/arbor/internal/browsertest"
)

// foldPill is the text of node id's fold control ('−', '+N'), undefined
// when it has none drawn.
func foldPill(id int) string {
	return fmt.Sprintf(`(document.querySelector('#tree g.fold[data-fold="%d"] text') || {}).textContent`, id)
}

// bpDotProblems lists what the breakpoint dots of the tree drawn cover:
// the edges (sampled along their length), the nodes other than their own,
// the fold controls, the guards' badges, the forces' badges, the nodes'
// text; and a dot that is not on its node. Distances are in the tree's
// units, a dot's reach being its radius and the outer half of its stroke.
const bpDotProblems = `(() => {
	const inv = document.querySelector('#viewport').getCTM().inverse();
	const box = (el) => {
		const b = el.getBBox(), m = inv.multiply(el.getCTM());
		const ps = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]].map(([x, y]) => new DOMPoint(x, y).matrixTransform(m));
		return { x0: Math.min(...ps.map((p) => p.x)), y0: Math.min(...ps.map((p) => p.y)), x1: Math.max(...ps.map((p) => p.x)), y1: Math.max(...ps.map((p) => p.y)) };
	};
	const what = (el) => {
		const g = el.closest('g.node');
		return (el.classList.contains('force-badge') ? 'a force badge' : el.closest('g.fold') ? 'a fold control' : el.classList.contains('gbadge') ? 'a guard badge' :
			el.tagName === 'text' ? 'the text "' + el.textContent + '"' : 'the node') + (g ? ' of node ' + g.dataset.id : '');
	};
	const out = [];
	const others = Array.from(document.querySelectorAll('#tree g.node > rect, #tree g.fold rect, #tree .gbadge, #tree g.node text, #tree .force-badge')).map((el) => ({ el, b: box(el) }));
	const edges = Array.from(document.querySelectorAll('#tree g.edges path')).map((e) => ({ e, b: box(e), len: e.getTotalLength(),
		to: Object.keys(S.edgeEls).find((i) => S.edgeEls[i] === e) }));
	const dots = Array.from(document.querySelectorAll('#tree .bp-dot'));
	if (!dots.length) return ['no breakpoint dot drawn'];
	for (const d of dots) {
		const id = d.dataset.node, cx = Number(d.getAttribute('cx')), cy = Number(d.getAttribute('cy')), r = Number(d.getAttribute('r')) + 0.75;
		const own = document.querySelector('#tree g.node[data-id="' + id + '"] > rect');
		const nb = box(own);
		if (cx < nb.x0 - 2 || cx > nb.x1 + 2 || cy < nb.y0 - 2 || cy > nb.y1 + 2) out.push('the dot of node ' + id + ' at ' + cx + ',' + cy + ' is not on it');
		for (const { el, b } of others) {
			if (el === own) continue;
			// A text's box depends on the fonts installed; it also holds
			// the room for descenders: a dot may touch its edge.
			const near = el.tagName === 'text' ? r - 1.5 : r;
			if (Math.hypot(Math.max(b.x0 - cx, 0, cx - b.x1), Math.max(b.y0 - cy, 0, cy - b.y1)) < near) out.push('the dot of node ' + id + ' covers ' + what(el));
		}
		const reach = r + 1.3; // an edge's half width, at most
		for (const { e, b, len, to } of edges) {
			if (cx < b.x0 - reach || cx > b.x1 + reach || cy < b.y0 - reach || cy > b.y1 + reach) continue;
			for (let l = 0; l <= len; l += 1) {
				const p = e.getPointAtLength(l);
				if (Math.hypot(p.x - cx, p.y - cy) < reach) { out.push('the dot of node ' + id + ' covers the edge to node ' + to + ' at ' + p.x.toFixed(1) + ',' + p.y.toFixed(1)); break; }
			}
		}
	}
	return out;
})()`

// checkLeftRightMarks checks, in both layouts, that the breakpoint dots
// cover no edge (left to right, the edges meet the nodes' left sides),
// no other mark, control or text, on the wide tree and on the sentry (a
// guard's badge, a force's); and that the tooltips of the fold controls
// and of Collapse idle say where the nodes are in the layout shown.
func checkLeftRightMarks(t *testing.T, ctx context.Context, base string) {
	defer bt.Run(t, ctx, chromedp.Evaluate(`localStorage.removeItem('arbor-layout')`, nil))
	wide, sentry := serverLayout(t, base, 0), serverLayout(t, base, 1)
	// The agents paused, the breakpoints never fire.
	for _, id := range []int{0, 1} {
		control(t, base, "POST", fmt.Sprintf("/api/agents/%d/pause", id), "{}")
	}
	defer func() {
		for _, id := range []int{0, 1} {
			control(t, base, "DELETE", fmt.Sprintf("/api/agents/%d/breakpoints", id), "")
			control(t, base, "DELETE", fmt.Sprintf("/api/agents/%d/forces", id), "")
			control(t, base, "POST", fmt.Sprintf("/api/agents/%d/resume", id), "{}")
		}
	}()
	// The wide tree: the root, and the branches at its ends and in the
	// middle with their nodes (the edges to them the longest); the sentry:
	// every node, one forced.
	kids := wide.Nodes[0].Children
	marked := []int{0}
	for _, k := range []int{0, 1, 2, 26, 27, 51, 52, 53} {
		marked = append(marked, kids[k])
		marked = append(marked, drawnKids(wide.Nodes[kids[k]])...)
	}
	for _, n := range marked {
		control(t, base, "POST", "/api/agents/0/breakpoints", fmt.Sprintf(`{"node": %d, "on": ["abort"]}`, n))
	}
	for _, n := range sentry.Nodes {
		control(t, base, "POST", "/api/agents/1/breakpoints", fmt.Sprintf(`{"node": %d, "on": ["abort"]}`, n.ID))
	}
	guarded := guardedNode(t, sentry)
	control(t, base, "POST", "/api/agents/1/forces", fmt.Sprintf(`{"node": %d, "status": "failure"}`, guarded))

	for _, lr := range []bool{false, true} {
		layout := map[bool]string{false: "top-down", true: "left to right"}[lr]
		for _, a := range []struct {
			id    int
			nodes int
			dots  int
		}{{0, len(wide.Nodes), len(marked)}, {1, len(sentry.Nodes), len(sentry.Nodes)}} {
			bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(fmt.Sprintf("%s/#agent=%d", base, a.id)),
				chromedp.Evaluate(fmt.Sprintf(`localStorage.removeItem('arbor-autofold'); %s`, map[bool]string{false: `localStorage.removeItem('arbor-layout')`, true: `localStorage.setItem('arbor-layout', 'lr')`}[lr]), nil),
				chromedp.Navigate("about:blank"), chromedp.Navigate(fmt.Sprintf("%s/#agent=%d", base, a.id)))
			bt.Wait(t, ctx, fmt.Sprintf("agent %d %s, its breakpoints marked", a.id, layout), fmt.Sprintf(`%s === %d && S.lr === %t && document.querySelectorAll('#tree .bp-dot').length === %d && (%d !== 1 || !!document.querySelector('#tree .force-badge'))`,
				treeNodes, a.nodes, lr, a.dots, a.id), 10*time.Second)
			p := bt.Eval[[]string](t, ctx, bpDotProblems)
			if len(p) > 0 {
				bt.Screenshot(t, ctx, fmt.Sprintf("bp-dots-%d-%t.png", a.id, lr), artifacts)
			}
			if len(p) > 8 {
				p = append(p[:8], fmt.Sprintf("and %d more", len(p)-8))
			}
			for _, s := range p {
				t.Errorf("agent %d, %s: %s", a.id, layout, s)
			}
		}
		// The sentry's tooltips: where the nodes are, in this layout.
		where := map[bool]string{false: "below it", true: "on its right"}[lr]
		titles := `Array.from(document.querySelectorAll('#tree g.fold title')).map((e) => e.textContent)`
		for _, title := range bt.Eval[[]string](t, ctx, titles) {
			if !strings.HasPrefix(title, "Collapse: hide the ") || !strings.HasSuffix(title, " "+where) {
				t.Errorf("%s: a fold control's tooltip %q, want 'Collapse: hide the N nodes %s'", layout, title, where)
			}
		}
		n := len(drawnKids(sentry.Nodes[guarded]))
		pressFold(t, ctx, fmt.Sprintf(`document.querySelector('#tree g.fold[data-fold="%d"]')`, guarded))
		bt.Wait(t, ctx, "collapsed", fmt.Sprintf(`%s !== '−'`, foldPill(guarded)), 5*time.Second)
		hidden := bt.Eval[string](t, ctx, foldPill(guarded))
		if got, want := bt.Eval[string](t, ctx, fmt.Sprintf(`document.querySelector('#tree g.fold[data-fold="%d"] title').textContent`, guarded)),
			"Expand: show the "+strings.TrimPrefix(hidden, "+")+" nodes it hides, "+where; got != want || n == 0 {
			t.Errorf("%s: the tooltip of a collapsed node's +N: %q, want %q", layout, got, want)
		}
		idle := bt.Eval[string](t, ctx, `document.querySelector('#btn-fold-idle').title`)
		if want := map[bool]string{false: "under a node", true: "on a node's right side"}[lr]; !strings.Contains(idle, want) || strings.Contains(idle, map[bool]string{false: "right side", true: "under"}[lr]) {
			t.Errorf("%s: Collapse idle's tooltip %q, want it to say the controls are %q", layout, idle, want)
		}
	}
}
