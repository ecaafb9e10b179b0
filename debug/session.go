package debug

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/arborbt/arbor"
)

// Options configures a Session. The zero value is a read-only debugger
// keeping the last 500 ticks of each watched agent.
type Options struct {
	// History is how many ticks of a watched agent the timeline keeps
	// (default 500).
	History int
	// MaxRate caps the live updates sent to each browser, per second
	// (default 10).
	MaxRate float64
	// Linger is how long an agent stays watched (and keeps recording)
	// after its last viewer left, so that a page reload keeps its
	// timeline (default 30s).
	Linger time.Duration
	// Controls enables pause, resume and step of an agent (or of every
	// agent), breakpoints, forcing a node's result (arbor.Agent.Force),
	// writing blackboard values and, with Recompile, editing trees from
	// the page. Requests must then carry Token and come from the
	// debugger's own origin.
	Controls bool
	// Token is the secret that control requests carry (header
	// X-Arbor-Token or "Authorization: Bearer"). When Controls is set and
	// Token is empty, a random token is made; see Session.Token.
	Token string
	// Recompile, with Controls, lets the page edit a running tree: a
	// node's parameters and name, and the tree's shape (add, insert,
	// delete, move, wrap and unwrap nodes), and undo those edits. The
	// session applies the edit to a copy of the tree's Document
	// (old.Document() is not changed) and calls Recompile with the tree
	// and the edited copy; the program compiles it with its registry (as
	// it compiled old) and returns the new tree, or the compiler's error,
	// which the page shows (nothing changes). An undo hands it a copy of
	// the document before the edit undone. Then every agent running old
	// moves to the new tree (Manager.Reload: running nodes are halted
	// once, blackboards kept).
	// Recompile is called under the session's lock, between ticks, as
	// Do's function is: it may note the new tree in the program's own
	// records (which tree a file's hot reload replaces), and must not
	// call the session's methods that take the lock. Nil: no editing.
	Recompile func(old *arbor.Tree, doc *arbor.Document) (*arbor.Tree, error)
	// TreeSource, optional, names the file a tree was loaded from and
	// its format (format.Arbor, format.B3 or format.BTCPP; "" for the
	// one the file's extension says): the page's Download tree offers
	// that format first, under the file's name. A tree an edit made is
	// asked about first, then the tree it was made from. Called under
	// the session's lock, once per tree; "", "" when unknown.
	TreeSource func(t *arbor.Tree) (file, format string)
	// Registry, optional, describes the program's node types to the
	// page's edit form (with Recompile): after a node's own parameters,
	// the form lists the others its type takes (Registry.Describe), left
	// at their defaults, to fill in; and a shape edit may add its types
	// (the page lists them by category, and asks for their required
	// parameters). Give the registry Recompile compiles with. Nil: the
	// built-in types only (a node of a program type lists its own
	// parameters alone, and only the program types the tree uses can be
	// added). Read under the session's lock, when a
	// tree is first described: types registered after NewSession are
	// registered in Do.
	Registry *arbor.Registry
	// Label returns a short description of an agent shown in the agent
	// list, and searched. It is called between ticks. A panic in it is
	// logged, and the agent is shown without a label.
	Label func(a *arbor.Agent) string
	// Title is the page title (default "Arbor debugger").
	Title string
	// Links are shown in the page header (for example back to a program's
	// own page). URLs are relative to the debugger's page.
	Links []Link
	// Logger receives the debugger's log lines (default slog.Default()).
	Logger *slog.Logger
}

// Link is a link shown in the debugger's header.
type Link struct {
	Name string `json:"name"`
	URL  string `json:"url"`
}

// ErrNoAgent is returned for an agent id the manager does not hold.
var ErrNoAgent = errors.New("no such agent")

