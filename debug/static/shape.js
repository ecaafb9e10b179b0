// Changing the tree's shape while it runs (with controls and the
// program's Recompile): the Node tab's Shape section, the tree's context
// menu (right click, or the context menu key on the tree), the form that
// adds a node or wraps one, and Undo.
'use strict';

// MENU_TEXT names the shape edits in the context menu, and to screen
// readers on the Node tab's buttons (whose text has arrows).
const MENU_TEXT = { add: 'Add a child…', insert: 'Insert a sibling after…', up: 'Move up', down: 'Move down', moveto: 'Move to…', wrap: 'Wrap in…', guard: 'Add a guard…', unwrap: 'Unwrap', delete: 'Delete', undo: 'Undo', redo: 'Redo' };

// CATEGORY_NAMES heads the groups of the type list.
const CATEGORY_NAMES = { action: 'Actions', condition: 'Conditions', subtree: 'Subtrees', decorator: 'Decorators', control: 'Composites' };

// categoryOf returns node n's category: action, condition, subtree,
// decorator or control.
function categoryOf(n) {
  const c = S.tree && S.tree.categories;
  if (c && hasOwn(c, n.type)) return c[n.type];
  return n.children.length ? 'control' : 'action';
}

// shapeSlot says where node n is: 'root' (the tree's, or a subtree's),
// 'guard' (a guard's root) or 'child'.
function shapeSlot(n) {
  if (n.id === 0 || n.subtreeRoot) return 'root';
  if (n.guardOf >= 0) return 'guard';
  return 'child';
}

// shapeActions lists what can be done to node n's place in the tree:
// { op, text, title, why } (why: the reason it cannot, '' when it can).
function shapeActions(n) {
  const t = S.tree;
  const slot = shapeSlot(n);
  const cat = categoryOf(n);
  const p = slot === 'child' && n.parent >= 0 ? t.nodes[n.parent] : null;
  const kids = p ? p.children : [];
  const at = kids.indexOf(n.id);
  const me = fullLabel(n.id);
  const pl = p ? fullLabel(p.id) : '';
  const place = slot === 'root' ? 'It is the root of ' + (n.id === 0 ? 'the tree' : 'a subtree') + ': it has no siblings'
    : slot === 'guard' ? 'It is a guard: it has no siblings' : '';
  const token = S.token ? '' : NEED_TOKEN;
  const addWhy = { control: '', decorator: 'A decorator takes exactly one child, and has it: wrap its child in a composite to give it siblings',
    subtree: 'A SubTree\'s child is the tree it runs: edit that tree' }[cat];
  return [
    { op: 'add', text: '+ Child…', title: 'Add a child to ' + me + ', after its children: pick its type',
      why: token || (addWhy !== undefined ? addWhy : 'A leaf takes no children: insert a sibling after it, or wrap it in a composite') },
    { op: 'insert', text: '+ Sibling…', title: 'Insert a node after ' + me + ', among its siblings: pick its type',
      why: token || place || (p && categoryOf(p) !== 'control' ? 'Its parent, ' + pl + ', is a decorator: it takes one child (wrap ' + me + ' instead)' : '') },
    { op: 'up', text: '↑ Up', title: 'Move ' + me + ' before its previous sibling',
      why: token || place || (at <= 0 ? 'It is the first child of ' + pl + ' already' : '') },
    { op: 'down', text: '↓ Down', title: 'Move ' + me + ' after its next sibling',
      why: token || place || (at < 0 || at >= kids.length - 1 ? 'It is the last child of ' + pl + ' already' : '') },
    { op: 'moveto', text: 'Move to…', title: 'Move ' + me + ' into another composite (or elsewhere in ' + pl + '): pick where',
      why: token || place || (p && kids.length === 1 ? 'It is the only child of ' + pl + ', which needs one' : '') },
    { op: 'wrap', text: 'Wrap…', title: 'Wrap ' + me + ' in a decorator (Inverter, Repeat, Timeout…) or a composite: pick its type', why: token },
    { op: 'guard', text: '+ Guard…', title: 'Give ' + me + ' a guard: a condition checked whenever it is visited, false making it fail without a tick (pick its type)',
      why: token || (n.guard >= 0 ? 'It has a guard: select the guard to wrap it (in an Inverter, a Sequence…) or delete it' : '') },
    { op: 'unwrap', text: 'Unwrap', title: 'Replace ' + me + ' by its only child',
      why: token || (cat === 'subtree' ? 'A SubTree\'s child is the tree it runs'
        : n.children.length !== 1 ? 'Only a node with one child can be unwrapped (replaced by its child)'
          : n.guard >= 0 ? 'It has a guard, which unwrapping would lose: delete the guard first' : '') },
    { op: 'delete', text: 'Delete', title: 'Delete ' + me + (n.children.length || n.guard >= 0 ? ' and the nodes under it' : ''),
      why: token || (slot === 'root' ? (n.id === 0 ? 'The tree\'s root cannot be deleted' : 'A subtree\'s root cannot be deleted: delete the SubTree that runs it')
        : p && kids.length === 1 ? 'It is the only child of ' + pl + ', which needs one: delete ' + pl + ', or unwrap it' : '') },
  ];
}

