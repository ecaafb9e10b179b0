package debug

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
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
//
// Every edit, of parameters or of shape, is undoable: the session keeps,
// per tree an edit made, the Documents it was made from (up to
// maxUndo), and POST api/trees/{tid}/undo compiles the last one again.

// maxUndo is how many edits of a tree can be undone.
const maxUndo = 50

// undoEntry is one edit that can be undone: the document before it and
// how node ids go back.
type undoEntry struct {
	doc *arbor.Document // the tree's document before the edit (shared: never changed)
	// back maps the edited tree's node ids to those of doc's tree (-1:
	// a node the edit added); nil: the same ids (a parameter edit).
	back []int
	n    int    // the number of nodes of doc's tree
	what string // what the edit did ("delete Wait"), for the page
}

// undoInfo is what api/trees/{tid} says of a tree's undo stack.
type undoInfo struct {
	Count int    `json:"count"` // edits that can be undone, the last first
	Last  string `json:"last"`  // what the last one did
}

// undoOf describes tree t's undo stack; nil when it is empty.
func (s *Session) undoOf(t *arbor.Tree) *undoInfo {
	st := s.undo[t]
	if len(st) == 0 {
		return nil
	}
	return &undoInfo{Count: len(st), Last: st[len(st)-1].what}
}

// pushUndo returns the stack of old with e on top (a copy: old's is
// kept as it is), at most maxUndo long.
func pushUndo(stack []*undoEntry, e *undoEntry) []*undoEntry {
	out := make([]*undoEntry, 0, min(len(stack)+1, maxUndo))
	if len(stack) >= maxUndo {
		stack = stack[len(stack)-maxUndo+1:]
	}
	out = append(out, stack...)
	return append(out, e)
}

// The shape operations.
const (
	opAdd    = "add"    // a new last (or index-th) child of the node
	opInsert = "insert" // a new sibling right after the node
	opDelete = "delete" // the node and its subtree
	opMove   = "move"   // among its siblings, by "by" places
	opWrap   = "wrap"   // in a new decorator (or composite)
	opUnwrap = "unwrap" // replace the node by its only child
)

var shapeOps = []string{opAdd, opInsert, opDelete, opMove, opWrap, opUnwrap}

// shapeRequest is the body of POST api/trees/{tid}/shape.
type shapeRequest struct {
	Op   string   `json:"op"`
	Path string   `json:"path"` // the node's path, as the tree's description names it
	Node *newNode `json:"node"` // add, insert, wrap: the new node
	// Index, for add: the new child's place among the children (0 the
	// first); absent: the last.
	Index *int `json:"index"`
	By    int  `json:"by"` // move: -1 up (before the previous sibling), 1 down
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
	case opAdd, opInsert, opWrap:
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
	if req.Index != nil && req.Op != opAdd {
		h.fail(w, http.StatusBadRequest, "bad body: index is for add")
		return
	}
	if req.Op == opMove && req.By != -1 && req.By != 1 {
		h.fail(w, http.StatusBadRequest, `bad body: move wants "by": -1 (up) or 1 (down)`)
		return
	}
	if req.Op != opMove && req.By != 0 {
		h.fail(w, http.StatusBadRequest, "bad body: by is for move")
		return
	}
	s := h.s
	s.mu.Lock()
	ans, herr := s.shapeLocked(tid, &req, params)
	s.mu.Unlock()
	h.answerEdit(w, ans, herr, req.Op, req.Path)
}

// undoTree undoes the last edit of a tree.
func (h *handler) undoTree(w http.ResponseWriter, r *http.Request) {
	tid, ok := h.editable(w, r)
	if !ok {
		return
	}
	if r.ContentLength != 0 {
		var empty struct{}
		if !h.decodeJSON(w, r, &empty) {
			return
		}
	}
	s := h.s
	s.mu.Lock()
	ans, herr := s.undoLocked(tid)
	s.mu.Unlock()
	h.answerEdit(w, ans, herr, "undo", "")
}

