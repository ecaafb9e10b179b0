package arbor

import "errors"

// tick runs node i for one tick and returns its result.
func (a *Agent) tick(i int32) Status { return a.tickNode(i, &a.tree.nodes[i]) }

// tickNode runs node i (n) for one tick and returns its result. It is the
// engine's hot path: a switch on the node kind, flat per-agent arrays, no
// allocation. What few nodes need (a guard, events for a tracer,
// observers, activation memory to clear) is tested with as few loads as
// possible.
func (a *Agent) tickNode(i int32, n *node) Status {
	if a.tracer != nil || n.guard >= 0 {
		if r, done := a.enter(i, n); done {
			return r
		}
	} else if n.plainCond {
		// A plain condition keeps no state: with nothing to record its
		// result is all there is.
		return a.check(i, n)
	}
	st := &a.st[i]
	starting := *st&stRunning == 0
	var s Status
	switch n.kind {
	case kSequence, kSequenceWithMemory, kSelector, kReactiveSequence, kReactiveSelector:
		if a.tracer == nil {
			s = a.walk(n, n, a.first(n, starting, 0))
		} else {
			s = a.composite(n, starting)
		}
	case kAction:
		if n.cb&(hasStart|hasEnd) == 0 && !a.watched {
			// The common action: no start or end callback, no watchdog.
			if s = a.userTick(i, n); s != Running && n.umem >= 0 && !n.keepMem {
				a.endMemory(n)
			}
		} else {
			s = a.action(i, n, starting)
		}
	case kParallel:
		s = a.parallel(n)
	case kParallelAll:
		s = a.parallelAll(n)
	case kCheck:
		s = a.check(i, n)
	case kSet:
		s = a.set(i, n)
	case kCondition:
		s = a.condition(i)
	default:
		s = a.other(i, n, starting)
	}
	// This node's running bit changes only here (a halt reaches only
	// nodes that are not being ticked), so it is written only when it
	// changes.
	if s == Running {
		if starting {
			*st |= stRunning
		}
	} else {
		if !starting {
			*st &^= stRunning
		}
		if n.ends {
			a.ended(i, n, s)
		}
	}
	if a.tracer != nil {
		a.emit(Event{Kind: EventResult, Node: i, Status: s})
	}
	return s
}

// enter begins the tick of a node that has a guard, or of any node when a
// tracer is set: a failing guard ends the tick at once (done), halting the
// node if it was running; a node that starts emits EventStart.
func (a *Agent) enter(i int32, n *node) (r Status, done bool) {
	if f := a.forcedAt(i); f != Invalid {
		return a.forcedTick(i, n, f), true
	}
	if n.guard >= 0 && a.cond(n.guard) != Success {
		if a.st[i]&stRunning != 0 {
			a.halt(i)
		}
		if n.markSkip {
			a.st[i] |= stSkipped
		}
		return Failure, true
	}
	if a.st[i]&stRunning == 0 && a.tracer != nil {
		a.emit(Event{Kind: EventStart, Node: i})
	}
	return Invalid, false
}

// ended does what a node's end requires besides its running bit (n.ends):
// its activation memory is cleared, observers at it move up, and a
// condition that observes becomes an observer.
func (a *Agent) ended(i int32, n *node, s Status) {
	if n.actW > 0 {
		a.clearActivation(n)
	}
	if len(a.obs) > 0 && abortable(n.kind) {
		a.moveObservers(i)
	}
	if n.observe {
		a.register(i, s)
	}
}

// skipped reports whether node i's guard (or, i being a SubTree, that of
// the tree it runs) was false in the tick it just returned from, clearing
// the mark (see markSkip).
func (a *Agent) skipped(i int32) bool {
	for {
		if a.st[i]&stSkipped != 0 {
			a.st[i] &^= stSkipped
			return true
		}
		if n := &a.tree.nodes[i]; n.kind == kSubTree {
			i = n.kids[0]
			continue
		}
		return false
	}
}

