package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the CLI in-process and returns stdout, stderr and the exit
// status.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTestCommand(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "pass.json", `{"name": "passes", "tree": {"type": "Success"}, "ticks": [{"status": "success", "trace": []}]}`)
	writeFile(t, dir, "fail.yaml", "name: fails\ntree: {type: Failure}\nticks:\n  - status: success\n")
	writeFile(t, dir, "broken.json", `{"name": `)

	t.Run("passing file exits 0", func(t *testing.T) {
		out, _, code := runCLI(t, "test", filepath.Join(dir, "pass.json"))
		if code != 0 || !strings.Contains(out, "PASS passes") || !strings.HasSuffix(out, "1 passed, 0 failed\n") {
			t.Fatalf("code %d, output:\n%s", code, out)
		}
	})
	t.Run("directory with failures exits 1 and reports each", func(t *testing.T) {
		out, _, code := runCLI(t, "test", dir)
		if code != 1 {
			t.Fatalf("exit status %d, want 1", code)
		}
		for _, want := range []string{"PASS passes", "FAIL fails", "status: expected success, got failure", "FAIL " + filepath.Join(dir, "broken.json"), "1 passed, 2 failed\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("verbose prints every tick", func(t *testing.T) {
		out, _, _ := runCLI(t, "test", "-v", filepath.Join(dir, "pass.json"))
		if !strings.Contains(out, "tick 1 (t=100ms): success []") {
			t.Fatalf("output:\n%s", out)
		}
	})
	t.Run("a missing path is one failure; the others still run", func(t *testing.T) {
		out, _, code := runCLI(t, "test", filepath.Join(dir, "nope.json"), filepath.Join(dir, "pass.json"))
		if code != 1 || !strings.Contains(out, "FAIL "+filepath.Join(dir, "nope.json")) || !strings.Contains(out, "PASS passes") || !strings.HasSuffix(out, "1 passed, 1 failed\n") {
			t.Fatalf("code %d, output:\n%s", code, out)
		}
	})
	t.Run("no scenarios is a failure, not a pass", func(t *testing.T) {
		empty := t.TempDir()
		noneInFile := writeFile(t, empty, "none.json", `{"scenarios": []}`)
		for _, args := range [][]string{{"test", t.TempDir()}, {"test", noneInFile}, {"test", filepath.Join("..", "..", "examples", "village")}} {
			out, errOut, code := runCLI(t, args...)
			if code != 1 || !strings.HasSuffix(out, "0 passed, 0 failed\n") || !strings.Contains(errOut, "arbor test: no scenarios in "+args[1]) {
				t.Errorf("%v: code %d, stdout %q, stderr %q", args, code, out, errOut)
			}
		}
	})
	t.Run("a tree file is not a scenario, whatever its format", func(t *testing.T) {
		for _, file := range []string{"sentry.yaml", "sentry.b3.json", "sentry.xml"} {
			tree := filepath.Join(t.TempDir(), file)
			if _, errOut, code := runCLI(t, "convert", filepath.Join("..", "..", "examples", "sentry.yaml"), tree); code != 0 {
				t.Fatalf("convert: %s", errOut)
			}
			out, _, code := runCLI(t, "test", tree)
			if code != 1 || !strings.Contains(out, "tree file, not a scenario") && !strings.Contains(out, "tree document, not a scenario") {
				t.Errorf("%s: code %d, output:\n%s", file, code, out)
			}
		}
	})
	t.Run("no paths is a usage error", func(t *testing.T) {
		if _, _, code := runCLI(t, "test"); code != 2 {
			t.Fatalf("exit status %d, want 2", code)
		}
	})
	t.Run("the spec examples pass", func(t *testing.T) {
		out, _, code := runCLI(t, "test", filepath.Join("..", "..", "testdata", "examples"))
		if code != 0 || !strings.Contains(out, " passed, 0 failed") {
			t.Fatalf("code %d:\n%s", code, out)
		}
	})
}

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.yaml", "type: Sequence\nchildren:\n  - {type: Wait, ticks: 1}\n  - {type: Success}\n")
	bad := writeFile(t, dir, "bad.json", `{"type": "Sequence", "children": [{"type": "Inverter"}, {"type": "Atack"}]}`)
	custom := writeFile(t, dir, "custom.json", `{"type": "Sequence", "children": [{"type": "Attack", "power": 3}]}`)

	out, _, code := runCLI(t, "validate", good)
	if code != 0 || !strings.Contains(out, "ok") || !strings.Contains(out, "3 nodes") {
		t.Errorf("good file: code %d, output %q", code, out)
	}
	out, _, code = runCLI(t, "validate", bad)
	if code != 1 || !strings.Contains(out, "trees.root.children[0]: wrong number of children: has 0, a decorator needs exactly one child [Inverter, line 1]") || !strings.Contains(out, `unknown node type "Atack"`) {
		t.Errorf("bad file: code %d, output %q", code, out)
	}
	if strings.Count(out, "\n") != 2 {
		t.Errorf("want one line per error, got %q", out)
	}
	if _, _, code = runCLI(t, "validate", custom); code != 1 {
		t.Errorf("unknown type without -allow-unknown: code %d, want 1", code)
	}
	if out, _, code = runCLI(t, "validate", "-allow-unknown", custom); code != 0 {
		t.Errorf("-allow-unknown: code %d, output %q", code, out)
	}
	one := writeFile(t, dir, "one.json", `{"type": "Success"}`)
	if out, _, code = runCLI(t, "validate", one); code != 0 || !strings.HasSuffix(out, `tree "root", 1 node`+"\n") {
		t.Errorf("one node: code %d, output %q", code, out)
	}
	if _, _, code = runCLI(t, "validate", filepath.Join(dir, "missing.json")); code != 1 {
		t.Errorf("missing file: code %d, want 1", code)
	}
}