// undoAction is Undo's { text, title, why }.
function undoAction() {
  const u = S.tree && S.tree.undo;
  const why = !S.token ? NEED_TOKEN : !u ? 'Nothing to undo: no edit made this tree (a reload from its file starts afresh)' : '';
  const title = u ? 'Undo: ' + u.last + (u.count > 1 ? ' (' + u.count + ' edits can be undone)' : '') + ' (Ctrl+Z)' : '';
  return { op: 'undo', text: '↶ Undo', title, why };
}

// redoAction is Redo's { text, title, why }.
function redoAction() {
  const u = S.tree && S.tree.redo;
  const why = !S.token ? NEED_TOKEN : !u ? 'Nothing to redo: no edit of this tree was undone since its last edit' : '';
  const title = u ? 'Redo: ' + u.last + (u.count > 1 ? ' (' + u.count + ' edits can be redone)' : '') + ' (Ctrl+Shift+Z, Ctrl+Y)' : '';
  return { op: 'redo', text: '↷ Redo', title, why };
}

// runShape does op to node n: opens the form (add, insert, wrap) or
// sends the edit.
function runShape(n, op) {
  if (op === 'undo') return undoShape();
  if (op === 'redo') return redoShape();
  if (op === 'add' || op === 'insert' || op === 'wrap' || op === 'guard' || op === 'moveto') return openShapeForm(n, op);
  if (op === 'up' || op === 'down') return sendShape({ op: 'move', path: n.path, by: op === 'up' ? -1 : 1 });
  if (op === 'delete') {
    // The focus goes to Undo, not to the Delete of the node selected
    // next: Enter pressed again undoes rather than deleting a sibling.
    S.shapeFocus = { op: 'undo', tree: -1 };
    return sendShape({ op, path: n.path }).then((ok) => {
      if (!ok) S.shapeFocus = null;
      return ok;
    });
  }
  return sendShape({ op, path: n.path });
}

// renderShapeBox fills the Node tab's Shape section for node n: the
// shape edits as buttons (those that cannot be done aria-disabled, their
// tooltips saying why), Undo, the last edit's note, or the form adding
// a node. It redraws only when what it shows changes.
function renderShapeBox(n) {
  const box = $('#shape-box');
  const show = !!n && canEdit();
  box.hidden = !show;
  const form = show && S.shapeForm && S.shapeForm.tree === S.treeId && S.shapeForm.node === n.id ? S.shapeForm : null;
  if (!form) S.shapeForm = null;
  const note = show && S.shapeNote && S.shapeNote.tree === S.treeId ? S.shapeNote.text : '';
  const key = show ? JSON.stringify([S.treeId, n.id, !!S.token, form && form.op, note, S.tree.undo || null, S.tree.redo || null]) : '';
  if (key === S.shapeKey) return;
  S.shapeKey = key;
  if (!show) {
    box.replaceChildren();
    return;
  }
  if (form) {
    box.replaceChildren(form.op === 'moveto' ? moveForm(n) : shapeForm(n, form.op));
    return;
  }
  // A button keeps the focus it had through a redraw (the tree switched
  // after a move, say).
  const focused = document.activeElement && box.contains(document.activeElement) ? document.activeElement.id : '';
  const row = h('div', { class: 'shape-row', role: 'group', 'aria-label': 'Change the tree\'s shape at ' + fullLabel(n.id) });
  for (const a of shapeActions(n).concat([undoAction(), redoAction()])) {
    // A button that cannot be used stays focusable (aria-disabled, not
    // disabled), so that keyboard and screen reader users reach its
    // reason too: it is the button's description, and pressing the
    // button says it under the buttons.
    const b = h('button', { type: 'button', id: 'btn-shape-' + a.op, title: a.why || a.title, 'aria-label': MENU_TEXT[a.op],
      onclick: () => (a.why ? shapeMessage(a.why, false) : runShape(n, a.op)) }, a.text);
    if (a.op === 'delete') b.classList.add('danger');
    if (a.op === 'undo') b.classList.add('shape-undo');
    if (a.why) b.setAttribute('aria-disabled', 'true');
    row.append(b);
  }
  const kids = [h('h4', { text: 'Shape' }), row];
  if (n.inSubtree) kids.push(h('p', { class: 'muted', text: 'In a subtree: an edit changes every use of the subtree.' }));
  const msg = h('p', { id: 'shape-msg', class: 'edit-note', role: 'status' });
  kids.push(msg);
  box.replaceChildren(...kids);
  // A live region announces a change of its text: added empty, then filled.
  if (note) setTimeout(() => { if (msg.isConnected) msg.textContent = note; }, 50);
  if (S.shapeFocus && S.shapeFocus.tree === S.treeId) {
    const b = $('#btn-shape-' + S.shapeFocus.op);
    const u = $('#btn-shape-undo');
    S.shapeFocus = null;
    if (b && !unusable(b)) b.focus();
    else if (u && !unusable(u)) u.focus();
  } else if (focused && $('#' + focused)) $('#' + focused).focus();
}

