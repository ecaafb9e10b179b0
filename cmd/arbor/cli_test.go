package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command's -h prints its usage to standard output and exits 0, as
// "arbor help" does; "arbor help CMD" is "arbor CMD -h".
func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range []string{"demo", "serve", "replay", "test", "validate", "run", "bench", "convert", "render"} {
		for _, args := range [][]string{{cmd, "-h"}, {cmd, "--help"}, {"help", cmd}} {
			out, errOut, code := runCLI(t, args...)
			if code != 0 || !strings.HasPrefix(out, "usage: arbor "+cmd) || errOut != "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0 and the usage on stdout", args, code, out, errOut)
			}
		}
	}
	if _, errOut, code := runCLI(t, "help", "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Errorf("help of an unknown command: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := runCLI(t, "help", "run", "extra"); code != 2 || !strings.Contains(errOut, `one command at a time, got ["run" "extra"]`) {
		t.Errorf("help with two words: exit %d, stderr %q", code, errOut)
	}
}

// A command line that is wrong exits 2 and says what is wrong before the
// usage; no value makes a command panic.
func TestUsageErrorsSayWhy(t *testing.T) {
	sentry := filepath.Join("..", "..", "examples", "sentry.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "arbor run: missing FILE"},
		{[]string{"run", sentry, "extra"}, `arbor run: unexpected argument "extra" after FILE`},
		{[]string{"run", sentry, "-ticks", "-1"}, "arbor run: -ticks must be 0 or more, got -1"},
		{[]string{"run", sentry, "-tick-ms", "0"}, "-tick-ms must be a positive number"},
		{[]string{"run", sentry, "-tick-ms", "NaN"}, "-tick-ms must be a positive number"},
		{[]string{"run", sentry, "-tick-ms", "Inf"}, "-tick-ms must be a positive number"},
		{[]string{"run", sentry, "-tick-ms", "1e300"}, "would run past the largest game time"},
		{[]string{"run", sentry, "-tick-ms", "1e-9"}, "-tick-ms must be at least 0.001"},
		{[]string{"serve", "-tick-ms", "NaN", sentry}, "arbor serve: -tick-ms must be a positive number"},
		{[]string{"serve", "-tick-ms", "+Inf", sentry}, "arbor serve: -tick-ms must be a positive number"},
		{[]string{"serve", "-tick-ms", "1e-12", sentry}, "arbor serve: -tick-ms must be at least 0.001"},
		{[]string{"serve", "-agents", "0", sentry}, "arbor serve: -agents must be 1 or more, got 0"},
		{[]string{"serve"}, "arbor serve: missing FILE..."},
		{[]string{"validate", "a.json", "b.json"}, `arbor validate: unexpected argument "b.json" after FILE`},
		{[]string{"test"}, "arbor test: missing PATH..."},
		{[]string{"convert", sentry}, "arbor convert: missing OUT"},
		{[]string{"render"}, "arbor render: missing FILE"},
		{[]string{"render", sentry, "-format", "svg"}, `arbor render: -format must be ascii, dot or mermaid, got "svg"`},
		{[]string{"replay"}, "arbor replay: missing FILE.json"},
		{[]string{"bench", "guard"}, `arbor bench: unexpected argument "guard"`},
		{[]string{"bench", "-agents", "0"}, "arbor bench: -agents must be 1 or more, got 0"},
		{[]string{"bench", "-runs", "-2"}, "arbor bench: -runs must be 1 or more, got -2"},
		{[]string{"demo", "-headless", "-ticks", "-1"}, "arbor demo: -ticks must be 0 or more, got -1"},
		{[]string{"demo", "-headless", "-villagers", "0"}, "arbor demo: -villagers must be 1 or more, got 0"},
		{[]string{"demo", "-headless", "-workers", "-3"}, "arbor demo: -workers must be 0 (GOMAXPROCS) or more, got -3"},
		{[]string{"run", sentry, "-tikcs", "3"}, "flag provided but not defined: -tikcs"},
		{[]string{"run", sentry, "-mock", "Wait=failure"}, `invalid value "Wait=failure" for flag -mock: Wait is a built-in node type; only other types can be mocked`},
		{[]string{"serve", "-mock", "Check=success", sentry}, `invalid value "Check=success" for flag -mock: Check is a built-in node type`},
	} {
		out, errOut, code := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "usage: arbor "+tc.args[0]) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q before the usage", tc.args, code, out, errOut, tc.want)
		}
	}
}

