package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/debug"
	"github.com/arborbt/arbor/examples/village"
	"github.com/arborbt/arbor/format"
)

// demoTreesDir is where `arbor demo` looks for the village's tree files
// when run from the repository root.
const demoTreesDir = "examples/village"

// cmdDemo implements "arbor demo": the village of village.md with a pack of
// monsters, served with the debugger at http://127.0.0.1:7777, or run
// headless with a summary.
func cmdDemo(args []string, stdout, stderr io.Writer) int {
	return untilSignal(runDemo, args, stdout, stderr)
}

// untilSignal runs a serving command until an interrupt or SIGTERM.
func untilSignal(run func(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(base string)) int,
	args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, stdout, stderr, nil)
}

// runDemo is cmdDemo with a context; ready, when not nil, receives the
// base URL once the server listens.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(base string)) int {
	fset := flag.NewFlagSet("demo", flag.ContinueOnError)
	fset.SetOutput(stderr)
	addr := fset.String("addr", debug.DefaultAddr, "address to serve the world view and the debugger on (no host: 127.0.0.1)")
	headless := fset.Bool("headless", false, "run without a server, as fast as possible, and print a summary")
	ticks := fset.Int("ticks", 0, "ticks to run (headless: default 1200, one minute of village time; served: 0 = until interrupted)")
	villagers := fset.Int("villagers", 200, "number of villagers")
	monsters := fset.Int("monsters", 6, "number of monsters (0 for none)")
	seed := fset.Uint64("seed", 1, "seed of the villagers' differences")
	uniform := fset.Bool("uniform", false, "start every villager as village.md does (all needs 100, zone centres)")
	trees := fset.String("trees", "", "directory holding villager.yaml and monster.yaml (default: "+demoTreesDir+" when present, else built-in copies)")
	controls := fset.Bool("controls", false, "let the debugger pause, step and resume agents, write blackboards and edit the trees, their parameters and their shape (prints the world view's and the debugger's URLs holding the token; the world view hands it on)")
	history := fset.Int("history", 500, "ticks of history kept for each watched agent")
	workers := fset.Int("workers", 0, "manager worker goroutines (default GOMAXPROCS)")
	fset.Usage = func() {
		fmt.Fprintln(fset.Output(), "usage: arbor demo [-addr HOST:PORT] [-headless -ticks N] [flags]\n\n"+
			"Runs the village: villagers with needs (Food, Water, Energy, Mood, Money) and a pack of monsters,\n"+
			"each an Arbor agent, ticking at 20 Hz. Serves the world view at http://"+debug.DefaultAddr+"/ and the debugger at /debug/.")
		fset.PrintDefaults()
	}
	if code, ok := parseArgs(fset, args, stdout); !ok {
		return code
	}
	if msg := checkArgs(fset); msg != "" {
		return usageError(fset, "%s", msg)
	}
	switch {
	case *ticks < 0:
		return usageError(fset, "-ticks must be 0 or more, got %d", *ticks)
	case *villagers < 1:
		return usageError(fset, "-villagers must be 1 or more, got %d", *villagers)
	case *monsters < 0:
		return usageError(fset, "-monsters must be 0 or more, got %d", *monsters)
	case *history < 1:
		return usageError(fset, "-history must be 1 or more, got %d", *history)
	case *workers < 0:
		return usageError(fset, "-workers must be 0 (GOMAXPROCS) or more, got %d", *workers)
	}
	treeFS, from, err := demoTrees(*trees)
	if err != nil {
		fmt.Fprintf(stderr, "arbor demo: %v\n", err)
		return 1
	}
	vt, mt, err := village.LoadTrees(treeFS)
	if err != nil {
		fmt.Fprintf(stderr, "arbor demo: trees from %s:\n", from)
		printErrors(stderr, err)
		return 1
	}
	cfg := village.Config{Villagers: *villagers, Monsters: *monsters, Seed: *seed, Uniform: *uniform, Workers: *workers}
	if *monsters == 0 {
		cfg.Monsters = -1
	}
	w := village.New(cfg, vt, mt)

	if *headless {
		n := *ticks
		if n == 0 {
			n = 1200
		}
		sum := village.RunHeadless(w, n)
		if err := sum.Write(stdout); err != nil {
			fmt.Fprintf(stderr, "arbor demo: %v\n", err)
			return 1
		}
		return 0
	}

	reg := arbor.NewRegistry()
	if err := village.Register(reg); err != nil {
		fmt.Fprintf(stderr, "arbor demo: %v\n", err)
		return 1
	}
	vFile, mFile := demoTreeFile(treeFS, "villager"), demoTreeFile(treeFS, "monster")
	sess := debug.NewSession(w.Manager(), debug.Options{
		History:  *history,
		Controls: *controls,
		Label:    w.Label,
		Title:    "Arbor village · debugger",
		Links:    []debug.Link{{Name: "← world view", URL: "../"}},
		// The edit form lists the parameters a node leaves out (a Feel's
		// zone) from the village's registry.
		Registry: reg,
		// An edit in the debugger compiles with the village's nodes; the
		// next change of the file replaces the edited tree (vt and mt,
		// like the reload below, under the session's lock).
		Recompile: func(old *arbor.Tree, doc *arbor.Document) (*arbor.Tree, error) {
			t, err := arbor.Compile(doc, reg)
			if err != nil {
				return nil, err
			}
			switch old {
			case vt:
				vt = t
			case mt:
				mt = t
			}
			return t, nil
		},
		TreeSource: func(t *arbor.Tree) (string, string) {
			switch t {
			case vt:
				return vFile, format.Arbor
			case mt:
				return mFile, format.Arbor
			}
			return "", ""
		},
	})
	// Node errors show in the debugger, and are still logged.
	reportNodeErrors(sess, arbor.LogNodeError)
	ln, err := debug.Listen(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "arbor demo: %v\n", err)
		return 1
	}
	base := "http://" + displayAddr(ln.Addr()) + "/"
	worldURL, dbgURL := base, base+"debug/"
	if tok := sess.Token(); tok != "" {
		// Both pages take the token from the address (the world page hands
		// it on to the debugger pages it opens).
		worldURL += "#token=" + tok
		dbgURL += "#token=" + tok
	}
	fmt.Fprintf(stdout, "arbor demo: %d villagers and %d monsters (trees from %s)\n", len(w.Villagers), len(w.Monsters), from)
	fmt.Fprintf(stdout, "  world view: %s\n  debugger:   %s\nPress Ctrl+C to stop.\n", worldURL, dbgURL)
	// The watcher ends before the command returns (it writes to stdout).
	var watcher sync.WaitGroup
	defer watcher.Wait()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if dir, ok := treeDir(*trees); ok {
		// Hot reload: edits to the tree files apply to the running village.
		fmt.Fprintf(stdout, "Watching %s for changes to the trees.\n", dir)
		// The files LoadTrees reads, whichever of .yaml, .yml and .json.
		files := []string{filepath.Join(dir, demoTreeFile(os.DirFS(dir), "villager")), filepath.Join(dir, demoTreeFile(os.DirFS(dir), "monster"))}
		goWatch(&watcher, runCtx, files, nil, time.Second, func(string) {
			nv, nm, err := village.LoadTrees(os.DirFS(dir))
			if err != nil {
				fmt.Fprintf(stderr, "arbor demo: reload: the running trees stay:\n")
				printErrors(stderr, err)
				return
			}
			// Move only the agents whose tree changed.
			var moved int
			sess.Do(func(m *arbor.Manager) {
				if nv.Fingerprint() != vt.Fingerprint() {
					moved += m.Reload(vt, nv)
					vt = nv
				}
				if nm.Fingerprint() != mt.Fingerprint() {
					moved += m.Reload(mt, nm)
					mt = nm
				}
			})
			fmt.Fprintf(stdout, "arbor demo: reloaded the trees (%s)\n", plural(moved, "agent"))
		})
	}
	// Ready once the watcher has its files' first stamps: an edit from
	// then on reloads.
	if ready != nil {
		ready(strings.TrimSuffix(base, "/"))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		village.Run(runCtx, w, sess, *ticks)
	}()
	err = debug.Serve(ctx, ln, w.Mux(sess))
	cancel()
	<-done
	watcher.Wait()
	w.Manager().Close()
	if err != nil {
		fmt.Fprintf(stderr, "arbor demo: %v\n", err)
		return 1
	}
	return 0
}

