// Collapsing subtrees: folds kept per tree, collapsing idle subtrees,
// expanding, and the tree's keys.
'use strict';

// shownAt is the node that shows node id: itself, or the collapsed node
// that hides it.
function shownAt(id) {
  const ns = S.tree.nodes;
  while (id > 0 && !ns[id].shown) id = drawParent(id);
  return id;
}

// setFolds collapses the nodes of ids and expands all others, then draws
// the tree again. The node anchor stays where it is on the screen.
function setFolds(ids, anchor) {
  const t = S.tree;
  const folds = foldsOf(t);
  const keys = foldKeys(t);
  folds.clear();
  for (const i of ids) folds.add(keys[i]);
  redrawTree(anchor);
}

// redrawTree draws the tree again (other nodes collapsed, another
// layout), with the tick shown and the marks. The node anchor stays
// where it is on the screen.
function redrawTree(anchor) {
  const t = S.tree;
  const a = t.nodes[anchor >= 0 && anchor < t.nodes.length ? anchor : 0];
  const before = { x: a.x, y: a.y };
  drawTree();
  const v = S.view;
  v.x += (before.x - a.x) * v.k;
  v.y += (before.y - a.y) * v.k;
  applyView();
  if (S.shown) paint(S.shown.nodes);
  if (S.agent) {
    markBreakpoints(S.agent.breakpoints || []);
    markForces(forcesOf(S.agent));
  }
}

// toggleFold collapses node id, or expands it when it is collapsed.
function toggleFold(id) {
  const ids = new Set(S.folded);
  if (!ids.delete(id)) ids.add(id);
  setFolds(ids, id);
}

// TURNED maps the arrows of the left to right layout to those of the
// top-down one.
const TURNED = { ArrowLeft: 'ArrowUp', ArrowRight: 'ArrowDown', ArrowUp: 'ArrowLeft', ArrowDown: 'ArrowRight' };

// setupTreeKeys: with the tree focused from the keyboard (Tab), the
// arrow keys move the selection: ↑ to the parent, ↓ to the first child
// (expanding a collapsed node), ← and → to the siblings (left to right,
// turned with the tree: ← parent, → child, ↑ and ↓ siblings); Home
// selects the root and Enter collapses or expands the selected node.
// The view follows the selection.
function setupTreeKeys() {
  const svg = $('#tree');
  // keyFocus: the tree got the focus from the keyboard (Tab), not from a
  // click; lastInput is the kind of the page's last input event.
  let keyFocus = false;
  let lastInput = 'pointer';
  document.addEventListener('keydown', () => { lastInput = 'key'; }, true);
  document.addEventListener('pointerdown', () => { lastInput = 'pointer'; }, true);
  // A click in the tree focused from the keyboard leaves it so (its
  // focus ring stays too).
  svg.addEventListener('focus', () => { keyFocus = lastInput === 'key'; });
  svg.addEventListener('keydown', (e) => {
    const t = S.tree;
    // Focused by a click, the page's own keys apply: ← and → step
    // through the history.
    if (!t || !t.nodes.length || e.ctrlKey || e.metaKey || e.altKey || !keyFocus) return;
    const sel = S.selected >= 0 && S.selected < t.nodes.length ? shownAt(S.selected) : -1;
    const siblings = (i) => (drawParent(i) >= 0 ? drawKids(t.nodes[drawParent(i)]) : [i]);
    let next = -1;
    const key = S.lr ? TURNED[e.key] || e.key : e.key;
    switch (key) {
      case 'Home': next = 0; break;
      case 'ArrowUp': next = sel < 0 ? 0 : Math.max(0, drawParent(sel)); break;
      case 'ArrowDown':
        if (sel < 0) next = 0;
        else if (drawKids(t.nodes[sel]).length) {
          if (S.folded.has(sel)) toggleFold(sel);
          next = drawKids(t.nodes[sel])[0];
        }
        break;
      case 'ArrowLeft':
      case 'ArrowRight': {
        if (sel < 0) { next = 0; break; }
        const sib = siblings(sel);
        const k = sib.indexOf(sel) + (key === 'ArrowLeft' ? -1 : 1);
        if (k >= 0 && k < sib.length) next = sib[k];
        break;
      }
      case 'Enter':
        if (sel < 0) next = 0;
        else if (drawKids(t.nodes[sel]).length) toggleFold(sel);
        break;
      default: return;
    }
    // The page's own keys (← → history) do not apply here.
    e.preventDefault();
    e.stopPropagation();
    if (next < 0) return;
    selectNode(next);
    if (!inView(next, viewGoal())) {
      setFollow(false);
      const n = t.nodes[next];
      const [W, H] = sizeOf(svg, 800, 500);
      const k = Math.max(S.view.k, 0.85);
      panTo({ k, x: W / 2 - n.x * k, y: H / 2 - (n.y + 20) * k }, true);
    }
  });
}

// reveal expands the collapsed nodes above node id, so that it is shown.
function reveal(id) {
  const t = S.tree;
  if (!t || id < 0 || id >= t.nodes.length || t.nodes[id].shown) return;
  const ids = new Set(S.folded);
  for (let i = drawParent(id); i >= 0; i = drawParent(i)) ids.delete(i);
  setFolds(ids, shownAt(id));
}

// foldIdle collapses every subtree in which nothing runs (at the tick
// shown): the tree shrinks to the running branches, the root's other
// children and the selected node.
function foldIdle() {
  const t = S.tree;
  if (!t || !t.nodes.length) return;
  const letters = (S.shown && S.shown.nodes) || '';
  const keep = new Set();
  const mark = (i) => { for (; i >= 0 && !keep.has(i); i = drawParent(i)) keep.add(i); };
  for (let i = 0; i < t.nodes.length; i++) if ((letters[i] || '.').toLowerCase() === 'r') mark(i);
  if (S.selected > 0 && S.selected < t.nodes.length) mark(drawParent(S.selected)); // shown, perhaps collapsed
  mark(0);
  const ids = new Set();
  const walk = (i) => {
    for (const c of drawKids(t.nodes[i])) {
      if (keep.has(c)) walk(c);
      else if (drawKids(t.nodes[c]).length) ids.add(c);
    }
  };
  walk(0);
  setFolds(ids, 0);
  focus(S.followed >= 0 ? S.followed : 0, false);
}

function unfoldAll() {
  if (!S.tree) return;
  setFolds([], S.selected >= 0 ? S.selected : 0);
  focus(S.selected >= 0 ? S.selected : S.followed >= 0 ? S.followed : 0, false);
}

// renderFoldTitles says where the fold controls are, in the layout shown.
function renderFoldTitles() {
  $('#btn-fold-idle').title = 'Collapse every subtree in which nothing runs (C); the − and +N ' +
    (S.lr ? 'on a node\'s right side' : 'under a node') + ' collapse and expand it';
}