// Every error line of a tree that does not load names its file, also when
// the loader or the compiler lists several problems.
func TestLoadErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.yaml", "type: Sequence\nchildren:\n  - {type: Wiat, ticks: 1}\n  - {type: Inverter}\n")
	notTree := writeFile(t, dir, "scenario.json", `{"scenarios": []}`)
	trees := t.TempDir()
	writeFile(t, trees, "villager.yaml", "type: Sequense\nchildren: [{type: Work}]\n")
	writeFile(t, trees, "monster.yaml", "type: Success\n")
	for _, tc := range []struct {
		args   []string
		stdout bool // the errors are the command's output
		want   []string
	}{
		{[]string{"validate", bad}, true, []string{
			bad + `: trees.root.children[0]: unknown node type "Wiat" (did you mean "Wait"?) [Wiat, line 3]`,
			bad + ": trees.root.children[1]: wrong number of children: has 0, a decorator needs exactly one child [Inverter, line 4]"}},
		{[]string{"run", bad}, false, []string{bad + `: trees.root.children[0]: unknown node type "Wiat"`, "[Wiat, line 3]", bad + ": trees.root.children[1]: wrong number of children", "[Inverter, line 4]"}},
		{[]string{"validate", notTree}, true, []string{"load " + notTree + `: scenarios: unknown document key "scenarios"`, "load " + notTree + ": trees: the document has no trees"}},
		{[]string{"run", notTree}, false, []string{"load " + notTree + `: scenarios: unknown document key "scenarios" [line 1]`}},
		{[]string{"render", notTree}, false, []string{"load " + notTree + `: scenarios: unknown document key "scenarios" [line 1]`}},
		{[]string{"convert", notTree, filepath.Join(dir, "out.xml")}, false, []string{"load " + notTree + `: scenarios: unknown document key "scenarios" [line 1]`}},
		{[]string{"serve", "-addr", "127.0.0.1:0", bad}, false, []string{bad + ": trees.root.children[1]: wrong number of children: has 0, a decorator needs exactly one child [Inverter, line 4]"}},
		{[]string{"demo", "-headless", "-trees", trees}, false, []string{`villager.yaml: trees.root: unknown node type "Sequense" (did you mean "Sequence"?) [Sequense, line 1]`}},
	} {
		out, errOut, code := runCLI(t, tc.args...)
		got := errOut
		if tc.stdout {
			got = out
		}
		if code != 1 {
			t.Errorf("%v: exit %d, want 1", tc.args, code)
		}
		for _, want := range tc.want {
			if !strings.Contains(got, want) {
				t.Errorf("%v: output lacks %q:\nstdout: %s\nstderr: %s", tc.args, want, out, errOut)
			}
		}
	}
}

// A mock stands in for an unknown leaf type only: a misspelt composite is
// reported as unknown with the built-in it resembles (not as "a leaf takes
// no children"), and a misspelt leaf that runs as a mock is warned about,
// as is a -mock type no node has; an unknown type with children gets a
// word on why no mock stands in.
func TestMocksDoNotHideTypos(t *testing.T) {
	dir := t.TempDir()
	composite := writeFile(t, dir, "composite.json", `{"type": "Sequense", "children": [{"type": "Success"}]}`)
	leaf := writeFile(t, dir, "leaf.yaml", "type: Sequence\nchildren:\n  - {type: Wiat, ticks: 1}\n  - {type: Attack}\n")
	control := writeFile(t, dir, "control.yaml", "type: Sequence\nchildren:\n  - type: RecoveryNode\n    children: [{type: Success}]\n")
	sentry := filepath.Join("..", "..", "examples", "sentry.yaml")
	unknown := `unknown node type "Sequense" (did you mean "Sequence"?)`
	typo := `node type "Wiat" is not built in (did you mean "Wait"?); it runs as a mock action`
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"run", "-allow-unknown", composite}, 1, "", composite + ": trees.root: " + unknown},
		{[]string{"validate", "-allow-unknown", composite}, 1, unknown, ""},
		{[]string{"serve", "-addr", "127.0.0.1:0", composite}, 1, "", unknown},
		{[]string{"run", "-allow-unknown", "-ticks", "1", leaf}, 0, "tick 1 (t=100ms): success", "arbor run: warning: " + leaf + ": " + typo},
		{[]string{"validate", "-allow-unknown", leaf}, 0, "warning: " + leaf + ": " + typo, ""},
		{[]string{"validate", "-allow-unknown", control}, 0, "warning: " + control + `: node type "RecoveryNode" is not built in; it runs as a stand-in decorator that returns its child's result`, ""},
		{[]string{"run", "-mock", "Atack=success", "-ticks", "1", sentry}, 0, "tick 1", `arbor run: warning: ` + sentry + `: -mock Atack: no node has type "Atack"`},
	} {
		out, errOut, code := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, out, errOut, tc.code, tc.stdout, tc.stderr)
		}
	}
	// Without a typo, no warning.
	if _, errOut, code := runCLI(t, "run", "-allow-unknown", "-mock", "Attack=running", "-ticks", "1", writeFile(t, dir, "ok.json", `{"type": "Attack"}`)); code != 0 || errOut != "" {
		t.Errorf("no typo: exit %d, stderr %q", code, errOut)
	}
}

