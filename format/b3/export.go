package b3

import (
	"bytes"
	"crypto/sha1"
	"encoding/json"
	"fmt"
	"math"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/internal/conv"
)

// Version is the Behavior3 editor format version Export writes.
const Version = "0.3.0"

// Layout of the editor's blocks (horizontal layout: depth to the right,
// children top to bottom in order).
const (
	layoutDX = 240
	layoutDY = 90
)

type exportProject struct {
	Version      string          `json:"version"`
	Scope        string          `json:"scope"`
	SelectedTree string          `json:"selectedTree"`
	Trees        []*exportTree   `json:"trees"`
	CustomNodes  []*exportCustom `json:"custom_nodes"`
}

type exportTree struct {
	Version     string                 `json:"version"`
	Scope       string                 `json:"scope"`
	ID          string                 `json:"id"`
	Title       string                 `json:"title"`
	Description string                 `json:"description"`
	Root        *string                `json:"root"`
	Properties  map[string]any         `json:"properties"`
	Nodes       map[string]*exportNode `json:"nodes"`
	Display     treeDisplay            `json:"display"`
}

type treeDisplay struct {
	CameraX float64 `json:"camera_x"`
	CameraY float64 `json:"camera_y"`
	CameraZ float64 `json:"camera_z"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
}

type point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

type exportNode struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Category    string         `json:"category"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Properties  map[string]any `json:"properties"`
	Display     point          `json:"display"`
	Children    []string       `json:"children,omitempty"`
	Child       string         `json:"child,omitempty"`
}