// Session connects a Manager to the debugger. The program ticks through the
// session (Tick, TickWith) instead of the manager, on its own goroutine;
// the session holds a lock while ticking, and the debugger reads agents
// and applies controls only under that lock, between ticks. Anything else
// the program does to agents while the debugger runs (Add, Remove,
// blackboard writes) goes through Do.
//
// Watching costs nothing when nobody watches: only agents opened in a
// browser (or passed to Watch, or given breakpoints) get a Tracer, so every
// other agent pays the engine's nil-tracer check alone.
type Session struct {
	opts  Options
	token string
	id    string // tells this session from an earlier one on the same address
	log   *slog.Logger

	mu       sync.Mutex // held while ticking and while the debugger touches agents
	m        *arbor.Manager
	tick     uint64
	now      time.Duration
	lastWall time.Time
	rate     float64 // ticks per second (1 / interval)
	interval float64 // seconds between ticks (moving average)
	watches  map[int]*watch
	steps    map[int]bool
	trees    map[*arbor.Tree]*treeDesc
	treeList []*treeDesc
	// editedSource maps a tree an edit made to where the tree it was
	// made from came from (sourceLocked), when known.
	editedSource map[*arbor.Tree]*treeSource
	// undo holds, per tree an edit made, the edits that can be undone
	// (shape.go), the last one last.
	undo map[*arbor.Tree][]*undoEntry
	// redo holds, per tree an undo made, the edits undone that can be
	// made again (undo.go), the last undone last; an edit clears it.
	redo map[*arbor.Tree][]*undoEntry
	// gen counts changes between ticks (Do, controls); sumTrees caches
	// the agent counts of the summary for sumKey.
	gen      uint64
	sumKey   summaryKey
	sumTrees []treeInfo

	// rev counts every change an agent's state can show (ticks, Do,
	// controls, breakpoints): the page orders the answers and live
	// updates it gets by it, which may arrive out of order.
	rev uint64
	// removed keeps the watches of watched agents removed from the
	// manager, for Linger after their removal: their recorded ticks stay
	// readable and exportable.
	removed map[int]*watch

	notifyMu sync.Mutex
	notify   chan struct{} // closed after each tick

	// errs holds the node errors reported (ReportError), under a lock of
	// its own; pruneGen is gen when agents gone were last forgotten.
	errs     *errorLog
	pruneGen uint64
}

// NewSession returns a session for m.
func NewSession(m *arbor.Manager, opts Options) *Session {
	if opts.History <= 0 {
		opts.History = 500
	}
	if opts.MaxRate <= 0 {
		opts.MaxRate = 10
	}
	if opts.Linger <= 0 {
		opts.Linger = 30 * time.Second
	}
	if opts.Title == "" {
		opts.Title = "Arbor debugger"
	}
	s := &Session{opts: opts, m: m, log: opts.Logger, watches: map[int]*watch{}, steps: map[int]bool{},
		trees: map[*arbor.Tree]*treeDesc{}, editedSource: map[*arbor.Tree]*treeSource{}, undo: map[*arbor.Tree][]*undoEntry{}, redo: map[*arbor.Tree][]*undoEntry{}, removed: map[int]*watch{}, notify: make(chan struct{}), errs: newErrorLog()}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.token = opts.Token
	if opts.Controls && s.token == "" {
		s.token = newToken(16)
	}
	s.id = newToken(8)
	return s
}

// newToken returns n random bytes in hex.
func newToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		// crypto/rand does not fail on supported platforms; a time-based
		// token is still unguessable enough for a local debugger.
		return fmt.Sprintf("%x", time.Now().UnixNano())
	}
	return hex.EncodeToString(b)
}

// Manager returns the session's manager. Use it from the goroutine that
// ticks, or inside Do.
func (s *Session) Manager() *arbor.Manager { return s.m }

// Token returns the token control requests must carry ("" when controls
// are disabled).
func (s *Session) Token() string {
	if !s.opts.Controls {
		return ""
	}
	return s.token
}

// Options returns the session's options, defaults filled in.
func (s *Session) Options() Options { return s.opts }

// Tick ticks the manager at game time now (see TickWith).
func (s *Session) Tick(now time.Duration) { s.TickWith(now, nil) }

