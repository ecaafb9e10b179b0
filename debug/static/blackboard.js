// The blackboard tab: the agent's and the global values.
'use strict';

// setText sets an element's text (and title) when they change: a value
// that stays can be selected and copied while the agent runs.
function setText(el, text, title) {
  if (el.textContent !== text) el.textContent = text;
  if (title != null && el.title !== title) el.title = title;
}

// renderBB shows the blackboard. Rows are kept by key and updated in
// place.
function renderBB(v) {
  const now = v.nowMs;
  const fill = (sel, rows, scope) => {
    const tb = $(sel + ' tbody');
    if (!rows || !rows.length) {
      if (!tb.querySelector('td.empty')) tb.replaceChildren(h('tr', {}, h('td', { colspan: 4, class: 'muted empty', text: 'empty' })));
      return;
    }
    const old = new Map();
    for (const tr of tb.children) if (tr.dataset.key != null) old.set(tr.dataset.key, tr);
    const out = rows.map((e) => {
      const id = scope + e.key;
      const changed = S.prevBB.has(id) && S.prevBB.get(id) !== e.text;
      S.prevBB.set(id, e.text);
      let exp = '';
      if (e.expiresMs != null) {
        const left = e.expiresMs - now;
        exp = left >= 0 ? 'in ' + fmtMs(left) : 'expired';
      }
      const shown = typeof e.value === 'number' ? fmtNum(e.value) : e.text;
      let tr = old.get(e.key);
      if (!tr) {
        tr = h('tr', { 'data-key': e.key }, h('td', { text: e.key, title: e.key }), h('td', { class: 'muted' }),
          h('td', { class: 'v' }), h('td', { class: 'muted' }));
      }
      tr.dataset.name = scope === 'g:' && !e.key.startsWith('@') ? '@' + e.key : e.key;
      tr.dataset.json = e.value !== undefined ? JSON.stringify(e.value) : e.text;
      const [, type, value, expires] = tr.children;
      setText(type, e.type, e.type);
      setText(value, shown, e.text);
      setText(expires, exp);
      tr.classList.toggle('changed', changed);
      return tr;
    });
    if (out.length !== tb.children.length || out.some((tr, i) => tb.children[i] !== tr)) tb.replaceChildren(...out);
  };
  fill('#bb-agent', v.agentScope, 'a:');
  fill('#bb-global', v.globalScope, 'g:');
}

// setupBBPick: a click on a blackboard row puts its key and value in the
// Set form (when the form is there), ready to edit; a click that selects
// text to copy leaves the form alone.
function setupBBPick() {
  $('#bb-tables').addEventListener('click', (e) => {
    const tr = e.target.closest('tr[data-name]');
    const sel = window.getSelection();
    if (!tr || $('#bb-form').hidden || (sel && !sel.isCollapsed)) return;
    $('#bb-key').value = tr.dataset.name;
    $('#bb-value').value = tr.dataset.json || '';
    $('#bb-msg').textContent = 'editing ' + tr.dataset.name + ': change the value, then Set';
  });
}
