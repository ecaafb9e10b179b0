// The agent shown: opening an agent, its live stream (Server-Sent
// Events), a hot reload of its tree, and the agent bar.
'use strict';

// openAgent shows agent id: its tree, its live stream and history, its
// entry selected (and scrolled to) in the list.
async function openAgent(id) {
  if (!Number.isInteger(id) || id < 0 || S.rec) return;
  let info;
  try {
    info = await api('api/agents/' + id);
    if (S.rec) return; // a recording was opened meanwhile
  } catch (err) {
    if (S.rec) return;
    if (err.status === 404) {
      showMissing(id);
      return;
    }
    notice('Agent ' + id + ': ' + err.message);
    $('#agent-view').hidden = false;
    $('#empty').hidden = true;
    $('#missing').hidden = true;
    return;
  }
  S.agentId = id;
  S.agent = info;
  S.rev = 0;
  S.removed = false;
  // The errors list of the agent before is not this one's, held or not.
  S.errCount = -1;
  S.errPending = null;
  S.errShown = null;
  newer(info);
  writeHash();
  for (const li of document.querySelectorAll('#agent-list li')) li.classList.toggle('sel', Number(li.dataset.id) === id);
  // An agent opened from the address (the world view's links) may be far
  // down the list: its entry comes into view.
  const entry = document.querySelector('#agent-list li.sel');
  if (entry) entry.scrollIntoView({ block: 'nearest' });
  $('#empty').hidden = true;
  $('#missing').hidden = true;
  $('#agent-view').hidden = false;
  notice('');
  if (S.treeId !== info.tree) {
    const tree = await api('api/trees/' + info.tree);
    if (S.rec) return;
    S.tree = tree;
    S.treeId = info.tree;
    S.selected = -1;
    drawTree();
    focus(0, false);
  }
  S.followed = -1;
  S.timeline = [];
  S.latest = null;
  S.shown = null;
  S.stats = null;
  if (S.tab === 'errors') loadErrors();
  S.prevBB = new Map();
  // Nothing of the agent shown before stays in the label and the strip.
  $('#tl-label').textContent = $('#tl-label').title = 'live · connecting…';
  drawStrip();
  setLive(true);
  renderAgentBar(info);
  $('#btn-export').href = 'api/agents/' + id + '/export';
  connect();
}

// showMissing says that agent id (asked for in the address, say after a
// reload) is not in the session: never added, or removed from the
// manager and no longer kept (a watched agent's ticks stay for a while
// after its removal; then the page opens it read-only). The header
// stays live; a link leads back to the agent list.
function showMissing(id) {
  Object.assign(S, { agentId: null, agent: null, hit: null, hitKey: '', breakNode: -1, timeline: [], latest: null, shown: null, stats: null });
  for (const li of document.querySelectorAll('#agent-list li')) li.classList.remove('sel');
  notice('');
  $('#agent-view').hidden = true;
  $('#empty').hidden = true;
  $('#missing-text').textContent = 'Agent #' + id + ' is not in this session, or no longer: it was never added, or it was removed ' +
    'from the manager and its recorded ticks are gone.';
  $('#missing').hidden = false;
  connect(true);
}

// backToList leaves the message of showMissing for the agent list.
function backToList() {
  $('#missing').hidden = true;
  $('#empty').hidden = false;
  writeHash();
  $('#search').focus();
}

// connect opens the live stream: the session's summary, and the agent
// shown unless summaryOnly.
function connect(summaryOnly) {
  if (S.es) S.es.close();
  const url = S.agentId != null && !summaryOnly ? 'api/stream?agent=' + S.agentId : 'api/stream';
  const es = new EventSource(url);
  S.es = es;
  setConn('');
  es.onopen = () => setConn('live');
  es.onerror = () => {
    setConn('down');
    // The browser retries a stream that broke, not one refused: the
    // agent may have left the session since the page opened it.
    if (es.readyState === EventSource.CLOSED && S.es === es && !S.rec && S.agentId != null && !summaryOnly) {
      setTimeout(() => { if (S.es === es) recheck(); }, 1000);
    }
  };
  es.addEventListener('summary', (e) => renderSummary(JSON.parse(e.data)));
  es.addEventListener('agent', (e) => onAgent(JSON.parse(e.data)));
  es.addEventListener('gone', (e) => {
    es.close();
    const id = JSON.parse(e.data).agent;
    if (S.rec || id !== S.agentId) return;
    // Its last update came before: the view stays, read-only; the
    // header goes on with the session.
    if (S.agent) {
      S.agent = Object.assign({}, S.agent, { removed: true, breakpoints: [], lastBreak: null, forces: [] });
      renderAgentBar(S.agent);
    }
    notice('Agent #' + id + ' was removed from the manager. Its recorded ticks stay for a while: scrub them, or Export JSON.');
    connect(true);
  });
}

// recheck opens the agent shown again after its stream was refused: the
// message of showMissing if it is gone, else its stream again.
async function recheck() {
  const id = S.agentId;
  if (id == null || S.rec) return;
  try {
    await api('api/agents/' + id);
    if (S.agentId === id && !S.rec) connect();
  } catch (err) {
    if (S.agentId !== id || S.rec) return;
    if (err.status === 404) showMissing(id);
    else setTimeout(recheck, 2000);
  }
}

