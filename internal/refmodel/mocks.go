package refmodel

import (
	"github.com/arborbt/arbor"
)

// The mock nodes of package treegen, modelled from their documentation
// (treegen.go): their results are scripted by blackboard keys. A panic
// scripted in a mock is, per §1, an error that fails the node ("A panic in
// start or tick fails the node"); the model reports it like an error.

// Call is one callback of a mock node, as treegen's CallLog records it:
// What is "start", "tick", "end", "halt", "pause", "resume" or "check"; N
// the mock's tick count after the callback; Status the result (tick: the
// status, Invalid when the tick panicked; end: the result; check: Success
// or Failure); Err whether the callback returned an error.
type Call struct {
	Node   int
	What   string
	N      int64
	Status arbor.Status
	Err    bool
}

func (m *Model) call(n *node, what string, count int64, s arbor.Status, err bool) {
	m.calls = append(m.calls, Call{Node: n.id, What: what, N: count, Status: s, Err: err})
}

// TakeCalls returns the mock callbacks made since the last call and
// forgets them.
func (m *Model) TakeCalls() []Call {
	c := m.calls
	m.calls = nil
	return c
}

// scripted interprets a result key's value for a mock action that has
// ticked ticks times: a status name, "boom" (an error: failure), "panic"
// (a panic: failure), a number k (running while ticks ≤ k, then success),
// a boolean (success or failure). Missing and other values: running while
// ticks ≤ limit, then success; running forever when limit is 0. It
// returns the status and the error to report ("" for none).
func scripted(v value, present bool, ticks, limit int64) (arbor.Status, string) {
	if present {
		switch v.kind {
		case kString:
			switch v.s {
			case "boom":
				return failure, "scripted mock error"
			case "panic":
				return failure, "panic: scripted mock panic"
			case "success":
				return success, ""
			case "failure":
				return failure, ""
			case "running":
				return running, ""
			}
		case kNumber:
			if float64(ticks) <= v.f {
				return running, ""
			}
			return success, ""
		case kBool:
			return statusOf(v.b), ""
		}
	}
	if limit > 0 && ticks > limit {
		return success, ""
	}
	return running, ""
}

// actStart is Act's Start: its parameter n (a number, or "{key}" read now,
// §6 "others when the node starts"; a missing or non-number key is an
// error) bounds its ticks when 0 < n < 1e6; the script "startfail" is an
// error.
func (m *Model) actStart(n *node) bool {
	var limit float64
	if raw, ok := n.param("n"); ok {
		if k, isRef := refKey(raw); isRef {
			v, present := m.bb.lookup(k)
			if !present {
				m.report(n, "parameter {%s}: missing", k)
				m.call(n, "start", 0, arbor.Invalid, true)
				return false
			}
			if v.kind != kNumber {
				m.report(n, "parameter {%s}: not a number", k)
				m.call(n, "start", 0, arbor.Invalid, true)
				return false
			}
			limit = v.f
		} else {
			limit = valueOf(raw).f
		}
	}
	if limit > 0 && limit < 1e6 {
		n.act.limit = int64(limit)
	}
	if v, ok := m.bb.lookup(n.str("r")); ok && v.kind == kString && v.s == "startfail" {
		m.report(n, "scripted mock error")
		m.call(n, "start", 0, arbor.Invalid, true)
		return false
	}
	m.call(n, "start", 0, arbor.Invalid, false)
	return true
}

// actTick is Act's Tick: the script in its key r, with its ticks in this
// activation plus the pauses it has seen.
func (m *Model) actTick(n *node) arbor.Status {
	n.act.ticks++
	v, ok := m.bb.lookup(n.str("r"))
	r, err := scripted(v, ok, n.act.ticks+n.act.pauses, n.act.limit)
	m.tickCall(n, n.act.ticks, r, err)
	return r
}

// tickCall reports a mock tick's error and logs the call: a panic logs no
// status and no error (the panic unwinds past the mock's own bookkeeping).
func (m *Model) tickCall(n *node, count int64, r arbor.Status, err string) {
	if err != "" {
		m.report(n, "%s", err)
	}
	switch {
	case isPanic(err):
		m.call(n, "tick", count, arbor.Invalid, false)
	default:
		m.call(n, "tick", count, r, err != "")
	}
}

func isPanic(err string) bool { return len(err) >= 6 && err[:6] == "panic:" }

// actEnd is Act's End: it writes its tick count to "e".
func (m *Model) actEnd(n *node, r arbor.Status) {
	m.call(n, "end", n.act.ticks, r, false)
	m.bb.store("e", value{kind: kNumber, f: float64(n.act.ticks)}, false, 0)
}

// actHalt is Act's Halt: it writes -1 to "e".
func (m *Model) actHalt(n *node) {
	m.call(n, "halt", n.act.ticks, arbor.Invalid, false)
	m.bb.store("e", value{kind: kNumber, f: -1}, false, 0)
}

// mockPause is the pause callback: Act counts its pauses.
func (m *Model) mockPause(n *node, paused bool) {
	if n.typ != actType {
		return
	}
	if paused {
		n.act.pauses++
		m.call(n, "pause", n.act.ticks, arbor.Invalid, false)
	} else {
		m.call(n, "resume", n.act.ticks, arbor.Invalid, false)
	}
}

// actKeepTick is ActKeep's Tick: its tick count lives over the agent's
// life; a number k ≥ 0 in its key makes it succeed on every (k+1)-th tick
// of its life, other scripts as Act without a limit.
func (m *Model) actKeepTick(n *node) arbor.Status {
	n.life.total++
	v, ok := m.bb.lookup(n.str("r"))
	if ok && v.kind == kNumber {
		r := running
		if k := int64(v.f); k >= 0 && n.life.total%(k+1) == 0 {
			r = success
		}
		m.call(n, "tick", n.life.total, r, false)
		return r
	}
	r, err := scripted(v, ok, n.life.total, 0)
	m.tickCall(n, n.life.total, r, err)
	return r
}

// actHeapTick is ActHeap's Tick: the script with its ticks in this
// activation, running for 3 ticks when unscripted.
func (m *Model) actHeapTick(n *node) arbor.Status {
	n.act.count++
	v, ok := m.bb.lookup(n.str("r"))
	r, err := scripted(v, ok, int64(n.act.count), 3)
	if isPanic(err) {
		// The panic leaves the tick out of the mock's memory.
		m.tickCall(n, int64(n.act.count-1), r, err)
	} else {
		m.tickCall(n, int64(n.act.count), r, err)
	}
	return r
}

// cond is the Cond mock: the truth of its key; "boom" is an error and
// "panic" a panic, both failing it (doc.go: "A condition that reports an
// error has completed with failure").
func (m *Model) cond(n *node) arbor.Status {
	v, ok := m.bb.lookup(n.str("key"))
	if ok && v.kind == kString && (v.s == "boom" || v.s == "panic") {
		m.report(n, "scripted mock %s", v.s)
		m.call(n, "check", 0, failure, v.s == "boom")
		return failure
	}
	r := statusOf(ok && truthy(v))
	m.call(n, "check", 0, r, false)
	return r
}
