package arbor

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// LoadError is one problem found while loading or compiling a tree
// definition. Path locates the node in the document (for example
// "trees.Guard.children[1].child"), Type is its node type. Its message
// reads "path: message [Type, line N]", for example
//
//	trees.Guard.children[1].child: unknown node type "Atack" (did you mean "Attack"?) [Atack, line 12]
//
// A node imported from another format under another type names the
// file's type too: "[Selector (Fallback in the file), line 3]".
type LoadError struct {
	Path string
	Type string
	Line int // source line, 0 when unknown
	Msg  string
	// FileType is the type a file in another format wrote for the node
	// (BT.CPP's Fallback for a Selector), when it differs from Type.
	FileType string
}

// Error formats the problem as "path: message [Type, line N]".
func (e *LoadError) Error() string {
	var b strings.Builder
	switch {
	case e.Path != "":
		b.WriteString(e.Path)
		b.WriteString(": ")
	case e.Line > 0 && e.Type == "":
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Msg)
	typ := e.Type
	if e.FileType != "" && e.FileType != e.Type && typ != "" {
		typ = fmt.Sprintf("%s (%s in the file)", e.Type, e.FileType)
	}
	switch {
	case typ != "" && e.Line > 0:
		fmt.Fprintf(&b, " [%s, line %d]", typ, e.Line)
	case typ != "":
		fmt.Fprintf(&b, " [%s]", typ)
	case e.Line > 0 && e.Path != "":
		fmt.Fprintf(&b, " [line %d]", e.Line)
	}
	return b.String()
}

// LoadErrors is every problem found in one definition (up to 100), in
// document order: tree by tree in the order of the file (trees built in Go,
// which have no lines, by name), each tree's nodes in order.
type LoadErrors []*LoadError

// Error lists the problems, one a line.
func (es LoadErrors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap lets errors.As find each LoadError.
func (es LoadErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// maxLoadErrors bounds how many problems one load reports.
const maxLoadErrors = 100

type errList struct{ errs LoadErrors }

// addDef records a problem of the definition node def at path, with its
// type and line, and the type a file in another format wrote for it.
func (l *errList) addDef(path string, def *Node, format string, args ...any) {
	n := len(l.errs)
	l.add(path, def.Type, def.Line, format, args...)
	if len(l.errs) > n && def.src != nil {
		l.errs[n].FileType = def.src.typ
	}
}

func (l *errList) add(path, typ string, line int, format string, args ...any) {
	if len(l.errs) < maxLoadErrors {
		l.errs = append(l.errs, &LoadError{Path: path, Type: typ, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

func (l *errList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	return l.errs
}

// ErrReentrantTick is reported (to the agent's error handler, with the node
// whose code made the call) when Agent.Tick is called from inside the
// agent's own tick or operation; that call does nothing and returns the
// agent's last result.
var ErrReentrantTick = errors.New("nested tick: Agent.Tick called from inside the agent's own tick or operation was ignored")

// ErrNoTree is wrapped by the errors of the Agent methods that need a tree
// (Force, Unforce, Snapshot, Restore) when called on a zero Agent, which
// has none until SetTree binds one.
var ErrNoTree = errors.New("the agent has no tree (a zero Agent: bind one with SetTree)")

// NodeError is an error raised while ticking a node: a wrong blackboard
// type, a missing "{key}", an error returned by or a panic in user code. The
// node failed (or, in end/halt/pause callbacks, is idle anyway); the agent
// keeps working.
type NodeError struct {
	Path  string        // the node's path from the main root, through inlined subtrees
	Type  string        // the node's type
	Name  string        // the node's name, if any
	Agent *Agent        // the agent that ticked it
	Time  time.Duration // the agent's time
	Err   error         // what went wrong
}

// Error formats the error with the node's path and type.
func (e *NodeError) Error() string {
	return fmt.Sprintf("%s (%s): %v", e.Path, e.Type, e.Err)
}

// Unwrap returns what went wrong, for errors.Is and errors.As.
func (e *NodeError) Unwrap() error { return e.Err }

// PanicError wraps a value recovered from a panic in user code.
type PanicError struct {
	Value any    // what the code panicked with
	Stack string // the goroutine's stack at the panic
}

// Error reports the panic value (the stack is in Stack).
func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }
