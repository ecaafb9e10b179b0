// The timeline: showing a tick (show), live or scrubbed back, the strip,
// the slider, fetching history records, and going to a tick.
'use strict';

// show renders one tick (live or from the history).
function show(v) {
  S.shown = v;
  renderHit(false);
  // Auto-collapse: collapsed anew, Follow checks that its node is still
  // in view.
  if (autoFold(v) && S.follow) S.followed = -1;
  paint(v.nodes);
  renderRunning(v.running || []);
  followActive(v, false);
  renderBB(v);
  if (S.tab === 'events') renderEvents();
  if (S.tab === 'node') renderNode();
  const row = S.timeline.find((t) => t[0] === v.seq);
  const tick = v.tick != null ? v.tick : row ? row[1] : null;
  const a = S.agent || {};
  const mode = S.rec ? 'recording' : !v.live ? 'history' : a.removed ? 'last state' : a.paused ? 'live · paused' : 'live';
  // The tick first, as the header, the banner and the ▶ field count
  // them; then the record (tickWhere).
  const text = mode + ' · ' + (v.seq ? tickWhere(tick, v.seq) +
    ' · t=' + fmtMs(v.nowMs) + ' · root ' + v.status + (v.between ? ' · between ticks' : '') +
    ' · ' + (v.events ? v.events.length : 0) + ' events' : 'no ticks recorded yet') + (v.note ? ' · ' + v.note : '');
  const lbl = $('#tl-label');
  lbl.textContent = text;
  lbl.title = v.seq ? text + '\n' + TICK_RECORD : text;
  renderPast(mode === 'history' ? tick : null);
  drawStrip();
  renderPlay();
}

// tickWhere names a record of the history by its tick and its number:
// "tick 412 (record 37)". The tick is the session's (the header's count,
// what the ▶ field takes), and several records can have the same (a
// record of events between ticks has the tick before them); the record
// numbers count the agent's records from 1, when watching began, and are
// what the strip, the slider and the node's history step through.
function tickWhere(tick, seq) {
  return 'tick ' + (tick != null ? tick : '?') + ' (record ' + seq + ')';
}
const TICK_RECORD = 'tick: the session\'s tick count, as the header, the "Viewing tick" banner and the tick field count them; ' +
  'record: the number of this record in the agent\'s history, counted from 1 when watching began (a record per tick the agent ran, ' +
  'and one for events between ticks)';

// renderPast marks a live agent's view while it shows an earlier tick:
// the tree's frame is tinted and a banner says which tick, how far
// behind the newest, and goes live when clicked.
function renderPast(tick) {
  const b = $('#past');
  $('#tree-wrap').classList.toggle('past', tick != null);
  if (tick == null) {
    b.hidden = true;
    return;
  }
  const last = S.timeline[S.timeline.length - 1];
  const behind = last && last[1] != null ? last[1] - tick : null;
  const text = 'Viewing tick ' + tick + (behind > 0 ? ' · ' + behind + (behind === 1 ? ' tick' : ' ticks') + ' behind the newest' : '') + ' · ● Live';
  if (b.textContent !== text) b.textContent = text;
  b.hidden = false;
  placePast();
}

// placePast puts the history banner at the tree's top left corner, or
// under the view's buttons where the view is too narrow for both side by
// side (it would hide some of them).
function placePast() {
  const b = $('#past');
  if (b.hidden) return;
  b.style.top = '';
  const r = b.getBoundingClientRect();
  let under = 0;
  for (const c of $('#view-controls').children) {
    const q = c.getBoundingClientRect();
    if (q.width && r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom) under = $('#view-controls').getBoundingClientRect().bottom;
  }
  if (under) b.style.top = under - $('#tree-wrap').getBoundingClientRect().top + 6 + 'px';
}

function setLive(on) {
  stopPlay(); // unless playback itself goes live
  if (on && S.rec) return;
  S.live = on;
  $('#btn-live').classList.toggle('on', on);
  renderHit(true);
  if (on && S.latest) onAgent(Object.assign({}, S.latest, { timeline: [] }));
}

// historyLen is how many ticks the strip has room for: a live history's
// length, or a recording's ticks (it gets no more; the slider spans them).
function historyLen() {
  if (S.rec) return Math.max(S.timeline.length, 1);
  return (S.session && S.session.history) || 500;
}

// drawStrip draws the timeline strip: a bar per record, coloured by the
// root's result (violet: events between ticks), as high as its events
// are many; above the bars, a red mark where a node reported an error
// and a dark one where a running node was halted or aborted.
function drawStrip() {
  const c = $('#tl-strip');
  const W = sizeOf(c)[0];
  if (!W) return;
  if (c.width !== W) c.width = W;
  const H = c.height;
  const ctx = c.getContext('2d');
  ctx.clearRect(0, 0, W, H);
  const tl = S.timeline;
  if (!tl.length) return;
  const bw = W / Math.max(historyLen(), tl.length);
  const colour = { r: '#f0a020', s: '#1c7f50', f: '#d13f35' };
  const top = 8; // room for the marks
  let maxEv = 1;
  for (const t of tl) maxEv = Math.max(maxEv, t[4]);
  tl.forEach((t, i) => {
    const w = Math.max(1, bw - (bw > 3 ? 1 : 0));
    ctx.fillStyle = t[5] ? '#8e6ad8' : colour[t[3]] || '#aab2bd';
    const hgt = 6 + (H - top - 6) * Math.min(1, Math.log1p(t[4]) / Math.log1p(maxEv));
    ctx.fillRect(i * bw, H - hgt, w, hgt);
    const marks = t[6] || 0;
    if (marks & MARK_HALTED) {
      ctx.fillStyle = '#4b5563';
      ctx.fillRect(i * bw, 4, w, 4);
    }
    if (marks & MARK_ERROR) {
      ctx.fillStyle = '#b3261e';
      ctx.fillRect(i * bw, 0, w, 4);
    }
  });
  if (S.shown) {
    const i = tl.findIndex((t) => t[0] === S.shown.seq);
    if (i >= 0) {
      ctx.fillStyle = '#1d2330';
      ctx.fillRect(i * bw + bw / 2 - 1, 0, 2, H);
    }
  }
}

// stripAt is the timeline record under x (pixels from the strip's
// left), or null: none yet there (the history is not full).
function stripAt(x) {
  const tl = S.timeline;
  if (!tl.length) return null;
  const bw = $('#tl-strip').clientWidth / Math.max(historyLen(), tl.length);
  const i = Math.floor(x / bw);
  return i >= 0 && i < tl.length ? tl[i] : null;
}

// syncRange makes the slider offer the records of the strip (the
// history as the page knows it), its thumb on record seq.
function syncRange(seq) {
  const r = $('#tl-range');
  const tl = S.timeline;
  const first = tl.length ? tl[0][0] : (S.latest && S.latest.first) || 0;
  const last = tl.length ? tl[tl.length - 1][0] : (S.latest && S.latest.seq) || 0;
  r.min = first;
  // On the strip's scale: a history not yet full leaves room on the
  // right (scrubTo keeps to the records there are).
  r.max = Math.max(first, last, first + historyLen() - 1);
  r.value = seq;
}

// shownSeq is the record shown, or being fetched to show.
function shownSeq() {
  if (!S.live) return S.scrubSeq;
  return S.shown ? S.shown.seq : 0;
}

function scrubTo(seq) {
  stopPlay(); // unless playback itself scrubs
  const tl = S.timeline;
  if (!S.latest || !tl.length) return;
  seq = Math.max(tl[0][0], Math.min(tl[tl.length - 1][0], seq));
  $('#tl-range').value = seq;
  if (S.rec) {
    S.scrubSeq = seq;
    show(S.rec.data.ticks[seq - S.latest.first]);
    return;
  }
  if (seq >= S.latest.seq) {
    // The newest record is the live view.
    if (!S.live) setLive(true);
    return;
  }
  setLive(false);
  S.scrubSeq = seq;
  // A slider dragged asks once it rests; playback at once.
  fetchRecord(seq, S.play.stepping ? 0 : 50);
}

