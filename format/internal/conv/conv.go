// Package conv holds what the Behavior3 and BehaviorTree.CPP converters
// share: the built-in node catalogue seen from outside the engine, limits,
// guard trees, number formatting and load-error collection.
package conv

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/internal/rawdoc"
)

// ReadFile reads a file of at most max bytes.
func ReadFile(path string, max int) ([]byte, error) { return rawdoc.ReadFile(path, max) }

// Limits of the foreign-format loaders (format.md: 16 MiB per file,
// nesting depth 256, 100,000 nodes after inlining).
const (
	MaxBytes = 16 << 20
	MaxDepth = 256
	MaxNodes = arbor.DefaultMaxNodes
	// MaxFiles bounds how many files one BT.CPP load may read through
	// <include>.
	MaxFiles = 256
)

// Canonical returns the built-in type an alias stands for, or typ itself.
func Canonical(typ string) string { return arbor.CanonicalType(typ) }

// AbortMisplaced is the message for an abort written on a node of type
// typ (an Arbor type or alias) that cannot carry one, "" when it can. The
// compiler refuses a mode other than none there; the importers call this
// for an explicit none, which the definition cannot show.
func AbortMisplaced(typ string) string {
	switch Canonical(typ) {
	case "Sequence", "SequenceWithMemory", "Selector":
		return ""
	}
	return `abort "none" is only allowed on Sequence, SequenceWithMemory and Selector`
}

// Shape is what children a node type takes.
type Shape uint8

// The shapes of node types.
const (
	Leaf Shape = iota
	Decorator
	Composite
	SubTreeRef
)

var shapes = map[string]Shape{
	"Sequence": Composite, "SequenceWithMemory": Composite, "ReactiveSequence": Composite,
	"Selector": Composite, "ReactiveSelector": Composite, "Parallel": Composite, "ParallelAll": Composite,
	"RandomSelector": Composite, "RandomSequence": Composite,
	"IfThenElse": Composite, "WhileDoElse": Composite, "Switch": Composite,
	"Inverter": Decorator, "ForceSuccess": Decorator, "ForceFailure": Decorator, "Repeat": Decorator,
	"RetryUntilSuccessful": Decorator, "RepeatUntilFailure": Decorator, "Timeout": Decorator,
	"Delay": Decorator, "Cooldown": Decorator, "Limiter": Decorator, "RunOnce": Decorator,
	"SubTree": SubTreeRef,
}

// ShapeOf returns the shape of a (canonical or alias) built-in type; user
// types are leaves.
func ShapeOf(typ string) Shape {
	return shapes[Canonical(typ)]
}

// UserCategories returns the category of each program type (not built-in)
// of the document's trees: reg's when it has the type, else the one the
// source file declared (doc.Categories) when the nodes fit it, else what
// the nodes suggest: a leaf is a condition when some node of the type
// stands in a guard (where only conditions may), else an action; with
// children, a decorator when every node of the type has exactly one
// child, a control node otherwise.
func UserCategories(doc *arbor.Document, reg *arbor.Registry) map[string]arbor.Category {
	cats := map[string]arbor.Category{}
	misfit := map[string]bool{} // a node of the type does not fit its declared category
	type visit struct {
		n     *arbor.Node
		guard bool
	}
	seen := map[visit]bool{} // a node may be both a tree's root and a guard
	var walk func(n *arbor.Node, guard bool)
	walk = func(n *arbor.Node, guard bool) {
		if n == nil || seen[visit{n, guard}] {
			return
		}
		seen[visit{n, guard}] = true
		if !arbor.IsBuiltin(n.Type) {
			if !fits(doc.Categories[n.Type], len(n.Children)) {
				misfit[n.Type] = true
			}
			c, known := cats[n.Type]
			switch {
			case reg != nil && reg.Category(n.Type) != arbor.CategoryNone:
				c = reg.Category(n.Type)
			case len(n.Children) == 0:
				if guard && (!known || c == arbor.CategoryAction) {
					c = arbor.CategoryCondition
				} else if !known {
					c = arbor.CategoryAction
				}
			case len(n.Children) == 1 && (!known || c != arbor.CategoryControl):
				c = arbor.CategoryDecorator
			default:
				c = arbor.CategoryControl
			}
			cats[n.Type] = c
		}
		for _, c := range n.Children {
			walk(c, guard)
		}
		walk(n.Guard, true)
	}
	for _, name := range SortedKeys(doc.Trees) {
		walk(doc.Trees[name], false)
	}
	for typ := range cats {
		if !misfit[typ] && (reg == nil || reg.Category(typ) == arbor.CategoryNone) {
			cats[typ] = doc.Categories[typ]
		}
	}
	return cats
}

