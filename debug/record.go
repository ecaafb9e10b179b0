package debug

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/arborbt/arbor"
)

// Node status letters, as sent to the page: one byte per node. Upper case
// means the node was visited in that tick, lower case that the letter is
// its last status from an earlier tick.
const (
	stNever   = '.' // no event seen since watching started
	stRunning = 'r'
	stSuccess = 's'
	stFailure = 'f'
	stHalted  = 'h' // halted: idle again
)

func statusLetter(s arbor.Status) byte {
	switch s {
	case arbor.Running:
		return stRunning
	case arbor.Success:
		return stSuccess
	case arbor.Failure:
		return stFailure
	}
	return stNever
}

// event is one node event of a watched agent.
type event struct {
	Kind   arbor.EventKind
	Status arbor.Status
	Node   int32
	Cond   int32
	At     time.Duration // since the agent's tick began
}

// record is one tick of a watched agent. Records are immutable once made.
type record struct {
	Seq     uint64        // per watch, from 1
	Tick    uint64        // the session's tick
	Now     time.Duration // game time
	Status  arbor.Status  // root result
	Between bool          // events outside a tick (controls, Do)
	Events  []event
	Errs    []int32   // nodes that reported an error (ReportError) in it
	Local   []bbEntry // shared with the previous record when unchanged
	Global  []bbEntry
}

// nodeStats are a node's counters since watching started.
type nodeStats struct {
	Ticks, Successes, Failures, Running, Starts, Halts, Aborts uint64
	Time                                                       time.Duration // inclusive wall time in the node's ticks
}

// bbEntry is one blackboard entry as shown.
type bbEntry struct {
	Key     string   `json:"key"`
	Type    string   `json:"type"`
	Value   any      `json:"value"` // JSON scalar, or Text for other values
	Text    string   `json:"text"`
	Expires *float64 `json:"expiresMs,omitempty"` // game time in ms of the last instant present
}

// watch records one agent: its events, a ring of its last ticks, and
// statistics, and holds its breakpoints. Its fields are guarded by the
// session lock, except cur, tickStart, hit and hitPending, which the
// tracer writes during a tick on the worker that ticks the agent (the
// session lock's holder waits for the manager tick, so the two never
// overlap; the tracer only reads bp and ticking, which change between
// ticks under the lock).
type watch struct {
	id    int
	agent *arbor.Agent
	tree  *arbor.Tree // the tree td describes
	// prevTracer is the agent's own tracer before watching began.
	prevTracer arbor.Tracer
	td         *treeDesc
	viewers    int
	idleSince  time.Time
	gone       bool      // the agent was removed from the manager
	goneAt     time.Time // when the removal was seen

	ticking   bool
	tickStart time.Time
	cur       []event

	seq   uint64
	ring  []*record
	head  int // index of the oldest record
	n     int
	base  []byte   // statuses before the oldest record
	last  []byte   // statuses after the newest record
	lastV []uint64 // record seq in which each node was last visited
	stats []nodeStats
	since uint64 // session tick when watching started
	// gen counts the times the history started again (rebind), for the
	// streams sending it (streamPos).
	gen uint64
	// stack is scratch space for timing a tick's events.
	stack []timing
	prevL []bbEntry
	prevG []bbEntry

	// bp holds the kinds each node breaks on; nil when the agent has no
	// breakpoints, so that the tracer of other agents checks nothing
	// more. nbp counts the nodes with a breakpoint.
	bp  []breakMask
	nbp int
	// hit is the breakpoint that stopped the agent in the current tick
	// (hitPending), lastHit the last one recorded, and atBreak that the
	// agent has stayed paused since.
	hit        breakHit
	hitPending bool
	lastHit    *breakHit
	atBreak    bool
}

type timing struct {
	node  int32
	entry time.Duration
}

func newWatch(s *Session, a *arbor.Agent) *watch {
	td := s.treeOf(a)
	n := len(td.Nodes)
	w := &watch{id: a.ID(), agent: a, tree: a.Tree(), td: td, ring: make([]*record, s.opts.History),
		base: make([]byte, n), last: make([]byte, n), lastV: make([]uint64, n), stats: make([]nodeStats, n),
		since: s.tick, idleSince: time.Now()}
	for i := range w.last {
		w.last[i] = stNever
		if a.Running(i) {
			w.last[i] = stRunning
		}
	}
	copy(w.base, w.last)
	return w
}

