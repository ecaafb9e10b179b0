// Recordings: checking a recording file, opening and closing one, and
// dropping or picking a file.
'use strict';

const isIndex = (x, n) => Number.isInteger(x) && x >= 0 && x < n;
const isObject = (x) => !!x && typeof x === 'object' && !Array.isArray(x);

// checkLetters checks a status string: a letter per node, upper case
// (visited in the tick) only where visited is allowed.
function checkLetters(st, n, visited, what) {
  if (typeof st !== 'string' || st.length !== n) throw new Error(what + ': want a status letter for each of the ' + n + ' nodes');
  const bad = st.search(visited ? /[^rsfh.RSFH]/ : /[^rsfh.]/);
  if (bad >= 0) throw new Error(what + ': node ' + bad + ': bad status letter "' + st[bad] + '"');
}

// checkTree checks that the nodes are numbered in pre-order from a
// root, each linked to nodes of the tree consistently.
function checkTree(t) {
  if (!isObject(t) || !Array.isArray(t.nodes) || !t.nodes.length) throw new Error('tree: no nodes');
  const ns = t.nodes;
  const n = ns.length;
  const bad = (i, what) => { throw new Error('tree: node ' + i + ': ' + what); };
  ns.forEach((nd, i) => { if (!isObject(nd)) bad(i, 'not an object'); });
  ns.forEach((nd, i) => {
    if (nd.id !== i) bad(i, 'id ' + nd.id);
    if (i === 0 && (nd.parent !== -1 || nd.guardOf !== -1)) bad(i, 'not the root');
    if (!(nd.parent === -1 || isIndex(nd.parent, i))) bad(i, 'parent ' + nd.parent + ' is not an earlier node');
    if (!(nd.guardOf === -1 || isIndex(nd.guardOf, i))) bad(i, 'guards ' + nd.guardOf + ', not an earlier node');
    if (nd.guard !== -1 && !(isIndex(nd.guard, n) && nd.guard > i && ns[nd.guard].guardOf === i)) bad(i, 'bad guard ' + nd.guard);
    if (!Array.isArray(nd.children)) bad(i, 'no children list');
    for (const c of nd.children) if (!(isIndex(c, n) && c > i && ns[c].parent === i)) bad(i, 'bad child ' + c);
    if (![nd.x, nd.y, nd.w].every(Number.isFinite) || typeof nd.label !== 'string') bad(i, 'no position or label');
  });
  if (!Number.isFinite(t.width) || !Number.isFinite(t.height)) throw new Error('tree: no size');
  return n;
}

// checkTick checks one recorded tick of a tree of n nodes.
function checkTick(tk, n, prev, i) {
  const at = 'ticks[' + i + ']';
  if (!isObject(tk) || !Number.isInteger(tk.seq) || tk.seq < 1) throw new Error(at + ': no record number');
  if (prev && tk.seq !== prev.seq + 1) throw new Error('ticks: record ' + tk.seq + ' follows record ' + prev.seq + ' (want consecutive records)');
  checkLetters(tk.nodes, n, true, at + ' (record ' + tk.seq + ') nodes');
  if (!['running', 'success', 'failure', 'invalid'].includes(tk.status)) throw new Error(at + ': bad root status');
  if (!Number.isInteger(tk.tick) || !Number.isFinite(tk.nowMs)) throw new Error(at + ': no tick number or time');
  if (tk.running != null && !(Array.isArray(tk.running) && tk.running.every((p) => Array.isArray(p) && p.every((x) => isIndex(x, n))))) {
    throw new Error(at + ': bad running paths');
  }
  const kinds = ['start', 'result', 'halt', 'abort', 'eval'];
  const goodEvent = (e) => isObject(e) && kinds.includes(e.kind) && isIndex(e.node, n) && (e.cond == null || isIndex(e.cond, n)) && Number.isFinite(e.atUs);
  if (tk.events != null && !(Array.isArray(tk.events) && tk.events.every(goodEvent))) throw new Error(at + ': bad events');
  for (const scope of ['agentScope', 'globalScope']) {
    const rows = tk[scope];
    if (rows != null && !(Array.isArray(rows) && rows.every((e) => isObject(e) && typeof e.key === 'string'))) throw new Error(at + ': bad ' + scope);
  }
}

