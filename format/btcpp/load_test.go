package btcpp_test

import (
	"encoding/xml"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/btcpp"
	"github.com/arborbt/arbor/format/internal/formattest"
)

// doc wraps a tree element (and optional extra top-level elements) in a v4
// document with one main tree "M".
func doc(tree string, extra ...string) string {
	return `<root BTCPP_format="4" main_tree_to_execute="M"><BehaviorTree ID="M">` + tree + `</BehaviorTree>` + strings.Join(extra, "") + `</root>`
}

var noIncludes = btcpp.Options{NoIncludes: true}

func TestLoadMapsEveryType(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"Sequence", `<Sequence><A/></Sequence>`, "Sequence(A)"},
		{"SequenceWithMemory", `<SequenceWithMemory><A/></SequenceWithMemory>`, "SequenceWithMemory(A)"},
		{"ReactiveSequence", `<ReactiveSequence><A/></ReactiveSequence>`, "ReactiveSequence(A)"},
		{"Fallback", `<Fallback><A/></Fallback>`, "Selector(A)"},
		{"ReactiveFallback", `<ReactiveFallback><A/></ReactiveFallback>`, "ReactiveSelector(A)"},
		{"Parallel defaults", `<Parallel><A/><B/></Parallel>`, `Parallel{failure:1,success:-1}(A B)`},
		{"Parallel counts", `<Parallel success_count="2" failure_count="-1"><A/><B/><C/></Parallel>`, `Parallel{failure:-1,success:2}(A B C)`},
		{"Parallel relative counts", `<Parallel success_count="-2" failure_count="-3"><A/><B/><C/></Parallel>`, `Parallel{failure:1,success:2}(A B C)`},
		{"Parallel retryFailed (extension)", `<Parallel retryFailed="true"><A/></Parallel>`, `Parallel{failure:1,retryFailed:true,success:-1}(A)`},
		{"ParallelAll", `<ParallelAll max_failures="2"><A/><B/></ParallelAll>`, `ParallelAll{maxFailures:2}(A B)`},
		{"ParallelAll default", `<ParallelAll><A/></ParallelAll>`, `ParallelAll{maxFailures:1}(A)`},
		{"Inverter", `<Inverter><A/></Inverter>`, "Inverter(A)"},
		{"ForceSuccess", `<ForceSuccess><A/></ForceSuccess>`, "ForceSuccess(A)"},
		{"ForceFailure", `<ForceFailure><A/></ForceFailure>`, "ForceFailure(A)"},
		{"Repeat", `<Repeat num_cycles="3"><A/></Repeat>`, `Repeat{count:3}(A)`},
		{"Repeat forever", `<Repeat num_cycles="-1"><A/></Repeat>`, `Repeat{count:-1}(A)`},
		{"RetryUntilSuccessful", `<RetryUntilSuccessful num_attempts="2"><A/></RetryUntilSuccessful>`, `RetryUntilSuccessful{attempts:2}(A)`},
		{"KeepRunningUntilFailure", `<KeepRunningUntilFailure name="k"><A/></KeepRunningUntilFailure>`, `ForceFailure"k"(RepeatUntilFailure{max:-1}(A))`},
		{"Timeout", `<Timeout msec="250"><A/></Timeout>`, `Timeout{ms:250}(A)`},
		{"Delay", `<Delay delay_msec="100"><A/></Delay>`, `Delay{ms:100}(A)`},
		{"RunOnce", `<RunOnce then_skip="false"><A/></RunOnce>`, `RunOnce(A)`},
		{"RunOnce then (extension)", `<RunOnce then_skip="false" then="failure"><A/></RunOnce>`, `RunOnce{then:"failure"}(A)`},
		{"Sleep", `<Sleep msec="150"/>`, `Wait{ms:150}`},
		{"AlwaysSuccess", `<AlwaysSuccess/>`, `Success`},
		{"AlwaysFailure", `<AlwaysFailure name="no"/>`, `Failure"no"`},
		{"SetBlackboard", `<SetBlackboard output_key="k" value="1.5"/>`, `Set{key:"k",value:1.5}`},
		{"SetBlackboard {key} and untyped values", `<Sequence><SetBlackboard output_key="{k}" value="true"/><SetBlackboard output_key="s" value="five"/><SetBlackboard output_key="c" value="{k}"/></Sequence>`,
			`Sequence(Set{key:"k",value:true} Set{key:"s",value:"five"} Set{key:"c",value:"{k}"})`},
		{"UnsetBlackboard is a Set of null", `<UnsetBlackboard key="k"/>`, `Set{key:"k",value:null}`},
		{"explicit forms", `<Control ID="Sequence"><Decorator ID="Inverter"><Condition ID="Near" dist="2"/></Decorator><Action ID="AlwaysSuccess"/></Control>`, `Sequence(Inverter(Near{dist:2}) Success)`},
		{"name attribute and untyped ports", `<MoveTo name="go" target="{goal}" speed="1.5" fast="false" label="x1" same="{=}"/>`, `MoveTo"go"{fast:false,label:"x1",same:"{same}",speed:1.5,target:"{goal}"}`},
		{"SubTree", `<SubTree ID="M2" name="sub" _autoremap="true"/>`, `SubTree"sub"{tree:"M2"}`},
		{"Groot2 metadata is ignored", `<Sequence _uid="3" _description="d"><A _uid="4"/></Sequence>`, "Sequence(A)"},
		{"Arbor-only built-ins", `<Selector><Check key="hp" op="&lt;" value="5"/><Cooldown ms="300"><Limiter max="2"><RepeatUntilFailure max="3"><Wait ticks="2"/></RepeatUntilFailure></Limiter></Cooldown><Set key="s" value="on" ttlMs="100"/><Running/><Success/><Failure/><Wait ms="2.5"/><MaxTime ms="1.5"><A/></MaxTime></Selector>`,
			`Selector(Check{key:"hp",op:"<",value:5} Cooldown{ms:300}(Limiter{max:2}(RepeatUntilFailure{max:3}(Wait{ticks:2}))) Set{key:"s",ttlMs:100,value:"on"} Running Success Failure Wait{ms:2.5} MaxTime{ms:1.5}(A))`},
		{"abort and guard (extensions)", `<Sequence abort="self" guard="G"><A/></Sequence>`, `Sequence[self]?Check{key:"k",op:"exists"}(A)`},
		{"random composites (Arbor-only; weights as BT.CPP writes a std::vector<double>)",
			`<Sequence><RandomSelector weights="3; 1;0.5" seed="-7"><A/><B/><C/></RandomSelector><RandomSequence><A/></RandomSequence><Control ID="RandomSequence" weights="2"><B/></Control></Sequence>`,
			`Sequence(RandomSelector{seed:-7,weights:[3,1,0.5]}(A B C) RandomSequence(A) RandomSequence{weights:[2]}(B))`},
		{"IfThenElse and WhileDoElse", `<Sequence><IfThenElse name="if"><A/><B/><C/></IfThenElse><WhileDoElse><A/><B/></WhileDoElse><Control ID="IfThenElse"><A/><B/></Control></Sequence>`,
			`Sequence(IfThenElse"if"(A B C) WhileDoElse(A B) IfThenElse(A B))`},
		{"SwitchN: variable is the key, the cases untyped as SetBlackboard's value", `<Switch3 variable="{mode}" case_1="1" case_2="idle" case_3="true"><A/><B/><C/><D/></Switch3>`,
			`Switch{cases:[1,"idle",true],key:"mode"}(A B C D)`},
		{"Switch2, Switch6, a global key, {=}", `<Sequence><Switch2 variable="{@m}" case_1="-0.5" case_2=""><A/><B/><C/></Switch2><Control ID="Switch6" variable="{=}" case_1="a" case_2="b" case_3="c" case_4="d" case_5="e" case_6="f"><A/><B/><C/><D/><A/><B/><C/></Control></Sequence>`,
			`Sequence(Switch{cases:[-0.5,""],key:"@m"}(A B C) Switch{cases:["a","b","c","d","e","f"],key:"variable"}(A B C D A B C))`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := doc(c.in, `<BehaviorTree ID="M2"><AlwaysSuccess/></BehaviorTree><BehaviorTree ID="G"><Check key="k" op="exists"/></BehaviorTree>`)
			d, err := btcpp.LoadWith([]byte(in), noIncludes)
			if err != nil {
				t.Fatal(err)
			}
			if got := formattest.Shape(d.Trees["M"]); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if _, ok := d.Trees["G"]; ok == strings.Contains(c.in, `guard="G"`) {
				t.Errorf("the guard tree is kept only when not used as a guard: trees %v", d.TreeNames())
			}
		})
	}
}

