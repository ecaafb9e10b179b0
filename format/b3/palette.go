package b3

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/internal/conv"
	"github.com/arborbt/arbor/internal/rawdoc"
)

// ReadNodes reads the node types a Behavior3 file declares: the editor's
// node export (a list of "scope": "node" definitions, as NodeExport
// writes) or the custom_nodes of a project or tree export. It is
// NodeExport read back, for tools that check trees against a program's
// node types without the program (arbor validate -types).
//
// A definition gives a type's name, its category (action, condition,
// decorator, composite; another word is an error, a missing one leaves
// the category CategoryNone) and its properties: each is a parameter whose
// default is the property's value and whose Go type is that of the value
// (string, bool, float64, []any, map[string]any; nil for null). The editor
// has no required properties; the description NodeExport writes
// ("Parameters: target (string, required), speed (number, default 1.5).")
// also marks parameters required, and lists those that are not properties
// (of a type the program does not say); "Takes other parameters too."
// sets AnyParams. Builtin is set for Arbor's built-in types.
func ReadNodes(data []byte) ([]arbor.TypeInfo, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	v, err := rawdoc.Parse(data, false, rawdoc.Limits{MaxBytes: conv.MaxBytes, MaxDepth: conv.MaxDepth})
	if err != nil {
		return nil, fmt.Errorf("behavior3 nodes: %w", err)
	}
	// A key written twice has no one meaning (the loaders refuse it too).
	if dup := rawdoc.FirstDuplicate(v); dup != nil {
		return nil, fmt.Errorf("behavior3 nodes: line %d: duplicate key %q", dup.Line, dup.Key)
	}
	list, where := v, ""
	if v.Kind == rawdoc.Object {
		if d := v.Get("data"); d != nil && d.Kind == rawdoc.Object && v.Get("custom_nodes") == nil {
			v = d
		}
		list, where = v.Get("custom_nodes"), "custom_nodes"
		if list == nil || list.Kind == rawdoc.Null {
			return nil, nil
		}
	}
	if list.Kind != rawdoc.List {
		return nil, fmt.Errorf("behavior3 nodes: want a node export (a list of node definitions) or a file with custom_nodes, got %s", list.Describe())
	}
	var infos []arbor.TypeInfo
	var errs []error
	seen := map[string]bool{}
	for i, c := range list.List {
		at := fmt.Sprintf("%s[%d] (line %d)", where, i, c.Line)
		if c.Kind != rawdoc.Object {
			errs = append(errs, fmt.Errorf("%s: a node definition must be an object, got %s", at, c.Describe()))
			continue
		}
		name, ok := str(c.Get("name"))
		if !ok || name == "" {
			errs = append(errs, fmt.Errorf("%s: a node definition needs a name (a non-empty string)", at))
			continue
		}
		if seen[name] {
			errs = append(errs, fmt.Errorf("%s: node type %q is defined twice", at, name))
			continue
		}
		seen[name] = true
		cat, _ := str(c.Get("category"))
		if _, known := categoryOf[cat]; !known && cat != "" {
			// Behavior3 has four categories; another word is a typo that
			// would otherwise make the type an action.
			errs = append(errs, fmt.Errorf("%s: node type %q: unknown category %q (composite, decorator, condition or action)", at, name, cat))
			continue
		}
		info := arbor.TypeInfo{Name: name, Category: categoryOf[cat], Builtin: arbor.IsBuiltin(name)}
		desc, _ := str(c.Get("description"))
		described, anyParams := describedParams(desc)
		info.AnyParams = anyParams
		props := c.Get("properties")
		if props == nil || props.Kind == rawdoc.Null {
			props = c.Get("parameters")
		}
		inProps := map[string]bool{}
		if props != nil && props.Kind == rawdoc.Object {
			for _, key := range props.Keys() {
				val := props.Get(key).Interface()
				p := arbor.ParamInfo{Name: key, Default: val, Ref: true}
				if val != nil {
					p.Type = reflect.TypeOf(val)
				}
				if d, ok := described.get(key); ok && d.required {
					p.Required, p.Default = true, nil
				}
				inProps[key] = true
				info.Params = append(info.Params, p)
			}
		} else if props != nil {
			errs = append(errs, fmt.Errorf("%s: node type %q: properties must be an object, got %s", at, name, props.Describe()))
		}
		for _, d := range described.order {
			if !inProps[d] {
				dp, _ := described.get(d)
				info.Params = append(info.Params, arbor.ParamInfo{Name: d, Required: dp.required, Ref: true})
			}
		}
		infos = append(infos, info)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("behavior3 nodes: %w", err)
	}
	return infos, nil
}

// describedParam is what a NodeExport description says of a parameter.
type describedParam struct{ required bool }

// describedParams reads the parameter list NodeExport writes in a
// description ("Parameters: a (string, required), b. Takes other
// parameters too."); a description in other words names none.
func describedParams(desc string) (ds descriptions, anyParams bool) {
	ds = descriptions{}
	desc = strings.TrimSpace(desc)
	if rest, ok := strings.CutSuffix(desc, "Takes other parameters too."); ok {
		desc, anyParams = strings.TrimSpace(rest), true
	}
	list, ok := strings.CutPrefix(desc, "Parameters: ")
	if !ok || !strings.HasSuffix(list, ".") {
		return ds, anyParams
	}
	list = strings.TrimSuffix(list, ".")
	depth, start := 0, 0
	var items []string
	for i, r := range list {
		switch {
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ',' && depth == 0:
			items = append(items, list[start:i])
			start = i + 1
		}
	}
	items = append(items, list[start:])
	for _, item := range items {
		item = strings.TrimSpace(item)
		name, what, paren := strings.Cut(item, " (")
		if name == "" || strings.ContainsAny(name, " ()") || (paren && !strings.HasSuffix(what, ")")) {
			return descriptions{}, anyParams // not NodeExport's list
		}
		required := false
		for _, w := range strings.Split(strings.TrimSuffix(what, ")"), ",") {
			required = required || strings.TrimSpace(w) == "required"
		}
		ds.add(name, describedParam{required: required})
	}
	return ds, anyParams
}

// descriptions maps parameter names to what a description says of them,
// and keeps their order.
type descriptions struct {
	m     map[string]describedParam
	order []string
}

func (d *descriptions) add(name string, p describedParam) {
	if d.m == nil {
		d.m = map[string]describedParam{}
	}
	if _, dup := d.m[name]; !dup {
		d.order = append(d.order, name)
	}
	d.m[name] = p
}

func (d descriptions) get(name string) (describedParam, bool) {
	p, ok := d.m[name]
	return p, ok
}
