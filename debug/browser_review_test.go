package debug

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/arborbt/arbor"
	bt "github.com/arborbt/arbor/internal/browsertest"
)

// checkPanelEmpty checks the side panel with no agent open: a note of
// what shows there, not the tabs with empty tables; opening an agent
// brings the tabs back.
func checkPanelEmpty(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/"))
	bt.Wait(t, ctx, "the list, no agent open", `document.querySelectorAll('#agent-list li[data-id]').length > 1 && !document.querySelector('#empty').hidden`, 10*time.Second)
	shown := func(sel string) string {
		return `(document.querySelector('` + sel + `').getClientRects().length > 0)`
	}
	if !bt.Eval[bool](t, ctx, shown("#panel-empty")+` && !`+shown("#tab-bb")+` && !`+shown("#running-now")+` && !`+shown("#panel .tabs")) {
		t.Errorf("no agent open: the panel shows its tabs, not the note")
	}
	bt.Click(t, ctx, `#agent-list li[data-id="0"]`)
	bt.Wait(t, ctx, "agent 0 open: the tabs back, the note gone", `document.querySelector('#agent-title').textContent.startsWith('Agent #0 ') && `+
		shown("#tab-bb")+` && `+shown("#running-now")+` && !`+shown("#panel-empty"), 10*time.Second)
}

// checkBlackboardFits checks the blackboard tab at 1024 px: the tables
// fit the panel (no sideways scroll for a heading a little wider than its
// column), every heading reads whole, and "empty" (a scope with no
// values) is a small note in the table, not the centre's big empty state
// nor a bold key. The form to set a value shows each field's whole
// placeholder.
func checkBlackboardFits(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "agent 0's blackboard", `document.querySelector('#agent-title').textContent.startsWith('Agent #0 ') &&
		document.querySelectorAll('#bb-agent tbody tr[data-key]').length > 0 && !!document.querySelector('#bb-global td.empty')`, 10*time.Second)
	problems := bt.Eval[string](t, ctx, `(() => {
		const out = [], box = document.querySelector('#bb-tables');
		if (box.scrollWidth > box.clientWidth) out.push('the tables scroll sideways: ' + box.scrollWidth + 'px in ' + box.clientWidth + 'px');
		for (const th of document.querySelectorAll('table.bb th')) if (th.scrollWidth > th.clientWidth) out.push('heading "' + th.textContent + '" cut');
		const td = getComputedStyle(document.querySelector('#bb-global td.empty')), row = getComputedStyle(document.querySelector('#bb-agent tbody td.v'));
		if (td.fontSize !== row.fontSize) out.push('"empty" at ' + td.fontSize + ', the values at ' + row.fontSize);
		if (Number(td.fontWeight) > 400) out.push('"empty" bold (' + td.fontWeight + ')');
		const c = document.createElement('canvas').getContext('2d');
		for (const f of document.querySelectorAll('#bb-form input')) {
			const cs = getComputedStyle(f);
			c.font = cs.font;
			const room = f.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
			if (c.measureText(f.placeholder).width > room) out.push('the placeholder "' + f.placeholder + '" cut (' + Math.round(room) + 'px)');
		}
		return out.join('; ');
	})()`)
	if problems != "" {
		bt.Screenshot(t, ctx, "blackboard-1024.png", artifacts)
		t.Errorf("the blackboard at 1024 px: %s", problems)
	}
}