// fits reports whether a node with that many children can be of category c.
func fits(c arbor.Category, children int) bool {
	switch c {
	case arbor.CategoryAction, arbor.CategoryCondition:
		return children == 0
	case arbor.CategoryDecorator:
		return children == 1
	case arbor.CategoryControl:
		return children >= 1
	}
	return false
}

// CategoryOf returns the category of a node type: a program type's from
// user (UserCategories), a built-in's from its shape.
func CategoryOf(typ string, user map[string]arbor.Category) arbor.Category {
	if c, ok := user[typ]; ok {
		return c
	}
	switch ShapeOf(typ) {
	case Composite:
		return arbor.CategoryControl
	case Decorator:
		return arbor.CategoryDecorator
	case SubTreeRef:
		return arbor.CategorySubTree
	}
	if IsCondition(typ) {
		return arbor.CategoryCondition
	}
	return arbor.CategoryAction
}

// IsCondition reports whether a built-in type is a condition leaf.
func IsCondition(typ string) bool {
	switch Canonical(typ) {
	case "Check", "Success", "Failure":
		return true
	}
	return false
}

// TreeOrder returns the document's tree names, the main tree first, then
// the others sorted.
func TreeOrder(doc *arbor.Document) []string {
	names := doc.TreeNames()
	main := MainTree(doc)
	out := make([]string, 0, len(names))
	if main != "" {
		out = append(out, main)
	}
	for _, n := range names {
		if n != main {
			out = append(out, n)
		}
	}
	return out
}

// MainTree returns the tree that runs: doc.Main, or the only tree.
func MainTree(doc *arbor.Document) string {
	if doc.Main != "" {
		return doc.Main
	}
	if len(doc.Trees) == 1 {
		for n := range doc.Trees {
			return n
		}
	}
	return ""
}

// CheckExportable reports the problems that keep a document from being
// written in another format: no trees, no main tree, nil nodes, nodes
// nested deeper than MaxDepth.
func CheckExportable(doc *arbor.Document) error {
	if doc == nil || len(doc.Trees) == 0 {
		return fmt.Errorf("the document has no trees")
	}
	main := MainTree(doc)
	if main == "" {
		return fmt.Errorf("the document has %d trees and no main tree", len(doc.Trees))
	}
	if _, ok := doc.Trees[main]; !ok {
		return fmt.Errorf("main tree %q is not in the document", main)
	}
	for _, name := range doc.TreeNames() {
		if err := checkNode(doc.Trees[name], "trees."+name, 0); err != nil {
			return err
		}
	}
	return nil
}

func checkNode(n *arbor.Node, path string, depth int) error {
	if n == nil {
		return fmt.Errorf("%s: missing node", path)
	}
	if depth > MaxDepth {
		return fmt.Errorf("%s: nodes nested deeper than %d", path, MaxDepth)
	}
	if n.Type == "" {
		return fmt.Errorf("%s: missing node type", path)
	}
	for i, c := range n.Children {
		if err := checkNode(c, fmt.Sprintf("%s.children[%d]", path, i), depth+1); err != nil {
			return err
		}
	}
	if n.Guard != nil {
		return checkNode(n.Guard, path+".guard", depth+1)
	}
	return nil
}

// GuardTree is a guard written out as a tree of its own (formats without
// guards name it from the guarded node's "guard" property or attribute).
type GuardTree struct {
	Name string
	Root *arbor.Node
}