// other ticks the decorators and the remaining leaves, kept out of tick's
// switch so that the composites' and actions' path stays small.
func (a *Agent) other(i int32, n *node, starting bool) (s Status) {
	switch n.kind {
	case kInverter:
		switch s = a.tick(n.kids[0]); s {
		case Success:
			s = Failure
		case Failure:
			s = Success
		}
	case kForceSuccess:
		if s = a.tick(n.kids[0]); s == Failure {
			s = Success
		}
	case kForceFailure:
		if s = a.tick(n.kids[0]); s == Success {
			s = Failure
		}
	case kRepeat:
		if s = a.tick(n.kids[0]); s == Success {
			a.mem[n.mem]++
			if n.a <= 0 || a.mem[n.mem] < n.a {
				s = Running
			}
		}
	case kRetryUntilSuccessful:
		if s = a.tick(n.kids[0]); s == Failure {
			a.mem[n.mem]++
			if n.a < 0 || a.mem[n.mem] < n.a {
				s = Running
			}
		}
	case kRepeatUntilFailure:
		switch s = a.tick(n.kids[0]); s {
		case Failure:
			s = Success
		case Success:
			a.mem[n.mem]++
			if n.a < 0 || a.mem[n.mem] < n.a {
				s = Running
			} else {
				s = Failure
			}
		}
	case kTimeout:
		if starting {
			a.mem[n.mem] = a.bb.now
		}
		kid := n.kids[0]
		if a.st[kid]&stRunning != 0 && a.bb.now-a.mem[n.mem] >= n.a {
			a.halt(kid)
			s = Failure
		} else {
			s = a.tick(kid)
		}
	case kDelay:
		if starting {
			a.mem[n.mem] = a.bb.now
		}
		s = Running
		if a.mem[n.mem+1] != 0 || a.bb.now-a.mem[n.mem] >= n.a {
			a.mem[n.mem+1] = 1
			s = a.tick(n.kids[0])
		}
	case kCooldown:
		// The cooldown starts when the child ends or is halted; a child
		// its guard skipped while idle did neither.
		kid := n.kids[0]
		if a.mem[n.mem] != 0 && a.st[kid]&stRunning == 0 && a.bb.now-a.mem[n.mem+1] < n.a {
			s = Failure
		} else {
			was := a.st[kid] & stRunning
			if s = a.tick(kid); s != Running && (!a.skipped(kid) || was != 0) {
				a.mem[n.mem], a.mem[n.mem+1] = 1, a.bb.now
			}
		}
	case kLimiter:
		// Only completions count: not a halt, nor a skip by the child's
		// guard.
		if n.a > 0 && a.mem[n.mem] >= n.a {
			s = Failure
		} else if s = a.tick(n.kids[0]); s != Running && !a.skipped(n.kids[0]) {
			a.mem[n.mem]++
		}
	case kRunOnce:
		if a.mem[n.mem] != 0 {
			s = Status(a.mem[n.mem])
		} else if s = a.tick(n.kids[0]); s != Running && !a.skipped(n.kids[0]) {
			a.mem[n.mem] = int64(s)
			if n.a != 0 {
				a.mem[n.mem] = n.a
			}
		}
	case kSubTree:
		s = a.tick(n.kids[0])
	case kSuccess:
		s = Success
	case kFailure:
		s = Failure
	case kRunning:
		s = Running
	case kUserControl, kUserDecorator:
		s = a.action(i, n, starting)
	case kRandomSelector, kRandomSequence:
		s = a.random(i, n, starting)
	case kIfThenElse:
		s = a.ifThenElse(n)
	case kWhileDoElse:
		s = a.whileDoElse(n)
	case kSwitch:
		s = a.switchNode(i, n)
	case kError:
		a.report(i, errors.New(n.val.str()))
		s = Failure
	case kWaitTicks:
		s = Success
		if a.mem[n.mem] < n.a {
			a.mem[n.mem]++
			s = Running
		}
	case kWaitMs:
		if starting {
			a.mem[n.mem] = a.bb.now
		}
		s = Running
		if a.bb.now-a.mem[n.mem] >= n.a {
			s = Success
		}
	default:
		s = Failure
	}
	return s
}

