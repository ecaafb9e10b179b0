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

// NOT_PARAMS are node keys of the tree files, not parameters (the
// server's reservedParams).
const NOT_PARAMS = ['type', 'name', 'children', 'child', 'guard', 'abort', 'comment'];

const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o || {}, k);

// editableParams lists node n's parameters the form offers, in order.
function editableParams(n) {
  const skip = NO_EDIT[n.type] || [];
  return Object.keys(n.params || {}).filter((k) => !skip.includes(k)).sort();
}

// typeOf returns what the tree's description says of node n's type: its
// parameters ({ name, kind, required, ref, default }) and whether it takes
// any others (anyParams); null when it says nothing (a type that takes no
// parameters, or that the session cannot describe).
function typeOf(n) {
  const types = S.tree && S.tree.types;
  return types && hasOwn(types, n.type) ? types[n.type] : null;
}

// paramInfo returns what the type of node n says of its parameter k, or
// null.
function paramInfo(n, k) {
  const t = typeOf(n);
  return (t && (t.params || []).find((p) => p.name === k)) || null;
}

// leftOut lists the parameters node n's type takes that n leaves out (at
// their defaults), in the type's order.
function leftOut(n) {
  const t = typeOf(n);
  const skip = NO_EDIT[n.type] || [];
  return t ? (t.params || []).filter((p) => !hasOwn(n.params, p.name) && !skip.includes(p.name)) : [];
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
      const b = h('button', { id: 'btn-edit', type: 'button', title: S.token ? 'Edit the node\'s parameters and name' + (n.abortable ? ', and its abort mode' : '') + ': Apply changes the tree of every agent running it' : NEED_TOKEN,
        'aria-label': 'Edit the node', onclick: () => openEdit(n) }, '✎ Edit');
      b.disabled = !S.token;
      head.append(' ', b);
    }
    kids.push(head);
  }
  if (n.params) kids.push(h('pre', { text: JSON.stringify(n.params, null, 2) }));
  else if (canEdit()) {
    const t = typeOf(n);
    kids.push(h('p', { class: 'muted', text: leftOut(n).length || (t && t.anyParams) ? 'none: all at their defaults (Edit sets one, or its name)' : n.abortable ? 'none (Edit changes its name and abort mode)' : 'none (Edit changes its name)' }));
  }
  if (note) {
    // A live region announces a change of its text, not the text it was
    // added with: added empty, then filled.
    const p = h('p', { class: 'edit-note', role: 'status' });
    kids.push(p);
    setTimeout(() => { p.textContent = note; }, 50);
  }
  box.replaceChildren(...kids);
  if (focused && $('#btn-edit')) $('#btn-edit').focus();
}

