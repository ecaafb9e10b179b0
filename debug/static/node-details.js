// Node details and statistics: selecting a node, the Node, Stats and
// Events tabs, and switching tabs.
'use strict';

function selectNode(id) {
  reveal(id);
  S.selected = id;
  if (S.shown) paint(S.shown.nodes);
  setTab('node');
}

function statRow(i) {
  return S.stats && S.stats[i] ? S.stats[i] : [0, 0, 0, 0, 0, 0, 0, 0];
}

function renderNode() {
  const box = $('#node-info');
  const t = S.tree;
  if (!t || S.selected < 0 || S.selected >= t.nodes.length) {
    box.replaceChildren(h('p', { class: 'muted', text: 'Click a node in the tree.' }));
    renderParams(null);
    renderShapeBox(null);
    renderBreakpointBox(null);
    renderForceBox(null);
    renderNodeHistory();
    renderTreeDownload();
    return;
  }
  const n = t.nodes[S.selected];
  const st = statRow(n.id);
  const letter = (S.shown && S.shown.nodes && S.shown.nodes[n.id]) || '.';
  // As the legend says: a node with no status yet is idle.
  const status = letter === '.' ? 'idle (not run since watching began)'
    : STATUS[letter.toLowerCase()] + (letter !== letter.toLowerCase() ? ' (this tick)' : ' (earlier tick)');
  const dl = h('dl', { class: 'node-info' });
  const add = (k, v) => { if (v !== '' && v != null) dl.append(h('dt', { text: k }), h('dd', { text: String(v) })); };
  add('label', n.label);
  add('type', n.type);
  add('id', n.id);
  add('branch', branchOf(n.id));
  add('path', n.path);
  add('status', n.inGuard ? status + ', guard condition (evaluated, no running state)' : status);
  add('abort', n.abort || '');
  for (const [k, v] of keysRead(n)) add(k, v);
  const forced = forcedOf(n.id);
  if (forced) add('forced', forced + ' (not run: ticked, it returns ' + forced + ')');
  if (n.guard >= 0) add('guard', label(n.guard) + ' (#' + n.guard + ')');
  if (n.guardOf >= 0) add('guards', label(n.guardOf) + ' (#' + n.guardOf + ')');
  add('counts', statsSpan().toLowerCase());
  add('ticks', st[0]);
  add('successes', st[1]);
  add('failures', st[2]);
  add('running', st[3]);
  add('starts', st[4]);
  add('halts', st[5]);
  add('aborts', st[6]);
  add('time', (st[7] / 1000).toFixed(3) + ' ms' + (st[0] ? ' · ' + (st[7] / st[0]).toFixed(2) + ' µs/tick' : ''));
  box.replaceChildren(h('h4', { text: 'Node' }), dl);
  renderNodeHistory();
  renderBreakpointBox(n);
  renderForceBox(n);
  renderParams(n);
  renderShapeBox(n);
  renderTreeDownload();
}

// branchOf names node id's place by labels: the root › … › the node (a
// guard's nodes under the node they guard).
function branchOf(id) {
  const names = [];
  for (let i = id; i >= 0; i = drawParent(i)) names.unshift(fullLabel(i));
  return names.join(' › ');
}

// keysRead returns the blackboard values a node reads, as they stood at
// the tick shown: a Check's key and "{key}" value (which say why the Check
// holds or fails), and the "{key}" parameters of other nodes (which read
// them when they start).
function keysRead(n) {
  if (!n.params || !S.shown) return [];
  const out = [];
  if (n.type === 'Check' && typeof n.params.key === 'string') out.push(['key ' + n.params.key, bbText(n.params.key)]);
  for (const [name, v] of Object.entries(n.params)) {
    const ref = typeof v === 'string' && /^\{(.+)\}$/.exec(v);
    if (!ref) continue;
    out.push([name + ' ' + v, bbText(ref[1]) + (n.type === 'Check' ? '' : '; read when the node starts')]);
  }
  return out;
}

// bbText is the value of blackboard key name at the tick shown, as the
// Blackboard tab writes it, or why there is none.
function bbText(name) {
  const v = S.shown;
  const global = name.startsWith('@');
  const rows = (global ? v.globalScope : v.agentScope) || [];
  const e = rows.find((r) => r.key === name || (global && r.key === name.slice(1)));
  if (!e) return 'missing at the tick shown';
  if (e.expiresMs != null && e.expiresMs < v.nowMs) return 'expired at the tick shown (was ' + e.text + ')';
  return e.text + ' (' + e.type + ', at the tick shown)';
}

// fmtCount shows a count in at most 4 characters (1234, 12k, 123k,
// 1.2M): a statistics column stays narrow; the cell's title has it all.
function fmtCount(n) {
  if (!(Math.abs(n) >= 10000)) return String(n);
  for (const [u, sfx] of [[1e3, 'k'], [1e6, 'M'], [1e9, 'G'], [1e12, 'T']]) {
    const v = Math.abs(n) / u;
    const txt = v < 9.95 ? v.toFixed(1) : String(Math.round(v));
    if (Number(txt) < 1000) return (n < 0 ? '-' : '') + txt + sfx;
  }
  return n.toExponential(0);
}