// composite ticks the sequences, selectors and reactive composites when a
// tracer is set (walk, in plan.go, does without one): the children in
// order, each through tickNode, while they return cont (Success for
// sequences, Failure for selectors). Sequence and Selector resume at the
// running child (SequenceWithMemory, when it starts, where it failed
// last); ReactiveSequence and ReactiveSelector start from the first child
// on every tick and halt the child that was running before when another
// one ends the iteration (finish).
func (a *Agent) composite(n *node, starting bool) Status {
	kr := n.kr
	k := a.first(n, starting, 0)
	for ; k < len(kr); k++ {
		if s := a.tickNode(kr[k].node, kr[k].n); s != n.cont {
			return a.finish(n, k, s)
		}
	}
	return a.finish(n, k, n.cont)
}

// parallel ticks Parallel. Words: kept successes, kept failures.
func (a *Agent) parallel(n *node) Status {
	nk := int64(len(n.kids))
	need, maxFail := n.a, n.b
	if need < 0 {
		need = nk
	}
	if maxFail < 0 {
		maxFail = nk
	}
	succ, fail := &a.mem[n.mem], &a.mem[n.mem+1]
	var tickFails int64
	for _, c := range n.kids {
		if a.st[c]&stKeptMask != 0 {
			continue
		}
		switch a.tick(c) {
		case Success:
			a.st[c] |= uint8(Success) << 1
			if *succ++; *succ >= need {
				return a.parallelDone(n, Success)
			}
		case Failure:
			// With retryFailed a failure is not kept: failures count
			// only within this tick, for both the failure threshold and
			// the "success out of reach" rule.
			fails := tickFails
			if n.flag {
				tickFails++
				fails = tickFails
			} else {
				a.st[c] |= uint8(Failure) << 1
				*fail++
				fails = *fail
			}
			if (maxFail > 0 && fails >= maxFail) || nk-fails < need {
				return a.parallelDone(n, Failure)
			}
		}
	}
	return Running
}

// parallelDone forgets the children's kept results and halts the running
// ones, in child order.
func (a *Agent) parallelDone(n *node, s Status) Status {
	for _, c := range n.kids {
		a.st[c] &^= stKeptMask
		if a.st[c]&stRunning != 0 {
			a.halt(c)
		}
	}
	return s
}

// parallelAll ticks ParallelAll. Words: failures, completed children.
func (a *Agent) parallelAll(n *node) Status {
	fails, done := &a.mem[n.mem], &a.mem[n.mem+1]
	for _, c := range n.kids {
		if a.st[c]&stKeptMask != 0 {
			continue
		}
		switch s := a.tick(c); s {
		case Success, Failure:
			a.st[c] |= uint8(s) << 1
			*done++
			if s == Failure {
				*fails++
			}
		}
	}
	nk := int64(len(n.kids))
	if *done < nk {
		return Running
	}
	maxF := n.a
	if maxF < 0 {
		maxF = nk
	}
	s := statusOf(*fails < maxF)
	return a.parallelDone(n, s)
}

// cond evaluates a condition tree statelessly: guards. No running state;
// with a tracer, an EventEval per node evaluated.
func (a *Agent) cond(i int32) Status {
	s := a.evalCond(i)
	if a.tracer != nil {
		a.emit(Event{Kind: EventEval, Node: i, Status: s})
	}
	return s
}

// evalCond is cond's evaluation.
func (a *Agent) evalCond(i int32) Status {
	if f := a.forcedAt(i); f != Invalid {
		return f
	}
	n := &a.tree.nodes[i]
	if n.guard >= 0 && a.cond(n.guard) != Success {
		return Failure
	}
	switch n.kind {
	case kCheck, kSuccess, kFailure, kCondition:
		return a.evalLeaf(i)
	case kInverter:
		if a.cond(n.kids[0]) == Success {
			return Failure
		}
		return Success
	case kForceSuccess:
		a.cond(n.kids[0])
		return Success
	case kForceFailure:
		a.cond(n.kids[0])
		return Failure
	case kSequence, kReactiveSequence:
		for _, c := range n.kids {
			if a.cond(c) != Success {
				return Failure
			}
		}
		return Success
	case kSelector, kReactiveSelector:
		for _, c := range n.kids {
			if a.cond(c) == Success {
				return Success
			}
		}
		return Failure
	}
	return Failure
}

