package fsm

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/internal/rawdoc"
)

// Document is a native arbor file holding state machines (its fsm
// section) and, usually, the behavior trees their states run (its trees
// section, as arbor.LoadFile reads it).
type Document struct {
	Trees    *arbor.Document     // nil when the file has no trees
	Machines map[string]*Machine // the fsm section: name → machine
}

// ParseJSON parses a document from JSON.
func ParseJSON(data []byte) (*Document, error) { return parse(data, false) }

// ParseYAML parses a document from YAML.
func ParseYAML(data []byte) (*Document, error) { return parse(data, true) }

// LoadFile reads a document; .yaml and .yml files are YAML, anything else
// JSON.
func LoadFile(path string) (*Document, error) {
	data, err := rawdoc.ReadFile(path, rawdoc.DefaultMaxBytes)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	ext := strings.ToLower(filepath.Ext(path))
	doc, err := parse(data, ext == ".yaml" || ext == ".yml")
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return doc, nil
}

// MachineNames returns the names of the document's machines, sorted.
func (d *Document) MachineNames() []string { return sortedKeys(d.Machines) }

// Compile compiles the named machine of the document (name may be empty
// when there is one) with the document's trees, whose node types reg
// holds (nil: the built-ins only).
func (d *Document) Compile(name string, reg *arbor.Registry, opts ...CompileOption) (*Definition, error) {
	names := d.MachineNames()
	if name == "" {
		if len(names) != 1 {
			return nil, fmt.Errorf("fsm: compile: the document has %d machines (%s); name one", len(names), strings.Join(names, ", "))
		}
		name = names[0]
	}
	m := d.Machines[name]
	if m == nil {
		return nil, fmt.Errorf("fsm: compile: no machine %q in the document (machines: %s)%s", name, strings.Join(names, ", "), didYouMean(name, names))
	}
	all := append([]CompileOption{WithTrees(d.Trees, reg)}, opts...)
	def, err := Compile(m, all...)
	if err != nil {
		return nil, fmt.Errorf("fsm: compile %s: %w", name, err)
	}
	return def, nil
}

var (
	docKeys     = []string{"format", "main", "trees", "fsm", "comment", "description"}
	machineKeys = []string{"initial", "states", "any", "comment", "description"}
	stateKeys   = []string{"enter", "update", "exit", "transitions", "final", "tree", "initial", "states", "any", "comment", "description"}
	transKeys   = []string{"to", "when", "do", "comment", "description"}
	condForms   = []string{"key", "and", "or", "not", "after", "tree"}
)

func parse(data []byte, yaml bool) (*Document, error) {
	v, err := rawdoc.Parse(data, yaml, rawdoc.Limits{})
	if err != nil {
		return nil, err
	}
	el := &errList{}
	if v.Kind != rawdoc.Object {
		el.add("", v.Line, "a document must be an object, got %s", v.Describe())
		return nil, el.err()
	}
	// The trees are the arbor package's to read: give it the document
	// without the fsm section.
	rest := &rawdoc.Value{Kind: rawdoc.Object, Line: v.Line}
	for _, f := range v.Fields {
		if f.Key != "fsm" {
			rest.Fields = append(rest.Fields, f)
		}
	}
	for _, d := range v.Dups {
		if d.Key == "fsm" {
			el.add("fsm", d.Line, "duplicate key \"fsm\"")
		} else {
			rest.Dups = append(rest.Dups, d)
		}
	}
	doc := &Document{Machines: map[string]*Machine{}}
	var treeErr error
	if rest.Get("trees") != nil || rest.Get("type") != nil {
		doc.Trees, treeErr = decodeTrees(rest)
	} else {
		checkDocKeys(rest, el)
	}
	if fv := v.Get("fsm"); fv == nil {
		el.add("fsm", v.Line, "the document has no fsm section (machine name → machine)")
	} else {
		decodeMachines(fv, doc, el)
	}
	if err := errors.Join(treeErr, el.err()); err != nil {
		return nil, err
	}
	return doc, nil
}

// decodeTrees decodes the trees section through the arbor package's
// loader, keeping lines.
func decodeTrees(v *rawdoc.Value) (*arbor.Document, error) {
	if rawdoc.DecodeTree == nil {
		return arbor.DecodeDocument(v.Interface())
	}
	out, err := rawdoc.DecodeTree(v)
	doc, _ := out.(*arbor.Document)
	if err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, errors.New("trees: the tree loader returned no document")
	}
	return doc, nil
}

