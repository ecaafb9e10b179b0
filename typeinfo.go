package arbor

import (
	"reflect"
	"time"
)

// TypeInfo describes a node type the registry knows, for tools such as
// editors' palettes (btcpp.Models, b3.NodeExport): what Registry.Describe
// returns. It is metadata read when the type is registered; compiling and
// ticking trees never use it.
type TypeInfo struct {
	// Name is the type's name; for an alias, the built-in it stands for
	// (Describe("Fallback").Name is "Selector").
	Name     string
	Category Category
	// Builtin reports a built-in type (semantics §3–§6, and Arbor's own).
	Builtin bool
	// Params are the parameters the type declares, in declaration order
	// (the fields of a registered parameter struct, the names given to a
	// Factory variant, a built-in's in the node catalogue's order).
	Params []ParamInfo
	// AnyParams reports a type registered with the AnyParams option: it
	// also accepts, and ignores, parameters Params does not list.
	AnyParams bool
	// Abort reports a type that takes a conditional-abort mode (a node's
	// abort: Sequence, SequenceWithMemory and Selector, semantics §7).
	Abort bool
}

// ParamInfo describes one parameter of a node type. How much is known
// depends on the registration: a parameter struct's field gives its name,
// Go type, whether it is required and its default; the Factory variants
// (RegisterActionFactory, ...) give names only, the build function
// deciding the rest (Type nil, Required false, Default nil).
type ParamInfo struct {
	Name string
	// Type is the Go type the parameter's value is read as: the field's
	// type, or T for a Param[T] field (and, in a list or object field,
	// for its elements); time.Duration for a duration written in
	// milliseconds (a built-in's ms, or a time.Duration field); an
	// interface type (any) when any value is taken. Nil when the
	// registration does not say (the Factory variants).
	Type reflect.Type
	// Required reports a parameter whose absence is a load error.
	Required bool
	// Ref reports a parameter that may also be a blackboard reference
	// "{key}" (a Param[T] field; Check's and Set's value), read when the
	// node runs.
	Ref bool
	// Default is what an absent parameter stands for, as a file writes it
	// (numbers as float64, lists as []any, objects as map[string]any):
	// the field's `default=` tag, else the zero value of the field's type
	// (0, "", false, an empty list or object: the field is then empty
	// rather than nil); a built-in's documented default. Nil when there is
	// none to write: a required parameter, a field of interface type, a
	// Factory variant's parameter, and a built-in parameter whose absence
	// means something no value says (RandomSelector's seed: the agent's
	// id; RunOnce's then: the child's result).
	Default any
}

// Describe returns what the registry knows of the node type (or alias)
// name, and false when it does not know the type. The result is a copy:
// changing it changes nothing in the registry.
//
// Some rules are beyond this description: Wait takes exactly one of ticks
// and ms, Check takes no value with the operators exists and missing,
// counts must be integers in their ranges (the node catalogue), and a
// Factory variant's build function may refuse any value.
func (r *Registry) Describe(name string) (TypeInfo, bool) {
	t, ok := r.lookup(name)
	if !ok {
		return TypeInfo{}, false
	}
	info := TypeInfo{Name: t.name, Category: r.Category(t.name), Builtin: t.builtin, AnyParams: t.anyParams, Abort: t.builtin && abortable(t.kind)}
	src := t.info
	if t.builtin {
		src = builtinParams[t.name]
	}
	if src == nil && len(t.params) > 0 { // a Factory variant: names only
		info.Params = make([]ParamInfo, len(t.params))
		for i, p := range t.params {
			info.Params[i] = ParamInfo{Name: p}
		}
		return info, true
	}
	if len(src) > 0 {
		info.Params = make([]ParamInfo, len(src))
		for i, p := range src {
			p.Default = cloneRaw(p.Default)
			info.Params[i] = p
		}
	}
	return info, true
}

// cloneRaw copies the lists and objects of a raw value.
func cloneRaw(v any) any {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = cloneRaw(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = cloneRaw(e)
		}
		return out
	}
	return v
}