// openEdit opens the form editing node n, its first field focused.
function openEdit(n) {
  if (!canEdit() || !S.token) return;
  S.edit = { tree: S.treeId, node: n.id };
  S.editNote = null;
  if (S.shapeForm) {
    S.shapeForm = null; // one form at a time
    renderShapeBox(n);
  }
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
// {key} reference; lists and objects are JSON), each with × to remove it
// (back to its default) unless the type requires it; then the parameters
// its type takes that n leaves out, empty (their defaults apply), and for
// a type that takes any parameters a field to add one by name; Apply and
// Cancel.
function editForm(n) {
  const form = h('form', { id: 'edit-form', class: 'edit-form', 'aria-label': 'Edit ' + fullLabel(n.id) });
  form.append(h('h4', { text: 'Edit ' + n.type }));
  // Fields are numbered: ids made from parameter names could collide
  // (pose.x and pose_x) or take the form's own ids (ef-new, ef-form-err).
  let seq = 0;
  // The hint is the field's title (its description for a screen reader;
  // an error under it takes its place while shown: rowError); the label's
  // title has the name in full, a long one wrapping.
  const row = (name, field, hint, button) => {
    const id = 'ef-p' + seq++;
    field.id = id;
    if (hint && !field.title) field.title = hint;
    const err = h('div', { class: 'ef-err', id: id + '-err', role: 'alert', hidden: '' });
    const lbl = h('label', { for: id, text: name, title: name + (hint ? ': ' + hint : '') });
    return h('div', { class: 'ef-row', 'data-field': name }, lbl, field, button || h('span'), err);
  };
  const nameIn = h('input', { type: 'text', name: 'name', autocomplete: 'off', placeholder: n.type + ' (no name)' });
  nameIn.value = n.name || '';
  form.append(row('name', nameIn, 'The node\'s name (its label); empty: none'));
  if (n.abortable) {
    // Its conditional-abort mode: which of its conditions, re-evaluated
    // while a branch runs, abort what runs (semantics §7).
    const modes = { none: 'none', self: 'self: while it runs, a change of its conditions aborts it',
      lower: 'lower: while a lower-priority branch runs, a change of its conditions aborts that branch', both: 'both: self and lower' };
    const sel = h('select', { name: 'abort' }, ...Object.keys(modes).map((m) => h('option', { value: m, text: modes[m] })));
    sel.value = n.abort || 'none';
    form.append(row('abort', sel, 'The conditional-abort mode: none, self, lower or both'));
  }
  for (const k of editableParams(n)) {
    const v = n.params[k];
    const kind = paramKind(v);
    let field;
    if (kind === 'bool') {
      field = h('input', { type: 'checkbox' });
      field.checked = v;
    } else if (n.type === 'Check' && k === 'op' && kind === 'string') {
      field = opSelect(v);
    } else if (kind === 'json') {
      // As high as its text (style.css: field-sizing), up to a few lines.
      field = h('textarea', { rows: String(Math.min(6, Math.max(1, Math.ceil(JSON.stringify(v).length / 30)))), spellcheck: 'false' });
      field.value = jsonLine(v);
    } else {
      field = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false' });
      if (kind === 'number') field.setAttribute('inputmode', 'decimal');
      field.value = String(v);
    }
    field.dataset.param = k;
    field.dataset.kind = kind;
    const hint = { number: 'A number, or a {key} of the blackboard', bool: 'true (checked) or false', string: 'Text; {key} reads the blackboard', json: 'JSON, such as [1, 2] or {"a": 1}' }[kind];
    const info = paramInfo(n, k);
    form.append(row(k, field, hint, info && info.required ? null : removeButton(k, info, field)));
  }
  const more = leftOut(n);
  const t = typeOf(n);
  if (more.length || (t && t.anyParams)) {
    form.append(h('p', { class: 'ef-section', text: more.length ? 'Left out, at their defaults: fill one in to set it.' : n.type + ' takes parameters of any name: add one.' }));
  }
  for (const p of more) {
    const field = addedField(p, n.type);
    form.append(row(p.name, field, field.title));
  }
  if (t && t.anyParams) form.append(newParamRow());
  const sub = n.inSubtree ? ' It is in a subtree: every use of the subtree changes.' : '';
  form.append(h('p', { class: 'muted', text: 'Apply moves every agent running this tree to the edited tree at once (running nodes halted once, blackboards kept). The file stays as it was: Download tree, below, saves the edit.' + sub }));
  const apply = h('button', { type: 'submit', id: 'btn-apply', class: 'primary', title: 'Apply the changes (Enter)' }, 'Apply');
  const cancel = h('button', { type: 'button', id: 'btn-cancel-edit', title: 'Close the form, changing nothing (Esc)', onclick: () => closeEdit(true) }, 'Cancel');
  return finishForm(form, apply, cancel, () => applyEdit(n, form), () => closeEdit(true));
}

// readNewParam adds to params the parameter the form's "add" row names,
// if any, and returns its name ("" when none); null when the row is wrong
// (its error shown, the focus on the field at fault).
function readNewParam(form, params) {
  const newRow = form.querySelector('#ef-new');
  if (!newRow) return '';
  const newName = $('#ef-new-name').value.trim();
  const raw = $('#ef-new-value').value;
  const [bad, at] = newParamError(form, newName, raw);
  if (bad) {
    rowError(form, newRow, bad, at);
    at.focus();
    return null;
  }
  if (newName) params[newName] = anyValue(raw.trim());
  return newName;
}

// finishForm ends an edit form (the parameter edit, the shape edit's new
// node): its Apply and Cancel buttons and its error line; Enter applies
// (onApply), Esc cancels (onCancel).
function finishForm(form, apply, cancel, onApply, onCancel) {
  form.append(h('div', { class: 'ef-buttons' }, apply, cancel), h('div', { class: 'ef-err ef-form-err', id: 'ef-form-err', role: 'alert', hidden: '' }));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    onApply();
  });
  form.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    }
  });
  return form;
}

// jsonLine writes v as JSON on one line, a space after each comma and
// colon: a long list wraps in its field between items, not in them.
function jsonLine(v) {
  if (Array.isArray(v)) return '[' + v.map(jsonLine).join(', ') + ']';
  if (v && typeof v === 'object') return '{' + Object.keys(v).map((k) => JSON.stringify(k) + ': ' + jsonLine(v[k])).join(', ') + '}';
  return JSON.stringify(v);
}