// rebind starts the watch afresh when its agent moved to another tree
// (hot reload): the history, statistics and breakpoints were of the old
// tree's nodes. The watch keeps its identity, so its viewers and its
// Tracer stay valid.
func (w *watch) rebind(s *Session) {
	viewers, idleSince, gone, prev, gen := w.viewers, w.idleSince, w.gone, w.prevTracer, w.gen
	*w = *newWatch(s, w.agent)
	w.viewers, w.idleSince, w.gone, w.prevTracer = viewers, idleSince, gone, prev
	w.gen = gen + 1
}

// trace is the watched agent's Tracer. Times are measured from the
// agent's first event in the tick (the engine has no tick-start event).
func (w *watch) trace(a *arbor.Agent, e arbor.Event) {
	now := time.Now()
	if w.tickStart.IsZero() {
		w.tickStart = now
	}
	w.cur = append(w.cur, event{Kind: e.Kind, Status: e.Status, Node: e.Node, Cond: e.Cond, At: now.Sub(w.tickStart)})
	if w.bp != nil {
		w.checkBreak(a, e)
	}
}

// sync brings the watch up to date between ticks: events recorded outside
// a tick become a record, and an agent moved to another tree is watched
// afresh.
func (w *watch) sync(s *Session) {
	w.flushBetween(s)
	if w.tree != w.agent.Tree() {
		w.rebind(s)
	}
}

// flushBetween turns events recorded outside a tick into a record.
func (w *watch) flushBetween(s *Session) {
	if len(w.cur) > 0 {
		w.closeTick(s, true)
	}
}

// closeTick makes a record of the events in cur.
func (w *watch) closeTick(s *Session, between bool) {
	events := make([]event, len(w.cur))
	copy(events, w.cur)
	w.cur = w.cur[:0]
	w.tickStart = time.Time{}
	w.seq++
	r := &record{Seq: w.seq, Tick: s.tick, Now: w.agent.Now(), Status: w.agent.Status(), Between: between, Events: events,
		Errs: s.errs.takePending(w.id, w.tree)}
	r.Local, r.Global = w.blackboard()
	if !between {
		w.time(events)
	}
	for _, e := range events {
		st := &w.stats[e.Node]
		switch e.Kind {
		case arbor.EventStart:
			st.Starts++
		case arbor.EventResult, arbor.EventEval:
			// A guard node's evaluations count as its ticks.
			st.Ticks++
			switch e.Status {
			case arbor.Success:
				st.Successes++
			case arbor.Failure:
				st.Failures++
			case arbor.Running:
				st.Running++
			}
		case arbor.EventHalt:
			st.Halts++
		case arbor.EventAbort:
			st.Aborts++
		}
		applyEvent(w.last, e)
		w.lastV[e.Node] = r.Seq
	}
	// Add the record, dropping the oldest into base when full.
	if w.n == len(w.ring) {
		old := w.ring[w.head]
		for _, e := range old.Events {
			applyEvent(w.base, e)
		}
		w.ring[w.head] = r
		w.head = (w.head + 1) % len(w.ring)
	} else {
		w.ring[(w.head+w.n)%len(w.ring)] = r
		w.n++
	}
}

// applyEvent updates node statuses with one event.
func applyEvent(st []byte, e event) {
	st[e.Node] = letterAfter(st[e.Node], e)
}

// letterAfter is the status letter of e's node after event e, st before.
func letterAfter(st byte, e event) byte {
	switch e.Kind {
	case arbor.EventResult, arbor.EventEval:
		return statusLetter(e.Status)
	case arbor.EventHalt:
		return stHalted
	}
	return st
}

