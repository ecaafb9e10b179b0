package btcpp

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/internal/conv"
)

// xmlName is what Export writes as an element name; other type names use
// the explicit form <Action ID="..."> (or the category the model has).
var xmlName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// reservedElements cannot be node types in the compact form.
var reservedElements = map[string]bool{
	"Action": true, "Condition": true, "Decorator": true, "Control": true, "SubTree": true,
	"root": true, "include": true, "BehaviorTree": true, "TreeNodesModel": true,
}

type attr struct{ name, value string }

type modelPort struct {
	typ   string // "" when instances disagree
	kinds map[string]bool
	def   string // the default attribute, "" for none (Models)
	desc  string // the port's description text (Models)
}

type exportModel struct {
	category string
	ports    map[string]*modelPort
}

type exporter struct {
	buf        bytes.Buffer
	guardNames map[*arbor.Node]string
	trees      map[string]bool
	models     map[string]*exportModel
	userCats   map[string]arbor.Category // the program's node types
}

// Export writes the document as BT.CPP v4 XML for Groot2: the main tree
// first (main_tree_to_execute), the other trees, one <BehaviorTree> per
// guard, and a <TreeNodesModel> for every node type that is not a BT.CPP
// built-in (program types by category, see ExportWith; Arbor-only
// built-ins with theirs), with port types where every instance agrees.
// A program node's list parameter of numbers, strings or booleans is
// written as BT.CPP writes a std::vector ("A;B;C") and declared so in the
// model. Values BT.CPP XML cannot hold (other lists, objects, null, a
// string that would read back as a number or boolean without a declared
// type) are errors.
func Export(doc *arbor.Document) ([]byte, error) { return ExportWith(doc, ExportOptions{}) }

// ExportOptions tune ExportWith.
type ExportOptions struct {
	// Registry, when set, gives the categories of the program's node
	// types (Condition, Decorator, Control), and their ports: every
	// parameter a type takes, typed from Registry.Describe as Models types
	// them (rather than from the values the nodes hold). Without it, or
	// for a type it
	// lacks, a program type has the category the document declares
	// (arbor.Document.Categories, kept by the loaders), else it is a
	// Condition when used in a guard, else an Action, or, with children,
	// a Decorator when every node of it has one child and a Control
	// otherwise.
	Registry *arbor.Registry
}

// ExportWith is Export with options.
func ExportWith(doc *arbor.Document, opts ExportOptions) ([]byte, error) {
	if err := conv.CheckExportable(doc); err != nil {
		return nil, fmt.Errorf("export BT.CPP: %w", err)
	}
	x := &exporter{trees: map[string]bool{}, models: map[string]*exportModel{}, userCats: conv.UserCategories(doc, opts.Registry)}
	var guards []conv.GuardTree
	x.guardNames, guards = conv.PlanGuards(doc)
	for name := range doc.Trees {
		x.trees[name] = true
	}
	for _, g := range guards {
		x.trees[g.Name] = true
	}
	order := conv.TreeOrder(doc)
	// Port types first: a string port can be declared std::string only if
	// every instance holds a string.
	for _, name := range order {
		x.collect(doc.Trees[name])
	}
	for _, g := range guards {
		x.collect(g.Root)
	}
	if opts.Registry != nil {
		x.registeredPorts(opts.Registry)
	}
	x.buf.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	x.buf.WriteString("<root BTCPP_format=\"4\" main_tree_to_execute=\"")
	x.text(order[0])
	x.buf.WriteString("\">\n")
	write := func(name string, root *arbor.Node) error {
		x.buf.WriteString("  <BehaviorTree ID=\"")
		x.text(name)
		x.buf.WriteString("\">\n")
		if err := x.node(root, "trees."+name, 2); err != nil {
			return err
		}
		x.buf.WriteString("  </BehaviorTree>\n")
		return nil
	}
	for _, name := range order {
		if err := write(name, doc.Trees[name]); err != nil {
			return nil, fmt.Errorf("export BT.CPP: %w", err)
		}
	}
	for _, g := range guards {
		if err := write(g.Name, g.Root); err != nil {
			return nil, fmt.Errorf("export BT.CPP: %w", err)
		}
	}
	x.writeModels()
	x.buf.WriteString("</root>\n")
	return x.buf.Bytes(), nil
}

func (x *exporter) text(s string) {
	_ = xml.EscapeText(&x.buf, []byte(s))
}

