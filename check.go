package arbor

import (
	"fmt"
	"time"
)

// op is a Check operator.
type op uint8

const (
	opEq op = iota
	opNe
	opLt
	opLe
	opGt
	opGe
	opExists
	opMissing
)

var opNames = [...]string{"==", "!=", "<", "<=", ">", ">=", "exists", "missing"}

func (o op) String() string { return opNames[o] }

func (o op) ordering() bool { return o >= opLt && o <= opGe }

func parseOp(s string) (op, bool) {
	for i, name := range opNames {
		if name == s {
			return op(i), true
		}
	}
	return 0, false
}

// check evaluates a Check node. A missing or expired key (or "{key}"
// value) fails every operator but missing, without an error report.
func (a *Agent) check(i int32, n *node) Status {
	s := a.bb.get(n.key.id, n.key.global)
	switch n.op {
	case opExists:
		return statusOf(s != nil)
	case opMissing:
		return statusOf(s == nil)
	}
	if s == nil {
		return Failure
	}
	// Fast path: a number against a number literal, or a boolean against
	// a boolean literal with == or !=.
	if n.scalarLit && s.kind == n.val.kind {
		x, y := s.num, n.val.num
		switch n.op {
		case opEq:
			return statusOf(x == y)
		case opNe:
			return statusOf(x != y)
		case opLt:
			return statusOf(x < y)
		case opLe:
			return statusOf(x <= y)
		case opGt:
			return statusOf(x > y)
		case opGe:
			return statusOf(x >= y)
		}
	}
	return a.checkSlow(i, n, s)
}

// checkSlow compares any kinds of values, and reads "{key}" values.
func (a *Agent) checkSlow(i int32, n *node, s *slot) Status {
	want := n.val
	if n.valRef {
		var ok bool
		if want, ok = a.bb.lookup(n.valKey.id, n.valKey.global); !ok {
			return Failure
		}
	}
	r, err := compare(s.value(), n.op, want)
	if err != nil {
		a.report(i, fmt.Errorf("check %s %s %s: %w", keyName(n.key.id), n.op, want, err))
		return Failure
	}
	return statusOf(r)
}

// compare applies a comparison operator. Values of different kinds are
// unequal; ordering them, or ordering booleans and other values, is an
// error.
func compare(v Value, o op, w Value) (bool, error) {
	switch o {
	case opEq:
		return v.Equal(w), nil
	case opNe:
		return !v.Equal(w), nil
	}
	if v.kind != w.kind {
		return false, fmt.Errorf("cannot order a %s and a %s", v.kind, w.kind)
	}
	var c int
	switch v.kind {
	case KindNumber:
		switch {
		case v.num < w.num:
			c = -1
		case v.num > w.num:
			c = 1
		case v.num != w.num: // NaN
			return false, nil
		}
	case KindString:
		switch {
		case v.str() < w.str():
			c = -1
		case v.str() > w.str():
			c = 1
		}
	default:
		return false, fmt.Errorf("%s values have no order (only == and != apply)", v.kind)
	}
	switch o {
	case opLt:
		return c < 0, nil
	case opLe:
		return c <= 0, nil
	case opGt:
		return c > 0, nil
	}
	return c >= 0, nil
}

// set runs a Set node: a "{key}" value is read when the node runs; a
// missing one is an error.
func (a *Agent) set(i int32, n *node) Status {
	v := n.val
	if n.valRef {
		var ok bool
		if v, ok = a.bb.lookup(n.valKey.id, n.valKey.global); !ok {
			a.report(i, fmt.Errorf("set %s: value {%s}: %w", keyName(n.key.id), keyName(n.valKey.id), ErrMissing))
			return Failure
		}
	}
	a.bb.store(n.key.id, n.key.global, v, n.hasTTL, time.Duration(n.a))
	return Success
}
