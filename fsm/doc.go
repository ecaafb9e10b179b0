// Package fsm provides finite and hierarchical state machines that compose
// with Arbor's behavior trees: a machine can run as an action node of a
// tree, and a state can run a tree.
//
// # Definitions and instances
//
// As with trees and agents, a machine is defined once and run by many
// entities. A Machine (plain data: States, Transitions, Conds, Calls) is
// built in Go with NewMachine, Machine.State, State.To, ... or loaded from
// the fsm section of a native arbor file (ParseYAML, ParseJSON, LoadFile),
// beside the trees section. Compile validates it, reporting every problem
// with its path ("fsm.Monster.states.Alive.transitions[0]: unknown target
// state ...") and warning about unreachable states and transitions that
// can never be taken (Definition.Warnings), and produces an immutable
// Definition: states of every level in one flat array. Any number of
// Instances share a Definition; each keeps its active configuration (one
// state index per level), the time each state was entered, and the
// *arbor.Blackboard its conditions read: its own, or an agent's
// (WithBlackboard).
//
//	def, err := fsm.Compile(m)
//	inst, err := fsm.NewInstance(def, fsm.WithOwner(npc))
//	status := inst.Update(now) // game time, as for Agent.Tick
//
// # One update
//
// Update(now) does, in order:
//
//  1. If the instance is not started (new, or stopped): enter the initial
//     state of the top-level machine, then the initial state of its
//     machine, and so on down (enter callbacks, outermost first).
//  2. Take at most one transition. The levels of the active configuration
//     are tried from the innermost outwards; at each level, first the
//     any-state transitions of that level's machine (Machine.Any), then
//     the active state's own transitions, each list in order. The first
//     transition whose condition holds is taken: the states from the
//     innermost up to the transition's source exit (innermost first); the
//     transition's callbacks run; the target is entered, then the initial
//     states of its machines (outermost first).
//  3. Update every active state, outermost first: its update callbacks,
//     then one tick of the tree it runs, if any.
//
// So a state entered during an update is updated in that same update (as
// in the classic FSM loop: exit old → on-transition → enter new → update
// new), and its transitions are first tried on the next update. The first
// update tries transitions too, right after entering the initial states:
// an instance may leave its initial state before updating it.
//
// # Choices
//
// Where designs of hierarchical machines differ, this package chooses:
//
//   - Inner transitions are tried before outer ones: a state's sub-machine
//     decides locally first (as UML gives priority to the more deeply
//     nested source). An outer transition that also holds is taken on a
//     later update, unless the inner one leads elsewhere first.
//   - A transition leads to a state of the same machine as its source (a
//     sibling, or the source itself). To leave an enclosing state, give the
//     transition to that state; Compile says so when a target names a
//     state of another machine.
//   - A state's own transition to itself exits and re-enters it (its
//     sub-states restart from their initial states). An any-state
//     transition never fires towards the state already active in its
//     machine: "from any state" means "from any other state".
//   - Final states (State.Final: arbor.Success or arbor.Failure) have
//     neither transitions nor machines of their own. A machine whose
//     active state is final takes no more transitions (any-state ones
//     included); its states keep being updated. When the top-level machine
//     is in a final state, Update returns its outcome; until then it
//     returns arbor.Running. The condition Done holds when the source
//     state's own machine is in a final state: the way out of a finished
//     sub-machine.
//   - Conditions on the blackboard are written like the Check node (key,
//     op, value; "{key}" compares with another key) and behave like it: a
//     missing or expired key fails every operator but missing, values of
//     different kinds are unequal, and an ordering that cannot be made
//     (a string < a number) is reported as a RunError and fails.
//   - Callbacks and condition functions that panic are recovered and
//     reported (WithErrorHandler; log/slog by default); the instance goes
//     on as if the callback had returned, and a panicking condition does
//     not hold. Stop called from a callback takes effect when the update
//     ends; a re-entrant Update is reported and ignored.
//
// # Hierarchy
//
// A State with a Sub machine (State.Machine in Go, states inside a state
// in files) is hierarchical: entering it enters its machine's initial
// state, recursively; exiting it (by an outer transition, Stop, or a
// halted FSM node) exits the innermost states first. Instance.ActivePath
// names the whole active configuration: "Alive/Combat".
//
// # Behavior trees inside states
//
// A state may run a tree: State.Tree names a tree of the document given to
// Compile (WithTrees; a file's own trees section), State.Agent supplies an
// agent of the program's. Entering the state starts its tree afresh (any
// run still going is halted, so the next tick starts at the root; memory
// that lives over an agent's life, such as Limiter counts, is kept); each
// update of the state ticks the tree once, after the state's update
// callbacks; exiting the state halts the tree, before the state's exit
// callbacks. TreeIs(status) holds when the tree returned status on its last
// tick (the previous update's, since transitions are tried before
// updates).
//
// The trees of the document run on one agent of the instance's own, which
// also owns the instance's blackboard: the trees and the machine share it,
// and the tree agent's owner is the instance's. That agent runs one tree
// at a time, so a state running a tree of the document cannot be nested in
// another; it selects the tree through the blackboard key TreeKey. States
// may run any number of program agents (State.Agent), each with its own
// blackboard.
//
// An instance with its own blackboard sets the blackboard's clock (for
// values with a time to live) at the start of each Update by ticking its
// agent. While a state's tree is running that tick is not possible without
// ticking the tree, so the clock advances with the tree's tick in step 3:
// transition conditions then see a value expire one update late.
//
// # State machines inside behavior trees
//
// Register adds an action node type, "FSM", to an arbor Registry:
//
//	{ type: FSM, machine: PickLock }
//
// Each agent running the node gets an Instance reading the agent's
// blackboard and owner. The node starts the machine afresh when it
// starts, updates it once per tick, and returns running until the
// top-level machine reaches a final state, then that state's outcome,
// success or failure (the machine is then stopped: exit callbacks run).
// A halted node (pre-empted, aborted, its agent halted or reset) stops its
// machine: the exit callbacks of the active states run, innermost first.
//
// # Tools
//
// Instance.ActivePath names the active configuration; WithTracer reports
// every enter, exit and transition; WithStateKey (the FSM node's stateKey
// parameter) mirrors the active path into a blackboard key whenever it
// changes, so that tools showing an agent's blackboard, such as the
// debugger, show the machine's state.
//
// # Cost
//
// Updates do not allocate in steady state (entering, exiting, transitions,
// tree ticks and blackboard writes included): conditions are compiled to
// a flat array over typed blackboard keys, and the active configuration is
// a fixed-size array per instance. See README.md for numbers.
package fsm
