package arbor

import "fmt"

// Forcing a node's result is a debugging aid, like the fault injection of
// other engines' monitors: "what does the tree do if this Check fails, if
// this action keeps running?", tried on a live agent without editing the
// tree or the blackboard. The debugger's Node tab uses it.
//
// A forced node is not run. When it is ticked it returns the forced status
// (with the start and result events a tracer expects, and the end of a
// condition that observes for an abort), its guard is not evaluated and its
// subtree is not ticked. A node that was really running when it is first
// ticked forced is halted first (its running descendants, then itself, with
// their halt callbacks), exactly as when a parent halts it. A node forced
// to Running stays running, with no user callbacks: if its parent halts it
// later, it emits its halt event and nothing else. A forced condition also
// gives the forced result where it is evaluated without a tick: as part of
// a guard, and when an abort re-evaluates it.
//
// Forcing works on the engine's traced path: an agent with forced nodes and
// no tracer of its own gets an internal one that ignores the events (its
// Tracer method still returns nil). Forces are debugging state: they are not
// part of snapshots (a node running only because it is forced is saved as
// idle) and SetTree drops them. What they caused is state like any other:
// a snapshot taken while forces are set keeps the nodes their results let
// start and the abort observers registered with forced results, so the
// restored agent, without the forces, goes on as after Unforce (an abort
// may fire on its first tick).

// Force makes node id of the agent's tree return s whenever it is ticked,
// until Unforce. A condition (Check, Success, Failure or a user condition)
// and a node of a guard can be forced to Success or Failure only. Force is
// an error for a node id out of range, a status other than Success,
// Failure or Running, and when called from inside the agent's tick (or
// from a callback of Halt, Reset, Pause or Resume).
func (a *Agent) Force(id int, s Status) error {
	if err := a.forceable(id); err != nil {
		return fmt.Errorf("force node %d of agent %d: %w", id, a.id, err)
	}
	if s != Success && s != Failure && s != Running {
		return fmt.Errorf("force node %d of agent %d: status %v: want success, failure or running", id, a.id, s)
	}
	if s == Running && (isConditionKind(a.tree.nodes[id].kind) || int32(id) >= a.tree.nodes[0].end) {
		return fmt.Errorf("force node %d of agent %d: a condition or guard node cannot be running", id, a.id)
	}
	c := a.coldPart()
	if c.forced == nil {
		c.forced = make([]Status, len(a.tree.nodes))
	}
	if c.forced[id] == Invalid {
		c.nforced++
	}
	if c.forced[id] == Running && s != Running {
		a.endForced(int32(id))
	}
	c.forced[id] = s
	if a.tracer == nil {
		a.setTracer(ignoreEvents)
		c.nopTracer = true
	}
	return nil
}

// Unforce lifts the force on node id: from its next tick it runs again.
// A node running only because it was forced to Running ends at once (it
// emits its halt event), so that its next tick starts it. Unforce is an
// error for a node id out of range and when called from inside the
// agent's tick (or an operation's callbacks); lifting a force that is not
// set does nothing.
func (a *Agent) Unforce(id int) error {
	if err := a.forceable(id); err != nil {
		return fmt.Errorf("unforce node %d of agent %d: %w", id, a.id, err)
	}
	c := a.cold
	if c == nil || c.forced == nil || c.forced[id] == Invalid {
		return nil
	}
	a.endForced(int32(id))
	c.forced[id] = Invalid
	if c.nforced--; c.nforced == 0 {
		c.forced = nil
		if c.nopTracer {
			a.setTracer(nil)
			c.nopTracer = false
		}
	}
	return nil
}

// Forced returns the status node id is forced to, or Invalid when it is
// not forced (or id is out of range).
func (a *Agent) Forced(id int) Status {
	if c := a.cold; c != nil && c.forced != nil && uint(id) < uint(len(c.forced)) {
		return c.forced[id]
	}
	return Invalid
}

// forceable checks Force's and Unforce's common preconditions.
func (a *Agent) forceable(id int) error {
	switch {
	case a.tree == nil:
		return ErrNoTree
	case a.busy:
		return fmt.Errorf("called from inside its tick")
	case id < 0 || id >= len(a.tree.nodes):
		return fmt.Errorf("no such node (the tree has %d)", len(a.tree.nodes))
	}
	return nil
}

// forcedAt returns the status node i is forced to, or Invalid.
func (a *Agent) forcedAt(i int32) Status {
	if c := a.cold; c != nil && c.forced != nil {
		return c.forced[i]
	}
	return Invalid
}

// forcedTick is the tick of node i (n) forced to f.
func (a *Agent) forcedTick(i int32, n *node, f Status) Status {
	if b := a.st[i]; b&stRunning != 0 && b&stForced == 0 {
		a.halt(i) // the real activation ends here
	}
	if a.st[i]&stRunning == 0 {
		a.emit(Event{Kind: EventStart, Node: i})
	}
	if f == Running {
		a.st[i] |= stRunning | stForced
	} else {
		a.st[i] &^= stRunning | stForced
		if n.ends {
			a.ended(i, n, f)
		}
	}
	a.emit(Event{Kind: EventResult, Node: i, Status: f})
	return f
}

// endForced ends the activation of node i if it is running only because
// it was forced to.
func (a *Agent) endForced(i int32) {
	if a.st[i]&stForced != 0 {
		a.st[i] &^= stRunning | stForced
		a.emit(Event{Kind: EventHalt, Node: i})
	}
}

// dropForces forgets every force (the agent gets a new tree).
func (a *Agent) dropForces() {
	if c := a.cold; c != nil && c.forced != nil {
		c.forced, c.nforced = nil, 0
		if c.nopTracer {
			a.setTracer(nil)
			c.nopTracer = false
		}
	}
}

// ignoreEvents is the tracer of an agent with forced nodes and no tracer
// of its own.
func ignoreEvents(*Agent, Event) {}
