package debug

import (
	"fmt"
	"math/bits"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/arborbt/arbor"
)

// breakMask is the set of event kinds a node's breakpoint stops on, one
// bit per kind in the order of breakEvents.
type breakMask uint8

const (
	breakStart breakMask = 1 << iota
	breakSuccess
	breakFailure
	breakRunning
	breakHalt
	breakAbort
)

// breakEvents names the kinds a breakpoint can stop on, in bit order, in
// the engine's own vocabulary: a node's start, its result (or, for a node
// of a guard, its evaluation) by status, its halt, and a conditional abort
// fired by the watched composite.
var breakEvents = []string{
	arbor.EventStart.String(),
	arbor.Success.String(),
	arbor.Failure.String(),
	arbor.Running.String(),
	arbor.EventHalt.String(),
	arbor.EventAbort.String(),
}

// eventBit returns the breakpoint kind of e (0: none).
func eventBit(e arbor.Event) breakMask {
	switch e.Kind {
	case arbor.EventStart:
		return breakStart
	case arbor.EventResult, arbor.EventEval:
		switch e.Status {
		case arbor.Success:
			return breakSuccess
		case arbor.Failure:
			return breakFailure
		case arbor.Running:
			return breakRunning
		}
	case arbor.EventHalt:
		return breakHalt
	case arbor.EventAbort:
		return breakAbort
	}
	return 0
}

// parseBreakMask reads event kind names.
func parseBreakMask(names []string) (breakMask, error) {
	var m breakMask
	for _, name := range names {
		i := slices.Index(breakEvents, name)
		if i < 0 {
			return 0, fmt.Errorf("unknown event %q: want one of %s", truncate(name, 40), strings.Join(breakEvents, ", "))
		}
		m |= 1 << i
	}
	return m, nil
}

