package debug

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format"
)

// Editing a running tree (Options.Recompile): an edit changes one node's
// parameters or name in a copy of the tree's Document (the shared one is
// never changed), the program's Recompile compiles it, and every agent
// running the old tree moves to the new one at once (Manager.Reload,
// under the session lock between ticks, as a file hot reload does). An
// edit keeps the tree's shape, so node ids stay, and with them the
// agents' forces and the watched agents' breakpoints, which a reload
// otherwise drops. The edit lives in memory: nothing is written to the
// tree's file.

// treeSource is where a tree came from (Options.TreeSource).
type treeSource struct {
	File   string `json:"file,omitempty"`   // the file's base name
	Format string `json:"format,omitempty"` // format.Arbor, format.B3 or format.BTCPP
}

// sourceLocked returns where tree t came from: Options.TreeSource's
// answer, else that of the tree an edit made it from (recorded when the
// edit was applied). Nil when unknown.
func (s *Session) sourceLocked(t *arbor.Tree) *treeSource {
	if t == nil || s.opts.TreeSource == nil {
		return nil
	}
	file, f := s.treeSource(t)
	if file == "" && f == "" {
		return s.editedSource[t]
	}
	src := &treeSource{Format: f}
	if file != "" {
		src.File = path.Base(strings.ReplaceAll(file, "\\", "/"))
		if f == "" {
			src.Format, _ = format.OutputFormat(file)
		}
	}
	if !validFormat(src.Format) {
		src.Format = ""
	}
	return src
}

// treeSource calls Options.TreeSource, recovering a panic: it runs under
// the session's lock.
func (s *Session) treeSource(t *arbor.Tree) (file, f string) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("arbor debug: Options.TreeSource panicked", "tree", t.Name(), "panic", r)
			file, f = "", ""
		}
	}()
	return s.opts.TreeSource(t)
}

// validFormat reports whether f is the name of a format package format
// writes.
func validFormat(f string) bool { return slices.Contains(format.Names(), f) }

// canEdit reports whether the page may edit trees.
func (s *Session) canEdit() bool { return s.opts.Controls && s.opts.Recompile != nil }

// treeView is a tree's description as api/trees/{tid} serves it: with,
// when the page may edit, its node types' parameters.
type treeView struct {
	*treeDesc
	// Types describes the node types that take parameters, by name (the
	// tree's and the palette's), for the edit form: it lists the
	// parameters a node leaves out, and those a new node needs.
	Types map[string]*typeDesc `json:"types,omitempty"`
	// Palette lists the node types a shape edit may add or wrap with.
	Palette []paletteEntry `json:"palette,omitempty"`
	// Categories gives the category of each node type of the tree, as
	// the palette's: which nodes take children.
	Categories map[string]string `json:"categories,omitempty"`
	// Undo describes the edits of the tree that can be undone, Redo
	// those undone that can be made again; absent: none.
	Undo *undoInfo `json:"undo,omitempty"`
	Redo *undoInfo `json:"redo,omitempty"`
}

// typeDesc is what the edit form knows of a node type: the parameters it
// takes.
type typeDesc struct {
	Params []paramDesc `json:"params,omitempty"`
	// AnyParams: the type also takes parameters Params does not list.
	AnyParams bool `json:"anyParams,omitempty"`
}

// paramDesc is one parameter of a node type (arbor.ParamInfo) as the
// edit form uses it.
type paramDesc struct {
	Name string `json:"name"`
	// Kind is how the form takes a value: number, bool, string, list or
	// other (an object, any value, or a type the registry does not say).
	Kind     string `json:"kind"`
	Required bool   `json:"required,omitempty"`
	Ref      bool   `json:"ref,omitempty"` // it may be a "{key}" reference
	Default  any    `json:"default,omitempty"`
}

// builtins describes the node types when Options.Registry is nil: the
// built-ins only.
var builtins = arbor.NewRegistry()