// Files with an fsm section: the machines are compiled with the trees.
func TestValidateStateMachines(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "guard.yaml", `format: arbor/1
trees:
  Fight: {type: Sequence, children: [{type: Check, key: hp, op: ">", value: 0}, {type: Wait, ticks: 1}]}
fsm:
  Guard:
    initial: Idle
    states:
      Idle: {transitions: [{to: Combat, when: {key: enemy, op: exists}}]}
      Combat: {tree: Fight, enter: [{set: {alarm: true}}], transitions: [{to: Idle, when: {tree: success}}]}
`)
	out, _, code := runCLI(t, "validate", good)
	if code != 0 || !strings.Contains(out, `tree "Fight"`) || !strings.Contains(out, `state machine "Guard", 2 states`) {
		t.Errorf("good machine: code %d, output %q", code, out)
	}
	bad := writeFile(t, dir, "bad.yaml", `fsm:
  Guard:
    initial: Idel
    states:
      Idle: {enter: [roar], transitions: [{to: Nowhere}]}
`)
	out, _, code = runCLI(t, "validate", bad)
	for _, want := range []string{`"Idel"`, `"Nowhere"`, `unknown callback "roar"`} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("bad machine: code %d, output %q, want it to mention %s", code, out, want)
		}
	}
	// -allow-unknown accepts named callbacks and conditions it cannot know.
	named := writeFile(t, dir, "named.yaml", `fsm:
  Guard:
    initial: Idle
    states:
      Idle: {enter: [roar], transitions: [{to: Idle, when: {not: {and: [heardNoise]}}, do: [growl]}]}
`)
	if _, _, code = runCLI(t, "validate", named); code != 1 {
		t.Errorf("named callbacks without -allow-unknown: code %d, want 1", code)
	}
	if out, _, code = runCLI(t, "validate", "-allow-unknown", named); code != 0 {
		t.Errorf("named callbacks with -allow-unknown: code %d, output %q", code, out)
	}
	if out, _, code = runCLI(t, "validate", "-allow-unknown", filepath.Join("..", "..", "examples", "monster", "monster.yaml")); code != 0 || !strings.Contains(out, `state machine "Monster"`) {
		t.Errorf("the monster example: code %d, output %q", code, out)
	}
}

func TestRunCommand(t *testing.T) {
	dir := t.TempDir()
	tree := writeFile(t, dir, "t.json", `{"type": "Sequence", "children": [{"type": "Wait", "ticks": 1}, {"type": "Attack"}]}`)
	out, errOut, code := runCLI(t, "run", tree, "-ticks", "3", "-mock", "Attack=running,success")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errOut)
	}
	want := "tick 1 (t=100ms): running\ntick 2 (t=200ms): running\ntick 3 (t=300ms): success\n"
	if out != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out, want)
	}
	if _, _, code := runCLI(t, "run", tree); code != 1 {
		t.Errorf("unknown Attack without a mock: code %d, want 1", code)
	}
	out, _, code = runCLI(t, "run", "-trace", "-ticks", "1", filepath.Join("..", "..", "examples", "sentry.yaml"))
	if code != 0 || !strings.Contains(out, "walk to post A:start") {
		t.Errorf("sentry example: code %d, output %q", code, out)
	}
}

// TestRunSet: -set writes blackboard values (JSON, else text; @ keys
// global) before the first tick, and a recorded scenario starts with them.
func TestRunSet(t *testing.T) {
	dir := t.TempDir()
	tree := writeFile(t, dir, "t.yaml", `type: Sequence
children:
  - {type: Check, key: hp, op: "<", value: 30}
  - {type: Check, key: "@mode", op: "==", value: idle}
  - {type: Check, key: path, op: "==", value: [1, 2]}
  - {type: Check, key: quoted, op: "==", value: "5"}
`)
	set := []string{"-set", "hp=25", "-set", "@mode=idle", "-set", "path=[1,2]", "-set", `quoted="5"`}
	if out, errOut, code := runCLI(t, append(append([]string{"run", "-ticks", "1"}, set...), tree)...); code != 0 || out != "tick 1 (t=100ms): success\n" {
		t.Errorf("with the values: code %d, output %q, stderr %q", code, out, errOut)
	}
	if out, _, _ := runCLI(t, append(append([]string{"run", "-ticks", "1"}, set[:6]...), tree)...); out != "tick 1 (t=100ms): failure\n" {
		t.Errorf("without quoted: output %q, want a failure", out)
	}
	scn := filepath.Join(dir, "t.scenario.yaml")
	if _, errOut, code := runCLI(t, append(append([]string{"run", "-ticks", "1", "-scenario", scn}, set...), tree)...); code != 0 {
		t.Fatalf("-scenario: code %d: %s", code, errOut)
	}
	if out, _, code := runCLI(t, "test", scn); code != 0 || !strings.Contains(out, "1 passed") {
		t.Errorf("the recorded scenario: code %d, output %q", code, out)
	}
	if _, errOut, code := runCLI(t, "run", "-set", "novalue", tree); code != 2 || !strings.Contains(errOut, "want key=value") {
		t.Errorf("-set without =: code %d, stderr %q", code, errOut)
	}
}

func TestUnknownCommand(t *testing.T) {
	if _, errOut, code := runCLI(t, "frobnicate"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
}
