package fsm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
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
// the agent's life (KeepMemory) so that activations do not allocate, and
// the machine state a Restore gave it, applied when the instance is made.
type nodeMem struct {
	in    *Instance
	saved *machineState
}

// machineState is the running state of an FSM node's machine, as agent
// snapshots keep it: per level, the active state, when it was entered and
// the last result of its tree; and the machine's clock.
type machineState struct {
	active     []int32
	since      []int64
	treeStatus []arbor.Status
	now        int64
}

const machineStateVersion = 1

// MarshalBinary implements encoding.BinaryMarshaler for agent snapshots:
// nothing for a machine between activations (the next start begins
// afresh), else its active states. A state that runs a program's agent
// (State.Agent) cannot be saved: that is an error, not a silent loss.
func (m *nodeMem) MarshalBinary() ([]byte, error) {
	in := m.in
	if in == nil || in.depth == 0 {
		if m.saved != nil { // restored, not ticked since
			return m.saved.encode(), nil
		}
		return []byte{}, nil
	}
	ms := &machineState{now: in.now}
	for l := int32(0); l < in.depth; l++ {
		if in.agents[l] != nil {
			return nil, fmt.Errorf("fsm: state %s runs a program's agent, which snapshots do not hold", in.def.states[in.active[l]].path)
		}
		ms.active = append(ms.active, in.active[l])
		ms.since = append(ms.since, in.since[l])
		ms.treeStatus = append(ms.treeStatus, in.treeStatus[l])
	}
	return ms.encode(), nil
}

func (ms *machineState) encode() []byte {
	b := binary.AppendUvarint(nil, machineStateVersion)
	b = binary.AppendUvarint(b, uint64(len(ms.active)))
	for l := range ms.active {
		b = binary.AppendVarint(b, int64(ms.active[l]))
		b = binary.AppendVarint(b, ms.since[l])
		b = append(b, byte(ms.treeStatus[l]))
	}
	return binary.AppendVarint(b, ms.now)
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler. The state is
// checked against the machine, and applied, when the node next ticks.
func (m *nodeMem) UnmarshalBinary(data []byte) error {
	m.in, m.saved = nil, nil
	if len(data) == 0 {
		return nil
	}
	bad := func(what string) error { return fmt.Errorf("fsm: FSM node memory: %s", what) }
	v, n := binary.Uvarint(data)
	if n <= 0 || v != machineStateVersion {
		return bad("unknown version")
	}
	data = data[n:]
	depth, n := binary.Uvarint(data)
	if n <= 0 || depth == 0 || depth > maxMachineDepth {
		return bad("bad depth")
	}
	data = data[n:]
	ms := &machineState{}
	for l := uint64(0); l < depth; l++ {
		a, n := binary.Varint(data)
		if n <= 0 || a < 0 || a > math.MaxInt32 {
			return bad("bad state")
		}
		data = data[n:]
		since, n := binary.Varint(data)
		if n <= 0 || len(data) <= n {
			return bad("truncated")
		}
		st := arbor.Status(data[n])
		if st > arbor.Running {
			return bad("bad status")
		}
		data = data[n+1:]
		ms.active, ms.since, ms.treeStatus = append(ms.active, int32(a)), append(ms.since, since), append(ms.treeStatus, st)
	}
	now, n := binary.Varint(data)
	if n <= 0 || n != len(data) {
		return bad("bad clock or trailing data")
	}
	ms.now = now
	m.saved = ms
	return nil
}

// maxMachineDepth bounds the levels a saved machine state may have.
const maxMachineDepth = 1 << 10

// restore puts a saved machine state into a fresh instance, after
// checking it against the definition: each level's state belongs to the
// machine of the state above it.
func (in *Instance) restore(ms *machineState) error {
	d := in.def
	if len(ms.active) > d.depth {
		return fmt.Errorf("fsm: restore %s: %d levels, the machine has %d", d.name, len(ms.active), d.depth)
	}
	mi := int32(0)
	for l, si := range ms.active {
		if mi < 0 || int(si) >= len(d.states) || d.states[si].machine != mi {
			return fmt.Errorf("fsm: restore %s: level %d: state %d is not a state of the machine active there", d.name, l, si)
		}
		if d.states[si].agent != nil {
			return fmt.Errorf("fsm: restore %s: state %s runs a program's agent", d.name, d.states[si].path)
		}
		mi = d.states[si].sub
	}
	for l, si := range ms.active {
		in.active[l], in.since[l], in.treeStatus[l], in.agents[l] = si, ms.since[l], ms.treeStatus[l], nil
	}
	in.depth = int32(len(ms.active))
	in.now = ms.now
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
	m.saved = nil // a restored state was of an activation that ended
	if err := n.instance(c, m); err != nil {
		return err
	}
	m.in.Stop()
	return nil
}

// instance makes the agent's instance of the machine, if it has none.
func (n *node) instance(c *arbor.Ctx, m *nodeMem) error {
	if m.in != nil {
		return nil
	}
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
	return nil
}

// Tick updates the machine. The first tick after a Restore of a running
// node makes its instance and puts the saved state in it.
func (n *node) Tick(c *arbor.Ctx, m *nodeMem) (arbor.Status, error) {
	if err := n.resume(c, m); err != nil {
		return arbor.Failure, err
	}
	if m.in == nil {
		return arbor.Failure, errNoInstance
	}
	return m.in.Update(c.Now()), nil
}

// resume puts a machine state restored from a snapshot into the node's
// instance, if there is one.
func (n *node) resume(c *arbor.Ctx, m *nodeMem) error {
	ms := m.saved
	if ms == nil {
		return nil
	}
	m.saved = nil
	if err := n.instance(c, m); err != nil {
		return err
	}
	return m.in.restore(ms)
}

// End stops the machine after it reached a final state (or failed).
func (n *node) End(_ *arbor.Ctx, m *nodeMem, _ arbor.Status) {
	if m.in != nil {
		m.in.Stop()
	}
}

// Halt stops the machine: exit callbacks, innermost first (also of a
// machine restored from a snapshot and not ticked since).
func (n *node) Halt(c *arbor.Ctx, m *nodeMem) {
	if err := n.resume(c, m); err != nil {
		c.Report(err)
	}
	if m.in != nil {
		m.in.Stop()
	}
}