// PlanGuards names a tree for every guard in the document, in the order of
// trees (main first) and pre-order within each; guards of guard trees get
// trees too. A guard shared by several nodes (as loaders make them) gets
// one tree, and a guard that is the root of one of the document's trees is
// named by that tree. Names are "<tree>.guard<N>", made unique against the
// document's trees.
func PlanGuards(doc *arbor.Document) (map[*arbor.Node]string, []GuardTree) {
	names := map[*arbor.Node]string{}
	byRoot := map[*arbor.Node]string{}
	var out []GuardTree
	taken := map[string]bool{}
	for _, name := range doc.TreeNames() {
		taken[name] = true
		if _, dup := byRoot[doc.Trees[name]]; !dup {
			byRoot[doc.Trees[name]] = name // a guard that is a whole tree of the document
		}
	}
	counter := map[string]int{}
	var walk func(n *arbor.Node, tree string)
	walk = func(n *arbor.Node, tree string) {
		if n == nil {
			return
		}
		if n.Guard != nil {
			name, ok := byRoot[n.Guard]
			if !ok {
				for {
					counter[tree]++
					name = fmt.Sprintf("%s.guard%d", tree, counter[tree])
					if !taken[name] {
						break
					}
				}
				taken[name] = true
				byRoot[n.Guard] = name
				out = append(out, GuardTree{Name: name, Root: n.Guard})
			}
			names[n] = name
		}
		for _, c := range n.Children {
			walk(c, tree)
		}
	}
	for _, t := range TreeOrder(doc) {
		walk(doc.Trees[t], t)
	}
	// Guards may carry guards of their own.
	for i := 0; i < len(out); i++ {
		g := out[i]
		walk(g.Root, g.Name)
	}
	return names, out
}

// GuardRef is a node whose file named a tree as its guard.
type GuardRef struct {
	Node *arbor.Node
	Tree string
	Path string
	Line int
}

// ResolveGuards sets each referring node's Guard to the root of the tree
// it names, then removes from the document the trees used only as guards
// (not main, not named by a SubTree). Trees used as guards are shared, not
// copied; a guard that reaches itself, or guards that would inline more
// than MaxNodes nodes, are load errors.
func ResolveGuards(doc *arbor.Document, refs []GuardRef, el *Errors) {
	if len(refs) == 0 {
		return
	}
	byNode := map[*arbor.Node][]GuardRef{}
	owner := map[*arbor.Node]string{}
	for name, root := range doc.Trees {
		var walk func(n *arbor.Node)
		walk = func(n *arbor.Node) {
			if n == nil {
				return
			}
			owner[n] = name
			for _, c := range n.Children {
				walk(c)
			}
		}
		walk(root)
	}
	guardOf := map[string][]GuardRef{}
	ok := true
	for _, r := range refs {
		if _, exists := doc.Trees[r.Tree]; !exists {
			el.Add(r.Path, r.Node.Type, r.Line, "guard names a missing tree %q", r.Tree)
			ok = false
			continue
		}
		guardOf[owner[r.Node]] = append(guardOf[owner[r.Node]], r)
		byNode[r.Node] = append(byNode[r.Node], r)
	}
	if !ok {
		return
	}
	// Cycles: a tree whose nodes' guards lead back to it.
	const (
		unvisited = iota
		active
		done
	)
	state := map[string]int{}
	var visit func(tree string) bool
	visit = func(tree string) bool {
		switch state[tree] {
		case active:
			return false
		case done:
			return true
		}
		state[tree] = active
		for _, r := range guardOf[tree] {
			if !visit(r.Tree) {
				el.Add(r.Path, r.Node.Type, r.Line, "guard cycle: tree %q is (through guards) its own guard", r.Tree)
				state[tree] = done
				return false
			}
		}
		state[tree] = done
		return true
	}
	names := make([]string, 0, len(guardOf))
	for t := range guardOf {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		if !visit(t) {
			return
		}
	}
	// Size once guards are expanded (shared trees count once per use).
	memo := map[string]int{}
	var size func(tree string) int
	var count func(n *arbor.Node) int
	count = func(n *arbor.Node) int {
		if n == nil {
			return 0
		}
		s := 1
		for _, r := range byNode[n] {
			s += size(r.Tree)
		}
		for _, c := range n.Children {
			s += count(c)
		}
		return min(s, 1<<30)
	}
	size = func(tree string) int {
		if s, ok := memo[tree]; ok {
			return s
		}
		memo[tree] = 0
		s := count(doc.Trees[tree])
		memo[tree] = s
		return s
	}
	total := 0
	for _, t := range doc.TreeNames() {
		total = min(total+size(t), 1<<30)
	}
	if total > MaxNodes {
		el.Add("trees", "", 0, "the trees have %d nodes once guards are expanded, over the limit of %s", total, rawdoc.Count(MaxNodes))
		return
	}
	used := map[string]bool{}
	for _, r := range refs {
		r.Node.Guard = doc.Trees[r.Tree]
		used[r.Tree] = true
	}
	keep := map[string]bool{MainTree(doc): true}
	for _, root := range doc.Trees {
		var walk func(n *arbor.Node)
		walk = func(n *arbor.Node) {
			if n == nil {
				return
			}
			if Canonical(n.Type) == "SubTree" {
				if s, ok := n.Params["tree"].(string); ok {
					keep[s] = true
				}
			}
			for _, c := range n.Children {
				walk(c)
			}
		}
		walk(root)
	}
	for t := range used {
		if !keep[t] {
			delete(doc.Trees, t)
		}
	}
}

