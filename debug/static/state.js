// Arbor debugger page: plain JavaScript, no build step. It talks to the
// JSON API beside it (relative URLs, so the debugger can be mounted under
// any prefix) and follows one agent over Server-Sent Events.
//
// The page is split into classic scripts, which index.html loads in order
// and which share one scope: each file's top-level functions and constants
// (and the state S) are the page's globals, used by the other files (so
// focus() here is the page's own, over window.focus). Only start.js,
// loaded last, calls anything; the others declare functions and constants.
// Not ES modules: the parts call one another in every direction over one
// state object (the tree, the timeline and the tabs redraw each other),
// and import lists would only restate that.
//
// This file holds the page's state (S) and the constants the files share.
'use strict';

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
  lr: false, // the tree is drawn left to right, not top-down (the layout button)
  // The agent list's query and filters; total: the agents in the session;
  // treeName: the name of the tree filtered by, treeIds: the trees of the
  // last list (a filter follows its tree to a new id: loadAgents).
  list: { q: '', tree: '', treeName: '', treeIds: new Set(), status: '', limit: 200, total: 0 },
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
  edit: null, // the node whose Edit form is open: { tree, node } (edit.js)
  editKey: '', // what the Node tab's parameters show
  editNote: null, // the answer of the last edit: { tree, path, text }, shown with the node's parameters
  shapeForm: null, // the node whose shape form is open: { tree, node, op } (shape.js)
  nodeDrag: null, // the node being dragged to a new place, and where it would go (drag.js)
  shapeKey: '', // what the Node tab's Shape section shows
  shapeNote: null, // the answer of the last shape edit or undo: { tree, text }
  shapeLast: {}, // the type last picked to add ('add'), to wrap with ('wrap') and to guard with ('guard')
  shapeFocus: null, // { op, tree }: op's button gets the focus once the page shows tree, the edit's
  editHint: null, // an edit's answer waiting for its tree: { from, to, ids, sel } (switchTree)
  dlTree: null, // the tree Download tree was set up for
  dlName: '', // and its name
  errCount: -1, // the agent's error count the Errors tab shows (-1: not loaded)
  errLoading: false, // an errors request is under way
  errShown: null, // the agent whose errors the list shows
  errHover: false, // the pointer is over the errors list, or it has the focus: it then holds still
  errPending: null, // the errors answer held back while errHover
  nodeHist: null, // the selected node's history, as held (node-history.js)
  // Playback (playback.js): stepping is true while a step of playback
  // scrubs (scrubTo and setLive then do not stop it); since is when the
  // record waited for was asked for.
  play: { on: false, speed: 1, timer: 0, stepping: false, since: 0 },
};
const FORMAT = 'arbor-debug/1'; // the format of a recording
// Marks of a tick in the timeline (debug/handler.go: markError, markHalted).
const MARK_ERROR = 1; // a node reported an error
const MARK_HALTED = 2; // a running node was halted or aborted: the running branch changed
// The tree's layout (in SVG units), as the server's (debug/layout.go).
const NODE_H = 40;
const LEVEL_GAP = 70;
const SIBLING_GAP = 16;
// Left to right (the page's own: the server lays trees out top-down): the
// gap between the levels' columns, and between siblings stacked in one.
const COLUMN_GAP = 60;
const ROW_GAP = 12;
