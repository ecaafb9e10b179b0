package debug

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/internal/suggest"
)

// Editing a running tree's shape (Options.Recompile): a shape edit adds,
// inserts, deletes, moves, wraps or unwraps a node in a copy of the
// tree's Document, and goes the way of a parameter edit (edit.go): the
// program's Recompile compiles the copy, every agent running the old tree
// moves to the new one (Manager.Reload: running nodes halted once,
// blackboards kept). Node ids change with the shape: the agents' forces
// and breakpoints move to their nodes' new ids, found by the identity of
// the Document's nodes (the copy's node is the same node, wherever the
// edit put it), and are dropped with the nodes deleted.

// The shape operations.
const (
	opAdd    = "add"    // a new last (or index-th) child of the node
	opInsert = "insert" // a new sibling right after the node
	opDelete = "delete" // the node and its subtree
	opMove   = "move"   // among its siblings, by "by" places; or to another parent ("to")
	opWrap   = "wrap"   // in a new decorator (or composite)
	opUnwrap = "unwrap" // replace the node by its only child
	opGuard  = "guard"  // a new guard of the node, which has none
)

var shapeOps = []string{opAdd, opInsert, opDelete, opMove, opWrap, opUnwrap, opGuard}

// shapeRequest is the body of POST api/trees/{tid}/shape.
type shapeRequest struct {
	Op   string   `json:"op"`
	Path string   `json:"path"` // the node's path, as the tree's description names it
	Node *newNode `json:"node"` // add, insert, wrap, guard: the new node
	// Index, for add and a move to another parent: the child's place
	// among the children (0 the first; for a move, among the children
	// the parent has once the node left its place); absent: the last.
	Index *int `json:"index"`
	By    int  `json:"by"` // move: -1 up (before the previous sibling), 1 down
	// To, for move instead of by: the path of the composite the node
	// becomes a child of (its parent now, or another).
	To string `json:"to"`
}

// newNode is the node a shape edit adds.
type newNode struct {
	Type   string                     `json:"type"`
	Name   string                     `json:"name"`
	Params map[string]json.RawMessage `json:"params"`
}

// shapeTree applies a shape edit to a tree and reloads the agents running
// it.
func (h *handler) shapeTree(w http.ResponseWriter, r *http.Request) {
	tid, ok := h.editable(w, r)
	if !ok {
		return
	}
	var req shapeRequest
	if !h.decodeJSON(w, r, &req) {
		return
	}
	if !slices.Contains(shapeOps, req.Op) {
		h.fail(w, http.StatusBadRequest, "bad op %q: want one of %s", truncate(req.Op, 40), strings.Join(shapeOps, ", "))
		return
	}
	if req.Path == "" || len(req.Path) > 10000 {
		h.fail(w, http.StatusBadRequest, `bad body: want {"op": %q, "path": "…"} (the node's path, as api/trees/{tid} gives it)`, req.Op)
		return
	}
	var params map[string]any
	switch req.Op {
	case opAdd, opInsert, opWrap, opGuard:
		if req.Node == nil || req.Node.Type == "" {
			h.fail(w, http.StatusBadRequest, `bad body: %s wants the new node, "node": {"type": "…", "name": "…", "params": {…}}`, req.Op)
			return
		}
		if len(req.Node.Type) > 100 || len(req.Node.Name) > 200 {
			h.fail(w, http.StatusBadRequest, "bad node: a type of at most 100 bytes, a name of at most 200")
			return
		}
		var err error
		if params, err = readParams(req.Node.Params); err != nil {
			h.fail(w, http.StatusBadRequest, "%v", err)
			return
		}
	default:
		if req.Node != nil {
			h.fail(w, http.StatusBadRequest, "bad body: %s takes no node", req.Op)
			return
		}
	}
	moveTo := req.Op == opMove && req.To != ""
	if req.Index != nil && req.Op != opAdd && !moveTo {
		h.fail(w, http.StatusBadRequest, "bad body: index is for add, and for move with to")
		return
	}
	switch {
	case moveTo && req.By != 0:
		h.fail(w, http.StatusBadRequest, `bad body: move takes "by" (among siblings) or "to" (another parent), not both`)
		return
	case moveTo && len(req.To) > 10000:
		h.fail(w, http.StatusBadRequest, "bad body: to is a path of at most 10000 bytes")
		return
	case req.Op == opMove && !moveTo && req.By != -1 && req.By != 1:
		h.fail(w, http.StatusBadRequest, `bad body: move wants "by": -1 (up) or 1 (down), or "to": the path of its new parent`)
		return
	case req.Op != opMove && req.By != 0:
		h.fail(w, http.StatusBadRequest, "bad body: by is for move")
		return
	case req.Op != opMove && req.To != "":
		h.fail(w, http.StatusBadRequest, "bad body: to is for move")
		return
	}
	s := h.s
	s.mu.Lock()
	ans, herr := s.shapeLocked(tid, &req, params)
	s.mu.Unlock()
	h.answerEdit(w, ans, herr, req.Op, req.Path)
}