// time adds each node's inclusive time in this tick to its statistics. A
// node's tick begins after the event preceding the first event of its
// subtree (or when the agent's tick began) and ends at its result.
func (w *watch) time(events []event) {
	td := w.td
	stack := w.stack[:0]
	var prev time.Duration
	for _, e := range events {
		if e.Kind == arbor.EventEval {
			// Evaluations of guards and observed conditions are timed
			// within the node being ticked.
			continue
		}
		x := e.Node
		// Close nodes whose subtree does not hold x: they were pre-empted
		// or halted without a result in this tick.
		for len(stack) > 0 && !td.contains(stack[len(stack)-1].node, x) {
			stack = stack[:len(stack)-1]
		}
		top := int32(-1)
		if len(stack) > 0 {
			top = stack[len(stack)-1].node
		}
		if (e.Kind == arbor.EventStart || e.Kind == arbor.EventResult) && top != x {
			// Open x's ancestors that are running through this tick
			// without having emitted an event yet.
			mark := len(stack)
			for p := td.parent[x]; p >= 0 && p != top; p = td.parent[p] {
				stack = append(stack, timing{node: p, entry: prev})
			}
			// Those were pushed innermost first: reverse them.
			for i, j := mark, len(stack)-1; i < j; i, j = i+1, j-1 {
				stack[i], stack[j] = stack[j], stack[i]
			}
		}
		switch e.Kind {
		case arbor.EventStart:
			stack = append(stack, timing{node: x, entry: prev})
		case arbor.EventResult:
			entry := prev
			if len(stack) > 0 && stack[len(stack)-1].node == x {
				entry = stack[len(stack)-1].entry
				stack = stack[:len(stack)-1]
			}
			if d := e.At - entry; d > 0 {
				w.stats[x].Time += d
			}
		}
		prev = e.At
	}
	w.stack = stack[:0]
}

// blackboard captures the agent's entries, reusing the previous capture of
// a scope when it did not change.
func (w *watch) blackboard() (local, global []bbEntry) {
	local, global = splitEntries(w.agent.Blackboard().Entries())
	if equalEntries(local, w.prevL) {
		local = w.prevL
	}
	if equalEntries(global, w.prevG) {
		global = w.prevG
	}
	w.prevL, w.prevG = local, global
	return local, global
}

// splitEntries converts entries for display, agent scope and global scope
// apart.
func splitEntries(es []arbor.Entry) (local, global []bbEntry) {
	local, global = []bbEntry{}, []bbEntry{}
	for _, e := range es {
		be := showEntry(e)
		if strings.HasPrefix(e.Key, "@") {
			global = append(global, be)
		} else {
			local = append(local, be)
		}
	}
	return local, global
}

const maxText = 200

