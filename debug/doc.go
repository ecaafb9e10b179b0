// Package debug is a live web debugger for the agents of an arbor.Manager,
// in the spirit of net/http/pprof: mount a handler, open a browser, watch
// any agent think.
//
//	sess := debug.NewSession(manager, debug.Options{})
//	mux.Handle("/debug/arbor/", http.StripPrefix("/debug/arbor", sess.Handler()))
//	sess.TickWith(now, sense) // in the game loop, instead of manager.TickWith
//
// or, without a mux of one's own, a standalone server on 127.0.0.1:7777:
//
//	go debug.ListenAndServe(ctx, "", sess)
//
// The page lists the agents (search, filters by tree and status, counts per
// tree) and draws the tree of the agent opened as SVG: each node coloured
// by its status in the last tick, nodes not visited in it faded with their
// last status, abort and guard markers, zoom and pan. It follows the agent
// over Server-Sent Events, at most Options.MaxRate updates a second, with
// the running path(s), the blackboard (agent and global scope, types,
// expiry), a timeline of the last Options.History ticks with every node
// event (scrub back to any tick to see the tree and blackboard as they
// were; export as JSON) and per-node statistics since watching began.
//
// # Node errors
//
// Node errors (arbor.NodeError) reach the page when the program's error
// handler hands them to Session.ReportError as well:
//
//	var sess *debug.Session
//	m := arbor.NewManager(arbor.WithManagerErrorHandler(func(e *arbor.NodeError) { sess.ReportError(e) }))
//	sess = debug.NewSession(m, debug.Options{})
//
// The session keeps the last ErrorHistory errors of each agent and a count;
// the page shows the count in the agent list and the agent's bar, lists the
// errors in an Errors tab and outlines the nodes that errored in the tick
// shown.
//
// # Recordings
//
// An exported history is a recording (RecordingFormat). The page opens
// one from a file (or a file dropped on it) in a read-only recording mode,
// without the program that made it; LoadRecording checks one in Go, and
// Recording.Handler and ServeRecording serve the page with it open (the
// "arbor replay" command). A program makes one without a page with
// Session.Recording, of an agent it watches (Session.Watch): a flight
// recorder to write to a file when something goes wrong.
//
// # Threads
//
// The program ticks on its own goroutine through the Session (Tick,
// TickWith), which holds a lock while ticking; the debugger touches agents
// only under that lock, between ticks. Changes the program makes to agents
// while the debugger runs go through Session.Do.
//
// # Cost
//
// Only watched agents (opened in a page, passed to Session.Watch, or with
// breakpoints) get a Tracer; the others pay the engine's nil-tracer check
// and nothing else.
// Watching an agent chains to the tracer it had (which still gets every
// event) and puts it back when the watch ends.
//
// # Controls and safety
//
// The debugger is read-only unless Options.Controls is set; then the page
// can pause, resume and step an agent (or every agent at once: the whole
// world stops, each running user node getting its pause callback), set
// breakpoints on its nodes (the
// agent pauses at the end of a tick in which a node emits a chosen event:
// start, success, failure, running, halt or abort), force a node's result
// (arbor.Agent.Force: the node is not run, and returns success, failure or
// running when ticked), write blackboard values and edit trees (below), and
// every such request must carry the session's token (Session.Token; the
// standalone server logs a URL holding it) and come from the debugger's own
// origin. A server started by Listen/Serve binds 127.0.0.1 unless told
// otherwise and refuses requests naming a host other than a loopback one.
//
// # Editing trees
//
// With Options.Controls and Options.Recompile, the page edits a running
// tree: the parameters, the name and a composite's abort mode of a node
// (POST api/trees/{tid}/edit {"path", "params", "name", "abort"}; not its
// type, guard, nor a SubTree's tree), and its shape (below). The
// session applies the edit to a copy of the tree's Document, never to the
// Document itself, and hands the copy to Recompile, which compiles it as
// the program compiled the tree (its registry, its stand-ins):
//
//	reg := myRegistry()
//	sess := debug.NewSession(m, debug.Options{Controls: true,
//		Recompile: func(old *arbor.Tree, doc *arbor.Document) (*arbor.Tree, error) {
//			return arbor.Compile(doc, reg)
//		},
//		Registry: reg, // optional: describes the program's node types to the form
//	})
//
// A compile error is the edit's answer (a 400 with the compiler's
// message), and nothing changes. Otherwise every agent running the old
// tree moves to the new one at once, under the session's lock between
// ticks, as a file hot reload does (Manager.Reload: running nodes are
// halted once, blackboards kept); a parameter edit keeps the node ids,
// and so the agents' forces and breakpoints. A node of a subtree is edited in the
// subtree's definition, so every use of it changes. Recompile runs under
// the session's lock: it may note the new tree in the program's records
// (the tree a file reload replaces next). An edit is in memory only:
// the tree's file is not rewritten; GET api/trees/{tid}/document gives the
// edited document in any tree file format (package format), by default
// the one Options.TreeSource names.
//
// The page's edit form lists the node's parameters, each with × to remove
// it (back to its default), then the other parameters its type takes
// (arbor.Registry.Describe), empty, their defaults shown, to fill in; a
// type that takes any parameters (arbor.AnyParams) also gets one of any
// name. The form knows the built-in types, and the program's from
// Options.Registry, the registry Recompile compiles with.
//
// # Editing a tree's shape
//
// The same way, the page changes a tree's shape (POST
// api/trees/{tid}/shape): it adds a child to a composite, inserts a
// sibling after a node, deletes a node with its subtree (not a root, nor
// the only child of a node that needs one), moves a node up or down among
// its siblings ("by": ±1) or into another composite ("to": its path,
// "index": the place among its children), wraps a node in a decorator
// (or a composite), unwraps a node of one child (replaces it by its
// child) and gives a node without guard a guard (op "guard": a
// condition). A new node is a leaf
// (a composite or a decorator needs children: add a leaf, then wrap it)
// of a built-in type, one of Options.Registry's, or one the document uses
// already, with the parameters its type requires; whatever the session
// can tell is wrong (an unknown path or type, a root deleted, a child
// added to a leaf or a second one to a decorator) is a 400 with the
// reason, and the compiler has the last word. Node ids change with the
// shape: the session maps the old tree's nodes to the new tree's by the
// identity of their Document nodes (the edited copy's node is the copy
// of the old one, wherever the edit put it; a node of a subtree is one
// node per use), and the agents' forces and breakpoints move to the new
// ids; those of deleted nodes are dropped, and the answer counts them.
// The agents move as for a parameter edit (Manager.Reload: running nodes
// are halted once, blackboards kept), and run the new shape from their
// next tick.
//
// Every edit can be undone (POST api/trees/{tid}/undo): the session
// keeps, for each tree an edit made, the documents of the edits before it
// (up to 50), compiles the last one again with Recompile, and maps forces
// and breakpoints back the same way (those of nodes the undone edit added
// are dropped; those the edit dropped with its nodes are put back, on the
// agents still running the tree: the answer's "restored" counts them). A
// tree a reload from a file made has nothing to undo.
// An edit undone can be made again (POST api/trees/{tid}/redo), the
// nodes mapped as that edit mapped them, until a new edit clears the
// redo stack; a tree's description (api/trees/{tid}) and every edit's
// answer carry "undo" and "redo" ({count, last}: what the next step
// would undo or make again).
package debug
