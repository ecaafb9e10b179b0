package main

import (
	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/debug"
)

// reportNodeErrors hands the node errors of the agents of sess's manager
// (those in it and those added later) to the debugger, then to next. The
// agents must have had no error handler of their own (they had the
// engine's default logging, which next may do instead).
func reportNodeErrors(sess *debug.Session, next func(*arbor.NodeError)) {
	h := sess.ErrorHandler(next)
	sess.Do(func(m *arbor.Manager) {
		arbor.WithManagerErrorHandler(h)(m)
		for _, a := range m.Agents() {
			arbor.WithErrorHandler(h)(a)
		}
	})
}
