package refmodel

import (
	"slices"

	"github.com/arborbt/arbor"
)

// observer is a condition leaf that watches a composite (§7).
type observer struct {
	leaf   *node
	mode   arbor.Abort  // self, lower or both
	at     *node        // the composite it watches (or, waiting, its C)
	lower  bool         // a lower observer still waiting for its C to end
	result arbor.Status // the result the leaf returned when it registered
}

// nearestComposite returns n's nearest composite ancestor: "decorators in
// between, and subtree boundaries, are transparent" (§7), or nil.
func nearestComposite(n *node) *node {
	for p := n.parent; p != nil; p = p.parent {
		if p.isComposite() {
			return p
		}
	}
	return nil
}

// branch returns the index of the child of x that holds n.
func branch(x, n *node) int {
	for c := n; c.parent != nil; c = c.parent {
		if c.parent == x {
			return slices.Index(x.children, c)
		}
	}
	return -1
}

// under reports whether n is a descendant of x.
func under(n, x *node) bool { return branch(x, n) >= 0 }

// register: §7 Registering — "When a condition leaf completes normally
// (not in a guard) and C has abort ≠ none, it becomes an observer in C's
// mode and remembers the result the leaf returned ... If it already was an
// observer, the old observer is replaced by the new one (latest result,
// back at C)" and counts as newly registered.
func (m *Model) register(leaf *node, r arbor.Status) {
	if leaf.inGuard {
		return // "Guards never create observers."
	}
	c := nearestComposite(leaf)
	if c == nil || c.def.Abort == arbor.AbortNone {
		return
	}
	m.observers = slices.DeleteFunc(m.observers, func(o *observer) bool { return o.leaf == leaf })
	m.observers = append(m.observers, &observer{
		leaf: leaf, mode: c.def.Abort, at: c, result: r,
		// "A lower observer does not watch while C runs".
		lower: c.def.Abort == arbor.AbortLower,
	})
}

// watching: §7 What an observer watches — a self (or both) observer
// watches C "while C is running (a later child of C runs)"; after moving
// up an observer "watches the composite it moved to while that composite
// runs a later child than the one containing C". doc.go reads the
// parenthesis literally: the watched composite must be running a later
// child than the one holding the condition.
func (m *Model) watching(o *observer) bool {
	return !o.lower && o.at.running && o.at.act.idx > branch(o.at, o.leaf)
}

// reevaluate: §7 Re-evaluation, at the start of every tick.
func (m *Model) reevaluate() {
	// "Each observer that is watching ..., in the order they registered
	// ..., re-runs its leaf's tick (no start/end/halt callbacks)." doc.go:
	// only the leaf, not a guard it may have.
	for _, o := range slices.Clone(m.observers) {
		if !slices.Contains(m.observers, o) || !m.watching(o) {
			continue // dropped by an earlier abort of this tick, or not watching
		}
		m.Reevaluations++
		if m.condition(o.leaf) == o.result {
			continue
		}
		m.Aborts++
		// "If the result differs from the remembered one: every running
		// node under the watched composite T is halted (children first),
		// every observer of a condition under T is dropped, and T is set
		// to resume at its child that contains the condition. Then the
		// next remaining observer is re-evaluated."
		t := o.at
		m.haltChildren(t)
		m.observers = slices.DeleteFunc(m.observers, func(p *observer) bool { return under(p.leaf, t) })
		t.act.idx = branch(t, o.leaf)
	}
}

// moveUp: §7 Moving up, when composite x ends with success or failure.
func (m *Model) moveUp(x *node) {
	p := nearestComposite(x)
	selfish := func(a arbor.Abort) bool { return a == arbor.AbortSelf || a == arbor.AbortBoth }
	lowerish := func(a arbor.Abort) bool { return a == arbor.AbortLower || a == arbor.AbortBoth }
	var keep []*observer
	for _, o := range m.observers {
		if o.at != x {
			keep = append(keep, o)
			continue
		}
		// "if P is of another type (a Parallel, a reactive composite) or
		// there is no P, the observer is dropped."
		if p == nil || !p.takesAbort() {
			continue
		}
		xa, pa := x.def.Abort, p.def.Abort
		var moves bool
		mode := o.mode
		switch o.mode {
		case arbor.AbortSelf:
			// "self: moves when X and P are both self or both; new mode self"
			moves = selfish(xa) && selfish(pa)
		case arbor.AbortLower:
			// "lower: moves when X is lower or both; new mode lower"
			moves = lowerish(xa)
		case arbor.AbortBoth:
			// "both: moves when X and P are self/both, or X is
			// lower/both; new mode self if X or P is self; lower if X or
			// P is lower; else both"
			moves = (selfish(xa) && selfish(pa)) || lowerish(xa)
			switch {
			case xa == arbor.AbortSelf || pa == arbor.AbortSelf:
				mode = arbor.AbortSelf
			case xa == arbor.AbortLower || pa == arbor.AbortLower:
				mode = arbor.AbortLower
			default:
				mode = arbor.AbortBoth
			}
		}
		if !moves {
			continue
		}
		o.at, o.mode, o.lower = p, mode, false
		keep = append(keep, o)
	}
	m.observers = keep
}

// dropObserversAt drops the observers of composite x (§7: "When X is
// halted instead of ending, its observers are dropped.").
func (m *Model) dropObserversAt(x *node) {
	m.observers = slices.DeleteFunc(m.observers, func(o *observer) bool { return o.at == x })
}
