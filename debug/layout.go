package debug

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/arborbt/arbor"
)

// Layout constants, in SVG user units.
const (
	nodeH    = 40.0
	levelGap = 70.0
	siblingG = 16.0
	minNodeW = 70.0
	maxNodeW = 230.0
	charW    = 6.6
)

// treeDesc describes a compiled tree for the page: its nodes with
// positions from a tidy-tree layout. Guard trees are drawn as an extra
// first child of the node they guard, with a dashed edge.
type treeDesc struct {
	ID     int        `json:"id"`
	Name   string     `json:"name"`
	Nodes  []nodeDesc `json:"nodes"`
	Width  float64    `json:"width"`
	Height float64    `json:"height"`
	// Source is where the tree came from (Options.TreeSource), if known.
	Source *treeSource `json:"source,omitempty"`

	tree *arbor.Tree // nil in a recording
	// types describes the tree's node types for the edit form (only when
	// the page may edit): api/trees/{tid} sends them, an export does not.
	types map[string]*typeDesc
	// palette lists the node types a shape edit may add (only when the
	// page may edit).
	palette []paletteEntry
	// categories gives the category of each node type of the tree (only
	// when the page may edit): what a shape edit may do to its nodes.
	categories map[string]string

	parent  []int32 // tree parent (-1 for roots; guard roots included)
	end     []int32 // one past the last node of each node's subtree (pre-order)
	inGuard []bool
}

// nodeDesc is one node as the page draws it.
type nodeDesc struct {
	ID       int    `json:"id"`
	Type     string `json:"type"`
	Name     string `json:"name,omitempty"`
	Path     string `json:"path"`
	Parent   int    `json:"parent"`
	Children []int  `json:"children"`
	Guard    int    `json:"guard"`
	GuardOf  int    `json:"guardOf"`
	InGuard  bool   `json:"inGuard,omitempty"`
	// SubtreeRoot: the root of an inlined subtree (its parent is the
	// SubTree node); InSubtree: the node is in one (an edit changes every
	// use of that tree). Sent rather than read from the path by the page:
	// a tree's name may contain the path's separators.
	SubtreeRoot bool           `json:"subtreeRoot,omitempty"`
	InSubtree   bool           `json:"inSubtree,omitempty"`
	Abort       string         `json:"abort,omitempty"`
	Abortable   bool           `json:"abortable,omitempty"` // its type takes an abort mode (the edit form offers it)
	Params      map[string]any `json:"params,omitempty"`
	Label       string         `json:"label"`
	Sub         string         `json:"sub,omitempty"` // type (when named) and key parameters
	X           float64        `json:"x"`             // centre
	Y           float64        `json:"y"`             // top
	W           float64        `json:"w"`
	// Condition: a condition (Check, Success, Failure or the program's),
	// which can be forced to success or failure only.
	Condition bool `json:"condition,omitempty"`
}

// contains reports whether node x is in the subtree of a.
func (d *treeDesc) contains(a, x int32) bool { return x >= a && x < d.end[a] }

// describeTree builds the description of t.
func describeTree(t *arbor.Tree, id int) *treeDesc {
	n := t.Len()
	d := &treeDesc{ID: id, Name: t.Name(), Nodes: make([]nodeDesc, n), parent: make([]int32, n),
		end: make([]int32, n), inGuard: make([]bool, n)}
	for i := 0; i < n; i++ {
		info := t.Node(i)
		nd := nodeDesc{ID: i, Type: info.Type, Name: info.Name, Path: info.Path, Parent: info.Parent,
			Children: info.Children, Guard: info.Guard, GuardOf: info.GuardOf, Params: jsonSafe(info.Params),
			Label: info.Label(), Sub: subtitle(info), Condition: info.Condition}
		if nd.Children == nil {
			nd.Children = []int{}
		}
		if info.Abort != arbor.AbortNone {
			nd.Abort = info.Abort.String()
		}
		if ti, ok := builtins.Describe(info.Type); ok {
			nd.Abortable = ti.Abort
		}
		d.Nodes[i] = nd
		d.parent[i] = int32(info.Parent)
	}
	// Subtree ends (pre-order: a subtree is a contiguous range) and guard
	// membership.
	for i := n - 1; i >= 0; i-- {
		e := int32(i + 1)
		if k := d.Nodes[i].Children; len(k) > 0 {
			e = max(e, d.end[k[len(k)-1]])
		}
		d.end[i] = e
	}
	// Subtree membership, in pre-order (a parent, or a guard's node,
	// comes first).
	for i := 0; i < n; i++ {
		nd := &d.Nodes[i]
		switch {
		case nd.Parent >= 0:
			p := &d.Nodes[nd.Parent]
			nd.SubtreeRoot = arbor.CanonicalType(p.Type) == "SubTree"
			nd.InSubtree = p.InSubtree || nd.SubtreeRoot
		case nd.GuardOf >= 0:
			nd.InSubtree = d.Nodes[nd.GuardOf].InSubtree
		}
	}
	for i := 0; i < n; i++ {
		if d.Nodes[i].GuardOf >= 0 {
			for j := i; j < int(d.end[i]); j++ {
				d.inGuard[j] = true
				d.Nodes[j].InGuard = true
			}
		}
	}
	d.layout()
	return d
}

