package fsm

import (
	"fmt"
	"math"
	"strings"

	"github.com/arborbt/arbor"
)

// ccond is a compiled condition.
type ccond struct {
	kind   CondKind
	op     arbor.Op
	ref    bool // the value is read from refKey
	key    arbor.Key[arbor.Value]
	refKey arbor.Key[arbor.Value]
	val    arbor.Value
	fn     func(c *Ctx) bool
	after  int64
	status arbor.Status
	kids   []int32
	label  string // "condition hp < 5", for error reports
}

// maxCondDepth bounds the nesting of and/or/not.
const maxCondDepth = 64

// cond compiles a condition of a transition of state src (-1 for an
// any-state transition) and returns its index, or -1 after an error.
func (c *compiler) cond(k *Cond, path string, src int32) int32 {
	return c.condAt(k, path, src, 0)
}

func (c *compiler) condAt(k *Cond, path string, src int32, depth int) int32 {
	if k == nil {
		c.el.add(path, 0, "nil condition")
		return -1
	}
	if depth > maxCondDepth {
		c.el.add(path, k.Line, "conditions nested deeper than %d levels (or a cycle)", maxCondDepth)
		return -1
	}
	d := c.d
	cc := ccond{kind: k.Kind}
	switch k.Kind {
	case CondCheck:
		if k.extra > 0 {
			c.el.add(path, k.Line, "Check takes one value, got %d (a list to compare with is one value: []any{...})", k.extra+1)
			return -1
		}
		if !c.check(k, &cc, path) {
			return -1
		}
	case CondFunc:
		if k.Fn == nil {
			c.el.add(path, k.Line, "condition function is nil")
			return -1
		}
		cc.fn = k.Fn
		cc.label = "condition"
	case CondNamed:
		fn, ok := c.cfg.funcs.Conds[k.Name]
		if !ok || fn == nil {
			c.el.add(path, k.Line, "unknown condition %q (give it to Compile with WithFuncs)%s", k.Name, didYouMean(k.Name, sortedKeys(c.cfg.funcs.Conds)))
			return -1
		}
		cc.kind, cc.fn, cc.label = CondFunc, fn, "condition "+k.Name
	case CondAnd, CondOr, CondNot:
		word := map[CondKind]string{CondAnd: "and", CondOr: "or", CondNot: "not"}[k.Kind]
		if k.Kind == CondNot && len(k.Conds) != 1 {
			c.el.add(path, k.Line, "not takes exactly one condition, got %d", len(k.Conds))
			return -1
		}
		if len(k.Conds) == 0 {
			c.el.add(path, k.Line, "%s needs at least one condition", word)
			return -1
		}
		ok := true
		for i, sub := range k.Conds {
			sp := fmt.Sprintf("%s.%s[%d]", path, word, i)
			if k.Kind == CondNot {
				sp = path + ".not"
			}
			ki := c.condAt(sub, sp, src, depth+1)
			if ki < 0 {
				ok = false
			}
			cc.kids = append(cc.kids, ki)
		}
		if !ok {
			return -1
		}
	case CondAfter:
		if k.After < 0 {
			c.el.add(path, k.Line, "after: the duration must be ≥ 0, got %s", k.After)
			return -1
		}
		cc.after = int64(k.After)
	case CondDone:
		// A state's own machine is compiled before its transitions.
		if src >= 0 && d.states[src].sub < 0 {
			c.el.add(path, k.Line, "done: state %s has no machine of its own to finish", d.states[src].path)
			return -1
		}
	case CondTree:
		if k.Status != arbor.Success && k.Status != arbor.Failure && k.Status != arbor.Running {
			c.el.add(path, k.Line, "tree: the status must be success, failure or running, got %s", k.Status)
			return -1
		}
		if src >= 0 && c.treeOf[src] == "" && d.states[src].agent == nil {
			c.el.add(path, k.Line, "tree: state %s runs no tree (give it a tree or an agent)", d.states[src].path)
			return -1
		}
		cc.status = k.Status
	default:
		c.el.add(path, k.Line, "unknown condition kind %d", k.Kind)
		return -1
	}
	d.conds = append(d.conds, cc)
	return int32(len(d.conds) - 1)
}