// halt interrupts node i if it is running: its running children first (in
// child order), then the node itself. A node that is not running is left
// alone, so each running node is halted exactly once. i, its children and
// its memory words are the tree's: no bounds checks (stp, wordp).
func (a *Agent) halt(i int32) {
	if *a.stp(i)&stRunning != 0 {
		a.haltRunning(i, &a.tree.nodes[i])
	}
}

// haltRunning is halt for node i, n, which is running. A sequence's or
// selector's children are reached through its kidRefs, which point at
// their nodes (walk calls it so for a composite's child).
func (a *Agent) haltRunning(i int32, n *node) {
	if *a.stp(i)&stForced != 0 {
		a.endForced(i) // nothing ran: no callbacks, no memory
		return
	}
	if n.kind == kAction {
		// A leaf with nothing else to clear.
		*a.stp(i) &^= stRunning
		if n.cb&hasHalt != 0 {
			a.callUser(i, callHalt, 0)
		}
		if n.umemW == 1 && !n.keepMem {
			*a.wordp(n.umem) = 0
		} else {
			a.endMemory(n)
		}
		if a.tracer != nil {
			a.emit(Event{Kind: EventHalt, Node: i})
		}
		return
	}
	if n.kr != nil {
		// A sequence or selector has at most one running child, which
		// its first word records (the current child): halted, that is
		// all the loop below would halt. Otherwise, the loop finds it.
		if c := uint(a.mem[n.mem]); c < uint(len(n.kr)) && *a.stp(n.kr[c].node)&stRunning != 0 {
			ref := &n.kr[c]
			if st := a.stp(ref.node); ref.n.plainHalt && *st&stForced == 0 && a.tracer == nil {
				// The leaf case below, written out.
				*st &^= stRunning
				*a.wordp(ref.n.umem) = 0
			} else {
				a.haltRunning(ref.node, ref.n)
			}
		} else {
			for k := range n.kr {
				if ref := &n.kr[k]; *a.stp(ref.node)&stRunning != 0 {
					a.haltRunning(ref.node, ref.n)
				}
			}
		}
	} else {
		for _, c := range n.kids {
			if *a.stp(c)&stRunning != 0 {
				a.haltRunning(c, &a.tree.nodes[c])
			}
		}
	}
	*a.stp(i) &^= stRunning
	switch n.kind {
	case kCooldown:
		a.mem[n.mem], a.mem[n.mem+1] = 1, a.bb.now
	case kSequenceWithMemory:
		a.mem[n.mem+1] = 0
	case kParallel, kParallelAll:
		for _, c := range n.kids {
			a.st[c] &^= stKeptMask
		}
	case kUserControl, kUserDecorator:
		if n.cb&hasHalt != 0 {
			a.callUser(i, callHalt, 0)
		}
		a.endMemory(n)
	}
	if n.actW > 0 {
		a.clearActivation(n)
	}
	if len(a.obs) > 0 && abortable(n.kind) {
		a.dropObserversAt(i)
	}
	if a.tracer != nil {
		a.emit(Event{Kind: EventHalt, Node: i})
	}
}

// clearActivation zeroes a node's activation memory words (one or two for
// most built-in kinds: plain stores, cheaper than a memclr call; more for
// a random composite's order).
func (a *Agent) clearActivation(n *node) {
	// n.mem and the words after it up to actW are the tree's, fixed
	// when it was compiled: no bounds checks (wordp).
	switch n.actW {
	case 1:
		*a.wordp(n.mem) = 0
	case 2:
		*a.wordp(n.mem), *a.wordp(n.mem + 1) = 0, 0
	default:
		clear(a.mem[n.mem : n.mem+n.actW])
	}
}
