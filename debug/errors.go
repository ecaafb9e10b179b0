package debug

import (
	"sync"
	"time"

	"github.com/arborbt/arbor"
)

// ErrorHistory is how many node errors the session keeps per agent (the
// newest); older ones are only counted.
const ErrorHistory = 20

// maxPending bounds the nodes that errored in one tick of a watched agent,
// as its record keeps them.
const maxPending = 64

// nodeErr is one node error as the session keeps it.
type nodeErr struct {
	seq  uint64 // session-wide, from 1
	tick uint64 // the session's tick in which it happened (the tick under way)
	now  time.Duration
	wall time.Time
	tree *arbor.Tree // the agent's tree when it happened: node is one of its nodes
	node int32       // -1 when the path names no node of tree
	path string
	typ  string
	name string
	msg  string
}

// agentErrs are the errors of one agent: a ring of the newest, a count,
// and for a watched agent per-node counts and the nodes that errored since
// its last record.
type agentErrs struct {
	agent   *arbor.Agent
	count   uint64
	ring    [ErrorHistory]nodeErr
	head    int // next slot to write
	n       int
	tree    *arbor.Tree // the tree byNode counts nodes of
	byNode  []uint64
	pending []int32
}

// errorLog holds the node errors reported to a session. It has a lock of
// its own: errors are reported from the workers that tick agents, while
// the session lock is held by the goroutine waiting for them.
type errorLog struct {
	mu      sync.Mutex
	seq     uint64
	tick    uint64 // the session's tick under way (or last)
	agents  map[int]*agentErrs
	watched map[int]bool
	paths   map[*arbor.Tree]map[string]int32
}

func newErrorLog() *errorLog {
	return &errorLog{agents: map[int]*agentErrs{}, watched: map[int]bool{}, paths: map[*arbor.Tree]map[string]int32{}}
}

// ReportError records a node error for the page: pass it as (or call it
// from) the manager's or agents' error handler,
//
//	arbor.WithManagerErrorHandler(func(e *arbor.NodeError) { sess.ReportError(e) })
//
// or use Session.ErrorHandler. It is safe to call from several goroutines
// at once (the manager's workers), takes a lock of its own (never the
// session's) for a few hundred nanoseconds, and keeps per agent the last
// ErrorHistory errors and a count; memory does not grow with the number
// of errors. A nil session or error does nothing.
func (s *Session) ReportError(e *arbor.NodeError) {
	if s == nil || e == nil || e.Agent == nil {
		return
	}
	a := e.Agent
	t := a.Tree()
	msg := "<nil>"
	if e.Err != nil {
		msg = truncate(e.Err.Error(), 500)
	}
	wall := time.Now()
	l := s.errs
	l.mu.Lock()
	defer l.mu.Unlock()
	node := l.nodeOf(t, e.Path)
	ae := l.agents[a.ID()]
	if ae == nil || ae.agent != a {
		ae = &agentErrs{agent: a}
		l.agents[a.ID()] = ae
	}
	l.seq++
	ae.count++
	ae.ring[ae.head] = nodeErr{seq: l.seq, tick: l.tick, now: e.Time, wall: wall, tree: t, node: node,
		path: e.Path, typ: e.Type, name: e.Name, msg: msg}
	ae.head = (ae.head + 1) % ErrorHistory
	ae.n = min(ae.n+1, ErrorHistory)
	if !l.watched[a.ID()] || node < 0 {
		return
	}
	if ae.tree != t {
		ae.tree, ae.byNode, ae.pending = t, make([]uint64, t.Len()), ae.pending[:0]
	}
	ae.byNode[node]++
	if len(ae.pending) < maxPending {
		ae.pending = append(ae.pending, node)
	}
}

// ErrorHandler returns an error handler that reports to the session (see
// ReportError), then calls next if not nil: the program's own handler,
// which keeps logging them.
func (s *Session) ErrorHandler(next func(*arbor.NodeError)) func(*arbor.NodeError) {
	return func(e *arbor.NodeError) {
		s.ReportError(e)
		if next != nil {
			next(e)
		}
	}
}

// nodeOf returns the node of t at path (-1 for none), indexing t's paths
// on first use.
func (l *errorLog) nodeOf(t *arbor.Tree, path string) int32 {
	idx := l.paths[t]
	if idx == nil {
		idx = make(map[string]int32, t.Len())
		for i := t.Len() - 1; i >= 0; i-- {
			idx[t.Node(i).Path] = int32(i)
		}
		l.paths[t] = idx
	}
	if i, ok := idx[path]; ok {
		return i
	}
	return -1
}