// TickWith ticks the manager at game time now, like Manager.TickWith,
// under the session's lock; then it records the watched agents and wakes
// the live views. It must not be called where the lock is held (within a
// tick or Do), which deadlocks. The agents are ticked exactly as the manager ticks them:
// watched ones only have a Tracer.
func (s *Session) TickWith(now time.Duration, before func(*arbor.Agent)) {
	s.tickLocked(now, before)
	s.wake()
}

// tickLocked ticks under the lock, released even if the tick panics.
func (s *Session) tickLocked(now time.Duration, before func(*arbor.Agent)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.beginTick()
	s.m.TickWith(now, before)
	s.endTick(now)
}

// Do runs fn under the session's lock, between ticks: the place to add or
// remove agents, or write blackboards, while the debugger runs. The lock
// is not reentrant: Do called where it is held (within a tick: an error
// handler, a tracer, a node, a before function; from Options.Label)
// deadlocks, and so does fn calling a method of the session that takes it
// (Tick, TickWith, Do, Ticks, Watch and its stop function, Recording).
func (s *Session) Do(fn func(m *arbor.Manager)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
	s.rev++
	fn(s.m)
}

// Ticks returns the number of ticks run through the session and the game
// time of the last. It takes the session's lock, which is not reentrant: calling it where
// the lock is held (within a tick: an error handler, a tracer, a node, a
// before function; within Do; from Options.Label) deadlocks.
func (s *Session) Ticks() (uint64, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tick, s.now
}

// Watch starts recording agent id, as if a browser watched it, until stop
// is called (calling stop again does nothing). It returns ErrNoAgent for
// an unknown id. Watch and stop take the session's lock, which is not
// reentrant: calling them where the lock is held (within a tick: an error
// handler, a tracer, a node, a before function; within Do; from
// Options.Label) deadlocks.
func (s *Session) Watch(id int) (stop func(), err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w, err := s.acquireLocked(id)
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(func() { s.release(w) }) }, nil
}

// beginTick applies queued steps and notes which watched agents will tick.
func (s *Session) beginTick() {
	s.errs.setTick(s.tick + 1)
	for id := range s.steps {
		if a := s.m.Agent(id); a != nil && a.Paused() {
			a.Resume()
		}
	}
	for _, w := range s.watches {
		w.sync(s)
		w.ticking = !w.agent.Paused()
		if w.ticking {
			w.atBreak = false // it runs on: no longer stopped at its last hit
		}
		w.tickStart = time.Time{} // set by the agent's first event
	}
}

// endTick records the tick for the watched agents, re-pauses stepped
// agents, and drops watches whose agent is gone or nobody views.
func (s *Session) endTick(now time.Duration) {
	s.tick++
	s.rev++
	s.now = now
	s.errs.setTick(s.tick)
	wall := time.Now()
	s.noteTickAt(wall)
	for id := range s.steps {
		if a := s.m.Agent(id); a != nil {
			a.Pause()
		}
		delete(s.steps, id)
	}
	for id, w := range s.watches {
		if s.m.Agent(id) != w.agent {
			// Removed: its record of the removal (halt events, made at
			// beginTick) is its last; it stays readable for a while.
			s.unwatchLocked(w)
			w.gone, w.goneAt = true, wall
			w.bp, w.nbp = nil, 0
			s.removed[id] = w
			continue
		}
		if w.ticking {
			w.closeTick(s, false)
			w.closeBreak(s)
			w.ticking = false
		}
		// Breakpoints keep a watch without viewers.
		if w.viewers == 0 && w.nbp == 0 && wall.Sub(w.idleSince) > s.opts.Linger {
			s.unwatchLocked(w)
		}
	}
	for id, w := range s.removed {
		if wall.Sub(w.goneAt) > s.opts.Linger {
			delete(s.removed, id)
		}
	}
	if s.gen != s.pruneGen || s.tick%1024 == 0 {
		// Agents are removed in Do (or by the program's own code): forget
		// the errors of those gone, but for the removed watched agents
		// still shown.
		s.pruneGen = s.gen
		s.errs.prune(func(id int, a *arbor.Agent) bool {
			if s.m.Agent(id) == a {
				return true
			}
			w := s.removed[id]
			return w != nil && w.agent == a
		})
	}
}

