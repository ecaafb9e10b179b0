package debug

import (
	"fmt"

	"github.com/arborbt/arbor"
)

// Node ids across an edit: the edited Document is a copy, and a node of
// the copy is the node of the original it was cloned from, wherever the
// edit put it. The ids of the old tree's nodes map to the new tree's by
// that identity (each use of a subtree on its own).

// cloneMap pairs the nodes of doc with those of its copy c (Clone keeps
// the shape): doc's node → c's.
func cloneMap(doc, c *arbor.Document) map[*arbor.Node]*arbor.Node {
	out := map[*arbor.Node]*arbor.Node{}
	var pair func(a, b *arbor.Node)
	pair = func(a, b *arbor.Node) {
		if a == nil || b == nil {
			return
		}
		if _, ok := out[a]; ok {
			return
		}
		out[a] = b
		for i := range min(len(a.Children), len(b.Children)) {
			pair(a.Children[i], b.Children[i])
		}
		pair(a.Guard, b.Guard)
	}
	for name, root := range doc.Trees {
		pair(root, c.Trees[name])
	}
	return out
}

// nodeKey is the identity of a compiled node: its definition and the
// SubTree nodes that led to it (a node of a subtree is compiled once per
// use), as a string.
type nodeKey struct {
	node *arbor.Node
	via  string // the SubTree nodes on the way, as pointers
}

// nodeKeys walks doc from its main tree main as Compile numbers its nodes
// and returns each compiled node's key by path, definitions translated by
// tr when given (an old document's nodes as its copy's). A definition
// reached twice in the same subtree use (a Go-built document may share a
// node) has no key.
func nodeKeys(doc *arbor.Document, main string, tr map[*arbor.Node]*arbor.Node) map[string]nodeKey {
	out := map[string]nodeKey{}
	seen := map[nodeKey]string{}
	id := func(n *arbor.Node) *arbor.Node {
		if tr != nil {
			if c, ok := tr[n]; ok {
				return c
			}
			return nil
		}
		return n
	}
	var walk func(n *arbor.Node, p, via string, depth int)
	walk = func(n *arbor.Node, p, via string, depth int) {
		if n == nil || depth > 10000 || len(out) > 1<<20 {
			return
		}
		if c := id(n); c != nil {
			k := nodeKey{c, via}
			if prev, dup := seen[k]; dup {
				delete(out, prev)
			} else {
				seen[k] = p
				out[p] = k
			}
		}
		if arbor.CanonicalType(n.Type) == "SubTree" {
			if name, ok := n.Params["tree"].(string); ok {
				walk(doc.Trees[name], p+">"+name, fmt.Sprintf("%s%p/", via, id(n)), depth+1)
			}
		}
		for i, k := range n.Children {
			walk(k, p+childStep(n, i), via, depth+1)
		}
		walk(n.Guard, p+".guard", via, depth+1)
	}
	walk(doc.Trees[main], main, "", 0)
	return out
}

// mapIDs maps the node ids of old (compiled from its Document) to those
// of nt (compiled from doc, an edited copy of it; same pairs old's
// document's nodes with doc's): a node keeps its place in the map when
// the edit kept its definition. Deleted nodes map to -1.
func mapIDs(old, nt *arbor.Tree, doc *arbor.Document, same map[*arbor.Node]*arbor.Node) []int {
	before := nodeKeys(old.Document(), old.Name(), same)
	after := map[nodeKey]string{}
	for p, k := range nodeKeys(doc, nt.Name(), nil) {
		after[k] = p
	}
	byPath := make(map[string]int, nt.Len())
	for j := 0; j < nt.Len(); j++ {
		byPath[nt.Node(j).Path] = j
	}
	ids := make([]int, old.Len())
	for i := range ids {
		ids[i] = -1
		k, ok := before[old.Node(i).Path]
		if !ok {
			continue
		}
		if p, ok := after[k]; ok {
			if j, ok := byPath[p]; ok {
				ids[i] = j
			}
		}
	}
	return ids
}