// checkRecording throws an Error naming the first problem of a
// recording (what debug.LoadRecording checks on the server).
function checkRecording(d) {
  if (!isObject(d)) throw new Error('want a JSON object');
  if (typeof d.format !== 'string' || !d.format) throw new Error('no format field (want "' + FORMAT + '")');
  if (d.format !== FORMAT) throw new Error('format "' + d.format.slice(0, 40) + '", want "' + FORMAT + '"');
  for (const k of ['agent', 'tree', 'base', 'ticks']) if (d[k] == null) throw new Error('missing ' + k);
  if (!isObject(d.agent) || !Number.isInteger(d.agent.id)) throw new Error('agent: no id');
  const n = checkTree(d.tree);
  if (!Array.isArray(d.ticks)) throw new Error('ticks: want a list');
  // An agent nobody watched has no ticks and no statuses.
  if (!(d.base === '' && !d.ticks.length)) checkLetters(d.base, n, false, 'base');
  d.ticks.forEach((tk, i) => checkTick(tk, n, d.ticks[i - 1], i));
  const rows = d.stats && d.stats.nodes;
  if (rows != null && !(Array.isArray(rows) && (rows.length === 0 || rows.length === n) &&
    rows.every((r) => Array.isArray(r) && r.length === 8 && r.every(Number.isFinite)))) {
    throw new Error('stats: want 8 numbers for each node');
  }
}

function fileError(msg) {
  $('#file-error-text').textContent = msg || '';
  $('#file-error').hidden = !msg;
}

// openRecording shows a recording d (checked first: on a bad one it
// throws and the page stays as it was), read-only.
function openRecording(d, name) {
  checkRecording(d);
  if (!S.rec) S.liveAgent = S.agentId;
  if (S.es) S.es.close();
  S.es = null;
  clearTimeout(S.scrubTimer);
  const ticks = d.ticks;
  S.rec = { name, data: d };
  document.body.classList.add('recording');
  renderWorldControls(false); // hidden: a recording has nothing to control
  fileError('');
  notice('');
  setConn('recording');
  const a = Object.assign({}, d.agent, { paused: false, breakpoints: [], lastBreak: null, forces: [] });
  a.treeName = typeof a.treeName === 'string' ? a.treeName : String(d.tree.name || '');
  S.agentId = a.id;
  S.agent = a;
  S.tree = d.tree;
  S.treeId = null; // going back to live loads the agent's tree again
  S.selected = -1;
  S.followed = -1;
  S.prevBB = new Map();
  S.stats = (d.stats && d.stats.nodes) || [];
  S.live = false;
  $('#btn-live').classList.remove('on');
  const letter = { running: 'r', success: 's', failure: 'f' };
  const marks = (t) => ((t.errorNodes || []).length ? MARK_ERROR : 0) |
    ((t.events || []).some((e) => e.kind === 'halt' || e.kind === 'abort') ? MARK_HALTED : 0);
  S.timeline = ticks.map((t) => [t.seq, t.tick, t.nowMs, letter[t.status] || '.', (t.events || []).length, t.between ? 1 : 0, marks(t)]);
  S.latest = ticks.length ? { first: ticks[0].seq, seq: ticks[ticks.length - 1].seq } : null;
  renderRecBar();
  $('#agent-list').replaceChildren(agentItem(a, h('span', { class: 'rec-mark', text: 'REC', title: 'recorded' })));
  rovingTab($('#agent-list'), null);
  $('#list-info').textContent = 'recorded agent · ' + ticks.length + ' ticks';
  $('#more').hidden = true;
  $('#tree-counts').replaceChildren();
  delete $('#tree-counts').dataset.key; // drawn again when live
  $('#clock').textContent = ticks.length
    ? 'recorded ticks ' + ticks[0].tick + '–' + ticks[ticks.length - 1].tick + ' · t=' + fmtMs(ticks[ticks.length - 1].nowMs)
    : 'no recorded ticks';
  $('#empty').hidden = true;
  $('#missing').hidden = true;
  $('#agent-view').hidden = false;
  drawTree();
  focus(0, false);
  renderAgentBar(a);
  const r = $('#tl-range');
  r.min = S.latest ? S.latest.first : 0;
  r.max = S.latest ? S.latest.seq : 0;
  if (S.latest) {
    scrubTo(S.latest.seq);
  } else {
    show({ seq: 0, nowMs: a.nowMs, status: a.status, nodes: d.base || '.'.repeat(d.tree.nodes.length), running: [], events: [], agentScope: [], globalScope: [] });
    $('#tl-label').textContent = 'recording · no ticks recorded (the agent was not watched)';
  }
  if (S.tab === 'stats') renderStats();
}

