// Package b3 reads and writes Behavior3 editor JSON (format.md, "Other
// formats"): tree exports ("scope": "tree"), project exports ("scope":
// "project", several trees, subtree blocks naming tree ids) and the
// editor's saved project files (the export under "data").
//
// Load maps the Behavior3 node types onto Arbor's (Sequence →
// ReactiveSequence, MemSequence → Sequence, Priority → ReactiveSelector,
// ...); any other node name is a program-registered type whose properties
// are its parameters. Export writes a project export that the editor opens;
// NodeExport writes a program's node palette, the editor's node export of
// every type its registry holds.
// The README in the parent directory has the full mapping table.
package b3

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/internal/conv"
	"github.com/arborbt/arbor/internal/nodesrc"
	"github.com/arborbt/arbor/internal/rawdoc"
)

// ErrorNode returns the Arbor node Load makes of a Behavior3 Error node:
// the arbor.ErrorType leaf, which fails and reports an error with its path.
func ErrorNode() *arbor.Node {
	return &arbor.Node{Type: arbor.ErrorType, Name: "Error"}
}

// IsErrorNode reports whether n is an Error node as ErrorNode makes it.
func IsErrorNode(n *arbor.Node) bool {
	return n != nil && n.Type == arbor.ErrorType && len(n.Children) == 0
}

// builtin describes a Behavior3 node type with an Arbor counterpart.
type builtin struct {
	arbor    string  // Arbor type
	category string  // Behavior3 category
	prop     string  // the Behavior3 property it reads, if any
	param    string  // the Arbor parameter it becomes
	def      float64 // value when the property is absent (the editor's default)
	forever  bool    // any negative value means "forever" (-1)
	title    string  // the editor's default title
}

var builtins = map[string]builtin{
	"Sequence":           {arbor: "ReactiveSequence", category: "composite", title: "Sequence"},
	"Priority":           {arbor: "ReactiveSelector", category: "composite", title: "Priority"},
	"MemSequence":        {arbor: "Sequence", category: "composite", title: "MemSequence"},
	"MemPriority":        {arbor: "Selector", category: "composite", title: "MemPriority"},
	"Inverter":           {arbor: "Inverter", category: "decorator", title: "Inverter"},
	"Limiter":            {arbor: "Limiter", category: "decorator", prop: "maxLoop", param: "max", def: 1, title: "Limit <maxLoop> Activations"},
	"MaxTime":            {arbor: "Timeout", category: "decorator", prop: "maxTime", param: "ms", def: 0, title: "Max <maxTime>ms"},
	"Repeater":           {arbor: "Repeat", category: "decorator", prop: "maxLoop", param: "count", def: -1, forever: true, title: "Repeat <maxLoop>x"},
	"RepeatUntilFailure": {arbor: "RepeatUntilFailure", category: "decorator", prop: "maxLoop", param: "max", def: -1, forever: true, title: "Repeat Until Failure"},
	"RepeatUntilSuccess": {arbor: "RetryUntilSuccessful", category: "decorator", prop: "maxLoop", param: "attempts", def: -1, forever: true, title: "Repeat Until Success"},
	"Succeeder":          {arbor: "Success", category: "action", title: "Succeeder"},
	"Failer":             {arbor: "Failure", category: "action", title: "Failer"},
	"Runner":             {arbor: "Running", category: "action", title: "Runner"},
	"Error":              {arbor: arbor.ErrorType, category: "action", title: "Error"},
	"Wait":               {arbor: "Wait", category: "action", prop: "milliseconds", param: "ms", def: 0, title: "Wait <milliseconds>ms"},
}

