package main

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format"
	"github.com/arborbt/arbor/format/btcpp"
)

// Palettes (-types): the node types a program declares in a palette file
// (btcpp.Models or b3.NodeExport writes one from its registry) stand in
// for the program's own when a tree is validated or run without it. A
// declared type runs as a mock of its category (an action that succeeds or
// runs its -mock script, a condition that holds or gives its script's
// first status, a stand-in decorator or control) and takes exactly the
// parameters the palette declares: an undeclared parameter, a missing
// required one or a value of another type is a load error, as it would be
// in the program.

// typesFlags collects -types files, in order.
type typesFlags []string

func (f *typesFlags) String() string { return strings.Join(*f, ",") }

func (f *typesFlags) Set(path string) error {
	*f = append(*f, path)
	return nil
}

// typesUsage is the -types flag's help.
const typesUsage = "a palette `FILE` declaring the program's node types (Groot2's TreeNodesModel XML or a Behavior3 node export, as btcpp.Models and b3.NodeExport write them; repeatable): its types run as mocks and take exactly the parameters it declares"

// declared holds the node types the palette files of -types declare.
type declared []arbor.TypeInfo

// readPalettes reads the palette files, in order.
func readPalettes(paths []string) (declared, error) {
	var d declared
	for _, path := range paths {
		infos, err := format.ReadPalette(path)
		if err != nil {
			return nil, err
		}
		d = append(d, infos...)
	}
	return d, nil
}

// register registers in reg the program types d declares (built-ins and
// types reg has are left alone; a type two files declare is taken from
// the first). Actions run their -mock script, else idle; conditions give
// their script's first status, else hold.
func (d declared) register(reg *arbor.Registry, mocks mockFlags, idle []arbor.Status) error {
	for _, info := range d {
		if info.Builtin || reg.Has(info.Name) {
			continue
		}
		script := mocks[info.Name]
		if script == nil && (info.Category == arbor.CategoryAction || info.Category == arbor.CategoryNone) {
			script = idle
		}
		if err := registerDeclared(reg, info, script); err != nil {
			return fmt.Errorf("-types: %w", err)
		}
	}
	return nil
}

// registerPalettes reads the palette files and registers their types in
// reg, actions that are not scripted succeeding (validate, run).
func registerPalettes(reg *arbor.Registry, paths []string, mocks mockFlags) error {
	d, err := readPalettes(paths)
	if err != nil {
		return err
	}
	return d.register(reg, mocks, []arbor.Status{arbor.Success})
}

// registerDeclared registers one declared type as a mock of its category.
func registerDeclared(reg *arbor.Registry, info arbor.TypeInfo, script []arbor.Status) error {
	names := make([]string, len(info.Params))
	for i, p := range info.Params {
		names[i] = p.Name
	}
	var opts []arbor.TypeOption
	if info.AnyParams {
		opts = append(opts, arbor.AnyParams())
	}
	check := func(params map[string]any) error { return checkDeclared(info, params) }
	switch info.Category {
	case arbor.CategoryCondition:
		result := true
		for _, st := range script {
			if st == arbor.Running {
				return fmt.Errorf("-mock %s: the palette declares %s a condition, which cannot be running", info.Name, info.Name)
			}
		}
		if len(script) > 0 {
			result = script[0] == arbor.Success
		}
		return arbor.RegisterConditionFactory(reg, info.Name, names, func(p map[string]any) (arbor.Condition, error) {
			return mockCond(result), check(p)
		}, opts...)
	case arbor.CategoryDecorator, arbor.CategoryControl:
		if len(script) > 0 {
			return fmt.Errorf("-mock %s: the palette declares %s a %s, which runs as a stand-in ticking its children; only leaves can be scripted", info.Name, info.Name, info.Category)
		}
		build := func(p map[string]any) (arbor.Control[standInMem], error) { return standIn{}, check(p) }
		if info.Category == arbor.CategoryDecorator {
			return arbor.RegisterDecoratorFactory(reg, info.Name, names, build, opts...)
		}
		return arbor.RegisterControlFactory(reg, info.Name, names, build, opts...)
	}
	if len(script) == 0 {
		script = []arbor.Status{arbor.Success}
	}
	return arbor.RegisterActionFactory[mockMem](reg, info.Name, names, func(p map[string]any) (arbor.Action[mockMem], error) {
		return mockAction{script}, check(p)
	}, opts...)
}

