package debug

import (
	"net/http"
	"strconv"

	"github.com/arborbt/arbor"
)

// Forcing a node's result (arbor.Agent.Force) from the page: the forces
// are the engine's own state of the agent, set and lifted under the
// session lock between ticks like every control. The debugger keeps no
// copy: the agent's JSON lists what the engine says, so that forces set
// by the program (through Session.Do) show too, and a hot reload (which
// drops them) or a removal leaves none to show.

// forceView is one forced node.
type forceView struct {
	Node   int    `json:"node"`
	Label  string `json:"label"`
	Status string `json:"status"` // success, failure or running
}

// forceList is an agent's forced nodes, the answer of every
// api/agents/{id}/forces request.
type forceList struct {
	Agent  int         `json:"agent"`
	Forces []forceView `json:"forces"`
	Rev    uint64      `json:"rev"` // as in the agent's own view
}

// forcesOf lists the nodes of agent a that are forced, nil when none.
func (s *Session) forcesOf(a *arbor.Agent) []forceView {
	var out []forceView
	var td *treeDesc
	for i, n := 0, a.Tree().Len(); i < n; i++ {
		st := a.Forced(i)
		if st == arbor.Invalid {
			continue
		}
		if td == nil {
			td = s.treeOf(a)
		}
		out = append(out, forceView{Node: i, Label: td.Nodes[i].Label, Status: st.String()})
	}
	return out
}

// forcesLocked describes agent a's forced nodes.
func (s *Session) forcesLocked(a *arbor.Agent) forceList {
	out := forceList{Agent: a.ID(), Forces: []forceView{}, Rev: s.rev}
	if fs := s.forcesOf(a); fs != nil {
		out.Forces = fs
	}
	return out
}

// forceLocked forces node of agent a to st, or lifts its force when st is
// Invalid; all: lifts every force. Events the engine emits meanwhile (a
// node running only because it was forced to ends with a halt) make a
// record of a watched agent at once, so that the page shows them now.
func (s *Session) forceLocked(a *arbor.Agent, node int, st arbor.Status, all bool) error {
	w := s.watches[a.ID()]
	if w != nil {
		w.sync(s) // a reload between ticks: a record of the new tree's nodes
	}
	var err error
	switch {
	case all:
		for i, n := 0, a.Tree().Len(); i < n && err == nil; i++ {
			if a.Forced(i) != arbor.Invalid {
				err = a.Unforce(i)
			}
		}
	case st == arbor.Invalid:
		err = a.Unforce(node)
	default:
		err = a.Force(node, st)
	}
	if w != nil {
		w.flushBetween(s)
	}
	s.gen++
	s.rev++
	return err
}

// forceRequest is the body of POST api/agents/{id}/forces.
type forceRequest struct {
	Node   *int   `json:"node"`
	Status string `json:"status"`
}

func (h *handler) listForces(w http.ResponseWriter, r *http.Request) {
	h.withAgent(w, r, func(a *arbor.Agent) any { return h.s.forcesLocked(a) })
}

// setForce forces one node's result.
func (h *handler) setForce(w http.ResponseWriter, r *http.Request) {
	if !h.authorize(w, r) {
		return
	}
	var req forceRequest
	if !h.decodeJSON(w, r, &req) {
		return
	}
	if req.Node == nil || req.Status == "" {
		h.fail(w, http.StatusBadRequest, `bad body: want {"node": N, "status": "success"|"failure"|"running"} (DELETE lifts a force)`)
		return
	}
	st, ok := arbor.ParseStatus(req.Status)
	if !ok {
		h.fail(w, http.StatusBadRequest, "bad status %q: want success, failure or running", truncate(req.Status, 40))
		return
	}
	h.withAgent(w, r, func(a *arbor.Agent) any {
		if err := h.s.forceLocked(a, *req.Node, st, false); err != nil {
			return httpError{http.StatusBadRequest, err.Error()}
		}
		h.s.log.Info("arbor debug: control", "op", "force", "agent", a.ID(), "node", *req.Node, "status", req.Status)
		return h.s.forcesLocked(a)
	})
	h.s.wake() // the pages watching the agent show the change now
}

// clearForces lifts one node's force (?node=N) or all of an agent's.
func (h *handler) clearForces(w http.ResponseWriter, r *http.Request) {
	if !h.authorize(w, r) {
		return
	}
	// Only a request without parameters lifts every force: a misspelt or
	// empty parameter must not.
	q := r.URL.Query()
	node, all := 0, len(q) == 0
	if !all {
		raw := q["node"]
		if len(q) != 1 || len(raw) != 1 {
			h.fail(w, http.StatusBadRequest, "bad query: want ?node=N (one node) or none (every force)")
			return
		}
		n, err := strconv.Atoi(raw[0])
		if err != nil {
			h.fail(w, http.StatusBadRequest, "bad node %q: want a node id", truncate(raw[0], 40))
			return
		}
		node = n
	}
	h.withAgent(w, r, func(a *arbor.Agent) any {
		if err := h.s.forceLocked(a, node, arbor.Invalid, all); err != nil {
			return httpError{http.StatusBadRequest, err.Error()}
		}
		op := "unforce"
		if all {
			op = "clear forces"
		}
		h.s.log.Info("arbor debug: control", "op", op, "agent", a.ID(), "node", node)
		return h.s.forcesLocked(a)
	})
	h.s.wake()
}
