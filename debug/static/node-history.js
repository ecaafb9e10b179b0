// The selected node's history (Node tab): a strip with a cell per record
// of the history (live) or of the recording, coloured by the node's
// status in it, and buttons that show the previous or next record in
// which its status changed, it failed, started or was halted.
//
// Live, the statuses come from api/agents/{id}/nodes/{node}/history: the
// whole history once, then (as the stream brings records) only the
// records newer than those held, one request at a time. A recording has
// them all in memory.
'use strict';

// Bits of the node's events in a record (as the server sends them: a
// hexadecimal digit per record).
const NH_START = 1;
const NH_HALT = 2;
const NH_ABORT = 4;
const NH_ERROR = 8;

// NH_JUMPS are what the buttons go to: a record in which the node ...
const NH_JUMPS = {
  change: { what: 'its status changed', at: (h, i) => i > 0 && h.st[i].toLowerCase() !== h.st[i - 1].toLowerCase() },
  failure: { what: 'it failed', at: (h, i) => h.st[i] === 'F' },
  start: { what: 'it started', at: (h, i) => (h.ev[i] & NH_START) !== 0 },
  halt: { what: 'it was halted', at: (h, i) => (h.ev[i] & NH_HALT) !== 0 },
};

// The cells' colours: the page's status colours, and a node not visited
// in the record faded as in the tree (its last status, 30% strong).
const NH_COLOUR = { r: '#f0a020', s: '#1c7f50', f: '#d13f35', h: '#6b7480' };
const nhFade = (hex) => '#' + [1, 3, 5].map((i) => Math.round((parseInt(hex.slice(i, i + 2), 16) * 3 + 255 * 7) / 10).toString(16).padStart(2, '0')).join('');
const NH_FADED = Object.fromEntries(Object.entries(NH_COLOUR).map(([k, v]) => [k, nhFade(v)]));
const NH_NEVER = '#ffffff'; // idle: no status yet
const NH_UNKNOWN = '#e6e9ee'; // not loaded yet
const NH_MIN_CELL = 3; // pixels: narrower, the strip takes more rows

// nodeHist is the history held for the node shown: { key, first (the
// record of st[0]), st (a status letter per record), ev (event bits per
// record), loading, failed }.
function nodeHistKey() {
  if (S.selected < 0 || !S.tree) return '';
  return S.rec ? 'rec ' + S.selected : 'live ' + S.agentId + ' ' + S.treeId + ' ' + S.selected;
}

// nodeHist returns the history held for the selected node, starting it
// afresh when the node, the agent or the recording changed.
function nodeHist() {
  const key = nodeHistKey();
  let nh = S.nodeHist;
  if (!nh || nh.key !== key || (S.rec && nh.rec !== S.rec)) {
    nh = { key, rec: S.rec, first: 0, st: '', ev: [], loading: false, failed: '' };
    if (S.rec && key) recordedNodeHist(nh);
    S.nodeHist = nh;
  }
  return nh;
}

// recordedNodeHist fills nh from the recording's ticks.
function recordedNodeHist(nh) {
  const node = S.selected;
  const ticks = S.rec.data.ticks;
  const bits = { start: NH_START, halt: NH_HALT, abort: NH_ABORT };
  nh.first = ticks.length ? ticks[0].seq : 0;
  nh.st = ticks.map((t) => t.nodes[node]).join('');
  nh.ev = ticks.map((t) => {
    let b = (t.errorNodes || []).includes(node) ? NH_ERROR : 0;
    for (const e of t.events || []) if (e.node === node) b |= bits[e.kind] || 0;
    return b;
  });
}

// nhLast is the newest record held (first - 1: none).
const nhLast = (nh) => nh.first + nh.st.length - 1;

