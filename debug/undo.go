package debug

import (
	"net/http"
	"slices"

	"github.com/arborbt/arbor"
)

// Undo and redo: every edit, of parameters or of shape, is undoable. The
// session keeps, per tree an edit made, the Documents it was made from (up
// to maxUndo), and POST api/trees/{tid}/undo compiles the last one again;
// the document undone goes onto the redo stack, which POST
// api/trees/{tid}/redo compiles again, until an edit clears it.

// maxUndo is how many edits of a tree can be undone (or redone).
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
	// lost: the forces and breakpoints the edit dropped with its nodes,
	// on doc's tree's ids; put back when the entry is applied.
	lost []lostMark
}

// undoInfo is what api/trees/{tid} says of a tree's undo stack.
type undoInfo struct {
	Count int    `json:"count"` // edits that can be undone, the last first
	Last  string `json:"last"`  // what the last one did
}

// undoOf describes tree t's undo stack; nil when it is empty.
func (s *Session) undoOf(t *arbor.Tree) *undoInfo { return stackInfo(s.undo[t]) }

// redoOf describes tree t's redo stack; nil when it is empty.
func (s *Session) redoOf(t *arbor.Tree) *undoInfo { return stackInfo(s.redo[t]) }

// stackInfo describes an undo or redo stack; nil when it is empty.
func stackInfo(st []*undoEntry) *undoInfo {
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

// undoTree undoes the last edit of a tree.
func (h *handler) undoTree(w http.ResponseWriter, r *http.Request) { h.stepTree(w, r, true) }

// redoTree makes the last edit undone again.
func (h *handler) redoTree(w http.ResponseWriter, r *http.Request) { h.stepTree(w, r, false) }

// stepTree answers an undo (back) or a redo.
func (h *handler) stepTree(w http.ResponseWriter, r *http.Request, back bool) {
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
	ans, herr := s.stepLocked(tid, back)
	s.mu.Unlock()
	op := "redo"
	if back {
		op = "undo"
	}
	h.answerEdit(w, ans, herr, op, "")
}

// stepLocked undoes the last edit of tree tid (back), or makes the last
// edit undone again: it compiles the document on top of the undo (redo)
// stack again and moves the agents there. The edit goes onto the new
// tree's redo (undo) stack, as an entry that leads back to the tree
// before this step.
func (s *Session) stepLocked(tid int, back bool) (*editAnswer, *editError) {
	td, agents, herr := s.editTarget(tid)
	if herr != nil {
		return nil, herr
	}
	old := td.tree
	from, to := s.undo, s.redo
	if !back {
		from, to = s.redo, s.undo
	}
	stack := from[old]
	if len(stack) == 0 {
		if back {
			return nil, editFail(http.StatusConflict, "nothing to undo: tree %d (%s) was not made by an edit in the debugger (a reload from a file starts afresh)", tid, td.Name)
		}
		return nil, editFail(http.StatusConflict, "nothing to redo: no edit of tree %d (%s) was undone since its last edit", tid, td.Name)
	}
	e := stack[len(stack)-1]
	rest := slices.Clone(stack[:len(stack)-1])
	other := to[old] // applyLocked forgets the stacks of old
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
	nt := s.treeList[ans.Tree].tree
	// The entry that leads back: old's document, and the new tree's ids
	// on old's (none kept when the step kept none).
	var ids []int
	if e.back != nil {
		ids = invert(ans.IDs, nt.Len())
	}
	from[nt], to[nt] = rest, pushUndo(other, &undoEntry{doc: old.Document(), back: ids, n: old.Len(), what: e.what, lost: ans.lost})
	if nt.Len() == e.n { // the tree the marks' ids are of
		if put := s.restoreMarks(nt, e.lost); put != (dropCount{}) {
			ans.Restored = &put
		}
	}
	if back {
		ans.Op, ans.Undone = "undo", e.what
	} else {
		ans.Op, ans.Redone = "redo", e.what
	}
	ans.Undo, ans.Redo = s.undoOf(nt), s.redoOf(nt)
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
