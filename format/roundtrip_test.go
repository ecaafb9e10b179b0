package format_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format"
	"github.com/arborbt/arbor/internal/rawdoc"
	"github.com/arborbt/arbor/scenario"
)

// suiteScenario is one scenario of the conformance suite with its raw
// form (to rewrite its tree as a file of another format).
type suiteScenario struct {
	file string
	raw  *rawdoc.Value
	s    *scenario.Scenario
}

// suite returns the scenarios of testdata/scenarios and testdata/examples
// whose tree is inline and loads.
func suite(t *testing.T) []suiteScenario {
	t.Helper()
	files, err := scenario.Collect([]string{filepath.Join("..", "testdata", "scenarios"), filepath.Join("..", "testdata", "examples")})
	if err != nil {
		t.Fatal(err)
	}
	var out []suiteScenario
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := rawdoc.Parse(data, arbor.IsYAMLPath(f), rawdoc.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		raws := []*rawdoc.Value{v}
		if l := v.Get("scenarios"); l != nil {
			raws = l.List
		}
		parsed, err := scenario.ParseFile(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(parsed) != len(raws) {
			t.Fatalf("%s: %d scenarios parsed, %d raw", f, len(parsed), len(raws))
		}
		for i, s := range parsed {
			if s.LoadError != "" || raws[i].Get("tree") == nil {
				continue
			}
			out = append(out, suiteScenario{file: f, raw: raws[i], s: s})
		}
	}
	return out
}

// tickLog keeps the lines of a run's log that describe what happened:
// every tick's status and trace, node errors, the halt trace.
func tickLog(log []string) []string {
	var out []string
	for _, l := range log {
		if strings.HasPrefix(l, "  tick ") || strings.HasPrefix(l, "  halt:") || strings.HasPrefix(l, "  node error:") {
			out = append(out, l)
		}
	}
	return out
}

// runWithTreeFile runs a copy of the scenario whose tree is the given
// file.
func runWithTreeFile(t *testing.T, ss suiteScenario, dir, treeFile, treeFormat string) scenario.Result {
	t.Helper()
	m := ss.raw.Interface().(map[string]any)
	delete(m, "tree")
	m["treeFile"] = treeFile
	m["treeFormat"] = treeFormat
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	list, err := scenario.Parse(data, false, filepath.Join(dir, "scenario.json"))
	if err != nil {
		t.Fatalf("rewritten scenario: %v", err)
	}
	return list[0].Run()
}

// TestRoundTrip converts every tree of the conformance suite to Behavior3
// JSON and to BT.CPP XML, reads it back, writes it as native JSON, and runs
// the scenario on the result: statuses, traces, node errors and halt
// traces must be those of the original tree, tick by tick. Trees a format
// cannot express (BT.CPP XML holds no objects or null values, and lists
// only in program nodes' ports and a few built-in parameters) are counted
// and listed.
func TestRoundTrip(t *testing.T) {
	list := suite(t)
	if len(list) < 100 {
		t.Fatalf("only %d suite scenarios found", len(list))
	}
	for _, target := range []string{format.B3, format.BTCPP} {
		t.Run(target, func(t *testing.T) {
			dir := t.TempDir()
			compared, skipped := 0, map[string][]string{}
			types := map[string]bool{}
			for i, ss := range list {
				orig := ss.s.Run()
				if !orig.Passed {
					t.Errorf("%s: %s: the original does not pass: %s", ss.file, ss.s.Name, orig.Failure)
					continue
				}
				d, err := rawdoc.DecodeTree(ss.raw.Get("tree"))
				if err != nil {
					t.Fatalf("%s: %s: %v", ss.file, ss.s.Name, err)
				}
				doc := d.(*arbor.Document)
				data, err := format.Convert(doc, target)
				if err != nil {
					reason := err.Error()
					if i := strings.LastIndex(reason, ": "); i >= 0 {
						reason = reason[i+2:]
					}
					skipped[reason] = append(skipped[reason], ss.s.Name)
					continue
				}
				sub := filepath.Join(dir, strings.ReplaceAll(target, "/", "_")+"-"+itoa(i))
				if err := os.MkdirAll(sub, 0o755); err != nil {
					t.Fatal(err)
				}
				foreign := filepath.Join(sub, "tree."+map[string]string{format.B3: "b3.json", format.BTCPP: "xml"}[target])
				if err := os.WriteFile(foreign, data, 0o644); err != nil {
					t.Fatal(err)
				}
				back, err := format.Load(foreign, target)
				if err != nil {
					t.Errorf("%s: %s: reading the %s export back: %v\n%s", ss.file, ss.s.Name, target, err, data)
					continue
				}
				if err := format.Write(filepath.Join(sub, "tree.json"), back, ""); err != nil {
					t.Errorf("%s: %s: writing native JSON: %v", ss.file, ss.s.Name, err)
					continue
				}
				// native → target → native, and target loaded directly.
				for _, run := range []struct{ file, format string }{{"tree.json", format.Arbor}, {filepath.Base(foreign), target}} {
					got := runWithTreeFile(t, ss, sub, run.file, run.format)
					if got.Passed != orig.Passed || !slices.Equal(tickLog(got.Log), tickLog(orig.Log)) {
						t.Errorf("%s: %s (via %s, loaded as %s): behaviour differs\n  original: passed=%v\n    %s\n  converted: passed=%v %s\n    %s\n%s",
							ss.file, ss.s.Name, target, run.format, orig.Passed, strings.Join(tickLog(orig.Log), "\n    "),
							got.Passed, got.Failure, strings.Join(tickLog(got.Log), "\n    "), data)
						break
					}
				}
				compared++
				collectTypes(doc, types)
			}
			var reasons []string
			for r, names := range skipped {
				reasons = append(reasons, r+" ("+itoa(len(names))+": "+strings.Join(names, "; ")+")")
			}
			sort.Strings(reasons)
			t.Logf("%d scenarios behave the same after native → %s → native; %d not expressible in %s", compared, target, len(list)-compared, target)
			for _, r := range reasons {
				t.Logf("  not expressible: %s", r)
			}
			var missing []string
			for _, typ := range builtinTypes {
				if !types[typ] {
					missing = append(missing, typ)
				}
			}
			if len(missing) > 0 {
				t.Errorf("built-in types never round-tripped through %s: %s", target, strings.Join(missing, ", "))
			}
			if target == format.B3 {
				// JSON has no infinities: a tree comparing with .inf (YAML)
				// has no JSON form at all. Anything else must convert.
				for r := range skipped {
					if !strings.Contains(r, "is not a JSON number") {
						t.Errorf("Behavior3 JSON should express every suite tree: %s", r)
					}
				}
			}
		})
	}
}

// builtinTypes are Arbor's built-in node types (semantics.md).
var builtinTypes = []string{
	"Sequence", "SequenceWithMemory", "ReactiveSequence", "Selector", "ReactiveSelector", "Parallel", "ParallelAll",
	"Inverter", "ForceSuccess", "ForceFailure", "Repeat", "RetryUntilSuccessful", "RepeatUntilFailure", "Timeout",
	"Delay", "Cooldown", "Limiter", "RunOnce", "SubTree", "Success", "Failure", "Running", "Wait", "Check", "Set",
	"RandomSelector", "RandomSequence", "IfThenElse", "WhileDoElse", "Switch",
}

var canonical = map[string]string{
	"MemSequence": "Sequence", "Fallback": "Selector", "MemPriority": "Selector", "Priority": "ReactiveSelector",
	"ReactiveFallback": "ReactiveSelector", "PrioritySelector": "ReactiveSelector", "AlwaysSucceed": "ForceSuccess",
	"RepeatUntilSuccess": "RetryUntilSuccessful", "MaxTime": "Timeout",
}

func collectTypes(doc *arbor.Document, types map[string]bool) {
	var walk func(n *arbor.Node)
	walk = func(n *arbor.Node) {
		if n == nil {
			return
		}
		typ := n.Type
		if c, ok := canonical[typ]; ok {
			typ = c
		}
		types[typ] = true
		for _, c := range n.Children {
			walk(c)
		}
		walk(n.Guard)
	}
	for _, root := range doc.Trees {
		walk(root)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