// demoTreeFile names the file of the village's tree name in fsys (as
// village.LoadTrees finds it).
func demoTreeFile(fsys fs.FS, name string) string {
	for _, ext := range []string{".yaml", ".yml", ".json"} {
		if _, err := fs.Stat(fsys, name+ext); err == nil {
			return name + ext
		}
	}
	return name + ".yaml"
}

// treeDir returns the directory the demo's trees are read from, if they
// come from files (not the built-in copies).
func treeDir(flagDir string) (string, bool) {
	if flagDir != "" {
		return flagDir, true
	}
	if _, err := os.Stat(filepath.Join(demoTreesDir, "villager.yaml")); err == nil {
		return demoTreesDir, true
	}
	return "", false
}

// demoTrees picks the directory of the village's trees.
func demoTrees(dir string) (fs.FS, string, error) {
	if dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return nil, "", fmt.Errorf("-trees: %w", err)
		}
		return os.DirFS(dir), dir, nil
	}
	if _, err := os.Stat(filepath.Join(demoTreesDir, "villager.yaml")); err == nil {
		return os.DirFS(demoTreesDir), demoTreesDir, nil
	}
	return village.Embedded(), "the built-in copies; -trees DIR reads your own", nil
}

// displayAddr formats a listener address for URLs.
func displayAddr(a net.Addr) string {
	if tcp, ok := a.(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
	}
	return a.String()
}

