// Package btcpp reads and writes BehaviorTree.CPP v4 XML (format.md, "Other
// formats"), the format of Groot2: <root BTCPP_format="4">, several
// <BehaviorTree ID> elements, <SubTree ID>, <include path>, both node
// spellings (<MoveTo/> and <Action ID="MoveTo"/>) and <TreeNodesModel>.
//
// Load maps BT.CPP's node types onto Arbor's (Fallback → Selector,
// Sleep → Wait, KeepRunningUntilFailure → ForceFailure over
// RepeatUntilFailure, ...) and reports every feature Arbor does not
// support (scripting, port remapping on SubTree, RunOnce skipping, ...)
// as a load error naming it. Arbor-only built-ins (Cooldown, Limiter,
// Check, ...) may be written under their Arbor names. Export writes v4
// XML with a TreeNodesModel, for Groot2; Models writes a program's node
// palette, a TreeNodesModel of every type its registry holds.
//
// A program node's ports are typed by the file's TreeNodesModel
// (std::string, bool, int, double, ...); without a type a value is a
// number if it reads as one, a boolean for true and false, else a string.
// A port declared std::vector<T> (T a number type, std::string or bool,
// in any spelling BT.CPP's demangled type names take) is a list, written
// as BT.CPP writes one: elements separated by ';' ("A;B;C"), or json: and
// a JSON array. Export writes a program node's lists of numbers, strings
// or booleans in the ';' form, declaring std::vector<double>,
// std::vector<std::string> or std::vector<bool> ports.
//
// As BT.CPP does, Load reads a <root> without BTCPP_format as version 4,
// and names a <BehaviorTree> without ID BehaviorTree_0, BehaviorTree_1,
// ... in the order BT.CPP reads them (a file's includes before its own
// trees). Editor attributes are ignored: Groot2's _uid, _description and
// _collapsed on nodes, and _fullpath, _description (Groot2) and _favorite
// (MoveIt Pro) on <BehaviorTree>. The main tree is main_tree_to_execute, else the only tree, else
// the only tree that no other uses as a subtree (or guard); BT.CPP leaves
// that choice to the program, and so does Load when it is not clear.
package btcpp

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/internal/conv"
	"github.com/arborbt/arbor/internal/nodesrc"
	"github.com/arborbt/arbor/internal/rawdoc"
)

// Options control Load.
type Options struct {
	// Dir is the directory that relative <include> paths start from; ""
	// is the current directory.
	Dir string
	// ReadFile reads an included file; nil reads it from the file system
	// (at most 16 MiB).
	ReadFile func(path string) ([]byte, error)
	// NoIncludes makes every <include> a load error.
	NoIncludes bool
}

// Load reads a BT.CPP v4 XML document; includes are resolved from the
// current directory.
func Load(data []byte) (*arbor.Document, error) { return LoadWith(data, Options{}) }

