package arbor

import "unsafe"

// The composites' fast path: one loop for a whole region of the tree.
//
// Without a tracer, the sequences and selectors (Sequence, Selector,
// ReactiveSequence, ReactiveSelector, SequenceWithMemory) are ticked by
// walk, a single non-recursive loop, instead of a Go call per composite:
// a call costs its prologue, and Go, which has no callee-saved registers,
// spills every live value of the caller's loop around it. The compiler
// links each kidRef of such a composite to its child (lead.go), and each
// child composite without guard to its parent (node.up) and its place
// among the parent's children (node.pos), so the loop needs no stack:
// it goes down into a composite child by making it the current composite,
// and back up, when that composite ends, by the static links. The region
// walk covers is the composite it starts at and its descendants reached
// through composite children without guard (kidRef.comp); it decides
// plain Checks and the leading Checks of idle children (lead.go), ticks
// plain user actions and conditions itself (an idle child's first
// condition from the child's parent: kidCond), and leaves every other child
// (a guard, a decorator, a Parallel, a user control, a Check the fast
// comparison does not cover...) to tickNode, which may start another walk
// below it.
//
// walk keeps the per-agent state exactly as the general path does (the
// running bits in a.st, the composites' words in a.mem, the user memory),
// step for step: between ticks, and at every call into user code, the
// state is the same as the recursive tick would have left, so agents may
// switch between the paths at any tick (a tracer set or removed, forced
// nodes, a watchdog) and snapshots are unaffected. With a tracer set the
// composites run through tickNode and composite (tick.go), every node
// emitting its events.
//
// A composite's running bit changes only when it returns to its parent
// (or to walk's caller), so while its loop runs the bit still says whether
// it started in this tick.

// What walk does with a child (kidRef.op).
const (
	kidTick  uint8 = iota // tickNode
	kidCheck              // a plain Check (kidRef.self): compared, or tickNode when the fast comparison does not apply
	kidAct                // a plain user action or condition: no guard, start or end callback, nothing to do at its end
	kidBare               // the same, in the root's region: ticked bare in a manager tick (Agent.bare)
	kidComp               // a sequence or selector without guard: walk goes down into it
	kidLeads              // the same, with leading Checks that may decide it while it is idle
	kidCond               // the same (kidComp), whose first child is a plain user condition (kidAct or kidBare) that may decide it while it is idle (the last: walk tests op >= kidComp)
)

// How a composite's loop begins and ends (node.loop).
const (
	loopPlain    uint8 = iota // Sequence, Selector: resume at the running child
	loopReactive              // ReactiveSequence, ReactiveSelector: from the first child, halting the one running before
	loopMemory                // SequenceWithMemory: a starting loop resumes where it failed last
)

// first returns the child at which composite n's loop begins: the first
// after the passed leading Checks for a reactive composite, or for one
// that starts (SequenceWithMemory: where it failed last); otherwise, the
// running child.
func (a *Agent) first(n *node, starting bool, passed int) int {
	switch {
	case n.loop == loopReactive:
		return passed
	case !starting:
		return int(*a.wordp(n.mem))
	case n.loop == loopMemory:
		return int(*a.wordp(n.mem + 1))
	}
	return passed
}

// finish ends the tick of composite n on child k's result s (k past the
// last child: every child returned n.cont): a reactive composite halts the
// child that was running before if another one ended the iteration, and
// n's words record the running child (SequenceWithMemory: where it failed).
// walk has it written out.
func (a *Agent) finish(n *node, k int, s Status) Status {
	if k >= len(n.kr) {
		if n.loop == loopMemory {
			a.mem[n.mem+1] = 0
		}
		return s
	}
	if n.loop == loopReactive {
		if prev := int(a.mem[n.mem]); prev != k {
			if p := n.kr[prev].node; a.st[p]&stRunning != 0 {
				a.halt(p)
			}
		}
	}
	if s == Running {
		a.mem[n.mem] = int64(k)
	} else if n.loop == loopMemory {
		a.mem[n.mem+1] = int64(k)
	}
	return s
}

