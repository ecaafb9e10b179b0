package arbor_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
	"go.yaml.in/yaml/v3"
)

// fzAction runs for n ticks, then succeeds; a target, when given, is read
// at start (a "{key}" target may be missing: a reported error).
type fzAction struct {
	N      int                 `arbor:"n,default=1"`
	Target arbor.Param[string] `arbor:"target"`
}

type fzMem struct{ ticks int }

func (p *fzAction) Start(c *arbor.Ctx, _ *fzMem) error {
	if _, ref := p.Target.IsRef(); ref {
		_, err := p.Target.Get(c)
		return err
	}
	return nil
}

func (p *fzAction) Tick(c *arbor.Ctx, m *fzMem) (arbor.Status, error) {
	m.ticks++
	if m.ticks <= p.N {
		return arbor.Running, nil
	}
	return arbor.Success, nil
}

func (p *fzAction) Halt(c *arbor.Ctx, m *fzMem)                {}
func (p *fzAction) Pause(c *arbor.Ctx, m *fzMem, _ bool)       {}
func (p *fzAction) End(c *arbor.Ctx, m *fzMem, _ arbor.Status) {}

// fzRegistry registers the action and condition names used by the example
// trees.
func fzRegistry(t testing.TB) *arbor.Registry {
	t.Helper()
	reg := arbor.NewRegistry()
	for _, name := range []string{"Attack", "MoveTo", "Fight", "Prepare", "Execute", "Search", "Listen", "Patrol", "A", "B"} {
		if err := arbor.RegisterAction[fzAction, fzMem](reg, name); err != nil {
			t.Fatal(err)
		}
	}
	if err := reg.ConditionFunc("IsReady", func(c *arbor.Ctx) (bool, error) {
		v, ok := c.Blackboard().Lookup("ready")
		if !ok {
			return false, nil
		}
		b, isBool := v.Bool()
		if !isBool {
			return false, errors.New("ready is not a boolean")
		}
		return b, nil
	}); err != nil {
		t.Fatal(err)
	}
	return reg
}

// fzSeeds returns the seed documents: the example and tree files of
// testdata (whole, and for scenario files their embedded tree) and a few
// inline documents.
func fzSeeds(t testing.TB) (docs [][]byte, isYAML []bool) {
	add := func(d []byte, y bool) {
		docs = append(docs, d)
		isYAML = append(isYAML, y)
	}
	var files []string
	for _, pattern := range []string{"testdata/examples/*", "testdata/scenarios/trees/*"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no seed files in testdata")
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		y := arbor.IsYAMLPath(path)
		add(data, y)
		// A scenario file embeds its tree under "tree".
		if y {
			var v map[string]any
			if yaml.Unmarshal(data, &v) == nil && v["tree"] != nil {
				if out, err := yaml.Marshal(v["tree"]); err == nil {
					add(out, true)
				}
			}
		} else {
			var v map[string]any
			if json.Unmarshal(data, &v) == nil {
				var trees []any
				if v["tree"] != nil {
					trees = append(trees, v["tree"])
				}
				if list, ok := v["scenarios"].([]any); ok {
					for _, s := range list {
						if m, ok := s.(map[string]any); ok && m["tree"] != nil {
							trees = append(trees, m["tree"])
						}
					}
				}
				for _, tr := range trees {
					if out, err := json.Marshal(tr); err == nil {
						add(out, false)
					}
				}
			}
		}
	}
	add([]byte(ldExampleJSON), false)
	add([]byte(ldExampleYAML), true)
	add([]byte(`{"type": "Parallel", "success": 1, "failure": -1, "retryFailed": true, "children": [
		{"type": "Timeout", "ms": 30, "child": {"type": "MoveTo", "target": "{goal}", "n": 5}},
		{"type": "Cooldown", "ms": 20, "child": {"type": "Limiter", "max": 2, "child": {"type": "Set", "key": "@x", "value": [1, {"a": null}], "ttlMs": 15}}},
		{"type": "RunOnce", "then": "failure", "child": {"type": "Delay", "ms": 10, "child": {"type": "Wait", "ticks": 2}}}]}`), false)
	add([]byte(`{"type": "SequenceWithMemory", "abort": "both", "children": [
		{"type": "Check", "key": "ready", "op": ">=", "value": "{other}"},
		{"type": "ReactiveSequence", "children": [{"type": "IsReady", "guard": {"type": "Inverter", "child": {"type": "Check", "key": "k", "op": "missing"}}}, {"type": "Attack"}]},
		{"type": "ParallelAll", "maxFailures": -1, "children": [{"type": "RepeatUntilFailure", "child": {"type": "Check", "key": "k", "op": "exists"}}, {"type": "RetryUntilSuccessful", "attempts": 2, "child": {"type": "Failure"}}]}]}`), false)
	add([]byte(`{"type": "RandomSelector", "weights": [3, 0, 0.5], "children": [
		{"type": "RandomSequence", "seed": -7, "children": [{"type": "Attack"}, {"type": "Wait", "ticks": 1}, {"type": "MoveTo", "n": 2}]},
		{"type": "Failure"},
		{"type": "RandomSequence", "guard": {"type": "IsReady"}, "children": [{"type": "Prepare"}, {"type": "Execute"}]}]}`), false)
	add([]byte("type: RandomSequence\nweights: [1, 2]\nseed: 3\nchildren:\n  - {type: Listen}\n  - {type: RandomSelector, children: [{type: Search}, {type: Patrol}]}\n"), true)
	add([]byte(`{"type": "IfThenElse", "children": [
		{"type": "Check", "key": "hp", "op": ">", "value": 30},
		{"type": "WhileDoElse", "children": [{"type": "IsReady"}, {"type": "Attack"}, {"type": "Wait", "ticks": 1}]},
		{"type": "Switch", "key": "mode", "cases": ["idle", 2, true], "children": [{"type": "Patrol"}, {"type": "Failure"}, {"type": "Listen"}, {"type": "Success"}]}]}`), false)
	add([]byte("type: Switch\nkey: '@alarm'\ncases: [1]\nchildren:\n  - {type: IfThenElse, children: [{type: Running}, {type: Flee}]}\n  - {type: WhileDoElse, guard: {type: IsReady}, children: [{type: Success}, {type: Fight}]}\n"), true)
	add([]byte("main: M\ntrees:\n  M:\n    type: Selector\n    abort: lower\n    children:\n      - {type: Check, key: threat, op: '==', value: wolf}\n      - {type: SubTree, tree: S}\n  S:\n    type: Repeat\n    count: 3\n    child: {type: Fight, n: 2}\n"), true)
	add([]byte("type: Sequence\nchildren: &c\n  - {type: Success}\n  - {type: Inverter, child: {type: Failure}}\n"), true)
	add([]byte(`{"trees": {"A": {"type": "SubTree", "tree": "B"}, "B": {"type": "SubTree", "tree": "A"}}}`), false)
	add([]byte(`{"type": "Wait", "ticks": 1, "ticks": 2}`), false)
	add([]byte(`{"type": "Check", "key": "k", "op": "<", "value": 1e308}`), false)
	return docs, isYAML
}