function onAgent(d) {
  if (S.rec) return;
  if (S.treeId !== null && d.agent.id === S.agentId && d.agent.tree !== S.treeId) {
    switchTree(d);
    return;
  }
  S.latest = d;
  const fresh = newer(d.agent);
  if (fresh) {
    // Breakpoint edits not yet answered stay as the page shows them.
    keepPending(d.agent);
    S.agent = d.agent;
  }
  S.stats = d.stats;
  // Merge the timeline (a reconnect resends it).
  const lastSeq = S.timeline.length ? S.timeline[S.timeline.length - 1][0] : 0;
  for (const t of d.timeline) if (t[0] > lastSeq) S.timeline.push(t);
  while (S.timeline.length && S.timeline[0][0] < d.first) S.timeline.shift();
  if (fresh) renderAgentBar(S.agent);
  if (S.live) {
    syncRange(d.seq || 0);
    // The tick is the newest record's, not the session's: a paused
    // agent's newest record stays where it stopped.
    show({ seq: d.seq, nowMs: d.agent.nowMs, status: d.agent.status, nodes: d.nodes, running: d.running,
      events: d.events, agentScope: d.agentScope, globalScope: d.globalScope, errorNodes: d.errorNodes, live: true });
  } else if (S.scrubSeq < (d.first || 0)) {
    // Scrubbed back, the record shown left the history: the oldest one
    // kept takes its place. Until it comes, the slider, the strip and
    // the label stay as they are (they agree).
    if (S.scrubWait !== S.scrubSeq) fetchRecord(S.scrubSeq, 0);
  } else {
    // Scrubbed back: the record shown stays, the history moves on
    // around it.
    syncRange(S.scrubSeq);
    drawStrip();
    // The banner's "behind the newest" counts the ticks since.
    if (S.shown && !S.shown.live && S.shown.tick != null) renderPast(S.shown.tick);
  }
  if (S.tab === 'stats') renderStats();
  if (S.tab === 'node') renderNode();
  if (S.tab === 'errors' && (S.agent.errors || 0) !== S.errCount && !S.errPending) loadErrors();
}

// switchTree follows a hot reload of the agent shown: it runs another
// tree now, whose drawing is loaded; the history of the old tree is
// dropped (the server starts a new one), and update d, or the newest
// that came while the tree loaded, is shown on the new drawing.
async function switchTree(d) {
  S.treeUpdate = d;
  if (S.treeLoading === d.agent.tree) return;
  S.treeLoading = d.agent.tree;
  let tree;
  try {
    tree = await api('api/trees/' + d.agent.tree);
  } catch (err) {
    notice('Agent ' + d.agent.id + ' moved to another tree, which did not load: ' + err.message);
    return;
  } finally {
    S.treeLoading = null;
  }
  const latest = S.treeUpdate;
  S.treeUpdate = null;
  if (S.rec || latest.agent.id !== S.agentId || latest.agent.tree !== tree.id) return;
  // The selected node stays selected when the new tree has it (at the same
  // path, of the same type: after an edit, always); a tree of the same
  // shape (an edit) keeps the view where it is.
  const prev = S.tree;
  const sel = prev && S.selected >= 0 ? prev.nodes[S.selected] : null;
  let selected = sel ? tree.nodes.findIndex((n) => n.path === sel.path && n.type === sel.type) : -1;
  const sameShape = !!prev && prev.nodes.length === tree.nodes.length && prev.nodes.every((n, i) => n.path === tree.nodes[i].path);
  // A shape edit made here (or its undo) says where the nodes went: the
  // collapsed ones move with them, and the node it names is selected.
  const hint = S.editHint && S.editHint.to === tree.id ? S.editHint : null;
  if (hint) {
    S.editHint = null;
    remapFolds(hint.from, tree, hint.ids);
    if (hint.sel >= 0 && hint.sel < tree.nodes.length) selected = hint.sel;
  }
  // The history starts again: the page shows the agent live.
  Object.assign(S, { tree, treeId: tree.id, selected, followed: -1, timeline: [], shown: null, stats: null, live: true });
  $('#btn-live').classList.add('on');
  drawTree();
  if (hint) showEdited(selected);
  else if (!sameShape) focus(0, false);
  onAgent(latest);
}

// newer says whether agent state a (a live update, or the reply to a
// request) is at least as new as the one shown, and notes it. Replies
// and live updates may arrive out of order: a live update made before a
// Resume can arrive after its reply, and must not show the agent paused
// again.
function newer(a) {
  if (a.rev == null) return true; // a recording
  if (a.id === S.agentId && a.rev < S.rev) return false;
  S.rev = a.rev;
  return true;
}

// keepPending keeps in agent state a (a live update, or the reply to a
// control) the breakpoints and forces the page shows while edits of
// them are not yet answered.
function keepPending(a) {
  if (!S.agent) return;
  if (S.bpPending) a.breakpoints = S.agent.breakpoints;
  if (S.forcePending) a.forces = S.agent.forces;
}

function renderAgentBar(a) {
  const title = 'Agent #' + a.id + ' · ' + a.treeName;
  $('#agent-title').textContent = title;
  $('#agent-title').title = title + (a.label ? ' · ' + a.label : '');
  $('#agent-label').textContent = $('#agent-label').title = a.label || '';
  const st = $('#agent-status');
  const state = a.removed ? 'removed' : a.paused ? 'paused' : a.status;
  st.textContent = state;
  st.className = 'pill ' + state;
  const ctl = canControl();
  $('#controls').hidden = !ctl;
  $('#bb-form').hidden = !ctl;
  $('#token').hidden = !ctl || !!S.token;
  // One of Pause and Resume, in the same place.
  $('#btn-pause').disabled = a.paused || !S.token;
  $('#btn-pause').hidden = a.paused;
  $('#btn-resume').disabled = !a.paused || !S.token;
  $('#btn-resume').hidden = !a.paused;
  $('#btn-step').disabled = !S.token;
  $('#btn-export').hidden = !!S.rec;
  $('#btn-live').hidden = !!S.rec;
  renderBreak(a);
  renderForces(a);
  renderErrorCount(a);
}