// recordedLocked returns agent id and its watch (nil when not watched):
// a live agent, or a watched agent removed from the manager less than
// Linger ago (removed). a is nil when there is neither.
func (s *Session) recordedLocked(id int) (a *arbor.Agent, w *watch, removed bool) {
	if a = s.m.Agent(id); a != nil {
		return a, s.watches[id], false
	}
	if w = s.removed[id]; w != nil {
		return w.agent, w, true
	}
	return nil, nil, false
}

// noteTickAt updates the tick rate for a tick that ended at wall. The
// rate is the inverse of a moving average of the intervals between ticks:
// an average of the rates themselves jumped to thousands of ticks a
// second when two ticks came back to back (a ticker catching up after a
// stall).
func (s *Session) noteTickAt(wall time.Time) {
	if !s.lastWall.IsZero() {
		if d := wall.Sub(s.lastWall).Seconds(); d > 0 {
			if s.interval == 0 {
				s.interval = d
			} else {
				s.interval += (d - s.interval) * 0.1
			}
			s.rate = 1 / s.interval
		}
	}
	s.lastWall = wall
}

// wake tells the live views that a tick happened.
func (s *Session) wake() {
	s.notifyMu.Lock()
	close(s.notify)
	s.notify = make(chan struct{})
	s.notifyMu.Unlock()
}

// changed returns a channel closed after the next tick.
func (s *Session) changed() <-chan struct{} {
	s.notifyMu.Lock()
	defer s.notifyMu.Unlock()
	return s.notify
}

// acquireLocked adds a viewer to agent id, watching it if needed.
func (s *Session) acquireLocked(id int) (*watch, error) {
	w, err := s.watchLocked(id)
	if err != nil {
		return nil, err
	}
	w.viewers++
	return w, nil
}

// watchLocked returns the watch of agent id, starting one (without
// viewers) if needed.
func (s *Session) watchLocked(id int) (*watch, error) {
	if w := s.watches[id]; w != nil {
		return w, nil
	}
	a := s.m.Agent(id)
	if a == nil {
		return nil, fmt.Errorf("agent %d: %w", id, ErrNoAgent)
	}
	w := newWatch(s, a)
	s.watches[id] = w
	s.errs.setWatched(id, true)
	// Chain to the program's own tracer, restored when watching ends.
	w.prevTracer = a.Tracer()
	if prev := w.prevTracer; prev != nil {
		a.SetTracer(func(ag *arbor.Agent, e arbor.Event) {
			w.trace(ag, e)
			prev(ag, e)
		})
	} else {
		a.SetTracer(w.trace)
	}
	s.log.Debug("arbor debug: watching agent", "agent", id)
	return w, nil
}

// release removes a viewer; the watch lingers, then ends at a tick.
func (s *Session) release(w *watch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.viewers--
	if w.viewers <= 0 {
		w.viewers = 0
		w.idleSince = time.Now()
	}
}

// unwatchLocked stops recording w's agent.
func (s *Session) unwatchLocked(w *watch) {
	if s.watches[w.id] != w {
		return
	}
	delete(s.watches, w.id)
	s.errs.setWatched(w.id, false)
	w.agent.SetTracer(w.prevTracer)
	s.log.Debug("arbor debug: stopped watching agent", "agent", w.id)
}

// treeOf returns the description of a's tree, built on first use.
func (s *Session) treeOf(a *arbor.Agent) *treeDesc {
	t := a.Tree()
	if d := s.trees[t]; d != nil {
		return d
	}
	d := describeTree(t, len(s.treeList))
	d.tree, d.Source = t, s.sourceLocked(t)
	if s.canEdit() {
		d.palette = palette(s.registry(), t.Document())
		d.categories = categories(s.registry(), d)
		d.types = s.describeTypes(d)
	}
	s.trees[t] = d
	s.treeList = append(s.treeList, d)
	// A new tree may have replaced one an edit made (a reload from its
	// file): that one's stacks go.
	s.dropStacks()
	return d
}
