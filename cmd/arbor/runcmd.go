package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/internal/suggest"
)

// mockFlags collects -mock Type=script flags.
type mockFlags map[string][]arbor.Status

func (m mockFlags) String() string { return fmt.Sprint(map[string][]arbor.Status(m)) }

func (m mockFlags) Set(s string) error {
	name, script, ok := strings.Cut(s, "=")
	if !ok || name == "" || script == "" {
		return fmt.Errorf("want Type=status,status,... (statuses: success, failure, running)")
	}
	if arbor.NewRegistry().Has(name) {
		return fmt.Errorf("%s is a built-in node type; only other types can be mocked", name)
	}
	for _, e := range strings.Split(script, ",") {
		st, valid := arbor.ParseStatus(strings.TrimSpace(e))
		if !valid {
			return fmt.Errorf("%q is not success, failure or running", e)
		}
		m[name] = append(m[name], st)
	}
	return nil
}

// setFlags collects -set key=value flags, in order.
type setFlags []setFlag

type setFlag struct {
	key   string
	value any // decoded JSON, or the text when it is not JSON
}

func (f *setFlags) String() string { return fmt.Sprint([]setFlag(*f)) }

func (f *setFlags) Set(s string) error {
	key, text, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return fmt.Errorf("want key=value (the value in JSON, or a plain string)")
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		v = text // not JSON: the text itself
	}
	*f = append(*f, setFlag{key, v})
	return nil
}

// setValue sets key in m (made when nil) and returns m.
func setValue(m map[string]any, key string, v any) map[string]any {
	if m == nil {
		m = map[string]any{}
	}
	m[key] = v
	return m
}

type mockMem struct{ next int }

type mockAction struct{ script []arbor.Status }

func (a mockAction) Tick(_ *arbor.Ctx, m *mockMem) (arbor.Status, error) {
	i := min(m.next, len(a.script)-1)
	m.next++
	return a.script[i], nil
}

// standIn is what a node type of the program's that has children runs as
// (-allow-unknown): it ticks its children in order, as a Sequence does, so
// that a decorator (one child) returns its child's result.
type standIn struct{}

type standInMem struct{ next int }

func (standIn) Tick(_ *arbor.Ctx, m *standInMem, kids arbor.Children) (arbor.Status, error) {
	for ; m.next < kids.Len(); m.next++ {
		if s := kids.Tick(m.next); s != arbor.Success {
			return s, nil
		}
	}
	return arbor.Success, nil
}

// registerStandIn registers name as a stand-in decorator when every node of
// that type in doc has one child, else as a stand-in control.
func registerStandIn(reg *arbor.Registry, name string, decorator bool) error {
	build := func(map[string]any) (arbor.Control[standInMem], error) { return standIn{}, nil }
	if decorator {
		return arbor.RegisterDecoratorFactory(reg, name, nil, build, arbor.AnyParams())
	}
	return arbor.RegisterControlFactory(reg, name, nil, build, arbor.AnyParams())
}

// standInShapes returns, for each node type of doc used with children,
// whether every node of that type has exactly one child (a decorator).
func standInShapes(doc *arbor.Document) map[string]bool {
	one := map[string]bool{}
	eachNode(doc, func(n *arbor.Node) {
		if len(n.Children) > 0 {
			d, seen := one[n.Type]
			one[n.Type] = len(n.Children) == 1 && (d || !seen)
		}
	})
	return one
}

// standInWhat says what the stand-in for a type with children does.
func standInWhat(decorator bool) string {
	if decorator {
		return "a stand-in decorator that returns its child's result"
	}
	return "a stand-in control that ticks its children in order, as a Sequence"
}

// nodeTypes returns the node types of doc (guards included), and the
// ones some node of doc uses with children.
func nodeTypes(doc *arbor.Document) (types, withChildren map[string]bool) {
	types, withChildren = map[string]bool{}, map[string]bool{}
	eachNode(doc, func(n *arbor.Node) {
		types[n.Type] = true
		if len(n.Children) > 0 {
			withChildren[n.Type] = true
		}
	})
	return types, withChildren
}

