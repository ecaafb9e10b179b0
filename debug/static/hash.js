// The page address's hash: #agent=ID&token=T.
'use strict';

function readHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  const tok = p.get('token');
  if (tok) {
    S.token = tok;
    S.tokenFromHash = true;
    try { sessionStorage.setItem('arbor-token', tok); } catch (_) { /* private mode */ }
    p.delete('token');
    history.replaceState(null, '', location.pathname + location.search + (p.toString() ? '#' + p : ''));
  } else {
    try { S.token = sessionStorage.getItem('arbor-token') || ''; } catch (_) { S.token = ''; }
  }
  const id = p.get('agent');
  return id != null && id !== '' ? Number(id) : null;
}

function writeHash() {
  const p = new URLSearchParams();
  if (S.agentId != null) p.set('agent', S.agentId);
  history.replaceState(null, '', location.pathname + location.search + (p.toString() ? '#' + p : ''));
}