// cmdServe implements "arbor serve FILE...": agents of trees made of
// built-in nodes and mocks, ticked in real time and served with the
// debugger.
func cmdServe(args []string, stdout, stderr io.Writer) int {
	return untilSignal(runServe, args, stdout, stderr)
}

// runServe is cmdServe with a context; ready, when not nil, receives the
// base URL once the server listens.
func runServe(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(base string)) int {
	fset := flag.NewFlagSet("serve", flag.ContinueOnError)
	fset.SetOutput(stderr)
	addr := fset.String("addr", debug.DefaultAddr, "address to serve the debugger on (no host: 127.0.0.1)")
	agents := fset.Int("agents", 1, "agents per file")
	tickMs := fset.Float64("tick-ms", 100, "milliseconds between ticks (game time follows the wall clock)")
	ticks := fset.Int("ticks", 0, "stop ticking after N ticks (0: until interrupted)")
	controls := fset.Bool("controls", false, "let the debugger pause, step and resume agents, write blackboards and edit the trees, their parameters and their shape (prints a URL holding the token)")
	history := fset.Int("history", 500, "ticks of history kept for each watched agent")
	mocks := mockFlags{}
	fset.Var(mocks, "mock", "script a node type: Type=running,running,success (repeatable); other unknown types run one tick, then succeed (in a guard: a condition that holds, or by the script's first status)")
	var palettes typesFlags
	fset.Var(&palettes, "types", "a palette `FILE` declaring the program's node types (as for validate; repeatable): they run as mocks of their category taking the parameters it declares, the edit form lists them with those parameters, and edits are checked against them")
	fset.Usage = func() {
		fmt.Fprintln(fset.Output(), "usage: arbor serve [flags] FILE...\n\n"+
			"Ticks agents of the trees in FILEs (built-in nodes; unknown leaf types are mock actions, unknown types\n"+
			"with children stand-ins that tick their children in order) and serves the debugger at http://"+debug.DefaultAddr+"/.")
		fset.PrintDefaults()
	}
	if code, ok := parseArgs(fset, args, stdout); !ok {
		return code
	}
	if msg := checkArgs(fset, "FILE..."); msg != "" {
		return usageError(fset, "%s", msg)
	}
	switch {
	case *agents < 1:
		return usageError(fset, "-agents must be 1 or more, got %d", *agents)
	case *ticks < 0:
		return usageError(fset, "-ticks must be 0 or more, got %d", *ticks)
	case *history < 1:
		return usageError(fset, "-history must be 1 or more, got %d", *history)
	}
	if msg := checkTickMs(*tickMs, *ticks); msg != "" {
		return usageError(fset, "%s", msg)
	}
	decl, err := readPalettes(palettes)
	if err != nil {
		fmt.Fprintf(stderr, "arbor serve: %v\n", err)
		return 1
	}
	// Node errors go to the debugger (sess, made below before any tick)
	// and to the log.
	var sess *debug.Session
	m := arbor.NewManager(arbor.WithManagerErrorHandler(func(e *arbor.NodeError) {
		sess.ReportError(e)
		slog.Warn("arbor serve: node error", "err", e)
	}))
	defer m.Close()
	// The trees by file, and their files' names and formats (for the
	// agent list, hot reloads, the debugger's edits and downloads): read
	// and written under the session's lock once it runs.
	names := map[*arbor.Tree]string{}
	current := map[string]*arbor.Tree{}
	formats := map[string]string{}
	types := map[string]bool{}
	// The node types the debugger's edit form describes: the built-ins,
	// and the mocks and stand-ins of every file (they take any
	// parameters), those of a file's reload registered under the
	// session's lock.
	described := arbor.NewRegistry()
	if err := decl.register(described, mocks, serveIdle); err != nil {
		fmt.Fprintf(stderr, "arbor serve: %v\n", err)
		return 1
	}
	for _, path := range fset.Args() {
		tree, doc, err := loadMocked(path, mocks, decl)
		if err != nil {
			printErrors(stderr, err)
			return 1
		}
		if err := addMocks(described, doc, mocks); err != nil {
			fmt.Fprintf(stderr, "arbor serve: warning: %s: the edit form does not describe its mocks: %v\n", path, err)
		}
		for _, w := range mockWarnings(doc, mocks) {
			fmt.Fprintf(stderr, "arbor serve: warning: %s: %s\n", path, w)
		}
		docTypes, _ := nodeTypes(doc)
		for t := range docTypes {
			types[t] = true
		}
		names[tree] = filepath.Base(path)
		current[path] = tree
		formats[path], _ = format.Detect(path)
		for i := 0; i < *agents; i++ {
			m.Add(tree)
		}
	}
	for _, w := range unusedMocks(types, mocks) {
		fmt.Fprintf(stderr, "arbor serve: warning: %s\n", w)
	}
	sess = debug.NewSession(m, debug.Options{
		History:  *history,
		Controls: *controls,
		Title:    "Arbor debugger · " + strings.Join(fset.Args(), ", "),
		Label: func(a *arbor.Agent) string {
			return names[a.Tree()]
		},
		// An edit in the debugger compiles as the file did (mocks and
		// stand-ins); the file's next change replaces the edited tree.
		Recompile: func(old *arbor.Tree, doc *arbor.Document) (*arbor.Tree, error) {
			tree, err := compileMocked(doc, mocks, decl)
			if err != nil {
				return nil, err
			}
			for path, t := range current {
				if t == old {
					current[path] = tree
					names[tree] = filepath.Base(path)
				}
			}
			delete(names, old)
			return tree, nil
		},
		TreeSource: func(t *arbor.Tree) (string, string) {
			for path, ct := range current {
				if ct == t {
					return path, formats[path]
				}
			}
			return "", ""
		},
		Registry: described,
	})
	ln, err := debug.Listen(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "arbor serve: %v\n", err)
		return 1
	}
	base := "http://" + displayAddr(ln.Addr()) + "/"
	url := base
	if tok := sess.Token(); tok != "" {
		url += "#token=" + tok
	}
	fmt.Fprintf(stdout, "arbor serve: %s of %s\n  debugger: %s\nPress Ctrl+C to stop.\n", plural(m.Len(), "agent"), plural(len(fset.Args()), "tree"), url)
	step := time.Duration(*tickMs * float64(time.Millisecond))
	// The watcher ends before the command returns (it writes to stdout).
	var watcher sync.WaitGroup
	defer watcher.Wait()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Hot reload: a tree file edited on disk (or a file it includes)
	// replaces its tree in the running agents (their running nodes are
	// halted, blackboards kept).
	goWatch(&watcher, runCtx, fset.Args(), treeFiles, time.Second, func(path string) {
		tree, doc, err := loadMocked(path, mocks, decl)
		if err != nil {
			fmt.Fprintf(stderr, "arbor serve: reload %s: the running tree stays:\n", path)
			printErrors(stderr, err)
			return
		}
		var moved int
		sess.Do(func(m *arbor.Manager) {
			if err := addMocks(described, doc, mocks); err != nil {
				fmt.Fprintf(stderr, "arbor serve: warning: %s: the edit form does not describe its mocks: %v\n", path, err)
			}
			old := current[path]
			moved = m.Reload(old, tree)
			delete(names, old)
			names[tree] = filepath.Base(path)
			current[path] = tree
		})
		fmt.Fprintf(stdout, "arbor serve: reloaded %s (%s)\n", path, plural(moved, "agent"))
	})
	// Ready once the watcher has its files' first stamps: an edit from
	// then on reloads.
	if ready != nil {
		ready(strings.TrimSuffix(base, "/"))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		tk := time.NewTicker(step)
		defer tk.Stop()
		for n := 1; *ticks == 0 || n <= *ticks; n++ {
			select {
			case <-runCtx.Done():
				return
			case <-tk.C:
			}
			sess.Tick(time.Duration(n) * step)
		}
	}()
	err = debug.Serve(ctx, ln, sess.Handler())
	cancel()
	<-done
	watcher.Wait()
	if err != nil {
		fmt.Fprintf(stderr, "arbor serve: %v\n", err)
		return 1
	}
	return 0
}

