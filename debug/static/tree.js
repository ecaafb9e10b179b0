// Drawing the tree: layout (top-down or left to right: the layout
// button), the SVG nodes and edges, fold buttons, and painting the
// nodes' statuses (paint, sizeOf).
'use strict';

// drawKids lists the children a node is drawn with: its guard first.
const drawKids = (n) => (n.guard >= 0 ? [n.guard] : []).concat(n.children);

// drawParent is the node a node is drawn under (a guard's root under the
// node it guards), -1 for the root.
function drawParent(i) {
  const n = S.tree.nodes[i];
  return n.guardOf >= 0 ? n.guardOf : n.parent;
}

// layoutTree places the nodes shown (not hidden in a collapsed node) as
// the server's layout does for the whole tree: a tidy tree in which each
// subtree is drawn apart, children as close as their subtrees' contours
// allow, each parent centred on its first and last child. Top-down, the
// levels are rows and siblings side by side; left to right (lr), the
// levels are columns, as wide as their widest node, with siblings stacked
// in them: the same packing, along y. It sets the nodes' x (centre), y
// (top) and shown, and the tree's width and height.
function layoutTree(t, folded, lr) {
  const ns = t.nodes;
  if (!ns.length) return;
  const kidsOf = (i) => (folded.has(i) ? [] : drawKids(ns[i]));
  const size = (i) => (lr ? NODE_H : ns[i].w); // across the levels
  const gap = lr ? ROW_GAP : SIBLING_GAP;
  const offset = new Float64Array(ns.length); // centre relative to the parent's centre
  const contours = []; // per subtree: [low, high] of each level, relative to its root's centre
  const stack = [[0, 0]]; // post-order, iteratively (trees may be deep)
  while (stack.length) {
    const f = stack[stack.length - 1];
    const kids = kidsOf(f[0]);
    if (f[1] < kids.length) {
      stack.push([kids[f[1]++], 0]);
      continue;
    }
    stack.pop();
    const i = f[0];
    const half = size(i) / 2;
    if (!kids.length) {
      contours[i] = [[-half, half]];
      continue;
    }
    const merged = [];
    kids.forEach((c, k) => {
      const cc = contours[c];
      let x = 0;
      if (k > 0) {
        x = -Infinity;
        for (let l = 0; l < cc.length && l < merged.length; l++) x = Math.max(x, merged[l][1] + gap - cc[l][0]);
      }
      offset[c] = x;
      cc.forEach(([l, r], lvl) => {
        if (lvl < merged.length) {
          merged[lvl][0] = Math.min(merged[lvl][0], l + x);
          merged[lvl][1] = Math.max(merged[lvl][1], r + x);
        } else {
          merged.push([l + x, r + x]);
        }
      });
      contours[c] = null;
    });
    const centre = (offset[kids[0]] + offset[kids[kids.length - 1]]) / 2;
    for (const c of kids) offset[c] -= centre;
    for (const m of merged) { m[0] -= centre; m[1] -= centre; }
    contours[i] = [[-half, half], ...merged];
  }
  let low = 0;
  for (const [l] of contours[0]) low = Math.min(low, l);
  for (const n of ns) n.shown = false;
  // Each node's centre across the levels, and its level.
  const across = new Float64Array(ns.length);
  const level = new Int32Array(ns.length);
  const shown = [];
  const todo = [[0, -low + 10, 0]];
  while (todo.length) {
    const [i, a, depth] = todo.pop();
    ns[i].shown = true;
    across[i] = a;
    level[i] = depth;
    shown.push(i);
    for (const c of kidsOf(i)) todo.push([c, a + offset[c], depth + 1]);
  }
  // Left to right, the columns' left sides: each level's nodes start
  // together, so that their labels line up.
  const colX = [10];
  if (lr) {
    const widest = [];
    for (const i of shown) widest[level[i]] = Math.max(widest[level[i]] || 0, ns[i].w);
    for (let d = 0; d < widest.length; d++) colX.push(colX[d] + widest[d] + COLUMN_GAP);
  }
  let width = 0;
  let height = 0;
  for (const i of shown) {
    const n = ns[i];
    if (lr) {
      n.x = colX[level[i]] + n.w / 2;
      n.y = across[i] - NODE_H / 2;
    } else {
      n.x = across[i];
      n.y = level[i] * LEVEL_GAP + 10;
    }
    // Left to right, a collapsed node's +N sticks out on its right.
    width = Math.max(width, n.x + n.w / 2 + (lr && folded.has(i) ? 44 : 10));
    height = Math.max(height, n.y + NODE_H + 10);
  }
  t.width = width;
  t.height = height;
}

