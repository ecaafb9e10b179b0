package arbor

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/arborbt/arbor/internal/nodesrc"
	"github.com/arborbt/arbor/internal/rawdoc"
	"github.com/arborbt/arbor/internal/suggest"
)

// Limits bound what the native loader accepts (format.md: 16 MiB per file,
// nesting depth 256; the node limit after inlining is CompileOptions).
type Limits struct {
	MaxBytes int // file size; 0 means 16 MiB
	MaxDepth int // nesting of nodes (a child is one level deeper); 0 means 256
}

// DefaultMaxNodeDepth is the default bound on node nesting.
const DefaultMaxNodeDepth = 256

// ParseJSON parses a native tree document (format.md) from JSON. Problems
// in the document are LoadErrors (every one found, each with its path and
// line); the document is not validated against node types until Compile.
func ParseJSON(data []byte) (*Document, error) { return parse(data, false, Limits{}) }

// ParseYAML parses a native tree document from YAML.
func ParseYAML(data []byte) (*Document, error) { return parse(data, true, Limits{}) }

// ParseDocument parses JSON or YAML with explicit limits.
func ParseDocument(data []byte, yaml bool, lim Limits) (*Document, error) {
	return parse(data, yaml, lim)
}

func parse(data []byte, yaml bool, lim Limits) (*Document, error) {
	if lim.MaxDepth <= 0 {
		lim.MaxDepth = DefaultMaxNodeDepth
	}
	v, err := rawdoc.Parse(data, yaml, rawdoc.Limits{MaxBytes: lim.MaxBytes, MaxDepth: 2*lim.MaxDepth + 64})
	if err != nil {
		return nil, err
	}
	return decodeDocumentDepth(v, lim.MaxDepth)
}

// IsYAMLPath reports whether a file name has a YAML extension.
func IsYAMLPath(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".yaml" || ext == ".yml"
}

// LoadFile reads a native tree document; .yaml and .yml files are YAML,
// anything else JSON. Errors begin with "load PATH: " and wrap the cause:
// the file system's error, or LoadErrors (errors.As finds them). Other
// formats load through package format.
func LoadFile(path string) (*Document, error) {
	data, err := rawdoc.ReadFile(path, rawdoc.DefaultMaxBytes)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	doc, err := parse(data, IsYAMLPath(path), Limits{})
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return doc, nil
}

// LoadTree reads and compiles a native tree file: LoadFile, then Compile
// with reg (nil: the built-ins only). Compile's errors are wrapped as
// LoadFile's are.
func LoadTree(path string, reg *Registry) (*Tree, error) {
	doc, err := LoadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := Compile(doc, reg)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return t, nil
}

func init() {
	rawdoc.DecodeTree = func(v *rawdoc.Value) (any, error) { return decodeDocument(v) }
	nodesrc.Set = func(n any, typ string, params map[string]string) {
		if node, ok := n.(*Node); ok && (typ != node.Type || len(params) > 0) {
			node.src = &nodeSource{typ: typ, params: params}
		}
	}
	nodesrc.SetTypeNames = func(d any, names []string) {
		if doc, ok := d.(*Document); ok {
			doc.typeNames = names
		}
	}
}

// DecodeDocument decodes a native document already parsed into plain Go
// values (map[string]any, []any, string, float64, bool, nil), for programs
// that embed trees in their own configuration files.
func DecodeDocument(v any) (*Document, error) {
	rv, err := rawdoc.FromInterface(v)
	if err != nil {
		return nil, err
	}
	return decodeDocument(rv)
}

// BareTreeName is the tree name given to a document written as a bare root
// node.
const BareTreeName = "root"

// docKeys are the document's keys. "fsm" holds state machines, read by
// package fsm; the tree loader ignores it.
var docKeys = []string{"format", "main", "trees", "fsm", "comment", "description"}

func decodeDocument(v *rawdoc.Value) (*Document, error) {
	return decodeDocumentDepth(v, DefaultMaxNodeDepth)
}

// nodeDecoder converts node objects, bounding their nesting.
type nodeDecoder struct {
	el       *errList
	maxDepth int
}

