package btcpp_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/btcpp"
	"github.com/arborbt/arbor/format/internal/formattest"
)

// sample uses every built-in type, a user type, a guard, an abort and a
// subtree.
func sample() *arbor.Document {
	patrol := arbor.Sequence(arbor.Leaf("MoveTo", "target", "A").Named("to A"), arbor.WaitTicks(2), arbor.Leaf("MoveTo", "target", "B", "speed", 2))
	main := arbor.ReactiveSelector(
		arbor.Sequence(arbor.Check("enemy", "==", true), arbor.Leaf("Attack", "who", "{target}")).WithAbort(arbor.AbortLower).Named("fight"),
		arbor.SequenceWithMemory(
			arbor.Selector(arbor.AlwaysFailure(), arbor.AlwaysSuccess()),
			arbor.ReactiveSequence(arbor.AlwaysRunning()),
			arbor.Parallel(-1, 0, arbor.Leaf("MoveTo", "target", "C", "speed", 2.5)).With("retryFailed", true),
			arbor.ParallelAll(1, arbor.Set("k", 1), arbor.Set("t", "x").With("ttlMs", 50), arbor.Set("gone", nil)),
			arbor.Inverter(arbor.ForceSuccess(arbor.ForceFailure(arbor.AlwaysSuccess()))),
			arbor.ForceFailure(arbor.RepeatUntilFailure(-1, arbor.AlwaysSuccess())).Named("keep"),
			arbor.Repeat(0, arbor.RetryUntilSuccessful(3, arbor.RepeatUntilFailure(2, arbor.AlwaysFailure()))),
			arbor.Timeout(250e6, arbor.Delay(100e6, arbor.Cooldown(300e6, arbor.Limiter(2, arbor.RunOnce(arbor.WaitFor(50e6)))))),
			arbor.Timeout(1.5e6, arbor.RunOnce(arbor.WaitFor(2.5e6)).With("then", "failure")),
		),
		arbor.SubTree("Patrol").WithGuard(arbor.Check("tired", "missing")),
	)
	return &arbor.Document{Main: "Guard", Trees: map[string]*arbor.Node{"Guard": main, "Patrol": patrol}}
}

func TestExport(t *testing.T) {
	d := sample()
	if _, err := arbor.Compile(d, formattest.RegistryFor(t, d)); err != nil {
		t.Fatalf("the sample does not compile: %v", err)
	}
	data, err := btcpp.Export(d)
	if err != nil {
		t.Fatal(err)
	}
	xml := string(data)
	for _, want := range []string{
		`<root BTCPP_format="4" main_tree_to_execute="Guard">`,
		`<ReactiveFallback>`, `<Sequence name="fight" abort="lower">`, `<Check key="enemy" op="==" value="true"/>`,
		`<Attack who="{target}"/>`, `<SequenceWithMemory>`, `<Fallback>`, `<AlwaysFailure/>`, `<AlwaysSuccess/>`,
		`<ReactiveSequence>`, `<Running/>`, `<Parallel success_count="-1" failure_count="-1" retryFailed="true">`,
		`<MoveTo speed="2.5" target="C"/>`, `<ParallelAll max_failures="1">`, `<SetBlackboard output_key="k" value="1"/>`, `<UnsetBlackboard key="gone"/>`,
		`<Set key="t" ttlMs="50" value="x"/>`, `<Inverter>`, `<ForceSuccess>`, `<ForceFailure>`,
		`<KeepRunningUntilFailure name="keep">`, `<Repeat num_cycles="-1">`, `<RetryUntilSuccessful num_attempts="3">`,
		`<RepeatUntilFailure max="2">`, `<Timeout msec="250">`, `<Delay delay_msec="100">`, `<Cooldown ms="300">`,
		`<Limiter max="2">`, `<RunOnce then_skip="false">`, `<Sleep msec="50"/>`, `<MaxTime ms="1.5">`,
		`<RunOnce then_skip="false" then="failure">`, `<Wait ms="2.5"/>`, `<SubTree ID="Patrol" guard="Guard.guard1" _autoremap="true"/>`,
		`<BehaviorTree ID="Patrol">`, `<MoveTo name="to A" target="A"/>`, `<Wait ticks="2"/>`,
		`<BehaviorTree ID="Guard.guard1">`, `<Check key="tired" op="missing"/>`,
		`<TreeNodesModel>`, `<Action ID="Attack">`, `<input_port name="who" type="std::string"/>`,
		`<Action ID="MoveTo">`, `<input_port name="speed" type="double"/>`, `<Condition ID="Check">`,
		`<Decorator ID="Cooldown">`, `<Decorator ID="Limiter">`, `<Decorator ID="MaxTime">`, `<Action ID="Running"/>`,
		`<Action ID="Set">`, `<Action ID="Wait">`,
	} {
		if !strings.Contains(xml, want) {
			t.Errorf("export lacks %s", want)
		}
	}
	if strings.Contains(xml, `<Action ID="Sequence"`) || strings.Contains(xml, `ID="Fallback"`) {
		t.Errorf("BT.CPP built-ins must not be modelled:\n%s", xml)
	}

	back, err := btcpp.LoadWith(data, noIncludes)
	if err != nil {
		t.Fatalf("%v\n%s", err, xml)
	}
	want := formattest.Shape(d.Trees["Guard"])
	for _, r := range [][2]string{{"Parallel{failure:0,retryFailed:true,success:-1}", "Parallel{failure:-1,retryFailed:true,success:-1}"},
		{"Repeat{count:0}", "Repeat{count:-1}"}, {`Timeout{ms:1.5}`, `MaxTime{ms:1.5}`}} {
		want = strings.Replace(want, r[0], r[1], 1)
	}
	if got := formattest.Shape(back.Trees["Guard"]); got != want {
		t.Errorf("read back:\n got %s\nwant %s", got, want)
	}
	again, err := btcpp.Export(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("a second export differs:\n%s\n---\n%s", again, data)
	}
}