// shapeMessage shows text under the Shape section's buttons (an error:
// not a note).
function shapeMessage(text, error) {
  const msg = $('#shape-msg');
  if (!msg) return;
  msg.classList.toggle('ef-err', !!error);
  msg.textContent = text;
}

// openShapeForm opens the form picking the node that op (add, insert,
// wrap, guard) puts in the tree at node n, or the form of where a move
// (moveto) takes n, its first list focused.
function openShapeForm(n, op) {
  if (!canEdit() || !S.token) return;
  S.edit = null; // one form at a time
  S.editKey = '';
  S.shapeForm = { tree: S.treeId, node: n.id, op };
  S.shapeNote = null;
  if (S.selected !== n.id) selectNode(n.id);
  else setTab('node');
  renderNode();
  const sel = $('#sf-type') || $('#sf-into');
  if (sel) {
    sel.focus();
    sel.scrollIntoView({ block: 'nearest' });
  }
}

// closeShapeForm closes the form; focus: back to the tree when the form
// was opened from the tree's menu, else to the button of its op.
function closeShapeForm(op) {
  const fromMenu = !!(S.shapeForm && S.shapeForm.fromMenu);
  S.shapeForm = null;
  const n = S.tree && S.selected >= 0 ? S.tree.nodes[S.selected] : null;
  renderShapeBox(n);
  const b = fromMenu ? $('#tree') : $('#btn-shape-' + op);
  if (b) b.focus();
}

// unusable reports a Shape button that cannot be used now (aria-disabled).
function unusable(b) {
  return b.getAttribute('aria-disabled') === 'true';
}

