package arbor

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/arborbt/arbor/internal/suggest"
)

// paramReader reads and validates one node's parameters while a tree
// compiles, recording every problem with the node's path.
type paramReader struct {
	def    *Node
	params map[string]any // def.Params normalized (numbers as float64)
	path   string
	typ    string
	el     *errList
	used   map[string]bool
}

func (r *paramReader) errf(param, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if src := r.def.src; param != "" && src != nil && src.params[param] != "" {
		// An imported node: the file's names too.
		msg = fmt.Sprintf("parameter %q (%s of %s in the file): %s", param, src.params[param], src.typ, msg)
	} else if param != "" {
		msg = fmt.Sprintf("parameter %q: %s", param, msg)
	}
	r.el.addDef(r.path, r.def, "%s", msg)
}

// get returns a parameter's raw value and marks it used.
func (r *paramReader) get(name string) (any, bool) {
	v, ok := r.params[name]
	if ok {
		if r.used == nil {
			r.used = make(map[string]bool)
		}
		r.used[name] = true
	}
	return v, ok
}

// has reports whether the parameter is given.
func (r *paramReader) has(name string) bool {
	_, ok := r.params[name]
	return ok
}

// number reads a numeric parameter.
func (r *paramReader) number(name string) (float64, bool) {
	raw, ok := r.get(name)
	if !ok {
		return 0, false
	}
	v := ValueOf(raw)
	if v.kind != KindNumber || math.IsNaN(v.num) || math.IsInf(v.num, 0) {
		r.errf(name, "want a number, got %s", describe(raw))
		return 0, false
	}
	return v.num, true
}

// count reads an integer parameter. valid says which values are allowed;
// rule describes them for the error message.
func (r *paramReader) count(name string, def int64, required bool, valid func(int64) bool, rule string) int64 {
	if !r.has(name) {
		if required {
			r.errf(name, "missing required parameter")
		}
		return def
	}
	f, ok := r.number(name)
	if !ok {
		return def
	}
	if f != math.Trunc(f) {
		r.errf(name, "want an integer, got %v", f)
		return def
	}
	n := int64(math.MaxInt64) // beyond int64: as good as unbounded
	switch {
	case f < -(1 << 63):
		n = math.MinInt64
	case f < 1<<63:
		n = int64(f)
	}
	if !valid(n) {
		r.errf(name, "%d is out of range (%s)", n, rule)
		return def
	}
	return n
}

// duration reads a parameter in milliseconds (≥ 0) and returns nanoseconds;
// a duration beyond int64 nanoseconds (292 years) is that maximum.
func (r *paramReader) duration(name string, required bool) int64 {
	if !r.has(name) {
		if required {
			r.errf(name, "missing required parameter")
		}
		return 0
	}
	f, ok := r.number(name)
	if !ok {
		return 0
	}
	if f < 0 {
		r.errf(name, "duration %v ms is out of range (must be ≥ 0)", f)
		return 0
	}
	if ns := math.Round(f * 1e6); ns < 1<<63 {
		return int64(ns)
	}
	return math.MaxInt64
}

// str reads a string parameter.
func (r *paramReader) str(name string, required bool) (string, bool) {
	raw, ok := r.get(name)
	if !ok {
		if required {
			r.errf(name, "missing required parameter")
		}
		return "", false
	}
	s, isStr := raw.(string)
	if !isStr {
		r.errf(name, "want a string, got %s", describe(raw))
		return "", false
	}
	return s, true
}

// boolean reads a boolean parameter.
func (r *paramReader) boolean(name string, def bool) bool {
	raw, ok := r.get(name)
	if !ok {
		return def
	}
	b, isBool := raw.(bool)
	if !isBool {
		r.errf(name, "want a boolean, got %s", describe(raw))
		return def
	}
	return b
}

// finish reports every parameter that was given but not read.
func (r *paramReader) finish(known []string) {
	var unknown []string
	for name := range r.params {
		if !r.used[name] {
			unknown = append(unknown, name)
		}
	}
	sort.Strings(unknown)
	for _, name := range unknown {
		msg := fmt.Sprintf("unknown parameter %q", name)
		if s := suggest.Closest(name, known); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		if len(known) == 0 {
			msg += "; " + r.typ + " takes no parameters"
		}
		r.el.addDef(r.path, r.def, "%s", msg)
	}
}

// describe names a raw parameter value's kind for error messages.
func describe(raw any) string {
	switch raw.(type) {
	case nil:
		return "null"
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	v := ValueOf(raw)
	if v.kind == KindOther {
		return fmt.Sprintf("a %T", raw)
	}
	return fmt.Sprintf("%s %s", v.kind, v)
}

// refKey returns k when s is a blackboard reference "{k}".
func refKey(s string) (string, bool) {
	if len(s) >= 3 && s[0] == '{' && s[len(s)-1] == '}' && !strings.ContainsAny(s[1:len(s)-1], "{}") {
		return s[1 : len(s)-1], true
	}
	return "", false
}
