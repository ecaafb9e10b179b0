// Zoom and pan: the tree's view, Fit, focusing a node, animations,
// Follow, and the pointer and wheel on the tree.
'use strict';

// applyView draws the view. Any change but a step of an animation
// (moved === false) stops the animation under way.
function applyView(moved) {
  if (moved !== false) S.anim++;
  const v = S.view;
  $('#viewport').setAttribute('transform', `translate(${v.x},${v.y}) scale(${v.k})`);
  minimapView();
}

// READABLE is the smallest scale at which the nodes read well: a tree
// that fits the view only smaller is shown in part (focusView), and the
// minimap shows it whole.
const READABLE = 0.7;

// fitScale is the scale at which the whole tree fits the view (at most
// 1.4, and before room is made for the view's buttons).
function fitScale() {
  const [W, H] = sizeOf($('#tree'), 800, 500);
  const t = S.tree;
  return Math.min(W / (t.width + 20), (H - 30) / (t.height + 20), 1.4);
}

// fitView is the view showing the whole tree. Centred: a wide, flat
// tree is a band across the middle, where the zoom buttons (which zoom
// about the centre) keep it in view.
function fitView() {
  const svg = $('#tree');
  const [W, H] = sizeOf(svg, 800, 500);
  const t = S.tree;
  let k = fitScale();
  // The view's buttons sit over the top right corner: a tree as wide as
  // to reach under them starts below them.
  let top = 8;
  const [cw, ch] = sizeOf($('#view-controls'));
  if ((W + t.width * k) / 2 > W - 8 - cw) {
    top = 16 + ch;
    k = Math.min(k, Math.max(0.05, (H - 30 - top) / (t.height + 20)));
  }
  return { k, x: (W - t.width * k) / 2, y: Math.max(top, (H - 30 - t.height * k) / 2) };
}

function fit() {
  if (!S.tree) return;
  S.view = fitView();
  applyView();
}

// focusView is the view that shows the tree at a readable size: all of
// it when it fits, else centred on node id (the running leaf, or the
// root): across, and down too when the tree is too tall for the view;
// a tree that fits the view's height is centred in it, below the view's
// buttons when there is room. Left to right, the same turned: centred
// on the node up and down when the tree is too tall, and across when it
// is too wide (the root's column kept at the left side); centred in the
// view the way it fits. Null without a tree.
function focusView(id) {
  const svg = $('#tree');
  const [W, H] = sizeOf(svg, 800, 500);
  const t = S.tree;
  if (!t || !t.nodes.length) return null;
  const fitK = fitScale();
  if (fitK >= READABLE) return fitView();
  const n = t.nodes[shownAt(id >= 0 && id < t.nodes.length ? id : 0)];
  const k = Math.max(fitK, 0.85);
  if (S.lr) {
    const x = (t.width + 20) * k <= W ? (W - t.width * k) / 2 : Math.min(8, W / 2 - n.x * k);
    const y = (t.height + 20) * k <= H - 30 ? (H - 30 - t.height * k) / 2 : H / 2 - (n.y + 20) * k;
    return { k, x, y };
  }
  let y = Math.min(8, H / 2 - (n.y + 20) * k);
  if ((t.height + 20) * k <= H - 30) {
    const [, ch] = sizeOf($('#view-controls'));
    const top = (t.height + 20) * k + 16 + ch <= H - 30 ? 16 + ch : 8;
    y = Math.max(top, (H - 30 - t.height * k) / 2);
  }
  return { k, x: W / 2 - n.x * k, y };
}

// focus shows node id at a readable size (focusView), smoothly or at once.
function focus(id, smooth) {
  const target = focusView(id);
  if (target) panTo(target, smooth);
}

// panTo moves the view to target: at once, or in a short animation that
// any other change of the view stops.
function panTo(target, smooth) {
  if (!smooth) {
    S.view = target;
    applyView();
    return;
  }
  const from = Object.assign({}, S.view);
  const t0 = performance.now();
  const anim = ++S.anim;
  S.goal = { view: target, anim };
  const stepAnim = (now) => {
    if (anim !== S.anim) return; // the view changed since
    const f = Math.min(1, (now - t0) / 300);
    const e = f * (2 - f);
    S.view = { k: from.k + (target.k - from.k) * e, x: from.x + (target.x - from.x) * e, y: from.y + (target.y - from.y) * e };
    applyView(false);
    if (f < 1) requestAnimationFrame(stepAnim);
  };
  requestAnimationFrame(stepAnim);
}

