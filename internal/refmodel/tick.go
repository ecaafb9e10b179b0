package refmodel

import (
	"github.com/arborbt/arbor"
)

const (
	success = arbor.Success
	failure = arbor.Failure
	running = arbor.Running
)

func statusOf(ok bool) arbor.Status {
	if ok {
		return success
	}
	return failure
}

// tick visits node n in a tick and returns its result: the lifecycle of
// §2 around the node's own behaviour (body).
func (m *Model) tick(n *node) arbor.Status {
	// §4: "Guard false → the node, if running, is halted; the node returns
	// failure without being ticked."
	n.skipped = false
	if n.guard != nil && m.eval(n.guard) != success {
		m.halt(n)
		n.skipped = true
		return failure
	}
	if n.isCondition() {
		// §6: conditions complete within their tick, no running state,
		// no events (scenario.md: "Conditions emit no trace events").
		r := m.condition(n)
		m.register(n, r) // §7 Registering
		return r
	}
	if !n.running {
		// §2 start: "when the node is ticked while idle".
		n.running = true
		n.act = activation{start: m.bb.now}
		m.emit(n, EvStart, 0)
		if !m.start(n) {
			// doc.go: "A user action whose Start fails (error or panic)
			// fails without being ticked, and its End is not called;
			// its memory is cleared."
			m.emit(n, EvResult, failure)
			n.running = false
			n.act = activation{}
			return failure
		}
	}
	r := m.body(n)
	m.emit(n, EvResult, r)
	if r != running {
		m.end(n, r)
	}
	return r
}

// start runs what a node does when its activation begins; false when it
// fails (only a mock's Start can).
func (m *Model) start(n *node) bool {
	switch n.typ {
	case "SequenceWithMemory":
		// §3: "after a failure the next activation resumes at the child
		// that failed".
		n.act.idx = n.life.resume
	case "Parallel", "ParallelAll":
		n.act.results = make([]arbor.Status, len(n.children))
	case "RandomSelector", "RandomSequence":
		// doc.go: "When an activation starts, the node draws an order of
		// its children".
		n.act.order = m.drawOrder(n)
	case actType:
		return m.actStart(n)
	}
	return true
}

// end: §2 "end(result) — right after a tick that returned success or
// failure; the node is idle again", per-activation memory cleared.
func (m *Model) end(n *node, r arbor.Status) {
	if n.typ == actType {
		// Also after a Tick that panicked: §1 "A panic in start or tick
		// fails the node", and the node then ends like any failing one
		// (the specification does not say; the engine does the same).
		m.actEnd(n, r)
	}
	if n.isComposite() {
		// §7 Moving up: "When the watched composite X ends with success
		// or failure, each of its observers moves to P ... or is
		// dropped."
		m.moveUp(n)
	}
	n.running = false
	n.act = activation{}
}

// halt halts n if it is running (§2: "A node is halted only if it is
// running, and exactly once per activation"; "Children are halted before
// their parent; siblings in child order").
func (m *Model) halt(n *node) {
	if !n.running {
		return
	}
	childRan := len(n.children) > 0 && n.children[0].running
	for _, c := range n.children {
		m.halt(c)
	}
	if n.typ == "Cooldown" && childRan {
		// §5 Cooldown: "After the child ends or is halted at time t".
		n.life.cooled, n.life.cooledAt = true, m.bb.now
	}
	if n.typ == "SequenceWithMemory" {
		// §3: the resume index "Resets on success, halt or agent reset".
		n.life.resume = 0
	}
	m.emit(n, EvHalt, 0)
	if n.typ == actType {
		m.actHalt(n)
	}
	if n.isComposite() {
		// §7: "When X is halted instead of ending, its observers are
		// dropped."
		m.dropObserversAt(n)
	}
	n.running = false
	n.act = activation{}
}

// haltChildren halts the running children of n in child order.
func (m *Model) haltChildren(n *node) {
	for _, c := range n.children {
		m.halt(c)
	}
}

