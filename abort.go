package arbor

// observer is a condition watching a composite for a change of its result
// (conditional aborts, semantics §7).
type observer struct {
	cond    int32  // the condition leaf
	at      int32  // the composite it sits at (C, or where it moved up to)
	branch  int32  // index of at's child that contains the condition
	seq     uint64 // registration order
	mode    Abort
	result  Status // the leaf's remembered result
	waiting bool   // a lower observer still at its own C: not watching yet
}

// abortable reports whether observers may sit at a node of kind k.
func abortable(k kind) bool {
	return k == kSequence || k == kSequenceWithMemory || k == kSelector
}

func selfish(m Abort) bool { return m == AbortSelf || m == AbortBoth }
func lowish(m Abort) bool  { return m == AbortLower || m == AbortBoth }

// register makes condition leaf an observer at its nearest composite,
// replacing any observer it already was.
func (a *Agent) register(leaf int32, result Status) {
	a.removeObservers(func(o *observer) bool { return o.cond == leaf })
	c := a.tree.nodes[leaf].comp
	mode := a.tree.nodes[c].abort
	cold := a.coldPart()
	cold.obsSeq++
	a.setObs(append(a.obs, observer{cond: leaf, at: c, branch: a.branchOf(c, leaf), seq: cold.obsSeq, mode: mode, result: result, waiting: mode == AbortLower}))
}

// branchOf returns the index of x's child whose subtree holds node i.
func (a *Agent) branchOf(x, i int32) int32 {
	nodes := a.tree.nodes
	for k, c := range nodes[x].kids {
		if i >= c && i < nodes[c].end {
			return int32(k)
		}
	}
	return -1
}

// removeObservers deletes the observers drop selects, keeping the order of
// the others.
func (a *Agent) removeObservers(drop func(*observer) bool) {
	out := a.obs[:0]
	for k := range a.obs {
		if !drop(&a.obs[k]) {
			out = append(out, a.obs[k])
		}
	}
	a.setObs(out)
}

// dropObserversAt drops the observers sitting at x (x was halted).
func (a *Agent) dropObserversAt(x int32) {
	a.removeObservers(func(o *observer) bool { return o.at == x })
}

// moveObservers moves the observers sitting at x, which just ended, up to
// x's nearest composite ancestor, by the table of semantics §7, or drops
// them.
func (a *Agent) moveObservers(x int32) {
	nodes := a.tree.nodes
	p := nodes[x].comp
	ax := nodes[x].abort
	ap := AbortNone
	if p >= 0 && abortable(nodes[p].kind) {
		ap = nodes[p].abort
	} else {
		p = -1
	}
	a.removeObservers(func(o *observer) bool {
		if o.at != x {
			return false
		}
		if p < 0 {
			return true
		}
		var mode Abort
		switch o.mode {
		case AbortSelf:
			if !(selfish(ax) && selfish(ap)) {
				return true
			}
			mode = AbortSelf
		case AbortLower:
			if !lowish(ax) {
				return true
			}
			mode = AbortLower
		case AbortBoth:
			if !(selfish(ax) && selfish(ap)) && !lowish(ax) {
				return true
			}
			switch {
			case ax == AbortSelf || ap == AbortSelf:
				mode = AbortSelf
			case ax == AbortLower || ap == AbortLower:
				mode = AbortLower
			default:
				mode = AbortBoth
			}
		default:
			return true
		}
		o.at, o.mode, o.waiting = p, mode, false
		o.branch = a.branchOf(p, o.cond)
		return false
	})
}

// reevaluate runs at the start of every tick: each watching observer, in
// registration order, re-runs its leaf; a changed result aborts the watched
// composite T: T's running descendants are halted, the observers of
// conditions under T dropped, and T resumes at the child containing the
// condition.
func (a *Agent) reevaluate() {
	nodes := a.tree.nodes
	var last uint64
	for {
		k := -1
		for j := range a.obs {
			if a.obs[j].seq > last {
				k = j
				break
			}
		}
		if k < 0 {
			return
		}
		o := a.obs[k]
		last = o.seq
		// An observer watches its composite only while that composite
		// runs a later child than the one holding the condition.
		if o.waiting || a.mem[nodes[o.at].mem] <= int64(o.branch) {
			continue
		}
		r := a.evalLeaf(o.cond)
		if a.tracer != nil {
			a.emit(Event{Kind: EventEval, Node: o.cond, Status: r})
		}
		if r == o.result {
			continue
		}
		t := o.at
		if a.tracer != nil {
			a.emit(Event{Kind: EventAbort, Node: t, Cond: o.cond})
		}
		tn := &nodes[t]
		for _, c := range tn.kids {
			if a.st[c]&stRunning != 0 {
				a.halt(c)
			}
		}
		end := tn.end
		a.removeObservers(func(ob *observer) bool { return ob.cond > t && ob.cond < end })
		a.mem[tn.mem] = int64(o.branch)
	}
}

// evalLeaf re-runs a condition leaf's tick, without callbacks or events.
func (a *Agent) evalLeaf(i int32) Status {
	if f := a.forcedAt(i); f != Invalid {
		return f
	}
	n := &a.tree.nodes[i]
	switch n.kind {
	case kCheck:
		return a.check(i, n)
	case kSuccess:
		return Success
	case kCondition:
		return a.condition(i)
	}
	return Failure
}
