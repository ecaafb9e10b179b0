// Running now: the running paths, and selecting a node from the lists
// that update live, with the pointer or the keys.
'use strict';

function renderRunning(paths) {
  const ol = $('#running-list');
  const key = JSON.stringify(paths) + ':' + S.treeId;
  if (ol.dataset.shown === key) return; // unchanged: nothing to redraw
  ol.dataset.shown = key;
  if (!paths.length) {
    ol.replaceChildren(h('li', { class: 'muted none', text: 'nothing running' }));
    return;
  }
  ol.replaceChildren(...paths.map((p) => {
    const li = h('li', {});
    p.forEach((id, k) => {
      if (k) li.append(h('span', { class: 'sep', text: '›' }));
      li.append(h('span', { class: 'crumb' + (k === p.length - 1 ? ' leaf' : ''), text: label(id), 'data-node': id }));
    });
    return li;
  }));
}

// setupNodeLists: the lists redrawn on updates (running paths, events,
// statistics) select a node when the pointer is pressed on it, not on
// click: the element pressed may be redrawn before the release, and the
// browser would drop the click.
function setupNodeLists() {
  for (const sel of ['#running-list', '#events-list', '#stats-table tbody']) {
    $(sel).addEventListener('pointerdown', (e) => {
      const el = e.button === 0 && e.target.closest('[data-node]');
      if (el) selectNode(Number(el.dataset.node));
    });
  }
}

// The lists of nodes that update live, for the keys: each is one stop of
// the Tab key; its rows are those with a node.
const NODE_LISTS = [
  { list: '#running-list', rows: '#running-list > li', label: 'Running paths' },
  { list: '#events-list', rows: '#events-list > li', label: 'Events of the tick shown' },
  { list: '#stats-table', rows: '#stats-table tbody > tr', label: 'Statistics by node' },
  { list: '#errors-list', rows: '#errors-list > li', label: 'Node errors' },
];

// setupNodeListKeys: in a list of nodes (NODE_LISTS) focused with Tab,
// ↑ and ↓ (Home, End) move a cursor over the rows, ← and → along a
// running path (at its ends, they are the page's: through the history),
// and Enter or Space selects the node under the cursor and shows it in
// the tree. The rows are redrawn live, so the cursor is a row and a place
// in it, put back after each redraw; it starts at the selected node's
// row.
function setupNodeListKeys() {
  for (const d of NODE_LISTS) {
    const list = $(d.list);
    const cur = { row: -1, col: -1 };
    const rows = () => Array.from(document.querySelectorAll(d.rows)).filter((r) => nodesOf(r).length);
    const draw = () => {
      for (const el of list.querySelectorAll('.kbd')) { el.classList.remove('kbd'); el.removeAttribute('id'); }
      list.removeAttribute('aria-activedescendant');
      const rs = rows();
      if (cur.row < 0 || !rs.length) return;
      cur.row = Math.min(cur.row, rs.length - 1);
      const ns = nodesOf(rs[cur.row]);
      const el = ns[Math.max(0, Math.min(cur.col < 0 ? ns.length - 1 : cur.col, ns.length - 1))];
      el.classList.add('kbd');
      el.id = 'kbd-' + d.list.slice(1);
      list.setAttribute('aria-activedescendant', el.id);
      if (document.activeElement === list) el.scrollIntoView({ block: 'nearest' });
    };
    list.tabIndex = 0;
    list.setAttribute('aria-label', d.label + ': ↑ ↓ move, Enter shows the node');
    // The cursor starts at the selected node's row, else the first.
    const start = () => {
      if (cur.row >= 0) return;
      const k = rows().findIndex((r) => nodesOf(r).some((n) => Number(n.dataset.node) === S.selected));
      cur.row = Math.max(0, k);
      cur.col = -1;
    };
    list.addEventListener('focus', () => { start(); draw(); });
    list.addEventListener('blur', () => { cur.row = -1; draw(); });
    new MutationObserver(() => { if (cur.row >= 0) draw(); }).observe(list, { childList: true, subtree: true });
    list.addEventListener('keydown', (e) => {
      if (e.target !== list || e.ctrlKey || e.metaKey || e.altKey) return;
      const rs = rows();
      if (!rs.length) {
        // Nothing to select: Enter and Space are still the list's (Space
        // would pause the agent).
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); e.stopPropagation(); }
        return;
      }
      if (cur.row < 0) {
        // Focused while the page was not (no focus event): the cursor
        // appears with the first key.
        start();
        draw();
        if (e.key !== 'Enter' && e.key !== ' ') { e.preventDefault(); e.stopPropagation(); return; }
      }
      const ns = nodesOf(rs[Math.min(cur.row, rs.length - 1)]);
      // The path may have shortened since the cursor was placed: its
      // last node then (as draw shows it).
      const col = cur.col < 0 || cur.col >= ns.length ? ns.length - 1 : cur.col;
      switch (e.key) {
        case 'ArrowDown': cur.row = Math.min(rs.length - 1, cur.row + 1); cur.col = -1; break;
        case 'ArrowUp': cur.row = Math.max(0, cur.row - 1); cur.col = -1; break;
        case 'Home': cur.row = 0; cur.col = -1; break;
        case 'End': cur.row = rs.length - 1; cur.col = -1; break;
        case 'ArrowLeft':
        case 'ArrowRight': {
          const to = col + (e.key === 'ArrowLeft' ? -1 : 1);
          // At an end of the path (or in a row of one node), nothing to
          // move to: the page's keys, through the history.
          if (to < 0 || to >= ns.length) return;
          cur.col = to;
          break;
        }
        case 'Enter':
        case ' ': {
          const el = list.querySelector('.kbd');
          const id = el ? Number(el.dataset.node) : -1;
          if (!S.tree || !(id >= 0 && id < S.tree.nodes.length)) break; // a node no longer in the tree
          selectNode(id);
          focus(id, true);
          break;
        }
        default: return;
      }
      e.preventDefault();
      e.stopPropagation(); // not the page's keys (Space pauses, End goes live)
      draw();
    });
  }
}

// nodesOf returns the elements of a list's row that stand for nodes: the
// row itself, or its parts (the steps of a running path).
function nodesOf(row) {
  if (row.dataset.node != null && row.dataset.node !== '') return [row];
  return Array.from(row.querySelectorAll('[data-node]'));
}