// shapeForm builds the form of op at node n: the new node's type (the
// palette's leaves for add and insert, its decorators and composites for
// wrap, its conditions for guard), its name and the parameters its type
// takes (those it requires first), Apply and Cancel.
function shapeForm(n, op) {
  const me = fullLabel(n.id);
  const what = { add: 'Add a child to ' + me, insert: 'Insert a node after ' + me, wrap: 'Wrap ' + me + ' in', guard: 'Guard ' + me + ' with' }[op];
  const form = h('form', { id: 'shape-form', class: 'edit-form', 'aria-label': what });
  form.append(h('h4', { text: what }));
  const cats = { wrap: ['decorator', 'control'], guard: ['condition'] }[op] || ['action', 'condition', 'subtree'];
  const sel = h('select', { id: 'sf-type', name: 'type', title: { wrap: 'The decorator (or composite) to wrap the node in',
    guard: 'The guard\'s condition (wrap it afterwards in an Inverter or a composite as need be)' }[op] || 'The new node\'s type: a leaf (a composite or a decorator needs children: add a leaf, then wrap it)' });
  const palette = (S.tree.palette || []);
  for (const c of cats) {
    const types = palette.filter((p) => p.category === c);
    if (!types.length) continue;
    const g = h('optgroup', { label: CATEGORY_NAMES[c] });
    for (const p of types) g.append(h('option', { value: p.type, text: p.type }));
    sel.append(g);
  }
  const lastKey = op === 'wrap' || op === 'guard' ? op : 'add';
  const last = S.shapeLast[lastKey] || (op === 'wrap' ? 'Inverter' : '');
  if (last && palette.some((p) => p.type === last && cats.includes(p.category))) sel.value = last;
  const row = (name, field, hint) => {
    const id = field.id || 'sf-' + name;
    field.id = id;
    if (hint && !field.title) field.title = hint;
    const err = h('div', { class: 'ef-err', id: id + '-err', role: 'alert', hidden: '' });
    return h('div', { class: 'ef-row', 'data-field': name }, h('label', { for: id, text: name, title: name + (hint ? ': ' + hint : '') }), field, h('span'), err);
  };
  form.append(row('type', sel));
  const nameIn = h('input', { type: 'text', id: 'sf-name', name: 'name', autocomplete: 'off', placeholder: '(no name)' });
  form.append(row('name', nameIn, 'The new node\'s name (its label); empty: none'));
  const params = h('div', { id: 'sf-params' });
  form.append(params);
  // The parameters of the type picked: those it requires first, marked
  // so, then the others, empty (their defaults apply).
  const fill = () => {
    const t = S.tree.types && hasOwn(S.tree.types, sel.value) ? S.tree.types[sel.value] : null;
    const ps = t ? (t.params || []).slice().sort((a, b) => Number(!!b.required) - Number(!!a.required)) : [];
    let seq = 0;
    const rows = ps.map((p) => {
      const field = addedField(p, sel.value);
      field.id = 'sf-p' + seq++;
      if (p.required) field.setAttribute('aria-required', 'true');
      return row(p.name, field, field.title);
    });
    if (!ps.length && !(t && t.anyParams)) rows.push(h('p', { class: 'muted', text: sel.value + ' takes no parameters.' }));
    if (t && t.anyParams) rows.push(newParamRow());
    params.replaceChildren(...rows);
  };
  sel.addEventListener('change', fill);
  fill();
  return finishShapeForm(form, n, op, () => applyShapeForm(n, op, form));
}

// finishShapeForm ends a Shape form of op at node n: what Apply does,
// Apply (onApply) and Cancel.
function finishShapeForm(form, n, op, onApply) {
  const sub = n.inSubtree ? ' It is in a subtree: every use of the subtree changes.' : '';
  form.append(h('p', { class: 'muted', text: 'Apply compiles the new tree and moves every agent running it there at once (running nodes halted once, blackboards kept; forces and breakpoints stay on their nodes). Undo takes it back.' + sub }));
  const apply = h('button', { type: 'submit', id: 'btn-shape-apply', class: 'primary', title: 'Apply (Enter)' }, 'Apply');
  const cancel = h('button', { type: 'button', id: 'btn-shape-cancel', title: 'Close the form, changing nothing (Esc)', onclick: () => closeShapeForm(op) }, 'Cancel');
  return finishForm(form, apply, cancel, onApply, () => closeShapeForm(op));
}

// subtreeIds returns the ids of node n and of the nodes under it (its
// children and guards): where it cannot go.
function subtreeIds(n) {
  const ns = S.tree.nodes;
  const mine = new Set();
  const stack = [n.id];
  while (stack.length) {
    const i = stack.pop();
    mine.add(i);
    stack.push(...ns[i].children);
    if (ns[i].guard >= 0) stack.push(ns[i].guard);
  }
  return mine;
}

// moveTargets lists the composites node n may move into: those of the
// tree shown outside n's own subtree (its children and guards), in tree
// order, each with its depth.
function moveTargets(n) {
  const ns = S.tree.nodes;
  const mine = subtreeIds(n);
  const depth = (i) => {
    let d = 0;
    for (let j = i; j >= 0 && d <= ns.length; d++) j = ns[j].guardOf >= 0 ? ns[j].guardOf : ns[j].parent;
    return d - 1;
  };
  return ns.filter((c) => !mine.has(c.id) && categoryOf(c) === 'control').map((c) => ({ id: c.id, depth: depth(c.id) }));
}