func TestLoadModelTypesPorts(t *testing.T) {
	in := doc(`<Sequence><Say text="42" loud="TRUE" times="3" tag="007" ref="{msg}"/></Sequence>`,
		`<TreeNodesModel><Action ID="Say"><input_port name="text" type="std::string"/><input_port name="loud" type="bool"/>`+
			`<input_port name="times" type="unsigned int"/><input_port name="tag"/><input_port name="ref" type="int"/></Action></TreeNodesModel>`)
	d, err := btcpp.LoadWith([]byte(in), noIncludes)
	if err != nil {
		t.Fatal(err)
	}
	want := `Sequence(Say{loud:true,ref:"{msg}",tag:7,text:"42",times:3})`
	if got := formattest.Shape(d.Trees["M"]); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestLoadMain checks how the main tree is found, and the forms BT.CPP
// accepts that its own documentation and tests use: no BTCPP_format (read
// as 4), a <BehaviorTree> without ID (named BehaviorTree_N), Groot2's
// editor attributes.
func TestLoadMain(t *testing.T) {
	cases := []struct {
		name, in, main string
		trees          []string
	}{
		{"one tree", `<root BTCPP_format="4"><BehaviorTree ID="Only"><AlwaysSuccess/></BehaviorTree></root>`, "Only", nil},
		{"main_tree_to_execute", `<root BTCPP_format="4" main_tree_to_execute="B"><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree>
			<BehaviorTree ID="B"><AlwaysSuccess/></BehaviorTree></root>`, "B", nil},
		{"the one tree not used by another", `<root BTCPP_format="4"><BehaviorTree ID="Grasp"><AlwaysSuccess/></BehaviorTree>
			<BehaviorTree ID="Main"><Sequence><SubTree ID="Grasp"/><Inverter guard="Cond"><AlwaysFailure/></Inverter></Sequence></BehaviorTree>
			<BehaviorTree ID="Cond"><AlwaysSuccess/></BehaviorTree></root>`, "Main", nil},
		{"no BTCPP_format", `<root><BehaviorTree ID="M"><AlwaysSuccess/></BehaviorTree></root>`, "M", nil},
		{"no ID", `<root BTCPP_format="4"><BehaviorTree><AlwaysSuccess/></BehaviorTree></root>`, "BehaviorTree_0", nil},
		{"no IDs, one used", `<root BTCPP_format="4"><BehaviorTree><SubTree ID="BehaviorTree_1"/></BehaviorTree><BehaviorTree><AlwaysSuccess/></BehaviorTree></root>`,
			"BehaviorTree_0", []string{"BehaviorTree_0", "BehaviorTree_1"}},
		{"Groot2 attributes", `<root BTCPP_format="4"><BehaviorTree ID="M" _description="d"><Sequence _uid="3"><SubTree ID="S" _collapsed="true"/></Sequence></BehaviorTree>
			<BehaviorTree ID="S"><AlwaysSuccess/></BehaviorTree></root>`, "M", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := btcpp.LoadWith([]byte(c.in), noIncludes)
			if err != nil {
				t.Fatal(err)
			}
			if d.Main != c.main {
				t.Errorf("main %q, want %q", d.Main, c.main)
			}
			if c.trees != nil && !slices.Equal(d.TreeNames(), c.trees) {
				t.Errorf("trees %v, want %v", d.TreeNames(), c.trees)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	deep := strings.Repeat("<Inverter>", 300) + "<A/>" + strings.Repeat("</Inverter>", 300)
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"syntax", "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"M\">\n<A>\n</BehaviorTree></root>", []string{"line 4", "XML syntax error"}},
		{"empty", "", []string{"no <root> element"}},
		{"not root", `<tree/>`, []string{"the top element must be <root>"}},
		{"version 3", `<root BTCPP_format="3"><BehaviorTree ID="M"><A/></BehaviorTree></root>`, []string{`BTCPP_format "3" is not supported`}},
		{"unknown root attribute", `<root BTCPP_format="4" foo="1"><BehaviorTree ID="M"><A/></BehaviorTree></root>`, []string{`unsupported attribute "foo" on <root>`}},
		{"unknown element", `<root BTCPP_format="4"><Tree/></root>`, []string{"unsupported element <Tree> in <root>"}},
		{"two roots", `<root BTCPP_format="4"/><root/>`, []string{"a second top-level element"}},
		{"text outside", `<root BTCPP_format="4"/>hello`, []string{"text outside the <root> element"}},
		{"doctype", `<!DOCTYPE root [<!ENTITY a "b">]><root BTCPP_format="4"/>`, []string{"directives"}},
		{"namespaces", `<root BTCPP_format="4" xmlns:x="urn:x"><BehaviorTree ID="M"><A x:p="1"/></BehaviorTree></root>`, []string{"XML namespaces are not supported (attribute urn:x:p)"}},
		{"no trees", `<root BTCPP_format="4"/>`, []string{"no <BehaviorTree>"}},
		{"tree with an empty ID", `<root BTCPP_format="4"><BehaviorTree ID=""><A/></BehaviorTree></root>`, []string{"<BehaviorTree> has an empty ID"}},
		{"duplicate tree", "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"M\"><A/></BehaviorTree>\n<BehaviorTree ID=\"M\"><A/></BehaviorTree></root>", []string{"line 3", `two trees have the ID "M" (the other at line 2)`}},
		{"two children", doc(`<A/><B/>`), []string{"trees.M", "wrong number of children", "needs exactly one child element (its root node), has 2"}},
		{"no main", `<root BTCPP_format="4"><BehaviorTree ID="A"><A/></BehaviorTree><BehaviorTree ID="B"><A/></BehaviorTree></root>`, []string{"2 trees (A, B) and no main_tree_to_execute, and 2 of them are not the subtree of another (A, B)"}},
		{"no main, a cycle", `<root BTCPP_format="4"><BehaviorTree ID="A"><SubTree ID="B"/></BehaviorTree><BehaviorTree ID="B"><SubTree ID="A"/></BehaviorTree></root>`, []string{"2 trees (A, B) and no main_tree_to_execute, and each is the subtree of another (a cycle)"}},
		{"other underscore attribute", doc(`<A _foo="1"/>`), []string{"unsupported BT.CPP attribute _foo"}},
		{"missing main", `<root BTCPP_format="4" main_tree_to_execute="X"><BehaviorTree ID="A"><A/></BehaviorTree></root>`, []string{`main_tree_to_execute names a missing tree "X"`}},
		{"explicit form without ID", doc(`<Action name="x"/>`), []string{"<Action> needs an ID attribute"}},
		{"text in a node", doc(`<Sequence>hello<A/></Sequence>`), []string{"unexpected text inside <Sequence>"}},
		{"_skipIf", doc(`<A _skipIf="x"/>`), []string{"[A, line 1]", "scripting attribute _skipIf"}},
		{"_successIf", doc(`<A _successIf="x"/>`), []string{"scripting attribute _successIf"}},
		{"_failureIf", doc(`<A _failureIf="x"/>`), []string{"scripting attribute _failureIf"}},
		{"_while", doc(`<A _while="x"/>`), []string{"scripting attribute _while"}},
		{"_onSuccess", doc(`<A _onSuccess="x"/>`), []string{"scripting attribute _onSuccess"}},
		{"_onFailure", doc(`<A _onFailure="x"/>`), []string{"scripting attribute _onFailure"}},
		{"_post", doc(`<A _post="x"/>`), []string{"scripting attribute _post"}},
		{"_onHalted", doc(`<A _onHalted="x"/>`), []string{"scripting attribute _onHalted"}},
		{"other underscore attribute", doc(`<A _foo="x"/>`), []string{"unsupported BT.CPP attribute _foo"}},
		{"_autoremap off SubTree", doc(`<A _autoremap="true"/>`), []string{"_autoremap is only meaningful on <SubTree>"}},
		{"Script", doc(`<Script code="x:=1"/>`), []string{"unsupported BT.CPP node Script: scripting"}},
		{"ScriptCondition", doc(`<ScriptCondition code="x"/>`), []string{"unsupported BT.CPP node ScriptCondition"}},
		{"Precondition", doc(`<Precondition if="x" else="FAILURE"><A/></Precondition>`), []string{"unsupported BT.CPP node Precondition"}},
		{"IfThenElse ports", doc(`<IfThenElse x="1"><A/><B/></IfThenElse>`), []string{`unknown port "x" of IfThenElse (ports: none)`}},
		{"Switch without variable", doc(`<Switch2 case_1="a" case_2="b"><A/><B/><C/></Switch2>`), []string{`missing port "variable" of Switch2`}},
		{"Switch variable not a reference", doc(`<Switch2 variable="mode" case_1="a" case_2="b"><A/><B/><C/></Switch2>`), []string{`port "variable": want a blackboard reference {key}, got "mode"`}},
		{"Switch missing case", doc(`<Switch3 variable="{v}" case_1="a" case_3="c"><A/><B/><C/><D/></Switch3>`), []string{`missing port "case_2" of Switch3`}},
		{"Switch case beyond N", doc(`<Switch2 variable="{v}" case_1="a" case_2="b" case_3="c"><A/><B/><C/></Switch2>`), []string{`unknown port "case_3" of Switch2 (ports: variable, case_1 … case_2)`}},
		{"Switch case from the blackboard", doc(`<Switch2 variable="{v}" case_1="{a}" case_2="b"><A/><B/><C/></Switch2>`), []string{`port "case_1": blackboard references ({a}) are not supported here`}},
		{"Arbor's Switch name", doc(`<Switch key="v" cases="a"><A/><B/></Switch>`), []string{`BT.CPP XML writes Arbor's Switch as Switch2 … Switch6`}},
		{"v3 SequenceStar", doc(`<SequenceStar><A/></SequenceStar>`), []string{"unsupported BT.CPP node SequenceStar", "SequenceWithMemory"}},
		{"SubTree remapping", doc(`<SubTree ID="M" goal="{g}"/>`), []string{"port remapping on SubTree (attribute goal)"}},
		{"SubTree without ID", doc(`<SubTree/>`), []string{"<SubTree> needs an ID attribute"}},
		// Nav2 files use their own Wait, usually without a TreeNodesModel.
		{"program node named like an Arbor built-in", doc(`<Sequence><Wait wait_duration="5"/></Sequence>`),
			[]string{"trees.M.children[0]", "[Wait, line 1]", `Wait is an Arbor built-in, which keeps its name in XML, and "wait_duration" is not one of its parameters (ms, ticks): if the file means a program node of that name, register it under another name`}},
		{"attribute on an Arbor built-in without parameters", doc(`<Running speed="2"/>`), []string{`"speed" is not one of its parameters (it takes none)`}},
		{"editor attribute on a tree without _", `<root BTCPP_format="4"><BehaviorTree ID="M" favorite="true"><A/></BehaviorTree></root>`, []string{`unsupported attribute "favorite" on <BehaviorTree>`}},
		{"SubTree bad _autoremap", doc(`<SubTree ID="M" _autoremap="maybe"/>`), []string{`_autoremap must be true or false, got "maybe"`}},
		{"SubTree with children", doc(`<SubTree ID="M"><A/></SubTree>`), []string{"<SubTree> takes none"}},
		{"RunOnce default", doc(`<RunOnce><A/></RunOnce>`), []string{`RunOnce with then_skip="true" (BT.CPP's default`}},
		{"RunOnce skipping", doc(`<RunOnce then_skip="true"><A/></RunOnce>`), []string{`RunOnce with then_skip="true"`}},
		{"Repeat without num_cycles", doc(`<Repeat><A/></Repeat>`), []string{`missing port "num_cycles" of Repeat`}},
		{"Repeat zero", doc(`<Repeat num_cycles="0"><A/></Repeat>`), []string{"num_cycles 0 is not supported"}},
		{"Repeat from the blackboard", doc(`<Repeat num_cycles="{n}"><A/></Repeat>`), []string{`port "num_cycles": blackboard references ({n}) are not supported here`}},
		{"negative msec", doc(`<Timeout msec="-5"><A/></Timeout>`), []string{`port "msec": want an integer ≥ 0, got "-5"`}},
		{"not an integer", doc(`<Sleep msec="1.5"/>`), []string{`port "msec": want an integer ≥ 0`}},
		{"unknown port", doc(`<Sequence foo="1"><A/></Sequence>`), []string{`unknown port "foo" of Sequence (ports: none)`}},
		{"Parallel typo", doc(`<Parallel succes_count="1"><A/></Parallel>`), []string{`unknown port "succes_count" of Parallel (ports: success_count, failure_count, retryFailed)`}},
		{"KeepRunningUntilFailure ports", doc(`<KeepRunningUntilFailure x="1"><A/></KeepRunningUntilFailure>`), []string{`unknown port "x": KeepRunningUntilFailure takes none`}},
		{"SetBlackboard without key", doc(`<SetBlackboard value="1"/>`), []string{`missing port "output_key"`}},
		{"UnsetBlackboard without key", doc(`<UnsetBlackboard/>`), []string{`missing port "key" of UnsetBlackboard`}},
		{"UnsetBlackboard of a reference", doc(`<UnsetBlackboard key="{k}"/>`), []string{`port "key" of UnsetBlackboard names the entry to remove`, "{k}"}},
		{"bad bool", doc(`<Parallel retryFailed="yes"><A/></Parallel>`), []string{`port "retryFailed": want true or false`}},
		{"Arbor-only number", doc(`<Cooldown ms="soon"><A/></Cooldown>`), []string{`port "ms": want a number, got "soon"`}},
		{"weights not separated by ;", doc(`<RandomSelector weights="3,1"><A/><B/></RandomSelector>`), []string{`port "weights": want numbers separated by ';' (such as "3;1;0.5"), got "3,1"`}},
		{"empty weights", doc(`<RandomSelector weights=""><A/></RandomSelector>`), []string{`port "weights": want numbers separated by ';'`}},
		{"fractional seed", doc(`<RandomSequence seed="1.5"><A/></RandomSequence>`), []string{`port "seed": want an integer, got "1.5"`}},
		{"random composite port", doc(`<RandomSequence weight="1"><A/></RandomSequence>`), []string{`"weight" is not one of its parameters (seed, weights)`}},
		{"bad abort", doc(`<Sequence abort="up"><A/></Sequence>`), []string{"abort must be none, self, lower or both"}},
		{"repeated attribute", doc("<Sequence>\n<SetBlackboard output_key=\"k\" value=\"1\" value=\"2\"/></Sequence>"), []string{"line 2", `<SetBlackboard>: attribute "value" is given twice`}},
		{"abort none where aborts are not", doc(`<Inverter abort="none"><A/></Inverter>`), []string{`abort "none" is only allowed on Sequence, SequenceWithMemory and Selector [Inverter`}},
		{"guard to nowhere", doc(`<A guard="G"/>`), []string{`guard names a missing tree "G"`}},
		{"guard cycle", doc(`<A guard="G"/>`, `<BehaviorTree ID="G"><Check key="k" op="exists" guard="G"/></BehaviorTree>`), []string{"guard cycle"}},
		{"undeclared port", doc(`<MoveTo targt="A"/>`, `<TreeNodesModel><Action ID="MoveTo"><input_port name="target"/></Action></TreeNodesModel>`), []string{`port "targt" is not declared for MoveTo in TreeNodesModel (ports: target)`}},
		{"model category", doc(`<Condition ID="MoveTo"/>`, `<TreeNodesModel><Action ID="MoveTo"/></TreeNodesModel>`), []string{`written as <Condition ID="MoveTo"> but TreeNodesModel declares it a Action`}},
		{"typed port", doc(`<MoveTo speed="fast"/>`, `<TreeNodesModel><Action ID="MoveTo"><input_port name="speed" type="double"/></Action></TreeNodesModel>`), []string{`port "speed": want a number, got "fast"`}},
		{"two models", doc(`<A/>`, `<TreeNodesModel/><TreeNodesModel/>`), []string{"only one <TreeNodesModel>"}},
		{"model without ID", doc(`<A/>`, `<TreeNodesModel><Action/></TreeNodesModel>`), []string{"a <Action> model needs an ID attribute"}},
		{"includes refused", `<root BTCPP_format="4"><include path="x.xml"/></root>`, []string{`<include path="x.xml"> is not allowed here`}},
		{"include ros_pkg", `<root BTCPP_format="4"><include ros_pkg="pkg" path="x.xml"/></root>`, []string{"<include ros_pkg> is not supported"}},
		{"include without path", `<root BTCPP_format="4"><include/></root>`, []string{"<include> needs a path attribute"}},
		{"too deep", doc(deep), []string{"nodes nested deeper than 256"}},
		{"too big", doc(`<A name="` + strings.Repeat("x", 16<<20) + `"/>`), []string{"over the limit"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := btcpp.LoadWith([]byte(c.in), noIncludes)
			if err == nil {
				t.Fatalf("loaded: %v", d.TreeNames())
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

// Files as editors save them: Groot2's and MoveIt Pro's metadata on
// trees, nodes and models is ignored.
func TestLoadEditorMetadata(t *testing.T) {
	d, err := btcpp.LoadFile("testdata/editor-metadata.xml")
	if err != nil {
		t.Fatal(err)
	}
	if d.Main != "Pick Apples" {
		t.Errorf("main %q", d.Main)
	}
	got := formattest.Shape(d.Trees["Pick Apples"])
	const want = `Sequence(SubTree{tree:"Walk Row"} Selector"pick or skip"(IsRipe{min_color:0.8} Skip) RetryUntilSuccessful{attempts:3}(Pick{gentle:true,reach:"{arm_reach}"}))`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestCompileErrorsHaveLines(t *testing.T) {
	in := "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"M\">\n<Sequence>\n<Inverter><A/><B/></Inverter>\n</Sequence>\n</BehaviorTree>\n</root>"
	d, err := btcpp.LoadWith([]byte(in), noIncludes)
	if err != nil {
		t.Fatal(err)
	}
	_, err = arbor.Compile(d, formattest.RegistryFor(t, d))
	if err == nil || !strings.Contains(err.Error(), "trees.M.children[0]: wrong number of children: has 2, a decorator needs exactly one child [Inverter, line 4]") {
		t.Fatalf("err = %v", err)
	}
}

// A parameter the compiler refuses is named as the file wrote it too.
func TestCompileErrorsNamePorts(t *testing.T) {
	for in, want := range map[string]string{
		doc(`<Parallel success_count="3"><A/><B/></Parallel>`):                    `parameter "success" (success_count of Parallel in the file): 3 is out of range`,
		doc(`<Parallel failure_count="3"><A/><B/></Parallel>`):                    `parameter "failure" (failure_count of Parallel in the file)`,
		doc(`<ParallelAll max_failures="0"><A/></ParallelAll>`):                   `parameter "maxFailures" (max_failures of ParallelAll in the file)`,
		doc(`<RetryUntilSuccessful num_attempts="0"><A/></RetryUntilSuccessful>`): `parameter "attempts" (num_attempts of RetryUntilSuccessful in the file)`,
		doc(`<Cooldown ms="-1"><A/></Cooldown>`):                                  `parameter "ms": duration -1 ms`, // an Arbor name: nothing to add
	} {
		d, err := btcpp.LoadWith([]byte(in), noIncludes)
		if err != nil {
			t.Fatal(err)
		}
		if _, err = arbor.Compile(d, formattest.RegistryFor(t, d)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", in, err, want)
		}
	}
}

func TestIncludes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	main := write("main.xml", `<root BTCPP_format="4" main_tree_to_execute="Main"><include path="sub/a.xml"/>
<BehaviorTree ID="Main"><Sequence><SubTree ID="A"/><SubTree ID="B"/></Sequence></BehaviorTree></root>`)
	write("sub/a.xml", `<root BTCPP_format="4" main_tree_to_execute="Ignored"><include path="../b.xml"/><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree></root>`)
	write("b.xml", `<root BTCPP_format="4"><BehaviorTree ID="B"><AlwaysFailure/></BehaviorTree></root>`)
	d, err := btcpp.LoadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	if d.Main != "Main" || strings.Join(d.TreeNames(), ",") != "A,B,Main" {
		t.Errorf("main %q, trees %v", d.Main, d.TreeNames())
	}

	// A file two others include (a diamond) is read once.
	diamond := write("diamond/main.xml", `<root BTCPP_format="4"><include path="b.xml"/><include path="sub/c.xml"/>
<BehaviorTree ID="Main"><Sequence><SubTree ID="B"/><SubTree ID="C"/></Sequence></BehaviorTree></root>`)
	write("diamond/b.xml", `<root BTCPP_format="4"><include path="lib.xml"/><BehaviorTree ID="B"><SubTree ID="Lib"/></BehaviorTree></root>`)
	write("diamond/sub/c.xml", `<root BTCPP_format="4"><include path="../lib.xml"/><BehaviorTree ID="C"><SubTree ID="Lib"/></BehaviorTree></root>`)
	write("diamond/lib.xml", `<root BTCPP_format="4"><BehaviorTree ID="Lib"><AlwaysSuccess/></BehaviorTree></root>`)
	if d, err := btcpp.LoadFile(diamond); err != nil {
		t.Errorf("diamond: %v", err)
	} else if d.Main != "Main" || strings.Join(d.TreeNames(), ",") != "B,C,Lib,Main" {
		t.Errorf("diamond: main %q, trees %v", d.Main, d.TreeNames())
	}

	// Trees without ID are numbered as BT.CPP reads them: a file's
	// includes first.
	noID := write("noid/top.xml", `<root><BehaviorTree><SubTree ID="BehaviorTree_0"/></BehaviorTree><include path="inc.xml"/></root>`)
	write("noid/inc.xml", `<root><BehaviorTree><AlwaysFailure/></BehaviorTree></root>`)
	if d, err := btcpp.LoadFile(noID); err != nil {
		t.Errorf("trees without ID: %v", err)
	} else if d.Main != "BehaviorTree_1" || d.Trees["BehaviorTree_0"].Type != "Failure" {
		t.Errorf("trees without ID: main %q, BehaviorTree_0 %v", d.Main, d.Trees["BehaviorTree_0"])
	}

	// Files lists the file and what it includes, each once.
	if files, err := btcpp.Files(diamond); err != nil {
		t.Errorf("Files: %v", err)
	} else {
		d := filepath.Dir(diamond)
		want := []string{diamond, filepath.Join(d, "b.xml"), filepath.Join(d, "lib.xml"), filepath.Join(d, "sub", "c.xml")}
		if !slices.Equal(files, want) {
			t.Errorf("Files = %q, want %q", files, want)
		}
	}

	// LoadWith resolves relative to Options.Dir.
	data, _ := os.ReadFile(main)
	if _, err := btcpp.LoadWith(data, btcpp.Options{Dir: dir}); err != nil {
		t.Errorf("LoadWith: %v", err)
	}
	// And through Options.ReadFile.
	var read []string
	_, err = btcpp.LoadWith(data, btcpp.Options{Dir: "/virtual", ReadFile: func(p string) ([]byte, error) {
		read = append(read, p)
		return os.ReadFile(filepath.Join(dir, strings.TrimPrefix(p, "/virtual")))
	}})
	if err != nil || strings.Join(read, ",") != "/virtual/sub/a.xml,/virtual/b.xml" {
		t.Errorf("read %v, err %v", read, err)
	}

	errs := []struct {
		files map[string]string
		want  []string
	}{
		{map[string]string{"c1.xml": `<root BTCPP_format="4" main_tree_to_execute="A"><include path="c2.xml"/><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree></root>`,
			"c2.xml": `<root BTCPP_format="4"><include path="c3.xml"/></root>`,
			"c3.xml": `<root BTCPP_format="4"><include path="./c1.xml"/></root>`},
			[]string{"c3.xml: include cycle: c1.xml → c2.xml → c3.xml → c1.xml [line 1]"}},
		{map[string]string{"c1.xml": `<root BTCPP_format="4"><include path="self.xml"/></root>`,
			"self.xml": `<root BTCPP_format="4"><include path="self.xml"/></root>`},
			[]string{"include cycle: self.xml → self.xml"}},
		{map[string]string{"c1.xml": `<root BTCPP_format="4"><include path="missing.xml"/></root>`},
			[]string{"c1.xml: line 1: include missing.xml"}},
		{map[string]string{"c1.xml": `<root BTCPP_format="4" main_tree_to_execute="A"><include path="bad.xml"/><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree></root>`,
			"bad.xml": "<root BTCPP_format=\"4\">\n<BehaviorTree ID=\"B\">\n<Sequence>\n<A _while=\"x\"/></Sequence></BehaviorTree></root>"},
			[]string{"trees.B.children[0]: unsupported BT.CPP feature: scripting attribute _while [in bad.xml]"}},
		{map[string]string{"c1.xml": `<root BTCPP_format="4"><include path="broken.xml"/></root>`,
			"broken.xml": "<root BTCPP_format=\"4\">\n<oops</root>"},
			[]string{"included file broken.xml: line 2: XML syntax error"}},
		{map[string]string{"c1.xml": `<root BTCPP_format="4" main_tree_to_execute="A"><include path="dup.xml"/><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree></root>`,
			"dup.xml": `<root BTCPP_format="4"><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree></root>`},
			[]string{`two trees have the ID "A" (the other at line 1 [in dup.xml])`}},
	}
	for i, c := range errs {
		sub := filepath.Join(dir, fmt.Sprint("case", i))
		for name, content := range c.files {
			write(filepath.Join(filepath.Base(sub), name), content)
		}
		_, err := btcpp.LoadFile(filepath.Join(sub, "c1.xml"))
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("case %d: error %v\ndoes not contain %q", i, err, w)
			}
		}
	}
}

func TestByteOrderMark(t *testing.T) {
	in := "\xef\xbb\xbf<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + doc(`<AlwaysSuccess/>`)
	if _, err := btcpp.LoadWith([]byte(in), noIncludes); err != nil {
		t.Fatal(err)
	}
}

func TestCustomControlAndDecorator(t *testing.T) {
	// A BT.CPP file with a program's own decorator and control node loads
	// when the program registers them (RegisterDecorator, RegisterControl).
	in := doc(`<Sequence><Decorator ID="Flip"><AlwaysFailure/></Decorator><FirstOf><AlwaysFailure/><Flip><AlwaysFailure/></Flip></FirstOf></Sequence>`,
		`<TreeNodesModel><Decorator ID="Flip"/><Control ID="FirstOf"/></TreeNodesModel>`)
	d, err := btcpp.LoadWith([]byte(in), noIncludes)
	if err != nil {
		t.Fatal(err)
	}
	formattest.TickControlDoc(t, d)
	if got := formattest.Shape(d.Trees["M"]); got != "Sequence(Flip(Failure) FirstOf(Failure Flip(Failure)))" {
		t.Errorf("shape %s", got)
	}

	// A decorator's child is spelled .child in paths, as in the other
	// formats.
	d, err = btcpp.LoadWith([]byte(doc(`<Flip><Nope/></Flip>`, `<TreeNodesModel><Decorator ID="Flip"/></TreeNodesModel>`)), noIncludes)
	if err != nil {
		t.Fatal(err)
	}
	reg := arbor.NewRegistry()
	if err := formattest.RegisterControls(reg); err != nil {
		t.Fatal(err)
	}
	if _, err := arbor.Compile(d, reg); err == nil || !strings.Contains(err.Error(), `trees.M.child: unknown node type "Nope"`) {
		t.Errorf("error %v, want it at trees.M.child", err)
	}
}

// TestLoadCategories: the categories the TreeNodesModel and the
// <Condition ID> spelling declare reach the document, and an export without
// a registry keeps them.
func TestLoadCategories(t *testing.T) {
	in := doc(`<Sequence><Condition ID="IsHungry"/><Near/><Action ID="Eat"/><Plain/></Sequence>`,
		`<TreeNodesModel><Condition ID="Near"/><Decorator ID="Spare"/></TreeNodesModel>`)
	d, err := btcpp.LoadWith([]byte(in), noIncludes)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]arbor.Category{"IsHungry": arbor.CategoryCondition, "Near": arbor.CategoryCondition,
		"Eat": arbor.CategoryAction, "Spare": arbor.CategoryDecorator}
	if !maps.Equal(d.Categories, want) {
		t.Errorf("categories %v, want %v", d.Categories, want)
	}
	out, err := btcpp.Export(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`<Condition ID="IsHungry"/>`, `<Condition ID="Near"/>`, `<Action ID="Plain"/>`} {
		if !strings.Contains(string(out), s) {
			t.Errorf("the export lacks %s:\n%s", s, out)
		}
	}
}

// TestLoadListPorts reads the ports a TreeNodesModel declares std::vector<T>
// as lists, as BT.CPP reads them: elements separated by ';' (or "json:"
// and a JSON array), each converted as a port of type T.
func TestLoadListPorts(t *testing.T) {
	model := func(typ string) string {
		return `<TreeNodesModel><Action ID="Go"><input_port name="p" type="` + typ + `"/></Action></TreeNodesModel>`
	}
	cases := []struct{ name, typ, value, want string }{
		{"strings", "std::vector<std::string>", "A;B;C", `["A","B","C"]`},
		{"strings keep spaces and look-alikes", "std::vector<std::string>", " a ;5;true;{x}", `[" a ","5","true","{x}"]`},
		{"strings, bare string", "std::vector<string>", "A", `["A"]`},
		{"strings as GCC demangles them", "std::vector<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::allocator<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > >", "A;B", `["A","B"]`},
		{"strings as libc++ demangles them", "std::__1::vector<std::__1::basic_string<char, std::__1::char_traits<char>, std::__1::allocator<char> >, std::__1::allocator<std::__1::basic_string<char, std::__1::char_traits<char>, std::__1::allocator<char> > > >", "A;B", `["A","B"]`},
		{"doubles", "std::vector<double>", "3;1;0.5", `[3,1,0.5]`},
		{"doubles around spaces", "std::vector<double>", " 3 ; -1e3", `[3,-1000]`},
		{"doubles as GCC demangles them", "std::vector<double, std::allocator<double> >", "1;2", `[1,2]`},
		{"doubles as MSVC demangles them", "class std::vector<double,class std::allocator<double> >", "1;2", `[1,2]`},
		{"floats", "std::vector<float>", "1.5", `[1.5]`},
		{"ints", "std::vector<int>", "1;-2", `[1,-2]`},
		{"unsigned", "std::vector<unsigned int>", "7", `[7]`},
		{"longs", "std::vector<long>", "9", `[9]`},
		{"bools", "std::vector<bool>", "true;false;1;0;TRUE", `[true,false,true,false,true]`},
		{"spaced spelling", " std::vector < bool > ", "true", `[true]`},
		{"empty", "std::vector<double>", "", `[]`},
		{"empty strings", "std::vector<std::string>", "", `[]`},
		{"a final ';' ends the list", "std::vector<double>", "1;2;", `[1,2]`},
		{"an empty string element", "std::vector<std::string>", "a;;b", `["a","","b"]`},
		{"a final empty string", "std::vector<std::string>", "a;;", `["a",""]`},
		{"one empty string", "std::vector<std::string>", ";", `[""]`},
		{"a reference stays a reference", "std::vector<double>", "{points}", `"{points}"`},
		{"{=} is a reference", "std::vector<double>", "{=}", `"{p}"`},
		{"json: numbers", "std::vector<double>", "json:[1, 2.5]", `[1,2.5]`},
		{"json: strings", "std::vector<std::string>", `json:["a;b", ""]`, `["a;b",""]`},
		{"json: booleans", "std::vector<bool>", "json:[true]", `[true]`},
		{"json: empty", "std::vector<int>", "json:[]", `[]`},
		{"json: on a string port is a string", "std::string", "json:[1]", `"json:[1]"`},
		// Not a list of scalars: as before (a type naming "string" is a
		// string, another type is untyped).
		{"vector of vectors", "std::vector<std::vector<double>>", "5", `5`},
		{"vector of poses", "std::vector<geometry_msgs::msg::PoseStamped>", "1;2", `"1;2"`},
		{"vector of string vectors", "std::vector<std::vector<std::string>>", "5", `"5"`},
		{"not a vector", "std::deque<double>", "1;2", `"1;2"`},
		{"untyped", "", "1;2", `"1;2"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := doc(`<Go p="`+xmlEscape(c.value)+`"/>`, model(xmlEscape(c.typ)))
			d, err := btcpp.LoadWith([]byte(in), noIncludes)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := formattest.Shape(d.Trees["M"]), "Go{p:"+c.want+"}"; got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
	t.Run("no model: untyped as ever", func(t *testing.T) {
		d, err := btcpp.LoadWith([]byte(doc(`<Go p="1;2" q="A;B" r="3" s=""/>`)), noIncludes)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := formattest.Shape(d.Trees["M"]), `Go{p:"1;2",q:"A;B",r:3,s:""}`; got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	})
}

func TestLoadListPortErrors(t *testing.T) {
	cases := []struct{ name, typ, value, want string }{
		{"not a number", "std::vector<double>", "1;x;3", `port "p" (a list: elements separated by ';'): element 2 of 3, "x", is not a number`},
		{"an empty number", "std::vector<int>", "1;;3", `element 2 of 3, "", is not a number`},
		{"commas", "std::vector<double>", "1,2", `element 1 of 1, "1,2", is not a number`},
		{"hexadecimal", "std::vector<long>", "0x10", `element 1 of 1, "0x10", is not a number`},
		{"not a boolean", "std::vector<bool>", "true;yes", `port "p" (a list: elements separated by ';'): element 2 of 2, "yes", is not true or false`},
		{"json: not an array", "std::vector<double>", "json:{}", `port "p" (a list): after "json:" want a JSON array, got "{}"`},
		{"json: null", "std::vector<double>", "json:null", `after "json:" want a JSON array`},
		{"json: bad JSON", "std::vector<double>", "json:[1,", `after "json:" want a JSON array`},
		{"json: a string among numbers", "std::vector<double>", `json:[1,"2"]`, `port "p" (a list: a JSON array): element 2 of 2, "2", is not a number`},
		{"json: a number among strings", "std::vector<std::string>", `json:["a",1]`, `element 2 of 2, 1, is not a string`},
		{"json: a number among booleans", "std::vector<bool>", `json:[1]`, `element 1 of 1, 1, is not true or false`},
		{"json: a nested list", "std::vector<double>", `json:[[1]]`, `element 1 of 1, [1], is not a number`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := doc("<Sequence>\n<Go p=\""+xmlEscape(c.value)+"\"/></Sequence>",
				`<TreeNodesModel><Action ID="Go"><input_port name="p" type="`+xmlEscape(c.typ)+`"/></Action></TreeNodesModel>`)
			d, err := btcpp.LoadWith([]byte(in), noIncludes)
			if err == nil {
				t.Fatalf("loaded: %s", formattest.Shape(d.Trees["M"]))
			}
			for _, w := range []string{c.want, "trees.M.children[0]", "[Go, line 2]"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func xmlEscape(s string) string {
	var b strings.Builder
	if err := xml.EscapeText(&b, []byte(s)); err != nil {
		panic(err)
	}
	return b.String()
}
