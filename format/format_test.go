package format_test

import (
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/arborbt/arbor/format"
	"github.com/arborbt/arbor/scenario"
)

// TestFormatScenarios runs the scenario files of testdata/formats: trees in
// Behavior3 JSON and BT.CPP XML loaded through treeFile + treeFormat.
func TestFormatScenarios(t *testing.T) {
	files, err := scenario.Collect([]string{filepath.Join("..", "testdata", "formats")})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenario files found")
	}
	n := 0
	for _, f := range files {
		list, err := scenario.ParseFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		for _, s := range list {
			n++
			t.Run(filepath.Base(f)+"/"+s.Name, func(t *testing.T) {
				r := s.Run()
				if !r.Passed {
					t.Errorf("%s\n%s", r.Failure, strings.Join(r.Log, "\n"))
				}
			})
		}
	}
	t.Logf("%d scenarios", n)
}