// collect records the node types needing a model and their port kinds.
func (x *exporter) collect(n *arbor.Node) {
	if n == nil {
		return
	}
	if cat, ok := arborOnlyModel(n); ok {
		m := x.model(cat.id, cat.category)
		for p, t := range cat.ports {
			x.port(m, p, nil).typ = t
		}
	} else if !arbor.IsBuiltin(n.Type) {
		m := x.model(n.Type, modelCategory(x.userCats[n.Type]))
		for k, v := range n.Params {
			x.port(m, k, v)
		}
	}
	for _, c := range n.Children {
		x.collect(c)
	}
}

// registeredPorts completes the models of the program types reg describes
// with every parameter the type takes, typed and described as Models
// does: a designer sees in Groot2 the ports a node leaves out too, and a
// typed port holds values an untyped one could not (a string "5").
func (x *exporter) registeredPorts(reg *arbor.Registry) {
	for id, m := range x.models {
		info, ok := reg.Describe(id)
		if !ok || info.Builtin {
			continue
		}
		for _, p := range info.Params {
			if !portName(p.Name) {
				continue // an error when a node gives it (node)
			}
			mp := x.port(m, p.Name, nil)
			if t := paramPortType(p.Type); t != "" {
				mp.typ = t
			}
			describePort(mp, p, id)
		}
	}
}

// modelCategory is the TreeNodesModel element of a program type's
// category: Action for an action or an unknown category.
func modelCategory(c arbor.Category) string {
	switch c {
	case arbor.CategoryCondition:
		return "Condition"
	case arbor.CategoryDecorator:
		return "Decorator"
	case arbor.CategoryControl:
		return "Control"
	}
	return "Action"
}

func (x *exporter) model(id, category string) *exportModel {
	m := x.models[id]
	if m == nil {
		m = &exportModel{category: category, ports: map[string]*modelPort{}}
		x.models[id] = m
	}
	return m
}

func (x *exporter) port(m *exportModel, name string, v any) *modelPort {
	p := m.ports[name]
	if p == nil {
		p = &modelPort{kinds: map[string]bool{}}
		m.ports[name] = p
	}
	if v != nil {
		p.kinds[kindName(v)] = true
		p.typ = portType(p.kinds)
	}
	return p
}

// kindName names the kind of a parameter value for its port's type:
// number, bool, string, ref (a "{key}" reference), a list of one of them
// ("list of numbers", ...; "empty list"), or other.
func kindName(v any) string {
	if _, ok := conv.Number(v); ok {
		return "number"
	}
	switch t := v.(type) {
	case bool:
		return "bool"
	case string:
		if conv.IsRef(t) {
			return "ref"
		}
		return "string"
	}
	if list, ok := conv.List(v); ok {
		if k, err := listKind(list); err == nil {
			if k == "" {
				return "empty list"
			}
			return "list of " + k
		}
	}
	return "other"
}

// vectorTypes are the port types of lists, as BT.CPP reads them back.
var vectorTypes = map[string]string{
	"list of numbers":  "std::vector<double>",
	"list of strings":  "std::vector<std::string>",
	"list of booleans": "std::vector<bool>",
}

// portType returns the type a port is declared with when its instances
// hold values of the given kinds ("" when they disagree). A "{key}"
// reference agrees with any type (it reads back as a reference whatever
// the type), and an empty list with any list; a port holding only
// references is a std::string, one holding only empty lists (and
// references) a std::vector<std::string> (any list type reads "" as
// empty).
func portType(kinds map[string]bool) string {
	var only []string
	for k := range kinds {
		if k != "empty list" && k != "ref" {
			only = append(only, k)
		}
	}
	switch {
	case len(only) == 0 && kinds["empty list"]:
		return vectorTypes["list of strings"]
	case len(only) == 0:
		return "std::string"
	case len(only) != 1:
		return ""
	case kinds["empty list"]:
		return vectorTypes[only[0]]
	}
	switch only[0] {
	case "number":
		return "double"
	case "bool":
		return "bool"
	case "string":
		return "std::string"
	}
	return vectorTypes[only[0]]
}

type arborModel struct {
	id       string
	category string
	ports    map[string]string
}

