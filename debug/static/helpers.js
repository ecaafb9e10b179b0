// Helpers: building elements (h, s), API requests (api, send, post),
// number formats, node labels and the notice line.
'use strict';

function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

function s(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

async function api(path, opts) {
  const r = await fetch(path, opts);
  let body = {};
  try { body = await r.json(); } catch (_) { /* not JSON */ }
  if (!r.ok) {
    const err = new Error(body.error || r.status + ' ' + r.statusText);
    err.status = r.status;
    throw err;
  }
  return body;
}

// send makes a control request (it carries the token).
// A refused token (a stale one, after the program restarted) is
// forgotten, and the field to enter it shows again.
async function send(method, path, body) {
  try {
    return await api(path, {
      method,
      headers: { 'Content-Type': 'application/json', 'X-Arbor-Token': S.token },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    if (err.status === 401) {
      S.token = '';
      try { sessionStorage.removeItem('arbor-token'); } catch (_) { /* private mode */ }
      $('#token').hidden = !canControl();
      renderTokenState();
    }
    throw err;
  }
}

function post(path, body) {
  return send('POST', path, body || {});
}

function fmtMs(ms) {
  if (ms == null) return '';
  if (Math.abs(ms) >= 10000) return (ms / 1000).toFixed(1) + ' s';
  if (Math.abs(ms) >= 1000) return (ms / 1000).toFixed(2) + ' s';
  return Math.round(ms) + ' ms';
}

function fmtNum(v) {
  if (Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(Math.abs(v) >= 1 ? 6 : 4)));
}

function label(i) {
  const n = S.tree && S.tree.nodes[i];
  return n ? n.label : '#' + i;
}

// fullLabel is label with, for a node without a name, its key
// parameters ("Check Food <= 50"): lists of many Checks stay readable.
function fullLabel(i) {
  const n = S.tree && S.tree.nodes[i];
  return n && n.sub && n.label === n.type ? n.label + ' ' + n.sub : label(i);
}

function notice(msg) {
  const el = $('#notice');
  el.textContent = msg || '';
  el.hidden = !msg;
}