// foldKeys gives each node of t a key that names it by content, not by
// position, so that collapsed nodes stay the same nodes when a hot
// reload inserts or removes others: the types and names from the root
// down, each with its rank among the siblings of the same type and name.
function foldKeys(t) {
  if (t.foldKeys) return t.foldKeys;
  const keys = [];
  const walk = (i, prefix) => {
    const n = t.nodes[i];
    keys[i] = prefix;
    const seen = new Map();
    for (const c of drawKids(n)) {
      const k = t.nodes[c];
      const base = (c === n.guard ? 'guard:' : '') + k.type + ':' + (k.name || '');
      const rank = seen.get(base) || 0;
      seen.set(base, rank + 1);
      walk(c, prefix + '/' + base + '#' + rank);
    }
  };
  if (t.nodes.length) walk(0, t.nodes[0].type + ':' + (t.nodes[0].name || ''));
  t.foldKeys = keys;
  return keys;
}

// foldsOf is the set of the collapsed nodes' keys (foldKeys) of trees of
// t's name. A big tree, the first time the page shows its name, opens
// collapsed: its levels from the root down while they add up to at most
// BIG_SHOWN nodes, the nodes below collapsed.
const BIG_TREE = 300;
const BIG_SHOWN = 60;
function foldsOf(t) {
  if (!S.folds.has(t.name)) {
    const folds = new Set();
    if (t.nodes.length > BIG_TREE) {
      const keys = foldKeys(t);
      let shown = 1;
      const queue = [0];
      for (let q = 0; q < queue.length; q++) {
        const i = queue[q];
        const kids = drawKids(t.nodes[i]);
        if (!kids.length) continue;
        if (i !== 0 && shown + kids.length > BIG_SHOWN) {
          folds.add(keys[i]);
          continue;
        }
        shown += kids.length;
        queue.push(...kids);
      }
    }
    S.folds.set(t.name, folds);
  }
  return S.folds.get(t.name);
}