// arborOnlyModel returns the model of an Arbor-only built-in as Export
// writes it (nil when the node is written as a BT.CPP built-in).
func arborOnlyModel(n *arbor.Node) (arborModel, bool) {
	switch conv.Canonical(n.Type) {
	case "RepeatUntilFailure":
		return arborModel{"RepeatUntilFailure", "Decorator", map[string]string{"max": "int"}}, true
	case "Cooldown":
		return arborModel{"Cooldown", "Decorator", map[string]string{"ms": "double"}}, true
	case "Limiter":
		return arborModel{"Limiter", "Decorator", map[string]string{"max": "int"}}, true
	case "Running":
		return arborModel{"Running", "Action", nil}, true
	case "RandomSelector", "RandomSequence":
		return arborModel{conv.Canonical(n.Type), "Control", map[string]string{"weights": "std::vector<double>", "seed": "int"}}, true
	case "Check":
		return arborModel{"Check", "Condition", map[string]string{"key": "std::string", "op": "std::string", "value": ""}}, true
	case "Wait":
		if _, ok := n.Params["ticks"]; ok || !integral(n.Params["ms"]) {
			return arborModel{"Wait", "Action", map[string]string{"ticks": "int", "ms": "double"}}, true
		}
	case "Timeout":
		if !integral(n.Params["ms"]) {
			return arborModel{"MaxTime", "Decorator", map[string]string{"ms": "double"}}, true
		}
	case "Set":
		if !setBlackboardForm(n) {
			return arborModel{"Set", "Action", map[string]string{"key": "std::string", "value": "", "ttlMs": "double"}}, true
		}
	}
	return arborModel{}, false
}

func integral(v any) bool {
	f, ok := conv.Number(v)
	return ok && f == math.Trunc(f) && math.Abs(f) < 1<<53
}

// setBlackboardForm reports whether a Set is written as SetBlackboard
// (or UnsetBlackboard): it has a key and a value (the ports those require;
// a Set lacking one, which does not compile, keeps its Arbor name and
// loads back as it was) and no ttlMs.
func setBlackboardForm(n *arbor.Node) bool {
	_, ttl := n.Params["ttlMs"]
	_, key := n.Params["key"]
	_, value := n.Params["value"]
	return !ttl && key && value
}

func (x *exporter) writeModels() {
	if len(x.models) == 0 {
		return
	}
	x.buf.WriteString("  <TreeNodesModel>\n")
	ids := make([]string, 0, len(x.models))
	for id := range x.models {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		m := x.models[id]
		fmt.Fprintf(&x.buf, "    <%s ID=\"", m.category)
		x.text(id)
		if len(m.ports) == 0 {
			x.buf.WriteString("\"/>\n")
			continue
		}
		x.buf.WriteString("\">\n")
		for _, p := range conv.SortedKeys(m.ports) {
			mp := m.ports[p]
			x.buf.WriteString("      <input_port name=\"")
			x.text(p)
			x.buf.WriteString("\"")
			if mp.typ != "" {
				x.buf.WriteString(" type=\"")
				x.text(mp.typ)
				x.buf.WriteString("\"")
			}
			if mp.def != "" {
				x.buf.WriteString(" default=\"")
				x.text(mp.def)
				x.buf.WriteString("\"")
			}
			if mp.desc == "" {
				x.buf.WriteString("/>\n")
				continue
			}
			x.buf.WriteString(">")
			x.text(mp.desc)
			x.buf.WriteString("</input_port>\n")
		}
		fmt.Fprintf(&x.buf, "    </%s>\n", m.category)
	}
	x.buf.WriteString("  </TreeNodesModel>\n")
}

// node writes n and its descendants at the given indentation level.
func (x *exporter) node(n *arbor.Node, path string, level int) error {
	elem, attrs, kids, err := x.mapNode(n, path)
	if err != nil {
		return err
	}
	ind := strings.Repeat("  ", level)
	x.buf.WriteString(ind)
	x.buf.WriteString("<" + elem)
	for _, a := range attrs {
		x.buf.WriteString(" " + a.name + "=\"")
		x.text(a.value)
		x.buf.WriteString("\"")
	}
	if len(kids) == 0 {
		x.buf.WriteString("/>\n")
		return nil
	}
	x.buf.WriteString(">\n")
	for i, c := range kids {
		step := fmt.Sprintf(".children[%d]", i)
		if n.SingleChild && len(kids) == 1 {
			step = ".child"
		}
		if err := x.node(c, path+step, level+1); err != nil {
			return err
		}
	}
	x.buf.WriteString(ind + "</" + elem + ">\n")
	return nil
}

