package debug

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/arborbt/arbor"
	bt "github.com/arborbt/arbor/internal/browsertest"
)

// shapeNow is a page expression: the tree shown has n nodes, all drawn,
// and the node selected is of type typ at path.
func shapeNow(n int, typ, path string) string {
	return fmt.Sprintf(`(() => { const t = S.tree, sel = t && S.selected >= 0 ? t.nodes[S.selected] : null;
		return t.nodes.length === %d && !!sel && sel.type === %q && sel.path === %q &&
			document.querySelectorAll('#tree g.node').length === t.nodes.filter((n) => n.shown).length &&
			!document.querySelector('#shape-form'); })()`, n, typ, path)
}

// shapeNote is a page expression: the Shape section's note starts with
// text.
func shapeNote(text string) string {
	return fmt.Sprintf(`((document.querySelector('#shape-msg') || {}).textContent || '').startsWith(%q)`, text)
}

// setType picks type typ in the shape form.
func setType(t *testing.T, ctx context.Context, typ string) {
	t.Helper()
	bt.Eval[bool](t, ctx, fmt.Sprintf(`(() => { const s = document.querySelector('#sf-type'); s.value = %q; s.dispatchEvent(new Event('change')); return true; })()`, typ))
}

// clickNode fits the tree in the view and clicks node id.
func clickNode(t *testing.T, ctx context.Context, id int) {
	t.Helper()
	bt.Run(t, ctx, chromedp.Click("#btn-fit", chromedp.ByID), chromedp.Click(fmt.Sprintf(`#tree g.node[data-id="%d"] rect`, id), chromedp.ByQuery))
}