// checkTreeFilterAcrossEdit filters the agent list by a tree, then edits
// that tree (moving a node within its parent): the tree gets a new id,
// and the filter follows it (the list still shows the agent, the menu
// names the tree) rather than listing no agent under "all trees". The
// tree chips are buttons (Tab reaches them), in the order of their
// names, which an edit does not change; the Shape note says where a node
// moved within its own parent.
func checkTreeFilterAcrossEdit(t *testing.T, ctx context.Context, base string, s *Session) {
	id, remove := openNewSentry(t, ctx, base, s, "")
	defer remove()
	tid := bt.Eval[int](t, ctx, `S.treeId`)
	names := `Array.from(document.querySelectorAll('#tree-counts .chip')).map((c) => c.dataset.name).join(',')`
	bt.Wait(t, ctx, "the chips, buttons in the order of their names", `(() => { const c = Array.from(document.querySelectorAll('#tree-counts .chip'));
		const n = c.map((b) => b.dataset.name);
		return c.length >= 3 && c.every((b) => b.tagName === 'BUTTON' && b.getAttribute('aria-pressed') === 'false') && n.join() === n.slice().sort().join(); })()`, 10*time.Second)
	order := bt.Eval[string](t, ctx, names)
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`(() => { const s = document.querySelector('#filter-tree'); s.value = '%d'; s.dispatchEvent(new Event('change')); })()`, tid), nil))
	listed := fmt.Sprintf(`document.querySelector('#list-info').textContent.startsWith('1 of ') && !!document.querySelector('#agent-list li[data-id="%d"]')`, id)
	bt.Wait(t, ctx, "the list filtered by the sentry's tree", listed+fmt.Sprintf(` && document.querySelector('#tree-counts .chip.on[aria-pressed="true"]') !== null && S.list.tree === '%d'`, tid), 10*time.Second)

	// investigate's Wait (its last child) moved first in investigate.
	wait := bt.Eval[int](t, ctx, `S.tree.nodes.find((n) => n.path === 'Sentry.children[0].children[2]').id`)
	clickNode(t, ctx, wait)
	bt.Wait(t, ctx, "the Wait's Shape section", fmt.Sprintf(`S.selected === %d && !!document.querySelector('#btn-shape-moveto')`, wait), 5*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(`(() => { const n = S.tree.nodes[S.selected]; sendShape({ op: 'move', path: n.path, to: S.tree.nodes[n.parent].path, index: 0 }); })()`, nil))
	bt.Wait(t, ctx, "the tree edited", fmt.Sprintf(`S.treeId !== %d && S.tree.nodes.some((n) => n.path === 'Sentry.children[0].children[0]' && n.type === 'Wait')`, tid), 10*time.Second)
	bt.Wait(t, ctx, "the Shape note says where the Wait went", shapeNote("Move Wait into investigate, first. Applied to 1 agent"), 10*time.Second)
	bt.Wait(t, ctx, "the filter following the edited tree", listed+` && S.list.tree === String(S.treeId) &&
		document.querySelector('#filter-tree').value === String(S.treeId) && document.querySelector('#tree-counts .chip.on') !== null`, 10*time.Second)
	if got := bt.Eval[string](t, ctx, names); got != order {
		t.Errorf("the chips after the edit: %s, before: %s", got, order)
	}
	// Tab from the tree menu's neighbour reaches a chip.
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#filter-status').focus()`, nil), chromedp.KeyEvent("\t"))
	bt.Wait(t, ctx, "Tab on a chip", `document.activeElement && document.activeElement.classList.contains('chip')`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(`(() => { const s = document.querySelector('#filter-tree'); s.value = ''; s.dispatchEvent(new Event('change')); })()`, nil))
	bt.Wait(t, ctx, "the filter lifted", `S.list.tree === '' && !document.querySelector('#tree-counts .chip.on')`, 10*time.Second)
}

// checkOpenedEntryInView opens, from the address (as the world view's
// links do), an agent far down a long list: its entry is scrolled into
// the list's view, selected.
func checkOpenedEntryInView(t *testing.T, ctx context.Context, base string, s *Session) {
	_, blink := testTrees(t)
	var ids []int
	s.Do(func(m *arbor.Manager) {
		for range 40 {
			ids = append(ids, m.Add(blink).ID())
		}
	})
	defer s.Do(func(m *arbor.Manager) {
		for _, id := range ids {
			m.Remove(m.Agent(id))
		}
	})
	last := ids[len(ids)-1]
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(fmt.Sprintf("%s/#agent=%d", base, last)))
	bt.Wait(t, ctx, "the last agent open, its entry in the list's view", fmt.Sprintf(`(() => {
		const li = document.querySelector('#agent-list li[data-id="%d"]'), ul = document.querySelector('#agent-list');
		if (!li || !li.classList.contains('sel') || !document.querySelector('#agent-title').textContent.startsWith('Agent #%d ')) return false;
		const r = li.getBoundingClientRect(), v = ul.getBoundingClientRect();
		return ul.scrollHeight > ul.clientHeight && r.top >= v.top && r.bottom <= v.bottom; })()`, last, last), 10*time.Second)
}
