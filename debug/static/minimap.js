// The minimap: an overview of the whole tree (the nodes shown, not those
// collapsed away) in the tree view's bottom right corner, above the
// legend, while the tree does not fit the view at a readable size. Each
// node is a small rectangle in its status's colour at the tick shown; a
// frame marks the part of the tree the view shows, and a click or a drag
// in the map moves the view there. The Map button under it hides and
// shows it (the choice is kept in localStorage).
'use strict';

// The map's drawing. It is drawn again (drawMinimap) with the tree, on a
// resize and when shown; a tick only recolours its nodes (paintMinimap),
// a pan or zoom only moves the frame (minimapView).
const MINI = {
  on: true, // the user's choice (the Map button)
  need: false, // the tree does not fit the view at a readable size
  w: 0, // the map's size in pixels (0: not drawn)
  h: 0,
  sx: 1, // pixels of the map per unit of the tree
  sy: 1,
  bottom: 0, // the box's distance from the view's bottom (above the legend)
  rects: [], // node id → its rect (the nodes shown)
  cls: [], // node id → the class its rect has
  frame: null, // the rect of the part in view
  frameKey: '',
};
const MINI_PAD = 3; // room for the frame's stroke at the map's sides
const MINI_KEY = 'arbor-minimap'; // localStorage: 'off' when hidden

// minimapSize is the map's size for a tree w × h in a view W × H: at
// most 300 × 160 pixels and about 40% of the view's width and 30% of its
// height, the tree's shape kept, unless it is so wide (or so deep) that
// its levels (or its siblings) would melt into a line: then stretched to
// at least 44 pixels that way.
function minimapSize(w, h, W, H) {
  const maxW = Math.max(60, Math.min(300, W * 0.4));
  const maxH = Math.max(44, Math.min(160, H * 0.3));
  const k = Math.min(maxW / w, maxH / h);
  return [Math.max(w * k, Math.min(44, maxW)), Math.max(h * k, Math.min(44, maxH))];
}

// drawMinimap draws the map for the tree and the view's size, or hides
// it when the tree fits (fitScale) or when the user hid it.
function drawMinimap() {
  const box = $('#minimap-box');
  const svg = $('#minimap');
  const t = S.tree;
  MINI.need = !!t && t.nodes.length > 0 && fitScale() < READABLE;
  box.hidden = !MINI.need;
  svg.toggleAttribute('hidden', !MINI.on); // an SVG element has no hidden property
  MINI.rects = [];
  MINI.cls = [];
  MINI.frame = null;
  MINI.frameKey = '';
  MINI.w = MINI.h = 0;
  if (MINI.need) {
    // Above the legend (its height depends on the view's width).
    MINI.bottom = sizeOf($('#legend'))[1] + 12;
    box.style.bottom = MINI.bottom + 'px';
  }
  if (!MINI.need || !MINI.on) {
    svg.replaceChildren();
    return;
  }
  const [W, H] = sizeOf($('#tree'), 800, 500);
  const [w, h] = minimapSize(t.width, t.height, W, H);
  Object.assign(MINI, { w, h, sx: w / t.width, sy: h / t.height });
  svg.setAttribute('width', w + 2 * MINI_PAD);
  svg.setAttribute('height', h + 2 * MINI_PAD);
  const { sx, sy } = MINI;
  const g = s('g', { transform: `translate(${MINI_PAD},${MINI_PAD})` });
  // The edges: one path, parent's bottom to child's top (left to right,
  // parent's right side to child's left).
  let d = '';
  const nodes = s('g', { class: 'mm-nodes' });
  const nh = Math.max(2, NODE_H * sy);
  for (const n of t.nodes) {
    if (!n.shown) continue;
    if (!S.folded.has(n.id)) {
      for (const c of drawKids(n)) {
        const k = t.nodes[c];
        d += S.lr
          ? `M${((n.x + n.w / 2) * sx).toFixed(1)},${((n.y + NODE_H / 2) * sy).toFixed(1)}L${((k.x - k.w / 2) * sx).toFixed(1)},${((k.y + NODE_H / 2) * sy).toFixed(1)}`
          : `M${(n.x * sx).toFixed(1)},${((n.y + NODE_H) * sy).toFixed(1)}L${(k.x * sx).toFixed(1)},${(k.y * sy).toFixed(1)}`;
      }
    }
    const nw = Math.max(1, n.w * sx);
    const r = s('rect', { class: 'mm-n st-never', 'data-id': n.id, x: (n.x * sx - nw / 2).toFixed(2), y: (n.y * sy).toFixed(2), width: nw.toFixed(2), height: nh.toFixed(2) });
    nodes.append(r);
    MINI.rects[n.id] = r;
    MINI.cls[n.id] = 'mm-n st-never';
  }
  MINI.frame = s('rect', { class: 'mm-view' });
  g.append(s('path', { class: 'mm-edges', d }), nodes, MINI.frame);
  svg.replaceChildren(g);
  minimapView();
  if (S.shown) paintMinimap(S.shown.nodes);
}

