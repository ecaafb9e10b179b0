package btcpp

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/internal/conv"
)

// ReadModels reads the node types a BT.CPP XML file's <TreeNodesModel>
// declares: a palette written by Models, or any tree file with a model.
// It is Models read back, for tools that check trees against a program's
// node types without the program (arbor validate -types).
//
// Each model gives a type's name and category (<Action>, <Condition>,
// <Decorator>, <Control>; <SubTree> models are skipped) and its ports, in
// file order: a port's type is the Go type its declared C++ type reads as
// (std::string: string; bool; the signed integer types: int64, the
// unsigned ones: uint64; float and double: float64; std::vector<T>: a
// slice; anything else, or no type: nil), its
// default the default attribute converted to that type, and it is required
// when its description begins with "required" (as Models writes it: BT.CPP
// itself has no required ports). A port name no node attribute can
// carry (name, ID, abort, guard, one beginning with "_" or "xml", or not an
// XML name) is an error, as Models never writes one. Builtin is set for
// Arbor's built-in types. Includes are not followed.
func ReadModels(data []byte) ([]arbor.TypeInfo, error) {
	root, err := parseXML(data, conv.MaxDepth)
	if err != nil {
		return nil, fmt.Errorf("BT.CPP models: %w", err)
	}
	if root.name != "root" {
		return nil, fmt.Errorf("BT.CPP models: line %d: the document element is <%s>, want <root>", root.line, root.name)
	}
	var infos []arbor.TypeInfo
	var errs []error
	seen := map[string]int{}
	for _, e := range root.kids {
		if e.name != "TreeNodesModel" {
			continue
		}
		for _, m := range e.kids {
			info, ok, err := readModel(m)
			if err != nil {
				errs = append(errs, err)
			}
			if !ok {
				continue
			}
			if line, dup := seen[info.Name]; dup {
				errs = append(errs, fmt.Errorf("line %d: node type %q is declared twice (also at line %d)", m.line, info.Name, line))
				continue
			}
			seen[info.Name] = m.line
			infos = append(infos, info)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("BT.CPP models: %w", err)
	}
	return infos, nil
}

// modelCategories maps a model element to its category.
var modelCategories = map[string]arbor.Category{
	"Action": arbor.CategoryAction, "Condition": arbor.CategoryCondition,
	"Decorator": arbor.CategoryDecorator, "Control": arbor.CategoryControl,
}

// readModel reads one model element; ok is false for elements that
// declare no node type (SubTree models, editor metadata).
func readModel(m *element) (info arbor.TypeInfo, ok bool, err error) {
	cat, known := modelCategories[m.name]
	if !known {
		return info, false, nil
	}
	id, _ := m.attr("ID")
	if id == "" {
		return info, false, fmt.Errorf("line %d: a <%s> model needs an ID attribute", m.line, m.name)
	}
	info = arbor.TypeInfo{Name: id, Category: cat, Builtin: arbor.IsBuiltin(id)}
	var errs []error
	ports := map[string]int{} // the line of each port's declaration
	for _, p := range m.kids {
		switch p.name {
		case "input_port", "output_port", "inout_port":
		default:
			continue
		}
		name, _ := p.attr("name")
		if name == "" {
			errs = append(errs, fmt.Errorf("line %d: a <%s> of model %q needs a name", p.line, p.name, id))
			continue
		}
		if !portName(name) {
			// A node's attribute of that name is not a port (name, ID,
			// BT.CPP's scripting attributes, Arbor's abort and guard), or
			// not an attribute at all: no tree could set the parameter.
			errs = append(errs, fmt.Errorf("line %d: model %q: %q cannot be a port name (reserved, or not an XML attribute name)", p.line, id, name))
			continue
		}
		if line, dup := ports[name]; dup {
			errs = append(errs, fmt.Errorf("line %d: model %q declares port %q twice (also at line %d)", p.line, id, name, line))
			continue
		}
		ports[name] = p.line
		typ, _ := p.attr("type")
		pi := arbor.ParamInfo{Name: name, Type: portGoType(typ), Ref: true}
		desc, _, _ := strings.Cut(p.text, ";")
		pi.Required = strings.EqualFold(strings.TrimSpace(desc), "required")
		if def, ok := p.attr("default"); ok && !pi.Required {
			v, err := portDefault(typ, name, def)
			if err != nil {
				errs = append(errs, fmt.Errorf("line %d: model %q: the default of %w", p.line, id, err))
				continue
			}
			pi.Default = v
		}
		info.Params = append(info.Params, pi)
	}
	return info, true, errors.Join(errs...)
}

// portGoType is the Go type a value of the declared C++ type reads as.
func portGoType(t string) reflect.Type {
	if elem, ok := vectorOf(t); ok {
		switch elem {
		case kString:
			return reflect.TypeFor[[]string]()
		case kBool:
			return reflect.TypeFor[[]bool]()
		}
		return reflect.TypeFor[[]float64]()
	}
	switch t = strings.TrimSpace(t); {
	case t == "float" || t == "double" || t == "long double":
		return reflect.TypeFor[float64]()
	case kindOfType(t) == kNumber && (strings.HasPrefix(t, "unsigned") || strings.HasPrefix(t, "uint") || t == "size_t"):
		return reflect.TypeFor[uint64]()
	}
	switch kindOfType(t) {
	case kBool:
		return reflect.TypeFor[bool]()
	case kNumber:
		return reflect.TypeFor[int64]()
	case kString:
		return reflect.TypeFor[string]()
	}
	return nil
}

// portDefault converts a port's default attribute as the loader converts
// a value of the port's type.
func portDefault(typ, port, raw string) (any, error) {
	l := newLoader(Options{NoIncludes: true})
	var v any
	var ok bool
	if elem, isList := vectorOf(typ); isList {
		v, ok = l.list(elem, raw, port, "", "", 0)
	} else {
		v, ok = l.convert(kindOfType(typ), raw, port, "", "", 0)
	}
	if !ok {
		var le arbor.LoadErrors
		if errors.As(l.el.Err(), &le) && len(le) > 0 {
			return nil, errors.New(le[0].Msg)
		}
		return nil, fmt.Errorf("port %q: not a value of its type", port)
	}
	return v, nil
}
