package debug

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

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
// nor a bold key.
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
		return out.join('; ');
	})()`)
	if problems != "" {
		bt.Screenshot(t, ctx, "blackboard-1024.png", artifacts)
		t.Errorf("the blackboard at 1024 px: %s", problems)
	}
}