// fzTick runs an agent of tree for a few ticks with a changing blackboard,
// and the agent operations. None of it may panic.
func fzTick(tree *arbor.Tree) {
	errs := 0
	a := arbor.NewAgent(tree, arbor.WithErrorHandler(func(*arbor.NodeError) { errs++ }),
		arbor.WithTracer(func(a *arbor.Agent, e arbor.Event) { _ = a.Tree().Node(int(e.Node)).Path }))
	bb := a.Blackboard()
	values := []any{true, false, 1, 2.5, "wolf", nil, []any{1.0}}
	for i := 0; i < 12; i++ {
		for j, k := range []string{"enemyVisible", "threat", "ready", "enemy", "k", "goal", "other", "@x"} {
			bb.Set(k, values[(i+j)%len(values)])
		}
		switch i {
		case 5:
			a.Pause()
			a.Tick(time.Duration(i) * 10 * time.Millisecond)
			a.Resume()
		case 8:
			a.Halt()
		case 10:
			a.Reset()
		}
		a.Tick(time.Duration(i) * 10 * time.Millisecond)
	}
	a.Halt()
	_ = bb.Entries()
}

func FuzzLoad(f *testing.F) {
	docs, isYAML := fzSeeds(f)
	for i := range docs {
		f.Add(docs[i], isYAML[i])
	}
	reg := fzRegistry(f)
	f.Fuzz(func(t *testing.T, data []byte, asYAML bool) {
		// A hang is a bug too: fail the input after fzTimeout.
		done := make(chan struct{})
		var failure string
		go func() {
			defer close(done)
			defer func() {
				if r := recover(); r != nil {
					failure = fmt.Sprintf("panic: %v (yaml=%v, input %q)\n%s", r, asYAML, data, debug.Stack())
				}
			}()
			failure = fzLoadOne(reg, data, asYAML)
		}()
		select {
		case <-done:
			if failure != "" {
				t.Fatal(failure)
			}
		case <-time.After(fzTimeout):
			t.Fatalf("loading, compiling and ticking did not finish within %v (yaml=%v): %q", fzTimeout, asYAML, data)
		}
	})
}

// fzTimeout bounds the time one fuzz input may take.
const fzTimeout = 20 * time.Second

// fzLoadOne parses, compiles and runs one input; it returns a description
// of a broken invariant, or "". A panic is a crash of the fuzz target.
func fzLoadOne(reg *arbor.Registry, data []byte, asYAML bool) string {
	{
		var doc *arbor.Document
		var err error
		if asYAML {
			doc, err = arbor.ParseYAML(data)
		} else {
			doc, err = arbor.ParseJSON(data)
		}
		if err != nil {
			if err.Error() == "" {
				return "a parse error with an empty message"
			}
			return ""
		}
		if doc == nil {
			return "no document and no error"
		}
		tree, err := arbor.Compile(doc, reg)
		if err != nil {
			if tree != nil {
				return "Compile returned a tree and an error"
			}
			var le *arbor.LoadError
			if !errors.As(err, &le) {
				return fmt.Sprintf("a compile error that is no LoadError: %v", err)
			}
			if strings.TrimSpace(le.Msg) == "" {
				return fmt.Sprintf("a load error without a message: %+v", le)
			}
			return ""
		}
		if tree.Len() == 0 || tree.Len() > arbor.DefaultMaxNodes {
			return fmt.Sprintf("compiled a tree of %d nodes", tree.Len())
		}
		for i := 0; i < tree.Len(); i++ {
			_ = tree.Node(i)
		}
		fzTick(tree)
		return ""
	}
}
