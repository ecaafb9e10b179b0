// Breakpoints: their marks in the tree, a breakpoint hit, and setting
// and clearing them.
'use strict';

// renderBreak shows the agent's breakpoints (a red dot on their nodes)
// and, when it is paused at one, the banner and the node highlighted
// (renderHit).
function renderBreak(a) {
  const bps = a.breakpoints || [];
  $('#btn-clear-bps').disabled = !bps.length || !S.token;
  $('#btn-clear-bps').hidden = !bps.length;
  markBreakpoints(bps);
  const hit = a.lastBreak;
  const at = hit && hit.paused && a.paused ? hit : null;
  const hitKey = at ? a.id + ':' + at.seq : '';
  const isNew = at && hitKey !== S.hitKey;
  S.hitKey = hitKey;
  S.hit = at;
  // A new hit: show its tick (the newest) and its node.
  if (isNew && !S.live && !S.rec) setLive(true);
  if (isNew) reveal(at.node);
  renderHit(true);
  if (isNew) focus(at.node, true);
}

// renderHit shows the breakpoint the agent is paused at, the banner and
// the node marked, while the page shows the live tick or the hit's own
// record: a tick of the history scrubbed back to is not where the agent
// stopped. repaint: paint the tree shown if the mark moved.
function renderHit(repaint) {
  const hit = S.hit;
  const at = hit && !S.rec && (S.live || (S.shown && S.shown.seq === hit.seq)) ? hit : null;
  const banner = $('#break-banner');
  banner.hidden = !at;
  if (at) banner.textContent = 'Paused at breakpoint: ' + fullLabel(at.node) + ' ' + at.event + ' (tick ' + at.tick + ')';
  const node = at ? at.node : -1;
  if (node !== S.breakNode) {
    S.breakNode = node;
    if (repaint && S.shown) paint(S.shown.nodes);
  }
}

function markBreakpoints(bps) {
  const key = JSON.stringify(bps.map((b) => [b.node, b.on]));
  if (!S.tree || !S.bpLayer || key === S.bpKey) return;
  S.bpKey = key;
  // The marks of hidden nodes are on the collapsed node that hides them,
  // one dot for them all (its own, if it has one, first).
  S.bpLayer.replaceChildren(...markGroups(bps).map(([at, group]) => {
    const n = S.tree.nodes[at];
    const [cx, cy] = bpDotAt(n);
    const dot = s('circle', { class: 'bp-dot', 'data-node': group[0].node, cx, cy, r: 6 });
    const title = s('title');
    title.textContent = group.map((b) => hiddenNote(b.node) + 'breakpoint: ' + b.on.join(', ')).join('\n');
    dot.append(title);
    return dot;
  }));
}

// bpDotAt is where node n's breakpoint dot goes, clear of the edges and
// of the node's other marks. Top-down, the middle of its left side (the
// edges meet the top and bottom sides). Left to right, the edges meet
// the left and right sides (and, from a parent far above or below, pass
// near their corners), the fold control is on the right side, a guard's
// badge on the top left corner, a force's on the top right one: on the
// bottom side, near the left, a little below it (clear of the text).
function bpDotAt(n) {
  const x0 = n.x - n.w / 2;
  return S.lr ? [x0 + 18, n.y + NODE_H + 1] : [x0, n.y + NODE_H / 2];
}

// markGroups groups marks ({node, ...}) by the node they are drawn on
// (shownAt): [[node drawn on, marks]], the mark of that node itself
// first.
function markGroups(marks) {
  const groups = new Map();
  for (const m of marks) {
    if (m.node >= S.tree.nodes.length) continue;
    const at = shownAt(m.node);
    if (!groups.has(at)) groups.set(at, []);
    const g = groups.get(at);
    if (m.node === at) g.unshift(m);
    else g.push(m);
  }
  return Array.from(groups);
}

// hiddenNote names a node hidden in a collapsed node, for the tooltip of
// its mark there ('' for a node shown).
function hiddenNote(id) {
  return S.tree.nodes[id].shown ? '' : fullLabel(id) + ' (hidden in ' + fullLabel(shownAt(id)) + '): ';
}

function breakpointsOf(id) {
  const b = ((S.agent && S.agent.breakpoints) || []).find((x) => x.node === id);
  return b ? b.on : [];
}

// renderBreakpointBox fills the Node tab's checkboxes, one per event
// kind, for node n (none: hidden). They are rebuilt only when they
// change, not on every update.
function renderBreakpointBox(n) {
  const box = $('#bp-box');
  const ctl = canControl();
  const on = new Set(n ? breakpointsOf(n.id) : []);
  const key = n ? JSON.stringify([S.agentId, n.id, ctl, !!S.token, Array.from(on)]) : '';
  box.hidden = !n || !!S.rec;
  if (key === S.bpBoxKey) return;
  S.bpBoxKey = key;
  if (!n) return;
  box.replaceChildren(h('h4', { text: 'Break on' }));
  for (const ev of (S.session && S.session.breakEvents) || []) {
    const cb = h('input', { type: 'checkbox', 'data-event': ev,
      onchange: () => setBreakpoint(n.id, Array.from(document.querySelectorAll('#bp-box input:checked')).map((c) => c.dataset.event)) });
    cb.checked = on.has(ev);
    cb.disabled = !ctl || !S.token;
    box.append(h('label', { title: !ctl ? 'needs controls' : !S.token ? NEED_TOKEN : 'Pause the agent at the end of a tick where this node emits ' + ev }, cb, ev));
  }
  box.append(h('p', { class: 'muted', text: ctl
    ? 'The agent pauses at the end of the tick; Resume or Step go on.'
    : 'Breakpoints need controls: the program sets debug.Options{Controls: true}.' }));
}

// setBreakpoint makes node id's breakpoint stop on the event kinds on
// (none: removes it).
async function setBreakpoint(id, on) {
  // Shown at once; the answer (or the next update) confirms it.
  const rest = (S.agent.breakpoints || []).filter((b) => b.node !== id);
  S.agent.breakpoints = on.length ? rest.concat([{ node: id, label: label(id), on }]).sort((x, y) => x.node - y.node) : rest;
  renderBreak(S.agent);
  S.bpPending++;
  try {
    applyBreakpoints(await post('api/agents/' + S.agentId + '/breakpoints', { node: id, on }));
    notice('');
  } catch (err) {
    notice('breakpoint: ' + err.message);
  } finally {
    S.bpPending--;
  }
}

async function clearBreakpoints() {
  S.bpPending++;
  try {
    applyBreakpoints(await send('DELETE', 'api/agents/' + S.agentId + '/breakpoints'));
    notice('');
  } catch (err) {
    notice('clear breakpoints: ' + err.message);
  } finally {
    S.bpPending--;
  }
}

// applyBreakpoints shows the breakpoints an edit left. The last hit
// comes from the live updates alone: an answer may arrive after an
// update newer than it.
function applyBreakpoints(r) {
  if (!S.agent || r.agent !== S.agentId) return;
  // A live update newer than the answer carries the breakpoints already.
  if (r.rev < S.rev) return;
  S.rev = r.rev;
  S.agent.breakpoints = r.breakpoints;
  renderBreak(S.agent);
  if (S.tab === 'node') renderNode();
}
