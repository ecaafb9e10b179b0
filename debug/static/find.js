// Finding nodes: the node finder's matches and going through them.
'use strict';

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