// valueTyper is implemented by Param[T]: it names T.
type valueTyper interface{ valueType() reflect.Type }

func (Param[T]) valueType() reflect.Type { return reflect.TypeFor[T]() }

// describeField returns the type a parameter field's value is read as
// (Param[T] → T, also inside lists and objects) and whether the field
// itself takes a "{key}" reference.
func describeField(t reflect.Type) (reflect.Type, bool) {
	if vt, ok := reflect.Zero(t).Interface().(valueTyper); ok {
		inner, _ := describeField(vt.valueType())
		return inner, true
	}
	switch t.Kind() {
	case reflect.Slice:
		if e, _ := describeField(t.Elem()); e != t.Elem() {
			return reflect.SliceOf(e), false
		}
	case reflect.Map:
		if e, _ := describeField(t.Elem()); e != t.Elem() {
			return reflect.MapOf(t.Key(), e), false
		}
	}
	return t, false
}

// zeroRaw returns the zero value of a parameter of type t as a file
// writes it, or nil (an interface type: nothing to write).
func zeroRaw(t reflect.Type) any {
	if t == durationType {
		return 0.0
	}
	switch t.Kind() {
	case reflect.Bool:
		return false
	case reflect.String:
		return ""
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return 0.0
	case reflect.Slice:
		return []any{}
	case reflect.Map:
		return map[string]any{}
	}
	return nil
}

// The Go types of the built-ins' parameters.
var (
	tInt      = reflect.TypeFor[int]()
	tInt64    = reflect.TypeFor[int64]()
	tBool     = reflect.TypeFor[bool]()
	tString   = reflect.TypeFor[string]()
	tDuration = reflect.TypeFor[time.Duration]()
	tAny      = reflect.TypeFor[any]()
	tNumbers  = reflect.TypeFor[[]float64]()
	tList     = reflect.TypeFor[[]any]()
)

// builtinParams describes the built-ins' parameters (the node catalogue;
// the names are builtinTypes' params, in that order).
var builtinParams = map[string][]ParamInfo{
	"Parallel": {
		{Name: "success", Type: tInt, Default: -1.0},
		{Name: "failure", Type: tInt, Default: 0.0},
		{Name: "retryFailed", Type: tBool, Default: false},
	},
	"ParallelAll":    {{Name: "maxFailures", Type: tInt, Default: 1.0}},
	"RandomSelector": {{Name: "weights", Type: tNumbers}, {Name: "seed", Type: tInt64}},
	"RandomSequence": {{Name: "weights", Type: tNumbers}, {Name: "seed", Type: tInt64}},
	"Switch": {
		{Name: "key", Type: tString, Required: true},
		{Name: "cases", Type: tList, Required: true},
	},
	"Repeat":               {{Name: "count", Type: tInt, Required: true}},
	"RetryUntilSuccessful": {{Name: "attempts", Type: tInt, Required: true}},
	"RepeatUntilFailure":   {{Name: "max", Type: tInt, Default: -1.0}},
	"Timeout":              {{Name: "ms", Type: tDuration, Required: true}},
	"Delay":                {{Name: "ms", Type: tDuration, Required: true}},
	"Cooldown":             {{Name: "ms", Type: tDuration, Required: true}},
	"Limiter":              {{Name: "max", Type: tInt, Required: true}},
	"RunOnce":              {{Name: "then", Type: tString}},
	"SubTree":              {{Name: "tree", Type: tString, Required: true}},
	"Wait":                 {{Name: "ticks", Type: tInt}, {Name: "ms", Type: tDuration}},
	"Check": {
		{Name: "key", Type: tString, Required: true},
		{Name: "op", Type: tString, Required: true},
		{Name: "value", Type: tAny, Ref: true},
	},
	"Set": {
		{Name: "key", Type: tString, Required: true},
		{Name: "value", Type: tAny, Required: true, Ref: true},
		{Name: "ttlMs", Type: tDuration},
	},
	ErrorType: {{Name: "message", Type: tString, Default: "error node"}},
}