// checkDocKeys checks the top-level keys of a document without trees.
func checkDocKeys(v *rawdoc.Value, el *errList) {
	for _, d := range v.Dups {
		el.add(d.Key, d.Line, "duplicate key %q", d.Key)
	}
	for _, f := range v.Fields {
		switch f.Key {
		case "format":
			s := f.Val.Str
			if f.Val.Kind != rawdoc.String || !(s == "arbor/1" || strings.HasPrefix(s, "arbor/1.")) {
				el.add("format", f.Line, "unsupported format %s (this version reads \"arbor/1\")", f.Val.Describe())
			}
		case "main":
			el.add("main", f.Line, "main names the tree to run, but the document has no trees")
		case "comment", "description":
		default:
			el.add(f.Key, f.Line, "unknown document key %q%s", f.Key, didYouMean(f.Key, docKeys))
		}
	}
}

func dups(v *rawdoc.Value, path string, el *errList) {
	for _, d := range v.Dups {
		el.add(path, d.Line, "duplicate key %q", d.Key)
	}
}

func unknownKey(f rawdoc.Field, path, what string, known []string, el *errList) {
	el.add(path, f.Line, "unknown %s key %q%s", what, f.Key, didYouMean(f.Key, known))
}

func str(f rawdoc.Field, path string, el *errList) string {
	if f.Val.Kind != rawdoc.String || f.Val.Str == "" {
		el.add(path, f.Line, "%s must be a non-empty string, got %s", f.Key, f.Val.Describe())
		return ""
	}
	return f.Val.Str
}

func decodeMachines(v *rawdoc.Value, doc *Document, el *errList) {
	if v.Kind != rawdoc.Object {
		el.add("fsm", v.Line, "fsm must be an object of machine name → machine, got %s", v.Describe())
		return
	}
	for _, d := range v.Dups {
		el.add("fsm."+d.Key, d.Line, "duplicate key %q: two machines have the same name", d.Key)
	}
	if len(v.Fields) == 0 {
		el.add("fsm", v.Line, "the fsm section has no machines")
	}
	for _, f := range v.Fields {
		path := "fsm." + f.Key
		if f.Val.Kind != rawdoc.Object {
			el.add(path, f.Line, "a machine must be an object, got %s", f.Val.Describe())
			continue
		}
		m := &Machine{Name: f.Key, Line: f.Val.Line, path: path}
		dups(f.Val, path, el)
		for _, g := range f.Val.Fields {
			switch g.Key {
			case "initial":
				m.Initial = str(g, path, el)
			case "states":
				m.States = decodeStates(g, path, el)
			case "any":
				m.Any = decodeTransitions(g, path+".any", el)
			case "comment", "description":
			default:
				unknownKey(g, path, "machine", machineKeys, el)
			}
		}
		if f.Val.Get("states") == nil {
			el.add(path, f.Val.Line, "the machine has no states")
		}
		doc.Machines[f.Key] = m
	}
}

func decodeStates(f rawdoc.Field, path string, el *errList) []*State {
	v := f.Val
	if v.Kind != rawdoc.Object {
		el.add(path+".states", f.Line, "states must be an object of state name → state, got %s", v.Describe())
		return nil
	}
	for _, d := range v.Dups {
		el.add(path+".states."+d.Key, d.Line, "duplicate key %q: two states have the same name", d.Key)
	}
	var out []*State
	for _, g := range v.Fields {
		if s := decodeState(g, path+".states."+g.Key, el); s != nil {
			out = append(out, s)
		}
	}
	return out
}