// fmtAmount is fmtCount for a time: 5.21, 52.1, 5213, 12k.
function fmtAmount(v) {
  if (v < 9.995) return v.toFixed(2);
  if (v < 99.95) return v.toFixed(1);
  return fmtCount(Math.round(v));
}

// statsSpan says which ticks the statistics count: from the first
// watched to the newest (or the last exported), whatever tick is shown.
function statsSpan() {
  if (S.rec) return 'Since watching began, up to the export (not only to the tick shown)';
  return S.live ? 'Since watching began' : 'Since watching began, up to now (not only to the tick shown)';
}

// grouped writes a number in full, digits grouped: 1,728,000.
const groupFmt = [0, 1, 2].map((d) => new Intl.NumberFormat('en-US', { maximumFractionDigits: d }));
const grouped = (v, digits) => groupFmt[digits || 0].format(v);

function renderStats() {
  const t = S.tree;
  const tb = $('#stats-table tbody');
  if (!t) return;
  $('#stats-note').textContent = statsSpan() + '. Time is wall time inside each node\'s ticks (children included). Point at a number for all its digits.';
  const ids = t.nodes.filter((n) => !n.inGuard).map((n) => n.id);
  const key = S.statsSort;
  for (const th of document.querySelectorAll('#stats-table th[data-sort]')) th.classList.toggle('sorted', th.dataset.sort === key);
  if (key !== 'id') {
    ids.sort((a, b) => {
      const x = statRow(a);
      const y = statRow(b);
      if (key === 'avg') return (y[0] ? y[7] / y[0] : 0) - (x[0] ? x[7] / x[0] : 0);
      return y[Number(key)] - x[Number(key)];
    });
  }
  const count = (v, what) => h('td', { text: fmtCount(v), title: grouped(v) + ' ' + what });
  tb.replaceChildren(...ids.map((i) => {
    const r = statRow(i);
    const pad = key === 'id' ? '\u00a0\u00a0'.repeat(S.depth[i] || 0) : '';
    const ms = r[7] / 1000;
    const avg = r[0] ? r[7] / r[0] : null;
    return h('tr', { class: i === S.selected ? 'sel' : '', 'data-node': i },
      h('td', { text: pad + fullLabel(i), title: fullLabel(i) }), count(r[0], 'ticks'), count(r[1], 'successes'), count(r[2], 'failures'),
      count(r[5], 'halts'), h('td', { text: fmtAmount(ms), title: grouped(ms, 2) + ' ms in its ticks' }),
      h('td', { text: avg == null ? '' : fmtAmount(avg), title: avg == null ? '' : grouped(avg, 1) + ' µs per tick' }));
  }));
}

// renderEvents lists the events of the tick shown, those the filter
// matches (words all found in the kind, the node's label and path, the
// status), with a count when the filter hides some.
function renderEvents() {
  const ol = $('#events-list');
  const v = S.shown;
  const all = (v && v.events) || [];
  const words = $('#events-filter').value.toLowerCase().split(/\s+/).filter(Boolean);
  const t = S.tree;
  const shown = !words.length ? all : all.filter((e) => {
    const n = t && t.nodes[e.node];
    const text = [e.kind, fullLabel(e.node), n ? n.path : '', e.status || ''].join(' ').toLowerCase();
    return words.every((w) => text.includes(w));
  });
  $('#events-count').textContent = words.length && all.length ? shown.length + ' of ' + all.length : '';
  if (!shown.length) {
    ol.replaceChildren(h('li', { class: 'muted', text: all.length ? 'no event of this tick matches the filter' : 'no events in this tick' }));
    return;
  }
  ol.replaceChildren(...shown.map((e) => {
    const li = h('li', { 'data-node': e.node });
    li.append(h('span', { class: 'muted', text: '+' + e.atUs.toFixed(1) + 'µs ' }));
    li.append(h('span', { class: 'k-' + e.kind, text: e.kind + ' ' }));
    li.append(document.createTextNode(fullLabel(e.node)));
    if (e.status) li.append(h('span', { class: 's-' + e.status, text: ' → ' + e.status }));
    if (e.cond != null) li.append(h('span', { class: 'muted', text: ' (condition ' + label(e.cond) + ' changed)' }));
    return li;
  }));
}

function setTab(name) {
  S.tab = name;
  for (const b of document.querySelectorAll('.tabs button')) b.classList.toggle('on', b.dataset.tab === name);
  for (const t of ['bb', 'node', 'stats', 'events', 'errors']) $('#tab-' + t).hidden = t !== name;
  if (name === 'node') renderNode();
  if (name === 'errors') loadErrors();
  if (name === 'stats') renderStats();
  if (name === 'events') renderEvents();
}
