// Editing the tree while it runs (with controls and the program's
// Recompile): the Node tab's parameters, their Edit form, and Download
// tree.
'use strict';

// canEdit says whether the page may edit the tree shown.
function canEdit() {
  return canControl() && !!(S.session && S.session.edit) && !!S.tree;
}

// NO_EDIT lists the parameters an edit may not change, by node type: they
// change the tree's shape.
const NO_EDIT = { SubTree: ['tree'] };

// editableParams lists node n's parameters the form offers, in order.
function editableParams(n) {
  const skip = NO_EDIT[n.type] || [];
  return Object.keys(n.params || {}).filter((k) => !skip.includes(k)).sort();
}

// paramKind is how the form edits a parameter's value: number, bool,
// string, or json (lists, objects, null).
function paramKind(v) {
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  return 'json';
}

// renderParams fills the Node tab's parameters for node n: as JSON, with
// an Edit button when the page may edit; or the form editing them. It
// redraws only when what it shows changes: a form being filled in stays
// as it is through the live updates.
function renderParams(n) {
  const box = $('#node-params');
  const editing = !!(n && S.edit && S.edit.tree === S.treeId && S.edit.node === n.id && canEdit());
  if (!editing) S.edit = null;
  const note = n && S.editNote && S.editNote.tree === S.treeId && S.editNote.path === n.path ? S.editNote.text : '';
  const key = n ? JSON.stringify([S.treeId, n.id, editing, canEdit(), !!S.token, note]) : '';
  if (key === S.editKey) return;
  S.editKey = key;
  if (!n) {
    box.replaceChildren();
    return;
  }
  if (editing) {
    box.replaceChildren(editForm(n));
    return;
  }
  // The Edit button keeps the focus it had through a redraw (the tree
  // switched after an edit, say).
  const focused = document.activeElement && document.activeElement.id === 'btn-edit';
  const kids = [];
  if (n.params || canEdit()) {
    const head = h('h4', { class: 'params-head', text: 'Parameters' });
    if (canEdit()) {
      const b = h('button', { id: 'btn-edit', type: 'button', title: S.token ? 'Edit the node\'s parameters and name: Apply changes the tree of every agent running it' : NEED_TOKEN,
        'aria-label': 'Edit the node', onclick: () => openEdit(n) }, '✎ Edit');
      b.disabled = !S.token;
      head.append(' ', b);
    }
    kids.push(head);
  }
  if (n.params) kids.push(h('pre', { text: JSON.stringify(n.params, null, 2) }));
  else if (canEdit()) kids.push(h('p', { class: 'muted', text: 'none (Edit changes its name)' }));
  if (note) kids.push(h('p', { class: 'edit-note', role: 'status', text: note }));
  box.replaceChildren(...kids);
  if (focused && $('#btn-edit')) $('#btn-edit').focus();
}

// openEdit opens the form editing node n, its first field focused.
function openEdit(n) {
  if (!canEdit() || !S.token) return;
  S.edit = { tree: S.treeId, node: n.id };
  S.editNote = null;
  renderParams(n);
  const first = $('#edit-form input, #edit-form textarea');
  if (first) first.focus();
}

// closeEdit closes the form; focus: back to the Edit button.
function closeEdit(focusEdit) {
  S.edit = null;
  const n = S.tree && S.selected >= 0 ? S.tree.nodes[S.selected] : null;
  renderParams(n);
  if (focusEdit && $('#btn-edit')) $('#btn-edit').focus();
}

// editForm builds the form editing node n: its name and each parameter
// (a number field takes a number, or any other text as a string: a
// {key} reference; lists and objects are JSON), Apply and Cancel.
function editForm(n) {
  const form = h('form', { id: 'edit-form', class: 'edit-form', 'aria-label': 'Edit ' + fullLabel(n.id) });
  form.append(h('h4', { text: 'Edit ' + n.type }));
  const row = (name, field, hint) => {
    const id = 'ef-' + name.replace(/[^\w-]/g, '_');
    field.id = id;
    const err = h('div', { class: 'ef-err', id: id + '-err', role: 'alert', hidden: '' });
    field.setAttribute('aria-describedby', err.id);
    const lbl = h('label', { for: id, text: name, title: hint || '' });
    return h('div', { class: 'ef-row', 'data-field': name }, lbl, field, err);
  };
  const nameIn = h('input', { type: 'text', name: 'name', autocomplete: 'off', placeholder: n.type + ' (no name)' });
  nameIn.value = n.name || '';
  form.append(row('name', nameIn, 'The node\'s name (its label); empty: none'));
  for (const k of editableParams(n)) {
    const v = n.params[k];
    const kind = paramKind(v);
    let field;
    if (kind === 'bool') {
      field = h('input', { type: 'checkbox' });
      field.checked = v;
    } else if (kind === 'json') {
      field = h('textarea', { rows: String(Math.min(6, JSON.stringify(v, null, 1).split('\n').length)), spellcheck: 'false' });
      field.value = JSON.stringify(v);
    } else {
      field = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false' });
      if (kind === 'number') field.setAttribute('inputmode', 'decimal');
      field.value = String(v);
    }
    field.dataset.param = k;
    field.dataset.kind = kind;
    const hint = { number: 'A number, or a {key} of the blackboard', bool: 'true (checked) or false', string: 'Text; {key} reads the blackboard', json: 'JSON' }[kind];
    form.append(row(k, field, hint));
  }
  const sub = n.path.includes('>') ? ' It is in a subtree: every use of the subtree changes.' : '';
  form.append(h('p', { class: 'muted', text: 'Apply recompiles the tree and moves every agent running it to the edited tree at once: their running nodes are halted once, blackboards kept. The file is not rewritten (Download tree saves the edited tree).' + sub }));
  const apply = h('button', { type: 'submit', id: 'btn-apply' }, 'Apply');
  const cancel = h('button', { type: 'button', id: 'btn-cancel-edit', onclick: () => closeEdit(true) }, 'Cancel');
  form.append(h('div', { class: 'ef-buttons' }, apply, cancel), h('div', { class: 'ef-err ef-form-err', id: 'ef-form-err', role: 'alert', hidden: '' }));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    applyEdit(n, form);
  });
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      closeEdit(true);
    }
  });
  return form;
}

