// Collapsing subtrees: folds kept per tree, collapsing idle subtrees
// (at once, or after every tick shown: Auto-collapse), expanding, and
// the tree's keys.
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
// where it is on the screen: the node that shows it (itself, or the
// collapsed node that hides it) is drawn again where the one that showed
// it was. A move of the view under way goes on, by as much.
function redrawTree(anchor) {
  const t = S.tree;
  const id = anchor >= 0 && anchor < t.nodes.length ? anchor : 0;
  const a = t.nodes[shownAt(id)];
  const before = { x: a.x, y: a.y };
  const goal = S.goal && S.goal.anim === S.anim ? S.goal.view : null;
  drawTree();
  const b = t.nodes[shownAt(id)];
  const dx = before.x - b.x;
  const dy = before.y - b.y;
  const v = S.view;
  v.x += dx * v.k;
  v.y += dy * v.k;
  applyView();
  if (goal) panTo({ k: goal.k, x: goal.x + dx * goal.k, y: goal.y + dy * goal.k }, true);
  if (S.shown) paint(S.shown.nodes);
  if (S.agent) {
    markBreakpoints(S.agent.breakpoints || []);
    markForces(forcesOf(S.agent));
  }
}

// toggleFold collapses node id, or expands it when it is collapsed.
// With Auto-collapse on, the node stays as the user left it.
function toggleFold(id) {
  const ids = new Set(S.folded);
  const open = ids.delete(id);
  if (!open) ids.add(id);
  if (AUTO.on) pinsOf(S.tree).set(foldKeys(S.tree)[id], open);
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
// (With Auto-collapse on, those the user collapsed are his no longer:
// the node shown, selected, keeps them open.)
function reveal(id) {
  const t = S.tree;
  if (!t || id < 0 || id >= t.nodes.length || t.nodes[id].shown) return;
  const ids = new Set(S.folded);
  const pins = AUTO.on ? pinsOf(t) : null;
  const keys = foldKeys(t);
  for (let i = drawParent(id); i >= 0; i = drawParent(i)) {
    ids.delete(i);
    if (pins && pins.get(keys[i]) === false) pins.delete(keys[i]);
  }
  setFolds(ids, shownAt(id));
}

// idleFolds lists the nodes to collapse at the tick shown (letters: its
// node statuses) so that what is open is: the root; the branches in
// which a node runs; the selected node (shown, perhaps collapsed). For
// Auto-collapse (auto) besides: when nothing runs, the branch the tick
// took (visitedPath, as Follow); the nodes with a breakpoint or a force
// (shown); the nodes of recent (shown: they ran or changed lately); and
// the nodes the user expanded or collapsed (pins: fold key → open).
function idleFolds(letters, auto, recent, pins) {
  const t = S.tree;
  const ns = t.nodes;
  const keep = new Set();
  const mark = (i) => { for (; i >= 0 && !keep.has(i); i = drawParent(i)) keep.add(i); };
  const show = (i) => { if (i > 0 && i < ns.length) mark(drawParent(i)); };
  let running = false;
  for (let i = 0; i < ns.length; i++) {
    if ((letters[i] || '.').toLowerCase() === 'r') {
      mark(i);
      running = true;
    }
  }
  show(S.selected);
  mark(0);
  if (auto) {
    if (!running) mark(visitedPath(letters).pop() ?? 0);
    if (S.agent && !S.rec) for (const b of S.agent.breakpoints || []) show(b.node);
    for (const f of forcesOf(S.agent)) show(f.node);
    for (const i of recent) show(i);
  }
  const keys = foldKeys(t);
  const ids = new Set();
  const todo = [0];
  while (todo.length) {
    for (const c of drawKids(ns[todo.pop()])) {
      if (!drawKids(ns[c]).length) continue;
      const pin = pins ? pins.get(keys[c]) : undefined;
      if (pin === false || (pin !== true && !keep.has(c))) ids.add(c);
      else todo.push(c);
    }
  }
  return ids;
}

// foldIdle collapses every subtree in which nothing runs (at the tick
// shown): the tree shrinks to the running branches, the root's other
// children and the selected node. With Auto-collapse on, it forgets the
// nodes the user expanded or collapsed, and collapses as Auto-collapse
// does.
function foldIdle() {
  const t = S.tree;
  if (!t || !t.nodes.length) return;
  if (AUTO.on) {
    pinsOf(t).clear();
    if (S.shown) autoFold(S.shown, true);
    return;
  }
  setFolds(idleFolds((S.shown && S.shown.nodes) || '', false), 0);
  focus(S.followed >= 0 ? S.followed : 0, false);
}

// unfoldAll expands every collapsed node (and turns Auto-collapse off:
// it would collapse them again).
function unfoldAll() {
  if (!S.tree) return;
  if (AUTO.on) setAutoFold(false);
  setFolds([], S.selected >= 0 ? S.selected : 0);
  focus(S.selected >= 0 ? S.selected : S.followed >= 0 ? S.followed : 0, false);
}

// Auto-collapse (the Auto button, or the key A; the choice is kept in
// localStorage): after every tick shown, live or from the history, the
// tree is collapsed as idleFolds says, the running path expanded. A tick
// of the history (or a recording) is collapsed by its own statuses;
// live, a branch that ran or changed status within the last AUTO_RECENT
// ms stays open too, so that a running path that moves back and forth,
// or a branch just halted, does not make the tree jump at every tick. A
// node the user expands or collapses (its − or +N, the tree's keys)
// stays so until Auto-collapse is turned off. The tree is drawn again
// only when what is open changes, the node in view that matters
// (autoAnchor) staying where it is on the screen.
const AUTO = {
  on: false,
  pins: new Map(), // tree name → Map(fold key → true: expanded by the user, false: collapsed)
  recent: new Map(), // node id → when (performance.now()) it last ran or changed status, live
  prev: null, // the statuses of the last live tick shown, or null
  tree: null, // the tree (and agent) recent and prev are about
  agent: null,
  pressed: false, // the pointer is pressed on the tree: the folds wait
};
const AUTO_KEY = 'arbor-autofold'; // localStorage: 'on' when on
const AUTO_RECENT = 2000;

function pinsOf(t) {
  if (!AUTO.pins.has(t.name)) AUTO.pins.set(t.name, new Map());
  return AUTO.pins.get(t.name);
}

// autoFold collapses the tree for tick v as Auto-collapse does (show
// calls it for each tick shown, before painting it); it says whether the
// tree was drawn again. now: even with the pointer pressed on the tree.
function autoFold(v, now) {
  const t = S.tree;
  if (!AUTO.on || !t || !t.nodes.length || !v || !v.nodes || (AUTO.pressed && !now)) return false;
  if (AUTO.tree !== t || AUTO.agent !== S.agentId) {
    Object.assign(AUTO, { tree: t, agent: S.agentId, recent: new Map(), prev: null });
  }
  const recent = [];
  if (v.live && !S.rec) {
    const at = performance.now();
    const prev = AUTO.prev;
    for (let i = 0; i < t.nodes.length; i++) {
      const st = (v.nodes[i] || '.').toLowerCase();
      if (st === 'r' || (prev && (prev[i] || '.').toLowerCase() !== st)) AUTO.recent.set(i, at);
    }
    AUTO.prev = v.nodes;
    for (const [i, when] of AUTO.recent) {
      if (at - when > AUTO_RECENT) AUTO.recent.delete(i);
      else recent.push(i);
    }
  } else {
    AUTO.prev = null; // the next live tick is not compared with a tick of the history
  }
  const ids = idleFolds(v.nodes, true, recent, pinsOf(t));
  // What is drawn changes only with the collapsed nodes shown.
  let same = true;
  for (const i of S.folded) if (t.nodes[i].shown && !ids.has(i)) same = false;
  for (const i of ids) if (!S.folded.has(i)) same = false;
  if (same) return false;
  setFolds(ids, autoAnchor());
  return true;
}

// autoAnchor is the node that stays in place when Auto-collapse draws
// the tree again: the selected node if it is in view, else the one
// Follow follows if it is, else the node nearest the view's centre.
function autoAnchor() {
  const ns = S.tree.nodes;
  const goal = viewGoal();
  for (const i of [S.selected, S.follow ? S.followed : -1]) if (i >= 0 && i < ns.length && inView(i, goal)) return i;
  const [W, H] = sizeOf($('#tree'), 800, 500);
  let best = 0;
  let dist = Infinity;
  for (const n of ns) {
    if (!n.shown) continue;
    const d = Math.hypot(goal.x + n.x * goal.k - W / 2, goal.y + (n.y + NODE_H / 2) * goal.k - H / 2);
    if (d < dist) { dist = d; best = n.id; }
  }
  return best;
}

// setAutoFold turns Auto-collapse on (collapsing at once) or off (the
// tree stays as it is; the nodes the user expanded or collapsed are
// forgotten).
function setAutoFold(on) {
  AUTO.on = on;
  try {
    if (on) localStorage.setItem(AUTO_KEY, 'on');
    else localStorage.removeItem(AUTO_KEY);
  } catch (_) { /* private mode */ }
  const b = $('#btn-fold-auto');
  b.classList.toggle('on', on);
  b.setAttribute('aria-pressed', on ? 'true' : 'false');
  b.title = on
    ? 'Auto-collapse is on: after every tick shown, the subtrees in which nothing runs are collapsed and the running path is expanded; a node you expand or collapse stays so. Click to turn it off (A)'
    : 'Auto-collapse: after every tick shown, collapse the subtrees in which nothing runs and expand the running path (A)';
  AUTO.pins.clear();
  Object.assign(AUTO, { recent: new Map(), prev: null });
  if (on && S.shown && autoFold(S.shown, true) && S.follow) {
    S.followed = -1;
    followActive(S.shown, false);
  }
}

// renderFoldTitles says where the fold controls are, in the layout shown.
function renderFoldTitles() {
  $('#btn-fold-idle').title = 'Collapse every subtree in which nothing runs, once (C); the − and +N ' +
    (S.lr ? 'on a node\'s right side' : 'under a node') + ' collapse and expand it';
}

function setupAutoFold() {
  let on = false;
  try { on = localStorage.getItem(AUTO_KEY) === 'on'; } catch (_) { /* private mode */ }
  setAutoFold(on);
  $('#btn-fold-auto').onclick = () => setAutoFold(!AUTO.on);
  // A press on the tree (a drag, a click on a node or a fold control)
  // is not moved under the pointer.
  const svg = $('#tree');
  svg.addEventListener('pointerdown', () => { AUTO.pressed = true; });
  for (const ev of ['pointerup', 'pointercancel', 'lostpointercapture']) svg.addEventListener(ev, () => { AUTO.pressed = false; });
}