func decodeDocumentDepth(v *rawdoc.Value, maxDepth int) (*Document, error) {
	el := &errList{}
	d := nodeDecoder{el: el, maxDepth: maxDepth}
	if v.Kind != rawdoc.Object {
		el.add("", "", v.Line, "a tree document must be an object, got a %s", v.Kind)
		return nil, el.err()
	}
	doc := &Document{Trees: map[string]*Node{}}
	if v.Get("type") != nil {
		// A bare node: its duplicate keys are the node's, reported with its path.
		doc.Main = BareTreeName
		doc.Trees[BareTreeName] = d.node(bareNode(v, el), "trees."+BareTreeName, 1)
		return doc, el.err()
	}
	for _, d := range v.Dups {
		el.add(d.Key, "", d.Line, "duplicate key %q", d.Key)
	}
	for _, f := range v.Fields {
		switch f.Key {
		case "format":
			checkFormat(f, el)
		case "main":
			if f.Val.Kind != rawdoc.String {
				el.add("main", "", f.Line, "main must be a tree name (a string), got %s", f.Val.Describe())
			}
			doc.Main = f.Val.Str
		case "trees":
			if f.Val.Kind != rawdoc.Object {
				el.add("trees", "", f.Line, "trees must be an object of name → root node, got %s", f.Val.Describe())
				continue
			}
			for _, d := range f.Val.Dups {
				el.add("trees."+d.Key, "", d.Line, "duplicate key %q: two trees have the same name", d.Key)
			}
			for _, t := range f.Val.Fields {
				doc.Trees[t.Key] = d.node(t.Val, "trees."+t.Key, 1)
			}
		case "comment", "description", "fsm":
		default:
			msg := fmt.Sprintf("unknown document key %q", f.Key)
			if s := suggest.Closest(f.Key, docKeys); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			el.add(f.Key, "", f.Line, "%s", msg)
		}
	}
	if v.Get("trees") == nil {
		el.add("trees", "", v.Line, "the document has no trees (and no root node \"type\")")
	}
	return doc, el.err()
}

// checkFormat checks a document's "format" member: "arbor/1", or a minor
// version of it.
func checkFormat(f rawdoc.Field, el *errList) {
	s := f.Val.Str
	if f.Val.Kind != rawdoc.String || !(s == "arbor/1" || strings.HasPrefix(s, "arbor/1.")) {
		el.add("format", "", f.Line, "unsupported format %s (this version reads \"arbor/1\")", f.Val.Describe())
	}
}

// bareNode returns the root node of a document written as a bare node,
// without the document's "format" member when it has one: a "format"
// whose value is a string beginning with "arbor/" is the document's
// version (checked here), as in a document with trees; any other "format"
// is a parameter of the node.
func bareNode(v *rawdoc.Value, el *errList) *rawdoc.Value {
	for i, f := range v.Fields {
		if f.Key != "format" || f.Val.Kind != rawdoc.String || !strings.HasPrefix(f.Val.Str, "arbor/") {
			continue
		}
		checkFormat(f, el)
		node := *v
		node.Fields = append(slices.Clip(v.Fields[:i]), v.Fields[i+1:]...)
		return &node
	}
	return v
}

// node converts one node object at the given nesting depth.
func (d *nodeDecoder) node(v *rawdoc.Value, path string, depth int) *Node {
	el := d.el
	if depth > d.maxDepth {
		typ := ""
		if t := v.Get("type"); t != nil && t.Kind == rawdoc.String {
			typ = t.Str
		}
		el.add(path, typ, v.Line, "node nesting depth over the limit of %d", d.maxDepth)
		return nil
	}
	if v.Kind != rawdoc.Object {
		el.add(path, "", v.Line, "a node must be an object, got %s", v.Describe())
		return nil
	}
	n := &Node{Line: v.Line}
	if t := v.Get("type"); t == nil {
		el.add(path, "", v.Line, "missing node type (the \"type\" key)")
	} else if t.Kind != rawdoc.String || t.Str == "" {
		el.add(path, "", v.Line, "node type must be a non-empty string, got %s", t.Describe())
	} else {
		n.Type = t.Str
	}
	for _, d := range v.Dups {
		el.add(path, n.Type, d.Line, "duplicate key %q", d.Key)
	}
	if v.Get("child") != nil && v.Get("children") != nil {
		el.add(path, n.Type, v.Line, "a node has either child or children, not both")
	}
	for _, f := range v.Fields {
		switch f.Key {
		case "type", "comment":
		case "name":
			if f.Val.Kind != rawdoc.String {
				el.add(path, n.Type, f.Line, "name must be a string, got %s", f.Val.Describe())
			}
			n.Name = f.Val.Str
		case "children":
			if f.Val.Kind != rawdoc.List {
				el.add(path, n.Type, f.Line, "children must be a list of nodes, got %s", f.Val.Describe())
				continue
			}
			for i, c := range f.Val.List {
				if k := d.node(c, fmt.Sprintf("%s.children[%d]", path, i), depth+1); k != nil {
					n.Children = append(n.Children, k)
				}
			}
		case "child":
			if k := d.node(f.Val, path+".child", depth+1); k != nil {
				n.Children = append(n.Children, k)
				n.SingleChild = true
			}
		case "guard":
			n.Guard = d.node(f.Val, path+".guard", depth+1)
		case "abort":
			a, ok := AbortNone, false
			if f.Val.Kind == rawdoc.String && f.Val.Str != "" {
				a, ok = ParseAbort(f.Val.Str)
			}
			if !ok {
				el.add(path, n.Type, f.Line, "abort must be none, self, lower or both, got %s", f.Val.Describe())
			}
			n.Abort, n.abortWritten = a, true
		default:
			if n.Params == nil {
				n.Params = make(map[string]any)
			}
			if d := rawdoc.FirstDuplicate(f.Val); d != nil {
				el.add(path, n.Type, d.Line, "parameter %q: duplicate key %q", f.Key, d.Key)
			}
			n.Params[f.Key] = f.Val.Interface()
		}
	}
	return n
}