// moveForm builds the form moving node n into a composite: which one (its
// parent first picked), and where among that composite's children.
function moveForm(n) {
  const me = fullLabel(n.id);
  const what = 'Move ' + me + ' into';
  const form = h('form', { id: 'shape-form', class: 'edit-form', 'aria-label': what });
  form.append(h('h4', { text: what }));
  const into = h('select', { id: 'sf-into', name: 'into', title: 'The composite the node becomes a child of' });
  for (const c of moveTargets(n)) {
    into.append(h('option', { value: String(c.id), text: '\u00a0\u00a0'.repeat(c.depth) + fullLabel(c.id) + (c.id === n.parent ? ' (its parent now)' : '') }));
  }
  if (n.parent >= 0) into.value = String(n.parent);
  const place = h('select', { id: 'sf-place', name: 'place', title: 'Where among the composite\'s children' });
  const fill = () => {
    const p = S.tree.nodes[Number(into.value)];
    const kids = p ? p.children.filter((k) => k !== n.id) : [];
    const opts = [h('option', { value: '0', text: 'first' })];
    kids.forEach((k, i) => opts.push(h('option', { value: String(i + 1), text: 'after ' + fullLabel(k) })));
    place.replaceChildren(...opts);
    // Where it is now when it stays with its parent, else the last place.
    const at = p && p.id === n.parent ? p.children.indexOf(n.id) : kids.length;
    place.value = String(at);
  };
  into.addEventListener('change', fill);
  fill();
  const row = (name, field) => h('div', { class: 'ef-row', 'data-field': name }, h('label', { for: field.id, text: name }), field, h('span'),
    h('div', { class: 'ef-err', id: field.id + '-err', role: 'alert', hidden: '' }));
  form.append(row('into', into), row('place', place));
  return finishShapeForm(form, n, 'moveto', async () => {
    fieldError(form, null, '');
    const p = S.tree.nodes[Number(into.value)];
    if (!p) {
      fieldError(form, 'into', 'Pick a composite.');
      return;
    }
    const apply = $('#btn-shape-apply');
    apply.disabled = true;
    S.shapeFocus = { op: 'moveto', tree: -1 };
    await sendShape({ op: 'move', path: n.path, to: p.path, index: Number(place.value) }, (err) => {
      S.shapeFocus = null;
      apply.disabled = false;
      fieldError(form, null, (err.status === 400 ? 'Not applied: ' : '') + err.message.replace(/^trees\.\S*?: /gm, ''));
      apply.focus();
    });
  });
}

// applyShapeForm sends the form's node: its type, name and the
// parameters filled in. A refusal (a parameter the type requires, the
// compiler's message) shows under the field it names, else under the
// form, and nothing changes.
async function applyShapeForm(n, op, form) {
  fieldError(form, null, '');
  const type = $('#sf-type').value;
  if (!type) {
    fieldError(form, 'type', 'Pick a type.');
    return;
  }
  const params = {};
  for (const field of form.querySelectorAll('[data-param]')) {
    if (field.value.trim() === '') continue; // left out
    try {
      params[field.dataset.param] = editValue(field);
    } catch (err) {
      fieldError(form, field.dataset.param, 'Not JSON: ' + err.message);
      field.focus();
      return;
    }
  }
  if (readNewParam(form, params) === null) return;
  const node = { type };
  const name = $('#sf-name').value.trim();
  if (name) node.name = name;
  if (Object.keys(params).length) node.params = params;
  S.shapeLast[op === 'wrap' || op === 'guard' ? op : 'add'] = type;
  const apply = $('#btn-shape-apply');
  apply.disabled = true;
  // Once applied, on the new tree: the op's button, else Undo (after a
  // guard, Undo: the new guard's own + Guard would guard the guard).
  S.shapeFocus = { op: op === 'guard' ? 'undo' : op, tree: -1 };
  await sendShape({ op, path: n.path, node }, (err) => {
    S.shapeFocus = null;
    apply.disabled = false;
    // The session names a parameter the type requires ("Check needs key
    // and op"), the compiler one it refuses (parameter "x").
    const m = /^\S+ needs (\S+?)(?: and|:)/.exec(err.message) || /parameter "([^"]+)"/.exec(err.message);
    const field = m && form.querySelector('[data-param="' + CSS.escape(m[1]) + '"]') ? m[1] : null;
    const text = (err.status === 400 ? 'Not applied: ' : '') + err.message.replace(/^trees\.\S*?: /gm, '');
    fieldError(form, field, text);
    if (field) form.querySelector('[data-param="' + CSS.escape(field) + '"]').focus();
    else apply.focus();
  });
}

// sendShape sends a shape edit; onError (else the Shape section's
// message) gets a refusal. It says whether the edit was applied.
async function sendShape(body, onError) {
  return editRequest('api/trees/' + S.treeId + '/shape', body, onError);
}

