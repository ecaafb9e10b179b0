package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/internal/conv"
	"go.yaml.in/yaml/v3"
)

// reservedKeys are the node keys of the native format; a parameter cannot
// have one of these names.
var reservedKeys = map[string]bool{
	"type": true, "name": true, "children": true, "child": true, "guard": true, "abort": true, "comment": true,
}

// kv is one member of an ordered object.
type kv struct {
	key string
	val any // nil, scalars, []any, map[string]any, or ordered
}

type ordered []kv

// MarshalArbor writes a document in the native format (format.md), as
// JSON or as YAML: {"format": "arbor/1", "main": ..., "trees": {...}}, the
// main tree first, each node's keys in the order type, name, abort,
// parameters (sorted), guard, child or children.
func MarshalArbor(doc *arbor.Document, asYAML bool) ([]byte, error) {
	if err := conv.CheckExportable(doc); err != nil {
		return nil, fmt.Errorf("write arbor: %w", err)
	}
	trees := ordered{}
	for _, name := range conv.TreeOrder(doc) {
		n, err := nativeNode(doc.Trees[name], "trees."+name)
		if err != nil {
			return nil, fmt.Errorf("write arbor: %w", err)
		}
		trees = append(trees, kv{name, n})
	}
	top := ordered{{"format", "arbor/1"}, {"main", conv.MainTree(doc)}, {"trees", trees}}
	if asYAML {
		node, err := yamlNode(top)
		if err != nil {
			return nil, fmt.Errorf("write arbor: %w", err)
		}
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(node); err != nil {
			return nil, fmt.Errorf("write arbor: %w", err)
		}
		if err := enc.Close(); err != nil {
			return nil, fmt.Errorf("write arbor: %w", err)
		}
		return buf.Bytes(), nil
	}
	var compact bytes.Buffer
	if err := writeJSON(&compact, top); err != nil {
		return nil, fmt.Errorf("write arbor: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("write arbor: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func nativeNode(n *arbor.Node, path string) (ordered, error) {
	o := ordered{{"type", n.Type}}
	if n.Name != "" {
		o = append(o, kv{"name", n.Name})
	}
	if n.Abort != arbor.AbortNone {
		o = append(o, kv{"abort", n.Abort.String()})
	}
	for _, k := range conv.SortedKeys(n.Params) {
		if reservedKeys[k] {
			return nil, fmt.Errorf("%s (%s): parameter %q has the name of a reserved key", path, n.Type, k)
		}
		o = append(o, kv{k, n.Params[k]})
	}
	if n.Guard != nil {
		g, err := nativeNode(n.Guard, path+".guard")
		if err != nil {
			return nil, err
		}
		o = append(o, kv{"guard", g})
	}
	single := len(n.Children) == 1 && (n.SingleChild || conv.ShapeOf(n.Type) == conv.Decorator)
	var kids []any
	for i, c := range n.Children {
		step := fmt.Sprintf(".children[%d]", i)
		if single {
			step = ".child"
		}
		k, err := nativeNode(c, path+step)
		if err != nil {
			return nil, err
		}
		kids = append(kids, k)
	}
	switch {
	case single:
		o = append(o, kv{"child", kids[0]})
	case len(kids) > 0:
		o = append(o, kv{"children", kids})
	}
	return o, nil
}

func writeJSON(buf *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case ordered:
		buf.WriteByte('{')
		for i, m := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeScalar(buf, m.key); err != nil {
				return err
			}
			buf.WriteByte(':')
			if err := writeJSON(buf, m.val); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case []any:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSON(buf, e); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	}
	return writeScalar(buf, v)
}

// writeScalar writes any other value with encoding/json, without escaping
// <, > and & (operators such as "<=" stay readable).
func writeScalar(buf *bytes.Buffer, v any) error {
	if f, ok := conv.Number(v); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return fmt.Errorf("%v is not a JSON number", f)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Write(bytes.TrimRight(b.Bytes(), "\n"))
	return nil
}

func yamlNode(v any) (*yaml.Node, error) {
	switch t := v.(type) {
	case ordered:
		m := &yaml.Node{Kind: yaml.MappingNode}
		for _, e := range t {
			val, err := yamlNode(e.val)
			if err != nil {
				return nil, err
			}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.key}, val)
		}
		return m, nil
	case []any:
		s := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range t {
			val, err := yamlNode(e)
			if err != nil {
				return nil, err
			}
			s.Content = append(s.Content, val)
		}
		return s, nil
	}
	if f, ok := conv.Number(v); ok {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%v is not a number the format can hold", f)
		}
		tag := "!!float"
		if f == math.Trunc(f) && math.Abs(f) < 1e21 {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: conv.FormatNumber(f)}, nil
	}
	n := &yaml.Node{}
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	return n, nil
}