// subtitle summarizes a node's type and key parameters.
func subtitle(info arbor.NodeInfo) string {
	var parts []string
	if info.Name != "" {
		parts = append(parts, info.Type)
	}
	p := info.Params
	switch info.Type {
	case "Check":
		parts = append(parts, strings.TrimSpace(fmt.Sprintf("%v %v %v", show(p["key"]), show(p["op"]), show(p["value"]))))
	case "Set":
		parts = append(parts, fmt.Sprintf("%v = %v", show(p["key"]), show(p["value"])))
	case "SubTree":
		parts = append(parts, fmt.Sprintf("→ %v", show(p["tree"])))
	default:
		keys := make([]string, 0, len(p))
		for k := range p {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf("%s=%v", k, show(p[k])))
		}
	}
	return truncate(strings.Join(parts, " "), 48)
}

// show formats a parameter value compactly.
func show(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return fmt.Sprint(x)
	}
	return fmt.Sprint(v)
}

// jsonSafe converts parameter values to what encoding/json can encode:
// JSON-like values pass, anything else becomes its printed form.
func jsonSafe(p map[string]any) map[string]any {
	if len(p) == 0 {
		return nil
	}
	out := make(map[string]any, len(p))
	for k, v := range p {
		out[k] = safeValue(v, 0)
	}
	return out
}

func safeValue(v any, depth int) any {
	if depth > 16 {
		return "…"
	}
	switch x := v.(type) {
	case nil, bool, string:
		return x
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return fmt.Sprint(x)
		}
		return x
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32:
		return x
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = safeValue(e, depth+1)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = safeValue(e, depth+1)
		}
		return out
	}
	return fmt.Sprint(v)
}

// kids returns the children a node is drawn with: its guard first.
func (d *treeDesc) kids(i int) []int {
	nd := &d.Nodes[i]
	if nd.Guard < 0 {
		return nd.Children
	}
	return append([]int{nd.Guard}, nd.Children...)
}

// extent is a subtree's horizontal extent at one depth, relative to the
// subtree root's centre.
type extent struct{ l, r float64 }

// layout places the nodes: a tidy tree in which each subtree is drawn
// apart, children as close as their subtrees' contours allow, and each
// parent centred over its first and last child.
func (d *treeDesc) layout() {
	n := len(d.Nodes)
	if n == 0 {
		return
	}
	for i := range d.Nodes {
		nd := &d.Nodes[i]
		label := len([]rune(nd.Label)) + 3
		if nd.Abort != "" {
			label += len([]rune(nd.Abort)) + 2 // the mark "⤴lower" beside the label
		}
		chars := max(label, len([]rune(nd.Sub)))
		nd.W = math.Min(maxNodeW, math.Max(minNodeW, float64(chars)*charW+20))
	}
	offset := make([]float64, n) // centre relative to the parent's centre
	// contour computes the subtree of i iteratively in post-order (trees
	// may be deep), keeping the children's offsets.
	contours := make([][]extent, n)
	type frame struct {
		node int
		next int
	}
	stack := []frame{{node: 0}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		kids := d.kids(f.node)
		if f.next < len(kids) {
			c := kids[f.next]
			f.next++
			stack = append(stack, frame{node: c})
			continue
		}
		stack = stack[:len(stack)-1]
		i := f.node
		half := d.Nodes[i].W / 2
		own := []extent{{-half, half}}
		if len(kids) == 0 {
			contours[i] = own
			continue
		}
		// Place the children left to right.
		var merged []extent
		for k, c := range kids {
			cc := contours[c]
			x := 0.0
			if k > 0 {
				x = math.Inf(-1)
				for lvl := 0; lvl < len(cc) && lvl < len(merged); lvl++ {
					x = math.Max(x, merged[lvl].r+siblingG-cc[lvl].l)
				}
			}
			offset[c] = x
			for lvl, e := range cc {
				e = extent{e.l + x, e.r + x}
				if lvl < len(merged) {
					merged[lvl].l = math.Min(merged[lvl].l, e.l)
					merged[lvl].r = math.Max(merged[lvl].r, e.r)
				} else {
					merged = append(merged, e)
				}
			}
			contours[c] = nil
		}
		centre := (offset[kids[0]] + offset[kids[len(kids)-1]]) / 2
		for _, c := range kids {
			offset[c] -= centre
		}
		for lvl := range merged {
			merged[lvl].l -= centre
			merged[lvl].r -= centre
		}
		contours[i] = append(own, merged...)
	}
	// Absolute positions, pre-order.
	rootC := contours[0]
	left := 0.0
	for _, e := range rootC {
		left = math.Min(left, e.l)
	}
	type item struct {
		node  int
		x     float64
		depth int
	}
	todo := []item{{0, -left + 10, 0}}
	var width, height float64
	for len(todo) > 0 {
		it := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		nd := &d.Nodes[it.node]
		nd.X = it.x
		nd.Y = float64(it.depth)*levelGap + 10
		width = math.Max(width, nd.X+nd.W/2+10)
		height = math.Max(height, nd.Y+nodeH+10)
		for _, c := range d.kids(it.node) {
			todo = append(todo, item{c, it.x + offset[c], it.depth + 1})
		}
	}
	d.Width, d.Height = width, height
}