// eachNode calls fn for every node of doc's trees, guards included.
func eachNode(doc *arbor.Document, fn func(n *arbor.Node)) {
	var walk func(n *arbor.Node)
	walk = func(n *arbor.Node) {
		if n == nil {
			return
		}
		fn(n)
		for _, c := range n.Children {
			walk(c)
		}
		walk(n.Guard)
	}
	for _, t := range doc.Trees {
		walk(t)
	}
}

// guardTypes returns the node types used in doc's guards.
func guardTypes(doc *arbor.Document) map[string]bool {
	in := map[string]bool{}
	var walk func(n *arbor.Node, guard bool)
	walk = func(n *arbor.Node, guard bool) {
		if n == nil {
			return
		}
		if guard {
			in[n.Type] = true
		}
		for _, c := range n.Children {
			walk(c, guard)
		}
		walk(n.Guard, true)
	}
	for _, t := range doc.Trees {
		walk(t, false)
	}
	return in
}

// mockCondition reports whether the mock for an unknown type is a
// condition rather than an action: the type is used in a guard, where
// only conditions may stand, and its script (if any) never runs. It
// returns the condition's constant result.
func mockCondition(name string, inGuard map[string]bool, mocks mockFlags) (result, ok bool) {
	if !inGuard[name] {
		return false, false
	}
	script, scripted := mocks[name]
	if !scripted {
		return true, true
	}
	for _, st := range script {
		if st == arbor.Running {
			return false, false
		}
	}
	return script[0] == arbor.Success, true
}

// sortedNames returns the keys of m in order.
func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// mockUnknown registers every node type of doc that the registry does not
// know as a mock action (scripted by mocks, or always succeeding), or as a
// mock condition when it is used in a guard (mockCondition). A type
// used with children runs as a stand-in (standIn) unless it looks like a
// misspelt built-in type: then the compiler reports it as unknown, with
// the type it probably means. With onlyScripted, only
// the types mocks scripts are registered (arbor run without
// -allow-unknown), still as conditions when doc uses them in guards.
func mockUnknown(reg *arbor.Registry, doc *arbor.Document, mocks mockFlags, onlyScripted bool) error {
	types, withChildren := nodeTypes(doc)
	inGuard := guardTypes(doc)
	for name := range mocks {
		types[name] = true
	}
	shapes := standInShapes(doc)
	builtin := arbor.NewRegistry().Types()
	for _, name := range sortedNames(types) {
		script, scripted := mocks[name]
		if !scripted && withChildren[name] && !onlyScripted && !reg.Has(name) && suggest.Closest(name, builtin) == "" {
			if err := registerStandIn(reg, name, shapes[name]); err != nil {
				return err
			}
			continue
		}
		if !scripted && (onlyScripted || reg.Has(name) || withChildren[name]) {
			continue
		}
		if result, ok := mockCondition(name, inGuard, mocks); ok {
			if err := reg.ConditionFunc(name, func(*arbor.Ctx) (bool, error) { return result, nil }, arbor.AnyParams()); err != nil {
				return err
			}
			continue
		}
		if !scripted {
			script = []arbor.Status{arbor.Success}
		}
		err := arbor.RegisterActionFactory[mockMem](reg, name, nil,
			func(map[string]any) (arbor.Action[mockMem], error) { return mockAction{script}, nil }, arbor.AnyParams())
		if err != nil {
			return err
		}
	}
	return nil
}

// mockWarnings returns what to say before doc runs with mocks for its
// unknown types: the unknown leaf types that look like misspelt built-in
// types (a mock would hide the typo). Types that mocks scripts are the
// user's choice.
func mockWarnings(doc *arbor.Document, mocks mockFlags) []string {
	builtin := arbor.NewRegistry()
	types, withChildren := nodeTypes(doc)
	inGuard := guardTypes(doc)
	shapes := standInShapes(doc)
	var warnings []string
	for _, name := range sortedNames(types) {
		if _, scripted := mocks[name]; scripted || builtin.Has(name) {
			continue
		}
		if withChildren[name] {
			if suggest.Closest(name, builtin.Types()) == "" {
				// A guess at what the program's node does: say so.
				warnings = append(warnings, fmt.Sprintf("node type %q is not built in; it runs as %s", name, standInWhat(shapes[name])))
			}
			continue
		}
		if s := suggest.Closest(name, builtin.Types()); s != "" {
			as := "a mock action"
			if _, cond := mockCondition(name, inGuard, mocks); cond {
				as = "a mock condition that holds"
			}
			warnings = append(warnings, fmt.Sprintf("node type %q is not built in (did you mean %q?); it runs as %s", name, s, as))
		}
	}
	return warnings
}

