package arbor

import (
	"math"
	"unsafe"
)

// Leading conditions.
//
// Most branches of a game tree begin with a few plain Checks ("enemy
// visible?", "hp < 30?") that decide the branch at once on most ticks. An
// idle Sequence (or ReactiveSequence) whose leading Check fails, or an
// idle Selector whose leading Check succeeds, ends in the same tick with
// nothing to record: no running state, no memory, no observer, no event.
// The compiler therefore gives every composite a compact description of
// its leading Checks (leadCheck, 24 bytes each) and of its children
// (kidRef), so that a composite's loop decides such children without
// ticking them and without touching their node records. Only the fast
// comparisons qualify: an agent-scope key against a number literal, or
// against a boolean literal with == or !=; anything else (a kind mismatch,
// which may be an error to report) is left to the full tick. With a tracer
// set the shortcuts are off: every node emits its events.
//
// Consecutive siblings often begin with the same Checks (copies of a
// branch guarded by the same condition). When a child is decided by its
// m-th leading Check, the siblings that follow and share its first m+1
// Checks (runEnd[m]) are decided the same way in one step: the Checks have
// no side effect and nothing ran in between. The one sibling that may be
// running (the composite's current child) is not skipped.
//
// A branch may begin with a plain user condition instead ("IsEnemyVisible"
// written in Go): then walk calls it from the branch's parent (kidCond),
// and its result decides the idle branch as a leading Check's does, or
// the branch goes on from its second child. The condition is user code,
// called as in the branch's own loop: once per tick, in order, its errors
// and panics reported (a panic in a manager tick resumes from the
// condition's static links, resumeTick, as if walk had gone down into the
// branch); so there are no runs of siblings decided at once for it.
//
// The loop itself is in plan.go (walk).

// leadCheck is a plain Check compared on the fast path. The operator is
// compiled to an interval: the Check holds when lo ≤ x ≤ hi, negated for
// != (x < 5 is x ≤ the float64 just below 5). NaN is in no interval, so
// it fails every operator but != as with the full Check.
type leadCheck struct {
	lo, hi float64
	off    uint32 // the key's blackboard slot (node.slot) times the size of a slot: its byte offset
	kind   Kind   // the literal's kind
	neg    bool   // operator !=
}

// newLeadCheck compiles the Check "key op lit" (lit of kind k, op one of
// == != < <= > >=).
func newLeadCheck(key int32, op Op, k Kind, lit float64) leadCheck {
	l := leadCheck{lo: math.Inf(-1), hi: math.Inf(1), off: uint32(key) * uint32(unsafe.Sizeof(slot{})), kind: k}
	switch op {
	case OpEq, OpNe:
		l.lo, l.hi, l.neg = lit, lit, op == OpNe
	case OpLt:
		l.hi = math.Nextafter(lit, math.Inf(-1))
		if math.IsInf(lit, -1) {
			l.lo, l.hi = math.Inf(1), math.Inf(-1) // nothing is < -Inf: an empty interval
		}
	case OpLe:
		l.hi = lit
	case OpGt:
		l.lo = math.Nextafter(lit, math.Inf(1))
		if math.IsInf(lit, 1) {
			l.lo, l.hi = math.Inf(1), math.Inf(-1) // nothing is > +Inf
		}
	case OpGe:
		l.lo = lit
	}
	if math.IsNaN(lit) {
		l.lo, l.hi = lit, lit
	}
	return l
}

// kidRef is a composite's view of one child, for its loop.
type kidRef struct {
	leads []leadCheck // leading Checks that can decide the idle child (the child itself when self)
	n     *node       // the child's node (set when the tree is complete)
	// runEnd[m]: the last of the siblings from this one on whose leading
	// Checks up to the m-th are all the same as this one's.
	runEnd []int32
	node   int32
	same   uint8  // leading Checks equal to the previous kidRef's (same stop)
	stop   Status // result of a leading Check that decides the child
	self   bool   // the child is itself a plain Check
	op     uint8  // what walk does with the child (kidTick...: plan.go)
}

// test evaluates a leading Check: Success, Failure, or Invalid when the
// fast comparison does not apply (the value's kind differs from the
// literal's: the full Check decides, and may report an error).
func (a *Agent) test(l *leadCheck) Status {
	// No bounds check: l.off is the offset of a slot of the tree's keys,
	// which come first in every agent's blackboard (adopt, Restore).
	s := (*slot)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(a.bb.local)), uintptr(l.off)))
	if s.kind != l.kind {
		if s.kind == KindNone {
			return Failure
		}
		return Invalid
	}
	if (l.lo <= s.num && s.num <= l.hi) != l.neg && (!s.ttl || a.bb.now <= s.exp) {
		return Success
	}
	return Failure
}

