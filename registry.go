package arbor

import (
	"fmt"
	"maps"
	"sort"
)

// kind is the compiled form of a node type: the tick loop switches on it.
type kind uint8

const (
	kSequence kind = iota
	kSequenceWithMemory
	kReactiveSequence
	kSelector
	kReactiveSelector
	kParallel
	kParallelAll
	kInverter
	kForceSuccess
	kForceFailure
	kRepeat
	kRetryUntilSuccessful
	kRepeatUntilFailure
	kTimeout
	kDelay
	kCooldown
	kLimiter
	kRunOnce
	kSubTree
	kSuccess
	kFailure
	kRunning
	kWaitTicks
	kWaitMs
	kCheck
	kSet
	kError
	kCondition // registered condition
	kAction    // registered action
	// User nodes with children (control.go): a control node (composite
	// shape) and a decorator.
	kUserControl
	kUserDecorator
	// The random composites (random.go), Arbor's own. Kinds are numbered
	// in this order in tree fingerprints: new kinds go last.
	kRandomSelector
	kRandomSequence
	// The branching composites (branch.go): BT.CPP's IfThenElse,
	// WhileDoElse and SwitchN.
	kIfThenElse
	kWhileDoElse
	kSwitch
)

// shape is what children a node type takes.
type shape uint8

const (
	shapeLeaf shape = iota
	shapeDecorator
	shapeComposite
	shapeSubTree
)

// nodeType describes one registered node type.
type nodeType struct {
	name    string
	kind    kind
	shape   shape
	builtin bool
	params  []string // the parameters it accepts
	// info describes a parameter struct's fields (Describe); nil for the
	// built-ins (builtinParams) and the Factory variants (names only).
	info      []ParamInfo
	anyParams bool // accepts and ignores undeclared parameters
	// user builds the shared implementation of a registered node from its
	// parameters.
	user func(pr *paramReader) userNode
}

// builtinTypes lists the built-in node types of semantics §3–§6, and
// Arbor's own random and branching composites (doc.go).
var builtinTypes = []*nodeType{
	{name: "Sequence", kind: kSequence, shape: shapeComposite},
	{name: "SequenceWithMemory", kind: kSequenceWithMemory, shape: shapeComposite},
	{name: "ReactiveSequence", kind: kReactiveSequence, shape: shapeComposite},
	{name: "Selector", kind: kSelector, shape: shapeComposite},
	{name: "ReactiveSelector", kind: kReactiveSelector, shape: shapeComposite},
	{name: "Parallel", kind: kParallel, shape: shapeComposite, params: []string{"success", "failure", "retryFailed"}},
	{name: "ParallelAll", kind: kParallelAll, shape: shapeComposite, params: []string{"maxFailures"}},
	{name: "RandomSelector", kind: kRandomSelector, shape: shapeComposite, params: []string{"weights", "seed"}},
	{name: "RandomSequence", kind: kRandomSequence, shape: shapeComposite, params: []string{"weights", "seed"}},
	{name: "IfThenElse", kind: kIfThenElse, shape: shapeComposite},
	{name: "WhileDoElse", kind: kWhileDoElse, shape: shapeComposite},
	{name: "Switch", kind: kSwitch, shape: shapeComposite, params: []string{"key", "cases"}},
	{name: "Inverter", kind: kInverter, shape: shapeDecorator},
	{name: "ForceSuccess", kind: kForceSuccess, shape: shapeDecorator},
	{name: "ForceFailure", kind: kForceFailure, shape: shapeDecorator},
	{name: "Repeat", kind: kRepeat, shape: shapeDecorator, params: []string{"count"}},
	{name: "RetryUntilSuccessful", kind: kRetryUntilSuccessful, shape: shapeDecorator, params: []string{"attempts"}},
	{name: "RepeatUntilFailure", kind: kRepeatUntilFailure, shape: shapeDecorator, params: []string{"max"}},
	{name: "Timeout", kind: kTimeout, shape: shapeDecorator, params: []string{"ms"}},
	{name: "Delay", kind: kDelay, shape: shapeDecorator, params: []string{"ms"}},
	{name: "Cooldown", kind: kCooldown, shape: shapeDecorator, params: []string{"ms"}},
	{name: "Limiter", kind: kLimiter, shape: shapeDecorator, params: []string{"max"}},
	{name: "RunOnce", kind: kRunOnce, shape: shapeDecorator, params: []string{"then"}},
	{name: "SubTree", kind: kSubTree, shape: shapeSubTree, params: []string{"tree"}},
	{name: "Success", kind: kSuccess, shape: shapeLeaf},
	{name: "Failure", kind: kFailure, shape: shapeLeaf},
	{name: "Running", kind: kRunning, shape: shapeLeaf},
	{name: "Wait", kind: kWaitTicks, shape: shapeLeaf, params: []string{"ticks", "ms"}},
	{name: "Check", kind: kCheck, shape: shapeLeaf, params: []string{"key", "op", "value"}},
	{name: "Set", kind: kSet, shape: shapeLeaf, params: []string{"key", "value", "ttlMs"}},
	// ErrorType: a leaf that fails and reports an error (Behavior3's Error).
	{name: ErrorType, kind: kError, shape: shapeLeaf, params: []string{"message"}},
}

