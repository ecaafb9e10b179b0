package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/internal/rawdoc"
)

// Result is the outcome of one scenario.
type Result struct {
	Name   string
	File   string
	Passed bool
	// Failure says what differed first (or why the scenario could not run).
	Failure string
	// Log holds every tick's status and trace, and reported node errors
	// (printed by arbor test -v).
	Log []string
}

// mockMem is a mock action's per-agent memory: the script position.
type mockMem struct{ next int }

type mockAction struct {
	script []arbor.Status
	rec    *recorder // nil when a tracer records the events
}

func (m mockAction) Tick(c *arbor.Ctx, mem *mockMem) (arbor.Status, error) {
	i := mem.next
	if i >= len(m.script) {
		i = len(m.script) - 1
	}
	mem.next++
	m.rec.add(c, m.script[i].String())
	return m.script[i], nil
}

// Halt is the halt callback: recorded like a halt event.
func (m mockAction) Halt(c *arbor.Ctx, _ *mockMem) { m.rec.add(c, "halt") }

// recorder collects the mocks' events as they record them themselves: the
// trace without the start events, for a run without a tracer (the engine
// takes its fast paths only when no tracer is set).
type recorder struct {
	labels []string
	events []string
}

func (r *recorder) add(c *arbor.Ctx, what string) {
	if r != nil {
		r.events = append(r.events, r.labels[c.Node()]+":"+what)
	}
}

// Registry returns a registry with the scenario's mocks and conditions
// registered. Naming a built-in type is an error (a load error of the
// scenario).
func (s *Scenario) Registry() (*arbor.Registry, error) { return s.registry(nil) }

// registry is Registry with mocks that record their events in rec (when
// not nil).
func (s *Scenario) registry(rec *recorder) (*arbor.Registry, error) {
	reg := arbor.NewRegistry()
	for _, name := range sortedKeys(s.Mocks) {
		script := s.Mocks[name]
		if arbor.IsBuiltin(name) {
			return nil, fmt.Errorf("mock %q: %q is a built-in node type and cannot be mocked", name, name)
		}
		err := arbor.RegisterActionFactory[mockMem](reg, name, nil,
			func(map[string]any) (arbor.Action[mockMem], error) { return mockAction{script, rec}, nil }, arbor.AnyParams())
		if err != nil {
			return nil, fmt.Errorf("mock %q: %w", name, err)
		}
	}
	for _, name := range sortedKeys(s.Conditions) {
		key := arbor.NewKey[arbor.Value](s.Conditions[name])
		if arbor.IsBuiltin(name) {
			return nil, fmt.Errorf("condition %q: %q is a built-in node type and cannot be a scenario condition", name, name)
		}
		err := reg.ConditionFunc(name, func(c *arbor.Ctx) (bool, error) {
			v, err := key.Get(c.Blackboard())
			if err != nil {
				return false, nil
			}
			return truthy(v), nil
		}, arbor.AnyParams())
		if err != nil {
			return nil, fmt.Errorf("condition %q: %w", name, err)
		}
	}
	return reg, nil
}

// truthy is a scenario condition's test: true, a non-zero number or a
// non-empty string.
func truthy(v arbor.Value) bool {
	if b, ok := v.Bool(); ok {
		return b
	}
	if f, ok := v.Number(); ok {
		return f != 0
	}
	if s, ok := v.Str(); ok {
		return s != ""
	}
	return false
}

// Load builds the scenario's tree.
func (s *Scenario) Load() (*arbor.Tree, error) { return s.load(nil) }

func (s *Scenario) load(rec *recorder) (*arbor.Tree, error) {
	reg, err := s.registry(rec)
	if err != nil {
		return nil, err
	}
	var doc *arbor.Document
	if s.tree != nil {
		doc, err = s.inlineTree()
	} else {
		path := s.TreeFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(s.File), path)
		}
		switch s.TreeFormat {
		case "", "arbor":
			if doc, err = arbor.LoadFile(path); err != nil {
				if f := foreignFormat(path); f != "" {
					err = fmt.Errorf("treeFile %s looks like %s, which treeFormat %s reads (without treeFormat, treeFile is read as the native format): %w", s.TreeFile, formatTitles[f], f, err)
				}
			}
		default:
			load, ok := loaders[s.TreeFormat]
			if !ok {
				return nil, fmt.Errorf("treeFormat %q is not supported (arbor, or one added by a format package)", s.TreeFormat)
			}
			doc, err = load(path)
		}
	}
	if err != nil {
		return nil, err
	}
	return arbor.Compile(doc, reg)
}

