// Node errors: the error count and the Errors tab.
'use strict';

// renderErrorCount shows the agent's error count: a pill in the agent
// bar and a badge on the Errors tab.
function renderErrorCount(a) {
  const n = S.rec ? 0 : a.errors || 0;
  const text = n + ' error' + (n === 1 ? '' : 's');
  const pill = $('#agent-errors');
  pill.hidden = !n;
  pill.textContent = '⚠ ' + text;
  pill.title = text + ' reported for this agent: show them';
  const badge = $('#err-badge');
  badge.hidden = !n;
  badge.textContent = errCountText(n);
  badge.title = text;
}

// loadErrors fetches the agent's recent node errors for the Errors tab.
async function loadErrors() {
  if (S.rec) {
    renderErrors(null);
    return;
  }
  if (S.errLoading || S.agentId == null) return;
  const id = S.agentId;
  S.errLoading = true;
  let r;
  try {
    r = await api('api/agents/' + id + '/errors');
  } catch (err) {
    if (id === S.agentId) $('#errors-note').textContent = 'cannot load the errors: ' + err.message;
    return;
  } finally {
    S.errLoading = false;
  }
  if (id !== S.agentId || S.rec) return;
  renderErrors(r);
  // More came while it loaded: ask again.
  if (S.tab === 'errors' && S.agent && (S.agent.errors || 0) > r.count && !S.errPending) loadErrors();
}

// renderErrors lists errors answer r (api/agents/{id}/errors), newest
// first: game time, tick, node (click: show it) and message. While the
// pointer is over the list it holds still (an erring node can add an
// entry every tick, which would move the one about to be clicked); the
// newest answer is shown when the pointer leaves.
function renderErrors(r) {
  const ol = $('#errors-list');
  if (r && S.errHover && S.errShown === S.agentId && ol.children.length) {
    S.errPending = r;
    const more = r.count - S.errCount;
    $('#errors-note').textContent = r.count + ' node error' + (r.count === 1 ? '' : 's') + ' since the session began · ' +
      'list held while the pointer is over it' + (more > 0 ? ' (' + more + ' newer)' : '');
    return;
  }
  S.errPending = null;
  S.errShown = r ? S.agentId : null;
  if (r) S.errCount = r.count;
  if (!r) {
    $('#errors-note').textContent = S.rec ? 'A recording keeps the nodes that reported an error in each tick (ringed in red), not the messages.' : '';
    ol.replaceChildren();
    renderErrorsByNode([]);
    return;
  }
  renderErrorsByNode(r.byNode || []);
  $('#errors-note').textContent = !r.count ? 'No node errors reported for this agent.'
    : r.count + ' node error' + (r.count === 1 ? '' : 's') + ' since the session began' +
      (r.count > r.errors.length ? ' · the last ' + r.errors.length + ', newest first' : ', newest first');
  const t = S.tree;
  ol.replaceChildren(...groupErrors(r.errors).map(({ e, n, oldest }) => {
    const known = t && e.node >= 0 && e.node < t.nodes.length;
    const li = h('li', { 'data-node': e.node });
    li.append(h('span', { class: 'muted', text: 't=' + fmtMs(e.nowMs) + ' · tick ' + e.tick + ' ', title: e.at }));
    li.append(h('span', known ? { class: 'err-node', text: fullLabel(e.node), title: e.path + ' (' + e.type + '): show the node',
      onclick: () => { selectNode(e.node); focus(e.node, true); } }
      : { class: 'err-node gone', text: e.path, title: e.type + ' (not in the tree shown)' }));
    if (n > 1) {
      li.append(h('span', { class: 'err-rep', text: ' ×' + n,
        title: n + ' times in the list, since tick ' + oldest.tick + ' (t=' + fmtMs(oldest.nowMs) + ')' }));
    }
    li.append(h('div', { class: 'err-msg', text: e.message }));
    return li;
  }));
}

// renderErrorsByNode lists the nodes that reported errors since watching
// began, most first, with their counts (byNode: [[node, count]]); a
// click shows the node.
function renderErrorsByNode(byNode) {
  const box = $('#errors-by');
  const t = S.tree;
  const rows = byNode.filter(([id]) => t && id >= 0 && id < t.nodes.length).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  box.hidden = !rows.length;
  const key = JSON.stringify(rows);
  if (box.dataset.shown === key) return;
  box.dataset.shown = key;
  // Nodes of the same label are told apart by their number.
  const seen = new Map();
  for (const [id] of rows) seen.set(fullLabel(id), (seen.get(fullLabel(id)) || 0) + 1);
  const name = (id) => fullLabel(id) + (seen.get(fullLabel(id)) > 1 ? ' #' + id : '');
  box.replaceChildren(h('span', { class: 'muted', text: 'By node, since watching: ' }), ...rows.flatMap(([id, n], k) => [
    k ? h('span', { class: 'muted', text: ' · ' }) : null,
    h('span', { class: 'err-node', 'data-node': id, text: name(id), title: t.nodes[id].path + ': show the node',
      onclick: () => { selectNode(id); focus(id, true); } }),
    h('span', { class: 'err-rep', text: ' ×' + n }),
  ]).filter(Boolean));
}

// groupErrors folds the errors of the list (newest first) that are the
// same (node and message: a node that errs on every tick, or several
// that take turns) into one entry, where the newest of them is: e that
// newest, n how many, oldest the first of them.
function groupErrors(errors) {
  const out = [];
  const byKey = new Map();
  for (const e of errors) {
    const key = e.node + '\n' + e.path + '\n' + e.message;
    const g = byKey.get(key);
    if (g) {
      g.n++;
      g.oldest = e;
    } else {
      const first = { e, n: 1, oldest: e };
      byKey.set(key, first);
      out.push(first);
    }
  }
  return out;
}