func decodeState(f rawdoc.Field, path string, el *errList) *State {
	v := f.Val
	s := &State{Name: f.Key, Line: f.Line}
	if v.Kind == rawdoc.Null {
		return s // a state with nothing to do: "Idle: {}" or "Idle:"
	}
	if v.Kind != rawdoc.Object {
		el.add(path, f.Line, "a state must be an object, got %s", v.Describe())
		return nil
	}
	dups(v, path, el)
	var sub *Machine
	if v.Get("states") != nil {
		sub = &Machine{Name: f.Key, Line: v.Line, path: path}
		s.Sub = sub
	}
	for _, g := range v.Fields {
		switch g.Key {
		case "enter":
			s.Enter = decodeCalls(g.Val, path+".enter", el)
		case "update":
			s.Update = decodeCalls(g.Val, path+".update", el)
		case "exit":
			s.Exit = decodeCalls(g.Val, path+".exit", el)
		case "transitions":
			s.Transitions = decodeTransitions(g, path+".transitions", el)
		case "final":
			switch {
			case g.Val.Kind == rawdoc.Bool && g.Val.Bool:
				s.Final = arbor.Success
			case g.Val.Kind == rawdoc.Bool:
			case g.Val.Kind == rawdoc.String && (g.Val.Str == "success" || g.Val.Str == "failure"):
				s.Final, _ = arbor.ParseStatus(g.Val.Str)
			default:
				el.add(path, g.Line, "final must be true, false, \"success\" or \"failure\", got %s", g.Val.Describe())
			}
		case "tree":
			s.Tree = str(g, path, el)
		case "initial", "any":
			if sub == nil {
				el.add(path, g.Line, "%s belongs to a state's own machine: give the state states too", g.Key)
				continue
			}
			if g.Key == "initial" {
				sub.Initial = str(g, path, el)
			} else {
				sub.Any = decodeTransitions(g, path+".any", el)
			}
		case "states":
			sub.States = decodeStates(g, path, el)
		case "comment", "description":
		default:
			unknownKey(g, path, "state", stateKeys, el)
		}
	}
	return s
}

func decodeTransitions(f rawdoc.Field, path string, el *errList) []*Transition {
	v := f.Val
	if v.Kind != rawdoc.List {
		el.add(path, f.Line, "%s must be a list of transitions, got %s", f.Key, v.Describe())
		return nil
	}
	var out []*Transition
	for i, e := range v.List {
		tp := fmt.Sprintf("%s[%d]", path, i)
		if e.Kind != rawdoc.Object {
			el.add(tp, e.Line, "a transition must be an object ({to: State, when: ...}), got %s", e.Describe())
			continue
		}
		dups(e, tp, el)
		t := &Transition{Line: e.Line}
		for _, g := range e.Fields {
			switch g.Key {
			case "to":
				t.To = str(g, tp, el)
			case "when":
				t.When = decodeCond(g.Val, tp+".when", el, 0)
			case "do":
				t.Do = decodeCalls(g.Val, tp+".do", el)
			case "comment", "description":
			default:
				unknownKey(g, tp, "transition", transKeys, el)
			}
		}
		if e.Get("to") == nil {
			el.add(tp, e.Line, "a transition needs a target state (to)")
		}
		out = append(out, t)
	}
	return out
}

// decodeCalls reads callbacks: a name, {set: {key: value, ...}}, or a list
// of those.
func decodeCalls(v *rawdoc.Value, path string, el *errList) []Call {
	switch v.Kind {
	case rawdoc.List:
		var out []Call
		for i, e := range v.List {
			if e.Kind == rawdoc.List {
				el.add(fmt.Sprintf("%s[%d]", path, i), e.Line, "a callback is a name or {set: {...}}, got a list")
				continue
			}
			out = append(out, decodeCalls(e, fmt.Sprintf("%s[%d]", path, i), el)...)
		}
		return out
	case rawdoc.String:
		if v.Str == "" {
			el.add(path, v.Line, "empty callback name")
			return nil
		}
		return []Call{{Name: v.Str, Line: v.Line}}
	case rawdoc.Object:
		dups(v, path, el)
		set := v.Get("set")
		if set == nil || len(v.Fields) != 1 {
			el.add(path, v.Line, "a callback object is {set: {key: value, ...}} (blackboard writes), got keys %s", strings.Join(v.Keys(), ", "))
			return nil
		}
		if set.Kind != rawdoc.Object {
			el.add(path+".set", set.Line, "set must be an object of key → value, got %s", set.Describe())
			return nil
		}
		if d := rawdoc.FirstDuplicate(set); d != nil {
			el.add(path+".set", d.Line, "duplicate key %q", d.Key)
		}
		writes := make(map[string]any, len(set.Fields))
		for _, g := range set.Fields {
			writes[g.Key] = g.Val.Interface()
		}
		return []Call{{Set: writes, Line: v.Line}}
	}
	el.add(path, v.Line, "a callback is a name, {set: {...}} or a list of those, got %s", v.Describe())
	return nil
}