// body is a node's own tick (its "tick" callback, §2) for every node that
// is not a condition.
func (m *Model) body(n *node) arbor.Status {
	switch n.typ {
	// ---- §3 Composites ----
	case "Sequence", "SequenceWithMemory":
		return m.sequence(n)
	case "Selector":
		return m.selector(n)
	case "ReactiveSequence":
		return m.reactive(n, success)
	case "ReactiveSelector":
		return m.reactive(n, failure)
	case "Parallel":
		return m.parallel(n)
	case "ParallelAll":
		return m.parallelAll(n)
	case "RandomSelector":
		return m.randomBody(n, failure)
	case "RandomSequence":
		return m.randomBody(n, success)
	case "IfThenElse":
		return m.ifThenElse(n)
	case "WhileDoElse":
		return m.whileDoElse(n)
	case "Switch":
		return m.switchBody(n)

	// ---- §5 Decorators ----
	case "Inverter":
		// "success ↔ failure; running passes through."
		switch r := m.tick(n.children[0]); r {
		case success:
			return failure
		case failure:
			return success
		default:
			return r
		}
	case "ForceSuccess":
		// "failure → success."
		if r := m.tick(n.children[0]); r != failure {
			return r
		}
		return success
	case "ForceFailure":
		// "success → failure."
		if r := m.tick(n.children[0]); r != success {
			return r
		}
		return failure
	case "Repeat":
		return m.repeat(n)
	case "RetryUntilSuccessful":
		return m.retry(n)
	case "RepeatUntilFailure":
		return m.repeatUntilFailure(n)
	case "Timeout":
		// "When visited with the child running and now − start ≥ ms: halt
		// the child, return failure (the child is not ticked)."
		c := n.children[0]
		if c.running && m.bb.now-n.act.start >= n.duration("ms") {
			m.halt(c)
			return failure
		}
		return m.tick(c)
	case "Delay":
		// "Returns running until now − start ≥ ms, then ticks the child
		// (in that same tick) and returns its results from then on."
		if m.bb.now-n.act.start < n.duration("ms") {
			return running
		}
		return m.tick(n.children[0])
	case "Cooldown":
		// "After the child ends or is halted at time t, the decorator
		// returns failure without ticking the child while now − t < ms."
		if n.life.cooled && m.bb.now-n.life.cooledAt < n.duration("ms") {
			return failure
		}
		// A child skipped by its guard while idle neither ended nor was
		// halted; one that ran and was halted by its guard was halted.
		c := n.children[0]
		was := c.running
		r := m.tick(c)
		if r != running && (!skipped(c) || was) {
			n.life.cooled, n.life.cooledAt = true, m.bb.now
		}
		return r
	case "Limiter":
		// "The child may complete at most max times over the agent's
		// life ...; afterwards failure without ticking." max -1: no limit.
		if max := int(n.num("max", -1)); max != -1 && n.life.completions >= max {
			return failure
		}
		// A child skipped (or halted) by its guard did not complete.
		r := m.tick(n.children[0])
		if r != running && !skipped(n.children[0]) {
			n.life.completions++
		}
		return r
	case "RunOnce":
		// "The tick in which the child completes returns the child's
		// result; from the next tick on it returns that result (or then)
		// without ticking the child, until agent reset."
		if n.life.stored != arbor.Invalid {
			switch n.str("then") {
			case "success":
				return success
			case "failure":
				return failure
			}
			return n.life.stored
		}
		r := m.tick(n.children[0])
		if r != running && !skipped(n.children[0]) {
			n.life.stored = r
		}
		return r
	case "SubTree":
		// §5b: "run as if inlined".
		return m.tick(n.children[0])

	// ---- §6 Leaves (actions) ----
	case "Running":
		return running
	case "Wait":
		return m.wait(n)
	case "Set":
		return m.set(n)
	case arbor.ErrorType:
		// format.md (Behavior3 Error): "a leaf that fails and reports an
		// error".
		msg := n.str("message")
		if msg == "" {
			msg = "error node"
		}
		m.report(n, "%s", msg)
		return failure
	case actType:
		return m.actTick(n)
	case actKeepType:
		return m.actKeepTick(n)
	case actHeapType:
		return m.actHeapTick(n)
	}
	panic("refmodel: unknown node type " + n.typ + " at " + n.path)
}

// sequence: §3 Sequence — "Ticks children in order starting from the
// running child (or the first). Child success → next child in the same
// tick. Child failure → failure. Child running → running (resumes there
// next tick). All succeeded → success. Index resets on success and
// failure." SequenceWithMemory: "after a failure the next activation
// resumes at the child that failed ... Resets on success, halt or agent
// reset."
func (m *Model) sequence(n *node) arbor.Status {
	for i := n.act.idx; i < len(n.children); i++ {
		n.act.idx = i
		switch m.tick(n.children[i]) {
		case running:
			return running
		case failure:
			if n.typ == "SequenceWithMemory" {
				n.life.resume = i
			}
			return failure
		}
	}
	n.life.resume = 0
	return success
}

// selector: §3 Selector — "Mirror of Sequence: child failure → next child
// in the same tick; success → success; running → running (resumes there);
// all failed → failure."
func (m *Model) selector(n *node) arbor.Status {
	for i := n.act.idx; i < len(n.children); i++ {
		n.act.idx = i
		switch r := m.tick(n.children[i]); r {
		case running, success:
			return r
		}
	}
	return failure
}

