// Package formattest holds what the tests of the format packages share:
// a one-line description of a node tree, to compare what a loader built
// with what it should have, and a registry that knows every node type of
// a document.
package formattest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/arborbt/arbor"
)

// Shape describes a node and its descendants on one line:
// Type"name"{param:value,...}[abort]?guard(children).
func Shape(n *arbor.Node) string {
	if n == nil {
		return "nil"
	}
	var b strings.Builder
	b.WriteString(n.Type)
	if n.Name != "" {
		fmt.Fprintf(&b, "%q", n.Name)
	}
	if len(n.Params) > 0 {
		keys := make([]string, 0, len(n.Params))
		for k := range n.Params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var ps []string
		for _, k := range keys {
			ps = append(ps, k+":"+jsonText(n.Params[k]))
		}
		b.WriteString("{" + strings.Join(ps, ",") + "}")
	}
	if n.Abort != arbor.AbortNone {
		b.WriteString("[" + n.Abort.String() + "]")
	}
	if n.Guard != nil {
		b.WriteString("?" + Shape(n.Guard))
	}
	if len(n.Children) > 0 {
		var cs []string
		for _, c := range n.Children {
			cs = append(cs, Shape(c))
		}
		b.WriteString("(" + strings.Join(cs, " ") + ")")
	}
	return b.String()
}

// jsonText is v as compact JSON, without HTML escaping.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}

// RegistryFor returns a registry knowing every node type of doc: the
// built-ins, and any other type as an action that succeeds, taking any
// parameters.
func RegistryFor(t testing.TB, doc *arbor.Document) *arbor.Registry {
	t.Helper()
	reg := arbor.NewRegistry()
	seen := map[string]bool{}
	var walk func(n *arbor.Node, depth int)
	walk = func(n *arbor.Node, depth int) {
		if n == nil || depth > 300 {
			return
		}
		if !reg.Has(n.Type) && !seen[n.Type] && n.Type != "" {
			seen[n.Type] = true
			if err := reg.ActionFunc(n.Type, func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }, arbor.AnyParams()); err != nil {
				t.Fatalf("register %q: %v", n.Type, err)
			}
		}
		for _, c := range n.Children {
			walk(c, depth+1)
		}
		walk(n.Guard, depth+1)
	}
	for _, root := range doc.Trees {
		walk(root, 0)
	}
	return reg
}
