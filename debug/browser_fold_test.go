package debug

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/arborbt/arbor"
	bt "github.com/arborbt/arbor/internal/browsertest"
)

// guardedNode returns the last node of d that has a guard (the sentry's
// tree has one).
func guardedNode(t *testing.T, d treeDesc) int {
	t.Helper()
	guarded := -1
	for _, n := range d.Nodes {
		if n.Guard >= 0 {
			guarded = n.ID
		}
	}
	if guarded < 0 {
		t.Fatal("the tree has no guarded node")
	}
	return guarded
}

// serverLayout fetches the layout the server gives agent id's tree.
func serverLayout(t *testing.T, base string, id int) treeDesc {
	t.Helper()
	var a struct{ Tree int }
	var d treeDesc
	for _, get := range []struct {
		path string
		into any
	}{{fmt.Sprintf("/api/agents/%d", id), &a}, {"", &d}} {
		path := get.path
		if path == "" {
			path = fmt.Sprintf("/api/trees/%d", a.Tree)
		}
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(get.into)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	return d
}

// drawnAt lists the nodes the page draws: id → [left, top] (the node's
// translation).
const drawnAt = `Object.fromEntries(Array.from(document.querySelectorAll('#tree g.node')).map((g) => {
	const m = /translate\(([-\d.e]+),([-\d.e]+)\)/.exec(g.getAttribute('transform'));
	return [g.dataset.id, [Number(m[1]), Number(m[2])]];
}))`

// checkSameLayout checks that the page draws every node of d where the
// server's layout puts it.
func checkSameLayout(t *testing.T, ctx context.Context, d treeDesc) {
	t.Helper()
	at := bt.Eval[map[string][2]float64](t, ctx, drawnAt)
	if len(at) != len(d.Nodes) {
		t.Fatalf("%d nodes drawn, want %d", len(at), len(d.Nodes))
	}
	for _, n := range d.Nodes {
		p := at[fmt.Sprint(n.ID)]
		if math.Abs(p[0]-(n.X-n.W/2)) > 0.01 || math.Abs(p[1]-n.Y) > 0.01 {
			t.Errorf("node %d (%s) drawn at %v, the server's layout has %v", n.ID, n.Path, p, [2]float64{n.X - n.W/2, n.Y})
		}
	}
}

// checkFold checks collapsing on the wide tree (agent 0): the page's
// layout is the server's; − collapses a node (its nodes hidden, +N
// shown, the tree narrower), +N expands it; Collapse idle leaves the root,
// its children and the running branch; a hidden branch that runs colours
// its collapsed node's +N; finding a hidden node expands what hides it;
// Expand all (and the keys C and E) restore the whole tree.
func checkFold(t *testing.T, ctx context.Context, base string, mode *atomic.Int32) {
	mode.Store(modePatrol)
	defer mode.Store(modePatrol)
	d := serverLayout(t, base, 0)
	root := d.Nodes[0]
	kids := root.Children
	if len(d.Nodes) != 216 || len(kids) != 54 {
		t.Fatalf("wide tree: %d nodes, %d under the root", len(d.Nodes), len(kids))
	}
	flee, attack, patrol := kids[0], kids[1], kids[53]
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "the wide tree shown", `document.querySelectorAll('#tree g.node').length === 216`, 10*time.Second)
	checkSameLayout(t, ctx, d)
	count := `document.querySelectorAll('#tree g.node').length`
	pill := func(id int) string {
		return fmt.Sprintf(`(document.querySelector('#tree g.fold[data-fold="%d"] text') || {}).textContent`, id)
	}
	width := `document.querySelector('#tree g.edges').getBBox().width`

	// − on the first attack branch hides its three nodes. (The finder
	// brings the node into view, at a size to click.)
	bt.Run(t, ctx, chromedp.SendKeys("#node-find", d.Nodes[attack].Path+"\n", chromedp.ByID))
	bt.Wait(t, ctx, "attack branch in view", fmt.Sprintf(`(document.querySelector('#tree g.node.selected') || {dataset: {}}).dataset.id === '%d' && %s`, attack, nodeInView(attack)), 5*time.Second)
	time.Sleep(400 * time.Millisecond) // the end of the view's move
	bt.Run(t, ctx, chromedp.SendKeys("#node-find", kb.Escape, chromedp.ByID))
	before := bt.Eval[float64](t, ctx, width)
	bt.Run(t, ctx, chromedp.Click(fmt.Sprintf(`#tree g.fold[data-fold="%d"] rect`, attack), chromedp.ByQuery))
	bt.Wait(t, ctx, "attack branch collapsed", fmt.Sprintf(`%s === 213 && %s === '+3'`, count, pill(attack)), 5*time.Second)
	if after := bt.Eval[float64](t, ctx, width); after >= before {
		t.Errorf("the tree is %.0f wide collapsed, %.0f before", after, before)
	}
	bt.Run(t, ctx, chromedp.Click(fmt.Sprintf(`#tree g.fold[data-fold="%d"] rect`, attack), chromedp.ByQuery))
	bt.Wait(t, ctx, "expanded again", fmt.Sprintf(`%s === 216 && %s === '−'`, count, pill(attack)), 5*time.Second)
	checkSameLayout(t, ctx, d)

	// Collapse idle: the root, its 54 children and the patrol's 4 nodes.
	// (Clicked at a tick in which the patrol runs: once in its round it
	// ends, and nothing runs.)
	bt.Wait(t, ctx, "Collapse idle clicked with the patrol running", fmt.Sprintf(`(() => {
		if (document.querySelector('#tree g.node[data-id="%d"]').dataset.status !== 'running') return false;
		document.querySelector('#btn-fold-idle').click();
		return true;
	})()`, patrol), 5*time.Second)
	bt.Wait(t, ctx, "idle branches collapsed", fmt.Sprintf(`%s === 59 && document.querySelectorAll('#tree g.fold.folded').length === 53 && %s === '−'`, count, pill(patrol)), 5*time.Second)
	bt.Screenshot(t, ctx, "fold-idle-1024.png", artifacts)
	// A hidden node's force and breakpoint are marked on the collapsed
	// node that hides it (the first attack branch's Attack, forced to
	// failure: the branch runs on as before).
	hit := d.Nodes[attack].Children[2]
	control(t, base, "POST", "/api/agents/0/forces", fmt.Sprintf(`{"node": %d, "status": "failure"}`, hit))
	control(t, base, "POST", "/api/agents/0/breakpoints", fmt.Sprintf(`{"node": %d, "on": ["start"]}`, hit))
	bt.Wait(t, ctx, "marks on the collapsed node", fmt.Sprintf(`(() => {
		const f = document.querySelector('#tree .force-mark[data-node="%[1]d"]'), b = document.querySelector('#tree .bp-dot[data-node="%[1]d"]');
		const at = document.querySelector('#tree g.node[data-id="%[2]d"]').getBoundingClientRect();
		const fr = f && f.getBoundingClientRect();
		return !!f && !!b && f.textContent.includes('hidden in') && b.textContent.includes('hidden in') &&
			fr.left < at.right && fr.right > at.left && fr.top < at.bottom && fr.bottom > at.top;
	})()`, hit, attack), 5*time.Second)
	// Its own force besides: one mark, with its own letter, whose tooltip
	// names both.
	control(t, base, "POST", "/api/agents/0/forces", fmt.Sprintf(`{"node": %d, "status": "failure"}`, attack))
	bt.Wait(t, ctx, "one mark for both", fmt.Sprintf(`(() => {
		const ms = Array.from(document.querySelectorAll('#tree .force-mark'));
		return ms.length === 1 && ms[0].dataset.node === '%d' && ms[0].querySelector('text').textContent === 'F' &&
			ms[0].querySelector('title').textContent.split('\n').length === 2;
	})()`, attack), 5*time.Second)
	control(t, base, "DELETE", "/api/agents/0/forces", "")
	control(t, base, "DELETE", "/api/agents/0/breakpoints", "")
	// The hidden flee branch runs: its collapsed node says so.
	mode.Store(modeFlee)
	bt.Wait(t, ctx, "hidden running branch marked", fmt.Sprintf(`document.querySelector('#tree g.node[data-id="%d"]').classList.contains('inner-running') && %s === '+2'`, flee, pill(flee)), 5*time.Second)
	mode.Store(modePatrol)
	bt.Wait(t, ctx, "mark gone", fmt.Sprintf(`!document.querySelector('#tree g.node[data-id="%d"]').classList.contains('inner-running')`, flee), 5*time.Second)

	// Finding the Chase action (hidden) shows it.
	bt.Run(t, ctx, chromedp.SetValue("#node-find", "", chromedp.ByID), chromedp.SendKeys("#node-find", "Chase\n", chromedp.ByID))
	bt.Wait(t, ctx, "found and revealed", `(() => { const g = document.querySelector('#tree g.node.selected'); return !!g && g.querySelector('text.lbl').textContent === 'chase'; })()`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SendKeys("#node-find", "\n", chromedp.ByID))
	bt.Wait(t, ctx, "second match revealed", `(() => { const g = document.querySelector('#tree g.node.selected'); return !!g && g.querySelector('text.lbl').textContent === 'Chase'; })()`+` && `+count+` === 61`, 5*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#node-find').value = ''; document.querySelector('#node-find').dispatchEvent(new Event('input'))`, nil))

	// Expand all; then the keys.
	bt.Run(t, ctx, chromedp.Click("#btn-unfold", chromedp.ByID))
	bt.Wait(t, ctx, "all expanded", count+` === 216`, 5*time.Second)
	checkSameLayout(t, ctx, d)
	bt.Run(t, ctx, chromedp.Evaluate(`document.activeElement && document.activeElement.blur()`, nil), chromedp.KeyEvent("c"))
	bt.Wait(t, ctx, "C collapses", count+` < 216`, 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent("e"))
	bt.Wait(t, ctx, "E expands", count+` === 216`, 5*time.Second)

	// The sentry (agent 1): a guard, drawn as its node's first child, and
	// a subtree. The same layout as the server's; collapsing the guarded
	// node hides its guard too.
	s := serverLayout(t, base, 1)
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=1"))
	bt.Wait(t, ctx, "the sentry shown", fmt.Sprintf(`document.querySelectorAll('#tree g.node').length === %d`, len(s.Nodes)), 10*time.Second)
	checkSameLayout(t, ctx, s)
	guarded := guardedNode(t, s)
	// The nodes drawn below it: its guard's and its children's subtrees.
	var below func(i int) int
	below = func(i int) int {
		n, kids := 0, s.Nodes[i].Children
		if g := s.Nodes[i].Guard; g >= 0 {
			kids = append([]int{g}, kids...)
		}
		for _, c := range kids {
			n += 1 + below(c)
		}
		return n
	}
	hidden := below(guarded)
	bt.Run(t, ctx, chromedp.Evaluate(`document.activeElement && document.activeElement.blur()`, nil), chromedp.KeyEvent("e"))
	pressFold(t, ctx, fmt.Sprintf(`document.querySelector('#tree g.fold[data-fold="%d"]')`, guarded))
	bt.Wait(t, ctx, "the guarded node collapsed with its guard", fmt.Sprintf(`%s === %d && %s === '+%d'`, count, len(s.Nodes)-hidden, pill(guarded), hidden), 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent("e"))
	bt.Wait(t, ctx, "expanded", fmt.Sprintf(`%s === %d`, count, len(s.Nodes)), 5*time.Second)
}

// checkTimelineMarks checks the marks above the timeline's bars: the wide
// agent leaves the patrol to flee and back, which halts the running
// branch; the strip marks those ticks, and its tooltip says so.
func checkTimelineMarks(t *testing.T, ctx context.Context, base string, mode *atomic.Int32) {
	mode.Store(modePatrol)
	defer mode.Store(modePatrol)
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "the wide tree shown", `document.querySelectorAll('#tree g.node').length === 216`, 10*time.Second)
	time.Sleep(300 * time.Millisecond)
	mode.Store(modeFlee)
	time.Sleep(300 * time.Millisecond)
	mode.Store(modePatrol)
	// The x of the strip's columns with the halt mark (dark, at y = 5).
	marked := `(() => {
		const c = document.querySelector('#tl-strip');
		const d = c.getContext('2d').getImageData(0, 5, c.width, 1).data;
		const xs = [];
		for (let x = 0; x < c.width; x++) if (d[4 * x] === 0x4b && d[4 * x + 1] === 0x55 && d[4 * x + 2] === 0x63) xs.push(x);
		return xs;
	})()`
	bt.Wait(t, ctx, "halt marks drawn", marked+`.length > 0`, 5*time.Second)
	// The tooltip at the first mark, in the same turn of the page's event
	// loop: a new tick moves the strip's columns (its history is full).
	title := bt.Eval[string](t, ctx, `(() => {
		const xs = `+marked+`;
		if (!xs.length) return 'no mark';
		const c = document.querySelector('#tl-strip'), r = c.getBoundingClientRect();
		c.dispatchEvent(new MouseEvent('mousemove', { clientX: r.left + xs[0] + 0.5, clientY: r.top + 5, bubbles: true }));
		return c.title;
	})()`)
	if !strings.Contains(title, "a running node halted") || !strings.HasPrefix(title, "tick ") {
		t.Errorf("the strip's tooltip at a halt mark: %q", title)
	}
}