function drawTree() {
  const vp = $('#viewport');
  vp.replaceChildren();
  const t = S.tree;
  S.nodeEls = [];
  S.edgeEls = [];
  S.depth = [];
  const edges = s('g', { class: 'edges' });
  const nodes = s('g', { class: 'nodes' });
  S.forceLayer = s('g', { class: 'force-marks' });
  S.bpLayer = s('g', { class: 'bp-marks' });
  S.bpKey = '';
  S.forceKey = '';
  vp.append(edges, nodes, S.forceLayer, S.bpLayer);
  const NH = NODE_H;
  // Depths, for indentation in the statistics table; the nodes each
  // collapsed node hides.
  const folds = foldsOf(t);
  const keys = foldKeys(t);
  S.folded = new Set(t.nodes.filter((n) => drawKids(n).length > 0 && folds.has(keys[n.id])).map((n) => n.id));
  S.hiddenIn = new Map();
  const below = []; // the number of nodes under each node
  const walk = (i, d, hider) => {
    S.depth[i] = d;
    if (hider >= 0) S.hiddenIn.get(hider).push(i);
    else if (S.folded.has(i)) { hider = i; S.hiddenIn.set(i, []); }
    below[i] = 0;
    for (const c of drawKids(t.nodes[i])) below[i] += 1 + walk(c, d + 1, hider);
    return below[i];
  };
  if (t.nodes.length) walk(0, 0, -1);
  layoutTree(t, S.folded, S.lr);
  for (const n of t.nodes) {
    if (!n.shown || S.folded.has(n.id)) continue;
    for (const c of drawKids(n)) {
      const k = t.nodes[c];
      let d;
      if (S.lr) {
        // From the parent's right side to the child's left: straight to
        // the end of the parent's column (its nodes differ in width),
        // then a curve across the gap between the columns.
        const y1 = n.y + NH / 2;
        const y2 = k.y + NH / 2;
        const x2 = k.x - k.w / 2;
        const mx = x2 - COLUMN_GAP / 2;
        d = `M${n.x + n.w / 2},${y1} H${x2 - COLUMN_GAP} C${mx},${y1} ${mx},${y2} ${x2},${y2}`;
      } else {
        const y1 = n.y + NH;
        const y2 = k.y;
        const my = (y1 + y2) / 2;
        d = `M${n.x},${y1} C${n.x},${my} ${k.x},${my} ${k.x},${y2}`;
      }
      const path = s('path', { d, class: 'edge' + (c === n.guard ? ' guard' : '') });
      edges.append(path);
      S.edgeEls[c] = path;
    }
  }
  for (const n of t.nodes) {
    if (!n.shown) continue;
    const g = s('g', { class: 'node st-never', 'data-id': n.id, 'data-status': 'never', transform: `translate(${n.x - n.w / 2},${n.y})` });
    const title = s('title');
    title.textContent = [n.type + (n.name ? ' "' + n.name + '"' : ''), n.path,
      n.params ? JSON.stringify(n.params) : '', n.abort ? 'abort: ' + n.abort : '', n.inGuard ? 'guard condition (evaluated, no running state)' : ''].filter(Boolean).join('\n');
    g.append(title, s('rect', { width: n.w, height: NH, rx: 6 }));
    const maxChars = Math.floor((n.w - 14) / 6.6);
    const cut = (str, room) => (str.length > room ? str.slice(0, room - 1) + '…' : str);
    const t1 = s('text', { x: 8, y: 16, class: 'lbl' });
    // The abort mark takes the label's line on the right.
    t1.textContent = cut(n.label, maxChars - (n.abort ? n.abort.length + 2 : 0));
    g.append(t1);
    if (n.sub) {
      const t2 = s('text', { x: 8, y: 31, class: 'sub' });
      t2.textContent = cut(n.sub, maxChars);
      g.append(t2);
    }
    if (n.abort) {
      const m = s('text', { x: n.w - 5, y: 12, 'text-anchor': 'end', class: 'mk' });
      m.textContent = '⤴' + n.abort;
      g.append(m);
    }
    if (n.guard >= 0) {
      g.append(s('circle', { cx: 0, cy: 0, r: 7, class: 'gbadge' }));
      const gt = s('text', { x: 0, y: 3, 'text-anchor': 'middle', class: 'gbadge-t' });
      gt.textContent = 'G';
      g.append(gt);
    }
    if (drawKids(n).length) g.append(foldButton(n, below[n.id]));
    if (n.inGuard) g.classList.add('guardnode');
    nodes.append(g);
    S.nodeEls[n.id] = g;
  }
  findNodes(S.find.q, true);
  drawMinimap();
}

// foldButton is the control at the bottom of a node with children (at
// its right side, left to right: where its edges leave): − collapses the
// node's subtree (the count nodes under it); on a collapsed node, +N
// (the nodes it hides) expands it. Its tooltip says where they are.
function foldButton(n, count) {
  const hidden = S.hiddenIn.get(n.id);
  const text = hidden ? '+' + hidden.length : '−';
  const w = hidden ? 12 + 6.5 * text.length : 14;
  // 5 units of it over the node's side; left to right, a long +N reaches
  // out into the gap between the columns, not over the label.
  const at = S.lr ? `${n.w - 5 + w / 2},${NODE_H / 2}` : `${n.w / 2},${NODE_H + 2}`;
  const b = s('g', { class: 'fold' + (hidden ? ' folded' : ''), 'data-fold': n.id, transform: `translate(${at})` });
  const title = s('title');
  const nodes = (k) => (k === 1 ? 'the node' : 'the ' + k + ' nodes');
  const where = S.lr ? 'on its right' : 'below it';
  title.textContent = hidden ? 'Expand: show ' + nodes(hidden.length) + ' it hides, ' + where : 'Collapse: hide ' + nodes(count) + ' ' + where;
  const lbl = s('text', { x: 0, y: 3.5, 'text-anchor': 'middle' });
  lbl.textContent = text;
  b.append(title, s('rect', { x: -w / 2, y: -7, width: w, height: 14, rx: 7 }), lbl);
  return b;
}

// paint colours the nodes from a status string (a letter per node).
// sizeOf returns an element's client width and height (or the defaults
// when it has none), as a ResizeObserver keeps them: reading clientWidth
// right after paint changed the tree's classes would make the browser
// lay the page out again on every update.
const sizes = new Map();
const sizeObserver = new ResizeObserver((entries) => {
  for (const e of entries) sizes.set(e.target, [e.target.clientWidth, e.target.clientHeight]);
});
function sizeOf(el, dw, dh) {
  let z = sizes.get(el);
  if (!z) {
    z = [el.clientWidth, el.clientHeight];
    sizes.set(el, z);
    sizeObserver.observe(el);
  }
  return [z[0] || dw || 0, z[1] || dh || 0];
}

