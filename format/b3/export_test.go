package b3_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/b3"
	"github.com/arborbt/arbor/format/internal/formattest"
)

// sample uses every built-in type, a user type, a guard, an abort and a
// subtree.
func sample() *arbor.Document {
	patrol := arbor.Sequence(arbor.Leaf("MoveTo", "target", "A").Named("to A"), arbor.WaitTicks(2), arbor.Leaf("MoveTo", "target", "B"))
	main := arbor.ReactiveSelector(
		arbor.Sequence(arbor.Check("enemy", "==", true), arbor.Leaf("Attack")).WithAbort(arbor.AbortLower).Named("fight"),
		arbor.SequenceWithMemory(
			arbor.Selector(arbor.AlwaysFailure(), arbor.AlwaysSuccess()),
			arbor.ReactiveSequence(arbor.AlwaysRunning()),
			arbor.Parallel(-1, 0, arbor.Leaf("MoveTo", "target", "C", "speed", 2.5)),
			arbor.ParallelAll(1, arbor.Set("k", 1)),
			arbor.Inverter(arbor.ForceSuccess(arbor.ForceFailure(arbor.AlwaysSuccess()))),
			arbor.Repeat(0, arbor.RetryUntilSuccessful(3, arbor.RepeatUntilFailure(-1, arbor.AlwaysFailure()))),
			arbor.Timeout(250e6, arbor.Delay(100e6, arbor.Cooldown(300e6, arbor.Limiter(2, arbor.RunOnce(arbor.WaitFor(50e6)))))),
			b3.ErrorNode().Named("broken"),
		),
		arbor.SubTree("Patrol").WithGuard(arbor.Check("tired", "missing")),
	)
	return &arbor.Document{Main: "Guard", Trees: map[string]*arbor.Node{"Guard": main, "Patrol": patrol}}
}

type jsonNode struct {
	ID         string         `json:"id"`
	Name       string         `json:"name"`
	Category   string         `json:"category"`
	Title      string         `json:"title"`
	Properties map[string]any `json:"properties"`
	Display    *struct {
		X, Y float64
	} `json:"display"`
	Children []string `json:"children"`
	Child    string   `json:"child"`
}

type jsonProject struct {
	Version      string `json:"version"`
	Scope        string `json:"scope"`
	SelectedTree string `json:"selectedTree"`
	Trees        []struct {
		ID    string               `json:"id"`
		Title string               `json:"title"`
		Root  string               `json:"root"`
		Nodes map[string]*jsonNode `json:"nodes"`
	} `json:"trees"`
	CustomNodes []struct {
		Name       string         `json:"name"`
		Category   string         `json:"category"`
		Properties map[string]any `json:"properties"`
	} `json:"custom_nodes"`
}