// programTypes returns the node types of doc that reg does not know and
// that resemble none it knows: most likely the types of the program the
// tree is written for, which -allow-unknown and -mock stand in for.
// Misspellings are left out (the load errors speak of them).
func programTypes(doc *arbor.Document, reg *arbor.Registry) []string {
	known := reg.Types()
	types, _ := nodeTypes(doc)
	var names []string
	for _, name := range sortedNames(types) {
		if name == "" || reg.Has(name) || suggest.Closest(name, known) != "" {
			continue
		}
		names = append(names, name)
	}
	return names
}

// programTypesHint returns what to say after the load errors of a tree
// that uses the program's own node types (programTypes), or "" when it
// uses none: which types, and how to do without the program.
func programTypesHint(doc *arbor.Document, reg *arbor.Registry, how string) string {
	names := programTypes(doc, reg)
	if len(names) == 0 {
		return ""
	}
	list := strings.Join(names, ", ")
	if len(names) > 5 {
		list = strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return fmt.Sprintf("not built in: %s (node types the program registers); %s", list, how)
}

// unusedMocks returns a warning for each -mock type that no node has.
func unusedMocks(types map[string]bool, mocks mockFlags) []string {
	var warnings []string
	for _, name := range sortedNames(mocks) {
		if !types[name] {
			warnings = append(warnings, fmt.Sprintf("-mock %s: no node has type %q", name, name))
		}
	}
	return warnings
}

// cmdRun implements "arbor run FILE -ticks N".
func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ticks := fs.Int("ticks", 10, "number of ticks")
	tickMs := fs.Float64("tick-ms", 100, "game time between ticks, in milliseconds")
	mocks := mockFlags{}
	fs.Var(mocks, "mock", "script a node type: Type=running,running,success (repeatable); a type used in a guard is a condition given by the script's first status")
	var palettes typesFlags
	fs.Var(&palettes, "types", typesUsage)
	allow := fs.Bool("allow-unknown", false, "run types that are not built in as actions that succeed (conditions that hold, for types used in guards; stand-ins that tick their children in order, for types with children)")
	trace := fs.Bool("trace", false, "print every node event")
	sets := setFlags{}
	fs.Var(&sets, "set", "a blackboard value before the first tick: `key=value` (repeatable; the value is JSON, else a string: -set hp=25 -set mode=idle -set 'path=[1,2]'; a key starting with @ is global)")
	scenarioOut := fs.String("scenario", "", "also write the run as a scenario file (`OUT`.yaml or .json) that expects its statuses and traces, for arbor test")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: arbor run [-ticks N] [-tick-ms MS] [-mock Type=status,...] [-types PALETTE] [-allow-unknown] [-set key=value] [-trace] [-scenario OUT] FILE\n\nTicks a tree of built-in nodes (and -mock scripted types) and prints each tick's status.")
		fs.PrintDefaults()
	}
	if code, ok := parseArgs(fs, args, stdout); !ok {
		return code
	}
	if msg := checkArgs(fs, "FILE"); msg != "" {
		return usageError(fs, "%s", msg)
	}
	if *ticks < 0 {
		return usageError(fs, "-ticks must be 0 or more, got %d", *ticks)
	}
	if msg := checkTickMs(*tickMs, *ticks); msg != "" {
		return usageError(fs, "%s", msg)
	}
	path := fs.Arg(0)
	doc, err := loadTreeFile(path, "")
	if err != nil {
		printErrors(stderr, err)
		return 1
	}
	reg := arbor.NewRegistry()
	if err := registerPalettes(reg, palettes, mocks); err != nil {
		fmt.Fprintf(stderr, "arbor run: %v\n", err)
		return 1
	}
	types, _ := nodeTypes(doc)
	warnings := unusedMocks(types, mocks)
	if *allow {
		warnings = append(mockWarnings(doc, mocks), warnings...)
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "arbor run: warning: %s: %s\n", path, w)
	}
	if len(mocks) > 0 || *allow {
		scripts := mockFlags{} // the palettes' types run their scripts already
		for name, script := range mocks {
			if !reg.Has(name) {
				scripts[name] = script
			}
		}
		if err := mockUnknown(reg, doc, scripts, !*allow); err != nil {
			fmt.Fprintf(stderr, "arbor run: %v\n", err)
			return 1
		}
	}
	tree, err := arbor.Compile(doc, reg)
	if err != nil {
		printErrors(stderr, fmt.Errorf("%s: %w", path, err))
		if hint := programTypesHint(doc, reg, "-types PALETTE runs the types the program's palette declares as mocks, -allow-unknown runs such types as mocks that succeed (stand-ins, for types with children), -mock Type=status,... scripts one"); hint != "" && !*allow {
			fmt.Fprintf(stderr, "arbor run: %s\n", hint)
		}
		return 1
	}
	var rec *recording
	var recActions map[string]bool
	if *scenarioOut != "" {
		if rec, recActions, err = newRecording(path, *scenarioOut, doc, reg, mocks, *tickMs); err != nil {
			fmt.Fprintf(stderr, "arbor run: %v\n", err)
			return 1
		}
		// The recording's mocked conditions read their keys: a -set of
		// one would record a result the run did not use.
		for _, e := range sets {
			for typ, key := range rec.Conditions {
				if e.key == key {
					fmt.Fprintf(stderr, "arbor run: -set %s: with -scenario, that key is the recorded result of the mocked condition %s; give the result with -mock %s=success or failure\n", e.key, typ, typ)
					os.Remove(*scenarioOut) // newRecording made it, empty
					return 2
				}
			}
		}
	}
	var events, recEvents []string
	opts := []arbor.AgentOption{arbor.WithErrorHandler(func(e *arbor.NodeError) {
		fmt.Fprintf(stdout, "  error: %v\n", e)
	})}
	if *trace || rec != nil {
		opts = append(opts, arbor.WithTracer(func(a *arbor.Agent, e arbor.Event) {
			if rec != nil {
				if ev := traceEvent(a, e, recActions); ev != "" {
					recEvents = append(recEvents, ev)
				}
			}
			if !*trace {
				return
			}
			label := a.Tree().Node(int(e.Node)).Label()
			switch e.Kind {
			case arbor.EventResult:
				events = append(events, label+":"+e.Status.String())
			case arbor.EventAbort:
				events = append(events, label+":abort")
			case arbor.EventEval:
				events = append(events, label+":eval:"+e.Status.String())
			default:
				events = append(events, label+":"+e.Kind.String())
			}
		}))
	}
	agent := arbor.NewAgent(tree, opts...)
	if rec != nil {
		for _, e := range sets {
			rec.Blackboard = setValue(rec.Blackboard, e.key, e.value)
		}
		for key, v := range rec.Blackboard {
			agent.Blackboard().Set(key, v)
		}
	} else {
		for _, e := range sets {
			agent.Blackboard().Set(e.key, e.value)
		}
	}
	// Once stdout is gone (arbor run ... | head), the run stops printing;
	// with -scenario it still runs every tick, for the file.
	printing := true
	for i := 1; i <= *ticks; i++ {
		now := time.Duration(float64(i) * *tickMs * float64(time.Millisecond))
		events, recEvents = events[:0], nil
		s := agent.Tick(now)
		if printing {
			var err error
			if *trace {
				_, err = fmt.Fprintf(stdout, "tick %d (t=%v): %s  %s\n", i, now, s, strings.Join(events, " "))
			} else {
				_, err = fmt.Fprintf(stdout, "tick %d (t=%v): %s\n", i, now, s)
			}
			if printing = err == nil; !printing && rec == nil {
				return 0
			}
		}
		if rec != nil {
			rec.Ticks = append(rec.Ticks, recordedTick{Status: s.String(), Trace: append([]string{}, recEvents...)})
		}
	}
	if rec != nil {
		if err := rec.write(*scenarioOut); err != nil {
			fmt.Fprintf(stderr, "arbor run: %v\n", err)
			return 1
		}
		fmt.Fprintln(stderr, scenarioNote(*scenarioOut))
	}
	return 0
}