// mockCond is a declared condition's mock: it always gives its result.
type mockCond bool

func (c mockCond) Check(*arbor.Ctx) (bool, error) { return bool(c), nil }

// checkDeclared checks a node's parameters against its type's
// declaration: the required ones are present, and each declared one has a
// value of its type (or is a {key} reference). Undeclared parameters are
// the registry's to refuse.
func checkDeclared(info arbor.TypeInfo, params map[string]any) error {
	for _, p := range info.Params {
		v, ok := params[p.Name]
		if !ok {
			if p.Required {
				return fmt.Errorf("missing required parameter %q (the palette declares it required)", p.Name)
			}
			continue
		}
		if s, isStr := v.(string); isStr && p.Ref && isRef(s) {
			continue
		}
		if want := declaredMismatch(p.Type, v); want != "" {
			return fmt.Errorf("parameter %q: want %s (as the palette declares), got %s", p.Name, want, describeValue(v))
		}
	}
	return nil
}

// declaredMismatch says what a value of type t looks like when v is not
// one ("" when it is, or when t says nothing). Files without types (BT.CPP
// XML without a model) write numbers and booleans where a string is
// declared, so a string takes any scalar.
func declaredMismatch(t reflect.Type, v any) string {
	if t == nil || v == nil {
		return ""
	}
	switch t.Kind() {
	case reflect.String:
		switch v.(type) {
		case string, float64, bool:
			return ""
		}
		return "a string"
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return "true or false"
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if f, ok := v.(float64); !ok || f != math.Trunc(f) || math.IsInf(f, 0) {
			return "an integer"
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if f, ok := v.(float64); !ok || f != math.Trunc(f) || f < 0 || math.IsInf(f, 0) {
			return "an integer ≥ 0"
		}
	case reflect.Float32, reflect.Float64:
		if _, ok := v.(float64); !ok {
			return "a number"
		}
	case reflect.Slice, reflect.Array:
		list, ok := v.([]any)
		if s, isStr := v.(string); isStr && !ok {
			// BT.CPP XML without a model of the type writes a list as
			// text: "A;B;C", or json: and a JSON array.
			list, ok = textList(s)
		}
		if !ok {
			return "a list"
		}
		for _, e := range list {
			if w := declaredMismatch(t.Elem(), e); w != "" {
				if pl, ok := plurals[w]; ok {
					return "a list of " + pl
				}
				return "a list of values of the declared type"
			}
		}
	case reflect.Map:
		if _, ok := v.(map[string]any); !ok {
			return "an object"
		}
	}
	return ""
}

// textList reads a list written as BT.CPP writes one: elements separated
// by ';' (a final ';' ends the list) or "json:" and a JSON array; the
// elements are untyped, as in a port without a type.
func textList(s string) ([]any, bool) {
	if js, ok := strings.CutPrefix(s, "json:"); ok {
		var list []any
		return list, json.Unmarshal([]byte(js), &list) == nil
	}
	parts := strings.Split(s, ";")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	list := make([]any, len(parts))
	for i, p := range parts {
		list[i] = btcpp.Untyped(strings.TrimSpace(p))
	}
	return list, true
}

// plurals names lists of what declaredMismatch wants.
var plurals = map[string]string{
	"a string": "strings", "true or false": "booleans", "an integer": "integers",
	"an integer ≥ 0": "integers ≥ 0", "a number": "numbers", "a list": "lists", "an object": "objects",
}

// isRef reports a blackboard reference "{key}".
func isRef(s string) bool { return len(s) > 2 && s[0] == '{' && s[len(s)-1] == '}' }

// describeValue names a parameter value's kind for an error.
func describeValue(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the string %q", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("%v", x)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%v", v)
}

// declareCategories adds to doc.Categories the categories the palettes
// give the program types doc does not declare itself, for the exporters.
func declareCategories(doc *arbor.Document, paths []string) error {
	for _, path := range paths {
		infos, err := format.ReadPalette(path)
		if err != nil {
			return err
		}
		for _, info := range infos {
			if info.Builtin || info.Category == arbor.CategoryNone {
				continue
			}
			if _, declared := doc.Categories[info.Name]; declared {
				continue
			}
			if doc.Categories == nil {
				doc.Categories = map[string]arbor.Category{}
			}
			doc.Categories[info.Name] = info.Category
		}
	}
	return nil
}