// checkShape changes a sentry's tree from the page: a Set added to the
// patrol (the form names a parameter the type requires, the agent runs
// the new node), moved up, the SubTree wrapped in an Inverter from the
// tree's context menu (collapsed, it stays so), Step deleted with its
// force and breakpoint, then every edit undone (the Undo button, Ctrl+Z),
// three made again (Ctrl+Shift+Z, the Redo button, Ctrl+Y) and undone.
func checkShape(t *testing.T, ctx context.Context, base string, s *Session) {
	id, remove := openNewSentry(t, ctx, base, s, "")
	defer remove()
	// The root cannot be deleted nor moved: the buttons say why.
	clickNode(t, ctx, 0)
	bt.Wait(t, ctx, "the root's Shape section", `(() => { const d = document.querySelector('#btn-shape-delete'), u = document.querySelector('#btn-shape-undo');
		return !!d && unusable(d) && d.title === "The tree's root cannot be deleted" && unusable(document.querySelector('#btn-shape-up')) &&
			!unusable(document.querySelector('#btn-shape-add')) && unusable(u) && u.title.startsWith('Nothing to undo'); })()`, 5*time.Second)
	// Such a button is reached from the keyboard, and says why when pressed.
	bt.Run(t, ctx, chromedp.Focus("#btn-shape-delete", chromedp.ByID), chromedp.KeyEvent("\r"))
	bt.Wait(t, ctx, "the root's Delete says why", `document.activeElement.id === 'btn-shape-delete' && document.querySelector('#shape-msg').textContent === "The tree's root cannot be deleted" && S.tree.nodes.length === 12`, 5*time.Second)

	// The subtree's root is a root for the Shape section (no siblings),
	// its nodes are in a subtree, the tree's are not: from the flags the
	// server sends, not from the path.
	bt.Wait(t, ctx, "the subtree's root and nodes", `(() => { const ns = S.tree.nodes, r = ns.findIndex((n) => n.subtreeRoot);
		return r > 0 && ns[r - 1].type === 'SubTree' && shapeSlot(ns[r]) === 'root' && ns[r].inSubtree &&
			ns.every((n, i) => !!n.inSubtree === (i === r)) && // Rest is one node
			shapeActions(ns[r]).some((a) => a.op === 'insert' && a.why === 'It is the root of a subtree: it has no siblings'); })()`, 5*time.Second)

	// Add a child to the patrol (node 5): a Check without its op first.
	clickNode(t, ctx, 5)
	bt.Wait(t, ctx, "patrol's + Child", `(() => { const b = document.querySelector('#btn-shape-add');
		return !!b && !unusable(b) && document.querySelector('#node-info').textContent.includes('patrol'); })()`, 5*time.Second)
	tid := bt.Eval[int](t, ctx, `S.treeId`)
	bt.Run(t, ctx, chromedp.Click("#btn-shape-add", chromedp.ByID))
	bt.Wait(t, ctx, "the form, its type list focused", `document.activeElement === document.querySelector('#sf-type') &&
		document.querySelector('#shape-form').getAttribute('aria-label') === 'Add a child to patrol'`, 5*time.Second)
	if got := bt.Eval[string](t, ctx, `[...document.querySelectorAll('#sf-type optgroup')].map((g) => g.label).join(' ')`); got != "Actions Conditions Subtrees" {
		t.Errorf("the types offered to add: %q", got)
	}
	setType(t, ctx, "Check")
	bt.Wait(t, ctx, "Check's parameters, the required first", `[...document.querySelectorAll('#shape-form [data-param]')].map((f) => f.dataset.param + (f.getAttribute('aria-required') ? '*' : '')).join(' ') === 'key* op* value'`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SetValue(`#shape-form [data-param="key"]`, "noise", chromedp.ByQuery), chromedp.Click("#btn-shape-apply", chromedp.ByID))
	bt.Wait(t, ctx, "op required, under its field", `(() => { const e = document.querySelector('#shape-form .ef-row[data-field="op"] .ef-err');
		return !!e && !e.hidden && e.textContent === 'Not applied: Check needs op: give it' &&
			document.activeElement === document.querySelector('#shape-form [data-param="op"]') &&
			document.activeElement.getAttribute('aria-invalid') === 'true'; })()`, 5*time.Second)
	setType(t, ctx, "Set")
	bt.Run(t, ctx, chromedp.SetValue(`#shape-form [data-param="key"]`, "mode", chromedp.ByQuery),
		chromedp.SetValue(`#shape-form [data-param="value"]`, "guarding", chromedp.ByQuery))
	bt.Screenshot(t, ctx, "shape-form.png", artifacts)
	bt.Run(t, ctx, chromedp.Click("#btn-shape-apply", chromedp.ByID))
	bt.Wait(t, ctx, "added: 13 nodes, the new Set selected, Undo focused", fmt.Sprintf(`S.treeId !== %d && `, tid)+shapeNow(13, "Set", "Sentry.children[1].children[4]")+
		` && `+shapeNote("Add Set to patrol. Applied to 1 agent")+` && document.activeElement === document.querySelector('#btn-shape-undo')`, 10*time.Second)
	// Node 11 is the new Set: the agent runs it.
	bt.Wait(t, ctx, "the new Set ran", `(document.querySelector('#tree g.node[data-id="11"]') || {dataset: {}}).dataset.status === 'success'`, 10*time.Second)

	// Up: before the SubTree; the button keeps the focus.
	bt.Run(t, ctx, chromedp.Focus("#btn-shape-up", chromedp.ByID), chromedp.KeyEvent(kb.Enter))
	bt.Wait(t, ctx, "moved up, still selected", shapeNow(13, "Set", "Sentry.children[1].children[3]")+` && `+shapeNote("Move Set up")+
		` && document.activeElement === document.querySelector('#btn-shape-up')`, 10*time.Second)

	// The SubTree (node 10 now), collapsed, wrapped from its context menu.
	pressFold(t, ctx, `document.querySelector('#tree g.fold[data-fold="10"]')`)
	bt.Wait(t, ctx, "the SubTree collapsed", `S.folded.has(10) && S.tree.nodes[10].type === 'SubTree'`, 5*time.Second)
	// The menu is that of the node the event targets, whatever is at its
	// point now (here, the root: the view may move between a click and
	// the event's handling).
	menu := `(() => { const r = document.querySelector('#tree g.node[data-id="0"] rect').getBoundingClientRect();
		document.querySelector('#tree g.node[data-id="10"] rect').dispatchEvent(new MouseEvent('contextmenu', { clientX: r.x + 10, clientY: r.y + 10, bubbles: true, cancelable: true }));
		return true; })()`
	bt.Eval[bool](t, ctx, menu)
	bt.Wait(t, ctx, "the SubTree's menu, its first item focused", `(() => { const m = document.querySelector('#shape-menu');
		return !!m && m.getAttribute('role') === 'menu' && document.activeElement === m.querySelector('[data-op="insert"]') &&
			m.querySelector('[data-op="add"]').getAttribute('aria-disabled') === 'true' && m.querySelector('[data-op="unwrap"]').getAttribute('aria-disabled') === 'true' &&
			S.tree.nodes[S.selected].type === 'SubTree'; })()`, 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowDown))
	bt.Wait(t, ctx, "↓: Move up", `document.activeElement === document.querySelector('#shape-menu [data-op="up"]')`, 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.Escape))
	bt.Wait(t, ctx, "Esc: closed, the tree focused", `!document.querySelector('#shape-menu') && document.activeElement === document.querySelector('#tree')`, 5*time.Second)
	// From the keys: the context menu key on the tree opens the selected
	// node's menu, wherever the browser puts the event.
	bt.Eval[bool](t, ctx, `(() => { const svg = document.querySelector('#tree');
		svg.dispatchEvent(new KeyboardEvent('keydown', { key: 'ContextMenu', bubbles: true }));
		svg.dispatchEvent(new MouseEvent('contextmenu', { clientX: 1, clientY: 1, bubbles: true, cancelable: true }));
		return true; })()`)
	bt.Wait(t, ctx, "the SubTree's menu again, from the keys", `(() => { const m = document.querySelector('#shape-menu');
		return !!m && m.getAttribute('aria-label') === 'Edit the tree at SubTree → Rest' && !!m.querySelector('[data-op="wrap"]'); })()`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Click(`#shape-menu [data-op="wrap"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "the wrap form, Inverter picked", `!document.querySelector('#shape-menu') && document.querySelector('#sf-type').value === 'Inverter' &&
		[...document.querySelectorAll('#sf-type optgroup')].map((g) => g.label).join(' ') === 'Decorators Composites'`, 5*time.Second)
	// Esc in a form opened from the menu: closed, the focus back on the tree.
	bt.Run(t, ctx, chromedp.KeyEvent(kb.Escape))
	bt.Wait(t, ctx, "Esc in the menu's form: closed, the tree focused", `!document.querySelector('#shape-form') && document.activeElement === document.querySelector('#tree')`, 5*time.Second)
	bt.Eval[bool](t, ctx, `(() => { const svg = document.querySelector('#tree');
		svg.dispatchEvent(new KeyboardEvent('keydown', { key: 'ContextMenu', bubbles: true }));
		svg.dispatchEvent(new MouseEvent('contextmenu', { clientX: 1, clientY: 1, bubbles: true, cancelable: true }));
		return true; })()`)
	bt.Wait(t, ctx, "the SubTree's menu once more", `!!document.querySelector('#shape-menu [data-op="wrap"]')`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Click(`#shape-menu [data-op="wrap"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "the wrap form, Inverter picked", `!document.querySelector('#shape-menu') && document.querySelector('#sf-type').value === 'Inverter' &&
		[...document.querySelectorAll('#sf-type optgroup')].map((g) => g.label).join(' ') === 'Decorators Composites'`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-shape-apply", chromedp.ByID))
	bt.Wait(t, ctx, "wrapped: the Inverter selected, the SubTree (node 11) still collapsed", shapeNow(14, "Inverter", "Sentry.children[1].children[4]")+
		` && S.tree.nodes[11].type === 'SubTree' && S.folded.has(11) && `+shapeNote("Wrap SubTree in Inverter"), 10*time.Second)

	// Step (node 8), forced and with a breakpoint, deleted: both go.
	control(t, base, "POST", fmt.Sprintf("/api/agents/%d/forces", id), `{"node": 8, "status": "failure"}`)
	control(t, base, "POST", fmt.Sprintf("/api/agents/%d/breakpoints", id), `{"node": 8, "on": ["abort"]}`)
	bt.Wait(t, ctx, "Step forced", `S.tree.nodes[8].type === 'Step' && forcesOf(S.agent).some((f) => f.node === 8) && (S.agent.breakpoints || []).some((b) => b.node === 8)`, 5*time.Second)
	clickNode(t, ctx, 8)
	bt.Wait(t, ctx, "Step's Delete", `(() => { const b = document.querySelector('#btn-shape-delete'); return !!b && !unusable(b) && S.tree.nodes[S.selected].type === 'Step'; })()`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-shape-delete", chromedp.ByID))
	bt.Wait(t, ctx, "deleted: its force and breakpoint dropped, the next sibling selected", shapeNow(13, "Set", "Sentry.children[1].children[2]")+` &&
		`+shapeNote("Delete Step. Applied to 1 agent (running nodes halted once). Dropped 1 force and 1 breakpoint of the nodes deleted.")+` &&
		!forcesOf(S.agent).length && !(S.agent.breakpoints || []).length &&
		document.activeElement && document.activeElement.id === 'btn-shape-undo'`, 10*time.Second)

	// Undo, four times: the button, Ctrl+Z, the button twice.
	bt.Run(t, ctx, chromedp.Click("#btn-shape-undo", chromedp.ByID))
	bt.Wait(t, ctx, "the delete undone, Step's force and breakpoint put back", `S.tree.nodes.length === 14 && S.tree.nodes[8].type === 'Step' && `+shapeNote("Undone: delete Step.")+` &&
		document.querySelector('#shape-msg').textContent.includes('Put back 1 force and 1 breakpoint.') && forcesOf(S.agent).length === 1 && (S.agent.breakpoints || []).length === 1 &&
		document.querySelector('#btn-shape-undo').title.startsWith('Undo: wrap SubTree in Inverter (3 edits can be undone)')`, 10*time.Second)
	// A refused undo from Ctrl+Z with another tab open: the page's notice
	// line says so (the Shape section is not on screen).
	bt.Run(t, ctx, chromedp.Click(`#panel .tabs button[data-tab="bb"]`, chromedp.ByQuery),
		chromedp.Evaluate(`window.postForTest = post; post = () => Promise.reject(Object.assign(new Error('refused for the test'), { status: 400 })); document.activeElement && document.activeElement.blur()`, nil),
		chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)))
	bt.Wait(t, ctx, "a refused undo in the notice line", `(() => { const n = document.querySelector('#notice'); return !n.hidden && n.textContent === 'Not applied: refused for the test'; })()`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(`post = window.postForTest; notice('')`, nil),
		chromedp.Click(`#panel .tabs button[data-tab="node"]`, chromedp.ByQuery))
	bt.Run(t, ctx, chromedp.Evaluate(`document.activeElement && document.activeElement.blur()`, nil), chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)))
	bt.Wait(t, ctx, "Ctrl+Z: the wrap undone, the SubTree still collapsed", `S.tree.nodes.length === 13 && S.tree.nodes[10].type === 'SubTree' && S.folded.has(10) &&
		document.querySelectorAll('#tree g.node').length === 12 && `+shapeNote("Undone: wrap SubTree in Inverter."), 10*time.Second)
	for _, what := range []string{"move Set up", "add Set to patrol"} {
		bt.Run(t, ctx, chromedp.Click("#tree g.node[data-id=\"5\"] rect", chromedp.ByQuery))
		bt.Wait(t, ctx, "Undo for "+what, `(() => { const b = document.querySelector('#btn-shape-undo'); return !!b && !unusable(b) && b.title.startsWith('Undo: `+what+`'); })()`, 5*time.Second)
		bt.Run(t, ctx, chromedp.Click("#btn-shape-undo", chromedp.ByID))
		bt.Wait(t, ctx, "undone: "+what, shapeNote("Undone: "+what+"."), 10*time.Second)
	}
	bt.Wait(t, ctx, "the tree as it was, nothing to undo", `S.tree.nodes.length === 12 && S.tree.nodes[9].type === 'SubTree' &&
		unusable(document.querySelector('#btn-shape-undo'))`, 5*time.Second)
	// Redo three: Ctrl+Shift+Z, the Redo button, Ctrl+Y; then undo them
	// again with Ctrl+Z.
	bt.Wait(t, ctx, "Redo for the add", `(() => { const b = document.querySelector('#btn-shape-redo');
		return !!b && !unusable(b) && b.title.startsWith('Redo: add Set to patrol (4 edits can be redone)'); })()`, 5*time.Second)
	blurKey := func(key string, mods input.Modifier) {
		t.Helper()
		bt.Run(t, ctx, chromedp.Evaluate(`document.activeElement && document.activeElement.blur()`, nil), chromedp.KeyEvent(key, chromedp.KeyModifiers(mods)))
	}
	blurKey("Z", input.ModifierCtrl|input.ModifierShift)
	bt.Wait(t, ctx, "Ctrl+Shift+Z: the add made again", `S.tree.nodes.length === 13 && `+shapeNote("Redone: add Set to patrol."), 10*time.Second)
	bt.Run(t, ctx, chromedp.Click("#tree g.node[data-id=\"5\"] rect", chromedp.ByQuery))
	bt.Wait(t, ctx, "Redo for the move", `(() => { const b = document.querySelector('#btn-shape-redo'); return !!b && !unusable(b) && b.title.startsWith('Redo: move Set up'); })()`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-shape-redo", chromedp.ByID))
	bt.Wait(t, ctx, "the move made again", shapeNote("Redone: move Set up."), 10*time.Second)
	blurKey("y", input.ModifierCtrl)
	bt.Wait(t, ctx, "Ctrl+Y: the wrap made again", `S.tree.nodes.length === 14 && S.tree.nodes.some((n) => n.type === 'Inverter') && `+shapeNote("Redone: wrap SubTree in Inverter."), 10*time.Second)
	for _, what := range []string{"wrap SubTree in Inverter", "move Set up", "add Set to patrol"} {
		blurKey("z", input.ModifierCtrl)
		bt.Wait(t, ctx, "undone again: "+what, shapeNote("Undone: "+what+"."), 10*time.Second)
	}
	bt.Wait(t, ctx, "the tree as it was again, nothing to undo, the delete to redo", `S.tree.nodes.length === 12 && S.tree.nodes[9].type === 'SubTree' &&
		unusable(document.querySelector('#btn-shape-undo')) && document.querySelector('#btn-shape-redo').title.startsWith('Redo: add Set to patrol (4 edits')`, 5*time.Second)
	s.Do(func(m *arbor.Manager) {
		if got := outline(m.Agent(id).Tree()); got != sentryOutline {
			t.Errorf("the agent's tree after the undos: %s", got)
		}
	})
	if got := bt.Eval[string](t, ctx, `S.tree.nodes.map((n) => n.label).join(' ')`); !strings.HasPrefix(got, "Selector investigate Check") {
		t.Errorf("the tree shown: %s", got)
	}
}