// names lists the kinds in m.
func (m breakMask) names() []string {
	out := []string{}
	for i, name := range breakEvents {
		if m&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}

// breakHit is a breakpoint that stopped an agent, as sent to the page.
type breakHit struct {
	Node  int32     `json:"node"`
	Label string    `json:"label"`
	Event string    `json:"event"`
	Seq   uint64    `json:"seq"`   // the record of the tick
	Tick  uint64    `json:"tick"`  // the session's tick
	Now   float64   `json:"nowMs"` // the agent's game time
	At    time.Time `json:"at"`    // wall time of the event
	// Paused: the agent is still paused at this hit (it has not run
	// since, and was not resumed).
	Paused bool `json:"paused"`
}

// breakpointView is one node's breakpoint.
type breakpointView struct {
	Node  int      `json:"node"`
	Label string   `json:"label"`
	On    []string `json:"on"`
}

// breakpointList is an agent's breakpoints, the answer of every
// api/agents/{id}/breakpoints request.
type breakpointList struct {
	Agent       int              `json:"agent"`
	Events      []string         `json:"events"` // the kinds a breakpoint can stop on
	Breakpoints []breakpointView `json:"breakpoints"`
	LastBreak   *breakHit        `json:"lastBreak,omitempty"`
	Rev         uint64           `json:"rev"` // as in the agent's own view
}

// checkBreak is called by the tracer for each event of a watched agent
// that has breakpoints. The first matching event of a tick pauses the
// agent: a Pause requested inside the agent's own tick is applied by the
// engine when the tick ends.
func (w *watch) checkBreak(a *arbor.Agent, e arbor.Event) {
	bit := eventBit(e)
	if !w.ticking || w.hitPending || w.bp[e.Node]&bit == 0 {
		return
	}
	w.hitPending = true
	w.hit = breakHit{Node: e.Node, Event: breakEvents[bits.TrailingZeros8(uint8(bit))], At: time.Now()}
	a.Pause()
}

// closeBreak completes the hit of the tick just recorded, if any.
func (w *watch) closeBreak(s *Session) {
	if !w.hitPending {
		return
	}
	w.hitPending = false
	hit := w.hit
	hit.Seq, hit.Tick, hit.Now, hit.Label = w.seq, s.tick, durMs(w.agent.Now()), w.td.Nodes[hit.Node].Label
	w.lastHit, w.atBreak = &hit, true
	// Already paused by the engine at the end of the tick; this only
	// covers an agent whose queue of deferred operations was full.
	w.agent.Pause()
	s.log.Info("arbor debug: breakpoint", "agent", w.id, "node", hit.Node, "label", hit.Label, "event", hit.Event, "tick", hit.Tick)
}

// setBreak sets the kinds node breaks on (none: no breakpoint).
func (w *watch) setBreak(node int, on breakMask) {
	if w.bp == nil {
		if on == 0 {
			return
		}
		w.bp = make([]breakMask, len(w.td.Nodes))
	}
	switch had := w.bp[node] != 0; {
	case had && on == 0:
		w.nbp--
	case !had && on != 0:
		w.nbp++
	}
	w.bp[node] = on
}

// breakpoints lists the watch's breakpoints by node.
func (w *watch) breakpoints() []breakpointView {
	var out []breakpointView
	for i, m := range w.bp {
		if m != 0 {
			out = append(out, breakpointView{Node: i, Label: w.td.Nodes[i].Label, On: m.names()})
		}
	}
	return out
}

// lastBreak returns the last hit, nil when none.
func (w *watch) lastBreak() *breakHit {
	if w.lastHit == nil {
		return nil
	}
	hit := *w.lastHit
	hit.Paused = w.atBreak && w.agent.Paused()
	return &hit
}

// breakpointsLocked describes agent a's breakpoints.
func (s *Session) breakpointsLocked(a *arbor.Agent) breakpointList {
	out := breakpointList{Agent: a.ID(), Events: breakEvents, Breakpoints: []breakpointView{}, Rev: s.rev}
	if w := s.watches[a.ID()]; w != nil {
		if bps := w.breakpoints(); bps != nil {
			out.Breakpoints = bps
		}
		out.LastBreak = w.lastBreak()
	}
	return out
}

// setBreakLocked sets the kinds node of agent a breaks on; none removes
// its breakpoint. An agent with breakpoints is watched.
func (s *Session) setBreakLocked(a *arbor.Agent, node int, on breakMask) error {
	w := s.watches[a.ID()]
	if w != nil {
		w.sync(s) // a reload between ticks: nodes of the new tree
	}
	td := s.treeOf(a)
	if node < 0 || node >= len(td.Nodes) {
		return fmt.Errorf("no node %d in tree %s: want 0 to %d", node, td.Name, len(td.Nodes)-1)
	}
	if w == nil {
		if on == 0 {
			return nil
		}
		var err error
		if w, err = s.watchLocked(a.ID()); err != nil {
			return fmt.Errorf("set breakpoint: %w", err)
		}
	}
	w.setBreak(node, on)
	if w.nbp == 0 {
		s.dropBreaksLocked(w)
	}
	return nil
}

// clearBreaksLocked removes every breakpoint of agent a.
func (s *Session) clearBreaksLocked(a *arbor.Agent) {
	if w := s.watches[a.ID()]; w != nil {
		s.dropBreaksLocked(w)
	}
}

// dropBreaksLocked removes w's breakpoints, and ends the watch when they
// were all that kept it.
func (s *Session) dropBreaksLocked(w *watch) {
	w.bp, w.nbp = nil, 0
	if w.viewers == 0 {
		s.unwatchLocked(w)
	}
}

// breakpointRequest is the body of POST api/agents/{id}/breakpoints.
type breakpointRequest struct {
	Node *int     `json:"node"`
	On   []string `json:"on"`
}

func (h *handler) listBreakpoints(w http.ResponseWriter, r *http.Request) {
	h.withAgent(w, r, func(a *arbor.Agent) any { return h.s.breakpointsLocked(a) })
}

// setBreakpoint sets or removes one node's breakpoint.
func (h *handler) setBreakpoint(w http.ResponseWriter, r *http.Request) {
	if !h.authorize(w, r) {
		return
	}
	var req breakpointRequest
	if !h.decodeJSON(w, r, &req) {
		return
	}
	if req.Node == nil || req.On == nil {
		h.fail(w, http.StatusBadRequest, `bad body: want {"node": N, "on": [event, ...]} (an empty list removes)`)
		return
	}
	on, err := parseBreakMask(req.On)
	if err != nil {
		h.fail(w, http.StatusBadRequest, "bad breakpoint: %v", err)
		return
	}
	h.withAgent(w, r, func(a *arbor.Agent) any {
		if err := h.s.setBreakLocked(a, *req.Node, on); err != nil {
			return httpError{http.StatusBadRequest, "bad breakpoint: " + err.Error()}
		}
		h.s.rev++
		h.s.log.Info("arbor debug: control", "op", "breakpoint", "agent", a.ID(), "node", *req.Node, "on", on.names())
		return h.s.breakpointsLocked(a)
	})
	h.s.wake() // the pages watching the agent show the change now
}

// clearBreakpoints removes every breakpoint of an agent.
func (h *handler) clearBreakpoints(w http.ResponseWriter, r *http.Request) {
	if !h.authorize(w, r) {
		return
	}
	h.withAgent(w, r, func(a *arbor.Agent) any {
		h.s.clearBreaksLocked(a)
		h.s.rev++
		h.s.log.Info("arbor debug: control", "op", "clear breakpoints", "agent", a.ID())
		return h.s.breakpointsLocked(a)
	})
	h.s.wake() // the pages watching the agent show the change now
}