// typeNames are the Behavior3 built-ins' names, sorted.
var typeNames = func() []string {
	names := make([]string, 0, len(builtins))
	for name := range builtins {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}()

// IsBuiltin reports whether name is a Behavior3 built-in node type.
func IsBuiltin(name string) bool {
	_, ok := builtins[name]
	return ok
}

// Load reads a Behavior3 tree export, project export or saved project file.
// Problems are reported as arbor.LoadErrors with node paths and lines.
func Load(data []byte) (*arbor.Document, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	v, err := rawdoc.Parse(data, false, rawdoc.Limits{MaxBytes: conv.MaxBytes, MaxDepth: conv.MaxDepth})
	if err != nil {
		return nil, fmt.Errorf("behavior3 JSON: %w", err)
	}
	return decode(v)
}

// LoadFile reads a Behavior3 JSON file (at most 16 MiB).
func LoadFile(path string) (*arbor.Document, error) {
	data, err := conv.ReadFile(path, conv.MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	doc, err := Load(data)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return doc, nil
}

// Detect reports whether a JSON document looks like Behavior3 editor JSON
// rather than a native Arbor document. Data that is not JSON is neither.
func Detect(data []byte) bool {
	v, err := rawdoc.Parse(data, false, rawdoc.Limits{MaxBytes: conv.MaxBytes, MaxDepth: conv.MaxDepth})
	return err == nil && detect(v)
}

// detect is Detect on a parsed document.
func detect(v *rawdoc.Value) bool {
	if nodeExport(v) {
		return true // refused by Load with a message that says what it is
	}
	if v == nil || v.Kind != rawdoc.Object {
		return false
	}
	if v.Get("type") != nil || v.Get("format") != nil {
		return false // a native document or bare root node
	}
	if d := v.Get("data"); d != nil && d.Kind == rawdoc.Object && v.Get("trees") == nil {
		v = d
	}
	if s := v.Get("scope"); s != nil {
		return true
	}
	if v.Get("nodes") != nil || v.Get("custom_nodes") != nil {
		return true
	}
	if t := v.Get("trees"); t != nil && t.Kind == rawdoc.List {
		return true
	}
	return false
}

// nodeExport reports whether v is the editor's export of node definitions:
// a list of objects with "scope": "node" (no tree in it).
func nodeExport(v *rawdoc.Value) bool {
	if v == nil || v.Kind != rawdoc.List || len(v.List) == 0 {
		return false
	}
	for _, e := range v.List {
		if s, _ := str(e.Get("scope")); e.Kind != rawdoc.Object || s != "node" {
			return false
		}
	}
	return true
}

// template is a custom_nodes entry.
type template struct {
	category string
	props    map[string]any
}

// treeSpec is one tree of the file, before its nodes are decoded.
type treeSpec struct {
	v     *rawdoc.Value
	id    string
	title string
	name  string // Arbor tree name
}

type decoder struct {
	el        conv.Errors
	templates map[string]template
	nodeCats  map[string]arbor.Category // categories the nodes of custom types were written with
	byID      map[string]*treeSpec      // tree id → tree (project exports)
	byName    map[string]*treeSpec
	guards    []conv.GuardRef
	// per tree
	nodes   *rawdoc.Value
	visited map[string]bool
	count   int
}

func str(v *rawdoc.Value) (string, bool) {
	if v == nil || v.Kind != rawdoc.String {
		return "", false
	}
	return v.Str, true
}

func describe(v *rawdoc.Value) string { return v.Describe() }

func decode(v *rawdoc.Value) (*arbor.Document, error) {
	d := &decoder{templates: map[string]template{}, byID: map[string]*treeSpec{}, byName: map[string]*treeSpec{}}
	if nodeExport(v) {
		d.el.Add("", "", v.Line, "a Behavior3 node export (node definitions, \"scope\": \"node\") holds no tree: export the tree or the project")
		return nil, d.el.Err()
	}
	if v.Kind != rawdoc.Object {
		d.el.Add("", "", v.Line, "a Behavior3 file must be a JSON object, got %s", describe(v))
		return nil, d.el.Err()
	}
	if dup := rawdoc.FirstDuplicate(v); dup != nil {
		d.el.Add("", "", dup.Line, "duplicate key %q", dup.Key)
		return nil, d.el.Err()
	}
	// A project file saved by the editor holds the export under "data".
	if data := v.Get("data"); data != nil && data.Kind == rawdoc.Object && v.Get("scope") == nil && v.Get("trees") == nil {
		v = data
	}
	scope, _ := str(v.Get("scope"))
	if s := v.Get("scope"); s != nil && s.Kind != rawdoc.String {
		d.el.Add("scope", "", s.Line, "scope must be a string, got %s", describe(s))
		return nil, d.el.Err()
	}
	if scope == "" {
		switch {
		case v.Get("trees") != nil:
			scope = "project"
		case v.Get("nodes") != nil || v.Get("root") != nil:
			scope = "tree"
		}
	}
	d.customNodes(v.Get("custom_nodes"))
	var specs []*treeSpec
	mainID := ""
	switch scope {
	case "tree":
		specs = append(specs, d.treeSpec(v, "tree"))
	case "project":
		trees := v.Get("trees")
		if trees == nil || trees.Kind != rawdoc.List {
			line := v.Line
			if trees != nil {
				line = trees.Line
			}
			d.el.Add("trees", "", line, "a project export needs a list of trees")
			return nil, d.el.Err()
		}
		for i, t := range trees.List {
			if t.Kind != rawdoc.Object {
				d.el.Add(fmt.Sprintf("trees[%d]", i), "", t.Line, "a tree must be an object, got %s", describe(t))
				continue
			}
			d.customNodes(t.Get("custom_nodes"))
			specs = append(specs, d.treeSpec(t, fmt.Sprintf("trees[%d]", i)))
		}
		if s := v.Get("selectedTree"); s != nil && s.Kind != rawdoc.Null {
			id, ok := str(s)
			if !ok {
				d.el.Add("selectedTree", "", s.Line, "selectedTree must be a tree id, got %s", describe(s))
			}
			mainID = id
		}
	default:
		d.el.Add("scope", "", v.Line, "not a Behavior3 tree or project export (scope %q; want \"tree\" or \"project\")", scope)
		return nil, d.el.Err()
	}
	if d.el.Len() > 0 {
		return nil, d.el.Err()
	}
	if len(specs) == 0 {
		d.el.Add("trees", "", v.Line, "the project has no trees")
		return nil, d.el.Err()
	}
	d.nameTrees(specs)
	if d.el.Len() > 0 {
		return nil, d.el.Err()
	}

	doc := &arbor.Document{Trees: map[string]*arbor.Node{}}
	nodesrc.TypeNames(doc, typeNames) // "did you mean" names Succeeder, not only Success
	switch {
	case mainID != "":
		t, ok := d.byID[mainID]
		if !ok {
			d.el.Add("selectedTree", "", v.Get("selectedTree").Line, "selectedTree names a missing tree %q", mainID)
			return nil, d.el.Err()
		}
		doc.Main = t.name
	default:
		doc.Main = specs[0].name
	}
	for _, t := range specs {
		root := d.tree(t)
		if root != nil {
			doc.Trees[t.name] = root
		} else if t.name == doc.Main && d.el.Len() == 0 {
			d.el.Add("trees."+t.name, "", t.v.Line, "the main tree has no root node")
		}
	}
	if d.el.Len() > 0 {
		return nil, d.el.Err()
	}
	conv.ResolveGuards(doc, d.guards, &d.el)
	if d.el.Len() > 0 {
		return nil, d.el.Err()
	}
	doc.Categories = d.categories()
	return doc, nil
}

// categories returns the categories custom_nodes declared, and those of
// the nodes of types custom_nodes lacks (nil when none).
func (d *decoder) categories() map[string]arbor.Category {
	cats := d.nodeCats
	for name, t := range d.templates {
		c := categoryOf[t.category]
		if c == arbor.CategoryNone || arbor.IsBuiltin(name) {
			continue
		}
		if cats == nil {
			cats = map[string]arbor.Category{}
		}
		cats[name] = c
	}
	return cats
}

// categoryOf maps Behavior3's node categories to Arbor's.
var categoryOf = map[string]arbor.Category{
	"action": arbor.CategoryAction, "condition": arbor.CategoryCondition,
	"decorator": arbor.CategoryDecorator, "composite": arbor.CategoryControl,
}

// customNodes reads a custom_nodes list.
func (d *decoder) customNodes(v *rawdoc.Value) {
	if v == nil || v.Kind == rawdoc.Null {
		return
	}
	if v.Kind != rawdoc.List {
		d.el.Add("custom_nodes", "", v.Line, "custom_nodes must be a list, got %s", describe(v))
		return
	}
	for i, c := range v.List {
		path := fmt.Sprintf("custom_nodes[%d]", i)
		if c.Kind != rawdoc.Object {
			d.el.Add(path, "", c.Line, "a custom node must be an object, got %s", describe(c))
			continue
		}
		name, ok := str(c.Get("name"))
		if !ok || name == "" {
			d.el.Add(path, "", c.Line, "a custom node needs a name (a non-empty string)")
			continue
		}
		t := template{}
		t.category, _ = str(c.Get("category"))
		if p := c.Get("properties"); p != nil && p.Kind == rawdoc.Object {
			t.props = p.Interface().(map[string]any)
		} else if p := c.Get("parameters"); p != nil && p.Kind == rawdoc.Object {
			t.props = p.Interface().(map[string]any)
		}
		d.templates[name] = t
	}
}

func (d *decoder) treeSpec(v *rawdoc.Value, where string) *treeSpec {
	t := &treeSpec{v: v}
	if id := v.Get("id"); id != nil && id.Kind != rawdoc.Null {
		s, ok := str(id)
		if !ok {
			d.el.Add(where, "", id.Line, "a tree id must be a string, got %s", describe(id))
		}
		t.id = s
	}
	if ti := v.Get("title"); ti != nil && ti.Kind != rawdoc.Null {
		s, ok := str(ti)
		if !ok {
			d.el.Add(where, "", ti.Line, "a tree title must be a string, got %s", describe(ti))
		}
		t.title = strings.TrimSpace(s)
	}
	return t
}

// nameTrees gives each tree its Arbor name: its title when no other tree
// has that title (and it is not another tree's id), else its id.
func (d *decoder) nameTrees(specs []*treeSpec) {
	titles := map[string]int{}
	ids := map[string]bool{}
	for i, t := range specs {
		titles[t.title]++
		if t.id != "" {
			if ids[t.id] {
				d.el.Add(fmt.Sprintf("trees[%d]", i), "", t.v.Line, "duplicate tree id %q", t.id)
			}
			ids[t.id] = true
			d.byID[t.id] = t
		}
	}
	for i, t := range specs {
		switch {
		case t.title != "" && titles[t.title] == 1 && (!ids[t.title] || t.title == t.id):
			t.name = t.title
		case t.id != "":
			t.name = t.id
		case len(specs) == 1:
			t.name = arbor.BareTreeName
		default:
			t.name = fmt.Sprintf("tree%d", i+1)
		}
	}
	for i, t := range specs {
		if other, dup := d.byName[t.name]; dup && other != t {
			d.el.Add(fmt.Sprintf("trees[%d]", i), "", t.v.Line, "two trees would be named %q", t.name)
		}
		d.byName[t.name] = t
	}
}

// tree decodes the nodes of one tree reachable from its root.
func (d *decoder) tree(t *treeSpec) *arbor.Node {
	path := "trees." + t.name
	d.nodes = t.v.Get("nodes")
	d.visited = map[string]bool{}
	if d.nodes != nil && d.nodes.Kind != rawdoc.Object && d.nodes.Kind != rawdoc.Null {
		d.el.Add(path, "", d.nodes.Line, "nodes must be an object of id → node, got %s", describe(d.nodes))
		return nil
	}
	r := t.v.Get("root")
	if r == nil || r.Kind == rawdoc.Null {
		return nil
	}
	root, ok := str(r)
	if !ok {
		d.el.Add(path, "", r.Line, "root must be a node id, got %s", describe(r))
		return nil
	}
	if root == "" {
		return nil
	}
	return d.node(root, path, r.Line, 1)
}

var placeholder = regexp.MustCompile(`<\w+>`)

// node decodes the node with the given id.
func (d *decoder) node(id, path string, refLine, depth int) *arbor.Node {
	spec := d.nodes.Get(id)
	if spec == nil {
		d.el.Add(path, "", refLine, "node id %q is not in nodes", id)
		return nil
	}
	if depth > conv.MaxDepth {
		typ, _ := str(spec.Get("name"))
		d.el.Add(path, typ, spec.Line, "nodes nested deeper than %d", conv.MaxDepth)
		return nil
	}
	if d.visited[id] {
		d.el.Add(path, "", refLine, "node %q is reached twice (a cycle, or a child shared by two parents)", id)
		return nil
	}
	d.visited[id] = true
	if d.count++; d.count > conv.MaxNodes {
		if d.count == conv.MaxNodes+1 {
			d.el.Add(path, "", spec.Line, "more than %s nodes", rawdoc.Count(conv.MaxNodes))
		}
		return nil
	}
	if spec.Kind != rawdoc.Object {
		d.el.Add(path, "", spec.Line, "node %q must be an object, got %s", id, describe(spec))
		return nil
	}
	name, ok := str(spec.Get("name"))
	if !ok || name == "" {
		d.el.Add(path, "", spec.Line, "node %q needs a name (its node type)", id)
		return nil
	}
	props := map[string]any{}
	for _, key := range []string{"parameters", "properties"} { // properties win
		p := spec.Get(key)
		if p == nil || p.Kind == rawdoc.Null {
			continue
		}
		if p.Kind != rawdoc.Object {
			d.el.Add(path, name, p.Line, "%s must be an object, got %s", key, describe(p))
			return nil
		}
		for _, f := range p.Fields {
			props[f.Key] = f.Val.Interface()
		}
	}
	title := ""
	if ti := spec.Get("title"); ti != nil && ti.Kind != rawdoc.Null {
		if title, ok = str(ti); !ok {
			d.el.Add(path, name, ti.Line, "title must be a string, got %s", describe(ti))
		}
	}

	n := &arbor.Node{Line: spec.Line}
	// Reserved properties: Arbor's abort and guard.
	_, abortGiven := props["abort"]
	if a, has := props["abort"]; has {
		delete(props, "abort")
		s, _ := a.(string)
		mode, valid := arbor.ParseAbort(s)
		if !valid {
			d.el.Add(path, name, spec.Line, "property abort must be none, self, lower or both, got %v", a)
		}
		n.Abort = mode
	}
	if g, has := props["guard"]; has {
		delete(props, "guard")
		s, _ := g.(string)
		switch t := d.byID[s]; {
		case s == "":
			d.el.Add(path, name, spec.Line, "property guard must name a tree (its id), got %v", g)
		case t != nil:
			d.guards = append(d.guards, conv.GuardRef{Node: n, Tree: t.name, Path: path, Line: spec.Line})
		default:
			d.guards = append(d.guards, conv.GuardRef{Node: n, Tree: s, Path: path, Line: spec.Line})
		}
	}

	var tmplProps map[string]any
	subtree, isTree := d.byID[name]
	b, isBuiltin := builtins[name]
	switch {
	case isTree && !isBuiltin:
		n.Type = "SubTree"
		n.Params = map[string]any{"tree": subtree.name}
		if title == subtree.title || title == subtree.name {
			title = ""
		}
	case isBuiltin:
		tmplProps = map[string]any{}
		if b.prop != "" {
			tmplProps[b.prop] = b.def
		}
		d.builtin(n, name, b, props, path, spec.Line)
	default:
		n.Type = name
		tmplProps = d.templates[name].props
		if len(props) > 0 {
			n.Params = props
		}
		if c, ok := str(spec.Get("category")); ok && categoryOf[c] != arbor.CategoryNone && !arbor.IsBuiltin(name) {
			// The editor writes each node's category too; custom_nodes,
			// when it has the type, is read after it (categories). An
			// Arbor built-in written as a custom node (Check, Parallel)
			// is no program type: its category is its own.
			if d.nodeCats == nil {
				d.nodeCats = map[string]arbor.Category{}
			}
			d.nodeCats[name] = categoryOf[c]
		}
	}
	if title != "" && title != name {
		n.Name = expandTitle(title, props, tmplProps)
	}
	fileType := name // errors name the file's type too (Priority, a ReactiveSelector)
	if isTree && !isBuiltin {
		fileType = n.Type
	}
	if abortGiven && n.Abort == arbor.AbortNone && n.Type != "" {
		if msg := conv.AbortMisplaced(n.Type); msg != "" {
			d.el.AddAs(path, n.Type, fileType, spec.Line, "property %s", msg)
		}
	}

	// Children.
	ch, kids := spec.Get("child"), spec.Get("children")
	if ch != nil && ch.Kind == rawdoc.Null {
		ch = nil
	}
	if kids != nil && kids.Kind == rawdoc.Null {
		kids = nil
	}
	switch {
	case ch != nil && kids != nil:
		d.el.AddAs(path, n.Type, fileType, spec.Line, "node %q has both child and children", id)
	case ch != nil:
		cid, ok := str(ch)
		if !ok {
			d.el.AddAs(path, n.Type, fileType, ch.Line, "child must be a node id, got %s", describe(ch))
			break
		}
		n.SingleChild = true
		if c := d.node(cid, path+".child", ch.Line, depth+1); c != nil {
			n.Children = append(n.Children, c)
		}
	case kids != nil:
		if kids.Kind != rawdoc.List {
			d.el.AddAs(path, n.Type, fileType, kids.Line, "children must be a list of node ids, got %s", describe(kids))
			break
		}
		for i, k := range kids.List {
			cid, ok := str(k)
			if !ok {
				d.el.AddAs(path, n.Type, fileType, k.Line, "children[%d] must be a node id, got %s", i, describe(k))
				continue
			}
			if c := d.node(cid, fmt.Sprintf("%s.children[%d]", path, i), k.Line, depth+1); c != nil {
				n.Children = append(n.Children, c)
			}
		}
	}
	return n
}

// builtin maps a Behavior3 built-in node onto n.
func (d *decoder) builtin(n *arbor.Node, name string, b builtin, props map[string]any, path string, line int) {
	n.Type = b.arbor
	nodesrc.Record(n, name, nil) // errors name Priority, not only ReactiveSelector
	switch name {
	case "Error":
		e := ErrorNode()
		n.Type, n.Params, n.Name = e.Type, e.Params, e.Name
		nodesrc.Record(n, name, nil)
		return
	case "Wait":
		if t, has := props["ticks"]; has {
			// Arbor extension: a Wait counted in ticks. The editor adds
			// milliseconds: 0 to every Wait it saves; any other value
			// conflicts.
			if ms, hasMs := props["milliseconds"]; hasMs {
				if f, ok := number(ms); !ok || f != 0 {
					d.el.Add(path, name, line, "a Wait has both ticks and milliseconds %v; give one", ms)
					return
				}
			}
			f, ok := number(t)
			if !ok {
				d.el.Add(path, name, line, "property ticks: want a number, got %v", t)
				return
			}
			n.Params = map[string]any{"ticks": f}
			return
		}
	}
	if b.prop == "" {
		return
	}
	f := b.def
	if raw, has := props[b.prop]; has {
		var ok bool
		if f, ok = number(raw); !ok {
			d.el.Add(path, name, line, "property %s: want a number, got %s", b.prop, describeAny(raw))
			return
		}
	}
	if b.forever && f < 0 {
		f = -1
	}
	n.Params = map[string]any{b.param: f}
	nodesrc.Record(n, name, map[string]string{b.param: b.prop}) // errors name maxLoop, not only count
}

// number reads a numeric property: a number, or a string holding one (the
// editor's property table may store numbers as text).
func number(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case string:
		return conv.ParseNumber(strings.TrimSpace(t))
	}
	return 0, false
}

func describeAny(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(t)
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return conv.FormatNumber(t)
	case []any:
		return "a list"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%v", v)
}

// expandTitle replaces each <prop> of a title by the property's value as
// the editor displays it; placeholders naming no property stay.
func expandTitle(title string, props, tmpl map[string]any) string {
	if !strings.Contains(title, "<") {
		return title
	}
	return placeholder.ReplaceAllStringFunc(title, func(m string) string {
		key := m[1 : len(m)-1]
		if v, ok := props[key]; ok {
			return jsString(v)
		}
		if v, ok := tmpl[key]; ok {
			return jsString(v)
		}
		return m
	})
}

// jsString converts a value to text the way JavaScript's String() does.
func jsString(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return jsNumber(t)
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			if e != nil {
				parts[i] = jsString(e)
			}
		}
		return strings.Join(parts, ",")
	case map[string]any:
		return "[object Object]"
	}
	return fmt.Sprint(v)
}

// jsNumber formats a number like JavaScript's Number.prototype.toString.
func jsNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	abs := f
	if abs < 0 {
		abs = -abs
	}
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64) // 1e+21, 1.5e-07
	mant, exp, _ := strings.Cut(s, "e")
	sign := exp[0]
	exp = strings.TrimLeft(exp[1:], "0")
	return mant + "e" + string(sign) + exp
}