func TestExportTypesPortsInTheModel(t *testing.T) {
	d := &arbor.Document{Trees: map[string]*arbor.Node{"M": arbor.Sequence(
		arbor.Leaf("Say", "text", "42", "n", 3, "loud", true, "mixed", "a"),
		arbor.Leaf("Say", "text", "007", "n", 4, "loud", false, "mixed", 1),
		arbor.Leaf("Say", "text", "{t}", "n", "{n}", "loud", "{l}", "mixed", "{m}"),
		arbor.Leaf("Odd Name", "x", 1),
	)}}
	data, err := btcpp.Export(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<Say loud="true" mixed="a" n="3" text="42"/>`, `<input_port name="text" type="std::string"/>`,
		`<input_port name="n" type="double"/>`, `<input_port name="loud" type="bool"/>`, `<input_port name="mixed"/>`,
		`<Action ID="Odd Name" x="1"/>`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("export lacks %s\n%s", want, data)
		}
	}
	back, err := btcpp.LoadWith(data, noIncludes)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := formattest.Shape(back.Trees["M"]), formattest.Shape(d.Trees["M"]); got != want {
		t.Errorf("read back:\n got %s\nwant %s", got, want)
	}
}

// TestExportRandom writes the random composites under their Arbor names,
// as the other Arbor-only built-ins, with a model; weights as BT.CPP
// writes a std::vector<double>; and reads them back.
func TestExportRandom(t *testing.T) {
	d := &arbor.Document{Trees: map[string]*arbor.Node{"M": arbor.RandomSelector(
		arbor.RandomSequence(arbor.AlwaysSuccess(), arbor.AlwaysFailure()),
		arbor.AlwaysRunning(),
		arbor.RandomSequence(arbor.AlwaysSuccess()).With("seed", -3),
	).With("weights", []float64{3, 1, 0.5}).With("seed", 7)}}
	data, err := btcpp.Export(d)
	if err != nil {
		t.Fatal(err)
	}
	xml := string(data)
	for _, want := range []string{
		`<RandomSelector weights="3;1;0.5" seed="7">`, `<RandomSequence>`, `<RandomSequence seed="-3">`,
		`<Control ID="RandomSelector">`, `<Control ID="RandomSequence">`,
		`<input_port name="weights" type="std::vector&lt;double&gt;"/>`, `<input_port name="seed" type="int"/>`,
	} {
		if !strings.Contains(xml, want) {
			t.Errorf("export lacks %s:\n%s", want, xml)
		}
	}
	back, err := btcpp.LoadWith(data, btcpp.Options{NoIncludes: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `RandomSelector{seed:7,weights:[3,1,0.5]}(RandomSequence(Success Failure) Running RandomSequence{seed:-3}(Success))`
	if got := formattest.Shape(back.Trees["M"]); got != want {
		t.Errorf("read back as\n  %s\nwant\n  %s", got, want)
	}
	if _, err := arbor.Compile(back, nil); err != nil {
		t.Fatal(err)
	}
}

// TestExportBranching writes IfThenElse and WhileDoElse under their
// names and a Switch as BT.CPP's SwitchN (no model: BT.CPP built-ins);
// and reads them back.
func TestExportBranching(t *testing.T) {
	d := &arbor.Document{Trees: map[string]*arbor.Node{"M": arbor.Switch("mode", []any{1, "idle", true, -0.5},
		arbor.IfThenElse(arbor.Check("hp", ">", 3), arbor.Leaf("A"), arbor.Leaf("B")).Named("if"),
		arbor.WhileDoElse(arbor.AlwaysSuccess(), arbor.Leaf("A")),
		arbor.Leaf("B"), arbor.Leaf("A"),
		arbor.Branch("Switch", arbor.Leaf("A"), arbor.Leaf("B"), arbor.Leaf("C")).With("key", "@g").With("cases", []string{"x", "y"}),
	)}}
	data, err := btcpp.Export(d)
	if err != nil {
		t.Fatal(err)
	}
	xml := string(data)
	for _, want := range []string{
		`<Switch4 variable="{mode}" case_1="1" case_2="idle" case_3="true" case_4="-0.5">`, `<IfThenElse name="if">`, `<WhileDoElse>`,
		`<Switch2 variable="{@g}" case_1="x" case_2="y">`,
	} {
		if !strings.Contains(xml, want) {
			t.Errorf("export lacks %s:\n%s", want, xml)
		}
	}
	for _, not := range []string{`ID="IfThenElse"`, `ID="WhileDoElse"`, `ID="Switch`} {
		if strings.Contains(xml, not) {
			t.Errorf("export has a model %s:\n%s", not, xml)
		}
	}
	back, err := btcpp.LoadWith(data, btcpp.Options{NoIncludes: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `Switch{cases:[1,"idle",true,-0.5],key:"mode"}(IfThenElse"if"(Check{key:"hp",op:">",value:3} A B) WhileDoElse(Success A) B A Switch{cases:["x","y"],key:"@g"}(A B C))`
	if got := formattest.Shape(back.Trees["M"]); got != want {
		t.Errorf("read back as\n  %s\nwant\n  %s", got, want)
	}
	reg := arbor.NewRegistry()
	for _, name := range []string{"A", "B", "C"} {
		if err := reg.ActionFunc(name, func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := arbor.Compile(back, reg); err != nil {
		t.Fatal(err)
	}
}

func TestExportErrors(t *testing.T) {
	one := func(n *arbor.Node) *arbor.Document { return &arbor.Document{Trees: map[string]*arbor.Node{"a": n}} }
	cases := []struct {
		name string
		doc  *arbor.Document
		want string
	}{
		{"no trees", &arbor.Document{}, "no trees"},
		{"no main", &arbor.Document{Trees: map[string]*arbor.Node{"a": arbor.AlwaysSuccess(), "b": arbor.AlwaysSuccess()}}, "no main tree"},
		{"list value", one(arbor.Set("k", []any{1.0})), `parameter "value": a list cannot be written in BT.CPP XML here (only a program node's port holds one, as a std::vector)`},
		{"object value", one(arbor.Leaf("X", "m", map[string]any{"a": 1.0})), `parameter "m": an object cannot be written`},
		{"Go value", one(arbor.Leaf("X", "p", struct{}{})), `parameter "p": a struct {} value cannot be written`},
		{"null value", one(arbor.Set("k", nil).With("ttlMs", 50)), "null cannot be written"},
		{"null parameter", one(arbor.Leaf("MoveTo", "target", nil)), "null cannot be written"},
		{"numeric-looking string", one(arbor.Check("k", "==", "5")), `the string "5" would read back as a number or boolean`},
		{"user type with a BT.CPP name", one(arbor.Leaf("Sleep")), `"Sleep" is also a BT.CPP built-in`},
		{"unsupported BT.CPP name", one(arbor.Leaf("Script")), `"Script" is also a BT.CPP built-in`},
		{"reserved port", one(arbor.Leaf("X", "_skipIf", "a")), `parameter "_skipIf" cannot be written as a BT.CPP port`},
		{"xml port", one(arbor.Leaf("X", "xmlns", "a")), `parameter "xmlns" cannot be written`},
		{"fractional count", one(arbor.Repeat(0, arbor.AlwaysSuccess()).With("count", 1.5)), `parameter "count": want an integer`},
		{"fractional Delay", one(arbor.Delay(1.5e6, arbor.AlwaysSuccess())), `parameter "ms": want an integer`},
		{"stray parameter", one(arbor.Inverter(arbor.AlwaysSuccess()).With("x", 1)), `parameter "x" cannot be written in BT.CPP XML`},
		{"subtree to nowhere", one(arbor.SubTree("b")), `SubTree must name a tree of the document (tree "b")`},
		{"weights not a list", one(arbor.RandomSelector(arbor.AlwaysSuccess()).With("weights", 3)), `RandomSelector): parameter "weights": want a non-empty list of numbers`},
		{"weights of strings", one(arbor.RandomSequence(arbor.AlwaysSuccess()).With("weights", []any{"1"})), `parameter "weights": want a non-empty list of numbers`},
		{"random composite's stray parameter", one(arbor.RandomSequence(arbor.AlwaysSuccess()).With("x", 1)), `parameter "x" cannot be written in BT.CPP XML`},
		{"Switch of one case", one(arbor.Switch("k", []any{1}, arbor.AlwaysSuccess(), arbor.AlwaysFailure())), `Switch): 1 cases: BT.CPP XML has Switch2 to Switch6`},
		{"Switch of seven cases", one(arbor.Switch("k", []any{1, 2, 3, 4, 5, 6, 7}, mocks(8)...)), `7 cases: BT.CPP XML has Switch2 to Switch6`},
		{"Switch number-like string case", one(arbor.Switch("k", []any{"1", "a"}, mocks(3)...)), `parameter "cases": cases[0]: the string "1" would read back as a number or boolean`},
		{"Switch list case", one(arbor.Switch("k", []any{"a", []any{1}}, mocks(3)...)), `parameter "cases": cases[1]: a list cannot be written`},
		{"Switch stray parameter", one(arbor.Switch("k", []any{"a", "b"}, mocks(3)...).With("x", 1)), `parameter "x" cannot be written in BT.CPP XML`},
		// variable="{a}b}" would not read back as a reference.
		{"Switch key with a brace", one(arbor.Switch("a}b", []any{"a", "b"}, mocks(3)...)), `parameter "key": the key name "a}b" holds a brace, which variable="{…}" cannot hold`},
		{"Switch key with an opening brace", one(arbor.Switch("x{y", []any{"a", "b"}, mocks(3)...)), `parameter "key": the key name "x{y" holds a brace`},
		{"program type named like a SwitchN", one(arbor.Leaf("Switch3")), `node type "Switch3" is also a BT.CPP built-in`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := btcpp.Export(c.doc)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestExportControlNodes(t *testing.T) {
	// A program's decorator and control node are declared as such in the
	// TreeNodesModel (without a registry, as the nodes suggest), and the
	// file loads back.
	reg := arbor.NewRegistry()
	if err := formattest.RegisterControls(reg); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts btcpp.ExportOptions
		want []string
	}{
		{btcpp.ExportOptions{}, []string{`<Decorator ID="Flip"`, `<Control ID="FirstOf"`, `<Decorator ID="Any"`, `<Action ID="Ready"`}},
		{btcpp.ExportOptions{Registry: reg}, []string{`<Decorator ID="Flip"`, `<Control ID="FirstOf"`, `<Control ID="Any"`, `<Condition ID="Ready"`}},
	} {
		out, err := btcpp.ExportWith(formattest.ControlDoc(), tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range tc.want {
			if !strings.Contains(string(out), want) {
				t.Errorf("export lacks %s:\n%s", want, out)
			}
		}
		d, err := btcpp.LoadWith(out, noIncludes)
		if err != nil {
			t.Fatal(err)
		}
		formattest.TickControlDoc(t, d)
	}
}

// TestExportRandomSeedAtInt64Limits: a seed given in Go as an int64 is
// written exactly, so that one at the int64 limits reads back (written
// through a float64, math.MaxInt64 was "9223372036854776000", which the
// loader refuses as out of range) and compiles to the same tree.
func TestExportRandomSeedAtInt64Limits(t *testing.T) {
	for _, seed := range []any{int64(math.MaxInt64), int64(math.MinInt64), 7} {
		d := &arbor.Document{Trees: map[string]*arbor.Node{"M": arbor.RandomSequence(arbor.AlwaysSuccess(), arbor.AlwaysFailure()).With("seed", seed)}}
		want, err := arbor.Compile(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		data, err := btcpp.Export(d)
		if err != nil {
			t.Fatalf("seed %v: %v", seed, err)
		}
		back, err := btcpp.LoadWith(data, btcpp.Options{NoIncludes: true})
		if err != nil {
			t.Fatalf("seed %v: the export does not load: %v\n%s", seed, err, data)
		}
		got, err := arbor.Compile(back, nil)
		if err != nil {
			t.Fatalf("seed %v: %v", seed, err)
		}
		if got.Fingerprint() != want.Fingerprint() {
			t.Errorf("seed %v: read back as another tree:\n%s", seed, data)
		}
	}
}

// mocks returns n leaves of a program type.
func mocks(n int) []*arbor.Node {
	out := make([]*arbor.Node, n)
	for i := range out {
		out[i] = arbor.Leaf("A")
	}
	return out
}

// TestExportListPorts writes a program node's lists of numbers, strings
// and booleans as BT.CPP writes a std::vector, declares the ports so, and
// reads them back as the same lists.
func TestExportListPorts(t *testing.T) {
	d := &arbor.Document{Trees: map[string]*arbor.Node{"M": arbor.Sequence(
		arbor.Leaf("Patrol", "waypoints", []any{"A", "B", "C"}, "speeds", []any{3.0, 1, 0.5}, "flags", []any{true, false}),
		arbor.Leaf("Patrol", "waypoints", []string{"D", "", "5", "true", " e "}, "speeds", []float64{}, "flags", []bool{}),
		arbor.Leaf("Patrol", "waypoints", []any{"x", ""}, "speeds", []int{-2, 1 << 40}, "flags", []any{}),
		arbor.Leaf("Say", "words", []any{""}, "none", []any{}, "mixed", []any{"a"}),
		arbor.Leaf("Say", "words", []any{}, "none", []any{}, "mixed", []any{}),
		// A reference agrees with any type.
		arbor.Leaf("Patrol", "waypoints", "{route}", "speeds", []any{1}, "flags", "{lit}"),
	).Named("go")}}
	data, err := btcpp.Export(d)
	if err != nil {
		t.Fatal(err)
	}
	xml := string(data)
	for _, want := range []string{
		`<Patrol flags="true;false" speeds="3;1;0.5" waypoints="A;B;C"/>`,
		`<Patrol flags="" speeds="" waypoints="D;;5;true; e "/>`,
		`<Patrol flags="" speeds="-2;1099511627776" waypoints="x;;"/>`,
		`<Say mixed="a" none="" words=";"/>`, `<Say mixed="" none="" words=""/>`,
		`<Patrol flags="{lit}" speeds="1" waypoints="{route}"/>`,
		`<input_port name="waypoints" type="std::vector&lt;std::string&gt;"/>`,
		`<input_port name="speeds" type="std::vector&lt;double&gt;"/>`,
		`<input_port name="flags" type="std::vector&lt;bool&gt;"/>`,
		`<input_port name="none" type="std::vector&lt;std::string&gt;"/>`,
		`<input_port name="mixed" type="std::vector&lt;std::string&gt;"/>`,
	} {
		if !strings.Contains(xml, want) {
			t.Errorf("export lacks %s:\n%s", want, xml)
		}
	}
	back, err := btcpp.LoadWith(data, noIncludes)
	if err != nil {
		t.Fatalf("%v\n%s", err, xml)
	}
	if got, want := formattest.Shape(back.Trees["M"]), formattest.Shape(d.Trees["M"]); got != want {
		t.Errorf("read back:\n got %s\nwant %s", got, want)
	}
	again, err := btcpp.Export(back)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, data) {
		t.Errorf("a second export differs:\n%s\n---\n%s", again, data)
	}
}

func TestExportListErrors(t *testing.T) {
	leaf := func(params ...any) *arbor.Document {
		return &arbor.Document{Trees: map[string]*arbor.Node{"a": arbor.Sequence(arbor.Leaf("Go", params...))}}
	}
	cases := []struct {
		name string
		doc  *arbor.Document
		want string
	}{
		{"mixed kinds", leaf("p", []any{1, "a"}), `trees.a.children[0] (Go): parameter "p": a list of both numbers and strings cannot be written in BT.CPP XML (a std::vector port holds elements of one type)`},
		{"numbers and booleans", leaf("p", []any{true, 1}), `a list of both booleans and numbers cannot be written`},
		{"nested list", leaf("p", []any{[]any{1.0}}), `parameter "p": a list holding a list cannot be written in BT.CPP XML (a std::vector port holds numbers, strings or booleans)`},
		{"nested Go slice", leaf("p", [][]float64{{1}}), `a list holding a list cannot be written`},
		{"object in a list", leaf("p", []any{map[string]any{"a": 1.0}}), `a list holding an object cannot be written`},
		{"null in a list", leaf("p", []any{"a", nil}), `a list holding null cannot be written`},
		{"Go value in a list", leaf("p", []any{struct{}{}}), `a list holding a struct {} value cannot be written`},
		{"string with ;", leaf("p", []any{"a", "b;c"}), `parameter "p": p[1]: the string "b;c" holds a ';', which separates the elements of a BT.CPP list`},
		{"NaN", leaf("p", []any{1, math.NaN()}), `p[1]: NaN is not a number BT.CPP XML can hold`},
		{"infinity", leaf("p", []float64{math.Inf(-1)}), `p[0]: -Inf is not a number BT.CPP XML can hold`},
		{"an integer a double cannot hold", leaf("p", []int64{1<<53 + 1}), `p[0]: 9007199254740993 would read back as 9007199254740992`},
		{"a reference", leaf("p", []any{"{a}"}), `the list would be written "{a}", which reads back as a blackboard reference`},
		{"a reference over elements", leaf("p", []any{"{a", "b}"}), `the list would be written "{a;b}", which reads back as a blackboard reference`},
		{"json: form", leaf("p", []any{"json:[1]"}), `the list would be written "json:[1]", which reads back as BT.CPP's json: form`},
		{"instances disagree on the kind", &arbor.Document{Trees: map[string]*arbor.Node{"a": arbor.Sequence(arbor.Leaf("Go", "p", []any{1}), arbor.Leaf("Go", "p", []any{"a"}))}},
			`parameter "p": a list is written as a std::vector port only when every Go node gives the port a list of one kind (numbers, strings or booleans); the nodes of this type disagree`},
		{"a list and a scalar", &arbor.Document{Trees: map[string]*arbor.Node{"a": arbor.Sequence(arbor.Leaf("Go", "p", "x"), arbor.Leaf("Go", "p", []any{}))}},
			`the nodes of this type disagree`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := btcpp.Export(c.doc)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q\n%s", err, c.want, out)
			}
		})
	}
}
