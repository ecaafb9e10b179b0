package debug

import (
	"net/http"

	"github.com/arborbt/arbor"
)

// Applying an edit, of parameters (edit.go) or of shape (shape.go): the
// checks every edit request goes through, the compile of the edited
// Document, the agents' move to the new tree with their forces and
// breakpoints, and the answer.

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

// dropStacks forgets the undo and redo stacks of the trees no agent runs
// any more (one an edit replaced, or a reload from a file).
func (s *Session) dropStacks() {
	if len(s.undo) == 0 && len(s.redo) == 0 {
		return
	}
	running := map[*arbor.Tree]bool{}
	for _, a := range s.m.Agents() {
		running[a.Tree()] = true
	}
	for tr := range s.undo {
		if !running[tr] {
			delete(s.undo, tr)
		}
	}
	for tr := range s.redo {
		if !running[tr] {
			delete(s.redo, tr)
		}
	}
}

// applyLocked compiles doc, the edited copy of td's tree's document, with
// Options.Recompile and moves agents (those running the tree) to the new
// tree, their forces and breakpoints moved by ids (the old tree's node id
// → the new tree's, -1: gone; nil: all gone), which mapIDs computes from
// the new tree. push, when not nil, makes the undo entry of the edit from
// ids; the new tree's undo stack is the old one's with it on top (the
// caller of an undo sets it), and it has nothing to redo (the caller of
// an undo or a redo sets that).
func (s *Session) applyLocked(td *treeDesc, agents []*arbor.Agent, doc *arbor.Document, mapIDs func(nt *arbor.Tree) []int, push func(ids []int, nt *arbor.Tree) *undoEntry) (*editAnswer, *editError) {
	old := td.tree
	// old's undo stack, read before the agents move: a description of
	// the new tree (treeOf, from a watch's sync) forgets the stacks of
	// the trees no agent runs.
	prev := s.undo[old]
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
	var lost []lostMark // what is dropped, for the step that takes the edit back
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
					lost = append(lost, lostMark{agent: a.ID(), node: i, force: st})
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
						lost = append(lost, lostMark{agent: a.ID(), node: i, force: arbor.Invalid, bp: m})
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
		e := push(ids, t)
		e.lost = lost
		s.undo[t] = pushUndo(prev, e)
	}
	s.dropStacks()
	s.gen++
	s.rev++
	ntd := s.treeOf(agents[0])
	ans := &editAnswer{OK: true, Tree: ntd.ID, TreeName: ntd.Name, Node: -1, Agents: moved, IDs: ids, Undo: s.undoOf(t), Redo: s.redoOf(t), Rev: s.rev}
	if dropped != (dropCount{}) {
		ans.Dropped = &dropped
	}
	ans.lost = lost
	return ans, nil
}

// lostMark is a force or a breakpoint an edit (or an undo, or a redo)
// dropped with its node: the agent, and the node's id in the tree before
// the step. The step that takes it back puts it again.
type lostMark struct {
	agent int
	node  int
	force arbor.Status // arbor.Invalid: none
	bp    breakMask
}

// restoreMarks puts back on tree t the marks a step took back had dropped:
// t is the tree before that step again, and its agents those that ran it
// (agents removed since, or running another tree now, are skipped). It
// counts what it put back.
func (s *Session) restoreMarks(t *arbor.Tree, marks []lostMark) (n dropCount) {
	for _, m := range marks {
		a := s.m.Agent(m.agent)
		if a == nil || a.Tree() != t || m.node >= t.Len() {
			continue
		}
		if m.force != arbor.Invalid {
			if err := a.Force(m.node, m.force); err == nil {
				n.Forces++
			}
		}
		if w := s.watches[m.agent]; w != nil && m.bp != 0 {
			w.setBreak(m.node, m.bp)
			n.Breakpoints++
		}
	}
	return n
}

// dropCount counts the forces and breakpoints an edit dropped (their
// nodes were deleted).
type dropCount struct {
	Forces      int `json:"forces"`
	Breakpoints int `json:"breakpoints"`
}