// readParams decodes a new node's parameters (null: left out).
func readParams(raw map[string]json.RawMessage) (map[string]any, error) {
	var out map[string]any
	for k, v := range raw {
		switch {
		case k == "" || len(k) > 100:
			return nil, fmt.Errorf("bad parameter name %q: want 1 to 100 bytes", truncate(k, 40))
		case reservedParams[k]:
			return nil, fmt.Errorf("%q is not a parameter (the node's name is \"name\"; a new node has no children, guard or abort)", k)
		}
		var x any
		if err := json.Unmarshal(v, &x); err != nil {
			return nil, fmt.Errorf("bad value of %q: %v", k, err)
		}
		if x == nil {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[k] = x
	}
	return out, nil
}

// nodeAt returns the id of the node at path in td, or -1.
func nodeAt(td *treeDesc, p string) int {
	for i := range td.Nodes {
		if td.Nodes[i].Path == p {
			return i
		}
	}
	return -1
}

// shapeLocked applies a shape edit to tree tid.
func (s *Session) shapeLocked(tid int, req *shapeRequest, params map[string]any) (*editAnswer, *editError) {
	td, agents, herr := s.editTarget(tid)
	if herr != nil {
		return nil, herr
	}
	old := td.tree
	node := nodeAt(td, req.Path)
	if node < 0 {
		return nil, editFail(http.StatusBadRequest, "no node at path %q in tree %d (%s)", truncate(req.Path, 200), tid, td.Name)
	}
	label := td.Nodes[node].Label
	doc := old.Document().Clone()
	same := cloneMap(old.Document(), doc)
	sl := findSlot(doc, old.Name(), req.Path)
	if sl == nil {
		return nil, editFail(http.StatusBadRequest, "node %q is not in the tree's document", truncate(req.Path, 200))
	}
	reg := s.registry()
	var made *arbor.Node // the node to select in the new tree
	var what string
	switch req.Op {
	case opAdd, opInsert, opWrap, opGuard:
		if req.Op == opGuard && sl.node.Guard != nil {
			return nil, editFail(http.StatusBadRequest, "%s has a guard already (%s): delete it first, or wrap it (in an Inverter, a Sequence...)", label, sl.node.Guard.Type)
		}
		n, herr := makeNode(reg, doc, req.Node, params, req.Op)
		if herr != nil {
			return nil, herr
		}
		made = n
		switch req.Op {
		case opAdd:
			herr = addChild(reg, sl.node, n, req.Index)
			what = "add " + n.Type + " to " + label
		case opInsert:
			herr = insertAfter(reg, sl, n)
			what = "insert " + n.Type + " after " + label
		case opWrap:
			n.Children = []*arbor.Node{sl.node}
			n.SingleChild = reg.Category(n.Type) == arbor.CategoryDecorator
			sl.set(doc, n)
			what = "wrap " + label + " in " + n.Type
		case opGuard:
			// The compile refuses what cannot be a guard (an action), and
			// a guard on a node that takes none.
			sl.node.Guard = n
			what = "guard " + label + " with " + n.Type
		}
		if herr != nil {
			return nil, herr
		}
	case opDelete:
		next, herr := deleteNode(sl)
		if herr != nil {
			return nil, herr
		}
		made, what = next, "delete "+label
	case opMove:
		if req.To != "" {
			p, herr := moveInto(reg, doc, old.Name(), sl, req.To, req.Index)
			if herr != nil {
				return nil, herr
			}
			made, what = sl.node, "move "+label+" into "+nodeLabel(td, req.To, p)+place(p, sl.node)
			break
		}
		if herr := moveNode(sl, req.By); herr != nil {
			return nil, herr
		}
		dir := "down"
		if req.By < 0 {
			dir = "up"
		}
		made, what = sl.node, "move "+label+" "+dir
	case opUnwrap:
		n := sl.node
		switch {
		case arbor.CanonicalType(n.Type) == "SubTree":
			return nil, editFail(http.StatusBadRequest, "%s is a SubTree: its child is the tree it runs (delete the SubTree, or edit that tree)", label)
		case len(n.Children) != 1:
			return nil, editFail(http.StatusBadRequest, "%s has %d children: only a node with one child can be unwrapped (replaced by its child)", label, len(n.Children))
		case n.Guard != nil:
			return nil, editFail(http.StatusBadRequest, "%s has a guard, which unwrapping would lose: delete the guard first", label)
		}
		sl.set(doc, n.Children[0])
		made, what = n.Children[0], "unwrap "+label
	}
	ans, herr := s.applyLocked(td, agents, doc, func(nt *arbor.Tree) []int { return mapIDs(old, nt, doc, same) },
		func(ids []int, nt *arbor.Tree) *undoEntry {
			return &undoEntry{doc: old.Document(), back: invert(ids, nt.Len()), n: old.Len(), what: what}
		})
	if herr != nil {
		return nil, herr
	}
	ans.Op = req.Op
	ans.Node, ans.Path = -1, ""
	if made != nil {
		// The node to select: the first compiled node of the definition
		// made (or moved, or left in place).
		ntd := s.treeList[ans.Tree]
		keys := nodeKeys(doc, ntd.tree.Name(), nil)
		for i := range ntd.Nodes {
			if k, ok := keys[ntd.Nodes[i].Path]; ok && k.node == made {
				ans.Node, ans.Path = i, ntd.Nodes[i].Path
				break
			}
		}
	}
	return ans, nil
}

// makeNode makes the node an add, insert, wrap or guard adds: a type the
// registry knows (or the document uses already: a program's stand-in),
// with its required parameters; a new node of add or insert is a leaf
// (a composite or decorator needs children: add a leaf, then wrap it),
// the node of a wrap a decorator or a composite, a new guard a condition
// (wrapped afterwards in an Inverter or a composite as need be).
func makeNode(reg *arbor.Registry, doc *arbor.Document, nn *newNode, params map[string]any, op string) (*arbor.Node, *editError) {
	typ := nn.Type
	cat := reg.Category(typ)
	if cat == arbor.CategoryNone {
		used, ok := docTypes(doc)[typ]
		if !ok {
			msg := fmt.Sprintf("unknown node type %q", truncate(typ, 100))
			if near := suggest.Closest(typ, reg.Types()); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			return nil, editFail(http.StatusBadRequest, "%s: want a built-in type or one of the program's", msg)
		}
		cat = arbor.CategoryAction
		if used {
			cat = arbor.CategoryControl // a program's stand-in for a composite
		}
	}
	switch op {
	case opGuard:
		if cat != arbor.CategoryCondition {
			return nil, editFail(http.StatusBadRequest, "%s is not a condition (%s): a guard is a condition (Check, Success, Failure or the program's)", typ, catName(cat))
		}
	case opWrap:
		if cat != arbor.CategoryDecorator && cat != arbor.CategoryControl {
			return nil, editFail(http.StatusBadRequest, "%s is not a decorator nor a composite (%s): wrap in a decorator (Inverter, ForceSuccess, Repeat, Timeout…) or a composite", typ, cat)
		}
	default:
		if cat == arbor.CategoryDecorator || cat == arbor.CategoryControl {
			return nil, editFail(http.StatusBadRequest, "%s is a %s: it needs children, and a new node has none (%s a leaf, then wrap it in a %s)", typ, catName(cat), op, typ)
		}
	}
	n := &arbor.Node{Type: typ, Name: nn.Name, Params: params}
	if info, ok := reg.Describe(typ); ok {
		var missing []string
		for _, p := range info.Params {
			if _, set := n.Params[p.Name]; p.Required && !set {
				missing = append(missing, p.Name)
			}
		}
		if len(missing) > 0 {
			return nil, &editError{code: http.StatusBadRequest, body: map[string]any{
				"error": fmt.Sprintf("%s needs %s: give %s", typ, strings.Join(missing, " and "), plural(len(missing), "it", "them")),
				"param": missing[0]}}
		}
	}
	return n, nil
}

// plural returns one for n == 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// takesChildren says whether node n (of the registry's type, or of a type
// it does not know) takes more children, and why not.
func takesChildren(reg *arbor.Registry, n *arbor.Node) error {
	label := n.Type
	if n.Name != "" {
		label = n.Name + " (" + n.Type + ")"
	}
	switch reg.Category(n.Type) {
	case arbor.CategoryControl:
		return nil
	case arbor.CategoryDecorator:
		return fmt.Errorf("%s is a decorator: it takes exactly one child, and has it (wrap the child in a composite to give it siblings)", label)
	case arbor.CategorySubTree:
		return fmt.Errorf("%s is a SubTree: its child is the tree it runs (edit that tree)", label)
	case arbor.CategoryAction, arbor.CategoryCondition:
		return fmt.Errorf("%s is a leaf: it takes no children (insert a sibling after it, or wrap it in a composite)", label)
	}
	if len(n.Children) > 0 {
		return nil // a program's stand-in for a composite
	}
	return fmt.Errorf("%s is a type the debugger cannot describe: it cannot tell whether it takes children", label)
}

// addChild adds n to p's children, at index (nil: last).
func addChild(reg *arbor.Registry, p, n *arbor.Node, index *int) *editError {
	if err := takesChildren(reg, p); err != nil {
		return editFail(http.StatusBadRequest, "%v", err)
	}
	at := len(p.Children)
	if index != nil {
		if *index < 0 || *index > len(p.Children) {
			return editFail(http.StatusBadRequest, "bad index %d: want 0 to %d (the number of children)", *index, len(p.Children))
		}
		at = *index
	}
	p.Children = slices.Insert(p.Children, at, n)
	return nil
}

// insertAfter inserts n after the node of sl, among its siblings.
func insertAfter(reg *arbor.Registry, sl *slot, n *arbor.Node) *editError {
	if herr := sl.sibling("insert a sibling after"); herr != nil {
		return herr
	}
	if err := takesChildren(reg, sl.parent); err != nil {
		return editFail(http.StatusBadRequest, "cannot insert a sibling: %v", err)
	}
	sl.parent.Children = slices.Insert(sl.parent.Children, sl.index+1, n)
	return nil
}

// deleteNode deletes the node of sl with its subtree, and returns the
// node to select then: the sibling that takes its place, else the one
// before, else the parent (or the node a deleted guard guarded).
func deleteNode(sl *slot) (*arbor.Node, *editError) {
	switch {
	case sl.tree != "":
		return nil, editFail(http.StatusBadRequest, "%s is the root of tree %s: a root cannot be deleted (delete the SubTree that runs it, or wrap or unwrap the root)", label(sl.node), sl.tree)
	case sl.guard:
		sl.parent.Guard = nil
		return sl.parent, nil
	}
	p := sl.parent
	if len(p.Children) == 1 {
		return nil, editFail(http.StatusBadRequest, "%s is the only child of %s, which needs one: delete %s, or unwrap it", label(sl.node), label(p), label(p))
	}
	p.Children = slices.Delete(p.Children, sl.index, sl.index+1)
	if sl.index < len(p.Children) {
		return p.Children[sl.index], nil
	}
	return p.Children[sl.index-1], nil
}

// moveNode moves the node of sl among its siblings: before the previous
// one (by -1) or after the next one (by 1).
func moveNode(sl *slot, by int) *editError {
	if herr := sl.sibling("move"); herr != nil {
		return herr
	}
	kids := sl.parent.Children
	to := sl.index + by
	switch {
	case len(kids) == 1:
		return editFail(http.StatusBadRequest, "%s has no siblings to move among", label(sl.node))
	case to < 0:
		return editFail(http.StatusBadRequest, "%s is the first child of %s already", label(sl.node), label(sl.parent))
	case to >= len(kids):
		return editFail(http.StatusBadRequest, "%s is the last child of %s already", label(sl.node), label(sl.parent))
	}
	n := kids[sl.index]
	kids = slices.Delete(kids, sl.index, sl.index+1)
	sl.parent.Children = slices.Insert(kids, to, n)
	return nil
}

// moveInto moves the node of sl (a child: not a root nor a guard) to the
// composite at path to, at index among the children it has then (nil: the
// last), and returns that composite. The node leaves a parent that needs
// it alone (a decorator's child, a composite's only one) where it is, and
// cannot go into itself.
func moveInto(reg *arbor.Registry, doc *arbor.Document, main string, sl *slot, to string, index *int) (*arbor.Node, *editError) {
	if herr := sl.sibling("move"); herr != nil {
		return nil, herr
	}
	dst := findSlot(doc, main, to)
	if dst == nil {
		return nil, editFail(http.StatusBadRequest, "no node at path %q to move %s into", truncate(to, 200), label(sl.node))
	}
	p := dst.node
	if within(sl.node, p) {
		return nil, editFail(http.StatusBadRequest, "%s is %s or in it: a node cannot move into itself", label(p), label(sl.node))
	}
	if err := takesChildren(reg, p); err != nil {
		return nil, editFail(http.StatusBadRequest, "cannot move %s there: %v", label(sl.node), err)
	}
	if len(sl.parent.Children) == 1 && sl.parent != p {
		return nil, editFail(http.StatusBadRequest, "%s is the only child of %s, which needs one: move another node in first, or unwrap %s", label(sl.node), label(sl.parent), label(sl.parent))
	}
	kids := sl.parent.Children
	sl.parent.Children = slices.Delete(slices.Clone(kids), sl.index, sl.index+1)
	if herr := addChild(reg, p, sl.node, index); herr != nil {
		sl.parent.Children = kids
		return nil, herr
	}
	return p, nil
}

// within reports whether x is n or a node of n's subtree (its children
// and guards, not the trees its SubTrees run).
func within(n, x *arbor.Node) bool {
	if n == nil {
		return false
	}
	if n == x || within(n.Guard, x) {
		return true
	}
	for _, k := range n.Children {
		if within(k, x) {
			return true
		}
	}
	return false
}

// nodeLabel names the node at path p of td for an edit's description
// (the page's label), else the document node n.
func nodeLabel(td *treeDesc, p string, n *arbor.Node) string {
	if i := nodeAt(td, p); i >= 0 {
		return td.Nodes[i].Label
	}
	return label(n)
}

// place says where child n is among p's children, for a message, in
// the words of the Move to… form's places: ", first" or ", after X" (""
// for an only child), so that a move within its own parent says what it
// did.
func place(p, n *arbor.Node) string {
	switch i := slices.Index(p.Children, n); {
	case i < 0 || len(p.Children) == 1:
		return ""
	case i == 0:
		return ", first"
	default:
		return ", after " + label(p.Children[i-1])
	}
}

// label names a document node in a message: its name and type.
func label(n *arbor.Node) string {
	if n.Name != "" {
		return fmt.Sprintf("%q (%s)", n.Name, n.Type)
	}
	return n.Type
}

// slot is where a node of a document is: a tree's root, a node's guard or
// a child.
type slot struct {
	node   *arbor.Node
	tree   string      // the tree it is the root of ("": not a root)
	parent *arbor.Node // the node it is a child or the guard of
	index  int         // its index among parent's children
	guard  bool        // it is parent's guard
}

// set puts n in the slot, in place of its node.
func (sl *slot) set(doc *arbor.Document, n *arbor.Node) {
	switch {
	case sl.tree != "":
		doc.Trees[sl.tree] = n
	case sl.guard:
		sl.parent.Guard = n
	default:
		sl.parent.Children[sl.index] = n
	}
	sl.node = n
}

// sibling refuses an operation on siblings (doing) of a root or a guard.
func (sl *slot) sibling(doing string) *editError {
	switch {
	case sl.tree != "":
		return editFail(http.StatusBadRequest, "%s is the root of tree %s: a root has no siblings to %s", label(sl.node), sl.tree, strings.TrimSuffix(doing, " a sibling after"))
	case sl.guard:
		return editFail(http.StatusBadRequest, "%s is the guard of %s: a guard has no siblings (cannot %s it)", label(sl.node), label(sl.parent), doing)
	}
	return nil
}

// findSlot returns where the node at path is in doc, whose main tree is
// main (findDef's walk); nil when there is none.
func findSlot(doc *arbor.Document, main, target string) *slot {
	if doc == nil {
		return nil
	}
	under := func(p string) bool {
		if !strings.HasPrefix(target, p) {
			return false
		}
		rest := target[len(p):]
		return rest == "" || rest[0] == '.' || rest[0] == '>'
	}
	var find func(sl slot, p string, depth int) *slot
	find = func(sl slot, p string, depth int) *slot {
		n := sl.node
		if n == nil || depth > 10000 || !under(p) {
			return nil
		}
		if p == target {
			return &sl
		}
		if arbor.CanonicalType(n.Type) == "SubTree" {
			if name, ok := n.Params["tree"].(string); ok {
				if f := find(slot{node: doc.Trees[name], tree: name}, p+">"+name, depth+1); f != nil {
					return f
				}
			}
		}
		for i, k := range n.Children {
			if f := find(slot{node: k, parent: n, index: i}, p+childStep(n, i), depth+1); f != nil {
				return f
			}
		}
		return find(slot{node: n.Guard, parent: n, guard: true}, p+".guard", depth+1)
	}
	return find(slot{node: doc.Trees[main], tree: main}, main, 0)
}

// childStep is the path step to child i of n, as Compile spells it.
func childStep(n *arbor.Node, i int) string {
	if n.SingleChild && len(n.Children) == 1 {
		return ".child"
	}
	return ".children[" + strconv.Itoa(i) + "]"
}
