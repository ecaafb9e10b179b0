// Package refmodel is a reference model of the Arbor specification
// (docs/spec/semantics.md): a deliberately simple, slow, recursive interpreter of
// tree documents (*arbor.Document), written from the specification's text
// and not from the engine's code, for differential tests against the
// engine.
//
// The model implements every built-in node of semantics §3–§6 (composites,
// decorators, subtrees, leaves, Check and Set with both blackboard scopes
// and expiry), guards (§4), the node lifecycle with its halting order and
// exactly-once halts (§2), conditional aborts with observers that move up
// (§7), and the agent operations Halt, Reset, Pause and Resume. Where the
// specification is silent it follows the choices listed in the engine's
// package documentation (doc.go, "Choices the specification leaves open"),
// and it implements Arbor's random composites (RandomSelector,
// RandomSequence) from that documentation's text ("Random composites":
// the generator, the seeds and the weighted shuffle), with big integers
// where the text says 128-bit products (random.go), and the branching
// composites (IfThenElse, WhileDoElse, Switch) from its "Branching
// composites" (branch.go).
//
// User nodes are the mock types of package treegen (Act, ActKeep, ActHeap,
// Cond), modelled from their documentation: their results are scripted by
// blackboard keys, and the model records, like a scenario trace, a start,
// result and halt event for every node that has a lifecycle (every node
// except condition leaves), and every error that a node reports.
//
// Each rule in the code cites the section of semantics.md it implements.
// Clarity comes before speed: state lives in plain fields of the nodes,
// observers in a slice kept in registration order, the blackboard in a map.
package refmodel
