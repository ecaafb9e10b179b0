// Running now: the running paths, and selecting a node from the lists
// that update live.
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