// LoadFile reads a BT.CPP v4 XML file; includes are resolved relative to
// the including file.
func LoadFile(path string) (*arbor.Document, error) {
	data, err := conv.ReadFile(path, conv.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	l := newLoader(Options{Dir: filepath.Dir(abs)})
	doc, err := l.load(data, abs)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return doc, nil
}

// Files returns the files a BT.CPP XML file is made of: its own path
// (absolute), then every file it includes, recursively, in the order they
// are read, each once. Files an include names that cannot be read are
// listed too (a watcher sees them appear); other mistakes are left to
// LoadFile to report.
func Files(path string) ([]string, error) {
	data, err := conv.ReadFile(path, conv.MaxBytes)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	files := []string{abs}
	l := newLoader(Options{Dir: filepath.Dir(abs), ReadFile: func(p string) ([]byte, error) {
		files = append(files, p)
		return conv.ReadFile(p, conv.MaxBytes)
	}})
	l.top = abs
	// A syntax error stops the reading: the files read so far are the
	// answer.
	_, _ = l.readFile(data, abs, true)
	return files, nil
}

// LoadWith reads a BT.CPP v4 XML document with options.
func LoadWith(data []byte, opts Options) (*arbor.Document, error) {
	l := newLoader(opts)
	dir := opts.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return l.load(data, filepath.Join(dir, "<input>"))
}

type treeSrc struct {
	el   *element
	file string
}

// model is a TreeNodesModel entry.
type model struct {
	category string
	ports    map[string]string // port name → declared type ("" when none)
	order    []string
}

type loader struct {
	opts   Options
	el     conv.Errors
	top    string // the file Load was given
	trees  map[string]*treeSrc
	order  []string
	models map[string]*model
	files  int
	stack  []string
	guards []conv.GuardRef
	count  int
	file   string                    // file of the tree being converted
	noID   int                       // <BehaviorTree> elements without ID so far (named BehaviorTree_N, as BT.CPP does)
	read   map[string]bool           // included files read so far
	cats   map[string]arbor.Category // program types spelled <Condition ID="..."> and the like
}

func newLoader(opts Options) *loader {
	if opts.ReadFile == nil {
		opts.ReadFile = func(p string) ([]byte, error) { return conv.ReadFile(p, conv.MaxBytes) }
	}
	return &loader{opts: opts, trees: map[string]*treeSrc{}, models: map[string]*model{}}
}

// fileErr records a problem outside the trees' nodes, located by line and,
// for an included file, by its name (the caller names the top file).
func (l *loader) fileErr(file string, line int, format string, args ...any) {
	path := ""
	if file != l.top {
		path = filepath.Base(file)
	}
	l.el.Add(path, "", line, format, args...)
}

// where names a file in messages about included files.
func (l *loader) where(file string) string {
	if file == l.top || file == "" {
		return ""
	}
	return fmt.Sprintf(" [in %s]", filepath.Base(file))
}

func (l *loader) load(data []byte, file string) (*arbor.Document, error) {
	l.top = file
	main, err := l.readFile(data, file, true)
	if err != nil {
		return nil, err
	}
	if l.el.Len() > 0 {
		return nil, l.el.Err()
	}
	doc := &arbor.Document{Trees: map[string]*arbor.Node{}}
	nodesrc.TypeNames(doc, typeNames) // "did you mean" names AlwaysSuccess, not only Success
	switch {
	case main != "":
		if l.trees[main] == nil {
			l.el.Add("main_tree_to_execute", "", 0, "main_tree_to_execute names a missing tree %q (trees: %s)", main, strings.Join(l.order, ", "))
			return nil, l.el.Err()
		}
		doc.Main = main
	case len(l.order) == 1:
		doc.Main = l.order[0]
	case len(l.order) == 0:
		l.fileErr(l.top, 0, "the document has no <BehaviorTree>")
		return nil, l.el.Err()
	default:
		// BT.CPP leaves the choice to the program; a file whose trees
		// all hang from one of them means that one.
		roots := l.roots()
		if len(roots) == 0 {
			l.el.Add("main_tree_to_execute", "", 0, "the document has %d trees (%s) and no main_tree_to_execute, and each is the subtree of another (a cycle): say which runs",
				len(l.order), strings.Join(l.order, ", "))
			return nil, l.el.Err()
		}
		if len(roots) != 1 {
			l.el.Add("main_tree_to_execute", "", 0, "the document has %d trees (%s) and no main_tree_to_execute, and %d of them are not the subtree of another (%s): say which runs",
				len(l.order), strings.Join(l.order, ", "), len(roots), strings.Join(roots, ", "))
			return nil, l.el.Err()
		}
		doc.Main = roots[0]
	}
	for _, id := range l.order {
		src := l.trees[id]
		l.file = src.file
		path := "trees." + id
		kids := src.el.kids
		if len(kids) != 1 {
			l.el.Add(path, "", src.el.line, "wrong number of children: a <BehaviorTree> needs exactly one child element (its root node), has %d%s", len(kids), l.where(src.file))
			continue
		}
		if n := l.node(kids[0], path, 1); n != nil {
			doc.Trees[id] = n
		}
	}
	if l.el.Len() > 0 {
		return nil, l.el.Err()
	}
	conv.ResolveGuards(doc, l.guards, &l.el)
	if l.el.Len() > 0 {
		return nil, l.el.Err()
	}
	doc.Categories = l.categories()
	return doc, nil
}

// categoryOf maps BT.CPP's node categories (element names) to Arbor's.
var categoryOf = map[string]arbor.Category{
	"Action": arbor.CategoryAction, "Condition": arbor.CategoryCondition,
	"Decorator": arbor.CategoryDecorator, "Control": arbor.CategoryControl,
}

// categories returns the categories the file declared for program types:
// its TreeNodesModel's, and the <Condition ID="..."> spellings of types
// the model does not declare (nil when none).
func (l *loader) categories() map[string]arbor.Category {
	cats := l.cats
	for id, m := range l.models {
		c := categoryOf[m.category]
		if c == arbor.CategoryNone || arbor.IsBuiltin(id) {
			continue
		}
		if cats == nil {
			cats = map[string]arbor.Category{}
		}
		cats[id] = c
	}
	return cats
}

// readFile reads one file's <root>: includes first, then trees and models.
// It returns main_tree_to_execute (of the top file only).
func (l *loader) readFile(data []byte, file string, top bool) (string, error) {
	if len(data) > conv.MaxBytes {
		return "", fmt.Errorf("%sinput is %d bytes, over the limit of %s", fileTag(file, top), len(data), rawdoc.Bytes(conv.MaxBytes))
	}
	root, err := parseXML(data, conv.MaxDepth)
	if err != nil {
		return "", fmt.Errorf("%s%w", fileTag(file, top), err)
	}
	if root.name != "root" {
		l.fileErr(file, root.line, "the top element must be <root>, got <%s>", root.name)
		return "", nil
	}
	main := ""
	// Without BTCPP_format BT.CPP warns and reads the file as version 4;
	// so does Arbor (without the warning).
	if format, ok := root.attr("BTCPP_format"); ok && format != "4" {
		l.fileErr(file, root.line, "BTCPP_format %q is not supported (only \"4\")", format)
	}
	for _, a := range root.attrs {
		switch {
		case a.Name.Space != "" || a.Name.Local == "xmlns":
		case a.Name.Local == "BTCPP_format", a.Name.Local == "project_name":
		case a.Name.Local == "main_tree_to_execute":
			if top {
				main = a.Value
			}
		default:
			l.fileErr(file, root.line, "unsupported attribute %q on <root>", a.Name.Local)
		}
	}
	if root.text != "" {
		l.fileErr(file, root.line, "unexpected text inside <root>")
	}
	// Includes first, as BT.CPP reads them: the trees of included files
	// come before the file's own (which matters for the names of trees
	// without ID).
	dir := filepath.Dir(file)
	for _, e := range root.kids {
		if e.name == "include" {
			l.include(e, dir, file)
		}
	}
	models := 0
	for _, e := range root.kids {
		switch e.name {
		case "include":
		case "BehaviorTree":
			l.behaviorTree(e, file)
		case "TreeNodesModel":
			if models++; models > 1 {
				l.fileErr(file, e.line, "only one <TreeNodesModel> is allowed per file")
				continue
			}
			l.treeNodesModel(e, file)
		default:
			l.fileErr(file, e.line, "unsupported element <%s> in <root> (want <BehaviorTree>, <include> or <TreeNodesModel>)", e.name)
		}
	}
	return main, nil
}

func fileTag(file string, top bool) string {
	if top {
		return ""
	}
	return "included file " + filepath.Base(file) + ": "
}

func (l *loader) include(e *element, dir, file string) {
	for _, a := range e.attrs {
		switch a.Name.Local {
		case "path":
		case "ros_pkg":
			l.fileErr(file, e.line, "<include ros_pkg> is not supported (ROS package lookup); give a path relative to the file")
			return
		default:
			l.fileErr(file, e.line, "unsupported attribute %q on <include>", a.Name.Local)
			return
		}
	}
	p, ok := e.attr("path")
	if !ok || p == "" {
		l.fileErr(file, e.line, "<include> needs a path attribute")
		return
	}
	if l.opts.NoIncludes {
		l.fileErr(file, e.line, "<include path=%q> is not allowed here", p)
		return
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	for i, f := range append(append([]string{}, l.stack...), file) {
		if f == p {
			chain := append(append([]string{}, l.stack[i:]...), file, p)
			for j := range chain {
				chain[j] = filepath.Base(chain[j])
			}
			l.fileErr(file, e.line, "include cycle: %s", strings.Join(chain, " → "))
			return
		}
	}
	if l.read[p] {
		// Included again on another path (a diamond): its trees and
		// models are in already.
		return
	}
	if l.read == nil {
		l.read = map[string]bool{}
	}
	l.read[p] = true
	if l.files++; l.files > conv.MaxFiles {
		l.fileErr(file, e.line, "more than %d included files", conv.MaxFiles)
		return
	}
	data, err := l.opts.ReadFile(p)
	if err != nil {
		l.fileErr(file, e.line, "include %s: %v", filepath.Base(p), err)
		return
	}
	l.stack = append(l.stack, file)
	defer func() { l.stack = l.stack[:len(l.stack)-1] }()
	if _, err := l.readFile(data, p, false); err != nil {
		l.fileErr(file, e.line, "%v", err)
	}
}

func (l *loader) behaviorTree(e *element, file string) {
	id, ok := e.attr("ID")
	if !ok {
		// BT.CPP names such trees BehaviorTree_0, BehaviorTree_1, ...
		id = fmt.Sprintf("BehaviorTree_%d", l.noID)
		l.noID++
	} else if id == "" {
		l.fileErr(file, e.line, "<BehaviorTree> has an empty ID")
		return
	}
	for _, a := range e.attrs {
		switch a.Name.Local {
		case "ID", "_fullpath", "_description", "_favorite":
			// Editor metadata: Groot2's _fullpath and _description,
			// MoveIt Pro's _favorite.
		default:
			l.fileErr(file, e.line, "unsupported attribute %q on <BehaviorTree>", a.Name.Local)
		}
	}
	if e.text != "" {
		l.fileErr(file, e.line, "unexpected text inside <BehaviorTree>")
	}
	if old := l.trees[id]; old != nil {
		l.fileErr(file, e.line, "two trees have the ID %q (the other at line %d%s)", id, old.el.line, l.where(old.file))
		return
	}
	l.trees[id] = &treeSrc{el: e, file: file}
	l.order = append(l.order, id)
}

func (l *loader) treeNodesModel(e *element, file string) {
	for _, m := range e.kids {
		switch m.name {
		case "Action", "Condition", "Decorator", "Control", "SubTree":
		default:
			continue // metadata Groot2 may add
		}
		id, ok := m.attr("ID")
		if !ok || id == "" {
			l.fileErr(file, m.line, "a <%s> model needs an ID attribute", m.name)
			continue
		}
		md := &model{category: m.name, ports: map[string]string{}}
		for _, p := range m.kids {
			switch p.name {
			case "input_port", "output_port", "inout_port":
			default:
				continue
			}
			name, ok := p.attr("name")
			if !ok || name == "" {
				l.fileErr(file, p.line, "a <%s> of model %q needs a name", p.name, id)
				continue
			}
			typ, _ := p.attr("type")
			if _, dup := md.ports[name]; !dup {
				md.order = append(md.order, name)
			}
			md.ports[name] = typ
		}
		l.models[id] = md
	}
}

// node converts one tree element.
func (l *loader) node(e *element, path string, depth int) *arbor.Node {
	w := l.where(l.file)
	if l.count++; l.count > conv.MaxNodes {
		if l.count == conv.MaxNodes+1 {
			l.el.Add(path, "", e.line, "more than %s nodes%s", rawdoc.Count(conv.MaxNodes), w)
		}
		return nil
	}
	n := &arbor.Node{Line: e.line}
	id, category := e.name, ""
	attrs := e.attrs
	switch e.name {
	case "Action", "Condition", "Decorator", "Control":
		category = e.name
		v, ok := e.attr("ID")
		if !ok || v == "" {
			l.el.Add(path, "", e.line, "<%s> needs an ID attribute (the node type)%s", e.name, w)
			return nil
		}
		id = v
		attrs = without(attrs, "ID")
	case "SubTree":
		return l.subtree(e, path)
	}
	if e.text != "" {
		l.el.Add(path, id, e.line, "unexpected text inside <%s>%s", e.name, w)
	}
	ports := l.common(n, id, attrs, path)
	if msg, bad := unsupported[id]; bad {
		l.el.Add(path, id, e.line, "unsupported BT.CPP node %s: %s%s", id, msg, w)
		return nil
	}

	var inner *arbor.Node // for KeepRunningUntilFailure
	switch {
	case id == "KeepRunningUntilFailure":
		l.noPorts(id, ports, path, e.line)
		n.Type = "ForceFailure"
		inner = &arbor.Node{Type: "RepeatUntilFailure", Params: map[string]any{"max": -1.0}, Line: e.line}
		n.Children = []*arbor.Node{inner}
		n.SingleChild = true
	case mapped[id].arbor != "":
		l.mappedNode(n, id, mapped[id], ports, len(e.kids), path, e.line)
	case switchCases(id) > 0:
		l.switchNode(n, id, switchCases(id), ports, path, e.line)
	case id == "Switch":
		l.el.Add(path, id, e.line, "BT.CPP XML writes Arbor's Switch as Switch2 … Switch6 (the number of cases) with variable=\"{key}\" and case_1 … case_N%s", w)
		return nil
	case isArborOnly(id):
		n.Type = id
		if port := l.foreignPort(id); port != "" {
			// Such as Nav2's own Wait: the name is taken.
			l.el.Add(path, id, e.line, "%s is an Arbor built-in, which keeps its name in XML, but the TreeNodesModel declares a program %s of that name (port %q): register the program's node under another name%s",
				id, l.models[id].category, port, l.where(l.file))
			break
		}
		if a := l.notAParam(id, ports); a != "" {
			// Such as Nav2's <Wait wait_duration="5"/> without a model.
			l.el.Add(path, id, e.line, "%s is an Arbor built-in, which keeps its name in XML, and %q is not one of its parameters (%s): if the file means a program node of that name, register it under another name%s",
				id, a, arborParamList(id), l.where(l.file))
			break
		}
		for _, a := range ports {
			v, ok := l.arborParam(conv.Canonical(id), a.Name.Local, a.Value, id, path, e.line)
			if ok {
				setParam(n, a.Name.Local, v)
			}
		}
	default:
		n.Type = id
		l.custom(n, id, category, ports, path, e.line)
		if c := categoryOf[category]; c != arbor.CategoryNone {
			if l.cats == nil {
				l.cats = map[string]arbor.Category{}
			}
			l.cats[id] = c
		}
	}

	if _, has := e.attr("abort"); has && n.Abort == arbor.AbortNone && n.Type != "" {
		if msg := conv.AbortMisplaced(n.Type); msg != "" {
			l.el.Add(path, id, e.line, "%s%s", msg, w)
		}
	}
	parent := n
	if inner != nil {
		parent = inner
	}
	for i, k := range e.kids {
		step := fmt.Sprintf(".children[%d]", i)
		if len(e.kids) == 1 && (conv.ShapeOf(parent.Type) == conv.Decorator || l.userDecorator(id, category)) {
			step = ".child"
			parent.SingleChild = true
		}
		if inner != nil {
			step = ".child" + step
		}
		if depth >= conv.MaxDepth {
			l.el.Add(path, id, k.line, "nodes nested deeper than %d%s", conv.MaxDepth, w)
			break
		}
		if c := l.node(k, path+step, depth+1); c != nil {
			parent.Children = append(parent.Children, c)
		}
	}
	if inner != nil && len(e.kids) != 1 {
		// Reported here, with the file's node: Compile would name the
		// inner RepeatUntilFailure, which the file does not have.
		l.el.Add(path, id, e.line, "wrong number of children: has %d, a decorator needs exactly one child%s", len(e.kids), w)
	}
	if n.Type == "Parallel" || n.Type == "ParallelAll" {
		relativeThresholds(n, len(n.Children))
	}
	return n
}

// common handles the attributes every node may have: name, the Arbor
// extensions abort and guard, Groot2 metadata, and the BT.CPP scripting
// attributes (errors). It returns the remaining attributes (ports).
func (l *loader) common(n *arbor.Node, id string, attrs []xmlAttr, path string) []xmlAttr {
	w := l.where(l.file)
	var ports []xmlAttr
	for _, a := range attrs {
		name := a.Name.Local
		if a.Name.Space != "" || name == "xmlns" {
			l.el.Add(path, id, n.Line, "XML namespaces are not supported (attribute %s)%s", xmlAttrName(a), w)
			continue
		}
		switch {
		case name == "name":
			n.Name = a.Value
		case name == "abort":
			mode, ok := arbor.ParseAbort(a.Value)
			if !ok {
				l.el.Add(path, id, n.Line, "abort must be none, self, lower or both, got %q%s", a.Value, w)
			}
			n.Abort = mode
		case name == "guard":
			if a.Value == "" {
				l.el.Add(path, id, n.Line, "guard must name a <BehaviorTree> ID%s", w)
				continue
			}
			l.guards = append(l.guards, conv.GuardRef{Node: n, Tree: a.Value, Path: path, Line: n.Line})
		case name == "_uid" || name == "_description" || name == "_collapsed":
			// Groot2 metadata and editor state.
		case scripting[name]:
			l.el.Add(path, id, n.Line, "unsupported BT.CPP feature: scripting attribute %s%s", name, w)
		case name == "_autoremap":
			l.el.Add(path, id, n.Line, "_autoremap is only meaningful on <SubTree>%s", w)
		case strings.HasPrefix(name, "_"):
			l.el.Add(path, id, n.Line, "unsupported BT.CPP attribute %s%s", name, w)
		default:
			ports = append(ports, a)
		}
	}
	return ports
}

func (l *loader) noPorts(id string, ports []xmlAttr, path string, line int) {
	for _, a := range ports {
		l.el.Add(path, id, line, "unknown port %q: %s takes none%s", a.Name.Local, id, l.where(l.file))
	}
}

// subtree converts <SubTree ID="..."/>.
func (l *loader) subtree(e *element, path string) *arbor.Node {
	w := l.where(l.file)
	n := &arbor.Node{Type: "SubTree", Line: e.line}
	id, ok := e.attr("ID")
	if !ok || id == "" {
		l.el.Add(path, "SubTree", e.line, "<SubTree> needs an ID attribute (the tree)%s", w)
		return nil
	}
	n.Params = map[string]any{"tree": id}
	var rest []xmlAttr
	for _, a := range without(e.attrs, "ID") {
		if a.Name.Local == "_autoremap" && a.Name.Space == "" {
			// Arbor subtrees share the agent's blackboard whatever the
			// value (a documented difference).
			if _, ok := parseBool(a.Value); !ok {
				l.el.Add(path, "SubTree", e.line, "_autoremap must be true or false, got %q%s", a.Value, w)
			}
			continue
		}
		rest = append(rest, a)
	}
	for _, a := range l.common(n, "SubTree", rest, path) {
		l.el.Add(path, "SubTree", e.line, "unsupported BT.CPP feature: port remapping on SubTree (attribute %s); Arbor subtrees share the agent's blackboard%s", a.Name.Local, w)
	}
	if len(e.kids) > 0 {
		l.el.Add(path, "SubTree", e.line, "wrong number of children: <SubTree> takes none (its child is the tree %q)%s", id, w)
	}
	return n
}

// mappedNode converts a BT.CPP built-in with an Arbor counterpart.
func (l *loader) mappedNode(n *arbor.Node, id string, m mapping, ports []xmlAttr, nkids int, path string, line int) {
	w := l.where(l.file)
	n.Type = m.arbor
	// Compile's errors about a parameter name the port too (success_count
	// for Parallel's success).
	names := map[string]string{}
	defer func() { nodesrc.Record(n, id, names) }()
	given := map[string]string{}
	for _, a := range ports {
		name := a.Name.Local
		known := false
		for _, p := range m.ports {
			if p.bt == name {
				known = true
			}
		}
		for _, x := range m.ext {
			if x.bt == name {
				known = true
			}
		}
		if !known {
			l.el.Add(path, id, line, "unknown port %q of %s (ports: %s)%s", name, id, m.portList(), w)
			continue
		}
		given[name] = a.Value
	}
	for _, p := range append(append([]port{}, m.ports...), m.ext...) {
		raw, has := given[p.bt]
		if !has {
			if p.required {
				l.el.Add(path, id, line, "missing port %q of %s%s", p.bt, id, w)
			} else if p.def != nil && p.param != "" {
				setParam(n, p.param, p.def)
				if p.param != p.bt {
					names[p.param] = p.bt
				}
			}
			continue
		}
		v, ok := l.convert(p.kind, raw, p.bt, id, path, line)
		if !ok {
			continue
		}
		switch {
		case id == "RunOnce" && p.bt == "then_skip":
			if v.(bool) {
				l.el.Add(path, id, line, "unsupported BT.CPP feature: RunOnce with then_skip=\"true\" (skipping); write then_skip=\"false\"%s", w)
			}
			continue
		case id == "Repeat" && p.bt == "num_cycles":
			if f := v.(float64); f == 0 || f < -1 {
				l.el.Add(path, id, line, "num_cycles %s is not supported (want -1 for forever, or ≥ 1)%s", raw, w)
				continue
			}
		}
		setParam(n, p.param, v)
		if p.param != p.bt {
			names[p.param] = p.bt
		}
	}
	if _, has := given["then_skip"]; id == "RunOnce" && !has {
		l.el.Add(path, id, line, "unsupported BT.CPP feature: RunOnce with then_skip=\"true\" (BT.CPP's default: skipping); write then_skip=\"false\"%s", w)
	}
	if id == "UnsetBlackboard" {
		// Arbor's Set of a null value deletes the key.
		if k, _ := n.Params["key"].(string); conv.IsRef(k) {
			l.el.Add(path, id, line, "port \"key\" of UnsetBlackboard names the entry to remove (key=\"k\"); a reference %s, which would read that name from another entry, is not supported%s", k, w)
		}
		setParam(n, "value", nil)
	}
}

// switchCases returns N for BT.CPP's SwitchN (N from 2 to 6, the ones
// BT.CPP registers), else 0.
func switchCases(id string) int {
	if len(id) == len("Switch2") && strings.HasPrefix(id, "Switch") && id[6] >= '2' && id[6] <= '6' {
		return int(id[6] - '0')
	}
	return 0
}

// switchNode converts BT.CPP's SwitchN (nc cases) to Arbor's Switch:
// variable="{key}" is the key, case_1 … case_N the cases, each converted
// as SetBlackboard's value is (a number if it reads as one, true or false
// a boolean, else the string).
func (l *loader) switchNode(n *arbor.Node, id string, nc int, ports []xmlAttr, path string, line int) {
	w := l.where(l.file)
	n.Type = "Switch"
	known := map[string]bool{"variable": true}
	for k := 1; k <= nc; k++ {
		known[fmt.Sprintf("case_%d", k)] = true
	}
	given := map[string]string{}
	for _, a := range ports {
		if name := a.Name.Local; known[name] {
			given[name] = a.Value
		} else {
			l.el.Add(path, id, line, "unknown port %q of %s (ports: variable, case_1 … case_%d)%s", name, id, nc, w)
		}
	}
	switch v, ok := given["variable"]; {
	case !ok:
		l.el.Add(path, id, line, "missing port %q of %s%s", "variable", id, w)
	case v == "{=}":
		setParam(n, "key", "variable")
	case !conv.IsRef(v):
		l.el.Add(path, id, line, "port \"variable\": want a blackboard reference {key}, got %q (a constant would pick the same child on every tick)%s", v, w)
	default:
		setParam(n, "key", v[1:len(v)-1])
	}
	cases := make([]any, nc)
	complete := true
	for k := range cases {
		name := fmt.Sprintf("case_%d", k+1)
		raw, ok := given[name]
		switch {
		case !ok:
			l.el.Add(path, id, line, "missing port %q of %s%s", name, id, w)
			complete = false
		case conv.IsRef(raw):
			l.el.Add(path, id, line, "port %q: blackboard references (%s) are not supported here; give a literal%s", name, raw, w)
			complete = false
		default:
			cases[k] = Untyped(raw)
		}
	}
	if complete {
		setParam(n, "cases", cases)
	}
}

// relativeThresholds resolves BT.CPP's negative Parallel thresholds: -1 is
// every child (as in Arbor), -2 every child but one, and so on.
func relativeThresholds(n *arbor.Node, children int) {
	for _, p := range []string{"success", "failure", "maxFailures"} {
		if f, ok := n.Params[p].(float64); ok && f < -1 {
			n.Params[p] = float64(max(children+int(f)+1, 0))
		}
	}
}

// userDecorator reports whether a program type is written or declared a
// Decorator (its child's path is then spelled .child).
func (l *loader) userDecorator(id, category string) bool {
	if category == "Decorator" {
		return true
	}
	m := l.models[id]
	return m != nil && m.category == "Decorator"
}

// custom converts the ports of a program-registered node type, checking
// them against its TreeNodesModel entry when there is one.
func (l *loader) custom(n *arbor.Node, id, category string, ports []xmlAttr, path string, line int) {
	w := l.where(l.file)
	md := l.models[id]
	if md != nil && category != "" && md.category != category {
		l.el.Add(path, id, line, "written as <%s ID=%q> but TreeNodesModel declares it a %s%s", category, id, md.category, w)
	}
	for _, a := range ports {
		name, raw := a.Name.Local, a.Value
		typ := ""
		if md != nil {
			t, declared := md.ports[name]
			if !declared {
				list := "none"
				if len(md.order) > 0 {
					list = strings.Join(md.order, ", ")
				}
				l.el.Add(path, id, line, "port %q is not declared for %s in TreeNodesModel (ports: %s)%s", name, id, list, w)
				continue
			}
			typ = t
		}
		if raw == "{=}" {
			raw = "{" + name + "}"
		}
		if conv.IsRef(raw) {
			setParam(n, name, raw) // a blackboard reference, whatever the port type
			continue
		}
		if elem, ok := vectorOf(typ); ok {
			if v, ok := l.list(elem, raw, name, id, path, line); ok {
				setParam(n, name, v)
			}
			continue
		}
		v, ok := l.convert(kindOfType(typ), raw, name, id, path, line)
		if ok {
			setParam(n, name, v)
		}
	}
}

// arborParam converts an attribute of an Arbor-only built-in.
func (l *loader) arborParam(typ, name, raw, id, path string, line int) (any, bool) {
	return l.convert(arborParamKinds[typ+"."+name], raw, name, id, path, line)
}

// convert turns an attribute value into a parameter of the given kind.
func (l *loader) convert(k kind, raw, port, id, path string, line int) (any, bool) {
	w := l.where(l.file)
	if k != kString && k != kUntyped && k != kKey && conv.IsRef(raw) {
		l.el.Add(path, id, line, "port %q: blackboard references (%s) are not supported here; give a literal%s", port, raw, w)
		return nil, false
	}
	switch k {
	case kInt, kUint:
		v, ok := conv.ParseInt(strings.TrimSpace(raw))
		if !ok || (k == kUint && v < 0) {
			want := "an integer"
			if k == kUint {
				want = "an integer ≥ 0"
			}
			l.el.Add(path, id, line, "port %q: want %s, got %q%s", port, want, raw, w)
			return nil, false
		}
		return float64(v), true
	case kNumber:
		f, ok := conv.ParseNumber(strings.TrimSpace(raw))
		if !ok {
			l.el.Add(path, id, line, "port %q: want a number, got %q%s", port, raw, w)
			return nil, false
		}
		return f, true
	case kBool:
		b, ok := parseBool(raw)
		if !ok {
			l.el.Add(path, id, line, "port %q: want true or false, got %q%s", port, raw, w)
			return nil, false
		}
		return b, true
	case kString:
		return raw, true
	case kNumbers:
		// As BT.CPP reads a std::vector<double>: "3;1;0.5".
		var list []any
		for _, part := range strings.Split(raw, ";") {
			f, ok := conv.ParseNumber(strings.TrimSpace(part))
			if !ok {
				l.el.Add(path, id, line, "port %q: want numbers separated by ';' (such as \"3;1;0.5\"), got %q%s", port, raw, w)
				return nil, false
			}
			list = append(list, f)
		}
		return list, true
	case kKey:
		if conv.IsRef(raw) {
			raw = raw[1 : len(raw)-1]
		}
		if raw == "" {
			l.el.Add(path, id, line, "port %q: empty blackboard key%s", port, w)
			return nil, false
		}
		return raw, true
	}
	return Untyped(raw), true
}

// Untyped converts a value of no declared type: a number if it parses as
// one, a boolean for true and false, else the string.
func Untyped(s string) any {
	if f, ok := conv.ParseNumber(s); ok {
		return f
	}
	switch s {
	case "true":
		return true
	case "false":
		return false
	}
	return s
}

func parseBool(s string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}

func xmlAttrName(a xmlAttr) string {
	if a.Name.Space != "" {
		return a.Name.Space + ":" + a.Name.Local
	}
	return a.Name.Local
}

func setParam(n *arbor.Node, name string, v any) {
	if n.Params == nil {
		n.Params = map[string]any{}
	}
	n.Params[name] = v
}

type xmlAttr = xml.Attr

func without(attrs []xmlAttr, name string) []xmlAttr {
	out := make([]xmlAttr, 0, len(attrs))
	for _, a := range attrs {
		if !(a.Name.Space == "" && a.Name.Local == name) {
			out = append(out, a)
		}
	}
	return out
}

// kind is how an attribute value converts.
type kind uint8

const (
	kUntyped kind = iota
	kInt
	kUint
	kNumber
	kBool
	kString
	kKey     // a blackboard key name, "{key}" or "key"
	kNumbers // a list of numbers separated by ';' (BT.CPP's std::vector<double>)
)

// kindOfType maps a BT.CPP port type to a conversion.
func kindOfType(t string) kind {
	t = strings.TrimSpace(t)
	switch t {
	case "bool":
		return kBool
	case "int", "unsigned", "unsigned int", "long", "unsigned long", "long long", "unsigned long long",
		"short", "unsigned short", "size_t", "int8_t", "int16_t", "int32_t", "int64_t",
		"uint8_t", "uint16_t", "uint32_t", "uint64_t", "float", "double", "long double",
		"std::chrono::milliseconds":
		return kNumber
	}
	if strings.Contains(t, "string") {
		return kString
	}
	return kUntyped
}

// port is one port of a mapped BT.CPP node.
type port struct {
	bt       string // BT.CPP port name
	param    string // Arbor parameter
	kind     kind
	required bool
	def      any
}

// mapping is a BT.CPP built-in with an Arbor counterpart.
type mapping struct {
	arbor string
	ports []port
	ext   []port // Arbor extension attributes
}

func (m mapping) portList() string {
	var names []string
	for _, p := range append(append([]port{}, m.ports...), m.ext...) {
		names = append(names, p.bt)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

var mapped = map[string]mapping{
	"Sequence":           {arbor: "Sequence"},
	"SequenceWithMemory": {arbor: "SequenceWithMemory"},
	"ReactiveSequence":   {arbor: "ReactiveSequence"},
	"Fallback":           {arbor: "Selector"},
	"ReactiveFallback":   {arbor: "ReactiveSelector"},
	"IfThenElse":         {arbor: "IfThenElse"},
	"WhileDoElse":        {arbor: "WhileDoElse"},
	"Parallel": {arbor: "Parallel",
		ports: []port{{bt: "success_count", param: "success", kind: kInt, def: -1.0}, {bt: "failure_count", param: "failure", kind: kInt, def: 1.0}},
		ext:   []port{{bt: "retryFailed", param: "retryFailed", kind: kBool}}},
	"ParallelAll":          {arbor: "ParallelAll", ports: []port{{bt: "max_failures", param: "maxFailures", kind: kInt, def: 1.0}}},
	"Inverter":             {arbor: "Inverter"},
	"ForceSuccess":         {arbor: "ForceSuccess"},
	"ForceFailure":         {arbor: "ForceFailure"},
	"Repeat":               {arbor: "Repeat", ports: []port{{bt: "num_cycles", param: "count", kind: kInt, required: true}}},
	"RetryUntilSuccessful": {arbor: "RetryUntilSuccessful", ports: []port{{bt: "num_attempts", param: "attempts", kind: kInt, required: true}}},
	"Timeout":              {arbor: "Timeout", ports: []port{{bt: "msec", param: "ms", kind: kUint, required: true}}},
	"Delay":                {arbor: "Delay", ports: []port{{bt: "delay_msec", param: "ms", kind: kUint, required: true}}},
	"RunOnce": {arbor: "RunOnce", ports: []port{{bt: "then_skip", kind: kBool}},
		ext: []port{{bt: "then", param: "then", kind: kString}}},
	"Sleep":         {arbor: "Wait", ports: []port{{bt: "msec", param: "ms", kind: kUint, required: true}}},
	"AlwaysSuccess": {arbor: "Success"},
	"AlwaysFailure": {arbor: "Failure"},
	"SetBlackboard": {arbor: "Set", ports: []port{{bt: "value", param: "value", kind: kUntyped, required: true}, {bt: "output_key", param: "key", kind: kKey, required: true}}},
	// A Set of null (see mappedNode).
	"UnsetBlackboard": {arbor: "Set", ports: []port{{bt: "key", param: "key", kind: kString, required: true}}},
}

// typeNames are the BT.CPP node names Arbor reads, sorted.
var typeNames = func() []string {
	names := []string{"KeepRunningUntilFailure", "SubTree", "Switch2", "Switch3", "Switch4", "Switch5", "Switch6"}
	for name := range mapped {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}()

// arborParamKinds types the parameters of Arbor-only built-ins written in
// XML ("Type.param", Type canonical).
var arborParamKinds = map[string]kind{
	"RepeatUntilFailure.max":        kInt,
	"RetryUntilSuccessful.attempts": kInt,
	"Cooldown.ms":                   kNumber,
	"Timeout.ms":                    kNumber,
	"Limiter.max":                   kInt,
	"Wait.ticks":                    kInt,
	"Wait.ms":                       kNumber,
	"Check.key":                     kString,
	"Check.op":                      kString,
	"Check.value":                   kUntyped,
	"Set.key":                       kString,
	"Set.value":                     kUntyped,
	"Set.ttlMs":                     kNumber,
	"RunOnce.then":                  kString,
	"Parallel.retryFailed":          kBool,
	"RandomSelector.weights":        kNumbers,
	"RandomSelector.seed":           kInt,
	"RandomSequence.weights":        kNumbers,
	"RandomSequence.seed":           kInt,
}

// foreignPort returns a port that the TreeNodesModel declares for the
// Arbor-only built-in id and that the built-in does not have (its first in
// name order), or "": the file means a program node of the same name. A
// model matching the built-in (as Arbor's export writes) is fine.
func (l *loader) foreignPort(id string) string {
	md := l.models[id]
	if md == nil {
		return ""
	}
	typ := conv.Canonical(id)
	var foreign []string
	for name := range md.ports {
		if _, ok := arborParamKinds[typ+"."+name]; !ok {
			foreign = append(foreign, name)
		}
	}
	if len(foreign) == 0 {
		return ""
	}
	slices.Sort(foreign)
	return foreign[0]
}

// notAParam returns the first attribute that is not a parameter of the
// Arbor-only built-in id, or "". Such an attribute means a program node
// that took the built-in's name (Nav2's Wait has wait_duration).
func (l *loader) notAParam(id string, ports []xmlAttr) string {
	typ := conv.Canonical(id)
	if typ == arbor.ErrorType {
		return ""
	}
	for _, a := range ports {
		if _, ok := arborParamKinds[typ+"."+a.Name.Local]; !ok {
			return a.Name.Local
		}
	}
	return ""
}

// arborParamList lists the parameters of the Arbor-only built-in id, for
// messages.
func arborParamList(id string) string {
	prefix := conv.Canonical(id) + "."
	var names []string
	for k := range arborParamKinds {
		if name, ok := strings.CutPrefix(k, prefix); ok {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return "it takes none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// isArborOnly reports whether id is an Arbor built-in (or alias) that is
// not a BT.CPP node name.
func isArborOnly(id string) bool {
	if _, bt := mapped[id]; bt {
		return false
	}
	return arbor.IsBuiltin(id) && id != "SubTree"
}

// scripting are BT.CPP's pre- and post-condition attributes.
var scripting = map[string]bool{
	"_skipIf": true, "_successIf": true, "_failureIf": true, "_while": true,
	"_onSuccess": true, "_onFailure": true, "_post": true, "_onHalted": true,
}

// unsupported are BT.CPP node types Arbor does not support, with why.
var unsupported = map[string]string{
	"Script":                "scripting (Script) is not supported",
	"ScriptCondition":       "scripting (ScriptCondition) is not supported",
	"Precondition":          "scripting (Precondition) is not supported",
	"ManualSelector":        "no Arbor counterpart",
	"TryCatch":              "no Arbor counterpart",
	"AsyncSequence":         "no Arbor counterpart",
	"AsyncFallback":         "no Arbor counterpart",
	"ReactiveRepeat":        "no Arbor counterpart",
	"LoopInt":               "queues and loops over blackboard lists are not supported",
	"LoopDouble":            "queues and loops over blackboard lists are not supported",
	"LoopString":            "queues and loops over blackboard lists are not supported",
	"LoopBool":              "queues and loops over blackboard lists are not supported",
	"ConsumeQueue":          "queues and loops over blackboard lists are not supported",
	"PopFromQueue":          "queues and loops over blackboard lists are not supported",
	"PopIntFromQueue":       "queues and loops over blackboard lists are not supported",
	"PopDoubleFromQueue":    "queues and loops over blackboard lists are not supported",
	"PopBoolFromQueue":      "queues and loops over blackboard lists are not supported",
	"PopStringFromQueue":    "queues and loops over blackboard lists are not supported",
	"SkipUnlessUpdated":     "blackboard update tracking is not supported",
	"WaitValueUpdate":       "blackboard update tracking is not supported",
	"WasEntryUpdated":       "blackboard update tracking is not supported",
	"SequenceStar":          "a BT.CPP v3 node (v4 calls it SequenceWithMemory)",
	"FallbackStar":          "a BT.CPP v2 node",
	"BlackboardCheckInt":    "a BT.CPP v3 node (use Check under its Arbor name)",
	"BlackboardCheckDouble": "a BT.CPP v3 node (use Check under its Arbor name)",
	"BlackboardCheckString": "a BT.CPP v3 node (use Check under its Arbor name)",
	"BlackboardCheckBool":   "a BT.CPP v3 node (use Check under its Arbor name)",
	"SubTreePlus":           "a BT.CPP v3 node (v4 uses <SubTree>)",
	"RetryUntilSuccesful":   "a BT.CPP v3 spelling (v4: RetryUntilSuccessful)",
}

// IsUnsupported reports whether id is a BT.CPP node type that Load
// refuses.
func IsUnsupported(id string) bool {
	_, bad := unsupported[id]
	return bad
}

// roots lists, in document order, the trees that no other tree uses as a
// subtree (or as a guard).
func (l *loader) roots() []string {
	used := map[string]bool{}
	var walk func(e *element, self string)
	walk = func(e *element, self string) {
		if e.name == "SubTree" {
			if id, ok := e.attr("ID"); ok && id != self {
				used[id] = true
			}
		}
		if g, ok := e.attr("guard"); ok && g != self {
			used[g] = true
		}
		for _, k := range e.kids {
			walk(k, self)
		}
	}
	for _, id := range l.order {
		for _, k := range l.trees[id].el.kids {
			walk(k, id)
		}
	}
	var roots []string
	for _, id := range l.order {
		if !used[id] {
			roots = append(roots, id)
		}
	}
	return roots
}