// describeTypes describes the node types of tree d and of its palette
// that take parameters (Options.Registry's, else the built-ins), for the
// edit form; nil when none does. A type the registry does not know is
// left out.
func (s *Session) describeTypes(d *treeDesc) map[string]*typeDesc {
	reg := s.opts.Registry
	if reg == nil {
		reg = builtins
	}
	var out map[string]*typeDesc
	seen := map[string]bool{}
	names := make([]string, 0, len(d.Nodes)+len(d.palette))
	for i := range d.Nodes {
		names = append(names, d.Nodes[i].Type)
	}
	for _, p := range d.palette {
		names = append(names, p.Type)
	}
	for _, typ := range names {
		if seen[typ] {
			continue
		}
		seen[typ] = true
		info, ok := reg.Describe(typ)
		if !ok || len(info.Params) == 0 && !info.AnyParams {
			continue
		}
		td := &typeDesc{AnyParams: info.AnyParams, Params: make([]paramDesc, len(info.Params))}
		for j, p := range info.Params {
			td.Params[j] = paramDesc{Name: p.Name, Kind: paramKind(p.Type), Required: p.Required, Ref: p.Ref, Default: safeValue(p.Default, 0)}
		}
		if out == nil {
			out = map[string]*typeDesc{}
		}
		out[typ] = td
	}
	return out
}

// paramKind says how the edit form takes a value of Go type t (nil: not
// known).
func paramKind(t reflect.Type) string {
	if t == nil {
		return "other"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "bool"
	case reflect.String:
		return "string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number" // time.Duration too: milliseconds
	case reflect.Slice, reflect.Array:
		return "list"
	}
	return "other"
}

// editRequest is the body of POST api/trees/{tid}/edit.
type editRequest struct {
	Path   string                     `json:"path"`   // the node's path, as the tree's description names it
	Params map[string]json.RawMessage `json:"params"` // parameters to set; null removes one
	Name   *string                    `json:"name"`   // the node's new name ("" removes it); absent: unchanged
	Abort  *string                    `json:"abort"`  // the node's abort mode (none, self, lower, both); absent: unchanged
}

// nodeEdit is what an edit request changes of a node.
type nodeEdit struct {
	set   map[string]any // parameters set
	unset []string       // parameters removed
	name  *string        // the new name, when not nil
	abort *arbor.Abort   // the new abort mode, when not nil
}

// editAnswer is the answer of an edit (of parameters, of shape, or an
// undo).
type editAnswer struct {
	OK       bool   `json:"ok"`
	Op       string `json:"op,omitempty"` // a shape edit's op, "undo" or "redo"
	Tree     int    `json:"tree"`         // the id of the tree the agents run now
	TreeName string `json:"treeName"`
	// Node is the node the page selects in the new tree: the node
	// edited, the one added, moved or the wrapper, the one that takes a
	// deleted node's place; -1: none (an undo or redo). Path is its path.
	Node      int    `json:"node"`
	Path      string `json:"path,omitempty"`
	Agents    int    `json:"agents"` // agents moved to the edited tree
	Unchanged bool   `json:"unchanged,omitempty"`
	// IDs maps the old tree's node ids to the new tree's (-1: deleted);
	// a parameter edit keeps them, and leaves it out.
	IDs []int `json:"ids,omitempty"`
	// Dropped counts the forces and breakpoints lost with deleted nodes.
	Dropped *dropCount `json:"dropped,omitempty"`
	Undo    *undoInfo  `json:"undo,omitempty"`   // the new tree's undo stack
	Redo    *undoInfo  `json:"redo,omitempty"`   // and its redo stack
	Undone  string     `json:"undone,omitempty"` // what an undo undid
	Redone  string     `json:"redone,omitempty"` // what a redo made again
	// Restored counts the forces and breakpoints an undo or redo put back:
	// those the step it takes back had dropped with their nodes.
	Restored *dropCount `json:"restored,omitempty"`
	Rev      uint64     `json:"rev"`
	lost     []lostMark // what the edit dropped (applyLocked), for the entry that takes it back
}

// reservedParams are node keys of the tree files, not parameters.
var reservedParams = map[string]bool{"type": true, "name": true, "children": true, "child": true, "guard": true, "abort": true, "comment": true}

// treeID parses the {tid} path value; it writes the error response and
// returns false when it is malformed.
func (h *handler) treeID(w http.ResponseWriter, r *http.Request) (int, bool) {
	raw := r.PathValue("tid")
	tid, err := strconv.Atoi(raw)
	if err != nil || tid < 0 {
		h.fail(w, http.StatusBadRequest, "bad tree id %q: want a non-negative integer", truncate(raw, 40))
		return 0, false
	}
	return tid, true
}