// reactive: §3 ReactiveSequence (goOn = success) and ReactiveSelector
// (goOn = failure) — "Every tick starts at the first child. Failure or
// running [success or running] of child i ends this tick's iteration; then
// every other running child is halted; the result is returned."
func (m *Model) reactive(n *node, goOn arbor.Status) arbor.Status {
	for i, c := range n.children {
		if r := m.tick(c); r != goOn {
			for j, o := range n.children {
				if j != i {
					m.halt(o)
				}
			}
			return r
		}
	}
	return goOn
}

// parallel: §3 Parallel.
func (m *Model) parallel(n *node) arbor.Status {
	k := len(n.children)
	// "success (default -1 = all children) and failure (default 0 = only
	// when success can no longer be reached; -1 = all children)".
	need := int(n.num("success", -1))
	if need == -1 {
		need = k
	}
	failAt := int(n.num("failure", 0))
	if failAt == -1 {
		failAt = k
	}
	retry, _ := n.param("retryFailed")
	retryFailed := retry == true
	res := n.act.results
	// "completed children keep their result"; with retryFailed "a failed
	// child is not kept failed but ticked again next tick, and failures
	// count only within the current tick".
	// (With retryFailed no failure is kept, so fails starts at 0.)
	succ, fails := 0, 0
	for _, r := range res {
		switch r {
		case success:
			succ++
		case failure:
			fails++
		}
	}
	for i, c := range n.children {
		// "Each tick it ticks, in order, every child that has not
		// completed in this activation".
		if res[i] == success || (res[i] == failure && !retryFailed) {
			continue
		}
		switch m.tick(c) {
		case success:
			res[i] = success
			succ++
		case failure:
			fails++
			if !retryFailed {
				res[i] = failure
			}
		}
		// "As soon as the successes reach success → halt running
		// children, success. As soon as failures reach failure (when >
		// 0), or the successes can no longer reach success → halt running
		// children, failure. ... Later children are not ticked in a tick
		// in which the decision was taken." (doc.go, retryFailed: success
		// is out of reach when kept successes plus children that did not
		// fail this tick < success: k − fails < need either way.)
		if succ >= need {
			m.haltChildren(n)
			return success
		}
		if (failAt > 0 && fails >= failAt) || k-fails < need {
			m.haltChildren(n)
			return failure
		}
	}
	return running
}

// parallelAll: §3 ParallelAll — "Ticks every not-yet-completed child each
// tick until all have completed, then returns success if failures <
// maxFailures, else failure." maxFailures: default 1; -1 = all children.
func (m *Model) parallelAll(n *node) arbor.Status {
	res := n.act.results
	for i, c := range n.children {
		if res[i] == arbor.Invalid {
			if r := m.tick(c); r != running {
				res[i] = r
			}
		}
	}
	fails := 0
	for _, r := range res {
		switch r {
		case arbor.Invalid:
			return running
		case failure:
			fails++
		}
	}
	max := int(n.num("maxFailures", 1))
	if max == -1 {
		max = len(n.children)
	}
	return statusOf(fails < max)
}

// repeat: §5 Repeat — "Runs the child at most once per tick. Child success
// → one iteration done; when count iterations are done → success,
// otherwise running (the child restarts next tick). Child failure →
// failure. Child running → running." count 0 or -1: forever.
func (m *Model) repeat(n *node) arbor.Status {
	r := m.tick(n.children[0])
	if r != success {
		return r
	}
	n.act.count++
	if count := int(n.num("count", 0)); count > 0 && n.act.count >= count {
		return success
	}
	return running
}

// retry: §5 RetryUntilSuccessful — "Child failure → another attempt next
// tick (running); success → success; after attempts failures → failure."
func (m *Model) retry(n *node) arbor.Status {
	r := m.tick(n.children[0])
	if r != failure {
		return r
	}
	n.act.count++
	if attempts := int(n.num("attempts", -1)); attempts != -1 && n.act.count >= attempts {
		return failure
	}
	return running
}

// repeatUntilFailure: §5 RepeatUntilFailure — "Child success → run again
// next tick (running); child failure → success; after max successes →
// failure." max default -1 = forever.
func (m *Model) repeatUntilFailure(n *node) arbor.Status {
	switch m.tick(n.children[0]) {
	case running:
		return running
	case failure:
		return success
	}
	n.act.count++
	if max := int(n.num("max", -1)); max != -1 && n.act.count >= max {
		return failure
	}
	return running
}

// wait: §6 Wait — "ticks: n: running on its first n ticks, success on the
// next one (n = 0: success at once). ms: d: running until now − start ≥ d,
// then success."
func (m *Model) wait(n *node) arbor.Status {
	if _, ok := n.param("ticks"); ok {
		n.act.count++
		return statusOrRunning(n.act.count > int(n.num("ticks", 0)))
	}
	return statusOrRunning(m.bb.now-n.act.start >= n.duration("ms"))
}