// mapNode returns the element name, attributes and children of n.
func (x *exporter) mapNode(n *arbor.Node, path string) (string, []attr, []*arbor.Node, error) {
	fail := func(format string, args ...any) (string, []attr, []*arbor.Node, error) {
		return "", nil, nil, fmt.Errorf("%s (%s): %s", path, n.Type, fmt.Sprintf(format, args...))
	}
	var head []attr // name and extensions
	if n.Name != "" {
		head = append(head, attr{"name", n.Name})
	}
	if g, ok := x.guardNames[n]; ok {
		head = append(head, attr{"guard", g})
	}
	if n.Abort != arbor.AbortNone {
		head = append(head, attr{"abort", n.Abort.String()})
	}
	typ := conv.Canonical(n.Type)
	kids := n.Children
	var ports []attr
	// params converts the listed Arbor parameters to ports; others fail.
	params := func(allowed map[string]string) error {
		for _, k := range conv.SortedKeys(n.Params) {
			bt, ok := allowed[k]
			if !ok {
				return fmt.Errorf("%s (%s): parameter %q cannot be written in BT.CPP XML", path, n.Type, k)
			}
			if bt == "" {
				continue
			}
			s, err := scalar(n.Params[k], false)
			if err != nil {
				return fmt.Errorf("%s (%s): parameter %q: %w", path, n.Type, k, err)
			}
			ports = append(ports, attr{bt, s})
		}
		return nil
	}
	intPort := func(param, bt string, def float64, zeroAs float64) error {
		v, ok := n.Params[param]
		f := def
		if ok {
			if f, ok = conv.Number(v); !ok || !integral(f) {
				return fmt.Errorf("%s (%s): parameter %q: want an integer, got %v", path, n.Type, param, v)
			}
		}
		if f == 0 {
			f = zeroAs
		}
		ports = append(ports, attr{bt, conv.FormatNumber(f)})
		return nil
	}
	elem := typ
	var err error
	switch typ {
	case "Sequence", "SequenceWithMemory", "ReactiveSequence", "Inverter", "ForceSuccess":
		err = params(nil)
	case "Selector":
		elem = "Fallback"
		err = params(nil)
	case "ReactiveSelector":
		elem = "ReactiveFallback"
		err = params(nil)
	case "ForceFailure":
		if inner := keepRunning(n); inner != nil {
			elem, kids = "KeepRunningUntilFailure", inner.Children
			break
		}
		err = params(nil)
	case "Parallel":
		if err = params(map[string]string{"success": "", "failure": "", "retryFailed": ""}); err == nil {
			if err = intPort("success", "success_count", -1, 0); err == nil {
				// Arbor's automatic failure (0) is BT.CPP's -1: fail when
				// every child failed or success is out of reach.
				err = intPort("failure", "failure_count", 0, -1)
			}
		}
		if b, ok := n.Params["retryFailed"].(bool); ok && err == nil {
			ports = append(ports, attr{"retryFailed", fmt.Sprint(b)})
		}
	case "ParallelAll":
		if err = params(map[string]string{"maxFailures": ""}); err == nil {
			err = intPort("maxFailures", "max_failures", 1, 0)
		}
	case "Repeat":
		if err = params(map[string]string{"count": ""}); err == nil {
			err = intPort("count", "num_cycles", 0, -1)
		}
	case "RetryUntilSuccessful":
		if err = params(map[string]string{"attempts": ""}); err == nil {
			err = intPort("attempts", "num_attempts", 0, 0)
		}
	case "Timeout":
		if !integral(n.Params["ms"]) {
			elem = "MaxTime"
			err = params(map[string]string{"ms": "ms"})
			break
		}
		if err = params(map[string]string{"ms": ""}); err == nil {
			err = intPort("ms", "msec", 0, 0)
		}
	case "Delay":
		if err = params(map[string]string{"ms": ""}); err == nil {
			err = intPort("ms", "delay_msec", 0, 0)
		}
	case "RunOnce":
		ports = append(ports, attr{"then_skip", "false"})
		err = params(map[string]string{"then": "then"})
	case "Wait":
		if _, ok := n.Params["ticks"]; ok || !integral(n.Params["ms"]) {
			err = params(map[string]string{"ticks": "ticks", "ms": "ms"})
			break
		}
		elem = "Sleep"
		if err = params(map[string]string{"ms": ""}); err == nil {
			err = intPort("ms", "msec", 0, 0)
		}
	case "Success":
		elem = "AlwaysSuccess"
		err = params(nil)
	case "Failure":
		elem = "AlwaysFailure"
		err = params(nil)
	case "Running":
		err = params(nil)
	case "RepeatUntilFailure", "Limiter":
		err = params(map[string]string{"max": "max"})
	case "Cooldown":
		err = params(map[string]string{"ms": "ms"})
	case "RandomSelector", "RandomSequence":
		if err = params(map[string]string{"weights": "", "seed": "seed"}); err == nil {
			if v, ok := n.Params["seed"]; ok {
				// A Go integer exactly (the engine takes it so), not
				// through a float64 that rounds it beyond 2^53.
				if x, isInt := goInteger(v); isInt {
					for k := range ports {
						if ports[k].name == "seed" {
							ports[k].value = x
						}
					}
				}
			}
			if v, ok := n.Params["weights"]; ok {
				var s string
				if s, err = numberList(v); err != nil {
					err = fmt.Errorf("%s (%s): parameter \"weights\": %w", path, n.Type, err)
				} else {
					ports = append([]attr{{"weights", s}}, ports...)
				}
			}
		}
	case "IfThenElse", "WhileDoElse":
		err = params(nil)
	case "Switch":
		elem, err = switchPorts(n, path, &ports)
	case "Check":
		err = x.untypedParams(n, path, &ports, map[string]string{"key": "key", "op": "op", "value": "value"})
	case "Set":
		if v, has := n.Params["value"]; has && v == nil && setBlackboardForm(n) {
			// A Set of null deletes the key.
			elem = "UnsetBlackboard"
			err = x.untypedParams(n, path, &ports, map[string]string{"key": "key"}, "value")
		} else if setBlackboardForm(n) {
			elem = "SetBlackboard"
			err = x.untypedParams(n, path, &ports, map[string]string{"key": "output_key", "value": "value"})
		} else {
			err = x.untypedParams(n, path, &ports, map[string]string{"key": "key", "value": "value", "ttlMs": "ttlMs"})
		}
	case "SubTree":
		tree, _ := n.Params["tree"].(string)
		if !x.trees[tree] || len(n.Params) != 1 {
			return fail("SubTree must name a tree of the document (tree %q)", tree)
		}
		ports = append(ports, attr{"ID", tree}, attr{"_autoremap", "true"})
		head, ports = append(ports[:1:1], head...), ports[1:]
	default:
		if arbor.IsBuiltin(n.Type) {
			return fail("node type %q cannot be written in BT.CPP XML", n.Type)
		}
		elem = n.Type
		if btcppBuiltin(elem) {
			return fail("node type %q is also a BT.CPP built-in and cannot be written", n.Type)
		}
		m := x.models[n.Type]
		for _, k := range conv.SortedKeys(n.Params) {
			if !portName(k) {
				return fail("parameter %q cannot be written as a BT.CPP port", k)
			}
			declared := ""
			if m != nil && m.ports[k] != nil {
				declared = m.ports[k].typ
			}
			var s string
			var err error
			if list, ok := conv.List(n.Params[k]); ok {
				s, err = listPort(list, k, declared, n.Type)
			} else {
				s, err = scalar(n.Params[k], declared == "")
			}
			if err != nil {
				return fail("parameter %q: %v", k, err)
			}
			ports = append(ports, attr{k, s})
		}
		if !xmlName.MatchString(elem) || reservedElements[elem] || strings.HasPrefix(strings.ToLower(elem), "xml") {
			head = append([]attr{{"ID", n.Type}}, head...)
			elem = "Action"
			if m != nil {
				elem = m.category // as the TreeNodesModel declares it
			}
		}
	}
	if err != nil {
		return "", nil, nil, err
	}
	return elem, append(head, ports...), kids, nil
}