// checkTreeKeys checks the keyboard in the tree (agent 0, the wide tree):
// focused from the keyboard, Home selects the root, ↓ its first child, →
// the next sibling, ↑ the parent; Enter collapses the selected node; the
// agent list's entries open with Enter; focused by a click, the tree
// leaves ← and → to the history.
func checkTreeKeys(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "the wide tree shown", `document.querySelectorAll('#tree g.node').length === 216`, 10*time.Second)
	selected := `(document.querySelector('#tree g.node.selected') || {dataset: {}}).dataset.id`
	// Focused from the keyboard: as after a Tab.
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#node-find').focus()`, nil), chromedp.KeyEvent("\t"))
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#tree').focus()`, nil))
	for _, step := range []struct {
		key, want string
	}{
		{kb.Home, "0"}, {kb.ArrowDown, "1"}, {kb.ArrowRight, "4"}, {kb.ArrowRight, "8"}, {kb.ArrowLeft, "4"}, {kb.ArrowDown, "5"}, {kb.ArrowUp, "4"},
	} {
		bt.Run(t, ctx, chromedp.KeyEvent(step.key))
		bt.Wait(t, ctx, "selected after a key", selected+` === '`+step.want+`'`, 5*time.Second)
	}
	if label := bt.Eval[string](t, ctx, `document.querySelector('#tl-label').textContent`); !strings.HasPrefix(label, "live") {
		t.Errorf("the arrows in the tree moved the history: %q", label)
	}
	bt.Run(t, ctx, chromedp.KeyEvent(kb.Enter))
	bt.Wait(t, ctx, "Enter collapses", `document.querySelectorAll('#tree g.node').length === 213 && !!document.querySelector('#tree g.fold.folded[data-fold="4"]')`, 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.Enter))
	bt.Wait(t, ctx, "Enter expands", `document.querySelectorAll('#tree g.node').length === 216`, 5*time.Second)
	// The agent list: focusable entries.
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#agent-list li[data-id="1"]').focus()`, nil), chromedp.KeyEvent(kb.Enter))
	bt.Wait(t, ctx, "Enter opens agent 1", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') &&
		Number((/^live · tick \d+ \(record (\d+)\)/.exec(document.querySelector('#tl-label').textContent) || [0, 0])[1]) >= 3`, 5*time.Second)
	// Focused by a click, the tree leaves the arrows to the history.
	// (A click on the tree's top left corner, clear of the nodes.)
	corner := bt.Eval[[2]float64](t, ctx, `(() => { const r = document.querySelector('#tree').getBoundingClientRect(); return [r.left + 4, r.top + 4]; })()`)
	bt.Run(t, ctx, chromedp.MouseClickXY(corner[0], corner[1]))
	time.Sleep(100 * time.Millisecond)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	if id := bt.Eval[string](t, ctx, `document.activeElement.id`); id != "tree" {
		t.Errorf("a click on the tree focused %q", id)
	}
	bt.Wait(t, ctx, "← after a click: history", `document.querySelector('#tl-label').textContent.startsWith('history · tick ')`, 5*time.Second)
}

// checkFoldAcrossReload checks that collapsed nodes are known by what they
// are, not where: a hot reload to a tree of the same name with a branch
// inserted before them keeps the same nodes collapsed, and not the new one.
func checkFoldAcrossReload(t *testing.T, ctx context.Context, base string, s *Session) {
	branch := func(name string) *arbor.Node {
		return arbor.Sequence(arbor.WaitTicks(1), arbor.WaitTicks(1)).Named(name)
	}
	compile := func(kids ...*arbor.Node) *arbor.Tree {
		tree, err := arbor.Compile(&arbor.Document{Main: "Folds", Trees: map[string]*arbor.Node{"Folds": arbor.Selector(kids...)}}, arbor.NewRegistry())
		if err != nil {
			t.Fatal(err)
		}
		return tree
	}
	before, after := compile(branch("a"), branch("b")), compile(branch("z"), branch("a"), branch("b"))
	var id int
	s.Do(func(m *arbor.Manager) { id = m.Add(before).ID() })
	defer s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(id)) })
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(fmt.Sprintf("%s/#agent=%d", base, id)))
	bt.Wait(t, ctx, "the tree shown", `document.querySelectorAll('#tree g.node').length === 7`, 10*time.Second)
	// collapsed lists the labels of the collapsed nodes.
	collapsed := `Array.from(document.querySelectorAll('#tree g.fold.folded')).map((f) => f.closest('g.node').querySelector('text.lbl').textContent).join(',')`
	pressFold(t, ctx, `Array.from(document.querySelectorAll('#tree g.node')).find((g) => g.querySelector('text.lbl').textContent === 'b').querySelector('g.fold')`)
	bt.Wait(t, ctx, "b collapsed", collapsed+` === 'b'`, 5*time.Second)
	s.Do(func(m *arbor.Manager) {
		if n := m.Reload(before, after); n != 1 {
			t.Errorf("reload moved %d agents, want 1", n)
		}
	})
	bt.Wait(t, ctx, "the new tree drawn, b still collapsed", `Array.from(document.querySelectorAll('#tree text.lbl')).some((e) => e.textContent === 'z') && `+collapsed+` === 'b'`, 10*time.Second)
}

// checkListKeys checks the agent list from the keyboard: one stop of the
// Tab key, the arrows move the focus, which stays on its entry when the
// list is redrawn (the blinker's status changes every tick).
func checkListKeys(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "the list", `document.querySelectorAll('#agent-list li[data-id]').length >= 3 && !!document.querySelector('#agent-list li.sel')`, 10*time.Second)
	if n := bt.Eval[int](t, ctx, `Array.from(document.querySelectorAll('#agent-list li')).filter((li) => li.tabIndex === 0).length`); n != 1 {
		t.Errorf("%d entries of the agent list are Tab stops, want 1", n)
	}
	focused := `(document.activeElement.closest && document.activeElement.closest('#agent-list li') || {dataset: {}}).dataset.id`
	bt.Run(t, ctx, chromedp.Evaluate(`document.querySelector('#agent-list li[tabindex="0"]').focus()`, nil))
	bt.Wait(t, ctx, "agent 0's entry focused", focused+` === '0'`, 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowDown), chromedp.KeyEvent(kb.ArrowDown))
	bt.Wait(t, ctx, "↓ ↓: agent 2's entry", focused+` === '2'`, 5*time.Second)
	time.Sleep(3500 * time.Millisecond) // two refreshes of the list
	if id := bt.Eval[string](t, ctx, focused); id != "2" {
		t.Errorf("after the list's refreshes the focus is on %q, want agent 2's entry", id)
	}
	bt.Run(t, ctx, chromedp.KeyEvent(kb.Enter))
	bt.Wait(t, ctx, "Enter opens agent 2, the list showing it open", `document.querySelector('#agent-title').textContent.startsWith('Agent #2 ') &&
		(document.querySelector('#agent-list li.sel') || {dataset: {}}).dataset.id === '2'`, 5*time.Second)
	// An entry clicked leaves the page's keys to the page.
	bt.Click(t, ctx, `#agent-list li[data-id="1"]`)
	label := `document.querySelector('#tl-label').textContent`
	bt.Wait(t, ctx, "agent 1 live", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') &&
		Number((/^live · tick \d+ \(record (\d+)\)/.exec(`+label+`) || [0, 0])[1]) >= 3`, 10*time.Second)
	if id := bt.Eval[string](t, ctx, focused+` || ''`); id != "" {
		t.Errorf("a clicked entry keeps the focus (agent %s)", id)
	}
	bt.Run(t, ctx, chromedp.KeyEvent(kb.ArrowLeft))
	bt.Wait(t, ctx, "←: history", label+`.startsWith('history')`, 5*time.Second)
	bt.Run(t, ctx, chromedp.KeyEvent(kb.End))
	bt.Wait(t, ctx, "End: live", label+`.startsWith('live')`, 5*time.Second)
}

// checkFindCollapsed checks the finder when its matches are hidden: Enter
// shows them one after the other, in order, expanding what hides them.
func checkFindCollapsed(t *testing.T, ctx context.Context, base string) {
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=0"))
	bt.Wait(t, ctx, "the wide tree shown", `document.querySelectorAll('#tree g.node').length === 216`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-fold-idle", chromedp.ByID))
	bt.Wait(t, ctx, "collapsed", `document.querySelectorAll('#tree g.node').length < 100`, 5*time.Second)
	bt.Run(t, ctx, chromedp.SetValue("#node-find", "", chromedp.ByID), chromedp.SendKeys("#node-find", "Attack", chromedp.ByID))
	// The 51 attack branches and their Attack actions.
	bt.Wait(t, ctx, "matches counted", `document.querySelector('#node-find-count').textContent === '102'`, 5*time.Second)
	var last int
	for k := 1; k <= 4; k++ {
		bt.Run(t, ctx, chromedp.SendKeys("#node-find", kb.Enter, chromedp.ByID))
		bt.Wait(t, ctx, "next match", fmt.Sprintf(`document.querySelector('#node-find-count').textContent === '%d/102' && !!document.querySelector('#tree g.node.selected')`, k), 5*time.Second)
		id := bt.Eval[int](t, ctx, `Number(document.querySelector('#tree g.node.selected').dataset.id)`)
		if id <= last {
			t.Errorf("match %d is node %d, after node %d", k, id, last)
		}
		last = id
	}
	bt.Run(t, ctx, chromedp.SendKeys("#node-find", kb.Escape, chromedp.ByID), chromedp.Click("#btn-unfold", chromedp.ByID))
}

// checkWorldControls checks Pause all / Resume all and Step all in the
// header: disabled without the token; every agent stops (the header counts
// them), a step runs them one tick, and the key P resumes them.
func checkWorldControls(t *testing.T, ctx context.Context, base string) {
	// Without the token the buttons are there, disabled, and say why.
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/"), chromedp.Evaluate(`sessionStorage.clear()`, nil),
		chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/"))
	bt.Wait(t, ctx, "disabled without the token", `!document.querySelector('#world-ctl').hidden && document.querySelector('#btn-pause-all').disabled &&
		document.querySelector('#btn-pause-all').title.startsWith('Needs the control token')`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(base+"/#agent=1&token="+browserToken))
	bt.Wait(t, ctx, "agent 1 live", `document.querySelector('#agent-title').textContent.startsWith('Agent #1 ') && !document.querySelector('#world-ctl').hidden`, 10*time.Second)
	clock := `document.querySelector('#clock').textContent`
	status := `document.querySelector('#agent-status').textContent`
	bt.Run(t, ctx, chromedp.Click("#btn-pause-all", chromedp.ByID))
	bt.Wait(t, ctx, "all paused", clock+`.startsWith('all paused · ') && `+status+` === 'paused' && document.querySelector('#btn-pause-all').textContent === 'Resume all'`, 5*time.Second)
	rec := `Number((/record (\d+)/.exec(document.querySelector('#tl-label').textContent) || [])[1])`
	before := bt.Eval[int](t, ctx, rec)
	bt.Run(t, ctx, chromedp.Click("#btn-step-all", chromedp.ByID))
	bt.Wait(t, ctx, "one more tick, paused again", fmt.Sprintf(`%s === %d && %s === 'paused' && %s.startsWith('all paused · ')`, rec, before+1, status, clock), 5*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(`document.activeElement && document.activeElement.blur()`, nil), chromedp.KeyEvent("p"))
	bt.Wait(t, ctx, "P: all running again", `!`+clock+`.includes('paused') && `+status+` !== 'paused' && document.querySelector('#btn-pause-all').textContent === 'Pause all'`, 5*time.Second)
}

// checkBigTree checks that a big tree (361 nodes) opens collapsed to its
// upper levels, that Expand all shows it whole, and that it is shown whole
// when the page comes back to it.
func checkBigTree(t *testing.T, ctx context.Context, base string, s *Session) {
	kids := make([]*arbor.Node, 120)
	for i := range kids {
		kids[i] = arbor.Sequence(arbor.WaitTicks(1), arbor.WaitTicks(1)).Named(fmt.Sprintf("b%d", i))
	}
	tree, err := arbor.Compile(&arbor.Document{Main: "Big", Trees: map[string]*arbor.Node{"Big": arbor.Selector(kids...)}}, arbor.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var id int
	s.Do(func(m *arbor.Manager) { id = m.Add(tree).ID() })
	defer s.Do(func(m *arbor.Manager) { m.Remove(m.Agent(id)) })
	bt.Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(fmt.Sprintf("%s/#agent=%d", base, id)))
	// The root and its 120 children: over 60 nodes, so the children are
	// collapsed (the root is always open).
	bt.Wait(t, ctx, "opened collapsed", `document.querySelectorAll('#tree g.node').length === 121 && document.querySelectorAll('#tree g.fold.folded').length === 120`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Click("#btn-unfold", chromedp.ByID))
	bt.Wait(t, ctx, "expanded", `document.querySelectorAll('#tree g.node').length === 361`, 5*time.Second)
	// Shown again in the same page, the tree keeps what the user chose.
	bt.Run(t, ctx, chromedp.Evaluate(`window.samePage = true; location.hash = '#agent=0'`, nil))
	bt.Wait(t, ctx, "agent 0", `document.querySelector('#agent-title').textContent.startsWith('Agent #0 ')`, 10*time.Second)
	bt.Run(t, ctx, chromedp.Evaluate(fmt.Sprintf(`location.hash = '#agent=%d'`, id), nil))
	bt.Wait(t, ctx, "back, still expanded", fmt.Sprintf(`window.samePage && document.querySelector('#agent-title').textContent.startsWith('Agent #%d ') &&
		document.querySelectorAll('#tree g.node').length === 361`, id), 10*time.Second)
}

// pressFold presses and releases the pointer on the fold control that the
// JavaScript expression fold finds, as a click on it does, in one turn of
// the page's event loop (a live update may redraw the tree between two).
// The page finds what was pressed from the point, so the press waits until
// the control is the element there (not off the view or covered).
func pressFold(t *testing.T, ctx context.Context, fold string) {
	t.Helper()
	press := `(() => {
		const f = (` + fold + `);
		if (!f) return 'no such fold control';
		const r = f.querySelector('rect').getBoundingClientRect(), svg = document.querySelector('#tree');
		const x = r.x + r.width / 2, y = r.y + r.height / 2, hit = document.elementFromPoint(x, y);
		if (!hit || hit.closest('g.fold') !== f) return 'at (' + Math.round(x) + ', ' + Math.round(y) + ') is ' + (hit ? hit.outerHTML.slice(0, 80) : 'nothing');
		const at = { clientX: x, clientY: y, pointerId: 1, bubbles: true };
		svg.dispatchEvent(new PointerEvent('pointerdown', at));
		svg.dispatchEvent(new PointerEvent('pointerup', at));
		return '';
	})()`
	deadline := time.Now().Add(5 * time.Second * bt.Slack)
	for {
		why := bt.Eval[string](t, ctx, press)
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("press %s: %s", fold, why)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