// viewGoal is where the view is going: the end of the animation under
// way, or the view.
function viewGoal() {
  return S.goal && S.goal.anim === S.anim ? S.goal.view : S.view;
}

const sameView = (a, b) => Math.abs(a.x - b.x) < 0.5 && Math.abs(a.y - b.y) < 0.5 && Math.abs(a.k - b.k) < 1e-4;

// inView says whether node id is in view v, clear of its sides by a
// margin (and above the legend's band at the bottom).
function inView(id, v) {
  const svg = $('#tree');
  const [W, H] = sizeOf(svg, 800, 500);
  const n = S.tree.nodes[shownAt(id)];
  const m = Math.min(24, W / 10);
  const x0 = v.x + (n.x - n.w / 2) * v.k;
  const y0 = v.y + n.y * v.k;
  const x1 = x0 + n.w * v.k;
  const y1 = y0 + NODE_H * v.k;
  // The view's buttons (top right, 8 px from the corner) hide what is
  // under them, and so does the minimap (bottom right).
  const [cw, ch] = sizeOf($('#view-controls'));
  const underButtons = x1 > W - 8 - cw && y0 < 8 + ch;
  const mm = minimapBox();
  const underMap = mm && x1 > mm[0] && x0 < mm[2] && y1 > mm[1] && y0 < mm[3];
  return x0 >= m && x1 <= W - m && y0 >= 0 && y1 <= H - 30 && !underButtons && !underMap;
}

function setFollow(on) {
  S.follow = on;
  $('#btn-follow').classList.toggle('on', on);
  if (on && S.shown) followActive(S.shown, true);
}

// visitedPath is the path from the root to the deepest node visited in
// a tick (letters: its node statuses), of several the last in the
// tree's order (the one that ran last); [] when none was. Guards are
// left out, as in the running paths.
function visitedPath(letters) {
  const t = S.tree;
  if (!t || !letters) return [];
  let deepest = -1;
  for (let i = 0; i < t.nodes.length; i++) {
    const ch = letters[i] || '.';
    const n = t.nodes[i];
    if (ch === ch.toLowerCase() || n.inGuard || n.guardOf >= 0) continue;
    if (deepest < 0 || (S.depth[i] || 0) >= (S.depth[deepest] || 0)) deepest = i;
  }
  const path = [];
  for (let i = deepest; i >= 0; i = t.nodes[i].parent) path.unshift(i);
  return path;
}

// followActive keeps the first running leaf of tick v in view; when
// nothing runs (a tree whose actions succeed at once), the deepest node
// visited in it (visitedPath), so that the branch taken comes into view.
// The view moves only when the leaf is out of it (or near its sides): a
// running node that moves within the view does not pan it on every
// update. It then centres the leaf's parent if that shows the leaf, so
// that its siblings, which often run next, are in view too; else the
// leaf. force (Follow clicked): centre it anyway.
function followActive(v, force) {
  // Paused at a breakpoint, the view stays on the node of the hit.
  if (!S.follow || !S.tree || (S.breakNode >= 0 && !force)) return;
  const paths = v.running || [];
  const path = paths.length ? paths[0] : visitedPath(v.nodes);
  if (!path.length) return;
  const leaf = path[path.length - 1];
  if (leaf === S.followed && !force) return;
  S.followed = leaf;
  const goal = viewGoal();
  if (!force && inView(leaf, goal)) return;
  let target = path.length > 1 ? focusView(path[path.length - 2]) : null;
  if (!target || !inView(leaf, target)) target = focusView(leaf);
  if (target && !sameView(target, goal)) panTo(target, true);
}

