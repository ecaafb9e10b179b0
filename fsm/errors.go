package fsm

import (
	"fmt"
	"strings"
	"time"

	"github.com/arborbt/arbor/internal/suggest"
)

// Error is one problem (or warning) found while loading or compiling a
// machine. Path locates it in the definition, in the file's terms
// ("fsm.Monster.states.Alive.transitions[0].when").
type Error struct {
	Path string
	Line int // source line, 0 when unknown
	Msg  string
}

// Error formats the problem as "path: message [line N]".
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.Path != "":
		b.WriteString(e.Path)
		b.WriteString(": ")
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Msg)
	if e.Line > 0 && e.Path != "" {
		fmt.Fprintf(&b, " [line %d]", e.Line)
	}
	return b.String()
}

// Errors is every problem found in one definition, in definition order.
type Errors []*Error

// Error lists the problems, one a line.
func (es Errors) Error() string {
	msgs := make([]string, len(es))
	for i, e := range es {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap lets errors.As find each Error.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// maxErrors bounds how many problems one load or compile reports.
const maxErrors = 100

type errList struct{ errs Errors }

func (l *errList) add(path string, line int, format string, args ...any) {
	if len(l.errs) < maxErrors {
		l.errs = append(l.errs, &Error{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
}

func (l *errList) err() error {
	if len(l.errs) == 0 {
		return nil
	}
	return l.errs
}

// RunError is an error raised while an instance runs: a blackboard
// comparison that cannot be made (ordering a string and a number), a panic
// in a callback or condition, a misuse such as a re-entrant Update. The
// instance carries on: a failed condition does not hold, a panicking
// callback counts as returned.
type RunError struct {
	Machine string        // the definition's name
	State   string        // path of the state concerned ("Alive/Combat"), if any
	Where   string        // what was running: "enter", "update", "exit", "transition to Dead", "condition", ...
	Time    time.Duration // the update's time
	Err     error
}

// Error formats the error with its machine, state and place.
func (e *RunError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "fsm %s", e.Machine)
	if e.State != "" {
		fmt.Fprintf(&b, ": state %s", e.State)
	}
	if e.Where != "" {
		fmt.Fprintf(&b, ": %s", e.Where)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

// Unwrap returns what went wrong, for errors.Is and errors.As.
func (e *RunError) Unwrap() error { return e.Err }

// didYouMean returns ` (did you mean "x"?)` for the closest candidate, or "".
func didYouMean(name string, cands []string) string {
	if s := suggest.Closest(name, cands); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