// walk ticks composite top (a sequence or selector) with no tracer set,
// from child k of composite n (top, or a composite below it in its
// region), and returns top's result; the caller records top's own running
// bit and end, as for any node. Callers begin at top, at child
// a.first(top, starting, 0). See the top of this file.
//
// In a manager tick (a.bare), the plain user nodes of the root's region
// (kidBare) are ticked without a panic barrier of their own
// (node.bareFn), because the caller has one that resumes the walk after
// such a node panics (tickAgents, resumeTick); only in the root's region,
// whose walk's frames are all the barrier unwinds. (A flag of the agent
// rather than a parameter: the loop has one live value less.)
func (a *Agent) walk(top, n *node, k int) Status {
descend:
	for {
		// Tick n's children from k on while they return cont.
		s := n.cont
	kids:
		for ; uint(k) < uint(len(n.kr)); k++ {
			ref := &n.kr[k]
			switch op := ref.op; {
			case op >= kidComp: // kidComp, kidLeads, kidCond
				if *a.stp(ref.node)&stRunning != 0 {
					// Down into the running composite child: first,
					// written out.
					if n, k = ref.n, 0; n.loop != loopReactive {
						k = int(*a.wordp(n.mem))
					}
					continue descend
				}
				passed := 0 // the child's leading Checks known to hold
				if op == kidLeads {
					// Its leading Checks in turn (there is one at least)
					// while they hold: the one that fails (Sequence) or
					// holds (Selector) decides the child, as stop; one
					// that cannot be compared fast (Invalid) lets the
					// child tick.
					for l, m := ref.lead0(), 0; ; {
						r := a.test(l)
						if r == ref.stop {
							if s = r; s != n.cont {
								break kids // n ends with it
							}
							// The siblings that follow and begin with the
							// same checks up to this one are decided the
							// same way (nothing ran in between), but for the
							// one that may be running: n's current child,
							// when n was running.
							if j := ref.end(m); j > k {
								// c in (k, j] is one of n's children (n.kr,
								// runEnd: see end): no bounds check.
								if c := int(*a.wordp(n.mem)); c > k && c <= j &&
									*a.stp((*kidRef)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(n.kr)), uintptr(c)*unsafe.Sizeof(kidRef{}))).node)&stRunning != 0 &&
									*a.stp(n.at)&stRunning != 0 {
									j = c - 1
								}
								k = j
							}
							continue kids // decided
						}
						if r == Invalid {
							break
						}
						if passed = m + 1; passed == len(ref.leads) {
							break
						}
						m++
						// l+1 is ref.leads[m] (m < len(ref.leads)): no bounds check.
						l = (*leadCheck)(unsafe.Add(unsafe.Pointer(l), unsafe.Sizeof(leadCheck{})))
					}
				} else if c := ref.n; op == kidCond && !a.watched && (c.loop != loopMemory || *a.wordp(c.mem + 1) == 0) {
					// The idle child begins with a plain user condition
					// (a SequenceWithMemory: when it begins at its first
					// child): the condition's tick, as walk gives it in
					// the child's loop (bare in a manager tick, kidBare;
					// with userTick's barrier otherwise), written out here.
					// Its result decides the child as a leading Check's
					// does (the child ends with it, recording nothing), or
					// the child goes on from its second child. No runEnd:
					// the siblings' conditions are user code, each called
					// in turn. With a watchdog set, walk goes down into
					// the child (tickNode times the condition).
					f := c.kr0()
					if f.op == kidBare && a.bare {
						s = f.n.bareFn(a, f.node, f.n)
					} else {
						s = a.userTick(f.node, f.n) // a condition: Success or Failure, and no memory
						*a.stp(f.node) &^= stRunning
					}
					// n and k again, from c's static links: nothing but c
					// is live across the call, so that the loop does not
					// spill k at every child for this case.
					if n, k = c.up, int(c.pos); s != c.cont {
						if s != n.cont {
							break kids // n ends with it
						}
						continue kids // decided
					}
					n, k = c, 1
					continue descend
				}
				// Down into the idle composite child: first, written out.
				if n, k = ref.n, passed; n.loop == loopMemory {
					k = int(*a.wordp(n.mem + 1))
				}
				continue descend
			case op == kidBare && a.bare:
				s = ref.n.bareFn(a, ref.node, ref.n) // the next case, without userTick's barrier (bareFunc)
			case op >= kidAct && !a.watched: // kidAct, kidBare
				// A plain user node: tickNode's work for it, written out.
				cn := ref.n
				st := a.stp(ref.node)
				if s = a.userTick(ref.node, cn); s == Running {
					*st |= stRunning
				} else {
					*st &^= stRunning
					if cn.umemW == 1 && !cn.keepMem {
						*a.wordp(cn.umem) = 0 // endMemory's common case
					} else if cn.umem >= 0 && !cn.keepMem {
						a.endMemory(cn)
					}
				}
			case op == kidCheck:
				if s = a.test(ref.lead0()); s == Invalid {
					s = a.tickNode(ref.node, ref.n)
				}
			default:
				s = a.tickNode(ref.node, ref.n)
			}
			if s != n.cont {
				break
			}
		}
		// n ends its tick with s at child k (past the last: all returned
		// cont); back up while that ends the parents too. finish and
		// tickNode's work for each, written out.
		if s == Running {
			// n runs, and so do the composites above it up to top:
			// Running is no composite's cont.
			for {
				if n.loop == loopReactive {
					if prev := int(*a.wordp(n.mem)); prev != k {
						if p := &n.kr[prev]; *a.stp(p.node)&stRunning != 0 {
							if st := a.stp(p.node); p.n.plainHalt && *st&stForced == 0 && a.tracer == nil {
								// haltRunning's leaf case, written out.
								*st &^= stRunning
								*a.wordp(p.n.umem) = 0
							} else {
								a.haltRunning(p.node, p.n)
							}
						}
					}
				}
				*a.wordp(n.mem) = int64(k)
				if n == top {
					return Running
				}
				*a.stp(n.at) |= stRunning
				n, k = n.up, int(n.pos)
			}
		}
		// n ends with Success or Failure: so do its parents while that is
		// not their cont.
		for {
			if k < len(n.kr) {
				if n.loop == loopReactive {
					if prev := int(*a.wordp(n.mem)); prev != k {
						if p := &n.kr[prev]; *a.stp(p.node)&stRunning != 0 {
							if st := a.stp(p.node); p.n.plainHalt && *st&stForced == 0 && a.tracer == nil {
								// As in the Running loop above.
								*st &^= stRunning
								*a.wordp(p.n.umem) = 0
							} else {
								a.haltRunning(p.node, p.n)
							}
						}
					}
				} else if n.loop == loopMemory {
					*a.wordp(n.mem + 1) = int64(k)
				}
			} else if n.loop == loopMemory {
				*a.wordp(n.mem + 1) = 0
			}
			if n == top {
				return s
			}
			c := n
			*a.stp(c.at) &^= stRunning
			if len(a.obs) > 0 {
				a.ended(c.at, c, s)
			} else {
				*a.wordp(c.mem) = 0 // all of ended for a composite: its one activation word
			}
			n, k = c.up, int(c.pos)
			if s == n.cont {
				k++
				continue descend
			}
		}
	}
}

// lead0 returns &ref.leads[0] without a bounds check, for walk's kidLeads
// and kidCheck, which have one leading Check at least (compileLeads,
// linkKids).
func (ref *kidRef) lead0() *leadCheck {
	return (*leadCheck)(unsafe.Pointer(unsafe.SliceData(ref.leads)))
}

// kr0 returns &n.kr[0] without a bounds check, for walk's kidCond, whose
// child has one child at least (linkKids).
func (n *node) kr0() *kidRef {
	return (*kidRef)(unsafe.Pointer(unsafe.SliceData(n.kr)))
}

// end returns ref.runEnd[m] for m < len(ref.leads), without a bounds
// check: compileLeads gives runEnd one entry per leading Check to every
// kidRef with leading Checks that is not itself a plain Check (walk's
// kidLeads), and each entry is the index of a sibling of the child, at
// or after it.
func (ref *kidRef) end(m int) int {
	return int(*(*int32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(ref.runEnd)), uintptr(m)*4)))
}

// stp and wordp address node i's state byte and memory word i without a
// bounds check, for walk's loop: their indices are a node of a.tree
// (stp: kidRef.node, node.at) or a word of its nodes' memory (wordp:
// node.mem and the word after it for SequenceWithMemory, node.umem), all
// fixed when the tree was compiled, and bind sized a.st and a.mem for
// that tree (a.tree changes only between ticks: SetTree refuses to run
// inside one). Indices read from the agent's memory (a composite's
// current child) keep their bounds checks. The indices are never
// negative: taken as uint32, the compiler loads them zero-extended,
// which it can do with an indexed address (kidRef.node of n.kr[k]), where
// a sign extension costs two instructions more.
func (a *Agent) stp(i int32) *uint8 {
	return (*uint8)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(a.st)), uint32(i)))
}

func (a *Agent) wordp(i int32) *int64 {
	return (*int64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(a.mem)), uintptr(uint32(i))*8))
}