// inlineTree decodes the scenario's tree: a native document, or one of
// the treeFormat added by AddInlineTreeFormat. scenario.md makes an
// inline tree native and ties treeFormat to treeFile, so a tree that is
// native (a root node, or a document with format or a trees object) is
// read as native whatever treeFormat says: a scenario the spec allows
// never fails here. Only an object no native document could be (a
// Behavior3 export) or a string (BT.CPP XML) goes to the treeFormat.
func (s *Scenario) inlineTree() (*arbor.Document, error) {
	load, ok := inlineLoaders[s.TreeFormat]
	switch {
	case s.TreeFormat == "" || s.TreeFormat == "arbor" || (ok && looksNative(s.tree)):
		d, err := rawdoc.DecodeTree(s.tree)
		if err != nil {
			return nil, err
		}
		return d.(*arbor.Document), nil
	case !ok:
		if _, known := loaders[s.TreeFormat]; known {
			return nil, fmt.Errorf("treeFormat %q is read from a treeFile only, not from an inline tree", s.TreeFormat)
		}
		return nil, fmt.Errorf("treeFormat %q is not supported (arbor, or one added by a format package)", s.TreeFormat)
	}
	var data []byte
	if s.tree.Kind == rawdoc.String {
		data = []byte(s.tree.Str)
	} else {
		// Duplicate keys vanish from the JSON text: report them here.
		if d := rawdoc.FirstDuplicate(s.tree); d != nil {
			return nil, rawdoc.DuplicateError(d)
		}
		data = jsonText(s.tree)
	}
	return load(data, filepath.Dir(s.File))
}

// looksNative reports a tree that is a native document or root node: an
// object with a "type" (a bare root node) or "format" key, or with
// "trees" holding an object (Behavior3 projects hold a list there).
func looksNative(v *rawdoc.Value) bool {
	if v == nil || v.Kind != rawdoc.Object {
		return false
	}
	if v.Get("type") != nil || v.Get("format") != nil {
		return true
	}
	t := v.Get("trees")
	return t != nil && t.Kind == rawdoc.Object
}

// jsonText writes v as JSON text in which every value and key is on the
// line it has in the scenario file, so that the format's messages give
// the scenario file's lines. Numbers JSON cannot write (YAML's .inf and
// .nan) are written as they are, for the format's parser to refuse.
func jsonText(v *rawdoc.Value) []byte {
	var b bytes.Buffer
	line := 1
	to := func(l int) {
		for ; line < l; line++ {
			b.WriteByte('\n')
		}
	}
	quote := func(s string) {
		q, _ := json.Marshal(s) // a string always marshals
		b.Write(q)
	}
	var write func(v *rawdoc.Value)
	write = func(v *rawdoc.Value) {
		to(v.Line)
		switch v.Kind {
		case rawdoc.Object:
			b.WriteByte('{')
			for i, f := range v.Fields {
				if i > 0 {
					b.WriteByte(',')
				}
				to(f.Line)
				quote(f.Key)
				b.WriteByte(':')
				write(f.Val)
			}
			b.WriteByte('}')
		case rawdoc.List:
			b.WriteByte('[')
			for i, e := range v.List {
				if i > 0 {
					b.WriteByte(',')
				}
				write(e)
			}
			b.WriteByte(']')
		case rawdoc.String:
			quote(v.Str)
		case rawdoc.Number:
			b.WriteString(strconv.FormatFloat(v.Num, 'g', -1, 64))
		case rawdoc.Bool:
			b.WriteString(strconv.FormatBool(v.Bool))
		default:
			b.WriteString("null")
		}
	}
	write(v)
	return b.Bytes()
}

var formatTitles = map[string]string{"b3": "Behavior3 editor JSON", "btcpp": "BehaviorTree.CPP XML"}