function paint(letters) {
  const t = S.tree;
  if (!t || !letters) return;
  const found = new Set(S.find.matches);
  const errs = new Set((S.shown && S.shown.errorNodes) || []);
  for (let i = 0; i < t.nodes.length; i++) {
    const ch = letters[i] || '.';
    const low = ch.toLowerCase();
    const st = STATUS[low] || 'never';
    const visited = ch !== low;
    const g = S.nodeEls[i];
    if (!g) continue; // hidden in a collapsed node
    let cls = 'node st-' + st;
    if (!visited && st !== 'never') cls += ' faded';
    if (t.nodes[i].inGuard) cls += ' guardnode';
    if (i === S.selected) cls += ' selected';
    if (i === S.breakNode) cls += ' breakhit';
    if (found.has(i)) cls += ' match';
    if (S.nodeDrag) cls += dragClass(i);
    if (errs.has(i)) cls += ' errored';
    // A collapsed node carries the marks of the nodes it hides.
    const hidden = S.hiddenIn.get(i);
    if (hidden) {
      if (hidden.some((j) => (letters[j] || '.').toLowerCase() === 'r')) cls += ' inner-running';
      if (!errs.has(i) && hidden.some((j) => errs.has(j))) cls += ' errored';
      if (!found.has(i) && hidden.some((j) => found.has(j))) cls += ' match';
      if (hidden.includes(S.breakNode)) cls += ' breakhit';
    }
    // Only what changed is written: an unchanged attribute would still
    // make the browser restyle the node.
    if (g.getAttribute('class') !== cls) g.setAttribute('class', cls);
    if (g.getAttribute('data-status') !== st) g.setAttribute('data-status', st);
    if (g.getAttribute('data-visited') !== (visited ? '1' : '0')) g.setAttribute('data-visited', visited ? '1' : '0');
    const e = S.edgeEls[i];
    if (e) e.classList.toggle('hot', st === 'running' && visited);
  }
  paintMinimap(letters);
}

// The layout button draws the tree top-down or left to right; the choice
// is kept in localStorage ('lr' when left to right), as the minimap's.
const LAYOUT_KEY = 'arbor-layout';

// setLayout draws the tree left to right (lr) or top-down. The node in
// view that matters (the selected one, else the one followed) stays
// where it is on the screen; one that was not in view is centred. A view
// of the whole tree (Fit) shows the whole tree again.
function setLayout(lr) {
  try {
    if (lr) localStorage.setItem(LAYOUT_KEY, 'lr');
    else localStorage.removeItem(LAYOUT_KEY);
  } catch (_) { /* private mode */ }
  const b = $('#btn-layout');
  b.textContent = lr ? '→ Left-right' : '↓ Top-down';
  b.title = lr
    ? 'Drawn left to right: click to draw the tree top-down, each node\'s children side by side under it'
    : 'Drawn top-down: click to draw the tree left to right, each node\'s children stacked on its right (a wide tree reads better)';
  b.setAttribute('aria-label', 'Layout: ' + (lr ? 'left-right' : 'top-down'));
  const t = S.tree;
  const was = S.lr;
  S.lr = lr;
  renderFoldTitles();
  if (was === lr || !t || !t.nodes.length) return;
  const goal = viewGoal();
  const whole = sameView(goal, fitView());
  const sel = S.selected >= 0 && S.selected < t.nodes.length ? S.selected : S.followed;
  const anchor = sel >= 0 && sel < t.nodes.length ? shownAt(sel) : -1;
  S.view = Object.assign({}, goal); // an animation under way ends there
  redrawTree(anchor);
  if (whole) {
    fit();
  } else if (anchor < 0) {
    focus(0, false);
  } else if (!inView(anchor, S.view)) {
    const [W, H] = sizeOf($('#tree'), 800, 500);
    const n = t.nodes[anchor];
    const k = S.view.k;
    panTo({ k, x: W / 2 - n.x * k, y: H / 2 - (n.y + NODE_H / 2) * k }, false);
  }
}

function setupLayout() {
  let lr = false;
  try { lr = localStorage.getItem(LAYOUT_KEY) === 'lr'; } catch (_) { /* private mode */ }
  setLayout(lr);
  $('#btn-layout').onclick = () => setLayout(!S.lr);
}
