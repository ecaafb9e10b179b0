package arbor

import (
	"reflect"
)

// The branching composites, IfThenElse, WhileDoElse and Switch: BT.CPP's
// IfThenElse, WhileDoElse and Switch2…Switch6, which the specification
// does not have; doc.go specifies them ("Branching composites").
//
// Memory: IfThenElse has one activation word, the branch entered (1 or 2:
// the child's index; 0 while the condition is still to decide). WhileDoElse
// and Switch have none: the branch that runs is the child whose running
// bit is set.

// ownChildCount reports whether a composite kind checks its number of
// children itself (with a message of its own) instead of the generic "at
// least one child".
func ownChildCount(k kind) bool { return k == kIfThenElse || k == kWhileDoElse || k == kSwitch }

// ifThenElse ticks IfThenElse: the condition (child 0) until it decides,
// then the branch it chose, without ticking the condition again, until
// the branch ends.
func (a *Agent) ifThenElse(n *node) Status {
	b := &a.mem[n.mem]
	if *b == 0 {
		switch a.tick(n.kids[0]) {
		case Running:
			return Running
		case Success:
			*b = 1
		default:
			if len(n.kids) == 2 {
				return Failure
			}
			*b = 2
		}
	}
	return a.tick(n.kids[*b])
}

// whileDoElse ticks WhileDoElse: the condition (child 0) every tick, then
// the branch it chooses, after halting the other branch if it runs. While
// the condition runs, so does the node, with no branch running.
func (a *Agent) whileDoElse(n *node) Status {
	kids := n.kids
	switch a.tick(kids[0]) {
	case Running:
		for _, c := range kids[1:] {
			if a.st[c]&stRunning != 0 {
				a.halt(c)
			}
		}
		return Running
	case Success:
		if len(kids) == 3 && a.st[kids[2]]&stRunning != 0 {
			a.halt(kids[2])
		}
		return a.tick(kids[1])
	}
	if a.st[kids[1]]&stRunning != 0 {
		a.halt(kids[1])
	}
	if len(kids) == 2 {
		return Failure
	}
	return a.tick(kids[2])
}

// switchNode ticks Switch: the child of the first case equal to the key's
// value (Check's ==), else the last child (the default), after halting
// the child that was running if it is another one.
func (a *Agent) switchNode(i int32, n *node) Status {
	k := len(n.kids) - 1
	var s *slot
	if n.slot >= 0 {
		s = a.bb.present(&a.bb.local[n.slot])
	} else {
		s = a.bb.get(n.key.id, n.key.global)
	}
	if s != nil {
		v := s.value()
		for j, c := range a.tree.meta[i].cases {
			if v.Equal(c) {
				k = j
				break
			}
		}
	}
	for j, c := range n.kids {
		if j != k && a.st[c]&stRunning != 0 {
			a.halt(c)
		}
	}
	return a.tick(n.kids[k])
}

// switchParams compiles a Switch's parameters, key and cases, and checks
// its number of children (one per case, then the default).
func (c *compiler) switchParams(p *proto, pr *paramReader, nk int) {
	name, ok := pr.str("key", true)
	switch _, isRef := refKey(name); {
	case ok && name == "":
		pr.errf("key", "empty key name")
	case name == "@":
		pr.errf("key", "\"@\" names no key: a global key is @ and its name (@alarm)")
	case isRef:
		pr.errf("key", "%q: write the key's name, without braces", name)
	}
	p.n.key = keyRef{id: internKey(name), global: isGlobalName(name)}
	raw, ok := pr.get("cases")
	if !ok {
		pr.errf("cases", "missing required parameter")
		return
	}
	cases, ok := caseList(pr, raw)
	if !ok {
		if nk == 0 {
			pr.errf("", "wrong number of children: a composite needs at least one child")
		}
		return
	}
	if nk != len(cases)+1 {
		pr.errf("", "wrong number of children: has %d, Switch with %d cases needs %d (one per case, then the default)", nk, len(cases), len(cases)+1)
	}
	p.meta.cases = cases
}

// caseList converts a Switch's cases parameter: a non-empty list (from a
// file, or a Go slice from the builder) of numbers, strings and booleans.
func caseList(pr *paramReader, raw any) ([]Value, bool) {
	v := reflect.ValueOf(raw)
	if raw == nil || (v.Kind() != reflect.Slice && v.Kind() != reflect.Array) {
		pr.errf("cases", "want a non-empty list of numbers, strings or booleans, got %s", describe(raw))
		return nil, false
	}
	if v.Len() == 0 {
		pr.errf("cases", "want a non-empty list of numbers, strings or booleans, got an empty list")
		return nil, false
	}
	out := make([]Value, v.Len())
	for k := range out {
		e := v.Index(k).Interface()
		x := ValueOf(e)
		switch x.kind {
		case KindNumber, KindBool:
		case KindString:
			if _, isRef := refKey(x.str()); isRef {
				pr.errf("cases", "cases[%d] is %q: a case is a literal value, not a {key} reference", k, x.str())
				return nil, false
			}
		default:
			pr.errf("cases", "cases[%d] is %s: a case is a number, a string or a boolean", k, describe(e))
			return nil, false
		}
		out[k] = x
	}
	return out, true
}