// decodeCond reads a condition: a check object {key, op, value}, {and:
// [...]}, {or: [...]}, {not: cond}, {after: ms}, {tree: status}, a list
// (all must hold), "done", or the name of a condition given to Compile.
func decodeCond(v *rawdoc.Value, path string, el *errList, depth int) *Cond {
	if depth > maxCondDepth {
		el.add(path, v.Line, "conditions nested deeper than %d levels", maxCondDepth)
		return nil
	}
	switch v.Kind {
	case rawdoc.String:
		switch v.Str {
		case "":
			el.add(path, v.Line, "empty condition name")
			return nil
		case "done":
			return &Cond{Kind: CondDone, Line: v.Line}
		}
		return &Cond{Kind: CondNamed, Name: v.Str, Line: v.Line}
	case rawdoc.List:
		return decodeCondList(v, path, CondAnd, el, depth)
	case rawdoc.Object:
	default:
		el.add(path, v.Line, "a condition is a check {key, op, value}, a list, {and|or|not|after|tree: ...}, \"done\" or a condition name, got %s", v.Describe())
		return nil
	}
	dups(v, path, el)
	form := ""
	for _, f := range v.Fields {
		k := f.Key
		if k == "op" || k == "value" {
			k = "key"
		}
		if k == "comment" || k == "description" {
			continue
		}
		known := false
		for _, c := range condForms {
			known = known || c == k
		}
		if !known {
			el.add(path, f.Line, "unknown condition key %q%s", f.Key, didYouMean(f.Key, append(condForms, "op", "value")))
			return nil
		}
		if form != "" && form != k {
			el.add(path, f.Line, "a condition has one form, got both %s and %s (combine conditions with and/or)", form, k)
			return nil
		}
		form = k
	}
	switch form {
	case "key":
		c := &Cond{Kind: CondCheck, Line: v.Line}
		if k := v.Get("key"); k == nil || k.Kind != rawdoc.String {
			el.add(path, v.Line, "a check needs a key (a string)")
			return nil
		} else {
			c.Key = k.Str
		}
		if o := v.Get("op"); o == nil || o.Kind != rawdoc.String {
			el.add(path, v.Line, "a check needs an op (a string: %s)", strings.Join(arbor.OpNames(), ", "))
			return nil
		} else {
			c.Op = o.Str
		}
		if val := v.Get("value"); val != nil {
			c.Value, c.HasVal = val.Interface(), true
		}
		return c
	case "and", "or":
		kind := CondAnd
		if form == "or" {
			kind = CondOr
		}
		return decodeCondList(v.Get(form), path+"."+form, kind, el, depth)
	case "not":
		sub := decodeCond(v.Get("not"), path+".not", el, depth+1)
		if sub == nil {
			return nil
		}
		return &Cond{Kind: CondNot, Conds: []*Cond{sub}, Line: v.Line}
	case "after":
		a := v.Get("after")
		const maxMs = float64(math.MaxInt64 / int64(time.Millisecond))
		if a.Kind != rawdoc.Number || math.IsNaN(a.Num) || a.Num < 0 || a.Num > maxMs {
			el.add(path, a.Line, "after must be a number of milliseconds ≥ 0, got %s", a.Describe())
			return nil
		}
		return &Cond{Kind: CondAfter, After: time.Duration(a.Num * float64(time.Millisecond)), Line: v.Line}
	case "tree":
		t := v.Get("tree")
		st, ok := arbor.Status(0), false
		if t.Kind == rawdoc.String {
			st, ok = arbor.ParseStatus(t.Str)
		}
		if !ok {
			el.add(path, t.Line, "tree must be success, failure or running, got %s", t.Describe())
			return nil
		}
		return &Cond{Kind: CondTree, Status: st, Line: v.Line}
	}
	el.add(path, v.Line, "empty condition")
	return nil
}

func decodeCondList(v *rawdoc.Value, path string, kind CondKind, el *errList, depth int) *Cond {
	if v.Kind != rawdoc.List || len(v.List) == 0 {
		el.add(path, v.Line, "want a non-empty list of conditions, got %s", v.Describe())
		return nil
	}
	c := &Cond{Kind: kind, Line: v.Line}
	for i, e := range v.List {
		sub := decodeCond(e, fmt.Sprintf("%s[%d]", path, i), el, depth+1)
		if sub == nil {
			return nil
		}
		c.Conds = append(c.Conds, sub)
	}
	return c
}