// undoShape undoes the last edit of the tree shown.
async function undoShape() {
  if (!canEdit() || !S.token || !S.tree || !S.tree.undo) return false;
  return editRequest('api/trees/' + S.treeId + '/undo', {});
}

// redoShape makes the last edit undone on the tree shown again.
async function redoShape() {
  if (!canEdit() || !S.token || !S.tree || !S.tree.redo) return false;
  return editRequest('api/trees/' + S.treeId + '/redo', {});
}

// marksText says a count of forces and breakpoints ({ forces,
// breakpoints }: "1 force and 2 breakpoints"); '' for none.
function marksText(d) {
  if (!d) return '';
  return [d.forces ? d.forces + (d.forces === 1 ? ' force' : ' forces') : '', d.breakpoints ? d.breakpoints + (d.breakpoints === 1 ? ' breakpoint' : ' breakpoints') : '']
    .filter(Boolean).join(' and ');
}

// keptNode is the node of the new tree to select after an undo or redo
// that maps node ids by ids (old → new, -1: gone): the node selected in
// tree prev, or, when the step removed it, its nearest ancestor kept (a
// guard's: the node it guards), so that the Shape section, and the note
// of what was done, stay on screen. -1: none.
function keptNode(prev, sel, ids) {
  if (!ids || !prev) return -1;
  for (let i = sel, hops = 0; i >= 0 && i < ids.length && hops <= prev.nodes.length; hops++) {
    if (ids[i] >= 0) return ids[i];
    const n = prev.nodes[i];
    i = n.guardOf >= 0 ? n.guardOf : n.parent;
  }
  return -1;
}

// editRequest posts an edit of the tree's shape (or an undo) and, once
// applied, closes the form and notes what was done; the page follows the
// agent to the new tree (switchTree, with the edit's hint: the node to
// select, the collapsed nodes moved to their new ids).
async function editRequest(path, body, onError) {
  const prev = S.tree;
  const prevSel = S.selected;
  try {
    const r = await post(path, body);
    S.shapeForm = null;
    S.edit = null;
    if (S.shapeFocus) S.shapeFocus.tree = r.tree;
    const agents = r.agents === 1 ? '1 agent' : r.agents + ' agents';
    const lost = marksText(r.dropped);
    const back = marksText(r.restored);
    const what = r.op === 'undo' ? 'Undone: ' + r.undone : r.op === 'redo' ? 'Redone: ' + r.redone : r.undo ? r.undo.last.charAt(0).toUpperCase() + r.undo.last.slice(1) : 'Done';
    S.shapeNote = { tree: r.tree, text: what + '. Applied to ' + agents + ' (running nodes halted once).' + (back ? ' Put back ' + back + '.' : '') +
      (lost ? ' Dropped ' + lost + ' of ' + (r.op === 'undo' ? 'nodes the undone edit added.' : 'the nodes deleted.') : '') };
    const sel = r.node >= 0 ? r.node : keptNode(prev, prevSel, r.ids);
    const hint = { from: prev, to: r.tree, ids: r.ids || null, sel };
    if (S.treeId === r.tree) applyEditHint(hint); // the live update came first
    else S.editHint = hint;
    if (S.tab === 'node') renderNode();
    return true;
  } catch (err) {
    if (onError) onError(err);
    else {
      const text = (err.status === 400 ? 'Not applied: ' : '') + err.message.replace(/^trees\.\S*?: /gm, '');
      // From the tree's menu or Ctrl+Z with another tab open, the Shape
      // section is not on screen: the page's notice line says it.
      const msg = $('#shape-msg');
      if (msg && msg.offsetParent !== null) {
        shapeMessage(text, true);
        notice('');
      } else notice(text);
    }
    return false;
  }
}

// remapFolds moves the collapsed nodes (and Auto-collapse's pins) of
// tree from, by their fold keys, to the nodes of tree to that ids maps
// them to; those of deleted nodes go.
function remapFolds(from, to, ids) {
  if (!from || !to || !ids || from.name !== to.name) return;
  const oldKeys = foldKeys(from);
  const newKeys = foldKeys(to);
  const byKey = new Map(oldKeys.map((k, i) => [k, i]));
  const move = (k) => {
    const i = byKey.get(k);
    if (i === undefined) return k; // not a node of the tree: kept as it is
    const j = ids[i];
    return j >= 0 && j < newKeys.length ? newKeys[j] : null;
  };
  const folds = S.folds.get(from.name);
  if (folds) {
    const moved = [...folds].map(move).filter((k) => k != null);
    folds.clear();
    for (const k of moved) folds.add(k);
  }
  const pins = AUTO.pins.get(from.name);
  if (pins) {
    const moved = [...pins].map(([k, v]) => [move(k), v]).filter(([k]) => k != null);
    pins.clear();
    for (const [k, v] of moved) pins.set(k, v);
  }
}