// editable checks a request that edits a tree (the token, Recompile) and
// reads its tree id.
func (h *handler) editable(w http.ResponseWriter, r *http.Request) (int, bool) {
	if !h.authorize(w, r) {
		return 0, false
	}
	if h.s.opts.Recompile == nil {
		h.fail(w, http.StatusForbidden, "editing is off: the program gives the debugger no way to compile trees (Options.Recompile)")
		return 0, false
	}
	return h.treeID(w, r)
}

// answerEdit writes the answer of an edit, and tells the pages.
func (h *handler) answerEdit(w http.ResponseWriter, ans *editAnswer, herr *editError, op, nodePath string) {
	if herr != nil {
		h.writeJSON(w, herr.code, herr.body)
		return
	}
	if !ans.Unchanged {
		h.s.wake() // the pages show the agents on the new tree now
		h.s.log.Info("arbor debug: control", "op", op, "tree", ans.TreeName, "node", nodePath, "agents", ans.Agents)
	}
	h.writeJSON(w, http.StatusOK, ans)
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

// editTarget is the tree an edit applies to: its description, the agents
// running it, and its document.
func (s *Session) editTarget(tid int) (*treeDesc, []*arbor.Agent, *editError) {
	if tid >= len(s.treeList) || s.treeList[tid].tree == nil {
		return nil, nil, editFail(http.StatusNotFound, "no tree %d", tid)
	}
	td := s.treeList[tid]
	var agents []*arbor.Agent
	for _, a := range s.m.Agents() {
		if a.Tree() == td.tree {
			agents = append(agents, a)
		}
	}
	if len(agents) == 0 {
		return nil, nil, editFail(http.StatusConflict, "tree %d (%s) no longer runs: an edit or a reload replaced it; edit the tree the agent runs now", tid, td.Name)
	}
	if td.tree.Document() == nil {
		return nil, nil, editFail(http.StatusConflict, "tree %d (%s) has no document to edit", tid, td.Name)
	}
	return td, agents, nil
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
	case opAdd, opInsert, opWrap:
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

// invert returns the inverse of ids (old → new) over n new ids: new → old,
// -1 for a new id no old one maps to.
func invert(ids []int, n int) []int {
	back := make([]int, n)
	for j := range back {
		back[j] = -1
	}
	for i, j := range ids {
		if j >= 0 && j < n {
			back[j] = i
		}
	}
	return back
}

// undoLocked undoes the last edit of tree tid: it compiles the document
// the edit was made from again, and moves the agents there.
func (s *Session) undoLocked(tid int) (*editAnswer, *editError) {
	td, agents, herr := s.editTarget(tid)
	if herr != nil {
		return nil, herr
	}
	old := td.tree
	stack := s.undo[old]
	if len(stack) == 0 {
		return nil, editFail(http.StatusConflict, "nothing to undo: tree %d (%s) was not made by an edit in the debugger (a reload from a file starts afresh)", tid, td.Name)
	}
	e := stack[len(stack)-1]
	rest := slices.Clone(stack[:len(stack)-1])
	ans, herr := s.applyLocked(td, agents, e.doc.Clone(), func(nt *arbor.Tree) []int {
		if nt.Len() != e.n {
			return nil // not the tree it was: nothing is kept
		}
		if e.back == nil {
			return identity(old.Len(), nt.Len())
		}
		if len(e.back) != old.Len() {
			return nil
		}
		return e.back
	}, nil)
	if herr != nil {
		return nil, herr
	}
	s.undo[s.treeList[ans.Tree].tree] = rest
	ans.Op, ans.Undone = "undo", e.what
	ans.Undo = s.undoOf(s.treeList[ans.Tree].tree)
	return ans, nil
}

// identity maps n ids to themselves when both trees have n nodes; nil
// otherwise.
func identity(n, m int) []int {
	if n != m {
		return nil
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	return ids
}

// applyLocked compiles doc, the edited copy of td's tree's document, with
// Options.Recompile and moves agents (those running the tree) to the new
// tree, their forces and breakpoints moved by ids (the old tree's node id
// → the new tree's, -1: gone; nil: all gone), which mapIDs computes from
// the new tree. push, when not nil, makes the undo entry of the edit from
// ids; the new tree's undo stack is the old one's with it on top (the
// caller of an undo sets it).
func (s *Session) applyLocked(td *treeDesc, agents []*arbor.Agent, doc *arbor.Document, mapIDs func(nt *arbor.Tree) []int, push func(ids []int, nt *arbor.Tree) *undoEntry) (*editAnswer, *editError) {
	old := td.tree
	t, err := s.recompile(old, doc)
	if err != nil {
		return nil, &editError{code: http.StatusBadRequest, body: map[string]any{"error": err.Error(), "compile": true}}
	}
	if t == nil {
		return nil, editFail(http.StatusInternalServerError, "Options.Recompile returned no tree and no error")
	}
	ids := mapIDs(t)
	if len(ids) != old.Len() {
		ids = make([]int, old.Len()) // nothing is kept
		for i := range ids {
			ids[i] = -1
		}
	}
	to := func(i int) int {
		if i >= len(ids) || ids[i] >= t.Len() {
			return -1
		}
		return ids[i]
	}
	var dropped dropCount
	// What a reload drops and an edit keeps: the forces and breakpoints,
	// on their nodes' new ids.
	type force struct {
		node int
		st   arbor.Status
	}
	type kept struct {
		forces []force
		bp     []breakMask
		nbp    int
	}
	keep := map[*arbor.Agent]*kept{}
	for _, a := range agents {
		k := &kept{}
		for i := 0; i < old.Len(); i++ {
			if st := a.Forced(i); st != arbor.Invalid {
				if j := to(i); j >= 0 {
					k.forces = append(k.forces, force{j, st})
				} else {
					dropped.Forces++
				}
			}
		}
		if w := s.watches[a.ID()]; w != nil {
			w.flushBetween(s) // events before the edit: a record of the old tree
			if w.nbp > 0 {
				bp := make([]breakMask, t.Len())
				for i, m := range w.bp {
					if m == 0 {
						continue
					}
					if j := to(i); j >= 0 {
						bp[j] = m
						k.nbp++
					} else {
						dropped.Breakpoints++
					}
				}
				if k.nbp > 0 {
					k.bp = bp
				}
			}
		}
		keep[a] = k
	}
	if src := s.sourceLocked(old); src != nil {
		s.editedSource[t] = src
	}
	moved := s.m.Reload(old, t)
	for _, a := range agents {
		k := keep[a]
		for _, f := range k.forces {
			if err := a.Force(f.node, f.st); err != nil {
				// A node now in a guard forced to running, say.
				dropped.Forces++
				s.log.Warn("arbor debug: force kept across an edit", "agent", a.ID(), "node", f.node, "err", err)
			}
		}
		if w := s.watches[a.ID()]; w != nil {
			w.sync(s) // the halts of the reload, then the new tree's history
			if k.bp != nil {
				w.bp, w.nbp = k.bp, k.nbp
			}
		}
	}
	if push != nil {
		s.undo[t] = pushUndo(s.undo[old], push(ids, t))
	}
	// The stacks of trees no agent runs any more (old, and those a
	// reload from a file replaced) go.
	running := map[*arbor.Tree]bool{}
	for _, a := range s.m.Agents() {
		running[a.Tree()] = true
	}
	for tr := range s.undo {
		if !running[tr] {
			delete(s.undo, tr)
		}
	}
	s.gen++
	s.rev++
	ntd := s.treeOf(agents[0])
	ans := &editAnswer{OK: true, Tree: ntd.ID, TreeName: ntd.Name, Node: -1, Agents: moved, IDs: ids, Undo: s.undoOf(t), Rev: s.rev}
	if dropped != (dropCount{}) {
		ans.Dropped = &dropped
	}
	return ans, nil
}

// dropCount counts the forces and breakpoints an edit dropped (their
// nodes were deleted).
type dropCount struct {
	Forces      int `json:"forces"`
	Breakpoints int `json:"breakpoints"`
}

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

// makeNode makes the node an add, insert or wrap adds: a type the
// registry knows (or the document uses already: a program's stand-in),
// with its required parameters; a new node of add or insert is a leaf
// (a composite or decorator needs children: add a leaf, then wrap it),
// the node of a wrap a decorator or a composite.
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
