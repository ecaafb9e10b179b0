package format_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/arborbt/arbor/format"
)

// chain writes a chain of n nodes (n-1 Inverters over a success leaf) in
// one of the formats.
func chain(t *testing.T, formatName string, n int) []byte {
	t.Helper()
	switch formatName {
	case format.Arbor:
		node := map[string]any{"type": "Success"}
		for i := 1; i < n; i++ {
			node = map[string]any{"type": "Inverter", "child": node}
		}
		data, err := json.Marshal(node)
		if err != nil {
			t.Fatal(err)
		}
		return data
	case format.B3:
		nodes := map[string]any{}
		for i := 0; i < n; i++ {
			node := map[string]any{"id": fmt.Sprint(i), "name": "Succeeder"}
			if i < n-1 {
				node["name"], node["child"] = "Inverter", fmt.Sprint(i+1)
			}
			nodes[fmt.Sprint(i)] = node
		}
		data, err := json.Marshal(map[string]any{"title": "T", "root": "0", "nodes": nodes})
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	x := "<AlwaysSuccess/>"
	for i := 1; i < n; i++ {
		x = "<Inverter>" + x + "</Inverter>"
	}
	return []byte(`<root BTCPP_format="4"><BehaviorTree ID="M">` + x + `</BehaviorTree></root>`)
}

// Every format loads a chain of 256 nodes and refuses 257 (format.md:
// nesting depth 256), naming the node's type.
func TestDepthLimitIsTheSameInEveryFormat(t *testing.T) {
	for _, name := range format.Names() {
		if _, err := format.Parse(chain(t, name, 256), name); err != nil {
			t.Errorf("%s: 256 nodes deep: %v", name, err)
		}
		_, err := format.Parse(chain(t, name, 257), name)
		if err == nil || !strings.Contains(err.Error(), "deeper than 256") && !strings.Contains(err.Error(), "over the limit of 256") {
			t.Errorf("%s: 257 nodes deep: err = %v, want the depth limit", name, err)
		} else if !strings.Contains(err.Error(), "Success") && !strings.Contains(err.Error(), "Succeeder") {
			t.Errorf("%s: 257 nodes deep: %v does not name the node type", name, err)
		}
	}
}