// With -allow-unknown a type of the program's that has children runs as a
// stand-in: a control ticks its children in order as a Sequence (resuming
// at the running child), a decorator (one child everywhere) returns its
// child's result. A misspelt built-in with children gets no stand-in.
func TestUnknownParentsRunAsStandIns(t *testing.T) {
	dir := t.TempDir()
	tree := writeFile(t, dir, "t.yaml", `type: Selector
children:
  - type: Recovery
    children: [{type: Attack}, {type: Move}, {type: Failure}]
  - type: Rate
    hz: 10
    children: [{type: Move}]
`)
	out, errOut, code := runCLI(t, "run", "-allow-unknown", "-mock", "Move=running,success", "-ticks", "3", "-trace", tree)
	want := []string{
		"tick 1 (t=100ms): running  Selector:start Recovery:start Attack:start Attack:success Move:start Move:running Recovery:running Selector:running",
		"tick 2 (t=200ms): running  Move:success Failure:start Failure:failure Recovery:failure Rate:start Move:start Move:running Rate:running Selector:running",
		"tick 3 (t=300ms): success  Move:success Rate:success Selector:success",
	}
	if code != 0 || strings.TrimSpace(out) != strings.Join(want, "\n") {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", code, out, strings.Join(want, "\n"))
	}
	for _, w := range []string{
		`node type "Rate" is not built in; it runs as a stand-in decorator that returns its child's result`,
		`node type "Recovery" is not built in; it runs as a stand-in control that ticks its children in order, as a Sequence`,
	} {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr %q lacks %q", errOut, w)
		}
	}
	// A scenario's mocks are leaves: no scenario can run a stand-in.
	out = filepath.Join(dir, "out.yaml")
	if _, errOut, code := runCLI(t, "run", "-allow-unknown", "-scenario", out, tree); code != 1 || !strings.Contains(errOut, `-scenario: node type "Rate" has children and runs as a stand-in`) {
		t.Errorf("-scenario: exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-scenario refused, yet %s was written (%v)", out, err)
	}
	typo := writeFile(t, dir, "typo.yaml", "type: Sequense\nchildren: [{type: Success}]\n")
	if _, errOut, code := runCLI(t, "run", "-allow-unknown", typo); code != 1 || !strings.Contains(errOut, `unknown node type "Sequense" (did you mean "Sequence"?)`) {
		t.Errorf("typo: exit %d, stderr %q", code, errOut)
	}
}

// An unknown type used in a guard mocks as a condition (only conditions
// may stand in guards): one that holds, or that gives the first status of
// its -mock script; a script with running keeps it an action (a load
// error in a guard).
func TestUnknownGuardTypesMockAsConditions(t *testing.T) {
	dir := t.TempDir()
	guarded := writeFile(t, dir, "g.yaml", "type: Sequence\nchildren:\n  - type: Patrol\n    guard: {type: IsSafe}\n")
	typo := writeFile(t, dir, "typo.yaml", "type: Sequence\nchildren:\n  - type: Patrol\n    guard: {type: Chek}\n")
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"validate", "-allow-unknown", guarded}, 0, "ok: ", ""},
		{[]string{"run", "-allow-unknown", "-ticks", "1", "-trace", guarded}, 0, "IsSafe:eval:success Patrol:start Patrol:success", ""},
		{[]string{"run", "-allow-unknown", "-mock", "IsSafe=failure", "-ticks", "1", "-trace", guarded}, 0, "IsSafe:eval:failure Sequence:failure", ""},
		{[]string{"run", "-allow-unknown", "-mock", "IsSafe=running", "-ticks", "1", guarded}, 1, "", "guard"},
		// Without -allow-unknown, a scripted type in a guard is a condition too.
		{[]string{"run", "-mock", "IsSafe=failure", "-mock", "Patrol=success", "-ticks", "1", "-trace", guarded}, 0, "IsSafe:eval:failure Sequence:failure", ""},
		{[]string{"run", "-mock", "IsSafe=success", "-mock", "Patrol=success", "-ticks", "1", "-trace", guarded}, 0, "IsSafe:eval:success Patrol:start Patrol:success", ""},
		{[]string{"run", "-allow-unknown", "-ticks", "1", typo}, 0, "tick 1", `node type "Chek" is not built in (did you mean "Check"?); it runs as a mock condition that holds`},
	} {
		out, errOut, code := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, out, errOut, tc.code, tc.stdout, tc.stderr)
		}
	}
	// serve, whose unscripted mock actions run a tick before succeeding.
	var stderr bytes.Buffer
	_, code := serveForErr(t, runServe, []string{"-addr", "127.0.0.1:0", guarded}, &stderr, func(string) {})
	if code != 0 || stderr.Len() > 0 {
		t.Errorf("serve: exit %d: %s", code, stderr.String())
	}
}