// compileLeads gives composite i its leading Checks and its children's
// kidRefs. Its children are compiled already.
func (t *Tree) compileLeads(i int32, guarded bool) {
	n := &t.nodes[i]
	switch n.kind {
	case kSequence, kReactiveSequence:
		n.leadStop = Failure
	case kSelector, kReactiveSelector:
		n.leadStop = Success
	}
	if n.leadStop != Invalid && !guarded {
		for _, c := range n.kids {
			l, ok := t.fastCheck(c)
			if !ok || len(n.leads) == 255 {
				break
			}
			n.leads = append(n.leads, l)
		}
	}
	if len(n.leads) == 0 {
		n.leadStop = Invalid
	}
	switch n.kind {
	case kSequence, kSequenceWithMemory, kReactiveSequence:
		n.cont = Success
	case kSelector, kReactiveSelector:
		n.cont = Failure
	default:
		return
	}
	switch n.kind {
	case kReactiveSequence, kReactiveSelector:
		n.loop = loopReactive
	case kSequenceWithMemory:
		n.loop = loopMemory
	}
	n.kr = make([]kidRef, len(n.kids))
	for k, c := range n.kids {
		ref := &n.kr[k]
		ref.node = c
		if l, ok := t.fastCheck(c); ok {
			ref.leads, ref.self = []leadCheck{l}, true
			continue
		}
		cn := &t.nodes[c]
		ref.leads, ref.stop = cn.leads, cn.leadStop
		if prev := &n.kr[max(k-1, 0)]; k > 0 && !prev.self && prev.stop == ref.stop {
			for int(ref.same) < min(len(prev.leads), len(ref.leads), 255) &&
				prev.leads[ref.same] == ref.leads[ref.same] {
				ref.same++
			}
		}
	}
	for k := range n.kr {
		ref := &n.kr[k]
		if ref.self || len(ref.leads) == 0 {
			continue
		}
		ref.runEnd = make([]int32, len(ref.leads))
		for m := range ref.runEnd {
			j := k
			for j+1 < len(n.kr) && int(n.kr[j+1].same) > m {
				j++
			}
			ref.runEnd[m] = int32(j)
		}
	}
}

// linkKids points the kidRefs at their nodes, once the node array is
// complete, and a composite child (comp) or plain user node (kidAct) back
// at its parent (plan.go); it tells whether walk ticks the root, and
// which nodes are in the root's region (kidBare).
func (t *Tree) linkKids() {
	// inRoot: the composites of the root's walk (pre-order: a parent comes
	// before its children).
	inRoot := make([]bool, len(t.nodes))
	if t.rootWalk = nil; len(t.nodes) > 0 && t.nodes[0].kr != nil && t.nodes[0].guard < 0 {
		t.rootWalk, inRoot[0] = &t.nodes[0], true
	}
	for i := range t.nodes {
		t.nodes[i].at = int32(i)
		n := &t.nodes[i]
		n.plainHalt = n.kind == kAction && n.cb&hasHalt == 0 && n.umemW == 1 && !n.keepMem
		if n.results = 3; n.kind == kCondition {
			n.results = 2
		}
		for k := range t.nodes[i].kr {
			ref := &t.nodes[i].kr[k]
			n := &t.nodes[ref.node]
			ref.n = n
			switch {
			case ref.self:
				ref.op = kidCheck
			case n.kr != nil && n.guard < 0:
				ref.op = kidComp
				if len(ref.leads) > 0 {
					ref.op = kidLeads
				}
				n.up, n.pos = &t.nodes[i], int32(k)
				inRoot[ref.node] = inRoot[i]
			case plainUser(n):
				if ref.op = kidAct; inRoot[i] {
					ref.op = kidBare
				}
				n.up, n.pos = &t.nodes[i], int32(k) // where resumeTick resumes a walk
			}
			if ref.op == kidComp && len(n.kids) > 0 {
				if f := &t.nodes[n.kids[0]]; f.kind == kCondition && plainUser(f) {
					ref.op = kidCond
				}
			}
		}
	}
}

// plainUser reports whether n is a plain user action or condition, which
// walk ticks itself (kidAct, kidBare): no guard, no start or end callback,
// nothing to do at its end.
func plainUser(n *node) bool {
	return (n.kind == kAction || n.kind == kCondition) && n.guard < 0 && n.cb&(hasStart|hasEnd) == 0 && !n.ends
}

// fastCheck returns the leadCheck of node c when it is a plain Check the
// fast path compares.
func (t *Tree) fastCheck(c int32) (leadCheck, bool) {
	cn := &t.nodes[c]
	if !cn.plainCond || !cn.scalarLit || cn.key.global || cn.op > OpGe {
		return leadCheck{}, false
	}
	if cn.slot < 0 || int64(cn.slot) > math.MaxUint32/int64(unsafe.Sizeof(slot{})) {
		return leadCheck{}, false // (no offset in a leadCheck past 4 GB of slots)
	}
	return newLeadCheck(cn.slot, cn.op, cn.val.kind, cn.val.num), true
}