// btcppBuiltin reports a name BT.CPP gives one of its own nodes (those
// Arbor maps, and those it refuses): no program type may be written
// under it.
func btcppBuiltin(name string) bool {
	_, bt := mapped[name]
	return bt || IsUnsupported(name) || name == "KeepRunningUntilFailure" || switchCases(name) > 0
}

// portName reports whether a parameter can be a port of a program node:
// an XML attribute name that is not one BT.CPP or Arbor reserves.
func portName(k string) bool {
	return k != "name" && k != "ID" && k != "abort" && k != "guard" && !strings.HasPrefix(k, "_") &&
		!strings.HasPrefix(strings.ToLower(k), "xml") && !strings.Contains(k, ":") && xmlName.MatchString(k)
}

// switchPorts writes a Switch as BT.CPP's SwitchN: N the number of cases
// (BT.CPP has Switch2 to Switch6), variable="{key}", and case_1 … case_N,
// each of which must read back as itself (as SetBlackboard's value).
func switchPorts(n *arbor.Node, path string, ports *[]attr) (string, error) {
	fail := func(format string, args ...any) (string, error) {
		return "", fmt.Errorf("%s (%s): %s", path, n.Type, fmt.Sprintf(format, args...))
	}
	for _, k := range conv.SortedKeys(n.Params) {
		if k != "key" && k != "cases" {
			return fail("parameter %q cannot be written in BT.CPP XML", k)
		}
	}
	key, _ := n.Params["key"].(string)
	switch {
	case key == "" || conv.IsRef(key):
		return fail("parameter \"key\": want a key name, got %v", n.Params["key"])
	case strings.ContainsAny(key, "{}"):
		// Load reads variable only as a reference, which holds no brace.
		return fail("parameter \"key\": the key name %q holds a brace, which variable=\"{…}\" cannot hold", key)
	}
	cases, ok := conv.List(n.Params["cases"])
	if !ok {
		return fail("parameter \"cases\": want a list, got %v", n.Params["cases"])
	}
	if len(cases) < 2 || len(cases) > 6 {
		return fail("%d cases: BT.CPP XML has Switch2 to Switch6", len(cases))
	}
	*ports = append(*ports, attr{"variable", "{" + key + "}"})
	for k, v := range cases {
		s, err := scalar(v, true)
		if err != nil {
			return fail("parameter \"cases\": cases[%d]: %v", k, err)
		}
		*ports = append(*ports, attr{fmt.Sprintf("case_%d", k+1), s})
	}
	return fmt.Sprintf("Switch%d", len(cases)), nil
}

