// Start-up: the only file that runs code. It sets the page up, opens
// a recording or the agent the address names, and follows the hash.
'use strict';

async function start() {
  const want = readHash();
  setupRecordings();
  try {
    const sess = await api('api/session');
    S.session = sess;
    try {
      // A token kept from another run of the program is not this one's.
      if (sessionStorage.getItem('arbor-session') !== sess.session && !S.tokenFromHash) {
        S.token = '';
        sessionStorage.removeItem('arbor-token');
      }
      sessionStorage.setItem('arbor-session', sess.session);
    } catch (_) { /* private mode */ }
    document.title = sess.title;
    $('#title').textContent = sess.title;
    $('#links').replaceChildren(...sess.links.map((l) => h('a', { href: l.url, text: l.name })));
    renderSummary(sess);
    renderTokenState();
  } catch (err) {
    setConn('down');
    $('#list-info').textContent = 'cannot reach the debugger: ' + err.message;
  }
  $('#search').addEventListener('input', (e) => { S.list.q = e.target.value.trim(); scheduleList(); });
  $('#filter-tree').addEventListener('change', (e) => { S.list.tree = e.target.value; loadAgents(); });
  $('#filter-status').addEventListener('change', (e) => { S.list.status = e.target.value; loadAgents(); });
  $('#more').onclick = () => { S.list.limit += 200; loadAgents(); };
  $('#missing-back').onclick = (e) => { e.preventDefault(); backToList(); };
  for (const b of document.querySelectorAll('.tabs button')) b.onclick = () => setTab(b.dataset.tab);
  $('#agent-errors').onclick = () => setTab('errors');
  for (const th of document.querySelectorAll('#stats-table th[data-sort]')) th.onclick = () => { S.statsSort = th.dataset.sort; renderStats(); };
  setupPanZoom();
  setupMinimap();
  setupLayout();
  setupAutoFold();
  setupNodeLists();
  setupNodeListKeys();
  setupBBPick();
  setupAgentListKeys();
  setupAgentListClicks();
  setupTimeline();
  setupNodeHistory();
  setupPlayback();
  setupControls();
  setupEdit();
  setupShape();
  if (S.session && S.session.recording) {
    // Served by "arbor replay": the recording is all there is.
    setConn('recording');
    $('#list-info').textContent = 'no live agents: open a recording';
    try {
      openRecording(await api('api/recording'), S.session.recording.name || 'recording');
    } catch (err) {
      fileError('Cannot open the recording: ' + err.message);
    }
    return;
  }
  await loadAgents();
  setInterval(() => { if (!document.hidden && !S.rec) loadAgents(); }, 1500);
  const only = S.list.total === 1 && document.querySelector('#agent-list li[data-id]');
  if (want != null) openAgent(want);
  else if (only && !S.rec) openAgent(Number(only.dataset.id)); // one agent: nothing to pick
  else if (!S.rec) connect();
  // A page left (or kept in the back-forward cache) closes its stream:
  // a browser has 6 connections to a server, and streams left open
  // would stall the requests of the debugger's other pages.
  window.addEventListener('pagehide', () => { if (S.es) S.es.close(); });
  window.addEventListener('pageshow', (e) => { if (e.persisted && !S.rec) connect(S.agentId == null); });
  window.addEventListener('hashchange', () => {
    const had = S.token;
    const id = readHash();
    if (S.token !== had) {
      // A token came with the address: what failed for want of it may
      // be tried again.
      if (/token/.test($('#notice').textContent)) notice('');
      renderTokenState();
    }
    if (id != null && id !== S.agentId && !S.rec) openAgent(id);
  });
}

start();