// paintMinimap colours the map's nodes from a status string (a letter
// per node), as paint does the tree's: only the rects whose class
// changes are written.
function paintMinimap(letters) {
  const t = S.tree;
  if (!MINI.w || !t || !letters) return;
  for (let i = 0; i < t.nodes.length; i++) {
    const r = MINI.rects[i];
    if (!r) continue;
    const ch = letters[i] || '.';
    const low = ch.toLowerCase();
    const st = STATUS[low] || 'never';
    let cls = 'mm-n st-' + st;
    if (ch === low && st !== 'never') cls += ' faded';
    const hidden = S.hiddenIn.get(i);
    if (hidden && hidden.some((j) => (letters[j] || '.').toLowerCase() === 'r')) cls += ' inner-running';
    if (i === S.selected) cls += ' selected';
    if (MINI.cls[i] !== cls) {
      MINI.cls[i] = cls;
      r.setAttribute('class', cls);
    }
  }
}

// minimapView moves the map's frame to the part of the tree the view
// shows (clipped to the map).
function minimapView() {
  const f = MINI.frame;
  if (!f || !MINI.w) return;
  const v = S.view;
  const [W, H] = sizeOf($('#tree'), 800, 500);
  const clip = (a, max) => Math.min(max, Math.max(0, a));
  const x0 = clip(-v.x / v.k * MINI.sx, MINI.w);
  const x1 = clip((W - v.x) / v.k * MINI.sx, MINI.w);
  const y0 = clip(-v.y / v.k * MINI.sy, MINI.h);
  const y1 = clip((H - v.y) / v.k * MINI.sy, MINI.h);
  const key = [x0, y0, x1, y1].map((a) => a.toFixed(1)).join(',');
  if (key === MINI.frameKey) return;
  MINI.frameKey = key;
  // At least 2 pixels: a view far from the tree leaves a line at the
  // map's side, where the tree is.
  f.setAttribute('x', Math.min(x0, MINI.w - 2).toFixed(1));
  f.setAttribute('y', Math.min(y0, MINI.h - 2).toFixed(1));
  f.setAttribute('width', Math.max(2, x1 - x0).toFixed(1));
  f.setAttribute('height', Math.max(2, y1 - y0).toFixed(1));
}

// minimapBox is the part of the view the map and its button cover
// ([left, top, right, bottom] in the view's pixels), or null.
function minimapBox() {
  if (!MINI.need) return null;
  const [W, H] = sizeOf($('#tree'), 800, 500);
  const [bw, bh] = sizeOf($('#btn-minimap'), 40, 22);
  const w = Math.max(bw, MINI.w ? MINI.w + 2 * MINI_PAD : 0);
  const h = bh + (MINI.w ? MINI.h + 2 * MINI_PAD + 3 : 0);
  return [W - 8 - w, H - MINI.bottom - h, W - 8, H - MINI.bottom];
}

// panMinimap centres the view on the point of the tree under the pointer
// in the map, along the sides in which the tree does not fit the view
// (a tree as high as the view keeps its place up and down).
function panMinimap(e, at) {
  const t = S.tree;
  if (!t || !MINI.w) return;
  const [W, H] = sizeOf($('#tree'), 800, 500);
  const v = S.view;
  const tx = Math.min(t.width, Math.max(0, (e.clientX - at.left) / MINI.sx));
  const ty = Math.min(t.height, Math.max(0, (e.clientY - at.top) / MINI.sy));
  const x = t.width * v.k > W ? W / 2 - tx * v.k : v.x;
  const y = t.height * v.k > H - 30 ? H / 2 - ty * v.k : v.y;
  S.view = { k: v.k, x, y };
  applyView();
}

function setMinimap(on) {
  MINI.on = on;
  try {
    if (on) localStorage.removeItem(MINI_KEY);
    else localStorage.setItem(MINI_KEY, 'off');
  } catch (_) { /* private mode */ }
  const b = $('#btn-minimap');
  b.classList.toggle('on', on);
  b.setAttribute('aria-pressed', on ? 'true' : 'false');
  b.title = on ? 'Hide the minimap, the overview of the whole tree' : 'Show the minimap: an overview of the whole tree, where a click moves the view';
  drawMinimap();
}

// setupMinimap: the Map button, the pointer on the map, and drawing it
// again when the view's size changes.
function setupMinimap() {
  let on = true;
  try { on = localStorage.getItem(MINI_KEY) !== 'off'; } catch (_) { /* private mode */ }
  setMinimap(on);
  $('#btn-minimap').onclick = () => setMinimap(!MINI.on);
  const svg = $('#minimap');
  let at = null; // the map's origin on the page, while a button is pressed on it
  svg.addEventListener('pointerdown', (e) => {
    if (e.button !== 0 || !MINI.w) return;
    e.preventDefault();
    setFollow(false);
    const r = svg.getBoundingClientRect();
    at = { left: r.left + svg.clientLeft + MINI_PAD, top: r.top + svg.clientTop + MINI_PAD };
    svg.setPointerCapture(e.pointerId);
    panMinimap(e, at);
  });
  svg.addEventListener('pointermove', (e) => { if (at) panMinimap(e, at); });
  const end = () => { at = null; };
  svg.addEventListener('pointerup', end);
  svg.addEventListener('pointercancel', end);
  // A new size of the view (the window, the bars above the tree) or of
  // the legend: drawn again in the next frame, once.
  let redraw = 0;
  const ro = new ResizeObserver(() => {
    cancelAnimationFrame(redraw);
    redraw = requestAnimationFrame(() => { if (S.tree) drawMinimap(); });
  });
  ro.observe($('#tree'));
  ro.observe($('#legend'));
}
