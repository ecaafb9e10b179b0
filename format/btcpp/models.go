package btcpp

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/internal/conv"
)

// Models writes the program's node palette for Groot2, as BT.CPP's
// writeTreeNodesModelXML does: a BT.CPP v4 file holding one
// <TreeNodesModel> that declares every node type the program registered in
// reg (not the built-ins) under its category (<Action>, <Condition>,
// <Decorator>, <Control>), and the Arbor-only built-ins Groot2 does not
// know (Check, Set, Wait, Cooldown, Limiter, RepeatUntilFailure, Running,
// RandomSelector, RandomSequence), with the ports Export gives them, so
// that designers can use them in Groot2 too.
//
// Each parameter is an <input_port> (Arbor's parameters are inputs),
// typed from reg.Describe: a string std::string, a bool bool, an integer
// int (unsigned int), a float double (float), a time.Duration double (in
// milliseconds), a list of strings, numbers or booleans
// std::vector<std::string>, std::vector<double> or std::vector<bool>; a
// parameter of another type (objects, any) or of a Factory variant is
// untyped. A default other than the zero value is the port's default
// attribute; "required" and "milliseconds" are its description.
//
// The model loads with the trees that use it (an <include> of the file, or
// its <TreeNodesModel> in the tree file), typing and checking their ports:
// as in BT.CPP, a port the model does not declare is then a load error,
// also for a type registered with arbor.AnyParams.
//
// A program type named like a BT.CPP built-in (Sleep, AlwaysSuccess,
// Script, Switch3, ...) or with a parameter that cannot be a port (name,
// ID, abort, guard, one starting with _ or xml, or not an XML name) is an
// error.
func Models(reg *arbor.Registry) ([]byte, error) {
	if reg == nil {
		return nil, errors.New("BT.CPP models: no registry")
	}
	x := &exporter{models: map[string]*exportModel{}}
	var errs []error
	for _, name := range reg.Types() {
		info, _ := reg.Describe(name)
		if info.Builtin {
			if info.Name == name {
				x.builtinModel(info)
			}
			continue
		}
		if btcppBuiltin(name) {
			errs = append(errs, fmt.Errorf("node type %q is also a BT.CPP built-in: register it under another name", name))
			continue
		}
		m := x.model(name, modelCategory(info.Category))
		for _, p := range info.Params {
			if !portName(p.Name) {
				errs = append(errs, fmt.Errorf("node type %q: parameter %q cannot be a BT.CPP port", name, p.Name))
				continue
			}
			mp := x.port(m, p.Name, nil)
			mp.typ = paramPortType(p.Type)
			describePort(mp, p, name)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("BT.CPP models: %w", err)
	}
	x.buf.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<root BTCPP_format=\"4\">\n")
	x.writeModels()
	x.buf.WriteString("</root>\n")
	return x.buf.Bytes(), nil
}

// builtinModel adds the model Export gives an Arbor-only built-in (none
// for a built-in written as BT.CPP's own node). A node with every
// parameter selects the model of Arbor's own form (Wait with ticks, Set
// with ttlMs), and whole milliseconds keep Timeout BT.CPP's.
func (x *exporter) builtinModel(info arbor.TypeInfo) {
	n := &arbor.Node{Type: info.Name, Params: map[string]any{}}
	for _, p := range info.Params {
		n.Params[p.Name] = 1.0
	}
	am, ok := arborOnlyModel(n)
	if !ok || am.id != info.Name {
		return
	}
	m := x.model(am.id, am.category)
	for port, typ := range am.ports {
		x.port(m, port, nil).typ = typ
	}
	for _, p := range info.Params {
		if mp := m.ports[p.Name]; mp != nil {
			describePort(mp, p, info.Name)
		}
	}
}

// describePort sets a model port's default and description from what the
// registry says of the parameter.
func describePort(mp *modelPort, p arbor.ParamInfo, typ string) {
	var desc []string
	if p.Required {
		desc = append(desc, "required")
	}
	if p.Type == reflect.TypeFor[time.Duration]() {
		desc = append(desc, "milliseconds")
	}
	mp.desc = strings.Join(desc, "; ")
	if p.Default == nil || zeroValue(p.Default) {
		return
	}
	var s string
	var err error
	if list, ok := conv.List(p.Default); ok {
		s, err = listPort(list, p.Name, mp.typ, typ)
	} else {
		s, err = scalar(p.Default, mp.typ == "")
	}
	if err == nil {
		mp.def = s
	}
}

// zeroValue reports a default that is its type's zero value: 0, "",
// false, an empty list or object (left out of the model).
func zeroValue(v any) bool {
	if f, ok := conv.Number(v); ok {
		return f == 0
	}
	switch t := v.(type) {
	case string:
		return t == ""
	case bool:
		return !t
	case map[string]any:
		return len(t) == 0
	}
	list, ok := conv.List(v)
	return ok && len(list) == 0
}

// paramPortType returns the BT.CPP port type of a parameter whose value
// is read as a t ("" for an untyped port).
func paramPortType(t reflect.Type) string {
	if t == nil {
		return ""
	}
	if t == reflect.TypeFor[time.Duration]() {
		return "double" // milliseconds, fractions included
	}
	switch t.Kind() {
	case reflect.String:
		return "std::string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "int"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "unsigned int"
	case reflect.Float32:
		return "float"
	case reflect.Float64:
		return "double"
	case reflect.Slice:
		switch elem := paramPortType(t.Elem()); {
		case elem == "std::string":
			return vectorTypes["list of strings"]
		case elem == "bool":
			return vectorTypes["list of booleans"]
		case elem == "" || strings.HasPrefix(elem, "std::vector"):
			return ""
		default:
			return vectorTypes["list of numbers"]
		}
	}
	return ""
}
