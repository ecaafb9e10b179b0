package arbor

import (
	"log/slog"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Manager ticks many agents, of any number of trees, in parallel across a
// pool of worker goroutines (semantics §9). Ticking is deterministic: the
// same inputs give the same results whatever the number of workers.
//
// During Tick every agent reads the global blackboard scope as it was when
// the tick began, plus its own writes of this tick; when all agents have
// ticked, their global writes are applied in ascending agent id order (the
// last writer wins).
//
// A Manager is not safe for concurrent use. Add, Remove, RemoveFunc, Reload,
// Snapshot, Restore and the agents' own Pause, Resume, Reset, SetTree and
// blackboard writes must not run concurrently with Tick; call them between
// ticks (from the goroutine that calls Tick). An agent's own nodes may call
// that agent's Halt, Reset, Pause and Resume: they take effect when the
// agent's tick ends. The before function of TickWith may call them for its
// agent too: they take effect at once, before the agent's tick (a paused
// agent is then not ticked). Stop and Close called during a tick (from a
// node, say) take effect when the tick ends; a Tick called during a tick of
// the same manager does nothing and logs an error. Add, Remove and Reload
// must not be called from a node.
//
// The zero value is an empty manager ready to use, as NewManager() makes it:
// GOMAXPROCS workers and a global scope of its own.
type Manager struct {
	agents  []*Agent // ascending id
	globals *Globals
	nextID  int
	workers int
	errs    func(*NodeError)
	// warnedOpts: Add has logged that it ignores WithID and WithGlobals.
	warnedOpts bool

	pool    *workerPool
	closeMu sync.Mutex
	dirty   []*Agent // agents with pending global writes (serial ticks)

	ticking    atomic.Bool // in TickWith
	stopAfter  atomic.Bool // Stop was called during the tick
	closeAfter atomic.Bool // Close was called during the tick
}

// ManagerOption configures NewManager.
type ManagerOption func(*Manager)

// WithWorkers sets the number of worker goroutines (default GOMAXPROCS;
// n < 1 keeps the default). With 1 worker, or with at most 64 agents, a
// tick runs on the caller's goroutine. Otherwise each worker ticks its own
// contiguous share of the agents (in the order of Agents), the same share
// tick after tick so that their state stays in its core's cache, and helps
// with the others' shares when done with its own.
func WithWorkers(n int) ManagerOption {
	return func(m *Manager) {
		if n > 0 {
			m.workers = n
		}
	}
}

// WithManagerErrorHandler sets the error handler of every agent added
// (each agent may still override it with WithErrorHandler). It may be
// called from several worker goroutines at once.
func WithManagerErrorHandler(h func(*NodeError)) ManagerOption {
	return func(m *Manager) { m.errs = h }
}

// NewManager returns an empty manager with its own global scope.
func NewManager(opts ...ManagerOption) *Manager {
	m := &Manager{}
	m.lazyInit()
	for _, o := range opts {
		o(m)
	}
	return m
}

// lazyInit gives a zero Manager, on first use, what NewManager gives: a
// global scope and GOMAXPROCS workers. Globals, Workers, Add, TickWith (one
// branch per tick, none per agent), Snapshot and Restore call it. The other
// methods find in a zero Manager what an empty one holds (no agents, no
// pool) and do not: Stop and Close in particular may be called from a node
// during a tick, on a worker goroutine, where they touch only atomics.
func (m *Manager) lazyInit() {
	if m.globals == nil {
		m.globals, m.workers = NewGlobals(), runtime.GOMAXPROCS(0)
	}
}

// Globals returns the global blackboard scope the manager's agents share.
func (m *Manager) Globals() *Globals {
	m.lazyInit()
	return m.globals
}

// Workers returns the number of worker goroutines.
func (m *Manager) Workers() int {
	m.lazyInit()
	return m.workers
}

// Add creates an agent running t, with the manager's global scope, and
// returns it. Ids are assigned in increasing order. opts apply as in
// NewAgent, but the manager's choices win: WithID and WithGlobals are
// ignored (logged once per manager), and WithManagerErrorHandler's handler
// is the default that WithErrorHandler overrides. A nil t panics, as in
// NewAgent.
func (m *Manager) Add(t *Tree, opts ...AgentOption) *Agent {
	m.lazyInit()
	all := make([]AgentOption, 0, len(opts)+3)
	all = append(all, WithGlobals(m.globals), WithID(m.nextID))
	if m.errs != nil {
		all = append(all, WithErrorHandler(m.errs))
	}
	all = append(all, opts...)
	a := NewAgent(t, all...)
	if (a.id != m.nextID || a.bb.global != m.globals) && !m.warnedOpts {
		// A programming mistake, said once per manager.
		m.warnedOpts = true
		slog.Warn("arbor: Manager.Add ignores WithID and WithGlobals: the manager numbers its agents and gives them its global scope")
	}
	a.id = m.nextID
	a.seedRandom() // from the id the manager gives
	a.bb.global = m.globals
	m.nextID++
	m.agents = append(m.agents, a)
	return a
}

// Remove halts the agent (its running nodes get their halt callbacks) and
// removes it. It reports whether the agent was in the manager (false for
// nil, or an agent of another manager). Finding it is a binary search by
// id; to remove many agents at once, RemoveFunc is one pass.
func (m *Manager) Remove(a *Agent) bool {
	if a == nil {
		return false
	}
	i, ok := m.index(a.id)
	if !ok || m.agents[i] != a {
		return false
	}
	a.Halt()
	m.agents = slices.Delete(m.agents, i, i+1)
	return true
}

// RemoveFunc halts and removes every agent for which del returns true, in
// one pass, and returns how many it removed.
func (m *Manager) RemoveFunc(del func(*Agent) bool) int {
	n := len(m.agents)
	m.agents = slices.DeleteFunc(m.agents, func(a *Agent) bool {
		if del(a) {
			a.Halt()
			return true
		}
		return false
	})
	return n - len(m.agents)
}

// Reload moves every agent running old to tree t (hot reload, see
// Agent.SetTree): running nodes are halted, blackboards kept. It returns
// how many agents moved. Call it between ticks.
func (m *Manager) Reload(old, t *Tree) int {
	if t == nil {
		return 0
	}
	n := 0
	for _, a := range m.agents {
		if a.tree == old {
			_ = a.SetTree(t) // not busy: the manager is between ticks
			n++
		}
	}
	return n
}

// Len returns the number of agents.
func (m *Manager) Len() int { return len(m.agents) }

// Agents returns the agents in ascending id order. The slice is the
// manager's: do not modify it, and do not keep it across Add or Remove.
func (m *Manager) Agents() []*Agent { return m.agents }

// Agent returns the agent with the given id, or nil.
func (m *Manager) Agent(id int) *Agent {
	if i, ok := m.index(id); ok {
		return m.agents[i]
	}
	return nil
}

// index finds the agent with the given id (agents are in ascending id
// order).
func (m *Manager) index(id int) (int, bool) {
	return slices.BinarySearchFunc(m.agents, id, func(a *Agent, id int) int { return a.id - id })
}

// Stop halts every agent's running nodes (exactly once each) and stops
// the worker goroutines. The manager may tick again afterwards; the
// workers restart on demand.
func (m *Manager) Stop() {
	if m.ticking.Load() {
		m.stopAfter.Store(true)
		return
	}
	for _, a := range m.agents {
		a.Halt()
	}
	m.Close()
}

// Close stops the worker goroutines without halting agents. The manager
// may tick again afterwards; the workers restart on demand.
func (m *Manager) Close() {
	if m.ticking.Load() {
		m.closeAfter.Store(true)
		return
	}
	m.closeMu.Lock()
	defer m.closeMu.Unlock()
	if m.pool != nil {
		m.pool.close()
		m.pool = nil
	}
}

// chunk is how many agents a worker takes at a time.
const chunk = 64

// Tick ticks every agent that is not paused at game time now.
func (m *Manager) Tick(now time.Duration) { m.TickWith(now, nil) }

// TickWith is Tick with a function called for each agent that is not paused,
// right before its tick, on the goroutine that ticks it (a worker, or the
// caller's: see WithWorkers): the place for per-agent sensing (writing the
// agent's blackboard) in parallel. before must only touch its own agent, and
// may be called for several agents at once. A panic in before (user node
// panics are caught by the engine) reaches the caller of TickWith, on its
// goroutine, once the workers have stopped; the agents ticked until then
// keep their tick and their global writes are applied.
func (m *Manager) TickWith(now time.Duration, before func(*Agent)) {
	if !m.ticking.CompareAndSwap(false, true) {
		if logAllowed() {
			slog.Error("arbor: Manager.Tick called during a tick of the same manager (from a node or a before function?): ignored")
		}
		return
	}
	m.lazyInit()
	m.globals.ticking = true
	defer m.endTick()
	if m.workers <= 1 || len(m.agents) <= chunk {
		tickAgents(m.agents, now, before, &m.dirty)
		return
	}
	if m.pool == nil {
		m.pool = newWorkerPool(m.workers)
	}
	m.pool.run(m.agents, now, before)
}

// endTick ends a manager tick, also one cut short by a panic: the global
// scope becomes writable and the agents' global writes are applied in
// ascending id order.
func (m *Manager) endTick() {
	if p := m.pool; p != nil {
		for i := range p.dirty {
			m.dirty = append(m.dirty, p.dirty[i]...)
			p.dirty[i] = p.dirty[i][:0]
		}
	}
	m.globals.ticking = false
	if len(m.dirty) > 0 {
		slices.SortFunc(m.dirty, func(x, y *Agent) int { return x.id - y.id })
		for _, a := range m.dirty {
			a.bb.flushPending()
		}
		clear(m.dirty)
		m.dirty = m.dirty[:0]
	}
	m.ticking.Store(false)
	if m.stopAfter.Swap(false) {
		m.closeAfter.Store(false)
		m.Stop()
	} else if m.closeAfter.Swap(false) {
		m.Close()
	}
}

// workerPool is a set of goroutines ticking chunks of agents.
//
// The agents are cut into one contiguous part per worker, and worker w
// starts with part w, taking chunks from its front; a worker done with
// its part helps with the others'. Each worker thus ticks the same agents
// tick after tick, whose state stays in its core's cache, unless the
// workers run at different speeds.
type workerPool struct {
	jobs  []chan *tickJob // per worker
	job   tickJob
	dirty [][]*Agent // per worker: agents with pending global writes
}

type tickJob struct {
	agents []*Agent
	now    time.Duration
	before func(*Agent)
	parts  []part // per worker
	wg     sync.WaitGroup
	mu     sync.Mutex
	panic  any // the first panic of a worker, raised again by run
}

// part is a worker's share of a job's agents: next is the first not yet
// taken, end is where the part ends. It fills a cache line, so that the
// workers' cursors do not share one.
type part struct {
	next atomic.Int64
	end  int64
	_    [48]byte
}

func newWorkerPool(n int) *workerPool {
	p := &workerPool{jobs: make([]chan *tickJob, n), dirty: make([][]*Agent, n)}
	p.job.parts = make([]part, n)
	for w := range p.jobs {
		p.jobs[w] = make(chan *tickJob)
		go p.work(w)
	}
	return p
}

func (p *workerPool) work(w int) {
	for j := range p.jobs[w] {
		j.tickChunks(w, &p.dirty[w])
		j.wg.Done()
	}
}

// tickChunks takes chunks of agents, from worker w's part first, until
// none are left. A panic stops the job (no more chunks are taken) and is
// kept for run to raise.
func (j *tickJob) tickChunks(w int, dirty *[]*Agent) {
	defer func() {
		if r := recover(); r != nil {
			for i := range j.parts {
				j.parts[i].next.Store(j.parts[i].end)
			}
			j.mu.Lock()
			if j.panic == nil {
				j.panic = r
			}
			j.mu.Unlock()
		}
	}()
	for k := range j.parts {
		pt := &j.parts[(w+k)%len(j.parts)]
		for {
			lo := pt.next.Add(chunk) - chunk
			if lo >= pt.end {
				break
			}
			tickAgents(j.agents[lo:min(lo+chunk, pt.end)], j.now, j.before, dirty)
		}
	}
}

// run ticks agents on every worker; the caller's goroutine waits.
func (p *workerPool) run(agents []*Agent, now time.Duration, before func(*Agent)) {
	j := &p.job
	j.agents, j.now, j.before = agents, now, before
	n, nw := int64(len(agents)), int64(len(j.parts))
	for w := range j.parts {
		j.parts[w].next.Store(n * int64(w) / nw)
		j.parts[w].end = n * int64(w+1) / nw
	}
	j.wg.Add(len(p.jobs))
	for _, c := range p.jobs {
		c <- j
	}
	j.wg.Wait()
	j.agents, j.before = nil, nil
	if r := j.panic; r != nil {
		j.panic = nil
		panic(r)
	}
}

func (p *workerPool) close() {
	for _, c := range p.jobs {
		close(c)
	}
}

// tickAgents ticks agents of a manager tick, but the paused ones, and
// notes those with pending global writes in dirty.
//
// It holds the panic barrier of the plain user nodes that the agents'
// root walks tick (bareFunc): one barrier for many agent-ticks
// instead of one for each user tick. When such a node panics, tickSome
// stops; the barrier has reported the panic as userTick's does, and the
// agent's tick resumes after the node, in the next call of tickSome.
func tickAgents(agents []*Agent, now time.Duration, before func(*Agent), dirty *[]*Agent) {
	if before == nil {
		before = noBefore // called unconditionally: cheaper than a test per agent
	}
	r := tickRun{now: now, before: before, dirty: dirty}
	for resume := false; len(agents) > 0; {
		agents, resume = tickSome(agents, &r, resume)
	}
}

// noBefore is the before function of a manager tick without one.
func noBefore(*Agent) {}

// tickRun is what every agent-tick of tickSome needs besides the agent.
// It is passed by pointer, so that the loop keeps one register for it
// across its calls (before, walk) instead of one per field, each
// reloaded at every iteration.
type tickRun struct {
	now    time.Duration
	before func(*Agent) // never nil
	dirty  *[]*Agent    // the agents with pending global writes
}

// tickSome is tickAgents until a plain user node ticked bare panics; it
// returns the agents left, that node's agent first (resume: its tick
// resumes, from resumeTick, rather than starting). Other panics (of
// before, say) go on.
func tickSome(agents []*Agent, r *tickRun, resume bool) (rest []*Agent, resumed bool) {
	finished := false
	defer func() {
		if finished {
			return
		}
		for k, a := range agents {
			if !a.inBare {
				continue
			}
			// The barrier of userTick, for a node whose tick did not
			// return: a panic (or runtime.Goexit, for which recover
			// returns nil and which goes on).
			if r := recover(); r != nil {
				i := a.node
				a.inBare = false
				a.report(i, &PanicError{Value: r, Stack: string(debug.Stack())})
				a.node = i
				rest, resumed = agents[k:], true
			}
			return
		}
	}()
	from := 0
	if resume {
		a := agents[0]
		a.resumeTick()
		if a.bb.dirty() {
			*r.dirty = append(*r.dirty, a)
		}
		from = 1
	}
	for _, a := range agents[from:] {
		if !a.active() { // paused
			continue
		}
		r.before(a)
		if a.flags == agActive && !a.busy {
			// tickAt(now, true), written out for its common case: an
			// agent that is not paused, busy or traced, has no
			// observers, and whose root walk ticks (flags: one
			// comparison for all but busy). The root and its state byte
			// are read again after the walk rather than kept (spilled)
			// across the call.
			n := a.tree.rootWalk
			a.bb.now = int64(r.now)
			a.busy, a.bare = true, !a.watched
			s := a.walk(n, n, a.first(n, *a.stp(0)&stRunning == 0, 0))
			a.status = s
			if st := a.stp(0); s == Running {
				*st |= stRunning
			} else {
				*st &^= stRunning
				if n := a.tree.rootWalk; len(a.obs) > 0 {
					a.ended(0, n, s)
				} else {
					*a.wordp(n.mem) = 0 // all of ended for a composite: its one activation word
				}
			}
			a.done()
		} else {
			a.tickAt(r.now, true)
		}
		if a.bb.dirty() {
			*r.dirty = append(*r.dirty, a)
		}
	}
	finished = true
	return nil, false
}