// arbor serve runs tree files of every format, like run and validate.
func TestServeLoadsEveryFormat(t *testing.T) {
	dir := t.TempDir()
	sentry := filepath.Join("..", "..", "examples", "sentry.yaml")
	xml, b3 := filepath.Join(dir, "sentry.xml"), filepath.Join(dir, "sentry.b3.json")
	for _, out := range []string{xml, b3} {
		if _, errOut, code := runCLI(t, "convert", sentry, out); code != 0 {
			t.Fatalf("convert to %s: %s", out, errOut)
		}
	}
	leaf := writeFile(t, dir, "leaf.yaml", "type: Sequence\nchildren:\n  - {type: Wiat, ticks: 1}\n")
	var stderr bytes.Buffer
	out, code := serveForErr(t, runServe, []string{"-addr", "127.0.0.1:0", "-mock", "Atack=success", xml, b3, leaf}, &stderr, func(base string) {
		var list struct{ Total int }
		getJSON(t, base+"/api/agents", &list)
		if list.Total != 3 {
			t.Errorf("%d agents, want 3", list.Total)
		}
	})
	errOut := stderr.String()
	if code != 0 || !strings.Contains(out, "3 agents of 3 trees") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	for _, want := range []string{`arbor serve: warning: ` + leaf + `: node type "Wiat" is not built in (did you mean "Wait"?)`, `arbor serve: warning: -mock Atack: no node has type "Atack"`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// arbor bench shows its progress on stderr, in plain lines when that is
// not a terminal (no escapes in logs), and says where it looks for the
// workloads' trees when they are missing.
func TestBenchOutput(t *testing.T) {
	out, errOut, code := runCLI(t, "bench", "-agents", "10", "-ticks", "2", "-runs", "1", "-trees", filepath.Join("..", "..", "testdata", "bench"))
	want := "arbor bench: warming up\narbor bench: run 1/1: arbor\narbor bench: run 1/1: hand-written\narbor bench: measuring memory\n"
	if code != 0 || !strings.Contains(out, "workload guard: 10 agents × 2 ticks") || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr %q; want 0, a report and progress lines %q", code, out, errOut, want)
	}
	// The tests run in cmd/arbor, where the default testdata/bench is not.
	_, errOut, code = runCLI(t, "bench", "-agents", "10", "-ticks", "2", "-runs", "1")
	if code != 1 || !strings.Contains(errOut, "testdata/bench/guard.json") || !strings.Contains(errOut, "run it from the repository's root, or give -trees DIR") {
		t.Errorf("missing trees: exit %d, stderr %q", code, errOut)
	}
}

// "arbor help" shows every flag of the commands it lists in full (demo and
// serve end in "[flags]"), and each command's -h synopsis line its flags.
func TestUsageListsEveryFlag(t *testing.T) {
	top, _, _ := runCLI(t, "help")
	for _, cmd := range []string{"replay", "test", "validate", "run", "bench", "convert", "render"} {
		help, _, _ := runCLI(t, cmd, "-h")
		synopsis, _, _ := strings.Cut(help, "\n")
		i := strings.Index(top, "\n  "+cmd+" ")
		if i < 0 {
			t.Fatalf("arbor help does not list %s", cmd)
		}
		entry, _, _ := strings.Cut(top[i+1:], "\n")
		for _, line := range strings.Split(help, "\n") {
			if !strings.HasPrefix(line, "  -") {
				continue
			}
			name := strings.Fields(line)[0][1:]
			if !strings.Contains(entry, "-"+name) {
				t.Errorf("arbor help: %q lacks -%s", entry, name)
			}
			if !strings.Contains(synopsis, "-"+name) {
				t.Errorf("arbor %s -h: %q lacks -%s", cmd, synopsis, name)
			}
		}
	}
}

// -controls of demo and serve says what the debugger may then do to the
// trees: edit their parameters and their shape.
func TestControlsUsageNamesShapeEdits(t *testing.T) {
	for _, cmd := range []string{"demo", "serve"} {
		help, _, _ := runCLI(t, cmd, "-h")
		_, after, _ := strings.Cut(help, "  -controls\n")
		flag, _, _ := strings.Cut(after, "\n  -")
		if !strings.Contains(flag, "parameters") || !strings.Contains(flag, "shape") {
			t.Errorf("arbor %s -h: -controls %q does not name the edits of parameters and shape", cmd, strings.TrimSpace(flag))
		}
	}
}

// A tree that uses the program's own node types fails validate and run
// (without -allow-unknown) with a word after its load errors: which types
// are not built in, and the flags that stand in for them. Misspellings of
// built-ins, which -allow-unknown would hide, are not listed.
func TestProgramTypesHint(t *testing.T) {
	dir := t.TempDir()
	custom := writeFile(t, dir, "custom.yaml", "type: Sequence\nchildren:\n  - {type: Attack}\n  - {type: Wiat, ticks: 1}\n  - {type: Patrol, guard: {type: EnemyNear}}\n  - {type: Recovery, children: [{type: Success}]}\n")
	typo := writeFile(t, dir, "typo.yaml", "type: Sequence\nchildren:\n  - {type: Wiat, ticks: 1}\n")
	monster := filepath.Join("..", "..", "examples", "monster", "monster.yaml")
	accepts := "(node types the program registers); -types PALETTE checks them against the program's palette (btcpp.Models or b3.NodeExport writes one), -allow-unknown accepts them with any parameters (as actions, conditions in guards, or stand-ins for types with children)"
	runs := "(node types the program registers); -types PALETTE runs the types the program's palette declares as mocks, -allow-unknown runs such types as mocks that succeed (stand-ins, for types with children), -mock Type=status,... scripts one"
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"validate", custom}, "arbor validate: not built in: Attack, EnemyNear, Patrol, Recovery " + accepts + "\n"},
		{[]string{"validate", monster}, "arbor validate: not built in: Bite, Chase, Flee " + accepts + "\n"},
		{[]string{"run", custom}, "arbor run: not built in: Attack, EnemyNear, Patrol, Recovery " + runs + "\n"},
		{[]string{"run", "-mock", "Attack=success", custom}, "arbor run: not built in: EnemyNear, Patrol, Recovery " + runs + "\n"},
		{[]string{"validate", typo}, ""},
		{[]string{"run", typo}, "unknown node type \"Wiat\" (did you mean \"Wait\"?) [Wiat, line 3]\n"},
	} {
		out, errOut, code := runCLI(t, tc.args...)
		if code != 1 || !strings.HasSuffix(errOut, tc.stderr) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 and stderr ending %q", tc.args, code, out, errOut, tc.stderr)
		}
		if tc.stderr == "" && errOut != "" || strings.Contains(tc.stderr, "Wiat") && strings.Contains(errOut, "not built in:") {
			t.Errorf("%v: stderr %q; want no hint for a misspelt built-in", tc.args, errOut)
		}
	}
}

// convert writes the trees of a file; a native file's state machines
// (its fsm section) are not written, and convert says so.
func TestConvertWarnsOfMachines(t *testing.T) {
	dir := t.TempDir()
	monster := filepath.Join("..", "..", "examples", "monster", "monster.yaml")
	sentry := filepath.Join("..", "..", "examples", "sentry.yaml")
	want := "arbor convert: warning: " + monster + ": its fsm section (state machines) is not converted; only the trees are written\n"
	if _, errOut, code := runCLI(t, "convert", monster, filepath.Join(dir, "monster.json")); code != 0 || errOut != want {
		t.Errorf("machines: exit %d, stderr %q; want 0 and %q", code, errOut, want)
	}
	if _, errOut, code := runCLI(t, "convert", sentry, filepath.Join(dir, "sentry.xml")); code != 0 || errOut != "" {
		t.Errorf("trees only: exit %d, stderr %q; want 0 and nothing", code, errOut)
	}
}
