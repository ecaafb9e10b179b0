package fsm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/arborbt/arbor"
)

// NodeType is the type name Register gives the FSM tree node by default.
const NodeType = "FSM"

// NodeOptions configures Register.
type NodeOptions struct {
	// Type is the node type name; NodeType ("FSM") when empty.
	Type string
	// OnError receives the run errors of the machines that nodes run
	// (conditions that cannot be evaluated, panics in callbacks), as
	// node errors of the FSM node wrapping a *RunError. When it is nil
	// they go to the agent's error handler (arbor.WithErrorHandler),
	// whose default logs with log/slog at most 10 a second.
	OnError func(*arbor.NodeError)
}

// Register registers on reg an action node type (NodeType, "FSM", unless
// opts say otherwise) that runs one of defs as a behavior tree node:
//
//	{ type: FSM, machine: Door, stateKey: doorState }
//
// The parameter machine names the definition; it may be omitted when defs
// holds one. The optional stateKey names a blackboard key to which the
// node's machine writes its active path (see WithStateKey), so that the
// debugger's blackboard view shows it. Each agent running the node gets its own Instance, which
// reads and writes the agent's blackboard and sees the agent's owner. The
// node:
//
//   - starts the machine afresh when it starts (the first Update enters
//     the initial states);
//   - updates it once per tick (Instance.Update at the tick's time) and
//     returns running while the top-level machine is not in a final
//     state, then the final state's outcome, success or failure; the
//     machine is then stopped (exit callbacks, innermost first);
//   - when halted (pre-empted, aborted, the agent halted or reset), stops
//     the machine: exit callbacks of the active states, innermost first.
//
// Definitions whose states run trees of their document (State.Tree)
// cannot be registered: those trees need the instance's own blackboard,
// and a node's instance uses its agent's. States may run agents
// (State.Agent).
func Register(reg *arbor.Registry, defs []*Definition, opts ...NodeOptions) error {
	var o NodeOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	typ := o.Type
	if typ == "" {
		typ = NodeType
	}
	if reg == nil {
		return fmt.Errorf("fsm: register node %q: nil registry", typ)
	}
	byName := map[string]*Definition{}
	for i, d := range defs {
		switch {
		case d == nil:
			return fmt.Errorf("fsm: register node %q: definition %d is nil", typ, i)
		case byName[d.name] != nil:
			return fmt.Errorf("fsm: register node %q: two definitions are named %q", typ, d.name)
		case d.host != nil:
			return fmt.Errorf("fsm: register node %q: machine %s: states %s run trees of the document, which a node cannot (they need the instance's own blackboard; use State.Agent, or run the machine with NewInstance)",
				typ, d.name, strings.Join(d.treeStates(), ", "))
		}
		byName[d.name] = d
	}
	if len(byName) == 0 {
		return fmt.Errorf("fsm: register node %q: no definitions", typ)
	}
	names := sortedKeys(byName)
	build := func(params map[string]any) (arbor.Action[nodeMem], error) {
		n := &node{typ: typ, onError: o.OnError}
		if raw, ok := params["stateKey"]; ok {
			key, isStr := raw.(string)
			if !isStr || key == "" {
				return nil, fmt.Errorf("parameter \"stateKey\": want a blackboard key (a non-empty string), got %v", raw)
			}
			n.stateKey = key
		}
		raw, ok := params["machine"]
		if !ok {
			if len(defs) == 1 {
				n.def = defs[0]
				return n, nil
			}
			return nil, fmt.Errorf("parameter \"machine\": missing required parameter (one of %s)", strings.Join(names, ", "))
		}
		name, isStr := raw.(string)
		if !isStr {
			return nil, fmt.Errorf("parameter \"machine\": want a machine name (a string), got %v", raw)
		}
		if n.def = byName[name]; n.def == nil {
			return nil, fmt.Errorf("parameter \"machine\": unknown machine %q (machines: %s)%s", name, strings.Join(names, ", "), didYouMean(name, names))
		}
		return n, nil
	}
	if err := arbor.RegisterActionFactory[nodeMem](reg, typ, []string{"machine", "stateKey"}, build, arbor.KeepMemory()); err != nil {
		return fmt.Errorf("fsm: %w", err)
	}
	return nil
}

// nodeMem is an agent's memory of an FSM node: its instance, kept over
// the agent's life (KeepMemory) so that activations do not allocate.
type nodeMem struct{ in *Instance }

// errRunningSnapshot is the snapshot error of an FSM node whose machine is
// running.
var errRunningSnapshot = errors.New("fsm: the FSM node's machine is running, and a machine's state is not saved in snapshots yet: snapshot the agent while the node is not running")

// MarshalBinary implements encoding.BinaryMarshaler for agent snapshots.
// A machine between activations has nothing to save (the next start
// begins afresh); a running one is an error, not a silent loss.
func (m *nodeMem) MarshalBinary() ([]byte, error) {
	if m.in != nil && m.in.depth > 0 {
		return nil, errRunningSnapshot
	}
	return []byte{}, nil
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler: the instance is
// made when the node next starts.
func (m *nodeMem) UnmarshalBinary(data []byte) error {
	if len(data) != 0 {
		return fmt.Errorf("fsm: %d bytes of FSM node memory, want none", len(data))
	}
	m.in = nil
	return nil
}

// node is the shared implementation of one FSM node.
type node struct {
	def      *Definition
	typ      string
	stateKey string
	onError  func(*arbor.NodeError)
}

var errNoInstance = errors.New("the FSM node has no instance (its start failed)")

// Start makes the agent's instance on first use, and makes sure it starts
// afresh.
func (n *node) Start(c *arbor.Ctx, m *nodeMem) error {
	if m.in == nil {
		agent := c.Agent()
		path, name := c.Path(), c.Name()
		in, err := NewInstance(n.def, WithBlackboard(c.Blackboard()), WithOwner(agent.Owner()), withAgent(agent), WithStateKey(n.stateKey),
			WithErrorHandler(func(e *RunError) {
				if n.onError != nil {
					n.onError(&arbor.NodeError{Path: path, Type: n.typ, Name: name, Agent: agent, Time: e.Time, Err: e})
					return
				}
				// The machine runs inside this node's callbacks: the agent's
				// error handler (or its rate-limited log) gets the error.
				c.Report(e)
			}))
		if err != nil {
			return fmt.Errorf("fsm node: %w", err)
		}
		m.in = in
	}
	m.in.Stop()
	return nil
}

// Tick updates the machine.
func (n *node) Tick(c *arbor.Ctx, m *nodeMem) (arbor.Status, error) {
	if m.in == nil {
		return arbor.Failure, errNoInstance
	}
	return m.in.Update(c.Now()), nil
}

// End stops the machine after it reached a final state (or failed).
func (n *node) End(_ *arbor.Ctx, m *nodeMem, _ arbor.Status) {
	if m.in != nil {
		m.in.Stop()
	}
}

// Halt stops the machine: exit callbacks, innermost first.
func (n *node) Halt(_ *arbor.Ctx, m *nodeMem) {
	if m.in != nil {
		m.in.Stop()
	}
}
