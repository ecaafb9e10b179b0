package debug

import (
	"bytes"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/arborbt/arbor"
)

//go:embed static
var static embed.FS

// Handler returns the debugger: its page and its JSON API. Mount it on the
// program's mux under a prefix with http.StripPrefix:
//
//	mux.Handle("/debug/arbor/", http.StripPrefix("/debug/arbor", sess.Handler()))
//
// Every URL the page uses is relative, so any prefix works.
func (s *Session) Handler() http.Handler {
	h := newHandler(s.log)
	h.s = s
	m := h.mux
	m.HandleFunc("GET /api/session", h.session)
	m.HandleFunc("GET /api/agents", h.agents)
	m.HandleFunc("GET /api/agents/{id}", h.agent)
	m.HandleFunc("GET /api/agents/{id}/blackboard", h.blackboard)
	m.HandleFunc("GET /api/agents/{id}/timeline", h.timeline)
	m.HandleFunc("GET /api/agents/{id}/ticks/{seq}", h.tickAt)
	m.HandleFunc("GET /api/agents/{id}/nodes/{node}/history", h.nodeHistory)
	m.HandleFunc("GET /api/agents/{id}/stats", h.stats)
	m.HandleFunc("GET /api/agents/{id}/export", h.export)
	m.HandleFunc("GET /api/agents/{id}/errors", h.errors)
	m.HandleFunc("GET /api/agents/{id}/breakpoints", h.listBreakpoints)
	m.HandleFunc("POST /api/agents/{id}/breakpoints", h.setBreakpoint)
	m.HandleFunc("DELETE /api/agents/{id}/breakpoints", h.clearBreakpoints)
	m.HandleFunc("GET /api/agents/{id}/forces", h.listForces)
	m.HandleFunc("POST /api/agents/{id}/forces", h.setForce)
	m.HandleFunc("DELETE /api/agents/{id}/forces", h.clearForces)
	m.HandleFunc("GET /api/trees/{tid}", h.tree)
	m.HandleFunc("GET /api/trees/{tid}/document", h.treeDocument)
	m.HandleFunc("POST /api/trees/{tid}/edit", h.editTree)
	m.HandleFunc("POST /api/trees/{tid}/shape", h.shapeTree)
	m.HandleFunc("POST /api/trees/{tid}/undo", h.undoTree)
	m.HandleFunc("POST /api/trees/{tid}/redo", h.redoTree)
	m.HandleFunc("GET /api/globals", h.globals)
	m.HandleFunc("GET /api/stream", h.stream)
	m.HandleFunc("POST /api/agents/{id}/{op}", h.control)
	m.HandleFunc("POST /api/session/{op}", h.controlAll)
	m.HandleFunc("POST /api/globals", h.setGlobal)
	return h
}

type handler struct {
	s   *Session // nil when serving a recording
	log *slog.Logger
	mux *http.ServeMux
}

// newHandler returns a handler serving the page and its assets, to which
// the caller adds the API.
func newHandler(log *slog.Logger) *handler {
	h := &handler{log: log, mux: http.NewServeMux()}
	files := http.NotFoundHandler()
	if sub, err := fs.Sub(static, "static"); err == nil {
		files = http.FileServer(http.FS(sub))
	} else {
		log.Error("arbor debug: embedded assets", "err", err)
	}
	h.mux.HandleFunc("GET /{$}", h.index)
	h.mux.Handle("GET /static/", http.StripPrefix("/static", noCache(files)))
	return h
}

// ServeHTTP serves the page and the API.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "" {
		// Mounted with StripPrefix and asked for the prefix without its
		// slash: redirect so that relative URLs resolve under it.
		u := *r.URL
		u.Path = strings.TrimSuffix(requestPath(r), "/") + "/"
		http.Redirect(w, r, u.RequestURI(), http.StatusMovedPermanently)
		return
	}
	// Served on a loopback address (also when mounted on the program's own
	// mux), a request must name a loopback host: a web page whose DNS name
	// was rebound to 127.0.0.1 cannot read the debugger.
	if la, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && isLoopbackAddr(la) && !isLoopbackHost(r.Host) {
		http.Error(w, "host not allowed: use localhost or 127.0.0.1", http.StatusForbidden)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	h.mux.ServeHTTP(w, r)
}

// isLoopbackAddr reports whether a listener address is a loopback one.
func isLoopbackAddr(a net.Addr) bool {
	if ta, ok := a.(*net.TCPAddr); ok {
		return ta.IP.IsLoopback()
	}
	return false
}

// requestPath is the path the client asked for, before any StripPrefix.
func requestPath(r *http.Request) string {
	if u, err := url.ParseRequestURI(r.RequestURI); err == nil {
		return u.Path
	}
	return r.URL.Path
}

func noCache(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}