// removeButton is the × of parameter k's row (info: what its type says of
// it, or null): pressed, Apply removes the parameter (the node is back to
// its default) and the field is disabled; pressed again, it stays.
function removeButton(k, info, field) {
  const dflt = info && info.default !== undefined ? ' (' + JSON.stringify(info.default) + ')' : '';
  const b = h('button', { type: 'button', class: 'ef-remove', 'aria-pressed': 'false', 'aria-label': 'Remove ' + k,
    title: 'Remove ' + k + ': the node is back to its default' + dflt + ' (Apply)' }, '×');
  b.addEventListener('click', () => {
    const on = b.getAttribute('aria-pressed') !== 'true';
    b.setAttribute('aria-pressed', String(on));
    b.closest('.ef-row').classList.toggle('ef-removed', on);
    field.disabled = on;
    if (on) field.dataset.removed = '';
    else delete field.dataset.removed;
  });
  return b;
}

// addedField is the field of parameter p that a node of type type leaves
// out: empty, its placeholder the default; its kind (p.kind) says how its
// text is read. Check's op is a list of the operators.
function addedField(p, type) {
  const dflt = p.required ? 'required' : p.default === undefined ? 'not set' : 'default ' + JSON.stringify(p.default);
  const ref = p.ref ? ', or a {key} of the blackboard' : '';
  let field;
  let hint;
  if (p.kind === 'bool') {
    field = h('select', {}, h('option', { value: '', text: dflt }), h('option', { value: 'true', text: 'true' }), h('option', { value: 'false', text: 'false' }));
    hint = 'true or false; ' + dflt + ': leave it out';
  } else if (type === 'Check' && p.name === 'op') {
    field = opSelect('');
    hint = 'The comparison of the key\'s value with value (exists and missing take none)';
  } else if (p.kind === 'list') {
    field = h('textarea', { rows: '1', spellcheck: 'false', placeholder: dflt });
    hint = 'A JSON list, such as [1, 2]; empty: leave it out';
  } else {
    field = h('input', { type: 'text', autocomplete: 'off', spellcheck: 'false', placeholder: dflt });
    if (p.kind === 'number') field.setAttribute('inputmode', 'decimal');
    hint = { number: 'A number' + ref, string: 'Text' + ref }[p.kind] || 'JSON (a number, true, a list, an object, "text"), or text' + ref;
    hint += '; empty: leave it out';
  }
  field.dataset.param = p.name;
  field.dataset.kind = { number: 'number', bool: 'bool', string: 'string', list: 'json' }[p.kind] || 'any';
  field.dataset.added = '';
  field.title = hint;
  return field;
}

// opSelect is the list of Check's operators (the session's checkOps),
// v picked ('': none yet).
function opSelect(v) {
  const ops = ((S.session && S.session.checkOps) || []).slice();
  if (v && !ops.includes(v)) ops.push(v);
  const sel = h('select', {}, ...ops.map((o) => h('option', { value: o, text: o })));
  if (!v) sel.prepend(h('option', { value: '', text: 'required: pick one' }));
  sel.value = v;
  return sel;
}

// newParamRow is the row adding a parameter of any name (a type that
// takes any): its name and value (JSON, or text).
function newParamRow() {
  const name = h('input', { type: 'text', id: 'ef-new-name', autocomplete: 'off', spellcheck: 'false', placeholder: 'name', 'aria-label': 'New parameter\'s name',
    title: 'The new parameter\'s name; empty: none' });
  const value = h('input', { type: 'text', id: 'ef-new-value', autocomplete: 'off', spellcheck: 'false', placeholder: 'value', 'aria-label': 'New parameter\'s value',
    title: 'JSON (a number, true, a list, an object, "text"), or text' });
  return h('div', { class: 'ef-row ef-new', id: 'ef-new' }, h('label', { for: 'ef-new-name', text: 'add', title: 'A parameter of any name; empty: none' }),
    h('div', { class: 'ef-pair' }, name, value), h('span'), h('div', { class: 'ef-err', id: 'ef-new-err', role: 'alert', hidden: '' }));
}

// fieldError shows msg under the form's field name (none: under the
// form), or clears every message when msg is empty.
function fieldError(form, name, msg) {
  if (!msg) {
    for (const el of form.querySelectorAll('.ef-err')) { el.hidden = true; el.textContent = ''; el.classList.remove('ef-info'); }
    for (const el of form.querySelectorAll('[aria-invalid]')) {
      el.removeAttribute('aria-invalid');
      el.removeAttribute('aria-describedby');
    }
    return;
  }
  const row = name != null && form.querySelector('.ef-row[data-field="' + CSS.escape(name) + '"]');
  rowError(form, row || null, msg);
}

