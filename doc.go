// Package arbor is a behavior tree engine for Go: game servers, simulations
// and robots tick thousands to millions of agents with it.
//
// # Getting started
//
// A program goes through these steps; the package's Examples show each of
// them running.
//
//  1. Register its own node types on a Registry (NewRegistry, or the zero
//     Registry): Registry.ConditionFunc and Registry.ActionFunc for plain
//     functions, RegisterCondition and RegisterAction for types with
//     parameters and per-agent memory (see User nodes below).
//  2. Load the tree definition and compile it: LoadTree for a native file,
//     or LoadFile, ParseYAML or ParseJSON then Compile, or build it in Go
//     (Sequence, Check, Leaf, ...) then Compile. Package format loads
//     Behavior3 and BehaviorTree.CPP files too (format.LoadTree reads and
//     compiles a file of any format). The error lists the
//     problems, each with the node's path and line (LoadErrors).
//  3. Make agents: NewAgent for one, or a Manager (NewManager, Manager.Add)
//     to tick many in parallel. WithOwner gives an agent the program's
//     object for its entity, which user nodes reach with Owner.
//  4. Each frame, write what an agent senses to its blackboard (typed
//     handles: NewKey, Key.Set; Manager.TickWith does it on the workers),
//     then tick: Agent.Tick(now) or Manager.Tick(now), now being the game
//     time as a time.Duration.
//  5. Read the results: the status Agent.Tick returns (Agent.Status
//     later), what the nodes wrote to the blackboard (Key.Get), and what
//     the program's actions did to their owners.
//  6. Handle node errors (WithErrorHandler, WithManagerErrorHandler; by
//     default they are logged with log/slog), and debug with a Tracer or
//     with the live web debugger of package debug.
//
// # Trees and agents
//
// A tree definition (a Document of Nodes) is built in Go with the builder
// functions (Sequence, Selector, Check, Leaf, ...) or loaded from the
// native JSON/YAML format (ParseJSON, ParseYAML, LoadFile). Compile
// validates it against a Registry of node types, reporting every problem
// with the node's path and type, and produces an immutable Tree: the nodes
// in a flat pre-order array, subtrees inlined. Any number of Agents share
// one Tree; each Agent keeps its own state in flat arrays indexed by node
// number (running flags, node memory words, user node memory, observers of
// conditional aborts) and its Blackboard.
//
//	tree, err := arbor.Compile(doc, reg)
//	agent := arbor.NewAgent(tree, arbor.WithOwner(npc))
//	status := agent.Tick(now) // now: game time, a time.Duration
//
// An Agent comes from NewAgent or Manager.Add: the zero Agent has no tree
// and does nothing (Tick returns Invalid) until SetTree binds one.
//
// Ticking is a loop over those arrays with a switch on the node kind; it
// does not allocate. Time is the caller's integer game clock: the semantics never
// read the wall clock (only diagnostics do: WithWatchdog, and the rate limit
// of the default error log).
//
// # Semantics
//
// The behaviour of every built-in node, of halting, guards, conditional
// aborts and the blackboard is the Arbor specification (semantics.md in the
// repository's spec). Choices the specification leaves open:
//
//   - A paused agent's Tick does nothing and returns the root's last result.
//   - A user action whose Start fails (error or panic) fails without being
//     ticked, and its End is not called; its memory is cleared.
//   - A user action whose Tick fails (error, panic or an invalid status)
//     has returned failure: its End is called with Failure, as after any
//     failure.
//   - Conditions evaluated by a guard or re-evaluated by an abort observer
//     report errors like any tick (the error handler may see them more than
//     once per tick).
//   - Re-evaluating an observer runs only the condition leaf, not a guard
//     the leaf may have.
//   - A condition that reports an error has completed with failure: under
//     an abort it becomes an observer with that result.
//   - A node whose guard is false returns failure to its parent, which
//     sees a failed child (RetryUntilSuccessful uses an attempt, a
//     ParallelAll counts a failure, as the seed mapping of §3 says), but
//     it did not complete (§7): Limiter does not count it, RunOnce does
//     not keep its result, and Cooldown starts only if the guard halted a
//     running child ("ends or is halted"). Through a SubTree the same
//     holds for the guard of the tree it runs.
//   - An observer watches its composite only while that composite runs a
//     later child than the one holding the condition (the parenthesis of
//     §7 read literally): a self observer whose condition sits under a
//     running RetryUntilSuccessful in the same child does not abort it.
//   - A Sequence or Selector inside a guard may carry abort; it has no
//     effect there, since guards never create observers.
//   - Parallel with retryFailed: failures count only within the current
//     tick, for the failure threshold and for the rule that fails the
//     Parallel when success is out of reach (kept successes plus children
//     that did not fail this tick < success).
//   - Check's value may not be null (use op exists or missing).
//   - A bare root node document (a node object at the top level) holds one
//     tree named "root" (BareTreeName).
//   - Runtime node paths name the main tree, then ".children[i]"/".child"
//     steps; entering a subtree adds ">Name": "Guard.children[0]>Fight.children[1]".
//
// # Random composites
//
// RandomSelector and RandomSequence are Arbor's own built-in composites
// (the specification does not have them; Behavior Designer does). Their
// parameters, both optional:
//
//   - weights: a list of numbers ≥ 0, one per child, not all 0 (any other
//     list, or a value that is not a list, is a load error naming the
//     parameter); without it every child weighs the same.
//   - seed: an integer (numbers in files are float64: exact up to 2^53;
//     a Go integer given with Node.With is used exactly, a uint64 beyond
//     2^63-1 as its two's complement).
//
// When an activation starts, the node draws an order of its children (a
// weighted shuffle without replacement, below); then it behaves exactly as
// a Selector (RandomSelector) or a Sequence (RandomSequence) whose
// children come in that order: it resumes at the running child, the order
// holds for the whole activation, and the activation ends with its
// success or failure, or when it is halted (its running child is halted
// first); the next activation draws again. A child of weight 0 is never
// drawn: the children of weight 0 come after all the others, in child
// order (a RandomSelector tries them only once every weighted child has
// failed; a RandomSequence runs them once every weighted child has
// succeeded).
//
// abort on them is a load error, as on every type but Sequence,
// SequenceWithMemory and Selector: "lower priority" has no meaning in a
// random order. For conditional aborts they are composites of another
// type, as Parallel is: a condition whose nearest composite is one of them
// does not become an observer, and observers moving up to one are
// dropped. They may not appear in a guard; they may have a guard, as any
// node.
//
// The draws are deterministic: the same tree, inputs and agent give the
// same orders, whatever the number of a Manager's workers. Each node of
// each agent has its own generator, whose state is node memory that lives
// over the agent's life: snapshots hold it (a restored agent continues the
// same draws), Agent.Halt keeps it, and Agent.Reset sets it back to its
// seed, as when the agent got its tree (NewAgent, Agent.SetTree,
// Manager.Add, Manager.Reload). The algorithm, so that draws are
// reproducible across versions (arithmetic on unsigned 64-bit integers,
// modulo 2^64; ^ is exclusive or, >> a logical shift):
//
//   - Generator: splitmix64, with γ = 0x9E3779B97F4A7C15. The function
//     mix(z) sets z ← (z ^ z>>30) · 0xBF58476D1CE4E5B9, then
//     z ← (z ^ z>>27) · 0x94D049BB133111EB, and returns z ^ z>>31. A draw
//     sets the state s ← s + γ and returns mix(s).
//   - Seed: s = mix(B ^ mix(N + γ)), where N is the node's id (Tree.Node:
//     the index in pre-order from the root, subtrees inlined) and B is the
//     seed parameter as a 64-bit two's complement integer, or without one
//     the agent's id (Agent.ID: the manager's number for it, WithID for a
//     standalone agent, whose id is otherwise 0, so that such agents all
//     draw alike).
//   - Integer weights, set when the tree compiles: W = round(w / max ·
//     2^32), max being the largest weight, the quotient a float64 (the
//     product by 2^32 is exact), rounded halves away from zero, and W is
//     at least 1 when w > 0; without weights, W = 1 for every child
//     (equal weights give the same draws either way).
//   - Order: let R be the children not yet placed, in child order, and T
//     the sum of their W. While R holds a child of W > 0: if it holds
//     exactly one, that child comes next (no draw); else draw x and let
//     t = ⌊x · T / 2^64⌋ (the high word of the 128-bit product); going
//     through R's children of W > 0 in child order, the first whose
//     W > t comes next, each one passed subtracting its W from t. The
//     child that comes next leaves R (T decreases by its W). Then R's
//     children, all of W 0, follow in child order.
//
// # Branching composites
//
// IfThenElse, WhileDoElse and Switch are BehaviorTree.CPP's nodes of
// those names (Switch is its Switch2 … Switch6); the specification does
// not have them. The first child of IfThenElse and WhileDoElse is the
// condition, which may be any node, one that runs over ticks included;
// the second is the branch run when the condition succeeds, and an
// optional third the branch run when it fails. Any other number of
// children is a load error.
//
//   - IfThenElse: when an activation starts, it ticks the condition.
//     While the condition returns running, so does the node, and the
//     next tick ticks the condition again. Success enters the second
//     child; failure enters the third, or, without one, fails the node at
//     once. The branch entered is ticked in that same tick, and in every
//     later tick of the activation without the condition being ticked
//     again; its result is the node's, and the activation ends when the
//     branch ends (the next activation asks the condition afresh). Halting
//     the node halts its running child: the condition or the branch.
//   - WhileDoElse, the reactive form: on every tick it ticks the condition
//     first. Success: the third child is halted if it is running, then the
//     second is ticked and its result returned. Failure: the second child
//     is halted if it is running, then the third is ticked and its result
//     returned (without a third child the node fails). Running: a running
//     branch is halted and the node returns running. (BT.CPP leaves the
//     branch running, though not ticked, while the condition runs; Arbor
//     halts it, as a ReactiveSequence halts a later child when an earlier
//     one returns running: a branch runs only while its condition holds.)
//   - Switch: its parameters are key, a blackboard key name, and cases, a
//     non-empty list of numbers, strings and booleans (literals: a "{key}"
//     string is a load error); it has one child per case, in the order of
//     cases, then a last child, the default (any other number of children
//     is a load error). On every tick it reads key and picks the child of
//     the first case equal to the value, as Check's == compares (numbers
//     numerically; values of different kinds are unequal, so the string
//     "1" does not match the case 1), or the default when no case is
//     equal, the key is missing or its value has expired. If another child
//     was running, it is halted first; then the chosen child is ticked and
//     its result returned. A repeated case is allowed (the first one wins).
//
// Halting any of them halts its running children first, in child order,
// as for every node. IfThenElse's branch is activation memory (snapshots
// carry it; it is cleared when the node ends or is halted, and by
// Agent.Reset); WhileDoElse and Switch keep no memory but their
// children's running state.
//
// abort on them is a load error. For conditional aborts they are
// composites of another type, as Parallel and the random composites are:
// a condition whose nearest composite is one of them (such as
// IfThenElse's condition, when it is a leaf) does not become an observer,
// and observers moving up to one are dropped; a condition under a nearer
// Sequence or Selector that carries abort observes as usual. They may not
// appear in a guard; they may have a guard, as any node.
//
// # Many agents
//
// A Manager holds agents of any trees and ticks them over a pool of worker
// goroutines (WithWorkers; GOMAXPROCS by default). TickWith runs a
// function for each agent right before its tick, on the worker that ticks
// it, so that per-agent sensing runs in parallel too. During a manager
// tick the global scope is read-only: each agent sees it as it was when
// the tick began plus its own writes, and the writes are applied in
// ascending agent id order afterwards, so results do not depend on the
// number of workers. The zero Manager is ready to use, as NewManager()
// makes it.
//
// # Snapshots and hot reload
//
// Agent.Snapshot encodes an agent's running state and agent-scope
// blackboard (versioned binary, with the tree's Fingerprint); Restore into
// a fresh agent of the same tree continues exactly where it left off.
// Manager.Snapshot streams the global scope and every agent. Blackboard
// values of user types need a codec (RegisterCodec). Manager.Reload and
// Agent.SetTree move agents to a new tree definition: running nodes are
// halted (halt callbacks, exactly once), blackboards kept.
//
// # Blackboard
//
// Keys are strings in files; in Go, typed handles (Key[T]) resolved once
// to integer slots. Keys beginning with "@" are global: one table per
// standalone agent, or shared through WithGlobals (a Manager shares one
// among its agents). Values carry their kind (boolean, number, string, or
// any Go value); numbers are float64 and an integer handle reads them only
// when exactly representable. A wrong-type read is a *TypeError, never a
// panic. Values may expire: set at t with ttl d, present while now ≤ t+d.
//
// Key names are interned process-wide; a compiled tree lists the
// agent-scope keys it mentions (Check, Set, "{key}" parameters), and an
// agent's blackboard is an array with one slot per such key. A key the
// tree does not mention gets a slot of the agent's own on first write
// (found by a short linear search, or a map once the agent has more than
// a few), kept for the agent's life (Delete empties it). Interned names
// are never freed. Key names should
// therefore come from a bounded set (a program's keys, a file's keys),
// not be made per entity or per event ("target-" + id): keep such data in
// one value (a map or a struct) under one key instead. Integers are
// stored as float64 numbers: beyond 2^53 they round. Durations in files
// and in builder parameters (time.Duration values) are milliseconds, but
// a Key[time.Duration] stores a number of nanoseconds: to compare a
// duration with a Check, keep it in a Key[float64] as milliseconds. The
// clock counts int64 nanoseconds (about 292 years): a longer duration
// parameter or TTL is that maximum, as good as forever, and so is a count
// beyond int64.
//
// # Tracing and the fast paths
//
// A Tracer (WithTracer, SetTracer) receives every node event: start,
// result, halt, conditional abort, and evaluation (EventEval: a guard's
// nodes and conditions re-evaluated by their observers, which are never
// started or halted). Without a tracer the engine takes shortcuts that
// change nothing observable: an idle sequence or selector whose leading
// plain Checks decide it is not ticked, siblings that begin with the same
// Checks are decided together, plain user nodes are ticked straight from
// their parent's loop, and a sequence or selector and the sequences and
// selectors below it are ticked by one non-recursive loop (plan.go), which
// keeps the agent's state exactly as the traced path does.
//
// Agent.Force makes a node return a chosen status instead of running (the
// debugger's "force result", for trying a tree's other paths on a live
// agent); it works on the traced path, so an agent with forced nodes pays
// for tracing until the last force is lifted. A node really running when
// it is first ticked forced is halted first, a node forced to Running gets
// no user callbacks, and forces are not saved in snapshots.
//
// # User nodes
//
// Conditions are plain functions (Registry.ConditionFunc) or types with a
// Check method (RegisterCondition). Actions are types with a
// Tick(*Ctx, *M) method, where M is the per-agent memory of the node
// (RegisterAction); optional Start, End, Halt, Pause and Awake methods are
// called as the specification's lifecycle says. The registered type's
// exported fields are its parameters, filled from the tree file and
// validated when the tree compiles:
//
//	type MoveTo struct {
//		Target arbor.Param[string] `arbor:"target,required"` // literal or "{key}"
//		Speed  float64             `arbor:"speed,default=1.5"`
//	}
//
// Decorators and control nodes may be user types too (RegisterDecorator,
// RegisterControl): their Tick(*Ctx, *M, Children) ticks the children it
// chooses. Children still running when such a node ends are halted, in
// child order, before its End callback; halting it halts its running
// children first, then calls its Halt. A user control node is a boundary
// for conditional aborts (observers below it do not reach an aborting
// composite above it, as with Parallel); a user decorator is transparent,
// as the built-in decorators are. Neither may appear in a guard.
//
// A panic or error in a user node fails that node and is reported, with the
// node's path, to the agent's error handler (WithErrorHandler; by default
// log/slog); the agent keeps running.
//
// # Other packages
//
//   - debug: a live web debugger, an http.Handler to mount on the program's
//     own mux, for the agents of a Manager.
//   - fsm: finite and hierarchical state machines that share the blackboard
//     and compose with trees both ways.
//   - format: every tree file format (native, Behavior3 JSON,
//     BehaviorTree.CPP XML) through one Load and Write, and rendering as
//     text, Graphviz or Mermaid.
//   - scenario: declarative tests of trees (scenario files), run from go
//     test or by the arbor command.
//   - cmd/arbor: the command line (run, validate, test, convert, render,
//     serve, bench, replay and the demo).
package arbor