func TestExport(t *testing.T) {
	doc := sample()
	if _, err := arbor.Compile(doc, formattest.RegistryFor(t, doc)); err != nil {
		t.Fatalf("the sample does not compile: %v", err)
	}
	data, err := b3.Export(doc)
	if err != nil {
		t.Fatal(err)
	}
	var p jsonProject
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	if p.Scope != "project" || p.Version != b3.Version || p.SelectedTree != b3.TreeID("Guard") {
		t.Errorf("header: %+v", p)
	}
	var titles []string
	names := map[string]int{}
	byTitle := map[string]*jsonNode{}
	for _, tr := range p.Trees {
		titles = append(titles, tr.Title)
		if tr.Nodes[tr.Root] == nil {
			t.Errorf("tree %s: root %q is not a node", tr.Title, tr.Root)
		}
		for id, n := range tr.Nodes {
			names[n.Name]++
			if n.ID != id || n.Display == nil || n.Category == "" {
				t.Errorf("node %s: id %q, display %v, category %q", id, n.ID, n.Display, n.Category)
			}
			byTitle[n.Title] = n
		}
	}
	if got := strings.Join(titles, ","); got != "Guard,Patrol,Guard.guard1" {
		t.Errorf("trees %s", got)
	}
	for _, name := range []string{"Priority", "MemSequence", "MemPriority", "Sequence", "Succeeder", "Failer", "Runner",
		"Inverter", "Repeater", "RepeatUntilSuccess", "RepeatUntilFailure", "MaxTime", "Limiter", "Wait", "Error",
		"SequenceWithMemory", "Parallel", "ParallelAll", "ForceSuccess", "ForceFailure", "Delay", "Cooldown", "RunOnce",
		"Check", "Set", "MoveTo", "Attack", b3.TreeID("Patrol")} {
		if names[name] == 0 {
			t.Errorf("no node named %s", name)
		}
	}
	for title, want := range map[string]string{
		"Repeater": `{"maxLoop":-1}`, "MaxTime": `{"maxTime":250}`, "Limiter": `{"maxLoop":2}`,
		"RepeatUntilFailure": `{"maxLoop":-1}`, "RepeatUntilSuccess": `{"maxLoop":3}`, "Wait": `{"ticks":2}`,
		"fight": `{"abort":"lower"}`, "Patrol": `{"guard":"` + b3.TreeID("Guard.guard1") + `"}`,
		"Parallel": `{"failure":0,"success":-1}`,
	} {
		n := byTitle[title]
		if n == nil {
			t.Errorf("no node titled %s", title)
			continue
		}
		if got, _ := json.Marshal(n.Properties); string(got) != want {
			t.Errorf("%s properties %s, want %s", title, got, want)
		}
	}
	if n := byTitle["broken"]; n == nil || n.Name != "Error" {
		t.Errorf("the Error node: %+v", n)
	}
	if n := byTitle["Inverter"]; n == nil || n.Child == "" || len(n.Children) != 0 {
		t.Errorf("a decorator has one child: %+v", n)
	}
	custom := map[string]string{}
	for _, c := range p.CustomNodes {
		props, _ := json.Marshal(c.Properties)
		custom[c.Name] = c.Category + " " + string(props)
	}
	for name, want := range map[string]string{
		"MoveTo": `action {"target":""}`, "Check": `condition {"key":"","op":""}`, "Parallel": `composite {"failure":0,"success":0}`,
		"Cooldown": `decorator {"ms":0}`, "Attack": `action {}`,
	} {
		if custom[name] != want {
			t.Errorf("custom node %s: %q, want %q", name, custom[name], want)
		}
	}
	for _, name := range []string{"Priority", "Error", "Wait"} {
		if _, ok := custom[name]; ok {
			t.Errorf("built-in %s listed in custom_nodes", name)
		}
	}

	// Reading the export back gives the same behaviour-relevant tree, and
	// exporting that again gives the same bytes (stable ids and layout).
	back, err := b3.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := formattest.Shape(back.Trees["Guard"]), formattest.Shape(doc.Trees["Guard"]); got != strings.Replace(want, "Repeat{count:0}", "Repeat{count:-1}", 1) {
		t.Errorf("read back:\n got %s\nwant %s", got, want)
	}
	again, err := b3.Export(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("a second export differs:\n%s\n---\n%s", again, data)
	}
}

// TestExportRandom writes the random composites as the other Arbor-only
// built-ins: custom composites under their Arbor names, their parameters
// as properties; and reads them back.
func TestExportRandom(t *testing.T) {
	d := &arbor.Document{Trees: map[string]*arbor.Node{"M": arbor.RandomSelector(
		arbor.RandomSequence(arbor.AlwaysSuccess(), arbor.AlwaysFailure()).With("weights", []any{0, 1}),
		arbor.AlwaysRunning(),
	).With("weights", []float64{3, 0.5}).With("seed", 7)}}
	data, props, cats := exportComposites(t, d)
	if props["RandomSelector"] != `{"seed":7,"weights":[3,0.5]}` || props["RandomSequence"] != `{"weights":[0,1]}` {
		t.Errorf("composites' properties: %v", props)
	}
	if cats["RandomSelector"] != "composite" || cats["RandomSequence"] != "composite" {
		t.Errorf("custom nodes: %v", cats)
	}
	readBackAs(t, data, `RandomSelector{seed:7,weights:[3,0.5]}(RandomSequence{weights:[0,1]}(Success Failure) Running)`)
}

// TestExportBranching writes IfThenElse, WhileDoElse and Switch as the
// other Arbor-only built-ins: custom composites under their Arbor names,
// Switch's key and cases as properties; and reads them back.
func TestExportBranching(t *testing.T) {
	d := &arbor.Document{Trees: map[string]*arbor.Node{"M": arbor.Switch("mode", []any{1, "idle", true},
		arbor.IfThenElse(arbor.AlwaysSuccess(), arbor.AlwaysRunning(), arbor.AlwaysFailure()),
		arbor.WhileDoElse(arbor.AlwaysFailure(), arbor.AlwaysSuccess()),
		arbor.AlwaysSuccess(), arbor.AlwaysFailure(),
	)}}
	data, props, cats := exportComposites(t, d)
	if props["Switch"] != `{"cases":[1,"idle",true],"key":"mode"}` || props["IfThenElse"] != `{}` || props["WhileDoElse"] != `{}` {
		t.Errorf("composites' properties: %v", props)
	}
	if cats["Switch"] != "composite" || cats["IfThenElse"] != "composite" || cats["WhileDoElse"] != "composite" {
		t.Errorf("custom nodes: %v", cats)
	}
	readBackAs(t, data, `Switch{cases:[1,"idle",true],key:"mode"}(IfThenElse(Success Running Failure) WhileDoElse(Failure Success) Success Failure)`)
}