// checkShapeGuard gives Step a guard from the Shape section (conditions
// only offered; patrol, which has one, cannot get another), then undoes
// it.
func checkShapeGuard(t *testing.T, ctx context.Context, base string, s *Session) {
	id, remove := openNewSentry(t, ctx, base, s, "")
	defer remove()
	clickNode(t, ctx, 5)
	bt.Wait(t, ctx, "patrol's + Guard says why not", `(() => { const b = document.querySelector('#btn-shape-guard');
		return !!b && unusable(b) && b.title.startsWith('It has a guard') && S.tree.nodes[S.selected].name === 'patrol'; })()`, 5*time.Second)
	clickNode(t, ctx, 8)
	bt.Wait(t, ctx, "Step's + Guard", `(() => { const b = document.querySelector('#btn-shape-guard'); return !!b && !unusable(b) && S.tree.nodes[S.selected].type === 'Step'; })()`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-shape-guard", chromedp.ByID))
	bt.Wait(t, ctx, "the guard's form: conditions only", `document.activeElement === document.querySelector('#sf-type') &&
		document.querySelector('#shape-form').getAttribute('aria-label') === 'Guard Step with' &&
		[...document.querySelectorAll('#sf-type optgroup')].map((g) => g.label).join(' ') === 'Conditions'`, 5*time.Second)
	setType(t, ctx, "Check")
	bt.Run(t, ctx, chromedp.SetValue(`#shape-form [data-param="key"]`, "noise", chromedp.ByQuery),
		chromedp.SetValue(`#shape-form [data-param="op"]`, "missing", chromedp.ByQuery), chromedp.Click("#btn-shape-apply", chromedp.ByID))
	bt.Wait(t, ctx, "guarded: the new Check selected, Undo focused", shapeNow(13, "Check", "Sentry.children[1].children[2].guard")+` && `+
		shapeNote("Guard Step with Check. Applied to 1 agent")+` && document.activeElement === document.querySelector('#btn-shape-undo')`, 10*time.Second)
	s.Do(func(m *arbor.Manager) {
		if got := outline(m.Agent(id).Tree()); got != "Selector(investigate(Check Set Wait) patrol[Check](Set Wait Step[Check] SubTree(Wait)))" {
			t.Errorf("the agent's tree: %s", got)
		}
	})
	bt.Run(t, ctx, chromedp.Click("#btn-shape-undo", chromedp.ByID))
	// The guard selected is gone: the node it guarded is selected.
	bt.Wait(t, ctx, "the guard undone, Step selected", `S.tree.nodes.length === 12 && S.tree.nodes[S.selected].type === 'Step' && `+shapeNote("Undone: guard Step with Check."), 10*time.Second)
}

// checkShapeMoveTo moves noise's Check into patrol, after its Set, with
// the Move to… form (which offers only composites outside the node's
// own subtree), then undoes it.
func checkShapeMoveTo(t *testing.T, ctx context.Context, base string, s *Session) {
	id, remove := openNewSentry(t, ctx, base, s, "")
	defer remove()
	if got := bt.Eval[string](t, ctx, `moveTargets(S.tree.nodes[1]).map((c) => c.id + ':' + c.depth).join(' ')`); got != "0:0 5:1" {
		t.Errorf("investigate may move into %q, want the root and patrol", got)
	}
	clickNode(t, ctx, 2)
	bt.Wait(t, ctx, "the Check's Move to…", `(() => { const b = document.querySelector('#btn-shape-moveto'); return !!b && !unusable(b) && S.selected === 2; })()`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#shape-box').scrollIntoView()`, nil))
	bt.Screenshot(t, ctx, "shape-buttons.png", artifacts)
	bt.Run(t, ctx, chromedp.Click("#btn-shape-moveto", chromedp.ByID))
	bt.Wait(t, ctx, "the move form: its parent picked, the place where it is", `document.activeElement === document.querySelector('#sf-into') &&
		document.querySelector('#sf-into').value === '1' && document.querySelector('#sf-place').value === '0' &&
		document.querySelector('#shape-form').getAttribute('aria-label') === 'Move Check noise exists into'`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SetValue("#sf-into", "5", chromedp.ByID), chromedp.Evaluate(`document.querySelector('#sf-into').dispatchEvent(new Event('change'))`, nil))
	if got := bt.Eval[string](t, ctx, `[...document.querySelectorAll('#sf-place option')].map((o) => o.textContent).join(', ') + ' / ' + document.querySelector('#sf-place').value`); got != "first, after Set mode = patrolling, after Wait ticks=1, after Step, after SubTree → Rest / 4" {
		t.Errorf("patrol's places: %q", got)
	}
	bt.Run(t, ctx, chromedp.SetValue("#sf-place", "1", chromedp.ByID), chromedp.Click("#btn-shape-apply", chromedp.ByID))
	bt.Wait(t, ctx, "moved: the Check selected in patrol", shapeNow(12, "Check", "Sentry.children[1].children[1]")+` && `+shapeNote("Move Check into patrol, after Set. Applied to 1 agent"), 10*time.Second)
	s.Do(func(m *arbor.Manager) {
		if got := outline(m.Agent(id).Tree()); got != "Selector(investigate(Set Wait) patrol[Check](Set Check Wait Step SubTree(Wait)))" {
			t.Errorf("the agent's tree: %s", got)
		}
	})
	bt.Run(t, ctx, chromedp.Evaluate(`document.activeElement && document.activeElement.blur()`, nil), chromedp.KeyEvent("z", chromedp.KeyModifiers(input.ModifierCtrl)))
	bt.Wait(t, ctx, "the move undone", shapeNote("Undone: move Check into patrol, after Set.")+` && S.tree.nodes[2].type === 'Check' && S.tree.nodes[2].path === 'Sentry.children[0].children[0]'`, 10*time.Second)
}

// checkShapeStaleMenu opens a node's context menu, changes the tree
// behind the page's back (a node added before it, which takes its path)
// and picks Delete: the menu was the old tree's, and nothing is deleted.
func checkShapeStaleMenu(t *testing.T, ctx context.Context, base string, s *Session) {
	id, remove := openNewSentry(t, ctx, base, s, "")
	defer remove()
	tid := bt.Eval[int](t, ctx, `S.treeId`)
	bt.Eval[bool](t, ctx, `(() => { const r = document.querySelector('#tree g.node[data-id="6"] rect');
		r.dispatchEvent(new MouseEvent('contextmenu', { clientX: 10, clientY: 10, bubbles: true, cancelable: true }));
		return true; })()`)
	bt.Wait(t, ctx, "patrol's Set's menu", `(() => { const m = document.querySelector('#shape-menu');
		return !!m && m.getAttribute('aria-label') === 'Edit the tree at Set mode = patrolling'; })()`, 5*time.Second)
	control(t, base, "POST", fmt.Sprintf("/api/trees/%d/shape", tid), `{"op": "add", "path": "`+pathPatrol+`", "index": 0, "node": {"type": "Step"}}`)
	bt.Wait(t, ctx, "the new tree shown, the menu still open", fmt.Sprintf(`S.treeId !== %d && S.tree.nodes.length === 13 && !!document.querySelector('#shape-menu')`, tid), 10*time.Second)
	bt.Run(t, ctx, chromedp.Click(`#shape-menu [data-op="delete"]`, chromedp.ByQuery))
	bt.Wait(t, ctx, "nothing done, and said so", `!document.querySelector('#shape-menu') && document.querySelector('#notice').textContent.startsWith('The tree changed')`, 5*time.Second)
	time.Sleep(300 * time.Millisecond) // a request sent would be answered by now
	s.Do(func(m *arbor.Manager) {
		if got, want := outline(m.Agent(id).Tree()), "Selector(investigate(Check Set Wait) patrol[Check](Step Set Wait Step SubTree(Wait)))"; got != want {
			t.Errorf("the tree after the stale menu's Delete: %s, want %s", got, want)
		}
	})
}

// openNewSentry adds an agent running the sentry tree, opens it in the
// page and waits until the page shows it live (and, when more is not "",
// until the JavaScript expression more holds too); remove takes the agent
// out of the manager.
func openNewSentry(t *testing.T, ctx context.Context, base string, s *Session, more string) (id int, remove func()) {
	t.Helper()
	sentry, _ := testTrees(t)
	s.Do(func(m *arbor.Manager) { id = m.Add(sentry).ID() })
	remove = func() { s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(id)) }) }
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(fmt.Sprintf("%s/#agent=%d", base, id)))
	if more != "" {
		more = " && " + more
	}
	bt.Wait(t, ctx, "the sentry live", fmt.Sprintf(`document.querySelector('#agent-title').textContent.startsWith('Agent #%d ') &&
		document.querySelector('#tl-label').textContent.startsWith('live · tick ')`, id)+more, 10*time.Second)
	return id, remove
}