// fieldError shows msg under the form's field name (none: under the
// form), or clears every message when msg is empty.
function fieldError(form, name, msg) {
  if (!msg) {
    for (const el of form.querySelectorAll('.ef-err')) { el.hidden = true; el.textContent = ''; }
    for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
    return;
  }
  const row = name != null && form.querySelector('.ef-row[data-field="' + CSS.escape(name) + '"]');
  const err = row ? row.querySelector('.ef-err') : form.querySelector('#ef-form-err');
  err.textContent = msg;
  err.hidden = false;
  if (row) row.querySelector('input, textarea').setAttribute('aria-invalid', 'true');
}

// editValue reads a field's value as its kind says; it throws on JSON
// that does not parse.
function editValue(field) {
  const raw = field.value;
  switch (field.dataset.kind) {
    case 'bool': return field.checked;
    case 'string': return raw;
    case 'number': {
      const t = raw.trim();
      return t !== '' && Number.isFinite(Number(t)) ? Number(t) : raw;
    }
  }
  return JSON.parse(raw);
}

// applyEdit sends the changes of the form to the server: the parameters
// changed, the name if changed. A compile error shows under the field it
// names (else under the form), and nothing changes.
async function applyEdit(n, form) {
  fieldError(form, null, '');
  const params = {};
  for (const field of form.querySelectorAll('[data-param]')) {
    let v;
    try {
      v = editValue(field);
    } catch (err) {
      fieldError(form, field.dataset.param, 'Not JSON: ' + err.message);
      field.focus();
      return;
    }
    if (JSON.stringify(v) !== JSON.stringify(n.params[field.dataset.param])) params[field.dataset.param] = v;
  }
  const body = { path: n.path, params };
  const name = form.querySelector('[name="name"]').value.trim();
  if (name !== (n.name || '')) body.name = name;
  if (!Object.keys(params).length && body.name === undefined) {
    fieldError(form, null, 'Nothing to apply: no value changed.');
    return;
  }
  const apply = form.querySelector('#btn-apply');
  apply.disabled = true;
  const tree = S.treeId;
  try {
    const r = await post('api/trees/' + tree + '/edit', body);
    const agents = r.agents === 1 ? '1 agent' : r.agents + ' agents';
    S.editNote = { tree: r.tree, path: n.path, text: r.unchanged ? 'Nothing changed.' : 'Applied to ' + agents + ' (running nodes halted once; they run the edited tree from their next tick).' };
    // The live update brings the agent on the new tree (switchTree); the
    // selection stays on this node.
    if (S.edit && S.edit.tree === tree) S.edit = null;
    S.editKey = '';
    if (S.tab === 'node') renderNode();
    if ($('#btn-edit')) $('#btn-edit').focus();
  } catch (err) {
    apply.disabled = false;
    const m = /parameter "([^"]+)"/.exec(err.message);
    const field = m && form.querySelector('[data-param="' + CSS.escape(m[1]) + '"]') ? m[1] : null;
    // The compiler names the node by its place in the file (trees.….children[0]: …): it is this one.
    const msg = err.message.replace(/^trees\.\S*?: /gm, '');
    fieldError(form, field, (err.status === 400 ? 'Not applied: ' : '') + msg);
    if (field) form.querySelector('[data-param="' + CSS.escape(field) + '"]').focus();
  }
}

// renderTreeDownload shows Download tree in the Node tab (live only),
// its format the tree's file's when known.
function renderTreeDownload() {
  const box = $('#tree-dl');
  const show = !!S.tree && !S.rec && S.treeId != null;
  box.hidden = !show;
  if (!show || S.dlTree === S.treeId) return;
  // A new tree (an agent opened, a reload, an edit): the format of its
  // file first, unless one was picked for a tree of that name.
  const src = S.tree.source || {};
  const sel = $('#dl-format');
  if (S.dlName !== S.tree.name) sel.value = src.format || 'arbor';
  S.dlTree = S.treeId;
  S.dlName = S.tree.name;
  $('#dl-msg').textContent = '';
  $('#tree-dl-name').textContent = S.tree.name + (src.file ? ' (' + src.file + ')' : '');
}

// downloadTree saves the tree the agent runs now, edits included, in the
// format chosen.
async function downloadTree() {
  if (S.treeId == null || S.rec) return;
  const msg = $('#dl-msg');
  msg.textContent = '';
  try {
    const r = await fetch('api/trees/' + S.treeId + '/document?format=' + encodeURIComponent($('#dl-format').value));
    if (!r.ok) {
      let text = r.status + ' ' + r.statusText;
      try { text = (await r.json()).error || text; } catch (_) { /* not JSON */ }
      throw new Error(text);
    }
    const cd = r.headers.get('Content-Disposition') || '';
    const m = /filename="?([^";]+)"?/.exec(cd);
    const url = URL.createObjectURL(await r.blob());
    const a = h('a', { href: url, download: m ? m[1] : 'tree' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    msg.textContent = 'Saved ' + a.download + '.';
  } catch (err) {
    msg.textContent = 'Download failed: ' + err.message;
  }
}

function setupEdit() {
  $('#btn-dl-tree').onclick = downloadTree;
}