// exportComposites exports d (one tree, M) and returns the file, the
// properties of its composites by Behavior3 name (as JSON), and the
// categories of its custom nodes.
func exportComposites(t *testing.T, d *arbor.Document) (data []byte, props, cats map[string]string) {
	t.Helper()
	data, err := b3.Export(d)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Trees []struct {
			Nodes map[string]jsonNode `json:"nodes"`
		} `json:"trees"`
		CustomNodes []jsonNode `json:"custom_nodes"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	props, cats = map[string]string{}, map[string]string{}
	for _, n := range p.Trees[0].Nodes {
		if n.Category == "composite" {
			b, _ := json.Marshal(n.Properties)
			props[n.Name] = string(b)
		}
	}
	for _, c := range p.CustomNodes {
		cats[c.Name] = c.Category
	}
	return data, props, cats
}

// readBackAs loads an exported file and checks that its tree M has the
// shape want and compiles with the built-ins.
func readBackAs(t *testing.T, data []byte, want string) {
	t.Helper()
	back, err := b3.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := formattest.Shape(back.Trees["M"]); got != want {
		t.Errorf("read back as\n  %s\nwant\n  %s", got, want)
	}
	if _, err := arbor.Compile(back, nil); err != nil {
		t.Fatal(err)
	}
}

func TestExportErrors(t *testing.T) {
	cases := []struct {
		name string
		doc  *arbor.Document
		want string
	}{
		{"no trees", &arbor.Document{}, "no trees"},
		{"no main", &arbor.Document{Trees: map[string]*arbor.Node{"a": arbor.AlwaysSuccess(), "b": arbor.AlwaysSuccess()}}, "no main tree"},
		{"missing main", &arbor.Document{Main: "x", Trees: map[string]*arbor.Node{"a": arbor.AlwaysSuccess()}}, `main tree "x"`},
		{"nil node", &arbor.Document{Trees: map[string]*arbor.Node{"a": arbor.Sequence(nil)}}, "trees.a.children[0]: missing node"},
		{"user type with a Behavior3 name", &arbor.Document{Trees: map[string]*arbor.Node{"a": arbor.Leaf("Runner")}}, `"Runner" is a Behavior3 built-in`},
		{"subtree to nowhere", &arbor.Document{Trees: map[string]*arbor.Node{"a": arbor.SubTree("b")}}, `SubTree must name a tree of the document (tree "b")`},
		{"not a JSON number", &arbor.Document{Trees: map[string]*arbor.Node{"a": arbor.Leaf("X", "v", math.NaN())}}, `parameter "v"`},
		{"no Behavior3 equivalent", &arbor.Document{Trees: map[string]*arbor.Node{"a": arbor.Inverter(arbor.AlwaysSuccess()).With("x", 1)}}, `parameter "x" has no Behavior3 equivalent`},
		{"reserved property", &arbor.Document{Trees: map[string]*arbor.Node{"a": arbor.Leaf("X", "guard", "g")}}, `"guard" is a reserved property`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := b3.Export(c.doc)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestExportControlNodes(t *testing.T) {
	// A program's decorator and control node get the decorator and
	// composite categories (without a registry, as the nodes suggest; a
	// decorator's child as "child"), and the project loads back.
	reg := arbor.NewRegistry()
	if err := formattest.RegisterControls(reg); err != nil {
		t.Fatal(err)
	}
	category := func(name, cat string) string {
		return `"name": "` + name + `",
      "category": "` + cat + `"`
	}
	for _, tc := range []struct {
		opts b3.ExportOptions
		want []string
	}{
		{b3.ExportOptions{}, []string{category("Flip", "decorator"), category("FirstOf", "composite"), category("Any", "decorator"), category("Ready", "action"), `"child": "`}},
		{b3.ExportOptions{Registry: reg}, []string{category("Flip", "decorator"), category("FirstOf", "composite"), category("Any", "composite"), category("Ready", "condition")}},
	} {
		out, err := b3.ExportWith(formattest.ControlDoc(), tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range tc.want {
			if !strings.Contains(string(out), want) {
				t.Errorf("export lacks %s:\n%s", want, out)
			}
		}
		d, err := b3.Load(out)
		if err != nil {
			t.Fatal(err)
		}
		formattest.TickControlDoc(t, d)
	}
}
