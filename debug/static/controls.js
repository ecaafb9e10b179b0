// Controls: whether the page may act on the agent, Pause, Resume and
// Step, and the buttons and forms that write.
'use strict';

// canControl says whether the page may act on the agent: the session
// has controls and the page shows it live, not a recording.
function canControl() {
  return !!(S.session && S.session.controls) && !S.rec && !(S.agent && S.agent.removed);
}

async function control(op) {
  if (!canControl()) return;
  const id = S.agentId;
  // Resume and Step run the agent on: show it live.
  if (op !== 'pause') setLive(true);
  try {
    const r = await post('api/agents/' + id + '/' + op);
    if (id !== S.agentId || S.rec) return;
    if (newer(r.agent)) {
      keepPending(r.agent);
      S.agent = r.agent;
      renderAgentBar(S.agent);
    }
    notice('');
  } catch (err) {
    notice(op + ': ' + err.message);
  }
}

function setupControls() {
  $('#btn-pause-all').onclick = (e) => controlAll(e.currentTarget.dataset.op || 'pause');
  $('#btn-step-all').onclick = () => controlAll('step');
  $('#btn-pause').onclick = () => control('pause');
  $('#btn-resume').onclick = () => control('resume');
  $('#btn-step').onclick = () => control('step');
  $('#btn-clear-bps').onclick = clearBreakpoints;
  $('#btn-clear-forces').onclick = clearForces;
  $('#break-banner').onclick = () => { if (S.breakNode >= 0) { selectNode(S.breakNode); focus(S.breakNode, true); } };
  $('#token').addEventListener('change', (e) => {
    S.token = e.target.value.trim();
    try { sessionStorage.setItem('arbor-token', S.token); } catch (_) { /* private mode */ }
    renderTokenState();
  });
  $('#bb-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!canControl()) return;
    const key = $('#bb-key').value.trim();
    const raw = $('#bb-value').value.trim();
    let value = null;
    if (raw !== '') {
      try { value = JSON.parse(raw); } catch (_) { value = raw; }
    }
    const ttl = Number($('#bb-ttl').value || 0);
    try {
      if (key.startsWith('@') && !ttl && S.agentId == null) await post('api/globals', { key, value });
      else {
        const res = await post('api/agents/' + S.agentId + '/blackboard', { key, value, ttlMs: ttl });
        if (res && res.warning) {
          $('#bb-msg').textContent = 'set ' + key + '. Warning: ' + res.warning;
          return;
        }
      }
      $('#bb-msg').textContent = raw === '' ? 'deleted ' + key : 'set ' + key + ' (shown after the next tick)';
    } catch (err) {
      $('#bb-msg').textContent = err.message;
    }
  });
}