// rowError shows msg under a row of the form (null: under the form),
// its field (or field, when given) marked invalid and described by msg
// (only while it shows: an empty description would hide the field's
// title, its hint, from a screen reader).
function rowError(form, row, msg, field) {
  const err = row ? row.querySelector('.ef-err') : form.querySelector('#ef-form-err');
  err.textContent = msg;
  err.hidden = false;
  err.classList.remove('ef-info');
  if (!row) return;
  const at = field || row.querySelector('input, textarea, select');
  at.setAttribute('aria-invalid', 'true');
  at.setAttribute('aria-describedby', err.id);
}

// editValue reads a field's value as its kind says; it throws on JSON
// that does not parse. An "any" field is JSON, or else text.
function editValue(field) {
  const raw = field.value;
  switch (field.dataset.kind) {
    case 'bool': return field.tagName === 'SELECT' ? raw === 'true' : field.checked;
    case 'string': return raw;
    case 'number': {
      const t = raw.trim();
      return t !== '' && Number.isFinite(Number(t)) ? Number(t) : raw;
    }
    case 'any': return anyValue(raw);
  }
  return JSON.parse(raw);
}

// anyValue reads text as JSON, or else as the text itself.
function anyValue(raw) {
  try {
    return JSON.parse(raw);
  } catch (_) {
    return raw;
  }
}

// applyEdit sends the changes of the form to the server: the parameters
// changed, those removed (null), those left out that are filled in, a new
// one of any name, the name if changed. A compile error shows under the
// field it names (else under the form), and nothing changes.
async function applyEdit(n, form) {
  fieldError(form, null, '');
  const params = {};
  for (const field of form.querySelectorAll('[data-param]')) {
    const k = field.dataset.param;
    if (field.dataset.removed !== undefined) {
      params[k] = null; // back to the default
      continue;
    }
    const added = field.dataset.added !== undefined;
    if (added && field.value.trim() === '') continue; // left out
    let v;
    try {
      v = editValue(field);
    } catch (err) {
      fieldError(form, k, 'Not JSON: ' + err.message);
      field.focus();
      return;
    }
    if (added || JSON.stringify(v) !== JSON.stringify(n.params[k])) params[k] = v;
  }
  const newName = readNewParam(form, params);
  if (newName === null) return;
  const body = { path: n.path, params };
  const name = form.querySelector('[name="name"]').value.trim();
  if (name !== (n.name || '')) body.name = name;
  const abort = form.querySelector('[name="abort"]');
  if (abort && abort.value !== (n.abort || 'none')) body.abort = abort.value;
  if (!Object.keys(params).length && body.name === undefined && body.abort === undefined) {
    fieldError(form, null, 'Nothing to apply: no value changed.');
    form.querySelector('#ef-form-err').classList.add('ef-info'); // a note, not an error
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
    let text = err.message.replace(/^trees\.\S*?: /gm, '');
    // Under the parameter's field, the message need not name it.
    if (field && text.startsWith(m[0] + ': ')) text = text.slice(m[0].length + 2);
    const msg = (err.status === 400 ? 'Not applied: ' : '') + text;
    if (!field && m && newName && m[1] === newName) {
      rowError(form, newRow, msg, $('#ef-new-value'));
      $('#ef-new-value').focus();
      return;
    }
    fieldError(form, field, msg);
    // Apply, focused, lost the focus while disabled: it has it back.
    if (!field && !form.contains(document.activeElement)) apply.focus();
    if (field) {
      const el = form.querySelector('[data-param="' + CSS.escape(field) + '"]');
      if (el.disabled) el.closest('.ef-row').querySelector('.ef-remove').focus();
      else el.focus();
    }
  }
}

// newParamError says what is wrong with the parameter of any name the
// form adds (name, its value's text), and the field at fault; '' when
// nothing is (an empty row adds none).
function newParamError(form, name, raw) {
  const nameIn = $('#ef-new-name');
  if (!name) return [raw.trim() ? 'Name the parameter.' : '', nameIn];
  if (NOT_PARAMS.includes(name)) return ['"' + name + '" is not a parameter.', nameIn];
  if (form.querySelector('[data-param="' + CSS.escape(name) + '"]')) return ['"' + name + '" is a parameter already: set it in its field.', nameIn];
  if (!raw.trim()) return ['Give "' + name + '" a value (JSON, or text; "" is the empty text).', $('#ef-new-value')];
  return ['', null];
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