// ErrorType is the type of the leaf that fails and reports an error with
// its path (the message parameter, or "error node"): what the Behavior3
// loader makes of that editor's Error node. The dotted name keeps it apart
// from the names programs and scenarios give their own types.
const ErrorType = "arbor.Error"

// builtinAliases maps the other names a file may use to the built-in type.
var builtinAliases = map[string]string{
	"MemSequence":        "Sequence",
	"Fallback":           "Selector",
	"MemPriority":        "Selector",
	"Priority":           "ReactiveSelector",
	"ReactiveFallback":   "ReactiveSelector",
	"PrioritySelector":   "ReactiveSelector",
	"AlwaysSucceed":      "ForceSuccess",
	"RepeatUntilSuccess": "RetryUntilSuccessful",
	"MaxTime":            "Timeout",
}

// CanonicalType returns the built-in type an alias stands for
// ("Fallback" → "Selector"), or name itself.
func CanonicalType(name string) string {
	if c, ok := builtinAliases[name]; ok {
		return c
	}
	return name
}

// Registry holds the node types a tree may use: the built-ins and the
// conditions, actions, decorators and control nodes the program registers.
// Register types before compiling trees: registering is not safe for
// concurrent use, while Compile and the query methods (Has, Category,
// Types, Describe) are, once registration is over. A type cannot be registered
// twice, nor under a built-in name or alias.
//
// The zero Registry is ready to use and holds the built-in node types, as
// NewRegistry makes it.
type Registry struct {
	types map[string]*nodeType // nil in a zero Registry until a type is registered
}

// builtinRegistry holds the built-in types only: what a zero Registry
// reads until a type is registered on it.
var builtinRegistry = NewRegistry()

// table returns the registry's types: the built-ins for a zero Registry.
func (r *Registry) table() map[string]*nodeType {
	if r.types == nil {
		return builtinRegistry.types
	}
	return r.types
}

// NewRegistry returns a registry holding the built-in node types.
func NewRegistry() *Registry {
	r := &Registry{types: make(map[string]*nodeType, len(builtinTypes)+len(builtinAliases))}
	for _, t := range builtinTypes {
		if !t.builtin { // set once, by the first registry: later ones only read
			t.builtin = true
		}
		r.types[t.name] = t
	}
	for alias, name := range builtinAliases {
		r.types[alias] = r.types[name]
	}
	return r
}

// IsBuiltin reports whether name is a built-in node type or alias.
func IsBuiltin(name string) bool {
	if _, ok := builtinAliases[name]; ok {
		return true
	}
	for _, t := range builtinTypes {
		if t.name == name {
			return true
		}
	}
	return false
}

// Has reports whether the registry knows the node type (or alias) name.
func (r *Registry) Has(name string) bool {
	_, ok := r.table()[name]
	return ok
}

// Category is what a node type is, as the editors group node types.
type Category uint8

// The categories of node types.
const (
	CategoryNone      Category = iota // not a type the registry knows
	CategoryAction                    // a leaf that acts (may run over ticks)
	CategoryCondition                 // a leaf that decides at once
	CategoryDecorator                 // exactly one child
	CategoryControl                   // one or more children (a composite)
	CategorySubTree                   // runs another tree of the document
)

// String returns "none", "action", "condition", "decorator", "control" or
// "subtree".
func (c Category) String() string {
	switch c {
	case CategoryAction:
		return "action"
	case CategoryCondition:
		return "condition"
	case CategoryDecorator:
		return "decorator"
	case CategoryControl:
		return "control"
	case CategorySubTree:
		return "subtree"
	}
	return "none"
}

// Category returns the category of the node type (or alias) name, for
// tools such as the exporters of package format.
func (r *Registry) Category(name string) Category {
	t, ok := r.table()[name]
	switch {
	case !ok:
		return CategoryNone
	case t.shape == shapeComposite:
		return CategoryControl
	case t.shape == shapeDecorator:
		return CategoryDecorator
	case t.shape == shapeSubTree:
		return CategorySubTree
	case isConditionKind(t.kind):
		return CategoryCondition
	}
	return CategoryAction
}

// Types returns every type name and alias the registry knows, sorted.
func (r *Registry) Types() []string {
	types := r.table()
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (r *Registry) add(t *nodeType) error {
	if t.name == "" {
		return fmt.Errorf("register node type: empty name")
	}
	if r.types == nil { // a zero Registry: the built-ins first
		r.types = maps.Clone(builtinRegistry.types)
	}
	if old, ok := r.types[t.name]; ok {
		if old.builtin {
			return fmt.Errorf("register node type %q: it is a built-in type", t.name)
		}
		return fmt.Errorf("register node type %q: already registered", t.name)
	}
	r.types[t.name] = t
	return nil
}

// lookup returns the type named name and its canonical name.
func (r *Registry) lookup(name string) (*nodeType, bool) {
	t, ok := r.table()[name]
	return t, ok
}