type exportCustom struct {
	Version     string         `json:"version"`
	Scope       string         `json:"scope"`
	Name        string         `json:"name"`
	Category    string         `json:"category"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Properties  map[string]any `json:"properties"`
}

// stableID returns a UUID (version 5 layout) derived from its parts, so
// that exporting the same tree twice gives the same ids.
func stableID(parts ...string) string {
	h := sha1.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	b := h.Sum(nil)[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// TreeID returns the id Export gives the tree named name.
func TreeID(name string) string { return stableID("arbor/b3 tree", name) }

type exporter struct {
	doc        *arbor.Document
	treeIDs    map[string]string
	guardNames map[*arbor.Node]string
	custom     map[string]*customInfo
	userCats   map[string]arbor.Category // the program's node types
	nodes      map[string]*exportNode
	tree       string
	row        int
}

type customInfo struct {
	category string
	props    map[string]any // properties every instance has, with zero values
}

// Export writes the document as a Behavior3 project export that the editor
// opens (Project › Import): the main tree first and selected, every other
// tree, one tree per guard, and a custom_nodes entry for each node type
// that is not a Behavior3 built-in. Ids are derived from tree names and
// node paths, so they are stable across round trips; blocks are laid out
// left to right by depth, children top to bottom in order. Program node
// types are declared as the nodes suggest (see ExportWith).
func Export(doc *arbor.Document) ([]byte, error) { return ExportWith(doc, ExportOptions{}) }

// ExportOptions tune ExportWith.
type ExportOptions struct {
	// Registry, when set, gives the categories of the program's node
	// types (condition, decorator, composite). Without it, or for a type
	// it lacks, a program type has the category the document declares
	// (arbor.Document.Categories, kept by the loaders), else it is a
	// condition when used in a guard, else an action, or, with children,
	// a decorator when every node of it has one child and a composite
	// otherwise.
	Registry *arbor.Registry
}

// ExportWith is Export with options.
func ExportWith(doc *arbor.Document, opts ExportOptions) ([]byte, error) {
	if err := conv.CheckExportable(doc); err != nil {
		return nil, fmt.Errorf("export behavior3: %w", err)
	}
	x := &exporter{doc: doc, treeIDs: map[string]string{}, custom: map[string]*customInfo{}, userCats: conv.UserCategories(doc, opts.Registry)}
	var guards []conv.GuardTree
	x.guardNames, guards = conv.PlanGuards(doc)
	type job struct {
		name string
		root *arbor.Node
	}
	var jobs []job
	for _, name := range conv.TreeOrder(doc) {
		jobs = append(jobs, job{name, doc.Trees[name]})
	}
	for _, g := range guards {
		jobs = append(jobs, job{g.Name, g.Root})
	}
	for _, j := range jobs {
		x.treeIDs[j.name] = TreeID(j.name)
	}
	p := &exportProject{Version: Version, Scope: "project", SelectedTree: x.treeIDs[jobs[0].name], Trees: []*exportTree{}, CustomNodes: []*exportCustom{}}
	for _, j := range jobs {
		t, err := x.exportTree(j.name, j.root)
		if err != nil {
			return nil, fmt.Errorf("export behavior3: %w", err)
		}
		p.Trees = append(p.Trees, t)
	}
	for _, name := range conv.SortedKeys(x.custom) {
		c := x.custom[name]
		p.CustomNodes = append(p.CustomNodes, customEntry(name, c.category, "", c.props))
	}
	data, err := encode(p)
	if err != nil {
		return nil, fmt.Errorf("export behavior3: %w", err)
	}
	return data, nil
}

// customEntry is a custom node definition as the editor writes it in
// custom_nodes and in its node export.
func customEntry(name, category, description string, props map[string]any) *exportCustom {
	if props == nil {
		props = map[string]any{}
	}
	return &exportCustom{Version: Version, Scope: "node", Name: name, Category: category, Title: name,
		Description: description, Properties: props}
}

// encode writes v as indented JSON, without HTML escapes.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (x *exporter) exportTree(name string, root *arbor.Node) (*exportTree, error) {
	x.tree = name
	x.nodes = map[string]*exportNode{}
	x.row = 0
	rootID, y, err := x.node(root, "trees."+name, 1)
	if err != nil {
		return nil, err
	}
	return &exportTree{Version: Version, Scope: "tree", ID: x.treeIDs[name], Title: name,
		Root: &rootID, Properties: map[string]any{}, Nodes: x.nodes,
		Display: treeDisplay{CameraX: layoutDX, CameraY: layoutDY, CameraZ: 1, X: 0, Y: y}}, nil
}

// node exports n and its descendants; it returns n's id and vertical
// position.
func (x *exporter) node(n *arbor.Node, path string, depth int) (string, float64, error) {
	id := stableID("arbor/b3 node", x.tree, path)
	e := &exportNode{ID: id, Properties: map[string]any{}}
	x.nodes[id] = e
	if err := x.mapType(n, e, path); err != nil {
		return "", 0, err
	}
	if e.Title == "" {
		e.Title = e.Name
		if n.Name != "" {
			e.Title = n.Name
		}
	}
	if n.Abort != arbor.AbortNone {
		e.Properties["abort"] = n.Abort.String()
	}
	if g, ok := x.guardNames[n]; ok {
		e.Properties["guard"] = x.treeIDs[g]
	}
	var ys []float64
	for i, c := range n.Children {
		step := fmt.Sprintf(".children[%d]", i)
		if n.SingleChild && len(n.Children) == 1 {
			step = ".child"
		}
		cid, cy, err := x.node(c, path+step, depth+1)
		if err != nil {
			return "", 0, err
		}
		ys = append(ys, cy)
		if e.Category == "decorator" && len(n.Children) == 1 {
			e.Child = cid
		} else {
			e.Children = append(e.Children, cid)
		}
	}
	var y float64
	if len(ys) == 0 {
		y = float64(x.row * layoutDY)
		x.row++
	} else {
		y = (ys[0] + ys[len(ys)-1]) / 2
	}
	e.Display = point{X: float64(depth * layoutDX), Y: y}
	return id, y, nil
}

// reverse maps the Arbor types that are Behavior3 built-ins.
var reverse = map[string]string{
	"ReactiveSequence":     "Sequence",
	"ReactiveSelector":     "Priority",
	"Sequence":             "MemSequence",
	"Selector":             "MemPriority",
	"Inverter":             "Inverter",
	"Limiter":              "Limiter",
	"Timeout":              "MaxTime",
	"Repeat":               "Repeater",
	"RepeatUntilFailure":   "RepeatUntilFailure",
	"RetryUntilSuccessful": "RepeatUntilSuccess",
	"Success":              "Succeeder",
	"Failure":              "Failer",
	"Running":              "Runner",
	"Wait":                 "Wait",
}

// mapType sets the Behavior3 name, category and properties of n.
func (x *exporter) mapType(n *arbor.Node, e *exportNode, path string) error {
	typ := conv.Canonical(n.Type)
	if IsErrorNode(n) {
		e.Name, e.Category = "Error", "action"
		if n.Name != "" && n.Name != "Error" {
			e.Title = n.Name
		}
		return nil
	}
	if typ == "SubTree" {
		tree, _ := n.Params["tree"].(string)
		id, ok := x.treeIDs[tree]
		if !ok || len(n.Params) != 1 {
			return fmt.Errorf("%s: SubTree must name a tree of the document (tree %q)", path, tree)
		}
		e.Name, e.Category = id, "tree"
		e.Title = tree
		if n.Name != "" {
			e.Title = n.Name
		}
		return nil
	}
	if name, ok := reverse[typ]; ok {
		b := builtins[name]
		e.Name, e.Category = name, b.category
		extra := func(allowed ...string) error {
			for k := range n.Params {
				if !contains(allowed, k) {
					return fmt.Errorf("%s (%s): parameter %q has no Behavior3 equivalent", path, n.Type, k)
				}
			}
			return nil
		}
		switch typ {
		case "Wait":
			if err := extra("ms", "ticks"); err != nil {
				return err
			}
			if t, ok := n.Params["ticks"]; ok {
				e.Properties["ticks"] = t
				return nil
			}
		case "Repeat":
			if err := extra("count"); err != nil {
				return err
			}
			if f, ok := conv.Number(n.Params["count"]); ok && f == 0 {
				e.Properties["maxLoop"] = -1.0
				return nil
			}
		default:
			if err := extra(b.param); err != nil {
				return err
			}
		}
		if b.prop != "" {
			if v, ok := n.Params[b.param]; ok {
				if err := checkJSON(v); err != nil {
					return fmt.Errorf("%s (%s): parameter %q: %w", path, n.Type, b.param, err)
				}
				e.Properties[b.prop] = v
			}
		}
		return nil
	}
	// Anything else is a custom node named by its Arbor type.
	e.Name = typ
	if !arbor.IsBuiltin(n.Type) {
		e.Name = n.Type
	}
	if IsBuiltin(e.Name) {
		return fmt.Errorf("%s: node type %q is a Behavior3 built-in with other parameters and cannot be written", path, e.Name)
	}
	e.Category = customCategory(conv.CategoryOf(n.Type, x.userCats))
	for _, k := range conv.SortedKeys(n.Params) {
		if k == "abort" || k == "guard" {
			return fmt.Errorf("%s (%s): parameter %q is a reserved property", path, n.Type, k)
		}
		if err := checkJSON(n.Params[k]); err != nil {
			return fmt.Errorf("%s (%s): parameter %q: %w", path, n.Type, k, err)
		}
		e.Properties[k] = n.Params[k]
	}
	x.noteCustom(e.Name, e.Category, n.Params)
	return nil
}

// customCategory is the Behavior3 category of a custom node: action for
// an action or an unknown category.
func customCategory(c arbor.Category) string {
	switch c {
	case arbor.CategoryControl:
		return "composite"
	case arbor.CategoryDecorator:
		return "decorator"
	case arbor.CategoryCondition:
		return "condition"
	}
	return "action"
}

// noteCustom records a custom node type; its template keeps the properties
// that every instance has (the editor adds a template's properties to
// every node it loads), with zero values.
func (x *exporter) noteCustom(name, category string, params map[string]any) {
	c := x.custom[name]
	if c == nil {
		c = &customInfo{category: category, props: map[string]any{}}
		for k, v := range params {
			c.props[k] = zeroOf(v)
		}
		x.custom[name] = c
		return
	}
	for k := range c.props {
		if _, ok := params[k]; !ok {
			delete(c.props, k)
		}
	}
}

func zeroOf(v any) any {
	if _, ok := conv.Number(v); ok {
		return 0
	}
	switch v.(type) {
	case string:
		return ""
	case bool:
		return false
	}
	return nil
}

// checkJSON reports values JSON cannot hold.
func checkJSON(v any) error {
	switch t := v.(type) {
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("%v is not a JSON number", t)
		}
	case float32:
		return checkJSON(float64(t))
	case []any:
		for _, e := range t {
			if err := checkJSON(e); err != nil {
				return err
			}
		}
	case map[string]any:
		for _, e := range t {
			if err := checkJSON(e); err != nil {
				return err
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
