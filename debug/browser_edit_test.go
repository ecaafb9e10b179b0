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

// browserRegistry is the registry of the page tests' trees (testTrees',
// tinkerTree's and the wide tree's): the session's Registry, and the one
// its Recompile compiles with.
func browserRegistry(t *testing.T) *arbor.Registry {
	t.Helper()
	reg := testRegistry(t)
	if err := workload.Register(reg); err != nil {
		t.Fatal(err)
	}
	return reg
}

// browserRecompile is the Recompile of the page tests' session: it
// compiles with reg.
func browserRecompile(reg *arbor.Registry) func(*arbor.Tree, *arbor.Document) (*arbor.Tree, error) {
	return func(_ *arbor.Tree, doc *arbor.Document) (*arbor.Tree, error) { return arbor.Compile(doc, reg) }
}

// checkEdit edits a sentry's Check in the Node tab: the Check "noise
// exists" made "noise missing", the sentry investigates (its running
// path changes), the node stays selected and the note counts the agents
// moved; an operator the compiler refuses shows its message under the
// field, and nothing changes; Esc closes the form. Then investigate's
// abort mode is changed from the form's abort field.
func checkEdit(t *testing.T, ctx context.Context, base string, s *Session) {
	running := `document.querySelector('#running-list').textContent`
	id, remove := openNewSentry(t, ctx, base, s, running+`.includes('patrol')`)
	defer remove()
	// Node 2 is the Check "noise exists" of the investigate branch.
	bt.Run(t, ctx, chromedp.Click("#btn-fit", chromedp.ByID), chromedp.Click(`#tree g.node[data-id="2"] rect`, chromedp.ByQuery))
	bt.Wait(t, ctx, "Edit in the Node tab, Download tree", `(() => { const b = document.querySelector('#btn-edit');
		return b && !b.disabled && document.querySelector('#node-info').textContent.includes('noise') &&
			!document.querySelector('#tree-dl').hidden && document.querySelector('#dl-format').value === 'arbor'; })()`, 5*time.Second)
	tree := bt.Eval[int](t, ctx, `S.treeId`)
	bt.Run(t, ctx, chromedp.Click("#btn-edit", chromedp.ByID))
	op := `#edit-form [data-param="op"]`
	bt.Wait(t, ctx, "the form, its first field focused, no abort mode for a Check", `document.querySelector('#edit-form [data-param="op"]') !== null &&
		document.activeElement === document.querySelector('#edit-form [name="name"]') && !document.querySelector('#edit-form [name="abort"]')`, 5*time.Second)
	// key and op are required: no ×; value, left out, has no default.
	if got := bt.Eval[string](t, ctx, `document.querySelectorAll('#edit-form .ef-remove').length + ' ' +
		[...document.querySelectorAll('#edit-form [data-added]')].map((f) => f.dataset.param + ':' + f.dataset.kind + ':' + f.placeholder).join(' ')`); got != "0 value:any:not set" {
		t.Errorf("the Check's ×s and left-out fields: %q, want %q", got, "0 value:any:not set")
	}
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
	// Apply with nothing changed: a note under the form, not an error.
	bt.Run(t, ctx, chromedp.Click("#btn-apply", chromedp.ByID))
	bt.Wait(t, ctx, "nothing to apply, as a note", `(() => { const e = document.querySelector('#ef-form-err');
		return !e.hidden && e.textContent.startsWith('Nothing to apply') && e.classList.contains('ef-info'); })()`, 5*time.Second)
	// The operator is picked from a list of Check's operators.
	if got := bt.Eval[string](t, ctx, `(() => { const s = document.querySelector('#edit-form [data-param="op"]');
		return s.tagName + ' ' + s.value + ' ' + [...s.options].map((o) => o.value).join(' '); })()`); got != "SELECT missing == != < <= > >= exists missing" {
		t.Errorf("the op field: %q", got)
	}
	key := `#edit-form [data-param="key"]`
	bt.Run(t, ctx, chromedp.SetValue(key, "", chromedp.ByQuery), chromedp.Click("#btn-apply", chromedp.ByID))
	bt.Wait(t, ctx, "the compiler's message under key", `(() => {
		const e = document.querySelector('#edit-form .ef-row[data-field="key"] .ef-err');
		return e && !e.hidden && e.textContent.startsWith('Not applied: empty key name') && document.querySelector('#ef-form-err').hidden &&
			document.querySelector('#edit-form [data-param="key"]').getAttribute('aria-invalid') === 'true' &&
			document.activeElement === document.querySelector('#edit-form [data-param="key"]');
	})()`, 5*time.Second)
	if now := bt.Eval[int](t, ctx, `S.treeId`); now != tree {
		t.Errorf("a refused edit changed the tree: %d, was %d", now, tree)
	}
	// The form stays through live updates; Esc closes it.
	bt.Wait(t, ctx, "a tick later, the form as it was", fmt.Sprintf(`Number((/tick (\d+)/.exec(document.querySelector('#tl-label').textContent) || [0, 0])[1]) > %d &&
		document.querySelector('#edit-form [data-param="key"]').value === ''`,
		bt.Eval[int](t, ctx, `Number((/tick (\d+)/.exec(document.querySelector('#tl-label').textContent) || [0, 0])[1])`)), 5*time.Second)
	bt.Run(t, ctx, chromedp.SendKeys(key, kb.Escape, chromedp.ByQuery))
	bt.Wait(t, ctx, "Esc: closed, Edit focused", `!document.querySelector('#edit-form') && document.activeElement === document.querySelector('#btn-edit') &&
		document.querySelector('#node-params pre').textContent.includes('"missing"')`, 5*time.Second)
	s.Do(func(m *arbor.Manager) {
		if op := m.Agent(id).Tree().Node(2).Params["op"]; op != "missing" {
			t.Errorf("the agent's Check: op %v, want missing", op)
		}
	})

	// investigate's abort mode, lower, made self.
	bt.Run(t, ctx, chromedp.Click(`#tree g.node[data-id="1"] rect`, chromedp.ByQuery))
	bt.Wait(t, ctx, "investigate's Edit", `(() => { const b = document.querySelector('#btn-edit'); return !!b && !b.disabled && S.selected === 1; })()`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-edit", chromedp.ByID))
	bt.Wait(t, ctx, "its abort mode in the form", `(document.querySelector('#edit-form [name="abort"]') || {}).value === 'lower'`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SetValue(`#edit-form [name="abort"]`, "self", chromedp.ByQuery), chromedp.Click("#btn-apply", chromedp.ByID))
	bt.Wait(t, ctx, "applied: investigate aborts self", `S.tree.nodes[1].abort === 'self' && !document.querySelector('#edit-form') &&
		document.querySelector('#tree g.node[data-id="1"]').textContent.includes('self')`, 10*time.Second)
	s.Do(func(m *arbor.Manager) {
		if mode := m.Agent(id).Tree().Node(1).Abort; mode != arbor.AbortSelf {
			t.Errorf("the agent's investigate: abort %s, want self", mode)
		}
	})
}

// checkEditLeftOut edits the parameters a node leaves out, in an agent
// running tinkerTree: Aim's form lists, after its target (with × to
// remove it), its other parameters empty, their defaults as placeholders;
// speed filled in takes effect (the blackboard's speed), × removes it
// again (back to the default); Note, which takes any parameter, gets one
// by name.
func checkEditLeftOut(t *testing.T, ctx context.Context, base string, s *Session) {
	tree := tinkerTree(t)
	var id int
	s.Do(func(m *arbor.Manager) { id = m.Add(tree).ID() })
	defer s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(id)) })
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(fmt.Sprintf("%s/#agent=%d", base, id)))
	bt.Wait(t, ctx, "the tinker live", fmt.Sprintf(`document.querySelector('#agent-title').textContent.startsWith('Agent #%d ') &&
		document.querySelector('#tl-label').textContent.startsWith('live · tick ')`, id), 10*time.Second)
	speed := func(want string) string { // the blackboard shows speed want
		return `(() => { const r = document.querySelector('#bb-agent tr[data-key="speed"]'); return !!r && r.dataset.json === '` + want + `'; })()`
	}
	bb, node := `.tabs button[data-tab="bb"]`, `.tabs button[data-tab="node"]`
	bt.Run(t, ctx, chromedp.Click(bb, chromedp.ByQuery))
	bt.Wait(t, ctx, "speed 1.5, Aim's default", speed("1.5"), 5*time.Second)
	edit := func(node int, what string) {
		t.Helper()
		bt.Run(t, ctx, chromedp.Click("#btn-fit", chromedp.ByID), chromedp.Click(fmt.Sprintf(`#tree g.node[data-id="%d"] rect`, node), chromedp.ByQuery))
		bt.Wait(t, ctx, "Edit", `(() => { const b = document.querySelector('#btn-edit'); return !!b && !b.disabled; })()`, 5*time.Second)
		bt.Run(t, ctx, chromedp.Click("#btn-edit", chromedp.ByID))
		bt.Wait(t, ctx, what, `document.querySelector('#edit-form') !== null`, 5*time.Second)
	}
	// Node 1 is Aim target "door".
	bt.Run(t, ctx, chromedp.Click(node, chromedp.ByQuery))
	edit(1, "Aim's form")
	fields := bt.Eval[string](t, ctx, `[...document.querySelectorAll('#edit-form [data-param]')].map((f) => f.dataset.param + ':' + f.dataset.kind +
		(f.dataset.added === undefined ? '' : ':' + (f.tagName === 'SELECT' ? f.options[0].text : f.placeholder)) +
		(f.closest('.ef-row').querySelector('.ef-remove') ? ':×' : '')).join(' ')`)
	if want := `target:string:× speed:number:default 1.5 loud:bool:default false tags:json:default [] extra:any:default {}`; fields != want {
		t.Errorf("Aim's fields:\n%s\nwant\n%s", fields, want)
	}
	// A value the compiler refuses: its message under the field.
	tid := bt.Eval[int](t, ctx, `S.treeId`)
	bt.Run(t, ctx, chromedp.SetValue(`#edit-form [data-param="speed"]`, "fast", chromedp.ByQuery), chromedp.Click("#btn-apply", chromedp.ByID))
	bt.Wait(t, ctx, "the compiler's message under speed", `(() => {
		const e = document.querySelector('#edit-form .ef-row[data-field="speed"] .ef-err');
		return !e.hidden && e.textContent.startsWith('Not applied: want a number (float64)') &&
			document.activeElement === document.querySelector('#edit-form [data-param="speed"]');
	})()`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SetValue(`#edit-form [data-param="speed"]`, "3", chromedp.ByQuery),
		chromedp.SetValue(`#edit-form [data-param="loud"]`, "true", chromedp.ByQuery), chromedp.Click("#btn-apply", chromedp.ByID))
	bt.Wait(t, ctx, "applied: speed 3 and loud true, the others left out", fmt.Sprintf(`S.treeId !== %d && !document.querySelector('#edit-form') &&
		JSON.stringify(S.tree.nodes[1].params) === '{"loud":true,"speed":3,"target":"door"}' &&
		document.querySelector('#node-params pre').textContent.includes('"speed": 3')`, tid), 10*time.Second)
	bt.Run(t, ctx, chromedp.Click(bb, chromedp.ByQuery))
	bt.Wait(t, ctx, "the blackboard's speed 3", speed("3"), 5*time.Second)

	// × removes speed: the default again.
	bt.Run(t, ctx, chromedp.Click(node, chromedp.ByQuery))
	edit(1, "Aim's form again")
	remove := `#edit-form .ef-row[data-field="speed"] .ef-remove`
	bt.Run(t, ctx, chromedp.Click(remove, chromedp.ByQuery))
	bt.Wait(t, ctx, "speed struck out", `document.querySelector('`+remove+`').getAttribute('aria-pressed') === 'true' &&
		document.querySelector('#edit-form [data-param="speed"]').disabled &&
		document.querySelector('#edit-form .ef-row[data-field="speed"]').classList.contains('ef-removed')`, 5*time.Second)
	tid = bt.Eval[int](t, ctx, `S.treeId`)
	bt.Run(t, ctx, chromedp.Click("#btn-apply", chromedp.ByID))
	bt.Wait(t, ctx, "applied: no speed", fmt.Sprintf(`S.treeId !== %d && !document.querySelector('#edit-form') &&
		JSON.stringify(S.tree.nodes[1].params) === '{"loud":true,"target":"door"}'`, tid), 10*time.Second)
	bt.Run(t, ctx, chromedp.Click(bb, chromedp.ByQuery))
	bt.Wait(t, ctx, "the blackboard's speed 1.5 again", speed("1.5"), 5*time.Second)

	// Node 2 is Note mood "calm": it takes any parameter.
	bt.Run(t, ctx, chromedp.Click(node, chromedp.ByQuery))
	edit(2, "Note's form, with a new parameter's row")
	bt.Run(t, ctx, chromedp.SetValue("#ef-new-name", "mood", chromedp.ByID), chromedp.SetValue("#ef-new-value", "7", chromedp.ByID),
		chromedp.Click("#btn-apply", chromedp.ByID))
	bt.Wait(t, ctx, "a name the node has: refused", `(() => { const e = document.querySelector('#ef-new .ef-err');
		return !e.hidden && e.textContent === '"mood" is a parameter already: set it in its field.' &&
			document.activeElement === document.querySelector('#ef-new-name') &&
			document.querySelector('#ef-new-name').getAttribute('aria-invalid') === 'true'; })()`, 5*time.Second)
	tid = bt.Eval[int](t, ctx, `S.treeId`)
	bt.Run(t, ctx, chromedp.SetValue("#ef-new-name", "volume", chromedp.ByID), chromedp.Click("#btn-apply", chromedp.ByID))
	bt.Wait(t, ctx, "applied: volume 7", fmt.Sprintf(`S.treeId !== %d && !document.querySelector('#edit-form') &&
		JSON.stringify(S.tree.nodes[2].params) === '{"mood":"calm","volume":7}'`, tid), 10*time.Second)
	s.Do(func(m *arbor.Manager) {
		n1, n2 := m.Agent(id).Tree().Node(1), m.Agent(id).Tree().Node(2)
		if fmt.Sprint(n1.Params) != "map[loud:true target:door]" || fmt.Sprint(n2.Params) != "map[mood:calm volume:7]" {
			t.Errorf("the agent's Aim %v, Note %v", n1.Params, n2.Params)
		}
	})
}
