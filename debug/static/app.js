// Arbor debugger page: plain JavaScript, no build step. It talks to the
// JSON API beside it (relative URLs, so the debugger can be mounted under
// any prefix) and follows one agent over Server-Sent Events.
'use strict';
(() => {
  const $ = (sel) => document.querySelector(sel);
  const SVG = 'http://www.w3.org/2000/svg';
  const STATUS = { r: 'running', s: 'success', f: 'failure', h: 'halted', '.': 'never' };

  const S = {
    session: null,
    token: '',
    agentId: null,
    agent: null,
    tree: null,
    treeId: null,
    treeLoading: null, // the tree id being loaded after a hot reload (switchTree)
    find: { q: '', matches: [], at: -1 }, // the node finder: query, matching node ids, the one shown
    treeUpdate: null, // the newest update waiting for that tree
    nodeEls: [],
    edgeEls: [],
    depth: [],
    folds: new Map(), // tree name → the paths of its collapsed nodes (kept across agents and hot reloads)
    folded: new Set(), // the collapsed nodes of the tree shown (ids)
    hiddenIn: new Map(), // a collapsed node's id → the ids of the nodes it hides
    es: null,
    live: true,
    timeline: [], // [seq, tick, nowMs, status letter, events, between, marks (MARK_ERROR | MARK_HALTED)]
    latest: null,
    shown: null,
    stats: null,
    selected: -1,
    view: { x: 0, y: 0, k: 1 },
    list: { q: '', tree: '', status: '', limit: 200 },
    tab: 'bb',
    statsSort: 'id',
    scrubSeq: 0, // scrubbed back (not live): the record shown, or being fetched to show
    scrubTimer: 0,
    scrubReq: 0, // counts record requests: only the newest one's answer is shown
    scrubWait: -1, // the record a request asks for while it is under way, or -1
    prevBB: new Map(),
    follow: true,
    followed: -1,
    breakNode: -1, // the node the agent is paused at (a breakpoint hit), or -1
    bpKey: '', // the breakpoints the markers show
    bpBoxKey: '', // what the Node tab's checkboxes show
    hitKey: '', // the last breakpoint hit shown
    hit: null, // the agent's lastBreak while it is paused there, or null
    anim: 0, // counts view changes: a newer one stops an animation
    goal: null, // { view, anim }: where animation anim takes the view
    rec: null, // the recording shown (read-only), or null: live
    liveAgent: null, // the live agent to go back to from a recording
    rev: 0, // the revision of the agent state shown (see newer)
    bpPending: 0, // breakpoint edits sent and not yet answered
    forceKey: '', // the forces the marks in the tree show
    forceBarKey: '', // the forces the bar above the tree lists
    forceBoxKey: '', // what the Node tab's Force result control shows
    forcePending: 0, // force edits sent and not yet answered
    errCount: -1, // the agent's error count the Errors tab shows (-1: not loaded)
    errLoading: false, // an errors request is under way
    errShown: null, // the agent whose errors the list shows
    errHover: false, // the pointer is over the errors list, which then holds still
    errPending: null, // the errors answer held back while errHover
  };
  const FORMAT = 'arbor-debug/1'; // the format of a recording
  // Marks of a tick in the timeline (debug/handler.go: markError, markHalted).
  const MARK_ERROR = 1; // a node reported an error
  const MARK_HALTED = 2; // a running node was halted or aborted: the running branch changed
  // The tree's layout (in SVG units), as the server's (debug/layout.go).
  const NODE_H = 40;
  const LEVEL_GAP = 70;
  const SIBLING_GAP = 16;

  // --- helpers --------------------------------------------------------------

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

  // --- hash: #agent=ID&token=T ------------------------------------------

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

  // --- session header ---------------------------------------------------

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

  // --- agent list --------------------------------------------------------

  let listTimer = 0;
  async function loadAgents() {
    const p = new URLSearchParams();
    if (S.list.q) p.set('q', S.list.q);
    if (S.list.tree !== '') p.set('tree', S.list.tree);
    if (S.list.status) p.set('status', S.list.status);
    p.set('limit', S.list.limit);
    let data;
    try {
      data = await api('api/agents?' + p);
    } catch (err) {
      if (!S.rec) $('#list-info').textContent = 'cannot list agents: ' + err.message;
      return;
    }
    if (S.rec) return; // a recording was opened meanwhile
    renderTreeCounts(data.trees);
    // The list is asked for every 1.5 s: what did not change is left alone,
    // so that an open menu stays open and a click in progress lands.
    const sel = $('#filter-tree');
    const opts = data.trees.map((t) => [t.id, treeName(t, data.trees) + ' (' + t.count + ')']);
    const optsKey = JSON.stringify(opts);
    if (sel.dataset.key !== optsKey) {
      const keep = sel.value;
      sel.replaceChildren(h('option', { value: '', text: 'all trees' }), ...opts.map(([id, text]) => h('option', { value: id, text })));
      sel.value = keep;
      sel.dataset.key = optsKey;
    }
    $('#list-info').textContent = data.matches + ' of ' + data.total + ' agents' +
      (data.agents.length < data.matches ? ' · showing ' + data.agents.length : '');
    $('#more').hidden = data.agents.length >= data.matches;
    const ul = $('#agent-list');
    const kept = new Map(Array.from(ul.children, (li) => [li.dataset.key, li]));
    // The entry with the keyboard focus keeps it when it is redrawn.
    const focused = document.activeElement && document.activeElement.parentElement === ul ? document.activeElement.dataset.id : null;
    const items = data.agents.map((a) => {
      const key = JSON.stringify([a.id, a.paused, a.status, a.label, a.treeName, a.watched, a.errors || 0]);
      const li = kept.get(key) || agentItem(a, a.watched ? h('span', { class: 'eye', text: '◉', title: 'watched' }) : null);
      li.dataset.key = key;
      li.classList.toggle('sel', a.id === S.agentId);
      return li;
    });
    if (items.length !== ul.children.length || items.some((li, i) => ul.children[i] !== li)) ul.replaceChildren(...items);
    rovingTab(ul, focused);
  }

  // rovingTab makes the agent list one stop of the Tab key: the entry
  // focused (id focused, if any), else the open agent's, else the first,
  // is the one Tab reaches; the arrow keys move in the list
  // (setupAgentListKeys). The entry focused before a redraw gets the focus
  // back.
  function rovingTab(ul, focused) {
    const items = Array.from(ul.children).filter((li) => li.dataset.id != null);
    const stop = items.find((li) => li.dataset.id === focused) || items.find((li) => li.classList.contains('sel')) || items[0];
    for (const li of items) li.tabIndex = li === stop ? 0 : -1;
    if (focused != null && stop && stop.dataset.id === focused && document.activeElement !== stop) stop.focus({ preventScroll: true });
  }

  // setupAgentListKeys: in the agent list, ↑ and ↓ (Home, End) move the
  // focus between the entries; Enter or Space opens the one focused.
  function setupAgentListKeys() {
    const ul = $('#agent-list');
    ul.addEventListener('keydown', (e) => {
      const li = e.target.closest('li[data-id]');
      if (!li || e.ctrlKey || e.metaKey || e.altKey) return;
      const items = Array.from(ul.querySelectorAll('li[data-id]'));
      let k = items.indexOf(li);
      switch (e.key) {
        case 'Enter':
        case ' ':
          openAgent(Number(li.dataset.id));
          break;
        case 'ArrowDown': k = Math.min(items.length - 1, k + 1); break;
        case 'ArrowUp': k = Math.max(0, k - 1); break;
        case 'Home': k = 0; break;
        case 'End': k = items.length - 1; break;
        default: return;
      }
      e.preventDefault();
      e.stopPropagation(); // not the page's keys (Space pauses, End goes live)
      if (items[k] && items[k] !== li) {
        for (const x of items) x.tabIndex = x === items[k] ? 0 : -1;
        items[k].focus();
      }
    });
  }

  // setupAgentListClicks: a click on an entry opens its agent (agentItem).
  // The list is asked for every 1.5 s, and the entry of an agent that
  // changed meanwhile (a label with live values changes on most) is a new
  // element: pressed on the old one and released on the new one, the
  // browser makes no click of it. Such a press and release on the entries
  // of one agent open it too.
  function setupAgentListClicks() {
    const ul = $('#agent-list');
    let pressed = null;
    ul.addEventListener('pointerdown', (e) => {
      pressed = e.button === 0 ? e.target.closest('li[data-id]') : null;
    });
    // A press that ends elsewhere, or is cancelled, is over.
    const forget = (e) => { if (!ul.contains(e.target)) pressed = null; };
    document.addEventListener('pointerup', forget);
    document.addEventListener('pointercancel', () => { pressed = null; });
    ul.addEventListener('pointerup', (e) => {
      const was = pressed;
      pressed = null;
      const li = e.button === 0 ? e.target.closest('li[data-id]') : null;
      // Still there, the entry pressed gets its click.
      if (!was || !li || was.isConnected || was.dataset.id !== li.dataset.id) return;
      openAgent(Number(li.dataset.id));
      // As a click does: the page's keys stay the page's.
      if (document.activeElement === li) li.blur();
    });
  }

  // errCount is an error count in at most 4 characters, as the badges show it.
  function errCountText(n) {
    return n > 999 ? fmtCount(n) : String(n);
  }

  // agentItem is an agent's entry in the list; mark follows its label.
  function agentItem(a, mark) {
    const st = a.paused ? 'paused' : a.status;
    // Focusable (see rovingTab): Enter or Space opens it.
    return h('li', { 'data-id': a.id, class: 'agent-item' + (a.id === S.agentId ? ' sel' : ''), title: '#' + a.id + (a.label ? ' · ' + a.label : '') + ' · ' + a.treeName + ' · ' + st,
      tabindex: -1, role: 'button', onclick: (e) => {
        openAgent(a.id);
        // Clicked (not a key): the page's keys (Space, End) stay the page's.
        if (e.detail) e.currentTarget.blur();
      } },
      h('span', { class: 'dot ' + st }),
      h('span', { class: 'aid', text: '#' + a.id }),
      h('span', { class: 'alabel', text: a.label || a.treeName }),
      mark,
      a.errors ? h('span', { class: 'errc', text: '⚠ ' + errCountText(a.errors), title: a.errors + ' node error' + (a.errors === 1 ? '' : 's') }) : null);
  }

  // treeName names a tree of the list; trees of the same name (two files
  // with one main tree name) are told apart by their size.
  function treeName(t, trees) {
    return trees.some((o) => o !== t && o.name === t.name) ? t.name + ' · ' + t.nodes + ' nodes' : t.name;
  }

  function renderTreeCounts(trees) {
    const box = $('#tree-counts');
    const chips = trees.map((t) => {
      const b = t.byStatus || {};
      const detail = ['running', 'success', 'failure', 'idle', 'paused'].filter((k) => b[k]).map((k) => b[k] + ' ' + k).join(', ');
      return h('span', { class: 'chip' + (String(t.id) === S.list.tree ? ' on' : ''), title: detail,
        onclick: () => { S.list.tree = String(t.id) === S.list.tree ? '' : String(t.id); $('#filter-tree').value = S.list.tree; loadAgents(); } },
      treeName(t, trees) + ' ', h('small', { text: String(t.count) }));
    });
    box.replaceChildren(...chips);
  }

  function scheduleList() {
    clearTimeout(listTimer);
    listTimer = setTimeout(loadAgents, 200);
  }

  // --- tree drawing ------------------------------------------------------

  // drawKids lists the children a node is drawn with: its guard first.
  const drawKids = (n) => (n.guard >= 0 ? [n.guard] : []).concat(n.children);

  // drawParent is the node a node is drawn under (a guard's root under the
  // node it guards), -1 for the root.
  function drawParent(i) {
    const n = S.tree.nodes[i];
    return n.guardOf >= 0 ? n.guardOf : n.parent;
  }

  // layoutTree places the nodes shown (not hidden in a collapsed node) as
  // the server's layout does for the whole tree: a tidy tree in which each
  // subtree is drawn apart, children as close as their subtrees' contours
  // allow, each parent centred over its first and last child. It sets
  // their x, y and shown, and the tree's width and height.
  function layoutTree(t, folded) {
    const ns = t.nodes;
    if (!ns.length) return;
    const kidsOf = (i) => (folded.has(i) ? [] : drawKids(ns[i]));
    const offset = new Float64Array(ns.length); // centre relative to the parent's centre
    const contours = []; // per subtree: [left, right] of each level, relative to its root's centre
    const stack = [[0, 0]]; // post-order, iteratively (trees may be deep)
    while (stack.length) {
      const f = stack[stack.length - 1];
      const kids = kidsOf(f[0]);
      if (f[1] < kids.length) {
        stack.push([kids[f[1]++], 0]);
        continue;
      }
      stack.pop();
      const i = f[0];
      const half = ns[i].w / 2;
      if (!kids.length) {
        contours[i] = [[-half, half]];
        continue;
      }
      const merged = [];
      kids.forEach((c, k) => {
        const cc = contours[c];
        let x = 0;
        if (k > 0) {
          x = -Infinity;
          for (let l = 0; l < cc.length && l < merged.length; l++) x = Math.max(x, merged[l][1] + SIBLING_GAP - cc[l][0]);
        }
        offset[c] = x;
        cc.forEach(([l, r], lvl) => {
          if (lvl < merged.length) {
            merged[lvl][0] = Math.min(merged[lvl][0], l + x);
            merged[lvl][1] = Math.max(merged[lvl][1], r + x);
          } else {
            merged.push([l + x, r + x]);
          }
        });
        contours[c] = null;
      });
      const centre = (offset[kids[0]] + offset[kids[kids.length - 1]]) / 2;
      for (const c of kids) offset[c] -= centre;
      for (const m of merged) { m[0] -= centre; m[1] -= centre; }
      contours[i] = [[-half, half], ...merged];
    }
    let left = 0;
    for (const [l] of contours[0]) left = Math.min(left, l);
    for (const n of ns) n.shown = false;
    let width = 0;
    let height = 0;
    const todo = [[0, -left + 10, 0]];
    while (todo.length) {
      const [i, x, depth] = todo.pop();
      const n = ns[i];
      n.shown = true;
      n.x = x;
      n.y = depth * LEVEL_GAP + 10;
      width = Math.max(width, n.x + n.w / 2 + 10);
      height = Math.max(height, n.y + NODE_H + 10);
      for (const c of kidsOf(i)) todo.push([c, x + offset[c], depth + 1]);
    }
    t.width = width;
    t.height = height;
  }

  // foldKeys gives each node of t a key that names it by content, not by
  // position, so that collapsed nodes stay the same nodes when a hot
  // reload inserts or removes others: the types and names from the root
  // down, each with its rank among the siblings of the same type and name.
  function foldKeys(t) {
    if (t.foldKeys) return t.foldKeys;
    const keys = [];
    const walk = (i, prefix) => {
      const n = t.nodes[i];
      keys[i] = prefix;
      const seen = new Map();
      for (const c of drawKids(n)) {
        const k = t.nodes[c];
        const base = (c === n.guard ? 'guard:' : '') + k.type + ':' + (k.name || '');
        const rank = seen.get(base) || 0;
        seen.set(base, rank + 1);
        walk(c, prefix + '/' + base + '#' + rank);
      }
    };
    if (t.nodes.length) walk(0, t.nodes[0].type + ':' + (t.nodes[0].name || ''));
    t.foldKeys = keys;
    return keys;
  }

  // foldsOf is the set of the collapsed nodes' keys (foldKeys) of trees of
  // t's name. A big tree, the first time the page shows its name, opens
  // collapsed: its levels from the root down while they add up to at most
  // BIG_SHOWN nodes, the nodes below collapsed.
  const BIG_TREE = 300;
  const BIG_SHOWN = 60;
  function foldsOf(t) {
    if (!S.folds.has(t.name)) {
      const folds = new Set();
      if (t.nodes.length > BIG_TREE) {
        const keys = foldKeys(t);
        let shown = 1;
        const queue = [0];
        for (let q = 0; q < queue.length; q++) {
          const i = queue[q];
          const kids = drawKids(t.nodes[i]);
          if (!kids.length) continue;
          if (i !== 0 && shown + kids.length > BIG_SHOWN) {
            folds.add(keys[i]);
            continue;
          }
          shown += kids.length;
          queue.push(...kids);
        }
      }
      S.folds.set(t.name, folds);
    }
    return S.folds.get(t.name);
  }

  function drawTree() {
    const vp = $('#viewport');
    vp.replaceChildren();
    const t = S.tree;
    S.nodeEls = [];
    S.edgeEls = [];
    S.depth = [];
    const edges = s('g', { class: 'edges' });
    const nodes = s('g', { class: 'nodes' });
    S.forceLayer = s('g', { class: 'force-marks' });
    S.bpLayer = s('g', { class: 'bp-marks' });
    S.bpKey = '';
    S.forceKey = '';
    vp.append(edges, nodes, S.forceLayer, S.bpLayer);
    const NH = NODE_H;
    // Depths, for indentation in the statistics table; the nodes each
    // collapsed node hides.
    const folds = foldsOf(t);
    const keys = foldKeys(t);
    S.folded = new Set(t.nodes.filter((n) => drawKids(n).length > 0 && folds.has(keys[n.id])).map((n) => n.id));
    S.hiddenIn = new Map();
    const walk = (i, d, hider) => {
      S.depth[i] = d;
      if (hider >= 0) S.hiddenIn.get(hider).push(i);
      else if (S.folded.has(i)) { hider = i; S.hiddenIn.set(i, []); }
      for (const c of drawKids(t.nodes[i])) walk(c, d + 1, hider);
    };
    if (t.nodes.length) walk(0, 0, -1);
    layoutTree(t, S.folded);
    for (const n of t.nodes) {
      if (!n.shown || S.folded.has(n.id)) continue;
      for (const c of drawKids(n)) {
        const k = t.nodes[c];
        const y1 = n.y + NH;
        const y2 = k.y;
        const my = (y1 + y2) / 2;
        const path = s('path', {
          d: `M${n.x},${y1} C${n.x},${my} ${k.x},${my} ${k.x},${y2}`,
          class: 'edge' + (c === n.guard ? ' guard' : ''),
        });
        edges.append(path);
        S.edgeEls[c] = path;
      }
    }
    for (const n of t.nodes) {
      if (!n.shown) continue;
      const g = s('g', { class: 'node st-never', 'data-id': n.id, 'data-status': 'never', transform: `translate(${n.x - n.w / 2},${n.y})` });
      const title = s('title');
      title.textContent = [n.type + (n.name ? ' "' + n.name + '"' : ''), n.path,
        n.params ? JSON.stringify(n.params) : '', n.abort ? 'abort: ' + n.abort : '', n.inGuard ? 'guard condition (evaluated, no running state)' : ''].filter(Boolean).join('\n');
      g.append(title, s('rect', { width: n.w, height: NH, rx: 6 }));
      const maxChars = Math.floor((n.w - 14) / 6.6);
      const cut = (str, room) => (str.length > room ? str.slice(0, room - 1) + '…' : str);
      const t1 = s('text', { x: 8, y: 16, class: 'lbl' });
      // The abort mark takes the label's line on the right.
      t1.textContent = cut(n.label, maxChars - (n.abort ? n.abort.length + 2 : 0));
      g.append(t1);
      if (n.sub) {
        const t2 = s('text', { x: 8, y: 31, class: 'sub' });
        t2.textContent = cut(n.sub, maxChars);
        g.append(t2);
      }
      if (n.abort) {
        const m = s('text', { x: n.w - 5, y: 12, 'text-anchor': 'end', class: 'mk' });
        m.textContent = '⤴' + n.abort;
        g.append(m);
      }
      if (n.guard >= 0) {
        g.append(s('circle', { cx: 0, cy: 0, r: 7, class: 'gbadge' }));
        const gt = s('text', { x: 0, y: 3, 'text-anchor': 'middle', class: 'gbadge-t' });
        gt.textContent = 'G';
        g.append(gt);
      }
      if (drawKids(n).length) g.append(foldButton(n));
      if (n.inGuard) g.classList.add('guardnode');
      nodes.append(g);
      S.nodeEls[n.id] = g;
    }
    findNodes(S.find.q, true);
  }

  // foldButton is the control at the bottom of a node with children: −
  // collapses the node's subtree; on a collapsed node, +N (the nodes it
  // hides) expands it.
  function foldButton(n) {
    const hidden = S.hiddenIn.get(n.id);
    const text = hidden ? '+' + hidden.length : '−';
    const w = hidden ? 12 + 6.5 * text.length : 14;
    const b = s('g', { class: 'fold' + (hidden ? ' folded' : ''), 'data-fold': n.id, transform: `translate(${n.w / 2},${NODE_H + 2})` });
    const title = s('title');
    title.textContent = hidden ? 'Expand: show the ' + hidden.length + ' nodes below' : 'Collapse: hide the nodes below';
    const lbl = s('text', { x: 0, y: 3.5, 'text-anchor': 'middle' });
    lbl.textContent = text;
    b.append(title, s('rect', { x: -w / 2, y: -7, width: w, height: 14, rx: 7 }), lbl);
    return b;
  }

  // --- collapsing subtrees ------------------------------------------------

  // shownAt is the node that shows node id: itself, or the collapsed node
  // that hides it.
  function shownAt(id) {
    const ns = S.tree.nodes;
    while (id > 0 && !ns[id].shown) id = drawParent(id);
    return id;
  }

  // setFolds collapses the nodes of ids and expands all others, then draws
  // the tree again. The node anchor stays where it is on the screen.
  function setFolds(ids, anchor) {
    const t = S.tree;
    const folds = foldsOf(t);
    const keys = foldKeys(t);
    folds.clear();
    for (const i of ids) folds.add(keys[i]);
    const a = t.nodes[anchor >= 0 && anchor < t.nodes.length ? anchor : 0];
    const before = { x: a.x, y: a.y };
    drawTree();
    const v = S.view;
    v.x += (before.x - a.x) * v.k;
    v.y += (before.y - a.y) * v.k;
    applyView();
    if (S.shown) paint(S.shown.nodes);
    if (S.agent) {
      markBreakpoints(S.agent.breakpoints || []);
      markForces(forcesOf(S.agent));
    }
  }

  // toggleFold collapses node id, or expands it when it is collapsed.
  function toggleFold(id) {
    const ids = new Set(S.folded);
    if (!ids.delete(id)) ids.add(id);
    setFolds(ids, id);
  }

  // setupTreeKeys: with the tree focused from the keyboard (Tab), the
  // arrow keys move the selection: ↑ to the parent, ↓ to the first child
  // (expanding a collapsed node), ← and → to the siblings; Home selects
  // the root and Enter collapses or expands the selected node. The view
  // follows the selection.
  function setupTreeKeys() {
    const svg = $('#tree');
    // keyFocus: the tree got the focus from the keyboard (Tab), not from a
    // click; lastInput is the kind of the page's last input event.
    let keyFocus = false;
    let lastInput = 'pointer';
    document.addEventListener('keydown', () => { lastInput = 'key'; }, true);
    document.addEventListener('pointerdown', () => { lastInput = 'pointer'; }, true);
    // A click in the tree focused from the keyboard leaves it so (its
    // focus ring stays too).
    svg.addEventListener('focus', () => { keyFocus = lastInput === 'key'; });
    svg.addEventListener('keydown', (e) => {
      const t = S.tree;
      // Focused by a click, the page's own keys apply: ← and → step
      // through the history.
      if (!t || !t.nodes.length || e.ctrlKey || e.metaKey || e.altKey || !keyFocus) return;
      const sel = S.selected >= 0 && S.selected < t.nodes.length ? shownAt(S.selected) : -1;
      const siblings = (i) => (drawParent(i) >= 0 ? drawKids(t.nodes[drawParent(i)]) : [i]);
      let next = -1;
      switch (e.key) {
        case 'Home': next = 0; break;
        case 'ArrowUp': next = sel < 0 ? 0 : Math.max(0, drawParent(sel)); break;
        case 'ArrowDown':
          if (sel < 0) next = 0;
          else if (drawKids(t.nodes[sel]).length) {
            if (S.folded.has(sel)) toggleFold(sel);
            next = drawKids(t.nodes[sel])[0];
          }
          break;
        case 'ArrowLeft':
        case 'ArrowRight': {
          if (sel < 0) { next = 0; break; }
          const sib = siblings(sel);
          const k = sib.indexOf(sel) + (e.key === 'ArrowLeft' ? -1 : 1);
          if (k >= 0 && k < sib.length) next = sib[k];
          break;
        }
        case 'Enter':
          if (sel < 0) next = 0;
          else if (drawKids(t.nodes[sel]).length) toggleFold(sel);
          break;
        default: return;
      }
      // The page's own keys (← → history) do not apply here.
      e.preventDefault();
      e.stopPropagation();
      if (next < 0) return;
      selectNode(next);
      if (!inView(next, viewGoal())) {
        setFollow(false);
        const n = t.nodes[next];
        const [W, H] = sizeOf(svg, 800, 500);
        const k = Math.max(S.view.k, 0.85);
        panTo({ k, x: W / 2 - n.x * k, y: H / 2 - (n.y + 20) * k }, true);
      }
    });
  }

  // reveal expands the collapsed nodes above node id, so that it is shown.
  function reveal(id) {
    const t = S.tree;
    if (!t || id < 0 || id >= t.nodes.length || t.nodes[id].shown) return;
    const ids = new Set(S.folded);
    for (let i = drawParent(id); i >= 0; i = drawParent(i)) ids.delete(i);
    setFolds(ids, shownAt(id));
  }

  // foldIdle collapses every subtree in which nothing runs (at the tick
  // shown): the tree shrinks to the running branches, the root's other
  // children and the selected node.
  function foldIdle() {
    const t = S.tree;
    if (!t || !t.nodes.length) return;
    const letters = (S.shown && S.shown.nodes) || '';
    const keep = new Set();
    const mark = (i) => { for (; i >= 0 && !keep.has(i); i = drawParent(i)) keep.add(i); };
    for (let i = 0; i < t.nodes.length; i++) if ((letters[i] || '.').toLowerCase() === 'r') mark(i);
    if (S.selected > 0 && S.selected < t.nodes.length) mark(drawParent(S.selected)); // shown, perhaps collapsed
    mark(0);
    const ids = new Set();
    const walk = (i) => {
      for (const c of drawKids(t.nodes[i])) {
        if (keep.has(c)) walk(c);
        else if (drawKids(t.nodes[c]).length) ids.add(c);
      }
    };
    walk(0);
    setFolds(ids, 0);
    focus(S.followed >= 0 ? S.followed : 0, false);
  }

  function unfoldAll() {
    if (!S.tree) return;
    setFolds([], S.selected >= 0 ? S.selected : 0);
    focus(S.selected >= 0 ? S.selected : S.followed >= 0 ? S.followed : 0, false);
  }

  // --- finding nodes -----------------------------------------------------

  // findNodes marks the nodes whose label, type, parameters or path
  // contain q (any case) and counts them; the next findNext shows the
  // first. again: the tree was drawn again (collapsed or expanded), and
  // the match shown stays the one findNext goes on from.
  function findNodes(q, again) {
    const want = q.trim().toLowerCase();
    const t = S.tree;
    const was = again && S.find.q === q && S.find.tree === t && S.find.at >= 0 ? S.find.matches[S.find.at] : -1;
    S.find = { q, matches: [], at: -1, tree: t };
    if (want && t) {
      S.find.matches = t.nodes.filter((n) => [n.label, n.type, n.sub || '', n.path || '', n.params ? JSON.stringify(n.params) : '']
        .some((x) => x.toLowerCase().includes(want))).map((n) => n.id);
    }
    if (was >= 0) S.find.at = S.find.matches.indexOf(was);
    const set = new Set(S.find.matches);
    S.nodeEls.forEach((g, i) => g.classList.toggle('match', set.has(i) || (S.hiddenIn.get(i) || []).some((j) => set.has(j))));
    showFindCount();
  }

  function showFindCount() {
    const f = S.find;
    $('#node-find-count').textContent = !f.q.trim() ? '' : f.at >= 0 ? (f.at + 1) + '/' + f.matches.length : String(f.matches.length);
  }

  // findNext selects the next match (step 1) or the previous one (-1) and
  // centres the view on it, at a readable zoom.
  function findNext(step) {
    const f = S.find;
    if (!f.matches.length || !S.tree) return;
    f.at = f.at < 0 && step < 0 ? f.matches.length - 1 : (f.at + step + f.matches.length) % f.matches.length;
    const id = f.matches[f.at];
    showFindCount();
    setFollow(false);
    selectNode(id);
    const svg = $('#tree');
    const [W, H] = sizeOf(svg, 800, 500);
    const n = S.tree.nodes[id];
    const k = Math.max(S.view.k, 0.85);
    panTo({ k, x: W / 2 - n.x * k, y: H / 2 - (n.y + 20) * k }, true);
  }

  // paint colours the nodes from a status string (a letter per node).
  // sizeOf returns an element's client width and height (or the defaults
  // when it has none), as a ResizeObserver keeps them: reading clientWidth
  // right after paint changed the tree's classes would make the browser
  // lay the page out again on every update.
  const sizes = new Map();
  const sizeObserver = new ResizeObserver((entries) => {
    for (const e of entries) sizes.set(e.target, [e.target.clientWidth, e.target.clientHeight]);
  });
  function sizeOf(el, dw, dh) {
    let z = sizes.get(el);
    if (!z) {
      z = [el.clientWidth, el.clientHeight];
      sizes.set(el, z);
      sizeObserver.observe(el);
    }
    return [z[0] || dw || 0, z[1] || dh || 0];
  }

  function paint(letters) {
    const t = S.tree;
    if (!t || !letters) return;
    const found = new Set(S.find.matches);
    const errs = new Set((S.shown && S.shown.errorNodes) || []);
    for (let i = 0; i < t.nodes.length; i++) {
      const ch = letters[i] || '.';
      const low = ch.toLowerCase();
      const st = STATUS[low] || 'never';
      const visited = ch !== low;
      const g = S.nodeEls[i];
      if (!g) continue; // hidden in a collapsed node
      let cls = 'node st-' + st;
      if (!visited && st !== 'never') cls += ' faded';
      if (t.nodes[i].inGuard) cls += ' guardnode';
      if (i === S.selected) cls += ' selected';
      if (i === S.breakNode) cls += ' breakhit';
      if (found.has(i)) cls += ' match';
      if (errs.has(i)) cls += ' errored';
      // A collapsed node carries the marks of the nodes it hides.
      const hidden = S.hiddenIn.get(i);
      if (hidden) {
        if (hidden.some((j) => (letters[j] || '.').toLowerCase() === 'r')) cls += ' inner-running';
        if (!errs.has(i) && hidden.some((j) => errs.has(j))) cls += ' errored';
        if (!found.has(i) && hidden.some((j) => found.has(j))) cls += ' match';
        if (hidden.includes(S.breakNode)) cls += ' breakhit';
      }
      // Only what changed is written: an unchanged attribute would still
      // make the browser restyle the node.
      if (g.getAttribute('class') !== cls) g.setAttribute('class', cls);
      if (g.getAttribute('data-status') !== st) g.setAttribute('data-status', st);
      if (g.getAttribute('data-visited') !== (visited ? '1' : '0')) g.setAttribute('data-visited', visited ? '1' : '0');
      const e = S.edgeEls[i];
      if (e) e.classList.toggle('hot', st === 'running' && visited);
    }
  }

  // --- zoom and pan ------------------------------------------------------

  // applyView draws the view. Any change but a step of an animation
  // (moved === false) stops the animation under way.
  function applyView(moved) {
    if (moved !== false) S.anim++;
    const v = S.view;
    $('#viewport').setAttribute('transform', `translate(${v.x},${v.y}) scale(${v.k})`);
  }

  // fitView is the view showing the whole tree. Centred: a wide, flat
  // tree is a band across the middle, where the zoom buttons (which zoom
  // about the centre) keep it in view.
  function fitView() {
    const svg = $('#tree');
    const [W, H] = sizeOf(svg, 800, 500);
    const t = S.tree;
    let k = Math.min(W / (t.width + 20), (H - 30) / (t.height + 20), 1.4);
    // The view's buttons sit over the top right corner: a tree as wide as
    // to reach under them starts below them.
    let top = 8;
    const [cw, ch] = sizeOf($('#view-controls'));
    if ((W + t.width * k) / 2 > W - 8 - cw) {
      top = 16 + ch;
      k = Math.min(k, Math.max(0.05, (H - 30 - top) / (t.height + 20)));
    }
    return { k, x: (W - t.width * k) / 2, y: Math.max(top, (H - 30 - t.height * k) / 2) };
  }

  function fit() {
    if (!S.tree) return;
    S.view = fitView();
    applyView();
  }

  // focusView is the view that shows the tree at a readable size: all of
  // it when it fits, else centred on node id (the running leaf, or the
  // root). Null without a tree.
  function focusView(id) {
    const svg = $('#tree');
    const [W, H] = sizeOf(svg, 800, 500);
    const t = S.tree;
    if (!t || !t.nodes.length) return null;
    const fitK = Math.min(W / (t.width + 20), (H - 30) / (t.height + 20), 1.4);
    if (fitK >= 0.7) return fitView();
    const n = t.nodes[shownAt(id >= 0 && id < t.nodes.length ? id : 0)];
    const k = Math.max(fitK, 0.85);
    const y = (t.height + 20) * k <= H - 30 ? 8 : Math.min(8, H / 2 - (n.y + 20) * k);
    return { k, x: W / 2 - n.x * k, y };
  }

  // focus shows node id at a readable size (focusView), smoothly or at once.
  function focus(id, smooth) {
    const target = focusView(id);
    if (target) panTo(target, smooth);
  }

  // panTo moves the view to target: at once, or in a short animation that
  // any other change of the view stops.
  function panTo(target, smooth) {
    if (!smooth) {
      S.view = target;
      applyView();
      return;
    }
    const from = Object.assign({}, S.view);
    const t0 = performance.now();
    const anim = ++S.anim;
    S.goal = { view: target, anim };
    const stepAnim = (now) => {
      if (anim !== S.anim) return; // the view changed since
      const f = Math.min(1, (now - t0) / 300);
      const e = f * (2 - f);
      S.view = { k: from.k + (target.k - from.k) * e, x: from.x + (target.x - from.x) * e, y: from.y + (target.y - from.y) * e };
      applyView(false);
      if (f < 1) requestAnimationFrame(stepAnim);
    };
    requestAnimationFrame(stepAnim);
  }

  // viewGoal is where the view is going: the end of the animation under
  // way, or the view.
  function viewGoal() {
    return S.goal && S.goal.anim === S.anim ? S.goal.view : S.view;
  }

  const sameView = (a, b) => Math.abs(a.x - b.x) < 0.5 && Math.abs(a.y - b.y) < 0.5 && Math.abs(a.k - b.k) < 1e-4;

  // inView says whether node id is in view v, clear of its sides by a
  // margin (and above the legend's band at the bottom).
  function inView(id, v) {
    const svg = $('#tree');
    const [W, H] = sizeOf(svg, 800, 500);
    const n = S.tree.nodes[shownAt(id)];
    const m = Math.min(24, W / 10);
    const x0 = v.x + (n.x - n.w / 2) * v.k;
    const y0 = v.y + n.y * v.k;
    const x1 = x0 + n.w * v.k;
    const y1 = y0 + NODE_H * v.k;
    // The view's buttons (top right, 8 px from the corner) hide what is
    // under them.
    const [cw, ch] = sizeOf($('#view-controls'));
    const underButtons = x1 > W - 8 - cw && y0 < 8 + ch;
    return x0 >= m && x1 <= W - m && y0 >= 0 && y1 <= H - 30 && !underButtons;
  }

  function setFollow(on) {
    S.follow = on;
    $('#btn-follow').classList.toggle('on', on);
    if (on && S.shown) followActive(S.shown, true);
  }

  // visitedPath is the path from the root to the deepest node visited in
  // a tick (letters: its node statuses), of several the last in the
  // tree's order (the one that ran last); [] when none was. Guards are
  // left out, as in the running paths.
  function visitedPath(letters) {
    const t = S.tree;
    if (!t || !letters) return [];
    let deepest = -1;
    for (let i = 0; i < t.nodes.length; i++) {
      const ch = letters[i] || '.';
      const n = t.nodes[i];
      if (ch === ch.toLowerCase() || n.inGuard || n.guardOf >= 0) continue;
      if (deepest < 0 || (S.depth[i] || 0) >= (S.depth[deepest] || 0)) deepest = i;
    }
    const path = [];
    for (let i = deepest; i >= 0; i = t.nodes[i].parent) path.unshift(i);
    return path;
  }

  // followActive keeps the first running leaf of tick v in view; when
  // nothing runs (a tree whose actions succeed at once), the deepest node
  // visited in it (visitedPath), so that the branch taken comes into view.
  // The view moves only when the leaf is out of it (or near its sides): a
  // running node that moves within the view does not pan it on every
  // update. It then centres the leaf's parent if that shows the leaf, so
  // that its siblings, which often run next, are in view too; else the
  // leaf. force (Follow clicked): centre it anyway.
  function followActive(v, force) {
    // Paused at a breakpoint, the view stays on the node of the hit.
    if (!S.follow || !S.tree || (S.breakNode >= 0 && !force)) return;
    const paths = v.running || [];
    const path = paths.length ? paths[0] : visitedPath(v.nodes);
    if (!path.length) return;
    const leaf = path[path.length - 1];
    if (leaf === S.followed && !force) return;
    S.followed = leaf;
    const goal = viewGoal();
    if (!force && inView(leaf, goal)) return;
    let target = path.length > 1 ? focusView(path[path.length - 2]) : null;
    if (!target || !inView(leaf, target)) target = focusView(leaf);
    if (target && !sameView(target, goal)) panTo(target, true);
  }

  function zoomAt(px, py, f) {
    const v = S.view;
    const k = Math.min(6, Math.max(Math.min(0.05, S.tree ? fitView().k : 0.05), v.k * f));
    f = k / v.k;
    v.x = px - (px - v.x) * f;
    v.y = py - (py - v.y) * f;
    v.k = k;
    applyView();
  }

  function setupPanZoom() {
    const svg = $('#tree');
    svg.addEventListener('wheel', (e) => {
      e.preventDefault();
      setFollow(false);
      zoomAt(e.offsetX, e.offsetY, Math.exp(-e.deltaY * 0.0015));
    }, { passive: false });
    let drag = null;
    svg.addEventListener('pointerdown', (e) => {
      drag = { x: e.clientX, y: e.clientY, vx: S.view.x, vy: S.view.y, moved: false };
      svg.setPointerCapture(e.pointerId);
    });
    svg.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x;
      const dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3 && !drag.moved) { drag.moved = true; svg.classList.add('dragging'); setFollow(false); }
      S.view.x = drag.vx + dx;
      S.view.y = drag.vy + dy;
      applyView();
    });
    svg.addEventListener('pointerup', (e) => {
      const d = drag;
      drag = null;
      svg.classList.remove('dragging');
      if (d && !d.moved) {
        const target = document.elementFromPoint(e.clientX, e.clientY);
        const fold = target && target.closest('g.fold');
        const g = target && target.closest('g.node');
        if (fold) toggleFold(Number(fold.getAttribute('data-fold')));
        else if (g) selectNode(Number(g.getAttribute('data-id')));
      }
    });
    $('#btn-fit').onclick = () => { setFollow(false); fit(); };
    $('#btn-fold-idle').onclick = foldIdle;
    setupTreeKeys();
    $('#btn-unfold').onclick = unfoldAll;
    $('#btn-follow').onclick = () => setFollow(!S.follow);
    const find = $('#node-find');
    find.addEventListener('input', () => findNodes(find.value));
    // "/" anywhere but in a text field goes to the node finder.
    document.addEventListener('keydown', (e) => {
      const el = document.activeElement;
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || $('#agent-view').hidden ||
        (el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable))) return;
      e.preventDefault();
      find.focus();
      find.select();
    });
    find.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        findNext(e.shiftKey ? -1 : 1);
      } else if (e.key === 'Escape') {
        find.value = '';
        findNodes('');
      }
    });
    $('#btn-zoom-in').onclick = () => { setFollow(false); zoomAt(svg.clientWidth / 2, svg.clientHeight / 2, 1.25); };
    $('#btn-zoom-out').onclick = () => { setFollow(false); zoomAt(svg.clientWidth / 2, svg.clientHeight / 2, 0.8); };
    let resizing = 0;
    window.addEventListener('resize', () => {
      drawStrip();
      // Following, the view keeps the running node (or the whole tree) in
      // the new size.
      cancelAnimationFrame(resizing);
      resizing = requestAnimationFrame(() => {
        if (S.follow && S.tree && !$('#agent-view').hidden) focus(S.breakNode >= 0 ? S.breakNode : S.followed, false);
      });
    });
  }

  // --- opening an agent and the live stream ---------------------------------

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
    // The history starts again: the page shows the agent live.
    Object.assign(S, { tree, treeId: tree.id, selected: -1, followed: -1, timeline: [], shown: null, stats: null, live: true });
    $('#btn-live').classList.add('on');
    drawTree();
    focus(0, false);
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
    $('#agent-label').textContent = a.label || '';
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

  // --- node errors ----------------------------------------------------------

  // renderErrorCount shows the agent's error count: a pill in the agent
  // bar and a badge on the Errors tab.
  function renderErrorCount(a) {
    const n = S.rec ? 0 : a.errors || 0;
    const text = n + ' error' + (n === 1 ? '' : 's');
    const pill = $('#agent-errors');
    pill.hidden = !n;
    pill.textContent = '⚠ ' + text;
    pill.title = text + ' reported for this agent: show them';
    const badge = $('#err-badge');
    badge.hidden = !n;
    badge.textContent = errCountText(n);
    badge.title = text;
  }

  // loadErrors fetches the agent's recent node errors for the Errors tab.
  async function loadErrors() {
    if (S.rec) {
      renderErrors(null);
      return;
    }
    if (S.errLoading || S.agentId == null) return;
    const id = S.agentId;
    S.errLoading = true;
    let r;
    try {
      r = await api('api/agents/' + id + '/errors');
    } catch (err) {
      if (id === S.agentId) $('#errors-note').textContent = 'cannot load the errors: ' + err.message;
      return;
    } finally {
      S.errLoading = false;
    }
    if (id !== S.agentId || S.rec) return;
    renderErrors(r);
    // More came while it loaded: ask again.
    if (S.tab === 'errors' && S.agent && (S.agent.errors || 0) > r.count && !S.errPending) loadErrors();
  }

  // renderErrors lists errors answer r (api/agents/{id}/errors), newest
  // first: game time, tick, node (click: show it) and message. While the
  // pointer is over the list it holds still (an erring node can add an
  // entry every tick, which would move the one about to be clicked); the
  // newest answer is shown when the pointer leaves.
  function renderErrors(r) {
    const ol = $('#errors-list');
    if (r && S.errHover && S.errShown === S.agentId && ol.children.length) {
      S.errPending = r;
      const more = r.count - S.errCount;
      $('#errors-note').textContent = r.count + ' node error' + (r.count === 1 ? '' : 's') + ' since the session began · ' +
        'list held while the pointer is over it' + (more > 0 ? ' (' + more + ' newer)' : '');
      return;
    }
    S.errPending = null;
    S.errShown = r ? S.agentId : null;
    if (r) S.errCount = r.count;
    if (!r) {
      $('#errors-note').textContent = S.rec ? 'A recording keeps the nodes that reported an error in each tick (ringed in red), not the messages.' : '';
      ol.replaceChildren();
      renderErrorsByNode([]);
      return;
    }
    renderErrorsByNode(r.byNode || []);
    $('#errors-note').textContent = !r.count ? 'No node errors reported for this agent.'
      : r.count + ' node error' + (r.count === 1 ? '' : 's') + ' since the session began' +
        (r.count > r.errors.length ? ' · the last ' + r.errors.length + ', newest first' : ', newest first');
    const t = S.tree;
    ol.replaceChildren(...groupErrors(r.errors).map(({ e, n, oldest }) => {
      const known = t && e.node >= 0 && e.node < t.nodes.length;
      const li = h('li', { 'data-node': e.node });
      li.append(h('span', { class: 'muted', text: 't=' + fmtMs(e.nowMs) + ' · tick ' + e.tick + ' ', title: e.at }));
      li.append(h('span', known ? { class: 'err-node', text: fullLabel(e.node), title: e.path + ' (' + e.type + '): show the node',
        onclick: () => { selectNode(e.node); focus(e.node, true); } }
        : { class: 'err-node gone', text: e.path, title: e.type + ' (not in the tree shown)' }));
      if (n > 1) {
        li.append(h('span', { class: 'err-rep', text: ' ×' + n,
          title: n + ' times in the list, since tick ' + oldest.tick + ' (t=' + fmtMs(oldest.nowMs) + ')' }));
      }
      li.append(h('div', { class: 'err-msg', text: e.message }));
      return li;
    }));
  }

  // renderErrorsByNode lists the nodes that reported errors since watching
  // began, most first, with their counts (byNode: [[node, count]]); a
  // click shows the node.
  function renderErrorsByNode(byNode) {
    const box = $('#errors-by');
    const t = S.tree;
    const rows = byNode.filter(([id]) => t && id >= 0 && id < t.nodes.length).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    box.hidden = !rows.length;
    const key = JSON.stringify(rows);
    if (box.dataset.shown === key) return;
    box.dataset.shown = key;
    // Nodes of the same label are told apart by their number.
    const seen = new Map();
    for (const [id] of rows) seen.set(fullLabel(id), (seen.get(fullLabel(id)) || 0) + 1);
    const name = (id) => fullLabel(id) + (seen.get(fullLabel(id)) > 1 ? ' #' + id : '');
    box.replaceChildren(h('span', { class: 'muted', text: 'By node, since watching: ' }), ...rows.flatMap(([id, n], k) => [
      k ? h('span', { class: 'muted', text: ' · ' }) : null,
      h('span', { class: 'err-node', 'data-node': id, text: name(id), title: t.nodes[id].path + ': show the node',
        onclick: () => { selectNode(id); focus(id, true); } }),
      h('span', { class: 'err-rep', text: ' ×' + n }),
    ]).filter(Boolean));
  }

  // groupErrors folds the errors of the list (newest first) that are the
  // same (node and message: a node that errs on every tick, or several
  // that take turns) into one entry, where the newest of them is: e that
  // newest, n how many, oldest the first of them.
  function groupErrors(errors) {
    const out = [];
    const byKey = new Map();
    for (const e of errors) {
      const key = e.node + '\n' + e.path + '\n' + e.message;
      const g = byKey.get(key);
      if (g) {
        g.n++;
        g.oldest = e;
      } else {
        const first = { e, n: 1, oldest: e };
        byKey.set(key, first);
        out.push(first);
      }
    }
    return out;
  }

  // --- breakpoints --------------------------------------------------------

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
      const dot = s('circle', { class: 'bp-dot', 'data-node': group[0].node, cx: n.x - n.w / 2, cy: n.y + 20, r: 6 });
      const title = s('title');
      title.textContent = group.map((b) => hiddenNote(b.node) + 'breakpoint: ' + b.on.join(', ')).join('\n');
      dot.append(title);
      return dot;
    }));
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
      const cb = h('input', { type: 'checkbox', 'data-event': ev, onchange: () => setBreakpoint(n.id) });
      cb.checked = on.has(ev);
      cb.disabled = !ctl || !S.token;
      box.append(h('label', { title: !ctl ? 'needs controls' : !S.token ? NEED_TOKEN : 'Pause the agent at the end of a tick where this node emits ' + ev }, cb, ev));
    }
    box.append(h('p', { class: 'muted', text: ctl
      ? 'The agent pauses at the end of the tick; Resume or Step go on.'
      : 'Breakpoints need controls: the program sets debug.Options{Controls: true}.' }));
  }

  async function setBreakpoint(id) {
    const on = Array.from(document.querySelectorAll('#bp-box input:checked')).map((c) => c.dataset.event);
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

  // --- forced results -------------------------------------------------------

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

  // show renders one tick (live or from the history).
  function show(v) {
    S.shown = v;
    renderHit(false);
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
    const text = mode + ' · ' + (v.seq ? 'record ' + v.seq + ' · tick ' + (tick != null ? tick : '?') +
      ' · t=' + fmtMs(v.nowMs) + ' · root ' + v.status + (v.between ? ' · between ticks' : '') +
      ' · ' + (v.events ? v.events.length : 0) + ' events' : 'no ticks recorded yet') + (v.note ? ' · ' + v.note : '');
    const lbl = $('#tl-label');
    lbl.textContent = text;
    lbl.title = text;
    drawStrip();
  }

  // --- running now -------------------------------------------------------

  function renderRunning(paths) {
    const ol = $('#running-list');
    const key = JSON.stringify(paths) + ':' + S.treeId;
    if (ol.dataset.shown === key) return; // unchanged: nothing to redraw
    ol.dataset.shown = key;
    if (!paths.length) {
      ol.replaceChildren(h('li', { class: 'muted none', text: 'nothing running' }));
      return;
    }
    ol.replaceChildren(...paths.map((p) => {
      const li = h('li', {});
      p.forEach((id, k) => {
        if (k) li.append(h('span', { class: 'sep', text: '›' }));
        li.append(h('span', { class: 'crumb' + (k === p.length - 1 ? ' leaf' : ''), text: label(id), 'data-node': id }));
      });
      return li;
    }));
  }

  // setupNodeLists: the lists redrawn on updates (running paths, events,
  // statistics) select a node when the pointer is pressed on it, not on
  // click: the element pressed may be redrawn before the release, and the
  // browser would drop the click.
  function setupNodeLists() {
    for (const sel of ['#running-list', '#events-list', '#stats-table tbody']) {
      $(sel).addEventListener('pointerdown', (e) => {
        const el = e.button === 0 && e.target.closest('[data-node]');
        if (el) selectNode(Number(el.dataset.node));
      });
    }
  }

  // --- blackboard --------------------------------------------------------

  // setText sets an element's text (and title) when they change: a value
  // that stays can be selected and copied while the agent runs.
  function setText(el, text, title) {
    if (el.textContent !== text) el.textContent = text;
    if (title != null && el.title !== title) el.title = title;
  }

  // renderBB shows the blackboard. Rows are kept by key and updated in
  // place.
  function renderBB(v) {
    const now = v.nowMs;
    const fill = (sel, rows, scope) => {
      const tb = $(sel + ' tbody');
      if (!rows || !rows.length) {
        if (!tb.querySelector('td.empty')) tb.replaceChildren(h('tr', {}, h('td', { colspan: 4, class: 'muted empty', text: 'empty' })));
        return;
      }
      const old = new Map();
      for (const tr of tb.children) if (tr.dataset.key != null) old.set(tr.dataset.key, tr);
      const out = rows.map((e) => {
        const id = scope + e.key;
        const changed = S.prevBB.has(id) && S.prevBB.get(id) !== e.text;
        S.prevBB.set(id, e.text);
        let exp = '';
        if (e.expiresMs != null) {
          const left = e.expiresMs - now;
          exp = left >= 0 ? 'in ' + fmtMs(left) : 'expired';
        }
        const shown = typeof e.value === 'number' ? fmtNum(e.value) : e.text;
        let tr = old.get(e.key);
        if (!tr) {
          tr = h('tr', { 'data-key': e.key }, h('td', { text: e.key, title: e.key }), h('td', { class: 'muted' }),
            h('td', { class: 'v' }), h('td', { class: 'muted' }));
        }
        const [, type, value, expires] = tr.children;
        setText(type, e.type, e.type);
        setText(value, shown, e.text);
        setText(expires, exp);
        tr.classList.toggle('changed', changed);
        return tr;
      });
      if (out.length !== tb.children.length || out.some((tr, i) => tb.children[i] !== tr)) tb.replaceChildren(...out);
    };
    fill('#bb-agent', v.agentScope, 'a:');
    fill('#bb-global', v.globalScope, 'g:');
  }

  // --- node details and statistics ----------------------------------------

  function selectNode(id) {
    reveal(id);
    S.selected = id;
    if (S.shown) paint(S.shown.nodes);
    setTab('node');
  }

  function statRow(i) {
    return S.stats && S.stats[i] ? S.stats[i] : [0, 0, 0, 0, 0, 0, 0, 0];
  }

  function renderNode() {
    const box = $('#node-info');
    const t = S.tree;
    if (!t || S.selected < 0 || S.selected >= t.nodes.length) {
      box.replaceChildren(h('p', { class: 'muted', text: 'Click a node in the tree.' }));
      $('#node-params').replaceChildren();
      renderBreakpointBox(null);
      renderForceBox(null);
      return;
    }
    const n = t.nodes[S.selected];
    const st = statRow(n.id);
    const letter = (S.shown && S.shown.nodes && S.shown.nodes[n.id]) || '.';
    // As the legend says: a node with no status yet is idle.
    const status = letter === '.' ? 'idle (not run since watching began)'
      : STATUS[letter.toLowerCase()] + (letter !== letter.toLowerCase() ? ' (this tick)' : ' (earlier tick)');
    const dl = h('dl', { class: 'node-info' });
    const add = (k, v) => { if (v !== '' && v != null) dl.append(h('dt', { text: k }), h('dd', { text: String(v) })); };
    add('label', n.label);
    add('type', n.type);
    add('id', n.id);
    add('path', n.path);
    add('status', n.inGuard ? status + ', guard condition (evaluated, no running state)' : status);
    add('abort', n.abort || '');
    const forced = forcedOf(n.id);
    if (forced) add('forced', forced + ' (not run: ticked, it returns ' + forced + ')');
    if (n.guard >= 0) add('guard', label(n.guard) + ' (#' + n.guard + ')');
    if (n.guardOf >= 0) add('guards', label(n.guardOf) + ' (#' + n.guardOf + ')');
    add('counts', statsSpan().toLowerCase());
    add('ticks', st[0]);
    add('successes', st[1]);
    add('failures', st[2]);
    add('running', st[3]);
    add('starts', st[4]);
    add('halts', st[5]);
    add('aborts', st[6]);
    add('time', (st[7] / 1000).toFixed(3) + ' ms' + (st[0] ? ' · ' + (st[7] / st[0]).toFixed(2) + ' µs/tick' : ''));
    box.replaceChildren(h('h4', { text: 'Node' }), dl);
    renderBreakpointBox(n);
    renderForceBox(n);
    $('#node-params').replaceChildren(...(n.params ? [h('h4', { text: 'Parameters' }), h('pre', { text: JSON.stringify(n.params, null, 2) })] : []));
  }

  // fmtCount shows a count in at most 4 characters (1234, 12k, 123k,
  // 1.2M): a statistics column stays narrow; the cell's title has it all.
  function fmtCount(n) {
    if (!(Math.abs(n) >= 10000)) return String(n);
    for (const [u, sfx] of [[1e3, 'k'], [1e6, 'M'], [1e9, 'G'], [1e12, 'T']]) {
      const v = Math.abs(n) / u;
      const txt = v < 9.95 ? v.toFixed(1) : String(Math.round(v));
      if (Number(txt) < 1000) return (n < 0 ? '-' : '') + txt + sfx;
    }
    return n.toExponential(0);
  }

  // fmtAmount is fmtCount for a time: 5.21, 52.1, 5213, 12k.
  function fmtAmount(v) {
    if (v < 9.995) return v.toFixed(2);
    if (v < 99.95) return v.toFixed(1);
    return fmtCount(Math.round(v));
  }

  // statsSpan says which ticks the statistics count: from the first
  // watched to the newest (or the last exported), whatever tick is shown.
  function statsSpan() {
    if (S.rec) return 'Since watching began, up to the export (not only to the tick shown)';
    return S.live ? 'Since watching began' : 'Since watching began, up to now (not only to the tick shown)';
  }

  // grouped writes a number in full, digits grouped: 1,728,000.
  const groupFmt = [0, 1, 2].map((d) => new Intl.NumberFormat('en-US', { maximumFractionDigits: d }));
  const grouped = (v, digits) => groupFmt[digits || 0].format(v);

  function renderStats() {
    const t = S.tree;
    const tb = $('#stats-table tbody');
    if (!t) return;
    $('#stats-note').textContent = statsSpan() + '. Time is wall time inside each node\'s ticks (children included). Point at a number for all its digits.';
    const ids = t.nodes.filter((n) => !n.inGuard).map((n) => n.id);
    const key = S.statsSort;
    for (const th of document.querySelectorAll('#stats-table th[data-sort]')) th.classList.toggle('sorted', th.dataset.sort === key);
    if (key !== 'id') {
      ids.sort((a, b) => {
        const x = statRow(a);
        const y = statRow(b);
        if (key === 'avg') return (y[0] ? y[7] / y[0] : 0) - (x[0] ? x[7] / x[0] : 0);
        return y[Number(key)] - x[Number(key)];
      });
    }
    const count = (v, what) => h('td', { text: fmtCount(v), title: grouped(v) + ' ' + what });
    tb.replaceChildren(...ids.map((i) => {
      const r = statRow(i);
      const pad = key === 'id' ? '\u00a0\u00a0'.repeat(S.depth[i] || 0) : '';
      const ms = r[7] / 1000;
      const avg = r[0] ? r[7] / r[0] : null;
      return h('tr', { class: i === S.selected ? 'sel' : '', 'data-node': i },
        h('td', { text: pad + fullLabel(i), title: fullLabel(i) }), count(r[0], 'ticks'), count(r[1], 'successes'), count(r[2], 'failures'),
        count(r[5], 'halts'), h('td', { text: fmtAmount(ms), title: grouped(ms, 2) + ' ms in its ticks' }),
        h('td', { text: avg == null ? '' : fmtAmount(avg), title: avg == null ? '' : grouped(avg, 1) + ' µs per tick' }));
    }));
  }

  // renderEvents lists the events of the tick shown, those the filter
  // matches (words all found in the kind, the node's label and path, the
  // status), with a count when the filter hides some.
  function renderEvents() {
    const ol = $('#events-list');
    const v = S.shown;
    const all = (v && v.events) || [];
    const words = $('#events-filter').value.toLowerCase().split(/\s+/).filter(Boolean);
    const t = S.tree;
    const shown = !words.length ? all : all.filter((e) => {
      const n = t && t.nodes[e.node];
      const text = [e.kind, fullLabel(e.node), n ? n.path : '', e.status || ''].join(' ').toLowerCase();
      return words.every((w) => text.includes(w));
    });
    $('#events-count').textContent = words.length && all.length ? shown.length + ' of ' + all.length : '';
    if (!shown.length) {
      ol.replaceChildren(h('li', { class: 'muted', text: all.length ? 'no event of this tick matches the filter' : 'no events in this tick' }));
      return;
    }
    ol.replaceChildren(...shown.map((e) => {
      const li = h('li', { 'data-node': e.node });
      li.append(h('span', { class: 'muted', text: '+' + e.atUs.toFixed(1) + 'µs ' }));
      li.append(h('span', { class: 'k-' + e.kind, text: e.kind + ' ' }));
      li.append(document.createTextNode(fullLabel(e.node)));
      if (e.status) li.append(h('span', { class: 's-' + e.status, text: ' → ' + e.status }));
      if (e.cond != null) li.append(h('span', { class: 'muted', text: ' (condition ' + label(e.cond) + ' changed)' }));
      return li;
    }));
  }

  function setTab(name) {
    S.tab = name;
    for (const b of document.querySelectorAll('.tabs button')) b.classList.toggle('on', b.dataset.tab === name);
    for (const t of ['bb', 'node', 'stats', 'events', 'errors']) $('#tab-' + t).hidden = t !== name;
    if (name === 'node') renderNode();
    if (name === 'errors') loadErrors();
    if (name === 'stats') renderStats();
    if (name === 'events') renderEvents();
  }

  // --- timeline -----------------------------------------------------------

  function setLive(on) {
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
    fetchRecord(seq, 50);
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

  // Keys, anywhere but in a field: ← and → go through the history a tick
  // at a time, End goes live; with controls, Space pauses or resumes the
  // agent, S steps it and P pauses or resumes them all. On a button, a
  // link or a checkbox focused from the keyboard, Space and Enter are
  // theirs; a button clicked with the mouse lets the focus go
  // (setupClickBlur), so the keys work after a click on ◀ or Step.
  function setupKeys() {
    document.addEventListener('keydown', (e) => {
      const el = document.activeElement;
      if (e.ctrlKey || e.metaKey || e.altKey || (el && isField(el))) return;
      if (el && el.closest('button, a, input, summary') && (e.key === ' ' || e.key === 'Enter')) return;
      // P: every agent, with or without one shown.
      if (e.key.toLowerCase() === 'p') {
        if ($('#world-ctl').hidden || $('#btn-pause-all').disabled) return;
        controlAll($('#btn-pause-all').dataset.op || 'pause');
        e.preventDefault();
        return;
      }
      if ($('#agent-view').hidden) return;
      // Collapsing needs a tree only; the others a history.
      const fold = { c: foldIdle, e: unfoldAll }[e.key.toLowerCase()];
      if (fold && S.tree) {
        fold();
        e.preventDefault();
        return;
      }
      if (!S.latest) return;
      switch (e.key) {
        case 'ArrowLeft': scrubTo(shownSeq() - 1); break;
        case 'ArrowRight': scrubTo(shownSeq() + 1); break;
        case 'End': setLive(true); break;
        case ' ':
          if (!canControl() || !S.token) return;
          control(S.agent && S.agent.paused ? 'resume' : 'pause');
          break;
        case 's':
          if (!canControl() || !S.token) return;
          control('step');
          break;
        default: return;
      }
      e.preventDefault();
    });
  }

  // isField reports whether el takes keys for itself: text fields, lists,
  // and the inputs that arrows move (radio buttons, the slider).
  function isField(el) {
    if (el.isContentEditable || el.closest('textarea, select')) return true;
    return el.tagName === 'INPUT' && !/^(checkbox|button|submit|reset)$/.test(el.type);
  }

  // setupClickBlur: a button (or link, tab, checkbox) clicked with the
  // mouse does not keep the focus, which would take the page's keys (and
  // Space would press it again); one reached with Tab keeps it.
  function setupClickBlur() {
    document.addEventListener('click', (e) => {
      if (!e.detail) return; // from the keyboard
      const el = e.target.closest && e.target.closest('button, a, input[type=checkbox], summary');
      if (el && document.activeElement === el) el.blur();
    });
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
      S.errHover = false;
      if (S.errPending) renderErrors(S.errPending);
    };
    $('#btn-live').onclick = () => setLive(true);
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
      const title = !t ? (S.timeline.length && !S.rec ? 'click: the live tick' : '') : 'record ' + t[0] + ' · tick ' + t[1] + ' · t=' + fmtMs(t[2]) + ' · ' +
        (t[5] ? 'between ticks' : names[t[3]] || 'no result') + ' · ' + t[4] + ' events' +
        (marks & MARK_HALTED ? ' · a running node halted' : '') + (marks & MARK_ERROR ? ' · node error' : '');
      if (strip.title !== title) strip.title = title;
    });
  }

  // --- controls -----------------------------------------------------------

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

  // --- recordings ---------------------------------------------------------

  // canControl says whether the page may act on the agent: the session
  // has controls and the page shows it live, not a recording.
  function canControl() {
    return !!(S.session && S.session.controls) && !S.rec && !(S.agent && S.agent.removed);
  }

  const isIndex = (x, n) => Number.isInteger(x) && x >= 0 && x < n;
  const isObject = (x) => !!x && typeof x === 'object' && !Array.isArray(x);

  // checkLetters checks a status string: a letter per node, upper case
  // (visited in the tick) only where visited is allowed.
  function checkLetters(st, n, visited, what) {
    if (typeof st !== 'string' || st.length !== n) throw new Error(what + ': want a status letter for each of the ' + n + ' nodes');
    const bad = st.search(visited ? /[^rsfh.RSFH]/ : /[^rsfh.]/);
    if (bad >= 0) throw new Error(what + ': node ' + bad + ': bad status letter "' + st[bad] + '"');
  }

  // checkTree checks that the nodes are numbered in pre-order from a
  // root, each linked to nodes of the tree consistently.
  function checkTree(t) {
    if (!isObject(t) || !Array.isArray(t.nodes) || !t.nodes.length) throw new Error('tree: no nodes');
    const ns = t.nodes;
    const n = ns.length;
    const bad = (i, what) => { throw new Error('tree: node ' + i + ': ' + what); };
    ns.forEach((nd, i) => { if (!isObject(nd)) bad(i, 'not an object'); });
    ns.forEach((nd, i) => {
      if (nd.id !== i) bad(i, 'id ' + nd.id);
      if (i === 0 && (nd.parent !== -1 || nd.guardOf !== -1)) bad(i, 'not the root');
      if (!(nd.parent === -1 || isIndex(nd.parent, i))) bad(i, 'parent ' + nd.parent + ' is not an earlier node');
      if (!(nd.guardOf === -1 || isIndex(nd.guardOf, i))) bad(i, 'guards ' + nd.guardOf + ', not an earlier node');
      if (nd.guard !== -1 && !(isIndex(nd.guard, n) && nd.guard > i && ns[nd.guard].guardOf === i)) bad(i, 'bad guard ' + nd.guard);
      if (!Array.isArray(nd.children)) bad(i, 'no children list');
      for (const c of nd.children) if (!(isIndex(c, n) && c > i && ns[c].parent === i)) bad(i, 'bad child ' + c);
      if (![nd.x, nd.y, nd.w].every(Number.isFinite) || typeof nd.label !== 'string') bad(i, 'no position or label');
    });
    if (!Number.isFinite(t.width) || !Number.isFinite(t.height)) throw new Error('tree: no size');
    return n;
  }

  // checkTick checks one recorded tick of a tree of n nodes.
  function checkTick(tk, n, prev, i) {
    const at = 'ticks[' + i + ']';
    if (!isObject(tk) || !Number.isInteger(tk.seq) || tk.seq < 1) throw new Error(at + ': no record number');
    if (prev && tk.seq !== prev.seq + 1) throw new Error('ticks: record ' + tk.seq + ' follows record ' + prev.seq + ' (want consecutive records)');
    checkLetters(tk.nodes, n, true, at + ' (record ' + tk.seq + ') nodes');
    if (!['running', 'success', 'failure', 'invalid'].includes(tk.status)) throw new Error(at + ': bad root status');
    if (!Number.isInteger(tk.tick) || !Number.isFinite(tk.nowMs)) throw new Error(at + ': no tick number or time');
    if (tk.running != null && !(Array.isArray(tk.running) && tk.running.every((p) => Array.isArray(p) && p.every((x) => isIndex(x, n))))) {
      throw new Error(at + ': bad running paths');
    }
    const kinds = ['start', 'result', 'halt', 'abort', 'eval'];
    const goodEvent = (e) => isObject(e) && kinds.includes(e.kind) && isIndex(e.node, n) && (e.cond == null || isIndex(e.cond, n)) && Number.isFinite(e.atUs);
    if (tk.events != null && !(Array.isArray(tk.events) && tk.events.every(goodEvent))) throw new Error(at + ': bad events');
    for (const scope of ['agentScope', 'globalScope']) {
      const rows = tk[scope];
      if (rows != null && !(Array.isArray(rows) && rows.every((e) => isObject(e) && typeof e.key === 'string'))) throw new Error(at + ': bad ' + scope);
    }
  }

  // checkRecording throws an Error naming the first problem of a
  // recording (what debug.LoadRecording checks on the server).
  function checkRecording(d) {
    if (!isObject(d)) throw new Error('want a JSON object');
    if (typeof d.format !== 'string' || !d.format) throw new Error('no format field (want "' + FORMAT + '")');
    if (d.format !== FORMAT) throw new Error('format "' + d.format.slice(0, 40) + '", want "' + FORMAT + '"');
    for (const k of ['agent', 'tree', 'base', 'ticks']) if (d[k] == null) throw new Error('missing ' + k);
    if (!isObject(d.agent) || !Number.isInteger(d.agent.id)) throw new Error('agent: no id');
    const n = checkTree(d.tree);
    if (!Array.isArray(d.ticks)) throw new Error('ticks: want a list');
    // An agent nobody watched has no ticks and no statuses.
    if (!(d.base === '' && !d.ticks.length)) checkLetters(d.base, n, false, 'base');
    d.ticks.forEach((tk, i) => checkTick(tk, n, d.ticks[i - 1], i));
    const rows = d.stats && d.stats.nodes;
    if (rows != null && !(Array.isArray(rows) && (rows.length === 0 || rows.length === n) &&
      rows.every((r) => Array.isArray(r) && r.length === 8 && r.every(Number.isFinite)))) {
      throw new Error('stats: want 8 numbers for each node');
    }
  }

  function fileError(msg) {
    $('#file-error-text').textContent = msg || '';
    $('#file-error').hidden = !msg;
  }

  // openRecording shows a recording d (checked first: on a bad one it
  // throws and the page stays as it was), read-only.
  function openRecording(d, name) {
    checkRecording(d);
    if (!S.rec) S.liveAgent = S.agentId;
    if (S.es) S.es.close();
    S.es = null;
    clearTimeout(S.scrubTimer);
    const ticks = d.ticks;
    S.rec = { name, data: d };
    document.body.classList.add('recording');
    renderWorldControls(false); // hidden: a recording has nothing to control
    fileError('');
    notice('');
    setConn('recording');
    const a = Object.assign({}, d.agent, { paused: false, breakpoints: [], lastBreak: null, forces: [] });
    a.treeName = typeof a.treeName === 'string' ? a.treeName : String(d.tree.name || '');
    S.agentId = a.id;
    S.agent = a;
    S.tree = d.tree;
    S.treeId = null; // going back to live loads the agent's tree again
    S.selected = -1;
    S.followed = -1;
    S.prevBB = new Map();
    S.stats = (d.stats && d.stats.nodes) || [];
    S.live = false;
    $('#btn-live').classList.remove('on');
    const letter = { running: 'r', success: 's', failure: 'f' };
    const marks = (t) => ((t.errorNodes || []).length ? MARK_ERROR : 0) |
      ((t.events || []).some((e) => e.kind === 'halt' || e.kind === 'abort') ? MARK_HALTED : 0);
    S.timeline = ticks.map((t) => [t.seq, t.tick, t.nowMs, letter[t.status] || '.', (t.events || []).length, t.between ? 1 : 0, marks(t)]);
    S.latest = ticks.length ? { first: ticks[0].seq, seq: ticks[ticks.length - 1].seq } : null;
    renderRecBar();
    $('#agent-list').replaceChildren(agentItem(a, h('span', { class: 'rec-mark', text: 'REC', title: 'recorded' })));
    rovingTab($('#agent-list'), null);
    $('#list-info').textContent = 'recorded agent · ' + ticks.length + ' ticks';
    $('#more').hidden = true;
    $('#tree-counts').replaceChildren();
    $('#clock').textContent = ticks.length
      ? 'recorded ticks ' + ticks[0].tick + '–' + ticks[ticks.length - 1].tick + ' · t=' + fmtMs(ticks[ticks.length - 1].nowMs)
      : 'no recorded ticks';
    $('#empty').hidden = true;
    $('#missing').hidden = true;
    $('#agent-view').hidden = false;
    drawTree();
    focus(0, false);
    renderAgentBar(a);
    const r = $('#tl-range');
    r.min = S.latest ? S.latest.first : 0;
    r.max = S.latest ? S.latest.seq : 0;
    if (S.latest) {
      scrubTo(S.latest.seq);
    } else {
      show({ seq: 0, nowMs: a.nowMs, status: a.status, nodes: d.base || '.'.repeat(d.tree.nodes.length), running: [], events: [], agentScope: [], globalScope: [] });
      $('#tl-label').textContent = 'recording · no ticks recorded (the agent was not watched)';
    }
    if (S.tab === 'stats') renderStats();
  }

  function renderRecBar() {
    const r = S.rec;
    $('#rec-bar').hidden = !r;
    if (!r) return;
    const raw = typeof r.data.exported === 'string' ? r.data.exported : '';
    const at = new Date(raw);
    const when = raw && !isNaN(at) ? at.toLocaleString() : raw;
    $('#rec-text').textContent = 'Recording: ' + r.name + (when ? ', exported ' + when : '') + ' · read-only';
    // Back to live only where a live session serves the page.
    $('#btn-close-rec').hidden = !S.session || !!S.session.recording;
  }

  // closeRecording goes back to the live session, and to the agent shown
  // before the recording.
  function closeRecording() {
    if (!S.rec) return;
    S.rec = null;
    document.body.classList.remove('recording');
    fileError('');
    renderRecBar();
    Object.assign(S, { agentId: null, agent: null, tree: null, treeId: null, timeline: [], latest: null, shown: null, stats: null });
    $('#viewport').replaceChildren();
    $('#agent-view').hidden = true;
    $('#empty').hidden = false;
    $('#btn-export').hidden = false;
    $('#btn-live').hidden = false;
    if (S.session) renderSummary(S.session);
    loadAgents();
    const back = S.liveAgent;
    S.liveAgent = null;
    if (back != null) openAgent(back);
    else connect();
  }

  // openFile opens a recording the user picked or dropped.
  async function openFile(file) {
    if (!file) return;
    try {
      const text = await file.text();
      let d;
      try {
        d = JSON.parse(text.replace(/^\uFEFF/, ''));
      } catch (err) {
        throw new Error('not JSON (' + err.message + ')');
      }
      openRecording(d, file.name);
    } catch (err) {
      fileError('Cannot open ' + file.name + ': ' + err.message);
    }
  }

  function setupRecordings() {
    $('#open-file').addEventListener('change', (e) => {
      const f = e.target.files && e.target.files[0];
      e.target.value = ''; // the same file can be picked again
      openFile(f);
    });
    $('#btn-close-rec').onclick = closeRecording;
    $('#btn-file-error').onclick = () => fileError('');
    // Drag and drop of a file anywhere on the page.
    const files = (e) => !!e.dataTransfer && Array.from(e.dataTransfer.types || []).includes('Files');
    let over = 0;
    const hint = (on) => { $('#drop-hint').hidden = !on; };
    document.addEventListener('dragenter', (e) => { if (files(e)) { e.preventDefault(); over++; hint(true); } });
    document.addEventListener('dragover', (e) => { if (files(e)) { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; } });
    document.addEventListener('dragleave', (e) => { if (files(e) && --over <= 0) { over = 0; hint(false); } });
    document.addEventListener('drop', (e) => {
      if (!files(e)) return;
      e.preventDefault();
      over = 0;
      hint(false);
      openFile(e.dataTransfer.files[0]);
    });
  }

  // --- start --------------------------------------------------------------

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
    setupNodeLists();
    setupAgentListKeys();
    setupAgentListClicks();
    setupTimeline();
    setupControls();
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
    if (want != null) openAgent(want);
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
})();