// fetchRecord shows record seq of the agent's history after delay ms
// (a slider dragged asks once it rests). A record that left the history
// meanwhile (the history moves on while the page asks) gives way to the
// oldest one kept, which the label says (asked: the record the page
// wanted first, when this asks again).
function fetchRecord(seq, delay, asked) {
  const id = S.agentId;
  const req = ++S.scrubReq;
  clearTimeout(S.scrubTimer);
  S.scrubWait = -1;
  S.scrubTimer = setTimeout(async () => {
    S.scrubWait = seq;
    let v;
    try {
      v = await api('api/agents/' + id + '/ticks/' + seq + '?clamp=1');
    } catch (err) {
      if (req !== S.scrubReq) return;
      S.scrubWait = -1;
      if (!S.live && !S.rec && id === S.agentId) $('#tl-label').textContent = 'record ' + seq + ': ' + err.message;
      return;
    }
    if (req !== S.scrubReq) return;
    S.scrubWait = -1;
    if (S.live || S.rec || id !== S.agentId) return;
    const want = asked != null ? asked : seq;
    // A live update sent after this answer may have come first, and
    // dropped the record answered already: ask again.
    if (S.timeline.length && v.seq < S.timeline[0][0]) {
      fetchRecord(S.timeline[0][0], 0, want);
      return;
    }
    S.scrubSeq = v.seq;
    // The strip and the slider lose what the history dropped by now.
    while (S.timeline.length && S.timeline[0][0] < v.first) S.timeline.shift();
    if (v.seq !== want) v.note = 'record ' + want + ' left the history: the oldest kept';
    syncRange(v.seq);
    show(v);
  }, delay);
}

// goToTick shows the record of tick n (the session's tick, as the
// header and the label count), or says that the history does not hold it.
function goToTick(n) {
  const field = $('#tl-goto');
  const row = Number.isInteger(n) ? S.timeline.find((t) => t[1] === n) : null;
  field.classList.toggle('bad', !row);
  if (!row) {
    const tl = S.timeline;
    field.title = !Number.isInteger(n) ? 'Type a tick number'
      : tl.length ? 'Tick ' + n + ' is not in the history: it holds ticks ' + tl[0][1] + ' to ' + tl[tl.length - 1][1] + ' (of those the agent ran)'
        : 'No ticks recorded yet';
    return;
  }
  field.title = 'Go to tick: type a tick number and press Enter (the header counts the ticks)';
  field.blur(); // the keys (← →, Space) go on from the tick shown
  scrubTo(row[0]);
}

function setupTimeline() {
  setupKeys();
  setupClickBlur();
  $('#tl-goto').addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    const v = e.target.value.trim();
    goToTick(/^\d+$/.test(v) ? Number(v) : NaN);
  });
  $('#tl-goto').addEventListener('input', (e) => e.target.classList.remove('bad'));
  $('#events-filter').addEventListener('input', renderEvents);
  $('#tl-range').addEventListener('input', (e) => scrubTo(Number(e.target.value)));
  const errList = $('#errors-list');
  errList.onmouseenter = () => { S.errHover = true; };
  errList.onmouseleave = () => {
    if (document.activeElement === errList) return; // still held by the keys
    S.errHover = false;
    if (S.errPending) renderErrors(S.errPending);
  };
  // Focused for its keys (setupNodeListKeys), the list holds still too.
  errList.addEventListener('focus', () => { S.errHover = true; });
  errList.addEventListener('blur', () => {
    if (errList.matches(':hover')) return;
    S.errHover = false;
    if (S.errPending) renderErrors(S.errPending);
  });
  $('#btn-live').onclick = () => setLive(true);
  $('#past').onclick = () => setLive(true);
  // A window made narrower or wider may move it (placePast).
  new ResizeObserver(placePast).observe($('#tree-wrap'));
  $('#btn-prev').onclick = () => scrubTo(shownSeq() - 1);
  $('#btn-next').onclick = () => scrubTo(shownSeq() + 1);
  const strip = $('#tl-strip');
  // A click shows the record under it; past the newest, the live tick.
  strip.addEventListener('click', (e) => {
    const t = stripAt(e.offsetX);
    if (t) scrubTo(t[0]);
    else if (S.timeline.length) setLive(true);
  });
  // The record under the pointer, in the strip's tooltip.
  strip.addEventListener('mousemove', (e) => {
    const t = stripAt(e.offsetX);
    const names = { r: 'running', s: 'success', f: 'failure' };
    const marks = t ? t[6] || 0 : 0;
    const title = !t ? (S.timeline.length && !S.rec ? 'click: the live tick' : '') : tickWhere(t[1], t[0]) + ' · t=' + fmtMs(t[2]) + ' · ' +
      (t[5] ? 'between ticks' : names[t[3]] || 'no result') + ' · ' + t[4] + ' events' +
      (marks & MARK_HALTED ? ' · a running node halted' : '') + (marks & MARK_ERROR ? ' · node error' : '');
    if (strip.title !== title) strip.title = title;
  });
}
