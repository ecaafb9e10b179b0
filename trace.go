package arbor

// EventKind is the kind of a node event reported to a Tracer.
type EventKind uint8

// The node events, in the vocabulary of scenario traces.
const (
	// EventStart: the node was ticked while idle; its activation begins.
	// Always followed by the node's EventResult.
	EventStart EventKind = iota + 1
	// EventResult: the node returned Status on this tick.
	EventResult
	// EventHalt: the node was running and has been interrupted.
	EventHalt
	// EventAbort: a conditional abort fired. Node is the watched composite
	// whose running descendants are halted next; Cond is the condition.
	EventAbort
	// EventEval: a node was evaluated without being ticked, with result
	// Status: a node of a guard (semantics §4: no start, halt or running
	// state), or a condition re-evaluated by its observer (§7).
	EventEval
)

// String returns "start", "result", "halt", "abort" or "eval".
func (k EventKind) String() string {
	switch k {
	case EventStart:
		return "start"
	case EventResult:
		return "result"
	case EventHalt:
		return "halt"
	case EventAbort:
		return "abort"
	case EventEval:
		return "eval"
	}
	return "event"
}

// Event is one thing that happened to a node of an agent.
type Event struct {
	Kind   EventKind // what happened
	Node   int32     // node id in the agent's Tree
	Status Status    // EventResult and EventEval: the node's result
	Cond   int32     // EventAbort only: the condition that changed
}

// Tracer receives node events. It is called synchronously from the agent's
// tick (and from Halt, Reset, SetTree, Restore, Unforce and a Manager's
// Remove and Stop, for their halt events), on the goroutine making the
// call: in a Manager with several workers, from several goroutines at once
// for different agents, so a tracer shared by agents must be safe for
// concurrent use. Keep it fast. A panic in it is
// logged and goes no further. Agent operations it calls on the agent
// (Halt, Reset, Pause, Resume) take effect when the tick ends; Agent.Tick
// is refused (ErrReentrantTick). With no tracer set, the engine pays one
// nil check per event.
type Tracer func(a *Agent, e Event)