// fetchNodeHist asks for the records of the live history newer than
// those held, and draws them when they come.
async function fetchNodeHist(nh) {
  const after = nh.st.length ? nhLast(nh) : 0;
  const id = S.agentId;
  nh.loading = true;
  let v;
  try {
    v = await api('api/agents/' + id + '/nodes/' + S.selected + '/history?after=' + after);
  } catch (err) {
    nh.loading = false;
    nh.failed = err.message;
    if (S.nodeHist === nh) drawNodeHist();
    return;
  }
  nh.loading = false;
  nh.failed = '';
  if (S.nodeHist !== nh) return;
  if (v.last < after) {
    // The history started again (the agent's tree was reloaded).
    Object.assign(nh, { first: 0, st: '', ev: [] });
  } else if (v.from) {
    const ev = Array.from(v.events, (c) => parseInt(c, 16));
    if (nh.st.length && v.from === after + 1) {
      nh.st += v.statuses;
      nh.ev = nh.ev.concat(ev);
    } else {
      Object.assign(nh, { first: v.from, st: v.statuses, ev });
    }
  }
  // What the history dropped.
  if (nh.st.length && nh.first < v.first) {
    const k = Math.min(nh.st.length, v.first - nh.first);
    Object.assign(nh, { first: nh.first + k, st: nh.st.slice(k), ev: nh.ev.slice(k) });
  }
  renderNodeHistory();
}

// renderNodeHistory shows the selected node's history in the Node tab,
// asking for the records it does not hold yet (live).
function renderNodeHistory() {
  const box = $('#node-hist');
  const key = nodeHistKey();
  box.hidden = !key || !S.latest;
  if (box.hidden) return;
  const nh = nodeHist();
  const tl = S.timeline;
  if (!S.rec && !nh.loading && tl.length && (!nh.st.length || nhLast(nh) < tl[tl.length - 1][0])) fetchNodeHist(nh);
  drawNodeHist();
}

// nhLayout places the cells: as many columns as fit at NH_MIN_CELL
// pixels, and rows enough for the history (its length when full, as the
// timeline strip: the cells stay put while it fills).
function nhLayout(W) {
  const n = Math.max(historyLen(), S.timeline.length, 1);
  const cols = Math.max(1, Math.min(n, Math.floor(W / NH_MIN_CELL)));
  const rows = Math.ceil(n / cols);
  return { n, cols, rows, cw: W / cols, rh: rows <= 2 ? 16 : 12 };
}

// nhAt is the node's status letter in record seq, and its event bits;
// null when not held.
function nhAt(nh, seq) {
  const i = seq - nh.first;
  return i >= 0 && i < nh.st.length ? [nh.st[i], nh.ev[i]] : null;
}

// drawNodeHist draws the strip: a cell per record of the timeline, in
// rows of rh pixels (a cell rh - 5 high from the row's second pixel, the
// cursor under the record shown: the rest); at the top of a cell, a red
// mark where the node reported an error, a dark one where it was halted.
// The buttons say where they go, or that there is nothing there.
function drawNodeHist() {
  const nh = S.nodeHist;
  if (!nh || $('#node-hist').hidden) return;
  const c = $('#nh-strip');
  const W = sizeOf(c)[0];
  if (!W) return;
  const L = nhLayout(W);
  const H = L.rows * L.rh;
  if (c.width !== W) c.width = W;
  if (c.height !== H) {
    c.height = H;
    c.style.height = H + 'px';
  }
  const ctx = c.getContext('2d');
  ctx.clearRect(0, 0, W, H);
  const tl = S.timeline;
  const gap = L.cw > 4 ? 1 : 0;
  const shown = shownSeq();
  let cursor = null;
  for (let i = 0; i < tl.length; i++) {
    const x = (i % L.cols) * L.cw;
    const y = Math.floor(i / L.cols) * L.rh;
    const at = nhAt(nh, tl[i][0]);
    let fill = NH_UNKNOWN;
    if (at) {
      const low = at[0].toLowerCase();
      fill = low === '.' ? NH_NEVER : (at[0] !== low ? NH_COLOUR : NH_FADED)[low] || NH_UNKNOWN;
    }
    ctx.fillStyle = fill;
    ctx.fillRect(x, y + 1, L.cw - gap, L.rh - 5);
    if (at && at[1] & (NH_HALT | NH_ERROR)) {
      ctx.fillStyle = at[1] & NH_ERROR ? '#b3261e' : '#1d2330';
      ctx.fillRect(x, y + 1, L.cw - gap, 2);
    }
    if (tl[i][0] === shown) cursor = [x, y];
  }
  if (cursor) {
    ctx.fillStyle = '#1d2330';
    ctx.fillRect(cursor[0] - 1, cursor[1] + L.rh - 3, L.cw - gap + 2, 3);
  }
  renderNodeJumps(nh);
  const info = nh.failed ? 'not loaded: ' + nh.failed : tl.length + (tl.length === 1 ? ' record' : ' records') + (S.rec ? ' of the recording' : ' of the history');
  const el = $('#nh-info');
  if (el.textContent !== info) el.textContent = info;
}