// applyEditHint, once the page shows the edited tree, moves the collapsed
// nodes there and selects the node the edit names (after the live update
// redrew the tree).
function applyEditHint(hint) {
  const t = S.tree;
  remapFolds(hint.from, t, hint.ids);
  if (hint.sel >= 0 && hint.sel < t.nodes.length) S.selected = hint.sel;
  drawTree();
  if (S.shown) paint(S.shown.nodes);
  if (S.agent) {
    markBreakpoints(S.agent.breakpoints || []);
    markForces(forcesOf(S.agent));
  }
  showEdited(S.selected);
}

// showEdited shows node id after an edit: the collapsed nodes above it
// expanded, the view moved to it when it is out of view.
function showEdited(id) {
  const t = S.tree;
  if (id < 0 || id >= t.nodes.length) return;
  reveal(id);
  if (!inView(id, viewGoal())) {
    setFollow(false);
    const n = t.nodes[shownAt(id)];
    const [W, H] = sizeOf($('#tree'), 800, 500);
    const k = Math.max(S.view.k, 0.85);
    panTo({ k, x: W / 2 - n.x * k, y: H / 2 - (n.y + 20) * k }, true);
  }
}

// openShapeMenu opens the context menu of node id at (x, y) on the
// screen: the shape edits and Undo, as menu items (↑ ↓ Home End move,
// Enter or Space does it, Esc closes; those that cannot be done say why
// in their tooltip and do nothing).
function openShapeMenu(id, x, y) {
  closeShapeMenu(false);
  const tree = S.tree;
  const n = tree.nodes[id];
  if (S.selected !== id) selectNode(id);
  const menu = h('div', { id: 'shape-menu', role: 'menu', 'aria-label': 'Edit the tree at ' + fullLabel(id) });
  const shape = canEdit() ? shapeActions(n).concat([undoAction(), redoAction()]) : [];
  const items = shape.concat(debugActions(n));
  for (const a of items) {
    if (a.op === 'undo' || (a.run && a === items[shape.length] && shape.length)) menu.append(h('div', { role: 'separator', class: 'sm-sep' }));
    const b = h('button', { type: 'button', role: a.run ? 'menuitemcheckbox' : 'menuitem', tabindex: '-1', 'data-op': a.op, title: a.why || a.title }, a.text && a.run ? a.text : MENU_TEXT[a.op]);
    if (a.run) b.setAttribute('aria-checked', String(!!a.checked));
    if (a.why) b.setAttribute('aria-disabled', 'true');
    b.addEventListener('click', () => {
      if (a.why) return;
      closeShapeMenu(false);
      // The page moved to another tree since the menu opened (an edit
      // elsewhere, a reload): its node's path may name another node there.
      if (S.tree !== tree) {
        notice('The tree changed while its menu was open: nothing was done.');
        return;
      }
      if (a.run) {
        a.run();
        return;
      }
      runShape(n, a.op);
      // A form opened from the menu gives the focus back to the tree.
      if (S.shapeForm) S.shapeForm.fromMenu = true;
    });
    menu.append(b);
  }
  menu.addEventListener('keydown', (e) => {
    const all = [...menu.querySelectorAll('[role^="menuitem"]')];
    const at = all.indexOf(document.activeElement);
    let next = -1;
    switch (e.key) {
      case 'ArrowDown': next = (at + 1) % all.length; break;
      case 'ArrowUp': next = (at - 1 + all.length) % all.length; break;
      case 'Home': next = 0; break;
      case 'End': next = all.length - 1; break;
      case 'Escape': closeShapeMenu(true); break;
      case 'Tab': closeShapeMenu(true); break;
      default: return;
    }
    e.preventDefault();
    e.stopPropagation();
    if (next >= 0) all[next].focus();
  });
  // The focus gone elsewhere closes it (this menu: not one opened since).
  menu.addEventListener('focusout', (e) => {
    if (!menu.contains(e.relatedTarget)) setTimeout(() => { if (menu.isConnected && !menu.contains(document.activeElement)) closeShapeMenu(false); }, 0);
  });
  document.body.append(menu);
  const r = menu.getBoundingClientRect();
  menu.style.left = Math.max(4, Math.min(x, window.innerWidth - r.width - 4)) + 'px';
  menu.style.top = Math.max(4, Math.min(y, window.innerHeight - r.height - 4)) + 'px';
  const first = items.findIndex((a) => !a.why);
  menu.querySelectorAll('[role^="menuitem"]')[Math.max(0, first)].focus();
}

