package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// arbor run -scenario writes a scenario that arbor test passes on the
// same tree, and fails once the tree file changes behaviour.
func TestRunWritesAScenario(t *testing.T) {
	dir := t.TempDir()
	tree := writeFile(t, dir, "guard.yaml", `type: ReactiveSelector
children:
  - type: Sequence
    guard: {type: EnemyNear}
    children:
      - {type: Attack, name: strike}
      - {type: Wait, ticks: 1}
  - type: Sequence
    children:
      - {type: MoveTo, target: A}
      - {type: Wait, ms: 150}
      - {type: MoveTo, target: B}
`)
	guarded := writeFile(t, dir, "guarded.yaml", "type: Sequence\nchildren:\n  - {type: Patrol, guard: {type: IsSafe}}\n")
	xml := filepath.Join(dir, "guard.xml")
	if _, errOut, code := runCLI(t, "convert", tree, xml); code != 0 {
		t.Fatal(errOut)
	}
	for _, tc := range []struct {
		name string
		args []string
		want []string // in the scenario file
	}{
		{"patrol", []string{"-allow-unknown", "-mock", "MoveTo=running,running,success", "-ticks", "12", tree},
			[]string{"treeFile: guard.yaml", "MoveTo:\n    - running\n    - running\n    - success", "conditions:\n  EnemyNear: mock.EnemyNear", "mock.EnemyNear: true", "'strike:start'"}},
		{"no enemy", []string{"-allow-unknown", "-mock", "EnemyNear=failure", "-mock", "MoveTo=running,success", "-ticks", "8", "-tick-ms", "50", tree},
			[]string{"mock.EnemyNear: false", "tickMs: 50", "trace: []"}},
		{"btcpp", []string{"-allow-unknown", "-mock", "EnemyNear=failure", "-ticks", "6", xml},
			[]string{"treeFile: guard.xml", "treeFormat: btcpp"}},
		{"guard only", []string{"-allow-unknown", "-ticks", "2", guarded},
			[]string{"Patrol:\n    - success", "IsSafe: mock.IsSafe"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name+".scenario.yaml")
			args := append([]string{"run", "-scenario", out}, tc.args...)
			if _, errOut, code := runCLI(t, args...); code != 0 || !strings.Contains(errOut, "wrote "+out) {
				t.Fatalf("run: exit %d: %s", code, errOut)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(data), w) {
					t.Errorf("scenario lacks %q:\n%s", w, data)
				}
			}
			if stdout, _, code := runCLI(t, "test", out); code != 0 {
				t.Fatalf("arbor test on the recording: exit %d:\n%s\n%s", code, stdout, data)
			}
		})
	}

	// JSON by extension; a changed tree fails the recorded scenario.
	out := filepath.Join(dir, "patrol.json")
	if _, errOut, code := runCLI(t, "run", "-allow-unknown", "-mock", "EnemyNear=failure", "-ticks", "10", "-scenario", out, tree); code != 0 {
		t.Fatal(errOut)
	}
	if stdout, _, code := runCLI(t, "test", out); code != 0 {
		t.Fatalf("arbor test: %s", stdout)
	}
	data, _ := os.ReadFile(tree)
	writeFile(t, dir, "guard.yaml", strings.Replace(string(data), "ms: 150", "ms: 450", 1))
	if stdout, _, code := runCLI(t, "test", out); code != 1 || !strings.Contains(stdout, "FAIL guard.yaml as recorded by arbor run") {
		t.Errorf("after the tree changed: exit %d:\n%s", code, stdout)
	}

	// A scenario that cannot be written is an error.
	stdout, errOut, code := runCLI(t, "run", "-allow-unknown", "-ticks", "1", "-scenario", filepath.Join(dir, "no", "such", "dir.yaml"), guarded)
	if code != 1 || !strings.Contains(errOut, "write scenario") || stdout != "" {
		t.Errorf("unwritable: exit %d, stdout %q (nothing should run): %s", code, stdout, errOut)
	}
}
