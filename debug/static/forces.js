// Forced results: their marks in the tree, the force bar, the Node tab's
// control, and setting and clearing them.
'use strict';

const FORCE_LETTER = { success: 'S', failure: 'F', running: 'R' };

// forcesOf lists the agent's forced nodes ({node, label, status}).
function forcesOf(a) {
  return (a && !a.removed && !S.rec && a.forces) || [];
}

function forcedOf(id) {
  const f = forcesOf(S.agent).find((x) => x.node === id);
  return f ? f.status : '';
}

// renderForces shows the agent's forced nodes: marked in the tree and
// listed in the bar above it (the Node tab: renderNode).
function renderForces(a) {
  const fs = forcesOf(a);
  markForces(fs);
  renderForceBar(fs);
}

// markForces outlines each forced node (dashed) and puts a badge on its
// top right corner: a lock and the forced status's letter.
function markForces(fs) {
  const key = JSON.stringify(fs.map((f) => [f.node, f.status]));
  if (!S.tree || !S.forceLayer || key === S.forceKey) return;
  S.forceKey = key;
  // The marks of hidden nodes are on the collapsed node that hides them:
  // its own force's letter if it has one, else the hidden node's (+ when
  // there are several); the tooltip lists them all.
  S.forceLayer.replaceChildren(...markGroups(fs).map(([at, group]) => {
    const n = S.tree.nodes[at];
    const f = group[0];
    const x0 = n.x - n.w / 2;
    const g = s('g', { class: 'force-mark', 'data-node': f.node, 'data-status': f.status });
    const title = s('title');
    title.textContent = group.map((x) => hiddenNote(x.node) + 'forced to ' + x.status + ': the node is not run; ticked, it returns ' + x.status).join('\n');
    const bx = x0 + n.w - 30; // the badge: 28 × 15, over the corner
    const by = n.y - 13;
    g.append(title,
      s('rect', { class: 'force-outline', x: x0 - 4, y: n.y - 4, width: n.w + 8, height: 48, rx: 9 }),
      s('rect', { class: 'force-badge', x: bx, y: by, width: 28, height: 15, rx: 7.5 }),
      s('path', { class: 'force-shackle', d: `M${bx + 7},${by + 7} v-1.5 a3,3 0 0 1 6,0 v1.5` }),
      s('rect', { class: 'force-lock', x: bx + 5.5, y: by + 6.5, width: 9, height: 6, rx: 1 }));
    const letter = s('text', { class: 'force-letter', x: bx + 21, y: by + 11.5, 'text-anchor': 'middle' });
    letter.textContent = f.node !== at && group.length > 1 ? '+' : FORCE_LETTER[f.status] || '?';
    g.append(letter);
    return g;
  }));
}

// renderForceBar lists the forced nodes above the tree (a click shows
// the node; × lifts its force) with Clear forces; hidden when none.
function renderForceBar(fs) {
  const ctl = canControl();
  const key = JSON.stringify([S.agentId, ctl, !!S.token, fs.map((f) => [f.node, f.status])]);
  $('#force-bar').hidden = !fs.length;
  if (key === S.forceBarKey) return;
  S.forceBarKey = key;
  $('#btn-clear-forces').hidden = !ctl;
  $('#force-list').replaceChildren(...fs.map((f) => {
    const item = h('span', { class: 'force-item', 'data-node': f.node, title: 'Show the node',
      onclick: () => { selectNode(f.node); focus(f.node, true); } },
    fullLabel(f.node) + ' → ', h('b', { text: f.status }));
    if (ctl) {
      const lift = h('button', { title: S.token ? 'Lift this force: the node runs again' : NEED_TOKEN, 'aria-label': 'Lift the force of ' + fullLabel(f.node),
        onclick: (e) => { e.stopPropagation(); setForce(f.node, 'none'); } }, '×');
      lift.disabled = !S.token;
      item.append(lift);
    }
    return item;
  }));
}

// renderForceBox fills the Node tab's Force result control for node n:
// none, success, failure or running (not for a condition or a node of a
// guard), with controls only.
function renderForceBox(n) {
  const box = $('#force-box');
  const ctl = canControl();
  const cur = n ? forcedOf(n.id) || 'none' : '';
  const key = n ? JSON.stringify([S.agentId, n.id, ctl, !!S.token, cur]) : '';
  box.hidden = !n || !ctl;
  if (key === S.forceBoxKey) return;
  S.forceBoxKey = key;
  if (!n || !ctl) return;
  const noRun = n.inGuard ? 'A node of a guard is evaluated, not run: it can be forced to success or failure only'
    : n.condition ? 'A condition decides within its tick: it can be forced to success or failure only' : '';
  box.replaceChildren(h('h4', { text: 'Force result' }));
  for (const st of ['none', 'success', 'failure', 'running']) {
    const rb = h('input', { type: 'radio', name: 'force', value: st, onchange: () => setForce(n.id, st) });
    rb.checked = st === cur;
    rb.disabled = !S.token || (st === 'running' && !!noRun);
    const title = !S.token ? NEED_TOKEN : rb.disabled ? noRun : st === 'none' ? 'The node runs as usual'
      : 'The node is not run: ticked, it returns ' + st + (st === 'running' ? ' (and keeps running, with no callbacks)' : '');
    box.append(h('label', { title, class: rb.disabled ? 'off' : '' }, rb, st));
  }
  box.append(h('p', { class: 'muted', text: 'A forced node is not run: ticked, it returns the chosen result, and the nodes below it are not ticked. Try the tree\'s other paths.' }));
}

// setForce forces node id to st (none: lifts its force).
async function setForce(id, st) {
  if (!canControl() || !S.agent) return;
  const agent = S.agentId;
  // Shown at once; the answer (or the next update) confirms it.
  const rest = forcesOf(S.agent).filter((f) => f.node !== id);
  S.agent.forces = st === 'none' ? rest : rest.concat([{ node: id, label: label(id), status: st }]).sort((x, y) => x.node - y.node);
  renderForces(S.agent);
  if (S.tab === 'node') renderNode();
  S.forcePending++;
  try {
    const path = 'api/agents/' + agent + '/forces';
    applyForces(st === 'none' ? await send('DELETE', path + '?node=' + id) : await post(path, { node: id, status: st }));
    notice('');
  } catch (err) {
    notice('force: ' + err.message);
    // Show what the engine holds.
    try { applyForces(await api('api/agents/' + agent + '/forces')); } catch (_) { /* the next update shows it */ }
  } finally {
    S.forcePending--;
  }
}

async function clearForces() {
  if (!canControl()) return;
  S.forcePending++;
  try {
    applyForces(await send('DELETE', 'api/agents/' + S.agentId + '/forces'));
    notice('');
  } catch (err) {
    notice('clear forces: ' + err.message);
  } finally {
    S.forcePending--;
  }
}

// applyForces shows the forces an edit left, unless a live update newer
// than the answer came first.
function applyForces(r) {
  if (!S.agent || r.agent !== S.agentId || r.rev < S.rev) return;
  S.rev = r.rev;
  S.agent.forces = r.forces;
  renderForces(S.agent);
  if (S.tab === 'node') renderNode();
}
