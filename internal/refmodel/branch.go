package refmodel

import (
	"github.com/arborbt/arbor"
)

// The branching composites, IfThenElse, WhileDoElse and Switch, are not in
// the specification: the engine's package documentation (doc.go,
// "Branching composites") specifies them, and this file follows its text.
// "The first child of IfThenElse and WhileDoElse is the condition ...; the
// second is the branch run when the condition succeeds, and an optional
// third the branch run when it fails."

// isBranching reports whether n is a branching composite.
func (n *node) isBranching() bool {
	switch n.typ {
	case "IfThenElse", "WhileDoElse", "Switch":
		return true
	}
	return false
}

// ifThenElse: "when an activation starts, it ticks the condition. While
// the condition returns running, so does the node, and the next tick
// ticks the condition again. Success enters the second child; failure
// enters the third, or, without one, fails the node at once. The branch
// entered is ticked in that same tick, and in every later tick of the
// activation without the condition being ticked again; its result is the
// node's". The branch entered is activation memory: act.idx holds its
// child index (0: none entered yet).
func (m *Model) ifThenElse(n *node) arbor.Status {
	if n.act.idx == 0 {
		r := m.tick(n.children[0])
		switch {
		case r == running:
			return running
		case r == success:
			n.act.idx = 1
		case len(n.children) < 3:
			return failure
		default:
			n.act.idx = 2
		}
	}
	return m.tick(n.children[n.act.idx])
}

// whileDoElse: "on every tick it ticks the condition first. Success: the
// third child is halted if it is running, then the second is ticked and
// its result returned. Failure: the second child is halted if it is
// running, then the third is ticked and its result returned (without a
// third child the node fails). Running: a running branch is halted and
// the node returns running."
func (m *Model) whileDoElse(n *node) arbor.Status {
	var do, otherwise *node
	do = n.children[1]
	if len(n.children) == 3 {
		otherwise = n.children[2]
	}
	switch m.tick(n.children[0]) {
	case running:
		m.halt(do)
		if otherwise != nil {
			m.halt(otherwise)
		}
		return running
	case success:
		if otherwise != nil {
			m.halt(otherwise)
		}
		return m.tick(do)
	}
	m.halt(do)
	if otherwise == nil {
		return failure
	}
	return m.tick(otherwise)
}

// switchBody: "On every tick it reads key and picks the child of the
// first case equal to the value, as Check's == compares ..., or the
// default when no case is equal, the key is missing or its value has
// expired. If another child was running, it is halted first; then the
// chosen child is ticked and its result returned."
func (m *Model) switchBody(n *node) arbor.Status {
	chosen := n.children[len(n.children)-1] // the default
	if v, present := m.bb.lookup(n.str("key")); present {
		for i, c := range listOf(n.def.Params["cases"]) {
			if equal(v, valueOf(c)) {
				chosen = n.children[i]
				break
			}
		}
	}
	for _, c := range n.children {
		if c != chosen {
			m.halt(c) // halts only a running child
		}
	}
	return m.tick(chosen)
}
