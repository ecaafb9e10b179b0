package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// closedPipe is a stdout whose reader went away after n writes
// (arbor run ... | head -n).
type closedPipe struct{ n int }

func (p *closedPipe) Write(b []byte) (int, error) {
	if p.n == 0 {
		return 0, syscall.EPIPE
	}
	p.n--
	return len(b), nil
}

// A closed stdout stops arbor run's printing, not its scenario file, and
// without -scenario it ends the run quietly.
func TestRunIntoAClosedPipe(t *testing.T) {
	dir := t.TempDir()
	tree := writeFile(t, dir, "t.json", `{"format": "arbor/1", "trees": {"main": {"type": "Sequence", "children": [{"type": "Wait", "ticks": 2}, {"type": "Success"}]}}}`)
	out := filepath.Join(dir, "rec.yaml")
	var errOut bytes.Buffer
	if code := run([]string{"run", "-ticks", "7", "-scenario", out, tree}, &closedPipe{n: 2}, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(data), "status:"); got != 7 {
		t.Errorf("the scenario has %d ticks, want 7:\n%s", got, data)
	}
	pipe := &closedPipe{n: 1}
	if code := run([]string{"run", "-ticks", "1000", tree}, pipe, &errOut); code != 0 || pipe.n != 0 {
		t.Errorf("without -scenario: exit %d, writes left %d", code, pipe.n)
	}
}

// With -scenario, a -set of the key the recording gives a mocked
// condition is refused: the run would not use it, the recording would.
func TestRunScenarioRefusesSetOfConditionKey(t *testing.T) {
	dir := t.TempDir()
	tree := writeFile(t, dir, "guarded.yaml", "type: Sequence\nchildren:\n  - {type: Attack, guard: {type: EnemyNear}}\n")
	out := filepath.Join(dir, "rec.yaml")
	_, errOut, code := runCLI(t, "run", "-allow-unknown", "-ticks", "1", "-set", "mock.EnemyNear=false", "-scenario", out, tree)
	if code != 2 || !strings.Contains(errOut, "-set mock.EnemyNear: with -scenario, that key is the recorded result of the mocked condition EnemyNear; give the result with -mock EnemyNear=success or failure") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the scenario file was left: %v", err)
	}
	// Without -scenario the key is an ordinary blackboard value.
	if _, errOut, code := runCLI(t, "run", "-allow-unknown", "-ticks", "1", "-set", "mock.EnemyNear=false", tree); code != 0 {
		t.Errorf("without -scenario: exit %d, stderr %q", code, errOut)
	}
}