func showEntry(e arbor.Entry) bbEntry {
	v := e.Value
	be := bbEntry{Key: e.Key, Type: v.Kind().String(), Text: v.String()}
	switch v.Kind() {
	case arbor.KindBool:
		b, _ := v.Bool()
		be.Value = b
	case arbor.KindNumber:
		f, _ := v.Number()
		if !math.IsInf(f, 0) && !math.IsNaN(f) {
			be.Value = f
		} else {
			be.Value = be.Text
		}
	case arbor.KindString:
		str, _ := v.Str()
		be.Value = truncate(str, maxText)
	default:
		be.Type = fmt.Sprintf("%T", v.Interface())
		be.Value = truncate(be.Text, maxText)
	}
	be.Text = truncate(be.Text, maxText)
	if e.HasTTL {
		ms := durMs(e.Expires)
		be.Expires = &ms
	}
	return be
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func equalEntries(a, b []bbEntry) bool {
	if len(a) != len(b) || b == nil {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.Key != y.Key || x.Type != y.Type || x.Text != y.Text || (x.Expires == nil) != (y.Expires == nil) ||
			(x.Expires != nil && *x.Expires != *y.Expires) {
			return false
		}
	}
	return true
}

func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// records returns the ring's records, oldest first.
func (w *watch) records() []*record {
	out := make([]*record, w.n)
	for i := range out {
		out[i] = w.ring[(w.head+i)%len(w.ring)]
	}
	return out
}

// bounds returns the sequence numbers of the oldest record kept and of
// the newest; 0, 0 when there is none.
func (w *watch) bounds() (first, last uint64) {
	if w.n == 0 {
		return 0, 0
	}
	return w.ring[w.head].Seq, w.seq
}

// find returns the record with sequence number seq, or nil.
func (w *watch) find(seq uint64) *record {
	if w.n == 0 {
		return nil
	}
	first := w.ring[w.head].Seq
	if seq < first || seq > w.seq {
		return nil
	}
	return w.ring[(w.head+int(seq-first))%len(w.ring)]
}

// statusesAt returns the node status letters after record seq, upper case
// for the nodes visited in it, and for each node the record in which it
// was last visited (0: not within the history).
func (w *watch) statusesAt(seq uint64) (string, []uint64) {
	st := append([]byte(nil), w.base...)
	visited := make([]uint64, len(st))
	for _, r := range w.records() {
		if r.Seq > seq {
			break
		}
		for _, e := range r.Events {
			applyEvent(st, e)
			visited[e.Node] = r.Seq
		}
	}
	for i := range st {
		if visited[i] == seq && seq != 0 && st[i] != stNever {
			st[i] -= 'a' - 'A'
		}
	}
	return string(st), visited
}

// Bits of a node's events in a record (nodeHistory), sent as one
// hexadecimal digit per record.
const (
	nodeStarted = 1 << iota // the node started
	nodeHalted              // the node was halted
	nodeAborted             // the node (a composite) fired a conditional abort
	nodeErred               // the node reported a node error
)

// nodeHistory returns node's status letter after each record newer than
// after, as statusesAt gives it (upper case: visited in the record), with
// a hexadecimal digit per record of its events there (nodeStarted, …),
// and the seq of the first record returned (0: none). It reads the events
// of the records returned, and of as many before them as it takes to
// find the node's status then (none when the node has no event in the
// records returned): a page that keeps up asks for the newest few.
func (w *watch) nodeHistory(node int32, after uint64) (from uint64, statuses, events []byte) {
	recs := w.records()
	k := 0 // the first record returned
	if len(recs) > 0 && after >= recs[0].Seq {
		// after-recs[0].Seq may be past any int (?after= is the page's).
		k = int(min(uint64(len(recs)), after-recs[0].Seq+1))
	}
	if k == len(recs) {
		return 0, nil, nil
	}
	from = recs[k].Seq
	// The node's status before record k: its last status-setting event
	// before it, or the status before the history.
	st := w.base[node]
	if w.lastV[node] < from {
		st = w.last[node] // no event since
	} else {
	back:
		for j := k - 1; j >= 0; j-- {
			es := recs[j].Events
			for i := len(es) - 1; i >= 0; i-- {
				if e := es[i]; e.Node == node && (e.Kind == arbor.EventResult || e.Kind == arbor.EventEval || e.Kind == arbor.EventHalt) {
					st = letterAfter(st, e)
					break back
				}
			}
		}
	}
	statuses = make([]byte, 0, len(recs)-k)
	events = make([]byte, 0, len(recs)-k)
	for _, r := range recs[k:] {
		visited, bits := false, 0
		if w.lastV[node] >= r.Seq {
			for _, e := range r.Events {
				if e.Node != node {
					continue
				}
				visited = true
				st = letterAfter(st, e)
				switch e.Kind {
				case arbor.EventStart:
					bits |= nodeStarted
				case arbor.EventHalt:
					bits |= nodeHalted
				case arbor.EventAbort:
					bits |= nodeAborted
				}
			}
		}
		for _, x := range r.Errs {
			if x == node {
				bits |= nodeErred
				break
			}
		}
		letter := st
		if visited && st != stNever {
			letter -= 'a' - 'A'
		}
		statuses = append(statuses, letter)
		events = append(events, "0123456789abcdef"[bits])
	}
	return from, statuses, events
}

// liveStatuses returns the statuses after the newest record.
func (w *watch) liveStatuses() string {
	st := append([]byte(nil), w.last...)
	for i := range st {
		if w.lastV[i] == w.seq && w.seq != 0 && st[i] != stNever {
			st[i] -= 'a' - 'A'
		}
	}
	return string(st)
}

// runningPaths returns the root-to-leaf node paths of the running leaves
// (the deepest running nodes; several under a Parallel).
func runningPaths(td *treeDesc, st string) [][]int {
	paths := [][]int{}
	running := func(i int) bool { return st[i] == 'r' || st[i] == 'R' }
	for i := range td.Nodes {
		if !running(i) || td.Nodes[i].GuardOf >= 0 || td.inGuard[i] {
			continue
		}
		leaf := true
		for _, c := range td.Nodes[i].Children {
			if running(c) {
				leaf = false
				break
			}
		}
		if !leaf {
			continue
		}
		var path []int
		for p := i; p >= 0; p = int(td.parent[p]) {
			path = append(path, p)
		}
		for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
			path[a], path[b] = path[b], path[a]
		}
		paths = append(paths, path)
	}
	return paths
}
