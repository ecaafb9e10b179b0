// The session header: the clock line, the control token, Pause all and
// Step all, and the connection state.
'use strict';

function renderSummary(sum) {
  if (sum.session && S.session && S.session.session && sum.session !== S.session.session) {
    // The program restarted on this address: what the page holds
    // (history, revisions, token) belongs to the one before.
    location.reload();
    return;
  }
  S.session = Object.assign(S.session || {}, sum);
  const rate = sum.ticksPerSecond ? ' · ' + sum.ticksPerSecond.toFixed(1) + ' ticks/s' : '';
  const paused = (sum.trees || []).reduce((n, t) => n + ((t.byStatus && t.byStatus.paused) || 0), 0);
  // The paused count first: a narrow header cuts the end of the line.
  $('#clock').textContent = (paused ? (paused === sum.agents ? 'all' : paused) + ' paused · ' : '') +
    'tick ' + sum.tick + ' · t=' + fmtMs(sum.nowMs) + rate + ' · ' + sum.agents + ' agents';
  S.allPaused = paused === sum.agents && sum.agents > 0;
  renderWorldControls(S.allPaused);
}

// NEED_TOKEN says why a control is disabled: the page has no token yet.
const NEED_TOKEN = 'Needs the control token: open the page with the URL the program logs (…#token=…), or enter it in an agent\'s bar';

// renderTokenState enables the controls that write (the agent's Pause,
// Resume and Step, Clear breakpoints, the Set form, breakpoints and
// forces) only once the page has the token: without it they would fail
// with 401. Their own titles come back with it. Called when the token
// comes or goes (the boxes and the force bar are keyed on it too).
function renderTokenState() {
  const noToken = !S.token;
  for (const b of [$('#btn-pause'), $('#btn-resume'), $('#btn-step'), $('#bb-set'), $('#btn-clear-bps'), $('#btn-clear-forces')]) {
    if (b.dataset.title == null) b.dataset.title = b.title;
    b.title = noToken ? NEED_TOKEN : b.dataset.title;
  }
  $('#btn-step').disabled = noToken;
  $('#bb-set').disabled = noToken;
  $('#btn-clear-forces').disabled = noToken;
  $('#token').hidden = !canControl() || !noToken;
  if (S.agent) {
    $('#btn-pause').disabled = noToken || S.agent.paused;
    $('#btn-resume').disabled = noToken || !S.agent.paused;
    renderBreak(S.agent);
    renderForces(S.agent);
  }
  if (S.session && !S.rec) renderWorldControls(!!S.allPaused);
  if (S.tab === 'node') renderNode();
}

// renderWorldControls shows, with controls, Pause all (Resume all when
// every agent is paused) and Step all in the header; without the token
// they are disabled, and say where it comes from.
function renderWorldControls(allPaused) {
  const box = $('#world-ctl');
  box.hidden = !(S.session && S.session.controls) || !!S.rec;
  const b = $('#btn-pause-all');
  const step = $('#btn-step-all');
  const noToken = !S.token;
  const need = NEED_TOKEN;
  const title = noToken ? need : allPaused ? 'Resume every agent, also those paused one by one (P)' : 'Pause every agent of the program: the whole world stops (P)';
  const text = allPaused ? 'Resume all' : 'Pause all';
  if (b.textContent !== text) b.textContent = text;
  b.dataset.op = allPaused ? 'resume' : 'pause';
  if (b.title !== title) b.title = title;
  b.disabled = step.disabled = noToken;
  const stepTitle = noToken ? need : 'Run every agent one tick, then pause them all';
  if (step.title !== stepTitle) step.title = stepTitle;
}

// controlAll pauses, resumes or steps every agent of the session.
async function controlAll(op) {
  if (!(S.session && S.session.controls) || S.rec) return;
  if (op !== 'pause') setLive(true);
  try {
    await post('api/session/' + op);
    notice('');
  } catch (err) {
    notice(op + ' all: ' + err.message);
  }
}

function setConn(state) {
  const el = $('#conn');
  el.className = 'conn ' + state;
  el.textContent = state === 'live' ? 'live' : state === 'down' ? 'reconnecting…' : state === 'recording' ? 'recording' : 'connecting…';
}
