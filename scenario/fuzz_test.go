package scenario_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/arborbt/arbor/format" // the b3 and btcpp tree formats for treeFile
	"github.com/arborbt/arbor/scenario"
)

// fuzzMaxTicks bounds the ticks of one fuzzed scenario file that is run:
// "repeat" may ask for millions, which is slow, not wrong.
const fuzzMaxTicks = 500

// fuzzDirs are where a fuzzed file is taken to be, so that treeFile
// resolves against the repository's tree files.
var fuzzDirs = []string{
	filepath.Join("..", "testdata", "scenarios"),
	filepath.Join("..", "testdata", "formats"),
	filepath.Join("..", "testdata", "examples"),
}

// splitScenarios returns a JSON file of "scenarios" as one document per
// scenario, and any other file whole.
func splitScenarios(data []byte, yaml bool) [][]byte {
	var file struct {
		Scenarios []json.RawMessage `json:"scenarios"`
	}
	if yaml || json.Unmarshal(data, &file) != nil || len(file.Scenarios) == 0 {
		return [][]byte{data}
	}
	out := make([][]byte, len(file.Scenarios))
	for i, s := range file.Scenarios {
		out[i] = s
	}
	return out
}

// FuzzParseScenario parses arbitrary data as a scenario file (JSON or
// YAML) and runs what parses: neither may panic (Run turns a panic into a
// failure starting with "panic:", which the target reports). Only local
// treeFile paths (below the file's directory) are loaded, and files asking
// for more than fuzzMaxTicks ticks are only parsed.
func FuzzParseScenario(f *testing.F) {
	var n int
	for d, dir := range fuzzDirs {
		files, err := scenario.Collect([]string{dir})
		if err != nil {
			f.Fatal(err)
		}
		for _, path := range files {
			data, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			ext := strings.ToLower(filepath.Ext(path))
			yaml := ext == ".yaml" || ext == ".yml"
			// Multi-scenario files become one seed per scenario: big
			// inputs make fuzzing (and minimizing) slow.
			for _, seed := range splitScenarios(data, yaml) {
				f.Add(seed, yaml, uint8(d))
				n++
			}
		}
	}
	if n == 0 {
		f.Fatal("no seed scenario files")
	}
	f.Add([]byte(`{"name": "x", "tree": {"type": "Sequence", "children": [{"type": "A"}]}, "mocks": {"A": ["running", "success"]}, "ticks": [{"status": "running", "repeat": 3}]}`), false, uint8(0))
	f.Add([]byte("name: y\ntreeFile: trees/valid.yaml\nticks:\n  - {set: {k: 1}, delete: [k], status: success}\nhalt: true\nhaltTrace: []\n"), true, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, yaml bool, dir uint8) {
		file := filepath.Join(fuzzDirs[int(dir)%len(fuzzDirs)], "fuzzed.json")
		list, err := scenario.Parse(data, yaml, file)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("a parse error without a message")
			}
			return
		}
		ticks := 0
		for _, s := range list {
			if s.TreeFile != "" && !filepath.IsLocal(s.TreeFile) {
				return
			}
			for _, st := range s.Steps {
				ticks += st.Repeat
			}
		}
		if ticks > fuzzMaxTicks {
			return
		}
		if mayInclude(data) {
			// An inline BT.CPP tree's <include> may name any file (such
			// as /dev/stdin): only parsed.
			return
		}
		for _, s := range list {
			r := s.Run()
			if strings.HasPrefix(r.Failure, "panic:") {
				t.Fatalf("scenario %q: %s\ninput (yaml=%v): %q", s.Name, r.Failure, yaml, data)
			}
			if !r.Passed && r.Failure == "" {
				t.Fatalf("scenario %q failed without saying why", s.Name)
			}
		}
	})
}

// mayInclude reports whether data may hold an inline BT.CPP tree with an
// <include>: the word, or an escape in a JSON or YAML string that could
// spell it (XML names cannot be written with character references).
func mayInclude(data []byte) bool {
	lower := bytes.ToLower(data)
	return bytes.Contains(lower, []byte("<")) && bytes.Contains(lower, []byte("include")) ||
		bytes.Contains(lower, []byte(`\u`)) || bytes.Contains(lower, []byte(`\x`))
}
