// The agent list: loading it, its search and filters, its entries and
// keys, and the per-tree counts.
'use strict';

let listTimer = 0;
async function loadAgents() {
  const p = new URLSearchParams();
  if (S.list.q) p.set('q', S.list.q);
  if (S.list.tree !== '') p.set('tree', S.list.tree);
  if (S.list.status) p.set('status', S.list.status);
  p.set('limit', S.list.limit);
  let data;
  try {
    data = await api('api/agents?' + p);
  } catch (err) {
    if (!S.rec) $('#list-info').textContent = 'cannot list agents: ' + err.message;
    return;
  }
  if (S.rec) return; // a recording was opened meanwhile
  // An edit or a hot reload gives a tree a new id, and a tree filter
  // asked by the old one would list no agent: it follows the tree to its
  // new id, the tree of its name new since the last list (or the only
  // one of its name); else, the tree gone, it is lifted.
  const seen = S.list.treeIds;
  S.list.treeIds = new Set(data.trees.map((t) => t.id));
  if (S.list.tree !== '' && !S.list.treeIds.has(Number(S.list.tree))) {
    const named = data.trees.filter((t) => t.name === S.list.treeName);
    const fresh = named.filter((t) => !seen.has(t.id));
    const to = fresh.length === 1 ? fresh[0] : named.length === 1 ? named[0] : null;
    S.list.tree = to ? String(to.id) : '';
    $('#filter-tree').value = S.list.tree;
    return loadAgents();
  }
  // By name: a tree's new id (after an edit) does not move it in the
  // chips and the menu.
  data.trees.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
  const shown = data.trees.find((t) => String(t.id) === S.list.tree);
  S.list.treeName = shown ? shown.name : '';
  renderTreeCounts(data.trees);
  // The list is asked for every 1.5 s: what did not change is left alone,
  // so that an open menu stays open and a click in progress lands.
  const sel = $('#filter-tree');
  const opts = data.trees.map((t) => [t.id, treeName(t, data.trees) + ' (' + t.count + ')']);
  const optsKey = JSON.stringify(opts);
  if (sel.dataset.key !== optsKey) {
    sel.replaceChildren(h('option', { value: '', text: 'all trees' }), ...opts.map(([id, text]) => h('option', { value: id, text })));
    sel.value = S.list.tree; // (a filter that followed its tree to a new id: its option is new)
    sel.dataset.key = optsKey;
  }
  S.list.total = data.total;
  $('#list-info').textContent = data.matches + ' of ' + data.total + ' agents' +
    (data.agents.length < data.matches ? ' · showing ' + data.agents.length : '');
  $('#more').hidden = data.agents.length >= data.matches;
  const ul = $('#agent-list');
  const kept = new Map(Array.from(ul.children, (li) => [li.dataset.key, li]));
  // The entry with the keyboard focus keeps it when it is redrawn.
  const focused = document.activeElement && document.activeElement.parentElement === ul ? document.activeElement.dataset.id : null;
  const items = data.agents.map((a) => {
    // Not the label: a label with live values (the village's needs)
    // changes on most refreshes, and its entry is kept, its text updated
    // (setItemLabel), so that its tooltip stays up and a click lands.
    const key = JSON.stringify([a.id, a.paused, a.status, a.treeName, a.watched, a.errors || 0]);
    const li = kept.get(key) || agentItem(a, a.watched ? h('span', { class: 'eye', text: '◉', title: 'watched' }) : null);
    setItemLabel(li, a);
    li.dataset.key = key;
    li.classList.toggle('sel', a.id === S.agentId);
    return li;
  });
  if (items.length !== ul.children.length || items.some((li, i) => ul.children[i] !== li)) ul.replaceChildren(...items);
  rovingTab(ul, focused);
}

// rovingTab makes the agent list one stop of the Tab key: the entry
// focused (id focused, if any), else the open agent's, else the first,
// is the one Tab reaches; the arrow keys move in the list
// (setupAgentListKeys). The entry focused before a redraw gets the focus
// back.
function rovingTab(ul, focused) {
  const items = Array.from(ul.children).filter((li) => li.dataset.id != null);
  const stop = items.find((li) => li.dataset.id === focused) || items.find((li) => li.classList.contains('sel')) || items[0];
  for (const li of items) li.tabIndex = li === stop ? 0 : -1;
  if (focused != null && stop && stop.dataset.id === focused && document.activeElement !== stop) stop.focus({ preventScroll: true });
}

// setupAgentListKeys: in the agent list, ↑ and ↓ (Home, End) move the
// focus between the entries; Enter or Space opens the one focused.
function setupAgentListKeys() {
  const ul = $('#agent-list');
  ul.addEventListener('keydown', (e) => {
    const li = e.target.closest('li[data-id]');
    if (!li || e.ctrlKey || e.metaKey || e.altKey) return;
    const items = Array.from(ul.querySelectorAll('li[data-id]'));
    let k = items.indexOf(li);
    switch (e.key) {
      case 'Enter':
      case ' ':
        openAgent(Number(li.dataset.id));
        break;
      case 'ArrowDown': k = Math.min(items.length - 1, k + 1); break;
      case 'ArrowUp': k = Math.max(0, k - 1); break;
      case 'Home': k = 0; break;
      case 'End': k = items.length - 1; break;
      default: return;
    }
    e.preventDefault();
    e.stopPropagation(); // not the page's keys (Space pauses, End goes live)
    if (items[k] && items[k] !== li) {
      for (const x of items) x.tabIndex = x === items[k] ? 0 : -1;
      items[k].focus();
    }
  });
}