// setTick notes the session's tick that errors belong to: the tick under
// way, or between ticks the last. Called under the session lock.
func (l *errorLog) setTick(tick uint64) {
	l.mu.Lock()
	l.tick = tick
	l.mu.Unlock()
}

// setWatched starts or stops the per-node counts of agent id. Called under
// the session lock.
func (l *errorLog) setWatched(id int, on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if on {
		l.watched[id] = true
		return
	}
	delete(l.watched, id)
	if ae := l.agents[id]; ae != nil {
		ae.tree, ae.byNode, ae.pending = nil, nil, nil
	}
}

// takePending returns the nodes of tree t that errored since the last call
// (none when t is not the tree they were counted in), and forgets them.
func (l *errorLog) takePending(id int, t *arbor.Tree) []int32 {
	l.mu.Lock()
	defer l.mu.Unlock()
	ae := l.agents[id]
	if ae == nil || len(ae.pending) == 0 {
		return nil
	}
	var out []int32
	if ae.tree == t {
		out = append(out, ae.pending...)
	}
	ae.pending = ae.pending[:0]
	return out
}

// count returns agent a's error count.
func (l *errorLog) count(a *arbor.Agent) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ae := l.agents[a.ID()]; ae != nil && ae.agent == a {
		return ae.count
	}
	return 0
}

// counts returns the error count of each agent that has errors.
func (l *errorLog) counts() map[int]uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[int]uint64, len(l.agents))
	for id, ae := range l.agents {
		out[id] = ae.count
	}
	return out
}

// prune forgets the errors of agents keep does not keep.
func (l *errorLog) prune(keep func(id int, a *arbor.Agent) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, ae := range l.agents {
		if !keep(id, ae.agent) {
			delete(l.agents, id)
		}
	}
	for t := range l.paths {
		if len(l.paths) <= 64 {
			break
		}
		delete(l.paths, t) // rebuilt on use: bounded with reloads
	}
}

// errorView is one node error for the page.
type errorView struct {
	Seq  uint64  `json:"seq"`
	Tick uint64  `json:"tick"`  // the session's tick
	Now  float64 `json:"nowMs"` // the agent's game time
	At   string  `json:"at"`    // wall time, RFC 3339
	// Node is the node's id in the agent's current tree; -1 when the
	// error was in another tree (before a hot reload) or names no node.
	Node    int32  `json:"node"`
	Path    string `json:"path"`
	Type    string `json:"type"`
	Name    string `json:"name,omitempty"`
	Message string `json:"message"`
}

// errorsView is the answer of api/agents/{id}/errors.
type errorsView struct {
	Agent   int         `json:"agent"`
	Count   uint64      `json:"count"`   // errors since the session began
	History int         `json:"history"` // how many are kept
	Errors  []errorView `json:"errors"`  // newest first
	// ByNode counts the errors of each node of the agent's tree since
	// watching began (only while watched): [node, count] pairs.
	ByNode [][2]uint64 `json:"byNode,omitempty"`
	Rev    uint64      `json:"rev"`
}

// errorsOf returns agent a's errors, newest first.
func (l *errorLog) errorsOf(a *arbor.Agent) errorsView {
	out := errorsView{Agent: a.ID(), History: ErrorHistory, Errors: []errorView{}}
	t := a.Tree()
	l.mu.Lock()
	defer l.mu.Unlock()
	ae := l.agents[a.ID()]
	if ae == nil || ae.agent != a {
		return out
	}
	out.Count = ae.count
	for i := 1; i <= ae.n; i++ {
		e := &ae.ring[(ae.head-i+ErrorHistory)%ErrorHistory]
		node := e.node
		if e.tree != t {
			node = -1
		}
		out.Errors = append(out.Errors, errorView{Seq: e.seq, Tick: e.tick, Now: durMs(e.now), At: e.wall.Format(time.RFC3339Nano),
			Node: node, Path: e.path, Type: e.typ, Name: e.name, Message: e.msg})
	}
	if ae.tree == t {
		for i, c := range ae.byNode {
			if c > 0 {
				out.ByNode = append(out.ByNode, [2]uint64{uint64(i), c})
			}
		}
	}
	return out
}