// foreignFormat tells, for the message of a native treeFile that did not
// load, whether the file is of another format: "btcpp" for XML, "b3" for
// JSON with Behavior3's keys, else "".
func foreignFormat(path string) string {
	data, err := rawdoc.ReadFile(path, rawdoc.DefaultMaxBytes) // not all of /dev/zero
	if err != nil {
		return ""
	}
	data = bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\ufeff")), " \t\r\n")
	if bytes.HasPrefix(data, []byte("<")) {
		return "btcpp"
	}
	v, err := rawdoc.Parse(data, false, rawdoc.Limits{})
	if err != nil || v.Kind != rawdoc.Object || v.Get("trees") != nil && v.Get("trees").Kind == rawdoc.Object {
		return ""
	}
	for _, k := range []string{"scope", "nodes", "custom_nodes"} {
		if v.Get(k) != nil {
			return "b3"
		}
	}
	return ""
}

// Run runs the scenario twice: with a tracer recording the trace, and
// without one, the mocks recording their own results and halts (the trace
// less its start events). The engine takes its fast paths only when no
// tracer is set, so the second run checks them against the same
// expectations.
func (s *Scenario) Run() (res Result) {
	res = Result{Name: s.Name, File: s.File}
	defer func() {
		if r := recover(); r != nil {
			res.Passed = false
			res.Failure = fmt.Sprintf("panic: %v", r)
		}
	}()
	tree, err := s.Load()
	if s.hasLoadError {
		switch {
		case err == nil:
			res.Failure = fmt.Sprintf("expected a load error containing %q, but the tree loaded", s.LoadError)
		case !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(s.LoadError)):
			res.Failure = fmt.Sprintf("expected a load error containing %q, got: %v", s.LoadError, err)
		default:
			res.Passed = true
			res.Log = append(res.Log, "load error: "+err.Error())
		}
		return res
	}
	if err != nil {
		res.Failure = "load error: " + err.Error()
		return res
	}
	if s.play(tree, nil, &res); !res.Passed {
		return res
	}
	rec := &recorder{}
	if tree, err = s.load(rec); err != nil {
		res.Passed, res.Failure = false, "load error: "+err.Error()
		return res
	}
	rec.labels, _ = s.labels(tree)
	var quiet Result
	if s.play(tree, rec, &quiet); !quiet.Passed {
		res.Passed, res.Failure = false, "without a tracer: "+quiet.Failure
		res.Log = append(res.Log, "without a tracer:")
		res.Log = append(res.Log, quiet.Log...)
	}
	return res
}

// play ticks the scenario's steps on a new agent of tree, into res. With
// rec nil a tracer records the trace; else the mocks record theirs in rec
// and expected traces are compared without their start events.
func (s *Scenario) play(tree *arbor.Tree, rec *recorder, res *Result) {
	var events []string
	labels, mocks := s.labels(tree)
	tracer := func(_ *arbor.Agent, e arbor.Event) {
		if !mocks[e.Node] {
			return
		}
		switch e.Kind {
		case arbor.EventStart:
			events = append(events, labels[e.Node]+":start")
		case arbor.EventResult:
			events = append(events, labels[e.Node]+":"+e.Status.String())
		case arbor.EventHalt:
			events = append(events, labels[e.Node]+":halt")
		}
	}
	onError := func(e *arbor.NodeError) { res.Log = append(res.Log, "  node error: "+e.Error()) }
	opts := []arbor.AgentOption{arbor.WithErrorHandler(onError)}
	if rec == nil {
		opts = append(opts, arbor.WithTracer(tracer))
	}
	agent := arbor.NewAgent(tree, opts...)
	// want is an expected trace as this run records it.
	want := func(trace []string) []string {
		if rec == nil {
			return trace
		}
		var out []string
		for _, e := range trace {
			if !strings.HasSuffix(e, ":start") {
				out = append(out, e)
			}
		}
		return out
	}
	// got returns the events recorded since the last call.
	got := func() []string {
		if rec == nil {
			e := events
			events = events[:0]
			return e
		}
		e := rec.events
		rec.events = rec.events[:0]
		return e
	}
	bb := agent.Blackboard()
	for _, kv := range s.Blackboard {
		bb.Set(kv.Key, kv.Value)
	}

	tick := 0
	for si, step := range s.Steps {
		for r := 0; r < step.Repeat; r++ {
			tick++
			for _, kv := range step.Set {
				bb.Set(kv.Key, kv.Value)
			}
			for _, k := range step.Delete {
				bb.Delete(k)
			}
			now := time.Duration(math.Round(float64(tick) * s.TickMs * float64(time.Millisecond)))
			got()
			status := agent.Tick(now)
			events := got()
			res.Log = append(res.Log, fmt.Sprintf("  tick %d (t=%v): %s %s", tick, now, status, quoteList(events)))
			where := fmt.Sprintf("tick %d (ticks[%d]", tick, si)
			if step.Repeat > 1 {
				where += fmt.Sprintf(", repetition %d", r+1)
			}
			where += ")"
			if step.Status != arbor.Invalid && status != step.Status {
				res.Failure = fmt.Sprintf("%s: status: expected %s, got %s; trace %s", where, step.Status, status, quoteList(events))
				return
			}
			if step.hasTrace && !slices.Equal(events, want(step.Trace)) {
				res.Failure = fmt.Sprintf("%s: trace:\n    expected %s\n    actual   %s", where, quoteList(want(step.Trace)), quoteList(events))
				return
			}
			if msg := compareBlackboard(bb, step.Blackboard); msg != "" {
				res.Failure = fmt.Sprintf("%s: blackboard: %s", where, msg)
				return
			}
		}
	}
	if s.Halt {
		got()
		agent.Halt()
		events := got()
		res.Log = append(res.Log, "  halt: "+quoteList(events))
		if s.hasHaltTrace && !slices.Equal(events, want(s.HaltTrace)) {
			res.Failure = fmt.Sprintf("halt: trace:\n    expected %s\n    actual   %s", quoteList(want(s.HaltTrace)), quoteList(events))
			return
		}
	}
	res.Passed = true
}