// editTree applies one node's edit to a tree and reloads the agents
// running it.
func (h *handler) editTree(w http.ResponseWriter, r *http.Request) {
	tid, ok := h.editable(w, r)
	if !ok {
		return
	}
	s := h.s
	var req editRequest
	if !h.decodeJSON(w, r, &req) {
		return
	}
	if req.Path == "" || (req.Params == nil && req.Name == nil && req.Abort == nil) {
		h.fail(w, http.StatusBadRequest, `bad body: want {"path": "…", "params": {…}, "name": "…", "abort": "…"} (params, name, abort or several)`)
		return
	}
	ed := nodeEdit{set: map[string]any{}, name: req.Name}
	if req.Abort != nil {
		m, ok := arbor.ParseAbort(*req.Abort)
		if !ok || *req.Abort == "" {
			h.fail(w, http.StatusBadRequest, "bad abort %q: want none, self, lower or both", truncate(*req.Abort, 40))
			return
		}
		ed.abort = &m
	}
	if req.Name != nil && len(*req.Name) > 200 {
		h.fail(w, http.StatusBadRequest, "bad name: at most 200 bytes")
		return
	}
	for k, raw := range req.Params {
		switch {
		case k == "" || len(k) > 100:
			h.fail(w, http.StatusBadRequest, "bad parameter name %q: want 1 to 100 bytes", truncate(k, 40))
			return
		case reservedParams[k]:
			h.fail(w, http.StatusBadRequest, "%q is not a parameter (a node's name and abort mode are the body's \"name\" and \"abort\"; its type, children and guard change with shape edits)", k)
			return
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			h.fail(w, http.StatusBadRequest, "bad value of %q: %v", k, err)
			return
		}
		if v == nil {
			ed.unset = append(ed.unset, k)
		} else {
			ed.set[k] = v
		}
	}
	s.mu.Lock()
	ans, herr := s.editLocked(tid, req.Path, ed)
	s.mu.Unlock()
	h.answerEdit(w, ans, herr, "edit", req.Path)
}

// editError is a refused edit: the status and the JSON answer.
type editError struct {
	code int
	body map[string]any
}

func editFail(code int, format string, args ...any) *editError {
	return &editError{code: code, body: map[string]any{"error": fmt.Sprintf(format, args...)}}
}

// editLocked applies an edit of node path of tree tid: parameters set
// and unset, the name and the abort mode.
func (s *Session) editLocked(tid int, nodePath string, ed nodeEdit) (*editAnswer, *editError) {
	set, unset, name := ed.set, ed.unset, ed.name
	td, agents, herr := s.editTarget(tid)
	if herr != nil {
		return nil, herr
	}
	old := td.tree
	node := nodeAt(td, nodePath)
	if node < 0 {
		return nil, editFail(http.StatusBadRequest, "no node at path %q in tree %d (%s)", truncate(nodePath, 200), tid, td.Name)
	}
	doc := old.Document().Clone()
	def := findDef(doc, old.Name(), nodePath)
	if def == nil {
		return nil, editFail(http.StatusBadRequest, "node %q is not in the tree's document", truncate(nodePath, 200))
	}
	if arbor.CanonicalType(def.Type) == "SubTree" {
		if _, ok := set["tree"]; ok || slices.Contains(unset, "tree") {
			return nil, editFail(http.StatusBadRequest, "a SubTree's tree cannot be edited: it changes the tree's shape (edit the file)")
		}
	}
	changed := false
	if def.Params == nil && len(set) > 0 {
		def.Params = map[string]any{}
	}
	for k, v := range set {
		if prev, ok := def.Params[k]; !ok || !sameParam(prev, v) {
			changed = true
		}
		def.Params[k] = v
	}
	for _, k := range unset {
		if _, ok := def.Params[k]; ok {
			changed = true
			delete(def.Params, k)
		}
	}
	if name != nil && *name != def.Name {
		def.Name, changed = *name, true
	}
	if ed.abort != nil && *ed.abort != def.Abort {
		// The compile refuses a mode on a node that takes none.
		def.Abort, changed = *ed.abort, true
	}
	if !changed {
		return &editAnswer{OK: true, Tree: td.ID, TreeName: td.Name, Node: node, Path: nodePath, Unchanged: true, Undo: s.undoOf(old), Redo: s.redoOf(old), Rev: s.rev}, nil
	}
	what := "edit " + td.Nodes[node].Label
	// An edit of parameters keeps the tree's shape, hence its node ids.
	ans, herr := s.applyLocked(td, agents, doc, func(nt *arbor.Tree) []int { return identity(old.Len(), nt.Len()) },
		func(_ []int, _ *arbor.Tree) *undoEntry {
			return &undoEntry{doc: old.Document(), n: old.Len(), what: what}
		})
	if herr != nil {
		return nil, herr
	}
	ans.Node, ans.Path, ans.IDs = node, nodePath, nil
	return ans, nil
}

