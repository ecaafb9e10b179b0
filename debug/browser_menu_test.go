package debug

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	bt "github.com/arborbt/arbor/internal/browsertest"
)

// openMenu opens node id's context menu on the tree.
func openMenu(t *testing.T, ctx context.Context, id int) {
	t.Helper()
	bt.Eval[bool](t, ctx, fmt.Sprintf(`(() => { const r = document.querySelector('#tree g.node[data-id="%d"] rect');
		r.dispatchEvent(new MouseEvent('contextmenu', { clientX: 20, clientY: 20, bubbles: true, cancelable: true }));
		return true; })()`, id))
	bt.Wait(t, ctx, "the menu", `!!document.querySelector('#shape-menu [data-op="break-start"]')`, 5*time.Second)
}

// checkMenuDebug breaks and forces from a node's context menu: Break on
// start sets the node's breakpoint and, checked, takes it off; Force
// success forces the node and, checked, lifts it; a condition offers no
// Force running. The items follow the shape edits, after a separator.
func checkMenuDebug(t *testing.T, ctx context.Context, base string, s *Session) {
	_, remove := openNewSentry(t, ctx, base, s, "")
	defer remove()
	set := bt.Eval[int](t, ctx, `S.tree.nodes.find((n) => n.type === 'Set' && n.path === 'Sentry.children[1].children[0]').id`)
	openMenu(t, ctx, set)
	if got := bt.Eval[string](t, ctx, `[...document.querySelectorAll('#shape-menu > *')].slice(-5).map((b) => b.getAttribute('role') + ':' + (b.dataset.op || '') + ':' + (b.getAttribute('aria-checked') || '')).join(' ')`); got !=
		"separator:: menuitemcheckbox:break-start:false menuitemcheckbox:force-success:false menuitemcheckbox:force-failure:false menuitemcheckbox:force-running:false" {
		t.Errorf("the menu's last items: %s", got)
	}
	bt.Run(t, ctx, chromedp.Click(`#shape-menu [data-op="break-start"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "the breakpoint set", fmt.Sprintf(`S.bpPending === 0 && JSON.stringify(breakpointsOf(%d)) === '["start"]' && !document.querySelector('#shape-menu')`, set), 5*time.Second)
	openMenu(t, ctx, set)
	bt.Wait(t, ctx, "checked", `document.querySelector('#shape-menu [data-op="break-start"]').getAttribute('aria-checked') === 'true'`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Click(`#shape-menu [data-op="break-start"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "the breakpoint off", fmt.Sprintf(`S.bpPending === 0 && breakpointsOf(%d).length === 0 && !(S.agent.breakpoints || []).length`, set), 5*time.Second)

	openMenu(t, ctx, set)
	bt.Run(t, ctx, chromedp.Click(`#shape-menu [data-op="force-success"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "forced", fmt.Sprintf(`S.forcePending === 0 && forcedOf(%d) === 'success'`, set), 5*time.Second)
	openMenu(t, ctx, set)
	bt.Wait(t, ctx, "checked", `document.querySelector('#shape-menu [data-op="force-success"]').getAttribute('aria-checked') === 'true'`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Click(`#shape-menu [data-op="force-success"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "lifted", fmt.Sprintf(`S.forcePending === 0 && forcedOf(%d) === '' && forcesOf(S.agent).length === 0`, set), 5*time.Second)

	check := nodeNamed(t, ctx, "Check")
	openMenu(t, ctx, check)
	if got := bt.Eval[bool](t, ctx, `!!document.querySelector('#shape-menu [data-op="force-failure"]') && !document.querySelector('#shape-menu [data-op="force-running"]')`); !got {
		t.Error("a condition's menu: want Force failure and no Force running")
	}
	bt.Run(t, ctx, chromedp.Evaluate(`closeShapeMenu(true)`, nil))
}
