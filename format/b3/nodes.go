package b3

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/arborbt/arbor"
)

// NodeExport writes the program's node palette for the Behavior3 editor:
// the editor's node export (Project › Import › Nodes as JSON), a list of
// node definitions ("scope": "node") with name, category (action,
// condition, decorator, composite), title (the name), description and
// properties. It holds every node type the program registered in reg (not
// the built-ins), and the Arbor built-ins the editor lacks, which Export
// writes as custom nodes (Parallel, Check, Set, Cooldown, RandomSelector,
// ...), sorted by name.
//
// The editor gives every node it creates or loads its definition's
// properties, so a definition's properties are those whose presence
// changes nothing (reg.Describe): a parameter with a default (the
// default; for a parameter struct's field without one, the zero value of
// its type, which an absent field has too), and a required parameter of a
// known type, with the zero value of its type for the designer to replace
// (a forgotten one loads as that value, not as an error). Other
// parameters (a Factory variant's, whose type the registry does not know;
// a built-in's without a default, such as RandomSelector's seed; those
// taking any value) are not properties: the description lists every
// parameter with its type ("target (string, required, or a {key})"), for
// the designer to add them by hand.
//
// The file is for the editor only: Load refuses a node export, which
// holds no tree. A program type named like a Behavior3 built-in (Runner,
// Error, ...) or with a parameter named abort or guard (Arbor's reserved
// properties) is an error.
func NodeExport(reg *arbor.Registry) ([]byte, error) {
	if reg == nil {
		return nil, errors.New("behavior3 node export: no registry")
	}
	entries := []*exportCustom{}
	var errs []error
	for _, name := range reg.Types() {
		info, _ := reg.Describe(name)
		if info.Name != name {
			continue // an alias
		}
		if info.Builtin {
			if _, isB3 := reverse[name]; isB3 || name == "SubTree" || name == arbor.ErrorType {
				continue // the editor has it (Error is arbor.ErrorType)
			}
		} else if IsBuiltin(name) {
			errs = append(errs, fmt.Errorf("node type %q is a Behavior3 built-in with other parameters: register it under another name", name))
			continue
		}
		props := map[string]any{}
		var params []string
		for _, p := range info.Params {
			if p.Name == "abort" || p.Name == "guard" {
				errs = append(errs, fmt.Errorf("node type %q: parameter %q is a reserved property (Arbor's %s)", name, p.Name, p.Name))
				continue
			}
			params = append(params, describeParam(p))
			v := p.Default
			if v == nil && p.Required {
				v = zeroOfType(p.Type)
			}
			if v == nil {
				continue
			}
			if err := checkJSON(v); err != nil {
				errs = append(errs, fmt.Errorf("node type %q: parameter %q: %w", name, p.Name, err))
				continue
			}
			props[p.Name] = v
		}
		desc := ""
		if len(params) > 0 {
			desc = "Parameters: " + strings.Join(params, ", ") + "."
		}
		if info.AnyParams {
			desc = strings.TrimSpace(desc + " Takes other parameters too.")
		}
		entries = append(entries, customEntry(name, customCategory(info.Category), desc, props))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("behavior3 node export: %w", err)
	}
	data, err := encode(entries)
	if err != nil {
		return nil, fmt.Errorf("behavior3 node export: %w", err)
	}
	return data, nil
}

// describeParam describes a parameter for a definition's description:
// "speed (number, default 1.5)".
func describeParam(p arbor.ParamInfo) string {
	var what []string
	if t := typeName(p.Type); t != "" {
		what = append(what, t)
	}
	if p.Required {
		what = append(what, "required")
	}
	if p.Ref {
		what = append(what, "or a {key}")
	}
	if p.Default != nil && !zeroDefault(p) {
		text, err := json.Marshal(p.Default)
		if err != nil {
			text = []byte(fmt.Sprint(p.Default))
		}
		what = append(what, "default "+string(text))
	}
	if len(what) == 0 {
		return p.Name
	}
	return p.Name + " (" + strings.Join(what, ", ") + ")"
}

// zeroDefault reports a default that is the zero value of the
// parameter's type (not worth saying).
func zeroDefault(p arbor.ParamInfo) bool {
	return p.Type != nil && reflect.DeepEqual(p.Default, zeroOfType(p.Type))
}

// typeName names the values a parameter of type t takes ("" when t is
// nil: not known).
func typeName(t reflect.Type) string {
	if t == nil {
		return ""
	}
	if t == reflect.TypeFor[time.Duration]() {
		return "milliseconds"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		switch e := typeName(t.Elem()); e {
		case "any value":
			return "list"
		case "milliseconds":
			return "list of durations in milliseconds"
		case "boolean":
			return "list of booleans"
		case "integer":
			return "list of integers"
		default:
			return "list of " + e + "s"
		}
	case reflect.Map:
		return "object"
	}
	return "any value"
}

// zeroOfType returns the zero value of a parameter of type t as JSON
// writes it, or nil (t nil, or an interface type: no value says it).
func zeroOfType(t reflect.Type) any {
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return false
	case reflect.String:
		return ""
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return 0.0
	case reflect.Slice, reflect.Array:
		return []any{}
	case reflect.Map:
		return map[string]any{}
	}
	return nil
}
