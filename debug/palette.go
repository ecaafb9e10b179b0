package debug

import (
	"sort"

	"github.com/arborbt/arbor"
)

// The node types a shape edit may add (the palette) and the categories
// of a tree's types, for the page.

// registry is the registry that describes the program's node types: the
// built-ins' without Options.Registry.
func (s *Session) registry() *arbor.Registry {
	if s.opts.Registry != nil {
		return s.opts.Registry
	}
	return builtins
}

// docTypes returns the node types doc uses, each with whether a node of
// the type has children.
func docTypes(doc *arbor.Document) map[string]bool {
	types := map[string]bool{}
	seen := map[*arbor.Node]bool{}
	var walk func(n *arbor.Node)
	walk = func(n *arbor.Node) {
		if n == nil || seen[n] {
			return
		}
		seen[n] = true
		types[n.Type] = types[n.Type] || len(n.Children) > 0
		for _, k := range n.Children {
			walk(k)
		}
		walk(n.Guard)
	}
	for _, name := range doc.TreeNames() {
		walk(doc.Trees[name])
	}
	return types
}

// catName names a category in a sentence.
func catName(c arbor.Category) string {
	switch c {
	case arbor.CategoryControl:
		return "composite"
	case arbor.CategorySubTree:
		return "SubTree"
	}
	return c.String()
}

// paletteEntry is a node type the page offers to add or wrap with.
type paletteEntry struct {
	Type     string `json:"type"`
	Category string `json:"category"` // action, condition, decorator, control or subtree
}

// palette lists the node types a shape edit may add to a tree of document
// doc: the registry's (the built-ins and the program's, aliases left out)
// and those doc uses that the registry does not know (a program's
// stand-ins), by category, then name.
func palette(reg *arbor.Registry, doc *arbor.Document) []paletteEntry {
	var out []paletteEntry
	for _, name := range reg.Types() {
		if info, ok := reg.Describe(name); ok && info.Name == name {
			out = append(out, paletteEntry{Type: name, Category: info.Category.String()})
		}
	}
	if doc != nil {
		for typ, kids := range docTypes(doc) {
			if reg.Has(typ) {
				continue
			}
			c := "action"
			if kids {
				c = "control"
			}
			out = append(out, paletteEntry{Type: typ, Category: c})
		}
	}
	order := map[string]int{"action": 0, "condition": 1, "subtree": 2, "decorator": 3, "control": 4}
	sort.Slice(out, func(i, j int) bool {
		if a, b := order[out[i].Category], order[out[j].Category]; a != b {
			return a < b
		}
		return out[i].Type < out[j].Type
	})
	return out
}

// categories gives the category of each node type of tree d: the
// registry's (aliases included), else control for a type whose nodes
// have children (a program's stand-in), else action.
func categories(reg *arbor.Registry, d *treeDesc) map[string]string {
	out := map[string]string{}
	for i := range d.Nodes {
		n := &d.Nodes[i]
		if c := reg.Category(n.Type); c != arbor.CategoryNone {
			out[n.Type] = c.String()
		} else if len(n.Children) > 0 {
			out[n.Type] = "control"
		} else if out[n.Type] == "" {
			out[n.Type] = "action"
		}
	}
	return out
}