// nhFind is the record before (dir -1) or after (dir 1) the one shown
// in which jump happened to the node, or null.
function nhFind(nh, jump, dir) {
  const tl = S.timeline;
  if (!tl.length || !nh.st.length) return null;
  const lo = Math.max(nh.first, tl[0][0]);
  const hi = Math.min(nhLast(nh), tl[tl.length - 1][0]);
  const test = NH_JUMPS[jump].at;
  for (let seq = shownSeq() + dir; seq >= lo && seq <= hi; seq += dir) {
    if (test(nh, seq - nh.first)) return seq;
  }
  return null;
}

// renderNodeJumps enables the buttons that have a record to go to, and
// says which in their tooltips.
function renderNodeJumps(nh) {
  for (const b of document.querySelectorAll('#node-hist button[data-jump]')) {
    const dir = Number(b.dataset.dir);
    const jump = NH_JUMPS[b.dataset.jump];
    const seq = nhFind(nh, b.dataset.jump, dir);
    const row = seq != null ? S.timeline.find((t) => t[0] === seq) : null;
    const where = dir < 0 ? 'earlier' : 'later';
    const title = row ? (dir < 0 ? 'Previous' : 'Next') + ' record in which ' + jump.what + ': ' + tickWhere(row[1], seq)
      : 'No ' + where + ' record in which ' + jump.what + (S.rec ? ' in the recording' : ' in the history');
    if (b.title !== title) b.title = title;
    if (b.disabled !== !row) b.disabled = !row;
  }
}

// nodeJump shows the record before (dir -1) or after (dir 1) the one
// shown in which jump happened to the node (as scrubbing does).
function nodeJump(jump, dir) {
  const nh = S.nodeHist;
  const seq = nh && nhFind(nh, jump, dir);
  if (seq != null) scrubTo(seq);
}

// nhCellAt is the timeline row of the cell at x, y (pixels in the
// strip), or null.
function nhCellAt(x, y) {
  const c = $('#nh-strip');
  const L = nhLayout(c.clientWidth);
  const i = Math.floor(y / L.rh) * L.cols + Math.floor(x / L.cw);
  return Math.floor(x / L.cw) < L.cols && i >= 0 && i < S.timeline.length ? S.timeline[i] : null;
}

function setupNodeHistory() {
  const c = $('#nh-strip');
  c.addEventListener('click', (e) => {
    const t = nhCellAt(e.offsetX, e.offsetY);
    if (t) scrubTo(t[0]);
  });
  c.addEventListener('mousemove', (e) => {
    const t = nhCellAt(e.offsetX, e.offsetY);
    const at = t && S.nodeHist ? nhAt(S.nodeHist, t[0]) : null;
    let title = '';
    if (t) {
      title = tickWhere(t[1], t[0]) + ' · ';
      if (!at) title += 'not loaded yet';
      else {
        const low = at[0].toLowerCase();
        title += low === '.' ? 'idle' : STATUS[low] + (at[0] !== low ? ' (this tick)' : ' (earlier tick)');
        for (const [bit, what] of [[NH_START, 'started'], [NH_HALT, 'halted'], [NH_ABORT, 'fired an abort'], [NH_ERROR, 'node error']]) if (at[1] & bit) title += ' · ' + what;
      }
      title += ' · click: show it';
    }
    if (c.title !== title) c.title = title;
  });
  for (const b of document.querySelectorAll('#node-hist button[data-jump]')) b.onclick = () => nodeJump(b.dataset.jump, Number(b.dataset.dir));
}