// recompile calls Options.Recompile, recovering a panic: it runs under
// the session's lock.
func (s *Session) recompile(old *arbor.Tree, doc *arbor.Document) (t *arbor.Tree, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("arbor debug: Options.Recompile panicked", "tree", old.Name(), "panic", r)
			t, err = nil, fmt.Errorf("the program's Recompile panicked: %v", r)
		}
	}()
	return s.opts.Recompile(old, doc)
}

// sameParam reports whether two parameter values write the same JSON (3
// and 3.0 are the same).
func sameParam(a, b any) bool {
	ja, err1 := json.Marshal(safeValue(a, 0))
	jb, err2 := json.Marshal(safeValue(b, 0))
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// findDef returns the definition of the node at path in doc, whose main
// tree is main: the node the compiled tree names so (its path from the
// main root through inlined subtrees, as arbor.NodeInfo.Path spells it).
// A node of a subtree is that subtree's definition, shared by its every
// use. Nil when there is none.
func findDef(doc *arbor.Document, main, target string) *arbor.Node {
	if sl := findSlot(doc, main, target); sl != nil {
		return sl.node
	}
	return nil
}

// treeDocument serves a tree's document (as edited) in a tree file
// format: ?format=arbor|b3|btcpp, by default the format the tree came
// from (Options.TreeSource), else arbor.
func (h *handler) treeDocument(w http.ResponseWriter, r *http.Request) {
	tid, ok := h.treeID(w, r)
	if !ok {
		return
	}
	s := h.s
	s.mu.Lock()
	var td *treeDesc
	if tid < len(s.treeList) {
		td = s.treeList[tid]
	}
	s.mu.Unlock()
	if td == nil || td.tree == nil {
		h.fail(w, http.StatusNotFound, "no tree %d", tid)
		return
	}
	f := r.URL.Query().Get("format")
	if f == "" {
		f = format.Arbor
		if td.Source != nil && td.Source.Format != "" {
			f = td.Source.Format
		}
	}
	if !validFormat(f) {
		h.fail(w, http.StatusBadRequest, "bad format %q: want %s", truncate(f, 40), strings.Join(format.Names(), ", "))
		return
	}
	file := downloadName(td, f)
	// The tree's document is immutable: written outside the lock.
	data, err := format.Encode(file, td.tree.Document(), f)
	if err != nil {
		h.fail(w, http.StatusUnprocessableEntity, "cannot write tree %s as %s: %v", td.Name, f, err)
		return
	}
	ct := "application/json"
	switch {
	case f == format.BTCPP:
		ct = "application/xml"
	case arbor.IsYAMLPath(file):
		ct = "application/yaml"
	}
	hd := w.Header()
	hd.Set("Content-Type", ct+"; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": file}))
	if _, err := w.Write(data); err != nil {
		h.log.Debug("arbor debug: write tree document", "err", err)
	}
}

// downloadName names a tree's document written in format f: the file it
// came from when f is that file's format, else the file's (or the tree's)
// name with f's extension.
func downloadName(td *treeDesc, f string) string {
	stem := td.Name
	if td.Source != nil && td.Source.File != "" {
		if td.Source.Format == f {
			return td.Source.File
		}
		stem = td.Source.File
		lower := strings.ToLower(stem)
		for _, ext := range []string{".b3.json", ".json", ".yaml", ".yml", ".xml"} {
			if strings.HasSuffix(lower, ext) {
				stem = stem[:len(stem)-len(ext)]
				break
			}
		}
	}
	stem = strings.Map(func(r rune) rune {
		if r < ' ' || strings.ContainsRune(`/\:*?"<>|`, r) {
			return '_'
		}
		return r
	}, stem)
	if stem == "" {
		stem = "tree"
	}
	switch f {
	case format.B3:
		return stem + ".b3.json"
	case format.BTCPP:
		return stem + ".xml"
	}
	return stem + ".json"
}