// serveIdle is what an action mock of arbor serve does unless scripted:
// run one tick, then succeed (so that the debugger shows it running).
var serveIdle = []arbor.Status{arbor.Running, arbor.Success}

// loadMocked loads a tree file (any format) whose unknown leaf node types
// become mock actions: scripted by mocks, or running for one tick, then
// succeeding (types used in guards: mock conditions; types with children:
// stand-ins; see mockUnknown). The types decl declares are mocks of
// their category that take the parameters declared.
func loadMocked(path string, mocks mockFlags, decl declared) (*arbor.Tree, *arbor.Document, error) {
	doc, err := loadTreeFile(path, "")
	if err != nil {
		return nil, nil, err
	}
	tree, err := compileMocked(doc, mocks, decl)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return tree, doc, nil
}

// compileMocked compiles a tree file's document as loadMocked does: its
// unknown node types mocks and stand-ins. The debugger's edits of a tree
// compile through it too, so that they run the same mocks.
func compileMocked(doc *arbor.Document, mocks mockFlags, decl declared) (*arbor.Tree, error) {
	reg := arbor.NewRegistry()
	if err := decl.register(reg, mocks, serveIdle); err != nil {
		return nil, err
	}
	if err := addMocks(reg, doc, mocks); err != nil {
		return nil, err
	}
	return arbor.Compile(doc, reg)
}

// addMocks registers in reg the mocks and stand-ins that doc's unknown
// node types run as (compileMocked), but for the types reg knows: a
// registry given the documents of several files in turn describes their
// node types to the debugger's edit form.
func addMocks(reg *arbor.Registry, doc *arbor.Document, mocks mockFlags) error {
	scripts := mockFlags{}
	for name, script := range mocks {
		if !reg.Has(name) {
			scripts[name] = script
		}
	}
	inGuard := guardTypes(doc)
	for _, name := range unknownTypes(reg, doc) {
		if _, ok := scripts[name]; !ok && !inGuard[name] {
			scripts[name] = serveIdle
		}
	}
	return mockUnknown(reg, doc, scripts, false)
}

// unknownTypes lists the leaf node types of doc that reg does not know,
// sorted (a type used with children cannot be a mock action).
func unknownTypes(reg *arbor.Registry, doc *arbor.Document) []string {
	types, withChildren := nodeTypes(doc)
	var out []string
	for _, name := range sortedNames(types) {
		if !reg.Has(name) && !withChildren[name] {
			out = append(out, name)
		}
	}
	return out
}

// plural writes a count with its noun: "1 agent", "3 agents".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