// debugActions lists the context menu's debugging items for node n, with
// controls on a live agent: break on its start, force its result (each
// checked when so; choosing a checked one undoes it). Each has run, the
// request it makes; the Node tab has the other breakpoint kinds.
function debugActions(n) {
  if (!canControl() || !S.agent) return [];
  const why = S.token ? '' : NEED_TOKEN;
  const me = fullLabel(n.id);
  const on = breakpointsOf(n.id);
  const starts = on.includes('start');
  const forced = forcedOf(n.id);
  const items = [{ op: 'break-start', text: 'Break on start', checked: starts, why,
    title: starts ? 'Stop pausing the agent when ' + me + ' starts' : 'Pause the agent at the end of a tick in which ' + me + ' starts (the Node tab has the other events)',
    run: () => setBreakpoint(n.id, starts ? on.filter((e) => e !== 'start') : on.concat(['start'])) }];
  const noRun = n.inGuard || n.condition;
  for (const st of noRun ? ['success', 'failure'] : ['success', 'failure', 'running']) {
    items.push({ op: 'force-' + st, text: 'Force ' + st, checked: forced === st, why,
      title: forced === st ? 'Lift the force: ' + me + ' runs as usual' : 'Do not run ' + me + ': ticked, it returns ' + st,
      run: () => setForce(n.id, forced === st ? 'none' : st) });
  }
  return items;
}

// closeShapeMenu closes the context menu; back: the tree gets the focus.
function closeShapeMenu(back) {
  const menu = $('#shape-menu');
  if (!menu) return;
  menu.remove();
  if (back) $('#tree').focus();
}

function setupShape() {
  const svg = $('#tree');
  // The context menu key (or Shift+F10) on the tree: its menu is the
  // selected node's (else the root's), wherever the browser says it is.
  let fromKey = -Infinity;
  svg.addEventListener('keydown', (e) => {
    if (e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) fromKey = performance.now();
  });
  // A right click on a node (or the context menu key) opens its menu,
  // when the page may edit or control the agent.
  svg.addEventListener('contextmenu', (e) => {
    if (!(canEdit() || (canControl() && S.agent)) || !S.tree) return;
    const key = performance.now() - fromKey < 1000;
    fromKey = -Infinity;
    // The node clicked is the event's target (the point is where the menu
    // opens: hit-testing it again may find what moved there since).
    const g = key || !e.target.closest ? null : e.target.closest('#tree g.node');
    const id = g ? Number(g.getAttribute('data-id')) : key ? Math.max(0, S.selected) : S.selected;
    if (id < 0 || id >= S.tree.nodes.length) return;
    e.preventDefault();
    let x = e.clientX;
    let y = e.clientY;
    const el = S.nodeEls[shownAt(id)];
    if (!g && el) {
      const r = el.getBoundingClientRect();
      x = r.left + 8;
      y = r.bottom + 2;
    }
    openShapeMenu(id, x, y);
  });
  document.addEventListener('pointerdown', (e) => {
    const menu = $('#shape-menu');
    if (menu && !menu.contains(e.target)) closeShapeMenu(false);
  }, true);
  window.addEventListener('resize', () => closeShapeMenu(false));
  // Ctrl+Z (⌘Z), outside fields: Undo; Ctrl+Shift+Z (⇧⌘Z) or Ctrl+Y: Redo.
  document.addEventListener('keydown', (e) => {
    const k = e.key.toLowerCase();
    if (!(e.ctrlKey || e.metaKey) || e.altKey || !(k === 'z' || (k === 'y' && !e.shiftKey))) return;
    const redo = k === 'y' || e.shiftKey;
    const el = document.activeElement;
    if ((el && isField(el)) || $('#agent-view').hidden || !canEdit() || !S.token || !S.tree || !(redo ? S.tree.redo : S.tree.undo)) return;
    e.preventDefault();
    if (redo) redoShape();
    else undoShape();
  });
}
