package scenario_test

import (
	"strings"
	"testing"

	"github.com/arborbt/arbor/scenario"
)

func TestParseTickMs(t *testing.T) {
	tests := []struct {
		doc  string
		yaml bool
		want float64 // the parsed tickMs, when err is empty
		err  string
	}{
		{doc: `{"name": "a", "tree": {"type": "Success"}, "ticks": []}`, want: 100},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "tickMs": 0, "ticks": []}`, want: 0},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "tickMs": 16.5, "ticks": []}`, want: 16.5},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "tickMs": -1, "ticks": []}`, err: "tickMs must be a finite number ≥ 0"},
		{doc: `{"name": "a", "tree": {"type": "Success"}, "tickMs": "10", "ticks": []}`, err: "tickMs must be"},
		{doc: "name: a\ntree: {type: Success}\ntickMs: .inf\nticks: []\n", yaml: true, err: "tickMs must be"},
		{doc: "name: a\ntree: {type: Success}\ntickMs: .nan\nticks: []\n", yaml: true, err: "tickMs must be"},
	}
	for _, tt := range tests {
		list, err := scenario.Parse([]byte(tt.doc), tt.yaml, "t")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.doc, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.doc, err)
			continue
		}
		if got := list[0].TickMs; got != tt.want {
			t.Errorf("%s: tickMs %v, want %v", tt.doc, got, tt.want)
		}
	}
}