// check compiles a blackboard comparison.
func (c *compiler) check(k *Cond, cc *ccond, path string) bool {
	ok := true
	if k.Key == "" {
		c.el.add(path, k.Line, "a check needs a key")
		ok = false
	}
	o, valid := arbor.ParseOp(k.Op)
	if !valid {
		c.el.add(path, k.Line, "unknown operator %q (want %s)", k.Op, strings.Join(arbor.OpNames(), ", "))
		return false
	}
	cc.op = o
	cc.key = arbor.NewKey[arbor.Value](k.Key)
	cc.label = "condition " + k.Key + " " + k.Op
	if o == arbor.OpExists || o == arbor.OpMissing {
		if k.HasVal {
			c.el.add(path, k.Line, "operator %s takes no value", k.Op)
			ok = false
		}
		return ok
	}
	switch {
	case !k.HasVal:
		c.el.add(path, k.Line, "operator %s needs a value", k.Op)
		return false
	case k.Value == nil:
		c.el.add(path, k.Line, "null is not a value to compare with (use op exists or missing)")
		return false
	}
	cc.label += fmt.Sprintf(" %v", k.Value)
	if s, isStr := k.Value.(string); isStr {
		if name, isRef := refName(s); isRef {
			cc.ref, cc.refKey = true, arbor.NewKey[arbor.Value](name)
			return ok
		}
	}
	cc.val = arbor.ValueOf(k.Value)
	if o.Ordering() && cc.val.Kind() != arbor.KindNumber && cc.val.Kind() != arbor.KindString {
		c.el.add(path, k.Line, "operator %s needs a number or a string, got %v (a %s)", k.Op, k.Value, cc.val.Kind())
		ok = false
	}
	if f, isNum := cc.val.Number(); isNum && math.IsNaN(f) {
		c.el.add(path, k.Line, "NaN is not a value to compare with")
		ok = false
	}
	return ok
}

// refName returns k when s is a blackboard reference "{k}".
func refName(s string) (string, bool) {
	if len(s) >= 3 && s[0] == '{' && s[len(s)-1] == '}' && !strings.ContainsAny(s[1:len(s)-1], "{}") {
		return s[1 : len(s)-1], true
	}
	return "", false
}

// eval evaluates condition ci for the transition from the state active at
// level lvl.
func (in *Instance) eval(ci int32, lvl int32) bool {
	c := &in.def.conds[ci]
	switch c.kind {
	case CondCheck:
		return in.check(c, lvl)
	case CondFunc:
		return in.callCond(c, lvl)
	case CondAnd:
		for _, k := range c.kids {
			if !in.eval(k, lvl) {
				return false
			}
		}
		return true
	case CondOr:
		for _, k := range c.kids {
			if in.eval(k, lvl) {
				return true
			}
		}
		return false
	case CondNot:
		return !in.eval(c.kids[0], lvl)
	case CondAfter:
		return in.now-in.since[lvl] >= c.after
	case CondDone:
		s := &in.def.states[in.active[lvl]]
		return s.sub >= 0 && in.depth > lvl+1 && in.def.states[in.active[lvl+1]].final != arbor.Invalid
	case CondTree:
		return in.treeStatus[lvl] == c.status
	}
	return false
}

// check evaluates a blackboard comparison. A missing key (or "{key}")
// fails every operator but missing; a comparison that cannot be made is
// reported and fails.
func (in *Instance) check(c *ccond, lvl int32) bool {
	switch c.op {
	case arbor.OpExists:
		return c.key.Has(in.bb)
	case arbor.OpMissing:
		return !c.key.Has(in.bb)
	}
	v, err := c.key.Get(in.bb)
	if err != nil {
		return false
	}
	w := c.val
	if c.ref {
		if w, err = c.refKey.Get(in.bb); err != nil {
			return false
		}
	}
	// Numbers against numbers: no Value method calls beyond the reads.
	if x, ok := v.Number(); ok {
		if y, ok := w.Number(); ok {
			switch c.op {
			case arbor.OpEq:
				return x == y
			case arbor.OpNe:
				return x != y
			case arbor.OpLt:
				return x < y
			case arbor.OpLe:
				return x <= y
			case arbor.OpGt:
				return x > y
			default:
				return x >= y
			}
		}
	}
	r, err := arbor.Compare(v, c.op, w)
	if err != nil {
		in.report(in.active[lvl], c.label, fmt.Errorf("%s: %w", describe(v, w), err))
		return false
	}
	return r
}

func describe(v, w arbor.Value) string { return fmt.Sprintf("comparing %s with %s", v, w) }
