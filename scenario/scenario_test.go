package scenario_test

import (
	"path/filepath"
	"testing"

	"github.com/arborbt/arbor/scenario"
)

// TestScenarios runs every scenario file in the repository's testdata: the
// conformance suite (testdata/scenarios) and the spec's examples
// (testdata/examples), each scenario as a subtest.
func TestScenarios(t *testing.T) {
	files, err := scenario.Collect([]string{
		filepath.Join("..", "testdata", "scenarios"),
		filepath.Join("..", "testdata", "examples"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenario files found")
	}
	for _, f := range files {
		list, err := scenario.ParseFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, s := range list {
			t.Run(filepath.Base(f)+"/"+s.Name, func(t *testing.T) {
				r := s.Run()
				if !r.Passed {
					t.Errorf("%s\n%s", r.Failure, joinLines(r.Log))
				}
			})
		}
	}
}

func joinLines(l []string) string {
	out := ""
	for _, s := range l {
		out += s + "\n"
	}
	return out
}
