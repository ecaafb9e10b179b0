package arbor

import (
	"fmt"
	"strconv"
	"time"
)

// Op is a comparison operator of the Check node (semantics §6).
type Op uint8

// The comparison operators.
const (
	OpEq Op = iota
	OpNe
	OpLt
	OpLe
	OpGt
	OpGe
	OpExists
	OpMissing
)

var opNames = [...]string{"==", "!=", "<", "<=", ">", ">=", "exists", "missing"}

// OpNames lists the operators as written in files, in the order of the
// Op constants. The slice is a new one for each call.
func OpNames() []string { return append([]string(nil), opNames[:]...) }

// String returns the operator as written in files.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// Ordering reports whether o is <, <=, > or >=.
func (o Op) Ordering() bool { return o >= OpLt && o <= OpGe }

// ParseOp parses an operator as written in files.
func ParseOp(s string) (Op, bool) {
	for i, name := range opNames {
		if name == s {
			return Op(i), true
		}
	}
	return 0, false
}

// check evaluates a Check node. A missing or expired key (or "{key}"
// value) fails every operator but missing, without an error report.
func (a *Agent) check(i int32, n *node) Status {
	var s *slot
	if n.slot >= 0 {
		// Agent-scope keys the tree mentions have the first slots.
		s = &a.bb.local[n.slot]
		if s.kind == KindNone || (s.ttl && a.bb.now > s.exp) {
			s = nil
		}
	} else {
		s = a.bb.get(n.key.id, n.key.global)
	}
	switch n.op {
	case OpExists:
		return statusOf(s != nil)
	case OpMissing:
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
		case OpEq:
			return statusOf(x == y)
		case OpNe:
			return statusOf(x != y)
		case OpLt:
			return statusOf(x < y)
		case OpLe:
			return statusOf(x <= y)
		case OpGt:
			return statusOf(x > y)
		case OpGe:
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
	r, err := Compare(s.value(), n.op, want)
	if err != nil {
		a.report(i, fmt.Errorf("check %s %s %s: %w", keyName(n.key.id), n.op, want, err))
		return Failure
	}
	return statusOf(r)
}

// Compare applies a comparison operator as the Check node does: values of
// different kinds are unequal; numbers compare numerically, strings
// lexically; ordering values of different kinds, or booleans and other
// values, is an error. OpExists and OpMissing, which test a key rather
// than compare two values, are an error too, as is an Op that is not one
// of the constants.
func Compare(v Value, o Op, w Value) (bool, error) {
	switch o {
	case OpEq:
		return v.Equal(w), nil
	case OpNe:
		return !v.Equal(w), nil
	case OpLt, OpLe, OpGt, OpGe:
	default:
		return false, fmt.Errorf("operator %s compares no values (Compare takes ==, !=, <, <=, > or >=)", o)
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
	case OpLt:
		return c < 0, nil
	case OpLe:
		return c <= 0, nil
	case OpGt:
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