function renderRecBar() {
  const r = S.rec;
  $('#rec-bar').hidden = !r;
  if (!r) return;
  const raw = typeof r.data.exported === 'string' ? r.data.exported : '';
  const at = new Date(raw);
  const when = raw && !isNaN(at) ? at.toLocaleString() : raw;
  $('#rec-text').textContent = 'Recording: ' + r.name + (when ? ', exported ' + when : '') + ' · read-only';
  // Back to live only where a live session serves the page.
  $('#btn-close-rec').hidden = !S.session || !!S.session.recording;
}

// closeRecording goes back to the live session, and to the agent shown
// before the recording.
function closeRecording() {
  if (!S.rec) return;
  S.rec = null;
  document.body.classList.remove('recording');
  fileError('');
  renderRecBar();
  Object.assign(S, { agentId: null, agent: null, tree: null, treeId: null, timeline: [], latest: null, shown: null, stats: null });
  $('#viewport').replaceChildren();
  $('#agent-view').hidden = true;
  $('#empty').hidden = false;
  $('#btn-export').hidden = false;
  $('#btn-live').hidden = false;
  if (S.session) renderSummary(S.session);
  loadAgents();
  const back = S.liveAgent;
  S.liveAgent = null;
  if (back != null) openAgent(back);
  else connect();
}

// openFile opens a recording the user picked or dropped.
async function openFile(file) {
  if (!file) return;
  try {
    const text = await file.text();
    let d;
    try {
      d = JSON.parse(text.replace(/^\uFEFF/, ''));
    } catch (err) {
      throw new Error('not JSON (' + err.message + ')');
    }
    openRecording(d, file.name);
  } catch (err) {
    fileError('Cannot open ' + file.name + ': ' + err.message);
  }
}

function setupRecordings() {
  $('#open-file').addEventListener('change', (e) => {
    const f = e.target.files && e.target.files[0];
    e.target.value = ''; // the same file can be picked again
    openFile(f);
  });
  // The label around the file input is a button for the keys too.
  $('#open-rec').addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' && e.key !== ' ') return;
    e.preventDefault();
    e.stopPropagation(); // not the page's keys (Space pauses)
    $('#open-file').click();
  });
  $('#btn-close-rec').onclick = closeRecording;
  $('#btn-file-error').onclick = () => fileError('');
  // Drag and drop of a file anywhere on the page.
  const files = (e) => !!e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files');
  let over = 0;
  const hint = (on) => { $('#drop-hint').hidden = !on; };
  document.addEventListener('dragenter', (e) => { if (files(e)) { e.preventDefault(); over++; hint(true); } });
  document.addEventListener('dragover', (e) => { if (files(e)) { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; } });
  document.addEventListener('dragleave', (e) => { if (files(e) && --over <= 0) { over = 0; hint(false); } });
  document.addEventListener('drop', (e) => {
    if (!files(e)) return;
    e.preventDefault();
    over = 0;
    hint(false);
    openFile(e.dataTransfer.files[0]);
  });
}