function zoomAt(px, py, f) {
  const v = S.view;
  const k = Math.min(6, Math.max(Math.min(0.05, S.tree ? fitView().k : 0.05), v.k * f));
  f = k / v.k;
  v.x = px - (px - v.x) * f;
  v.y = py - (py - v.y) * f;
  v.k = k;
  applyView();
}

function setupPanZoom() {
  const svg = $('#tree');
  svg.addEventListener('wheel', (e) => {
    e.preventDefault();
    setFollow(false);
    zoomAt(e.offsetX, e.offsetY, Math.exp(-e.deltaY * 0.0015));
  }, { passive: false });
  let drag = null;
  // A press on a node that can move, with editing on, drags the node
  // (drag.js); any other press pans the view.
  svg.addEventListener('pointerdown', (e) => {
    if (e.button === 2) return; // the context menu's (shape.js)
    drag = { x: e.clientX, y: e.clientY, vx: S.view.x, vy: S.view.y, moved: false, node: nodeDragFor(e) };
    svg.setPointerCapture(e.pointerId);
  });
  svg.addEventListener('pointermove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x;
    const dy = e.clientY - drag.y;
    if (drag.node) {
      if (!drag.moved && Math.abs(dx) + Math.abs(dy) <= DRAG_START) return;
      drag.moved = true;
      dragNodeTo(drag.node, e.clientX, e.clientY);
      return;
    }
    if (Math.abs(dx) + Math.abs(dy) > 3 && !drag.moved) { drag.moved = true; svg.classList.add('dragging'); setFollow(false); }
    S.view.x = drag.vx + dx;
    S.view.y = drag.vy + dy;
    applyView();
  });
  svg.addEventListener('pointercancel', () => {
    if (drag && drag.node) cancelNodeDrag(drag.node);
    drag = null;
    svg.classList.remove('dragging');
  });
  // Escape while dragging a node puts it back.
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Escape' || !drag || !drag.node || !drag.moved) return;
    e.preventDefault();
    e.stopPropagation();
    cancelNodeDrag(drag.node);
    drag = null;
  }, true);
  svg.addEventListener('pointerup', (e) => {
    const d = drag;
    drag = null;
    svg.classList.remove('dragging');
    if (d && d.node && d.moved) {
      dropNode(d.node);
      return;
    }
    if (d && !d.moved) {
      const target = document.elementFromPoint(e.clientX, e.clientY);
      const fold = target && target.closest('g.fold');
      const g = target && target.closest('g.node');
      if (fold) toggleFold(Number(fold.getAttribute('data-fold')));
      else if (g) selectNode(Number(g.getAttribute('data-id')));
    }
  });
  $('#btn-fit').onclick = () => { setFollow(false); fit(); };
  $('#btn-fold-idle').onclick = foldIdle;
  setupTreeKeys();
  $('#btn-unfold').onclick = unfoldAll;
  $('#btn-follow').onclick = () => setFollow(!S.follow);
  const find = $('#node-find');
  find.addEventListener('input', () => findNodes(find.value));
  // "/" anywhere but in a text field goes to the node finder.
  document.addEventListener('keydown', (e) => {
    const el = document.activeElement;
    if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || $('#agent-view').hidden ||
      (el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable))) return;
    e.preventDefault();
    find.focus();
    find.select();
  });
  find.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      findNext(e.shiftKey ? -1 : 1);
    } else if (e.key === 'Escape') {
      find.value = '';
      findNodes('');
    }
  });
  $('#btn-zoom-in').onclick = () => { setFollow(false); zoomAt(svg.clientWidth / 2, svg.clientHeight / 2, 1.25); };
  $('#btn-zoom-out').onclick = () => { setFollow(false); zoomAt(svg.clientWidth / 2, svg.clientHeight / 2, 0.8); };
  let resizing = 0;
  window.addEventListener('resize', () => {
    drawStrip();
    // Following, the view keeps the running node (or the whole tree) in
    // the new size.
    cancelAnimationFrame(resizing);
    resizing = requestAnimationFrame(() => {
      if (S.follow && S.tree && !$('#agent-view').hidden) focus(S.breakNode >= 0 ? S.breakNode : S.followed, false);
    });
  });
}