func statusOrRunning(done bool) arbor.Status {
	if done {
		return success
	}
	return running
}

// set: §6 Set — "Writes the value and succeeds." A "{key}" value is read
// when the node starts; "A missing key ... for Set ... is an error
// (failure, reported)." A null value deletes the key (§8).
func (m *Model) set(n *node) arbor.Status {
	raw, _ := n.param("value")
	v := valueOf(raw)
	if k, ok := refKey(raw); ok {
		var present bool
		if v, present = m.bb.lookup(k); !present {
			m.report(n, "value {%s}: missing", k)
			return failure
		}
	}
	_, hasTTL := n.param("ttlMs")
	m.bb.store(n.str("key"), v, hasTTL, n.duration("ttlMs"))
	return success
}

// condition evaluates a condition leaf (§6): Success, Failure, Check and
// the Cond mock. Errors are reported and fail the condition.
func (m *Model) condition(n *node) arbor.Status {
	switch n.typ {
	case "Success":
		return success
	case "Failure":
		return failure
	case "Check":
		return m.check(n)
	case condType:
		return m.cond(n)
	}
	panic("refmodel: not a condition: " + n.typ)
}

// check: §6 Check.
func (m *Model) check(n *node) arbor.Status {
	v, present := m.bb.lookup(n.str("key"))
	op := n.str("op")
	switch op {
	case "exists":
		return statusOf(present)
	case "missing":
		return statusOf(!present)
	}
	// "A missing or expired key fails every op except missing."
	if !present {
		return failure
	}
	raw, _ := n.param("value")
	w := valueOf(raw)
	if k, ok := refKey(raw); ok {
		// "Check resolves it at each evaluation ... A missing key fails
		// Check (no error report, like a missing compared key)".
		var ok2 bool
		if w, ok2 = m.bb.lookup(k); !ok2 {
			return failure
		}
	}
	switch op {
	case "==":
		// "Comparing values of different kinds: == is false and != is
		// true (no error)".
		return statusOf(equal(v, w))
	case "!=":
		return statusOf(!equal(v, w))
	}
	// Ordering: "numbers compare numerically, strings lexically; booleans
	// only with ==/!="; "an ordering operator between different kinds ...
	// is an error, so the check fails and the error is reported."
	var c int
	switch {
	case v.kind == kNumber && w.kind == kNumber:
		switch {
		case v.f < w.f:
			c = -1
		case v.f > w.f:
			c = 1
		case v.f == w.f:
			c = 0
		default:
			return failure // NaN: unordered, every comparison is false
		}
	case v.kind == kString && w.kind == kString:
		switch {
		case v.s < w.s:
			c = -1
		case v.s > w.s:
			c = 1
		}
	default:
		m.report(n, "cannot order %s and %s", v.kind, w.kind)
		return failure
	}
	switch op {
	case "<":
		return statusOf(c < 0)
	case "<=":
		return statusOf(c <= 0)
	case ">":
		return statusOf(c > 0)
	case ">=":
		return statusOf(c >= 0)
	}
	panic("refmodel: bad op " + op)
}

// eval evaluates a guard's node (§4): "A guard never emits start/halt
// events of its own and keeps no running state." A guard holds conditions,
// Inverter/ForceSuccess/ForceFailure and Sequence/Selector/
// ReactiveSequence/ReactiveSelector (§6); since conditions complete at
// once, the composites reduce to and/or in child order, and the reactive
// ones behave as the others.
func (m *Model) eval(n *node) arbor.Status {
	if n.guard != nil && m.eval(n.guard) != success {
		return failure
	}
	switch n.typ {
	case "Inverter":
		return statusOf(m.eval(n.children[0]) == failure)
	case "ForceSuccess":
		// The child is still evaluated (it may report errors).
		m.eval(n.children[0])
		return success
	case "ForceFailure":
		m.eval(n.children[0])
		return failure
	case "Sequence", "ReactiveSequence", "SequenceWithMemory":
		for _, c := range n.children {
			if m.eval(c) != success {
				return failure
			}
		}
		return success
	case "Selector", "ReactiveSelector":
		for _, c := range n.children {
			if m.eval(c) == success {
				return success
			}
		}
		return failure
	}
	return m.condition(n)
}

// skipped reports whether n's guard was false in this tick, or, n being a
// SubTree, that of the tree it runs (§5b: "run as if inlined").
func skipped(n *node) bool {
	for !n.skipped && n.typ == "SubTree" {
		n = n.children[0]
	}
	return n.skipped
}
