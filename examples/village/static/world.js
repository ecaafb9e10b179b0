// The village's world view: zones, villagers coloured by activity and the
// monsters, drawn on a canvas from the frames the server streams.
'use strict';
(() => {
  const COLOURS = {
    thinking: '#b0bec5', walking: '#78909c', HaveFun: '#66bb6a', EatFood: '#ef5350',
    DrinkWater: '#29b6f6', HaveRest: '#fafafa', Work: '#fdd835', OddJob: '#ff8a65', Forage: '#a1887f',
  };
  const MODE_COLOURS = { patrol: '#ab47bc', chase: '#e040fb', attack: '#ff1744', flee: '#4db6ac' };
  const LAIR_COLOUR = '#141a17';
  const canvas = document.getElementById('world');
  const ctx = canvas.getContext('2d');
  const tip = document.getElementById('tip');
  let info = null;
  let prev = null;
  let cur = null;
  let recv = 0;
  let view = { s: 1, ox: 0, oy: 0 };
  let hover = null;
  let mouse = null; // the last pointer position over the canvas, for the tooltip

  function resize() {
    const r = canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.max(1, Math.round(r.width * dpr));
    canvas.height = Math.max(1, Math.round(r.height * dpr));
    if (!info) return;
    const [x0, z0, x1, z1] = info.bounds;
    const s = Math.min(canvas.width / (x1 - x0), canvas.height / (z1 - z0));
    view = { s, ox: (canvas.width - (x1 - x0) * s) / 2 - x0 * s, oy: (canvas.height - (z1 - z0) * s) / 2 + z1 * s };
  }

  // World (x, z) to canvas pixels; z grows upwards.
  const px = (x) => view.ox + x * view.s;
  const py = (z) => view.oy - z * view.s;

  function lerp(a, b, f) { return a + (b - a) * f; }

  function pos(list, prevList, i, f) {
    const c = list[i];
    const p = prevList && prevList[i];
    if (!p) return [c[0], c[1]];
    return [lerp(p[0], c[0], f), lerp(p[1], c[1], f)];
  }

  function draw() {
    requestAnimationFrame(draw);
    if (!info) return;
    const dpr = window.devicePixelRatio || 1;
    const W = canvas.width;
    const H = canvas.height;
    ctx.fillStyle = '#24302a';
    ctx.fillRect(0, 0, W, H);
    const [x0, z0, x1, z1] = info.bounds;
    ctx.fillStyle = '#2e3d33';
    ctx.fillRect(px(x0), py(z1), (x1 - x0) * view.s, (z1 - z0) * view.s);
    // Zones: a muted fill, so that the villagers at work in a zone of
    // their own colour (white at Home, yellow at the Company) stand out,
    // and a crisp border.
    for (const z of info.zones) {
      const x = px(z.centre.X - z.w / 2);
      const y = py(z.centre.Z + z.h / 2);
      ctx.fillStyle = z.colour;
      ctx.globalAlpha = 0.62;
      ctx.fillRect(x, y, z.w * view.s, z.h * view.s);
      ctx.globalAlpha = 0.9;
      ctx.strokeStyle = z.colour;
      ctx.lineWidth = 1.5 * dpr;
      ctx.strokeRect(x, y, z.w * view.s, z.h * view.s);
      ctx.globalAlpha = 1;
    }
    // Lairs.
    for (const l of info.lairs) {
      ctx.fillStyle = LAIR_COLOUR;
      ctx.beginPath();
      ctx.arc(px(l.X), py(l.Z), 1.1 * view.s, 0, 2 * Math.PI);
      ctx.fill();
    }
    if (cur) drawAgents(dpr);
    // Zone labels last, with a dark outline: no villager hides them.
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    ctx.font = `600 ${Math.round(13 * dpr)}px system-ui, sans-serif`;
    ctx.lineJoin = 'round';
    for (const z of info.zones) {
      const X = px(z.centre.X);
      const Y = py(z.centre.Z + z.h / 2) - 9 * dpr;
      ctx.strokeStyle = 'rgba(20,26,23,.85)';
      ctx.lineWidth = 4 * dpr;
      ctx.strokeText(z.name, X, Y);
      ctx.fillStyle = '#eef2ec';
      ctx.fillText(z.name, X, Y);
    }
  }

  function drawAgents(dpr) {
    const f = Math.min(1, (performance.now() - recv) / 100);
    const r = Math.max(3 * dpr, 0.32 * view.s);
    // Villagers.
    cur.villagers.forEach((v, i) => {
      const [x, z] = pos(cur.villagers, prev && prev.villagers, i, f);
      const X = px(x);
      const Y = py(z);
      if (v[3]) {
        // Dead: a light cross over a dark one, visible on the grass and in every zone.
        ctx.beginPath();
        ctx.moveTo(X - r, Y - r); ctx.lineTo(X + r, Y + r);
        ctx.moveTo(X + r, Y - r); ctx.lineTo(X - r, Y + r);
        ctx.strokeStyle = '#000';
        ctx.lineWidth = 4 * dpr;
        ctx.stroke();
        ctx.strokeStyle = hover && hover.id === i ? '#fff' : '#eceff1';
        ctx.lineWidth = 2 * dpr;
        ctx.stroke();
        return;
      }
      ctx.fillStyle = COLOURS[info.activities[v[2]]] || '#fff';
      ctx.beginPath();
      ctx.arc(X, Y, r, 0, 2 * Math.PI);
      ctx.fill();
      ctx.strokeStyle = hover && hover.id === i ? '#fff' : 'rgba(0,0,0,.55)';
      ctx.lineWidth = (hover && hover.id === i ? 2.5 : 1) * dpr;
      ctx.stroke();
    });
    // Monsters.
    cur.monsters.forEach((m, i) => {
      const [x, z] = pos(cur.monsters, prev && prev.monsters, i, f);
      const X = px(x);
      const Y = py(z);
      if (m[4] != null) {
        ctx.strokeStyle = m[2] === 'attack' ? '#ff1744' : 'rgba(224,64,251,.7)';
        ctx.setLineDash(m[2] === 'attack' ? [] : [4 * dpr, 4 * dpr]);
        ctx.lineWidth = 1.5 * dpr;
        ctx.beginPath();
        ctx.moveTo(X, Y);
        ctx.lineTo(px(m[4]), py(m[5]));
        ctx.stroke();
        ctx.setLineDash([]);
      }
      const s = r * 1.9;
      ctx.fillStyle = MODE_COLOURS[m[2]] || '#ab47bc';
      ctx.beginPath();
      ctx.moveTo(X, Y - s); ctx.lineTo(X + s, Y); ctx.lineTo(X, Y + s); ctx.lineTo(X - s, Y);
      ctx.closePath();
      ctx.fill();
      ctx.strokeStyle = hover && hover.id === info.firstMonster + i ? '#fff' : '#0009';
      ctx.lineWidth = 1.5 * dpr;
      ctx.stroke();
      // hp bar
      ctx.fillStyle = '#000a';
      ctx.fillRect(X - s, Y - s - 6 * dpr, 2 * s, 3 * dpr);
      ctx.fillStyle = m[3] < 30 ? '#ff5252' : '#69f0ae';
      ctx.fillRect(X - s, Y - s - 6 * dpr, 2 * s * m[3] / 100, 3 * dpr);
    });
  }

  function legend() {
    if (!cur) return;
    const ul = document.getElementById('acts');
    ul.replaceChildren(...info.activities.map((a, i) => {
      const li = document.createElement('li');
      const sw = document.createElement('span');
      sw.className = 'sw';
      sw.style.background = COLOURS[a];
      const n = document.createElement('span');
      n.className = 'n';
      n.textContent = cur.acts[i];
      li.append(sw, a, n);
      return li;
    }));
    document.getElementById('deaths').textContent = 'deaths so far: ' + cur.deaths + ' · dead now: ' + cur.deadNow;
    const modes = {};
    for (const m of cur.monsters) modes[m[2]] = (modes[m[2]] || 0) + 1;
    const mons = document.getElementById('mons');
    mons.replaceChildren(...Object.keys(MODE_COLOURS).map((k) => {
      const li = document.createElement('li');
      const sw = document.createElement('span');
      sw.className = 'sw';
      sw.className = 'sw diamond';
      sw.style.background = MODE_COLOURS[k];
      const n = document.createElement('span');
      n.className = 'n';
      n.textContent = modes[k] || 0;
      li.append(sw, k, n);
      return li;
    }), lairItem());
    document.getElementById('clock').textContent = 'tick ' + cur.tick + ' · ' + (cur.nowMs / 1000).toFixed(1) + ' s of village time · ' + info.tickRate + ' ticks/s';
  }

  function lairItem() {
    const li = document.createElement('li');
    li.className = 'lair';
    const sw = document.createElement('span');
    sw.className = 'sw';
    sw.style.background = LAIR_COLOUR;
    const n = document.createElement('span');
    n.className = 'n muted';
    n.textContent = info.lairs.length;
    li.append(sw, 'lair (where they heal)', n);
    return li;
  }

  // pick returns the agent under a canvas point (CSS pixels), or null.
  function pick(pt) {
    if (!cur || !pt) return null;
    const dpr = window.devicePixelRatio || 1;
    const X = pt.x * dpr;
    const Y = pt.y * dpr;
    let best = null;
    let bestD = (1.2 * view.s) ** 2;
    const test = (x, z, id, kind) => {
      const d = (px(x) - X) ** 2 + (py(z) - Y) ** 2;
      if (d < bestD) { bestD = d; best = { id, kind }; }
    };
    cur.villagers.forEach((v, i) => test(v[0], v[1], i, 'villager ' + i + ' · ' + (v[3] ? 'dead' : info.activities[v[2]])));
    cur.monsters.forEach((m, i) => test(m[0], m[1], info.firstMonster + i, 'monster ' + i + ' · ' + m[2] + ' · hp ' + m[3]));
    return best;
  }

  function point(ev) {
    const rect = canvas.getBoundingClientRect();
    return { x: ev.clientX - rect.left, y: ev.clientY - rect.top };
  }

  // hoverAt shows the tooltip of the agent under the pointer, kept inside
  // the canvas: it flips to the pointer's left or above it near an edge.
  // Called on every pointer move and every frame, as the agents move.
  function hoverAt(pt) {
    hover = pick(pt);
    canvas.style.cursor = hover ? 'pointer' : 'crosshair';
    tip.hidden = !hover;
    if (!hover) return;
    tip.textContent = hover.kind + ' — click to debug';
    const W = canvas.clientWidth;
    const H = canvas.clientHeight;
    let x = pt.x + 14;
    let y = pt.y + 10;
    if (x + tip.offsetWidth > W - 4) x = Math.max(4, pt.x - 14 - tip.offsetWidth);
    if (y + tip.offsetHeight > H - 4) y = Math.max(4, pt.y - 10 - tip.offsetHeight);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }

  canvas.addEventListener('mousemove', (ev) => { mouse = point(ev); hoverAt(mouse); });
  canvas.addEventListener('mouseleave', () => { mouse = null; hoverAt(null); });
  canvas.addEventListener('click', (ev) => {
    const p = pick(point(ev));
    if (p) location.href = debuggerAt({ agent: p.id });
  });
  window.addEventListener('resize', resize);

  // The debugger's control token, when an address brought one (…/#token=…,
  // as arbor demo -controls prints it): kept for the tab where the
  // debugger's page keeps it (sessionStorage arbor-token, this origin's;
  // the debugger forgets it there when the server refuses it), and out of
  // the address. It goes with every debugger address this page opens, so
  // the debugger has its controls.
  let token = '';

  function takeToken() {
    const p = new URLSearchParams(location.hash.slice(1));
    const tok = p.get('token');
    if (!tok) return;
    token = tok;
    try { sessionStorage.setItem('arbor-token', tok); } catch (_) { /* private mode */ }
    p.delete('token');
    history.replaceState(null, '', location.pathname + location.search + (p.toString() ? '#' + p : ''));
  }

  // currentToken is the token as the tab keeps it now.
  function currentToken() {
    try { return sessionStorage.getItem('arbor-token') || ''; } catch (_) { return token; }
  }

  // debuggerAt is the debugger's address with fragment parameters (the
  // agent to show) and the token.
  function debuggerAt(params) {
    const p = new URLSearchParams(params);
    const tok = currentToken();
    if (tok) p.set('token', tok);
    const f = p.toString();
    return info.debugger + (f ? '#' + f : '');
  }

  async function start() {
    takeToken();
    const r = await fetch('world/info');
    info = await r.json();
    const dbg = document.getElementById('dbg');
    dbg.href = debuggerAt({});
    // The link's address is made when it is followed: the token may have
    // come (a pasted address) or gone (refused by the debugger) since.
    dbg.addEventListener('click', () => { dbg.href = debuggerAt({}); });
    window.addEventListener('hashchange', () => { takeToken(); dbg.href = debuggerAt({}); });
    resize();
    const es = new EventSource('world/stream');
    es.addEventListener('frame', (e) => {
      prev = cur;
      cur = JSON.parse(e.data);
      recv = performance.now();
      legend();
      if (mouse) hoverAt(mouse);
    });
    es.onerror = () => { document.getElementById('clock').textContent = 'reconnecting…'; };
    requestAnimationFrame(draw);
  }
  start();
})();