// setupAgentListClicks: a click on an entry opens its agent (agentItem).
// The list is asked for every 1.5 s, and the entry of an agent that
// changed meanwhile (its status, say; a new label only changes the
// entry's text) is a new element: pressed on the old one and released
// on the new one, the browser makes no click of it. Such a press and
// release on the entries of one agent open it too.
function setupAgentListClicks() {
  const ul = $('#agent-list');
  let pressed = null;
  ul.addEventListener('pointerdown', (e) => {
    pressed = e.button === 0 ? e.target.closest('li[data-id]') : null;
  });
  // A press that ends elsewhere, or is cancelled, is over.
  const forget = (e) => { if (!ul.contains(e.target)) pressed = null; };
  document.addEventListener('pointerup', forget);
  document.addEventListener('pointercancel', () => { pressed = null; });
  ul.addEventListener('pointerup', (e) => {
    const was = pressed;
    pressed = null;
    const li = e.button === 0 ? e.target.closest('li[data-id]') : null;
    // Still there, the entry pressed gets its click.
    if (!was || !li || was.isConnected || was.dataset.id !== li.dataset.id) return;
    openAgent(Number(li.dataset.id));
    // As a click does: the page's keys stay the page's.
    if (document.activeElement === li) li.blur();
  });
}

// errCount is an error count in at most 4 characters, as the badges show it.
function errCountText(n) {
  return n > 999 ? fmtCount(n) : String(n);
}

// agentItem is an agent's entry in the list; mark follows its label.
// The id and the label (else the tree's name) wrap, in two lines at
// most; the open agent's entry, and one focused with the keys, show the
// label in full, and the tooltip has it too (setItemLabel).
function agentItem(a, mark) {
  const st = a.paused ? 'paused' : a.status;
  // Focusable (see rovingTab): Enter or Space opens it.
  const li = h('li', { 'data-id': a.id, 'data-status': st, class: 'agent-item' + (a.id === S.agentId ? ' sel' : ''),
    tabindex: -1, role: 'button', onclick: (e) => {
      openAgent(a.id);
      // Clicked (not a key): the page's keys (Space, End) stay the page's.
      if (e.detail) e.currentTarget.blur();
    } },
    h('span', { class: 'dot ' + st }),
    h('span', { class: 'atext' }, h('span', { class: 'aid', text: '#' + a.id }), ' ', h('span', { class: 'alabel' })),
    mark,
    a.errors ? h('span', { class: 'errc', text: '⚠ ' + errCountText(a.errors), title: a.errors + ' node error' + (a.errors === 1 ? '' : 's') }) : null);
  setItemLabel(li, a);
  return li;
}

// setItemLabel puts a's label (else its tree's name) in its entry li,
// and in the entry's tooltip, when they changed.
function setItemLabel(li, a) {
  const text = a.label || a.treeName;
  const el = li.querySelector('.alabel');
  if (el.textContent !== text) el.textContent = text;
  const title = '#' + a.id + (a.label ? ' · ' + a.label : '') + ' · ' + a.treeName + ' · ' + li.dataset.status;
  if (li.title !== title) li.title = title;
}

// treeName names a tree of the list; trees of the same name (two files
// with one main tree name) are told apart by their size.
function treeName(t, trees) {
  return trees.some((o) => o !== t && o.name === t.name) ? t.name + ' · ' + t.nodes + ' nodes' : t.name;
}

// renderTreeCounts shows a chip per tree: its name and count of agents,
// a button that filters the list by the tree (again: lifts the filter).
// Chips that did not change are left alone, so that the one with the
// keyboard focus keeps it; a redrawn one gets it back.
function renderTreeCounts(trees) {
  const box = $('#tree-counts');
  const rows = trees.map((t) => {
    const b = t.byStatus || {};
    const detail = ['running', 'success', 'failure', 'idle', 'paused'].filter((k) => b[k]).map((k) => b[k] + ' ' + k).join(', ');
    return { id: String(t.id), name: treeName(t, trees), count: t.count, detail, on: String(t.id) === S.list.tree };
  });
  const key = JSON.stringify(rows);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const focused = document.activeElement && document.activeElement.parentElement === box ? document.activeElement.dataset.name : null;
  box.replaceChildren(...rows.map((r) => h('button', { type: 'button', class: 'chip' + (r.on ? ' on' : ''), 'aria-pressed': String(r.on),
    'data-name': r.name, title: (r.detail ? r.detail + ' · ' : '') + (r.on ? 'click: all trees' : 'click: only this tree\'s agents'),
    onclick: () => { S.list.tree = r.on ? '' : r.id; $('#filter-tree').value = S.list.tree; loadAgents(); } },
  r.name + ' ', h('small', { text: String(r.count) }))));
  const again = focused !== null && Array.from(box.children).find((c) => c.dataset.name === focused);
  if (again) again.focus();
}

function scheduleList() {
  clearTimeout(listTimer);
  listTimer = setTimeout(loadAgents, 200);
}