// labels returns each node's trace label and whether it is a mock.
func (s *Scenario) labels(t *arbor.Tree) ([]string, []bool) {
	labels := make([]string, t.Len())
	mocks := make([]bool, t.Len())
	for i := range labels {
		info := t.Node(i)
		labels[i] = info.Label()
		_, mocks[i] = s.Mocks[info.Type]
	}
	return labels, mocks
}

func compareBlackboard(bb *arbor.Blackboard, want []KV) string {
	for _, kv := range want {
		got, ok := bb.Lookup(kv.Key)
		if kv.Value == nil {
			if ok {
				return fmt.Sprintf("%s: expected absent, got %s", kv.Key, got)
			}
			continue
		}
		exp := arbor.ValueOf(kv.Value)
		if !ok {
			return fmt.Sprintf("%s: expected %s, got absent", kv.Key, exp)
		}
		if !got.Equal(exp) {
			return fmt.Sprintf("%s: expected %s, got %s", kv.Key, exp, got)
		}
	}
	return ""
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = fmt.Sprintf("%q", s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Summary counts results.
type Summary struct{ Passed, Failed int }

// RunPaths runs every scenario under paths, writing one PASS/FAIL line per
// scenario (with details for failures; every tick with verbose) and the
// final "N passed, N failed" line to w.
func RunPaths(w io.Writer, paths []string, verbose bool) (Summary, error) {
	var sum Summary
	var files []string
	for _, p := range paths {
		found, err := Collect([]string{p})
		if err != nil {
			// A path that cannot be read is a failure, not the end of the run.
			sum.Failed++
			fmt.Fprintf(w, "FAIL %s\n    %v\n", p, err)
			continue
		}
		files = append(files, found...)
	}
	for _, f := range files {
		list, err := ParseFile(f)
		if err != nil {
			sum.Failed++
			fmt.Fprintf(w, "FAIL %s\n    %v\n", f, err)
			continue
		}
		for _, s := range list {
			r := s.Run()
			if r.Passed {
				sum.Passed++
				fmt.Fprintf(w, "PASS %s\n", r.Name)
			} else {
				sum.Failed++
				fmt.Fprintf(w, "FAIL %s\n    %s: %s\n", r.Name, f, r.Failure)
			}
			if verbose || !r.Passed {
				for _, l := range r.Log {
					if verbose || strings.Contains(l, "node error") {
						fmt.Fprintln(w, l)
					}
				}
			}
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", sum.Passed, sum.Failed)
	return sum, nil
}