// goInteger formats a Go integer value exactly, as the engine reads a
// random composite's seed: a uint64 beyond 2^63-1 as its two's
// complement (which reads back as the same seed).
func goInteger(v any) (string, bool) {
	if _, ok := v.(time.Duration); ok {
		return "", false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatInt(int64(rv.Uint()), 10), true
	}
	return "", false
}

// numberList writes a list of numbers as BT.CPP writes a
// std::vector<double>: "3;1;0.5".
func numberList(v any) (string, error) {
	fs, ok := conv.NumberList(v)
	if !ok || len(fs) == 0 {
		return "", fmt.Errorf("want a non-empty list of numbers, got %v", v)
	}
	parts := make([]string, len(fs))
	for i, f := range fs {
		s, err := scalar(f, false)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return strings.Join(parts, ";"), nil
}

// listKind returns what a list holds, "numbers", "strings" or
// "booleans" ("" when it is empty), or why BT.CPP XML cannot hold it.
func listKind(list []any) (string, error) {
	kind := ""
	for _, e := range list {
		k := ""
		if _, ok := conv.Number(e); ok {
			k = "numbers"
		} else {
			switch e.(type) {
			case string:
				k = "strings"
			case bool:
				k = "booleans"
			case nil:
				return "", fmt.Errorf("a list holding null cannot be written in BT.CPP XML (a std::vector port holds numbers, strings or booleans)")
			case map[string]any:
				return "", fmt.Errorf("a list holding an object cannot be written in BT.CPP XML (a std::vector port holds numbers, strings or booleans)")
			default:
				what := fmt.Sprintf("a %T value", e)
				if _, isList := conv.List(e); isList {
					what = "a list"
				}
				return "", fmt.Errorf("a list holding %s cannot be written in BT.CPP XML (a std::vector port holds numbers, strings or booleans)", what)
			}
		}
		if kind != "" && k != kind {
			return "", fmt.Errorf("a list of both %s and %s cannot be written in BT.CPP XML (a std::vector port holds elements of one type)", kind, k)
		}
		kind = k
	}
	return kind, nil
}

// listPort writes a program node's list parameter (port name) as BT.CPP
// writes a std::vector: elements separated by ';' (a final ';' when the
// last element is an empty string, which BT.CPP would drop otherwise).
// declared is the port's type in the TreeNodesModel, which must be the
// std::vector the list reads back as.
func listPort(list []any, name, declared, typ string) (string, error) {
	kind, err := listKind(list)
	if err != nil {
		return "", err
	}
	isVector := false
	for _, t := range vectorTypes {
		isVector = isVector || t == declared
	}
	if (kind != "" && declared != vectorTypes["list of "+kind]) || (kind == "" && !isVector) {
		return "", fmt.Errorf("a list is written as a std::vector port only when every %s node gives the port a list of one kind (numbers, strings or booleans); the nodes of this type disagree", typ)
	}
	parts := make([]string, len(list))
	for i, e := range list {
		switch kind {
		case "numbers":
			f, _ := conv.Number(e)
			s, err := scalar(f, false)
			if err != nil {
				return "", fmt.Errorf("%s[%d]: %w", name, i, err)
			}
			if exact, isInt := goInteger(e); isInt && exact != s {
				return "", fmt.Errorf("%s[%d]: %s would read back as %s (BT.CPP XML holds numbers as doubles)", name, i, exact, s)
			}
			parts[i] = s
		case "strings":
			s := e.(string)
			if strings.Contains(s, ";") {
				return "", fmt.Errorf("%s[%d]: the string %q holds a ';', which separates the elements of a BT.CPP list", name, i, s)
			}
			parts[i] = s
		default:
			parts[i] = fmt.Sprint(e)
		}
	}
	text := strings.Join(parts, ";")
	if len(parts) > 0 && parts[len(parts)-1] == "" {
		text += ";"
	}
	switch {
	case conv.IsRef(text):
		return "", fmt.Errorf("the list would be written %q, which reads back as a blackboard reference", text)
	case strings.HasPrefix(text, "json:"):
		return "", fmt.Errorf("the list would be written %q, which reads back as BT.CPP's json: form", text)
	}
	return text, nil
}

// untypedParams writes parameters whose values have no declared type
// (but those in skip): values must read back as themselves.
func (x *exporter) untypedParams(n *arbor.Node, path string, ports *[]attr, names map[string]string, skip ...string) error {
	for _, k := range conv.SortedKeys(n.Params) {
		if slices.Contains(skip, k) {
			continue
		}
		bt, ok := names[k]
		if !ok {
			return fmt.Errorf("%s (%s): parameter %q cannot be written in BT.CPP XML", path, n.Type, k)
		}
		s, err := scalar(n.Params[k], k == "value")
		if err != nil {
			return fmt.Errorf("%s (%s): parameter %q: %w", path, n.Type, k, err)
		}
		*ports = append(*ports, attr{bt, s})
	}
	return nil
}

// keepRunning returns the inner RepeatUntilFailure when n is the pattern
// Load makes of KeepRunningUntilFailure.
func keepRunning(n *arbor.Node) *arbor.Node {
	if len(n.Children) != 1 || len(n.Params) != 0 {
		return nil
	}
	in := n.Children[0]
	if in == nil || conv.Canonical(in.Type) != "RepeatUntilFailure" || in.Name != "" || in.Guard != nil ||
		in.Abort != arbor.AbortNone || len(in.Children) != 1 {
		return nil
	}
	for k, v := range in.Params {
		if f, ok := conv.Number(v); k != "max" || !ok || f != -1 {
			return nil
		}
	}
	return in
}

// scalar writes a parameter value as attribute text. With untyped, the
// text must read back as the same value (a string "5" would become a
// number).
func scalar(v any, untyped bool) (string, error) {
	if f, ok := conv.Number(v); ok {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return "", fmt.Errorf("%v is not a number BT.CPP XML can hold", f)
		}
		return conv.FormatNumber(f), nil
	}
	switch t := v.(type) {
	case bool:
		return fmt.Sprint(t), nil
	case string:
		if untyped {
			if _, isStr := Untyped(t).(string); !isStr {
				return "", fmt.Errorf("the string %q would read back as a number or boolean", t)
			}
		}
		return t, nil
	case nil:
		return "", fmt.Errorf("null cannot be written in BT.CPP XML")
	}
	if _, ok := conv.List(v); ok {
		return "", fmt.Errorf("a list cannot be written in BT.CPP XML here (only a program node's port holds one, as a std::vector)")
	}
	what := fmt.Sprintf("a %T value", v)
	if _, ok := v.(map[string]any); ok {
		what = "an object"
	}
	return "", fmt.Errorf("%s cannot be written in BT.CPP XML (an attribute holds a number, a boolean or a string)", what)
}
