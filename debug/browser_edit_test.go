package debug

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/arborbt/arbor"
	bt "github.com/arborbt/arbor/internal/browsertest"
	"github.com/arborbt/arbor/internal/workload"
)

// browserRecompile is the Recompile of the page tests' session: the
// registry of their trees (testTrees' and the wide tree's).
func browserRecompile(t *testing.T) func(*arbor.Tree, *arbor.Document) (*arbor.Tree, error) {
	t.Helper()
	reg := testRegistry(t)
	if err := workload.Register(reg); err != nil {
		t.Fatal(err)
	}
	return func(_ *arbor.Tree, doc *arbor.Document) (*arbor.Tree, error) { return arbor.Compile(doc, reg) }
}

// checkEdit edits a sentry's Check in the Node tab: the Check "noise
// exists" made "noise missing", the sentry investigates (its running
// path changes), the node stays selected and the note counts the agents
// moved; an operator the compiler refuses shows its message under the
// field, and nothing changes; Esc closes the form.
func checkEdit(t *testing.T, ctx context.Context, base string, s *Session) {
	sentry, _ := testTrees(t)
	var id int
	s.Do(func(m *arbor.Manager) { id = m.Add(sentry).ID() })
	defer s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(id)) })
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(fmt.Sprintf("%s/#agent=%d", base, id)))
	running := `document.querySelector('#running-list').textContent`
	bt.Wait(t, ctx, "the sentry patrolling", fmt.Sprintf(`document.querySelector('#agent-title').textContent.startsWith('Agent #%d ') &&
		document.querySelector('#tl-label').textContent.startsWith('live · tick ') && `+running+`.includes('patrol')`, id), 10*time.Second)
	// Node 2 is the Check "noise exists" of the investigate branch.
	bt.Run(t, ctx, chromedp.Click("#btn-fit", chromedp.ByID), chromedp.Click(`#tree g.node[data-id="2"] rect`, chromedp.ByQuery))
	bt.Wait(t, ctx, "Edit in the Node tab, Download tree", `(() => { const b = document.querySelector('#btn-edit');
		return b && !b.disabled && document.querySelector('#node-info').textContent.includes('noise') &&
			!document.querySelector('#tree-dl').hidden && document.querySelector('#dl-format').value === 'arbor'; })()`, 5*time.Second)
	tree := bt.Eval[int](t, ctx, `S.treeId`)
	bt.Run(t, ctx, chromedp.Click("#btn-edit", chromedp.ByID))
	op := `#edit-form [data-param="op"]`
	bt.Wait(t, ctx, "the form, its first field focused", `document.querySelector('#edit-form [data-param="op"]') !== null &&
		document.activeElement === document.querySelector('#edit-form [name="name"]')`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SetValue(op, "missing", chromedp.ByQuery), chromedp.Click("#btn-apply", chromedp.ByID))
	bt.Wait(t, ctx, "applied: investigating, the Check reads noise missing, still selected", fmt.Sprintf(`S.treeId !== %d &&
		document.querySelector('#tree g.node[data-id="2"] text.sub').textContent === 'noise missing' &&
		document.querySelector('#tree g.node.selected') === document.querySelector('#tree g.node[data-id="2"]') &&
		(document.querySelector('#node-params .edit-note') || {}).textContent === 'Applied to 1 agent (running nodes halted once; they run the edited tree from their next tick).' &&
		`+running+`.includes('investigate') && !document.querySelector('#edit-form')`, tree), 10*time.Second)

	// An operator the compiler does not know: its message under the
	// field, the tree as it was.
	tree = bt.Eval[int](t, ctx, `S.treeId`)
	bt.Run(t, ctx, chromedp.Click("#btn-edit", chromedp.ByID))
	bt.Wait(t, ctx, "the form again", `document.querySelector('#edit-form [data-param="op"]') !== null`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SetValue(op, "bogus", chromedp.ByQuery), chromedp.Click("#btn-apply", chromedp.ByID))
	bt.Wait(t, ctx, "the compiler's message under op", `(() => {
		const e = document.querySelector('#edit-form .ef-row[data-field="op"] .ef-err');
		return e && !e.hidden && e.textContent.startsWith('Not applied: parameter "op": unknown operator "bogus"') &&
			document.querySelector('#edit-form [data-param="op"]').getAttribute('aria-invalid') === 'true' &&
			document.activeElement === document.querySelector('#edit-form [data-param="op"]');
	})()`, 5*time.Second)
	if now := bt.Eval[int](t, ctx, `S.treeId`); now != tree {
		t.Errorf("a refused edit changed the tree: %d, was %d", now, tree)
	}
	// The form stays through live updates; Esc closes it.
	bt.Wait(t, ctx, "a tick later, the form as it was", fmt.Sprintf(`Number((/tick (\d+)/.exec(document.querySelector('#tl-label').textContent) || [0, 0])[1]) > %d &&
		document.querySelector('#edit-form [data-param="op"]').value === 'bogus'`,
		bt.Eval[int](t, ctx, `Number((/tick (\d+)/.exec(document.querySelector('#tl-label').textContent) || [0, 0])[1])`)), 5*time.Second)
	bt.Run(t, ctx, chromedp.SendKeys(op, kb.Escape, chromedp.ByQuery))
	bt.Wait(t, ctx, "Esc: closed, Edit focused", `!document.querySelector('#edit-form') && document.activeElement === document.querySelector('#btn-edit') &&
		document.querySelector('#node-params pre').textContent.includes('"missing"')`, 5*time.Second)
	s.Do(func(m *arbor.Manager) {
		if op := m.Agent(id).Tree().Node(2).Params["op"]; op != "missing" {
			t.Errorf("the agent's Check: op %v, want missing", op)
		}
	})
}
