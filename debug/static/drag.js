// Moving a node by dragging it on the tree (with controls, editing on):
// dropped on the side of a node it goes before or after that node among
// its siblings; dropped on the middle of a composite it becomes that
// composite's last child. A hint by the pointer says what the drop will
// do, or why it cannot; Escape, or a drop anywhere else, leaves the tree
// as it was. The edit is the Move to… form's (shape op move with to and
// index), so that the server checks it and Undo takes it back.
'use strict';

// DRAG_START is how far (in screen pixels) the pointer moves before a
// press on a node becomes a drag rather than a click.
const DRAG_START = 5;

// nodeDragFor returns the drag of the node under pointer event e, or null
// when there is none to drag there: not on a node, editing off, or the
// node cannot move (the tree's root, a guard, a decorator's child...):
// the press then pans the view as on the background.
function nodeDragFor(e) {
  if (e.button !== 0 || !canEdit() || !S.token || !e.target.closest) return null;
  const g = e.target.closest('#tree g.node');
  if (!g || e.target.closest('g.fold')) return null;
  const n = S.tree.nodes[Number(g.getAttribute('data-id'))];
  if (!n) return null;
  const move = shapeActions(n).find((a) => a.op === 'moveto');
  if (!move || move.why) return null;
  return { tree: S.treeId, node: n.id, mine: subtreeIds(n), drop: null, hint: null };
}

// dropAt says where drag d's node would go if dropped at client point
// (x, y): { parent, index, text } (index among the parent's children
// without the node), { why } when it cannot go there, or null when the
// point is on no node.
function dropAt(d, x, y) {
  const el = document.elementFromPoint(x, y);
  const g = el && el.closest && el.closest('#tree g.node');
  if (!g) return null;
  const ns = S.tree.nodes;
  const n = ns[d.node];
  const t = ns[Number(g.getAttribute('data-id'))];
  if (!t || t.id === n.id) return null;
  const me = fullLabel(n.id);
  if (d.mine.has(t.id)) return { target: t.id, why: 'Cannot move ' + me + ' into itself' };
  // Where on t: its first and last quarter along the siblings' axis are
  // before and after it; the middle is into it (a composite), else the
  // nearer side.
  const r = g.querySelector('rect').getBoundingClientRect();
  const f = S.lr ? (y - r.top) / r.height : (x - r.left) / r.width;
  const into = categoryOf(t) === 'control';
  const where = into && f > 0.25 && f < 0.75 ? 'into' : f < 0.5 ? 'before' : 'after';
  if (where === 'into') {
    const kids = t.children.filter((k) => k !== n.id);
    return { target: t.id, where, parent: t.id, index: kids.length, text: 'Move ' + me + ' into ' + fullLabel(t.id) + ', last' };
  }
  const p = shapeSlot(t) === 'child' && t.parent >= 0 ? ns[t.parent] : null;
  if (!p) return { target: t.id, why: fullLabel(t.id) + (t.guardOf >= 0 ? ' is a guard' : ' is a root') + ': it has no siblings' };
  if (categoryOf(p) !== 'control') return { target: t.id, why: fullLabel(t.id) + '\'s parent, ' + fullLabel(p.id) + ', takes one child' };
  const kids = p.children.filter((k) => k !== n.id);
  const index = kids.indexOf(t.id) + (where === 'after' ? 1 : 0);
  return { target: t.id, where, parent: p.id, index, text: 'Move ' + me + ' ' + where + ' ' + fullLabel(t.id) + (p.id === n.parent ? '' : ', into ' + fullLabel(p.id)) };
}

// stays reports whether drop o leaves drag d's node where it is.
function stays(d, o) {
  const n = S.tree.nodes[d.node];
  return o.parent === n.parent && o.index === S.tree.nodes[n.parent].children.indexOf(n.id);
}

// dragNodeTo follows the pointer at client point (x, y): the drop it
// would make, marked on the tree, and the hint.
function dragNodeTo(d, x, y) {
  if (d.tree !== S.treeId || !S.tree.nodes[d.node]) return cancelNodeDrag(d); // the tree changed meanwhile
  if (!d.hint) {
    d.hint = h('div', { id: 'drag-hint', role: 'status' });
    document.body.append(d.hint);
    S.nodeDrag = d;
    $('#tree').classList.add('dragging-node');
  }
  let o = dropAt(d, x, y);
  if (o && !o.why && stays(d, o)) o = { target: o.target, why: 'It is there already' };
  markDrop(d, o);
  d.hint.textContent = !o ? 'Drop on a node: on its side to go before or after it, on a composite\'s middle to go into it (Escape: cancel)'
    : o.why || o.text;
  d.hint.classList.toggle('bad', !!(o && o.why));
  d.hint.style.left = x + 14 + 'px';
  d.hint.style.top = y + 16 + 'px';
}

// markDrop shows drop o on the tree: the composite taking the node
// outlined, or a bar on the side of the node it goes beside (dragClass
// gives the nodes' classes, which paint keeps).
function markDrop(d, o) {
  const before = d.drop ? d.drop.target : -1;
  d.drop = o;
  for (const i of [before, o ? o.target : -1, d.node]) {
    const g = i >= 0 && S.nodeEls[i];
    if (!g) continue;
    g.classList.remove('drag-src', 'drop-into', 'drop-no');
    for (const c of dragClass(i).split(' ')) if (c) g.classList.add(c);
  }
  const old = document.querySelector('#drop-bar');
  if (old) old.remove();
  if (!o || o.why || o.where === 'into') return;
  const t = S.tree.nodes[o.target];
  // 4 units out from the node's side, across it.
  const off = o.where === 'before' ? -4 : 4;
  let bar;
  if (S.lr) {
    const y = o.where === 'before' ? t.y + off : t.y + NODE_H + off;
    bar = s('line', { x1: t.x - t.w / 2, x2: t.x + t.w / 2, y1: y, y2: y });
  } else {
    const x = o.where === 'before' ? t.x - t.w / 2 + off : t.x + t.w / 2 + off;
    bar = s('line', { x1: x, x2: x, y1: t.y - 3, y2: t.y + NODE_H + 3 });
  }
  bar.id = 'drop-bar';
  $('#viewport').append(bar);
}

// dragClass returns the classes node i has for the drag under way: the
// node dragged, the composite it would go into, a node it cannot go
// beside or into.
function dragClass(i) {
  const d = S.nodeDrag;
  if (!d) return '';
  const o = d.drop;
  return (i === d.node ? ' drag-src' : '') + (o && o.target === i ? (o.why ? ' drop-no' : o.where === 'into' ? ' drop-into' : '') : '');
}

// cancelNodeDrag ends drag d without moving anything.
function cancelNodeDrag(d) {
  if (S.nodeDrag === d) S.nodeDrag = null;
  markDrop(d, null);
  if (d.hint) d.hint.remove();
  d.hint = null;
  $('#tree').classList.remove('dragging-node');
}

// dropNode ends drag d: the move it points at is sent (a refusal is said
// as the Shape section's are), anything else cancels.
function dropNode(d) {
  const o = d.drop;
  const ok = o && !o.why && d.tree === S.treeId;
  const n = ok ? S.tree.nodes[d.node] : null;
  const p = ok ? S.tree.nodes[o.parent] : null;
  cancelNodeDrag(d);
  if (!n || !p) return Promise.resolve(false);
  return sendShape({ op: 'move', path: n.path, to: p.path, index: o.index });
}