func (h *handler) index(w http.ResponseWriter, r *http.Request) {
	page, err := static.ReadFile("static/index.html")
	if err != nil {
		h.fail(w, http.StatusInternalServerError, "page missing: %v", err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:")
	if _, err := w.Write(page); err != nil {
		h.log.Debug("arbor debug: write page", "err", err)
	}
}

// writeJSON writes v as the response.
func (h *handler) writeJSON(w http.ResponseWriter, code int, v any) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		h.log.Error("arbor debug: encode response", "err", err)
		http.Error(w, `{"error":"encoding failed"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	if _, err := w.Write(buf.Bytes()); err != nil {
		h.log.Debug("arbor debug: write response", "err", err)
	}
}

// fail writes a JSON error.
func (h *handler) fail(w http.ResponseWriter, code int, format string, args ...any) {
	h.writeJSON(w, code, map[string]string{"error": fmt.Sprintf(format, args...)})
}

// agentID parses the {id} path value; it writes the error response and
// returns false when the id is malformed.
func (h *handler) agentID(w http.ResponseWriter, r *http.Request) (int, bool) {
	raw := r.PathValue("id")
	id, err := strconv.Atoi(raw)
	if err != nil || id < 0 {
		h.fail(w, http.StatusBadRequest, "bad agent id %q: want a non-negative integer", truncate(raw, 40))
		return 0, false
	}
	return id, true
}

// withAgent runs fn under the session lock with agent id, or writes 404.
func (h *handler) withAgent(w http.ResponseWriter, r *http.Request, fn func(a *arbor.Agent) any) {
	h.locked(w, r, func(id int) any {
		if a := h.s.m.Agent(id); a != nil {
			return fn(a)
		}
		return noAgent(id)
	})
}

// withRecorded is withAgent for the reads of recorded ticks, which also
// serve a watched agent removed from the manager a short while ago; wt is
// the agent's watch, nil when it is not watched.
func (h *handler) withRecorded(w http.ResponseWriter, r *http.Request, fn func(a *arbor.Agent, wt *watch) any) {
	h.locked(w, r, func(id int) any {
		if a, wt, _ := h.s.recordedLocked(id); a != nil {
			return fn(a, wt)
		}
		return noAgent(id)
	})
}

// locked runs fn under the session lock with the request's agent id and
// writes what it returns: JSON, or an httpError.
func (h *handler) locked(w http.ResponseWriter, r *http.Request, fn func(id int) any) {
	id, ok := h.agentID(w, r)
	if !ok {
		return
	}
	out := func() any {
		// Unlocked even if fn panics (net/http recovers the handler's
		// panic): a locked session would stop the ticks and every page.
		h.s.mu.Lock()
		defer h.s.mu.Unlock()
		return fn(id)
	}()
	if e, isErr := out.(httpError); isErr {
		h.fail(w, e.code, "%s", e.msg)
		return
	}
	h.writeJSON(w, http.StatusOK, out)
}

// noAgent is the answer about an agent that is not there.
func noAgent(id int) httpError {
	return httpError{code: http.StatusNotFound, msg: noAgentMsg(id)}
}

// noAgentMsg says that agent id is not in the session: the manager does
// not hold it, and it is not a watched agent removed less than Linger ago.
func noAgentMsg(id int) string {
	return fmt.Sprintf("no agent %d in the session (never added, or removed from the manager)", id)
}

type httpError struct {
	code int
	msg  string
}

// statusName is the agent status filter vocabulary.
func statusName(a *arbor.Agent) string {
	if a.Status() == arbor.Invalid {
		return "idle"
	}
	return a.Status().String()
}

type sessionInfo struct {
	// Session is the session's id: a page that sees it change knows the
	// program restarted, and starts again.
	Session  string     `json:"session"`
	Title    string     `json:"title"`
	Controls bool       `json:"controls"`
	Edit     bool       `json:"edit"` // the page may edit trees (Controls and Options.Recompile)
	History  int        `json:"history"`
	MaxRate  float64    `json:"maxRate"`
	Links    []Link     `json:"links"`
	Tick     uint64     `json:"tick"`
	Now      float64    `json:"nowMs"`
	Rate     float64    `json:"ticksPerSecond"`
	Agents   int        `json:"agents"`
	Trees    []treeInfo `json:"trees"`
	Watched  []int      `json:"watched"`
	// BreakEvents are the event kinds a breakpoint can stop on.
	BreakEvents []string `json:"breakEvents"`
	// CheckOps are Check's operators, offered as a list in the edit forms.
	CheckOps []string `json:"checkOps"`
	// Recording is set when the page shows a recording (arbor replay)
	// rather than a live manager.
	Recording *recordingInfo `json:"recording,omitempty"`
}

// checkOps are Check's operators as files write them.
var checkOps = arbor.OpNames()

type treeInfo struct {
	ID       int            `json:"id"`
	Name     string         `json:"name"`
	Nodes    int            `json:"nodes"`
	Count    int            `json:"count"`
	ByStatus map[string]int `json:"byStatus"`
}

// summaryLocked counts agents per tree and status.
func (s *Session) summaryLocked() sessionInfo {
	info := sessionInfo{Session: s.id, Title: s.opts.Title, Controls: s.opts.Controls, Edit: s.canEdit(), History: s.opts.History, MaxRate: s.opts.MaxRate,
		Links: s.opts.Links, Tick: s.tick, Now: durMs(s.now), Rate: s.rate, Agents: s.m.Len(), Watched: []int{},
		BreakEvents: breakEvents, CheckOps: checkOps}
	if info.Links == nil {
		info.Links = []Link{}
	}
	// The counts change only with a tick or a change between ticks (Do,
	// controls): one walk serves every viewer until then.
	key := summaryKey{tick: s.tick, gen: s.gen, agents: s.m.Len()}
	if s.sumTrees == nil || s.sumKey != key {
		s.sumTrees, s.sumKey = s.countTrees(), key
	}
	info.Trees = s.sumTrees
	for id := range s.watches {
		info.Watched = append(info.Watched, id)
	}
	sort.Ints(info.Watched)
	return info
}

// summaryKey identifies the state the cached tree counts describe.
type summaryKey struct {
	tick, gen uint64
	agents    int
}

// countTrees counts the agents per tree and status.
func (s *Session) countTrees() []treeInfo {
	// One pass over the agents with no map access per agent: agents of
	// the same tree usually come together, and statuses count in arrays.
	type tally struct {
		td     *treeDesc
		count  int
		status [arbor.Running + 1]int // by status; Invalid is idle
		paused int
	}
	var tallies []*tally
	byTree := map[*arbor.Tree]*tally{}
	var lastTree *arbor.Tree
	var cur *tally
	for _, a := range s.m.Agents() {
		if t := a.Tree(); t != lastTree {
			if cur = byTree[t]; cur == nil {
				cur = &tally{td: s.treeOf(a)}
				byTree[t] = cur
				tallies = append(tallies, cur)
			}
			lastTree = t
		}
		cur.count++
		// A paused agent counts as paused only, as the list shows it.
		if a.Paused() {
			cur.paused++
		} else if st := a.Status(); st <= arbor.Running {
			cur.status[st]++
		}
	}
	sort.Slice(tallies, func(i, j int) bool { return tallies[i].td.ID < tallies[j].td.ID })
	trees := []treeInfo{}
	for _, tl := range tallies {
		ti := treeInfo{ID: tl.td.ID, Name: tl.td.Name, Nodes: len(tl.td.Nodes), Count: tl.count, ByStatus: map[string]int{}}
		for st, n := range tl.status {
			if n > 0 {
				name := "idle"
				if arbor.Status(st) != arbor.Invalid {
					name = arbor.Status(st).String()
				}
				ti.ByStatus[name] += n
			}
		}
		if tl.paused > 0 {
			ti.ByStatus["paused"] = tl.paused
		}
		trees = append(trees, ti)
	}
	return trees
}

func (h *handler) session(w http.ResponseWriter, r *http.Request) {
	h.s.mu.Lock()
	info := h.s.summaryLocked()
	h.s.mu.Unlock()
	h.writeJSON(w, http.StatusOK, info)
}

type agentInfo struct {
	ID       int     `json:"id"`
	Tree     int     `json:"tree"`
	TreeName string  `json:"treeName"`
	Status   string  `json:"status"`
	Paused   bool    `json:"paused"`
	Label    string  `json:"label,omitempty"`
	Watched  bool    `json:"watched"`
	Now      float64 `json:"nowMs"`
	// Rev is the session's change count when this was read: of two
	// answers about an agent, the one with the higher Rev is newer.
	Rev uint64 `json:"rev"`
	// Removed: the agent was removed from the manager (its recorded
	// ticks stay readable for a while).
	Removed bool `json:"removed,omitempty"`
	// Breakpoints and LastBreak: in the agent's own view, not the list.
	Breakpoints []breakpointView `json:"breakpoints,omitempty"`
	LastBreak   *breakHit        `json:"lastBreak,omitempty"`
	// Forces: the forced nodes (arbor.Agent.Force), in the agent's own
	// view; none for a removed agent.
	Forces []forceView `json:"forces,omitempty"`
	// Errors counts the node errors reported for the agent (ReportError)
	// since the session began.
	Errors uint64 `json:"errors,omitempty"`
}

func (s *Session) agentInfoLocked(a *arbor.Agent) agentInfo {
	td := s.treeOf(a)
	ai := agentInfo{ID: a.ID(), Tree: td.ID, TreeName: td.Name, Status: statusName(a), Paused: a.Paused(),
		Now: durMs(a.Now()), Rev: s.rev, Removed: s.m.Agent(a.ID()) != a, Errors: s.errs.count(a)}
	if w := s.watches[a.ID()]; w != nil && !ai.Removed {
		ai.Watched, ai.Breakpoints, ai.LastBreak = true, w.breakpoints(), w.lastBreak()
	}
	if !ai.Removed {
		ai.Forces = s.forcesOf(a)
	}
	if s.opts.Label != nil {
		ai.Label = s.label(a)
	}
	return ai
}

// label returns Options.Label's text for a, or "" when it panics: it runs
// under the session's lock, and a panic there (recovered by net/http)
// would leave the lock held, stopping the ticks and every page.
func (s *Session) label(a *arbor.Agent) (text string) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("arbor debug: Options.Label panicked", "agent", a.ID(), "panic", r)
			text = ""
		}
	}()
	return s.opts.Label(a)
}

type agentList struct {
	Total   int         `json:"total"`   // agents in the manager
	Matches int         `json:"matches"` // agents matching the filter
	Offset  int         `json:"offset"`
	Agents  []agentInfo `json:"agents"`
	Trees   []treeInfo  `json:"trees"`
	Tick    uint64      `json:"tick"`
}

// agents lists agents: q searches the id as the list shows it ("#17";
// "17" and "#17" both find it), the label and the tree name, and the agent
// whose id q is comes first; tree filters by tree id; status by running,
// success, failure, idle or paused (a paused agent is listed under paused
// only, as the tree counts have it).
func (h *handler) agents(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	search := strings.ToLower(strings.TrimSpace(q.Get("q")))
	status := q.Get("status")
	switch status {
	case "", "running", "success", "failure", "idle", "paused":
	default:
		h.fail(w, http.StatusBadRequest, "bad status %q: want running, success, failure, idle or paused", truncate(status, 40))
		return
	}
	treeID := -1
	if t := q.Get("tree"); t != "" {
		var err error
		if treeID, err = strconv.Atoi(t); err != nil {
			h.fail(w, http.StatusBadRequest, "bad tree id %q", truncate(t, 40))
			return
		}
	}
	offset, limit := 0, 200
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			h.fail(w, http.StatusBadRequest, "bad offset %q", truncate(v, 40))
			return
		}
		offset = n
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			h.fail(w, http.StatusBadRequest, "bad limit %q", truncate(v, 40))
			return
		}
		limit = min(n, 5000)
	}
	s := h.s
	s.mu.Lock()
	sum := s.summaryLocked()
	out := agentList{Total: s.m.Len(), Offset: offset, Agents: []agentInfo{}, Trees: sum.Trees, Tick: s.tick}
	errCounts := s.errs.counts()
	// list lists agent a when it passes the filters.
	list := func(a *arbor.Agent) {
		td := s.treeOf(a)
		if treeID >= 0 && td.ID != treeID {
			return
		}
		if status == "paused" && !a.Paused() || status != "" && status != "paused" && (a.Paused() || statusName(a) != status) {
			return
		}
		var label string
		if s.opts.Label != nil && (search != "" || (out.Matches >= offset && len(out.Agents) < limit)) {
			label = s.label(a)
		}
		if search != "" && !strings.Contains("#"+strconv.Itoa(a.ID()), search) &&
			!strings.Contains(strings.ToLower(label), search) && !strings.Contains(strings.ToLower(td.Name), search) {
			return
		}
		if out.Matches >= offset && len(out.Agents) < limit {
			ai := agentInfo{ID: a.ID(), Tree: td.ID, TreeName: td.Name, Status: statusName(a), Paused: a.Paused(),
				Label: label, Watched: s.watches[a.ID()] != nil, Now: durMs(a.Now()), Rev: s.rev, Errors: errCounts[a.ID()]}
			out.Agents = append(out.Agents, ai)
		}
		out.Matches++
	}
	// The agent whose id was asked for ("17" or "#17") comes first.
	var exact *arbor.Agent
	if id, err := strconv.Atoi(strings.TrimPrefix(search, "#")); err == nil && id >= 0 && strconv.Itoa(id) == strings.TrimPrefix(search, "#") {
		if exact = s.m.Agent(id); exact != nil {
			list(exact)
		}
	}
	for _, a := range s.m.Agents() {
		if a != exact {
			list(a)
		}
	}
	s.mu.Unlock()
	h.writeJSON(w, http.StatusOK, out)
}

// errors serves an agent's recent node errors, newest first; also those
// of a watched agent removed less than Linger ago.
func (h *handler) errors(w http.ResponseWriter, r *http.Request) {
	h.withRecorded(w, r, func(a *arbor.Agent, _ *watch) any {
		ev := h.s.errs.errorsOf(a)
		ev.Rev = h.s.rev
		return ev
	})
}

// agent serves an agent's JSON; also a watched agent removed less than
// Linger ago ("removed": true), which a page opens after a reload.
func (h *handler) agent(w http.ResponseWriter, r *http.Request) {
	h.withRecorded(w, r, func(a *arbor.Agent, _ *watch) any { return h.s.agentInfoLocked(a) })
}

type blackboardView struct {
	Agent  int       `json:"agent"`
	Now    float64   `json:"nowMs"`
	Local  []bbEntry `json:"agentScope"`
	Global []bbEntry `json:"globalScope"`
}

func (h *handler) blackboard(w http.ResponseWriter, r *http.Request) {
	h.withAgent(w, r, func(a *arbor.Agent) any {
		local, global := splitEntries(a.Blackboard().Entries())
		return blackboardView{Agent: a.ID(), Now: durMs(a.Now()), Local: local, Global: global}
	})
}

// globals lists the global scope at the session's time.
func (h *handler) globals(w http.ResponseWriter, r *http.Request) {
	s := h.s
	s.mu.Lock()
	now := s.now
	_, global := splitEntries(s.m.Globals().Entries(now))
	s.mu.Unlock()
	h.writeJSON(w, http.StatusOK, map[string]any{"nowMs": durMs(now), "globalScope": global})
}

func (h *handler) tree(w http.ResponseWriter, r *http.Request) {
	raw := r.PathValue("tid")
	tid, err := strconv.Atoi(raw)
	s := h.s
	s.mu.Lock()
	var td *treeDesc
	var undo, redo *undoInfo
	if err == nil && tid >= 0 && tid < len(s.treeList) {
		td = s.treeList[tid]
		if s.canEdit() && td.tree != nil {
			undo, redo = s.undoOf(td.tree), s.redoOf(td.tree)
		}
	}
	s.mu.Unlock()
	if td == nil {
		h.fail(w, http.StatusNotFound, "no tree %q", truncate(raw, 40))
		return
	}
	h.writeJSON(w, http.StatusOK, treeView{treeDesc: td, Types: td.types, Palette: td.palette, Categories: td.categories, Undo: undo, Redo: redo})
}

// tickSummary is one tick in the timeline strip: [seq, tick, now ms,
// root status letter, events, between (0/1), marks].
type tickSummary [7]any

// Marks of a tick in the timeline strip (tickSummary), bits.
const (
	markError  = 1 << iota // a node reported an error
	markHalted             // a running node was halted or aborted: the running branch changed
)

func summarize(r *record) tickSummary {
	between := 0
	if r.Between {
		between = 1
	}
	marks := 0
	if len(r.Errs) > 0 {
		marks |= markError
	}
	for _, e := range r.Events {
		if e.Kind == arbor.EventHalt || e.Kind == arbor.EventAbort {
			marks |= markHalted
			break
		}
	}
	return tickSummary{r.Seq, r.Tick, durMs(r.Now), string(statusLetter(r.Status)), len(r.Events), between, marks}
}

type timelineView struct {
	Agent    int           `json:"agent"`
	Watching bool          `json:"watching"`
	History  int           `json:"history"`
	Since    uint64        `json:"since"` // session tick when watching began
	Ticks    []tickSummary `json:"ticks"`
}

func (h *handler) timeline(w http.ResponseWriter, r *http.Request) {
	h.withAgent(w, r, func(a *arbor.Agent) any {
		tv := timelineView{Agent: a.ID(), History: h.s.opts.History, Ticks: []tickSummary{}}
		if wt := h.s.watches[a.ID()]; wt != nil {
			tv.Watching, tv.Since = true, wt.since
			for _, rec := range wt.records() {
				tv.Ticks = append(tv.Ticks, summarize(rec))
			}
		}
		return tv
	})
}

// jsonEvent is an event for the page: kind, node, status, condition, and
// microseconds since the agent's tick began.
type jsonEvent struct {
	Kind   string  `json:"kind"`
	Node   int32   `json:"node"`
	Status string  `json:"status,omitempty"`
	Cond   *int32  `json:"cond,omitempty"`
	AtUs   float64 `json:"atUs"`
}

func jsonEvents(es []event) []jsonEvent {
	out := make([]jsonEvent, len(es))
	for i, e := range es {
		je := jsonEvent{Kind: e.Kind.String(), Node: e.Node, AtUs: float64(e.At) / float64(time.Microsecond)}
		if e.Kind == arbor.EventResult || e.Kind == arbor.EventEval {
			je.Status = e.Status.String()
		}
		if e.Kind == arbor.EventAbort {
			c := e.Cond
			je.Cond = &c
		}
		out[i] = je
	}
	return out
}

// tickView is a watched agent as it was after one recorded tick.
type tickView struct {
	Agent   int         `json:"agent"`
	Seq     uint64      `json:"seq"`
	Tick    uint64      `json:"tick"`
	Now     float64     `json:"nowMs"`
	Status  string      `json:"status"`
	Between bool        `json:"between"`
	Nodes   string      `json:"nodes"` // a status letter per node
	Running [][]int     `json:"running"`
	Events  []jsonEvent `json:"events"`
	Local   []bbEntry   `json:"agentScope"`
	Global  []bbEntry   `json:"globalScope"`
	// ErrorNodes are the nodes that reported a node error in the tick.
	ErrorNodes []int32 `json:"errorNodes,omitempty"`
}

func viewOf(id int, wt *watch, rec *record, nodes string) tickView {
	return tickView{Agent: id, Seq: rec.Seq, Tick: rec.Tick, Now: durMs(rec.Now), Status: rec.Status.String(),
		Between: rec.Between, Nodes: nodes, Running: runningPaths(wt.td, nodes), Events: jsonEvents(rec.Events),
		Local: rec.Local, Global: rec.Global, ErrorNodes: rec.Errs}
}

// tickAnswer is the answer of ticks/{seq}: the record, and the history's
// bounds when it was read.
type tickAnswer struct {
	tickView
	First uint64 `json:"first"` // the oldest record kept
	Last  uint64 `json:"last"`  // the newest record
}

// tickAt serves one recorded tick. With clamp=1, a record that has left
// the history (older than the oldest kept) answers the oldest record kept
// instead, its seq telling which: a page scrubbing the history asks for
// the records its slider offers, and the history moves on meanwhile.
func (h *handler) tickAt(w http.ResponseWriter, r *http.Request) {
	raw := r.PathValue("seq")
	seq, err := strconv.ParseUint(raw, 10, 64)
	if err != nil {
		h.fail(w, http.StatusBadRequest, "bad tick %q: want a record number", truncate(raw, 40))
		return
	}
	clamp := false
	if v := r.URL.Query().Get("clamp"); v != "" {
		if clamp, err = strconv.ParseBool(v); err != nil {
			h.fail(w, http.StatusBadRequest, "bad clamp %q: want 1 or 0", truncate(v, 40))
			return
		}
	}
	h.withRecorded(w, r, func(a *arbor.Agent, wt *watch) any {
		if wt == nil {
			return httpError{http.StatusNotFound, fmt.Sprintf("agent %d is not watched: no recorded ticks", a.ID())}
		}
		first, last := wt.bounds()
		if clamp && wt.n > 0 && seq < first {
			seq = first
		}
		rec := wt.find(seq)
		if rec == nil {
			return httpError{http.StatusNotFound, fmt.Sprintf("tick record %d is not in the history", seq)}
		}
		nodes, _ := wt.statusesAt(seq)
		return tickAnswer{tickView: viewOf(a.ID(), wt, rec, nodes), First: first, Last: last}
	})
}

// nodeHistoryView is one node over the history: its status letter and
// its events in each record from From to Last.
type nodeHistoryView struct {
	Agent    int    `json:"agent"`
	Node     int    `json:"node"`
	First    uint64 `json:"first"` // the oldest record kept
	Last     uint64 `json:"last"`  // the newest record
	From     uint64 `json:"from"`  // the record of the first letter (0: none)
	Statuses string `json:"statuses"`
	Events   string `json:"events"`
}

// nodeHistory serves one node's status in every kept record (newer than
// ?after=, when given: a page that holds the earlier ones asks for the
// new ones), a letter per record as in a record's nodes, and a
// hexadecimal digit per record of its events (1 start, 2 halt, 4 abort,
// 8 node error). A page draws the node's history from it without asking
// for each record.
func (h *handler) nodeHistory(w http.ResponseWriter, r *http.Request) {
	raw := r.PathValue("node")
	node, err := strconv.Atoi(raw)
	if err != nil || node < 0 {
		h.fail(w, http.StatusBadRequest, "bad node %q: want a node number", truncate(raw, 40))
		return
	}
	var after uint64
	if v := r.URL.Query().Get("after"); v != "" {
		if after, err = strconv.ParseUint(v, 10, 64); err != nil {
			h.fail(w, http.StatusBadRequest, "bad after %q: want a record number", truncate(v, 40))
			return
		}
	}
	h.withRecorded(w, r, func(a *arbor.Agent, wt *watch) any {
		if wt == nil {
			return httpError{http.StatusNotFound, fmt.Sprintf("agent %d is not watched: no recorded ticks", a.ID())}
		}
		if node >= len(wt.base) {
			return httpError{http.StatusNotFound, fmt.Sprintf("no node %d: the agent's tree has %d nodes", node, len(wt.base))}
		}
		first, last := wt.bounds()
		from, st, ev := wt.nodeHistory(int32(node), after)
		return nodeHistoryView{Agent: a.ID(), Node: node, First: first, Last: last, From: from, Statuses: string(st), Events: string(ev)}
	})
}

// statsView lists per-node counters: [ticks, successes, failures,
// running, starts, halts, aborts, time µs] per node.
type statsView struct {
	Agent    int          `json:"agent"`
	Watching bool         `json:"watching"`
	Since    uint64       `json:"since"`
	Columns  []string     `json:"columns"`
	Nodes    [][8]float64 `json:"nodes"`
}

var statsColumns = []string{"ticks", "successes", "failures", "running", "starts", "halts", "aborts", "timeUs"}

func statsOf(wt *watch) [][8]float64 {
	out := make([][8]float64, len(wt.stats))
	for i, st := range wt.stats {
		out[i] = [8]float64{float64(st.Ticks), float64(st.Successes), float64(st.Failures), float64(st.Running),
			float64(st.Starts), float64(st.Halts), float64(st.Aborts), float64(st.Time) / float64(time.Microsecond)}
	}
	return out
}

func (h *handler) stats(w http.ResponseWriter, r *http.Request) {
	h.withAgent(w, r, func(a *arbor.Agent) any {
		sv := statsView{Agent: a.ID(), Columns: statsColumns, Nodes: [][8]float64{}}
		if wt := h.s.watches[a.ID()]; wt != nil {
			sv.Watching, sv.Since, sv.Nodes = true, wt.since, statsOf(wt)
		}
		return sv
	})
}

// exportView is the recorded history of an agent, for saving.
type exportView struct {
	Format   string     `json:"format"`
	Agent    agentInfo  `json:"agent"`
	Watching bool       `json:"watching"`
	History  int        `json:"history"`
	Tree     *treeDesc  `json:"tree"`
	Base     string     `json:"base"` // node statuses before the first tick
	Ticks    []tickView `json:"ticks"`
	Stats    statsView  `json:"stats"`
	Exported string     `json:"exported"`
}

func (h *handler) export(w http.ResponseWriter, r *http.Request) {
	id, ok := h.agentID(w, r)
	if !ok {
		return
	}
	ev, ok := h.s.exportOf(id)
	if !ok {
		h.fail(w, http.StatusNotFound, "%s", noAgentMsg(id))
		return
	}
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": fmt.Sprintf("agent-%d.json", id)}))
	h.writeJSON(w, http.StatusOK, ev)
}

// exportOf returns the recorded history of agent id (in the manager, or
// removed but kept), or false when there is no such agent.
func (s *Session) exportOf(id int) (*exportView, bool) {
	s.mu.Lock()
	a, wt, _ := s.recordedLocked(id)
	if a == nil {
		s.mu.Unlock()
		return nil, false
	}
	ev := &exportView{Format: RecordingFormat, Agent: s.agentInfoLocked(a), History: s.opts.History,
		Tree: s.treeOf(a), Ticks: []tickView{}, Exported: time.Now().UTC().Format(time.RFC3339)}
	ev.Stats = statsView{Agent: id, Columns: statsColumns, Nodes: [][8]float64{}}
	var recs []*record
	var base []byte
	if wt != nil {
		ev.Watching = true
		recs = wt.records()
		base = append([]byte(nil), wt.base...)
		ev.Stats.Watching, ev.Stats.Since, ev.Stats.Nodes = true, wt.since, statsOf(wt)
	}
	s.mu.Unlock()
	ev.Base = string(base)
	// Replay the (immutable) records outside the lock.
	st := base
	for _, rec := range recs {
		for _, e := range rec.Events {
			applyEvent(st, e)
		}
		nodes := []byte(string(st))
		for _, e := range rec.Events {
			if c := nodes[e.Node]; c >= 'a' && c <= 'z' {
				nodes[e.Node] = c - ('a' - 'A')
			}
		}
		ev.Ticks = append(ev.Ticks, viewOf(id, wt, rec, string(nodes)))
	}
	return ev, true
}

// --- controls ---------------------------------------------------------------

// authorize checks that controls are enabled, that the request comes from
// the debugger's own origin and that it carries the token. It writes the
// error response and returns false otherwise.
func (h *handler) authorize(w http.ResponseWriter, r *http.Request) bool {
	s := h.s
	if !s.opts.Controls {
		h.fail(w, http.StatusForbidden, "the debugger is read-only: the program did not enable controls")
		return false
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || !strings.EqualFold(u.Host, r.Host) {
			h.fail(w, http.StatusForbidden, "cross-origin request refused")
			return false
		}
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		h.fail(w, http.StatusForbidden, "cross-site request refused")
		return false
	}
	got := r.Header.Get("X-Arbor-Token")
	if got == "" {
		if auth := r.Header.Get("Authorization"); strings.HasPrefix(auth, "Bearer ") {
			got = strings.TrimPrefix(auth, "Bearer ")
		}
	}
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
		h.fail(w, http.StatusUnauthorized, "missing or wrong token (header X-Arbor-Token)")
		return false
	}
	return true
}

// setRequest is the body of a blackboard write.
type setRequest struct {
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value"`
	TTLMs float64         `json:"ttlMs"`
}

// decodeJSON decodes a control request's JSON body (at most 64 KiB, no
// unknown fields, nothing after it) into v. It writes the error response
// and returns false when the body is not such JSON.
func (h *handler) decodeJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || ct != "application/json" {
		h.fail(w, http.StatusUnsupportedMediaType, "want Content-Type: application/json")
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		h.fail(w, http.StatusBadRequest, "bad body: %v", err)
		return false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		h.fail(w, http.StatusBadRequest, "bad body: trailing data")
		return false
	}
	return true
}

// readSet decodes and checks a blackboard write.
func (h *handler) readSet(w http.ResponseWriter, r *http.Request) (key string, value any, ttl time.Duration, ok bool) {
	var req setRequest
	if !h.decodeJSON(w, r, &req) {
		return "", nil, 0, false
	}
	req.Key = strings.TrimSpace(req.Key)
	if req.Key == "" || req.Key == "@" || len(req.Key) > 200 {
		h.fail(w, http.StatusBadRequest, "bad key: want 1 to 200 characters")
		return "", nil, 0, false
	}
	if len(req.Value) > 0 {
		if err := json.Unmarshal(req.Value, &value); err != nil {
			h.fail(w, http.StatusBadRequest, "bad value: %v", err)
			return "", nil, 0, false
		}
	}
	if req.TTLMs < 0 || req.TTLMs > 1e12 {
		h.fail(w, http.StatusBadRequest, "bad ttlMs: want 0 (no expiry) or a positive number of milliseconds")
		return "", nil, 0, false
	}
	return req.Key, value, time.Duration(req.TTLMs * float64(time.Millisecond)), true
}

// control runs pause, resume, step or a blackboard write on one agent.
func (h *handler) control(w http.ResponseWriter, r *http.Request) {
	op := r.PathValue("op")
	switch op {
	case "pause", "resume", "step", "blackboard":
	default:
		h.fail(w, http.StatusNotFound, "unknown operation %q", truncate(op, 40))
		return
	}
	if !h.authorize(w, r) {
		return
	}
	id, ok := h.agentID(w, r)
	if !ok {
		return
	}
	var key, warning string
	var value any
	var ttl time.Duration
	if op == "blackboard" {
		if key, value, ttl, ok = h.readSet(w, r); !ok {
			return
		}
	}
	s := h.s
	s.mu.Lock()
	s.gen++
	s.rev++
	a := s.m.Agent(id)
	var info agentInfo
	if a != nil {
		switch op {
		case "pause":
			a.Pause()
		case "resume":
			delete(s.steps, id)
			if wt := s.watches[id]; wt != nil {
				wt.atBreak = false
			}
			a.Resume()
		case "step":
			s.steps[id] = true
		case "blackboard":
			bb := a.Blackboard()
			warning = kindChange(key, bb.Value(key), value)
			switch {
			case value == nil:
				bb.Delete(key)
			case ttl > 0:
				bb.SetTTL(key, value, ttl)
			default:
				bb.Set(key, value)
			}
		}
		info = s.agentInfoLocked(a)
	}
	s.mu.Unlock()
	if a == nil {
		h.fail(w, http.StatusNotFound, "%s", noAgentMsg(id))
		return
	}
	// Every page watching the agent shows the change now, not at the
	// next tick.
	s.wake()
	s.log.Info("arbor debug: control", "op", op, "agent", id, "key", key)
	res := map[string]any{"ok": true, "op": op, "agent": info}
	if warning != "" {
		res["warning"] = warning
	}
	h.writeJSON(w, http.StatusOK, res)
}

// controlAll pauses, resumes or steps every agent of the session: the
// whole world stops (each agent's running nodes get their pause
// callbacks), goes on, or runs one tick and stops again.
func (h *handler) controlAll(w http.ResponseWriter, r *http.Request) {
	op := r.PathValue("op")
	switch op {
	case "pause", "resume", "step":
	default:
		h.fail(w, http.StatusNotFound, "unknown operation %q", truncate(op, 40))
		return
	}
	if !h.authorize(w, r) {
		return
	}
	s := h.s
	s.mu.Lock()
	s.gen++
	s.rev++
	agents := s.m.Agents()
	for _, a := range agents {
		switch op {
		case "pause":
			a.Pause()
		case "resume":
			delete(s.steps, a.ID())
			if wt := s.watches[a.ID()]; wt != nil {
				wt.atBreak = false
			}
			a.Resume()
		case "step":
			s.steps[a.ID()] = true
		}
	}
	n := len(agents)
	s.mu.Unlock()
	s.wake()
	s.log.Info("arbor debug: control of every agent", "op", op, "agents", n)
	h.writeJSON(w, http.StatusOK, map[string]any{"ok": true, "op": op, "agents": n})
}

// kindChange warns about a blackboard write that changes the kind of the
// value a key holds (a string over a number, say): the nodes that read it
// as before will fail, with node errors.
func kindChange(key string, old arbor.Value, value any) string {
	if value == nil || old.Kind() == arbor.KindNone {
		return ""
	}
	if nk := arbor.ValueOf(value).Kind(); nk != old.Kind() {
		return fmt.Sprintf("%s held %s and now holds %s: nodes that read it as before will fail (see the Errors tab)", key, article(old.Kind().String()), article(nk.String()))
	}
	return ""
}

// article puts "a" or "an" before a kind's name.
func article(s string) string {
	if s != "" && strings.ContainsRune("aeiou", rune(s[0])) {
		return "an " + s
	}
	return "a " + s
}

// setGlobal writes a global blackboard value.
func (h *handler) setGlobal(w http.ResponseWriter, r *http.Request) {
	if !h.authorize(w, r) {
		return
	}
	key, value, ttl, ok := h.readSet(w, r)
	if !ok {
		return
	}
	if ttl > 0 {
		h.fail(w, http.StatusBadRequest, "global values take no ttlMs")
		return
	}
	s := h.s
	s.mu.Lock()
	s.m.Globals().Set(key, value)
	s.mu.Unlock()
	s.log.Info("arbor debug: control", "op", "global", "key", key)
	h.writeJSON(w, http.StatusOK, map[string]any{"ok": true, "op": "global"})
}