// Errors collects load errors as the engine reports them.
type Errors struct{ list arbor.LoadErrors }

// maxErrors bounds how many problems one load reports.
const maxErrors = 100

// Add records one problem.
func (e *Errors) Add(path, typ string, line int, format string, args ...any) {
	if len(e.list) < maxErrors {
		e.list = append(e.list, &arbor.LoadError{Path: path, Type: typ, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

// AddAs records one problem of a node the file wrote as fileType and the
// loader mapped onto the Arbor type typ (Behavior3's Priority, a
// ReactiveSelector): the message names both when they differ.
func (e *Errors) AddAs(path, typ, fileType string, line int, format string, args ...any) {
	n := len(e.list)
	e.Add(path, typ, line, format, args...)
	if len(e.list) > n && fileType != typ {
		e.list[n].FileType = fileType
	}
}

// Len returns the number of problems recorded.
func (e *Errors) Len() int { return len(e.list) }

// Err returns the problems as arbor.LoadErrors, or nil.
func (e *Errors) Err() error {
	if len(e.list) == 0 {
		return nil
	}
	return e.list
}

// FormatNumber writes a number the shortest way that reads back exactly:
// integers without exponent or fraction.
func FormatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// ParseNumber parses a decimal number: an optional sign, digits with an
// optional fraction, an optional exponent. Hexadecimal, "inf", "nan" and
// underscores are not numbers.
func ParseNumber(s string) (float64, bool) {
	if !isDecimal(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

// ParseInt parses a decimal integer (optional sign, digits).
func ParseInt(s string) (int64, bool) {
	if s == "" || strings.ContainsAny(s, "_xXoObB") {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// Number returns a parameter value as a float64 when it is a Go number.
func Number(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case float32:
		return float64(t), true
	case int:
		return float64(t), true
	case int8:
		return float64(t), true
	case int16:
		return float64(t), true
	case int32:
		return float64(t), true
	case int64:
		return float64(t), true
	case uint:
		return float64(t), true
	case uint8:
		return float64(t), true
	case uint16:
		return float64(t), true
	case uint32:
		return float64(t), true
	case uint64:
		return float64(t), true
	}
	return 0, false
}

// NumberList returns a list parameter's numbers: a list of a file ([]any)
// or a Go slice of numbers; false when v is not such a list.
func NumberList(v any) ([]float64, bool) {
	if v == nil {
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, false
	}
	out := make([]float64, rv.Len())
	for i := range out {
		f, ok := Number(rv.Index(i).Interface())
		if !ok {
			return nil, false
		}
		out[i] = f
	}
	return out, true
}

// List returns a list parameter's elements: a list of a file ([]any) or
// a Go slice; false when v is not a list.
func List(v any) ([]any, bool) {
	if v == nil {
		return nil, false
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return nil, false
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// SortedKeys returns a map's keys, sorted.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// IsRef reports whether s is a "{key}" blackboard reference.
func IsRef(s string) bool {
	return len(s) >= 3 && s[0] == '{' && s[len(s)-1] == '}' && !strings.ContainsAny(s[1:len(s)-1], "{}")
}
