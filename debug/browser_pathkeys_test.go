package debug

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	bt "github.com/arborbt/arbor/internal/browsertest"
)

// checkPathEndKeys checks that ← and → in the running paths (focused
// with Tab) move the cursor along a path and, at its ends, where there is
// nothing to move to, are the page's: → at the leaf reaches the page, ←
// at the root steps back through the history.
func checkPathEndKeys(t *testing.T, ctx context.Context, base string) {
	pausedWithPath(t, ctx, base)
	kbd := `document.querySelector('#running-list .kbd')`
	// The cursor's place in its path: the number of nodes before it.
	before := `(() => { const k = ` + kbd + `; if (!k) return -1; return Array.from(k.closest('li').querySelectorAll('[data-node]')).indexOf(k); })()`
	// The arrows that reach the page (the document), as it sees them.
	bt.Run(t, ctx, chromedp.Evaluate(`window.__arrows = []; document.addEventListener('keydown', (e) => { if (e.key.startsWith('Arrow')) window.__arrows.push(e.key); })`, nil))
	bt.Click(t, ctx, "#running-now h3")
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#running-list').focus()`, nil))
	bt.Wait(t, ctx, "focused: the cursor on the first path's leaf", `document.activeElement.id === 'running-list' && `+kbd+` === document.querySelector('#running-list > li').lastElementChild`, 5*time.Second)
	n := bt.Eval[int](t, ctx, `document.querySelector('#running-list > li').querySelectorAll('[data-node]').length`)
	rec := bt.Eval[int](t, ctx, tlRecord)
	// → at the leaf: nothing to move to; the page has it (live already:
	// it stays live).
	bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowRight))
	bt.Wait(t, ctx, "→ at the leaf reached the page", `window.__arrows.join() === 'ArrowRight'`, 5*time.Second)
	if got := bt.Eval[int](t, ctx, before); got != n-1 {
		t.Errorf("→ at the leaf moved the cursor to place %d of %d", got, n)
	}
	// ← up to the root: the list's.
	for k := n - 2; k >= 0; k-- {
		bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
		bt.Wait(t, ctx, "← along the path", fmt.Sprintf(`%s === %d`, before, k), 5*time.Second)
	}
	if got := bt.Eval[string](t, ctx, `window.__arrows.join()`); got != "ArrowRight" {
		t.Errorf("the arrows that moved the cursor reached the page too: %q", got)
	}
	if got := bt.Eval[string](t, ctx, tlLabel); !strings.HasPrefix(got, "live · paused") {
		t.Errorf("← along the path moved the timeline: %q", got)
	}
	// ← at the root: the page's, back into the history (the record
	// shown live, or the one before).
	bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	bt.Wait(t, ctx, "← at the root: back in the history", fmt.Sprintf(`%s.startsWith('history · tick ') && %s >= %d && %s <= %d && window.__arrows.join() === 'ArrowRight,ArrowLeft'`, tlLabel, tlRecord, rec-1, tlRecord, rec), 5*time.Second)
	bt.Click(t, ctx, "#btn-live")
	bt.Wait(t, ctx, "live again", tlLabel+`.startsWith('live')`, 5*time.Second)
}
