package rawdoc

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// parseYAML reads one YAML document through yaml's node API, so that lines
// and duplicate keys are ours to report, and converts it to a Value.
func parseYAML(data []byte, lim Limits) (v *Value, err error) {
	defer func() {
		// The YAML library is third-party code fed with untrusted input:
		// a panic in it must become an error, never a crash.
		if r := recover(); r != nil {
			v, err = nil, &SyntaxError{Msg: fmt.Sprintf("invalid YAML: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF {
			return nil, &SyntaxError{Msg: "empty document"}
		}
		return nil, &SyntaxError{Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		line := extra.Line
		if err != nil {
			return nil, &SyntaxError{Msg: "after the document: " + strings.TrimPrefix(err.Error(), "yaml: ")}
		}
		return nil, &SyntaxError{Line: line, Msg: "trailing garbage: a second YAML document"}
	}
	c := yamlConverter{lim: lim}
	return c.convert(&doc, 0)
}

// maxYAMLNodes bounds the values a YAML document may expand to through
// aliases (the "billion laughs" attack).
const maxYAMLNodes = 1 << 20

type yamlConverter struct {
	lim   Limits
	nodes int
}

func (c *yamlConverter) convert(n *yaml.Node, depth int) (*Value, error) {
	if depth > c.lim.MaxDepth {
		return nil, &SyntaxError{Line: n.Line, Msg: fmt.Sprintf("nesting depth over the limit of %d", c.lim.MaxDepth)}
	}
	// Aliases can expand a small file into a huge tree; count every node.
	c.nodes++
	if c.nodes > maxYAMLNodes {
		return nil, &SyntaxError{Line: n.Line, Msg: "document expands past the size limit"}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) != 1 {
			return nil, &SyntaxError{Line: n.Line, Msg: "expected exactly one YAML document"}
		}
		return c.convert(n.Content[0], depth)
	case yaml.AliasNode:
		return c.convert(n.Alias, depth+1)
	case yaml.SequenceNode:
		v := &Value{Kind: List, Line: n.Line}
		for _, e := range n.Content {
			ev, err := c.convert(e, depth+1)
			if err != nil {
				return nil, err
			}
			v.List = append(v.List, ev)
		}
		return v, nil
	case yaml.MappingNode:
		return c.mapping(n, depth)
	case yaml.ScalarNode:
		return scalar(n)
	}
	return nil, &SyntaxError{Line: n.Line, Msg: "unsupported YAML node"}
}

// mapping converts a YAML mapping. Merge keys ("<<: *defaults", or a
// list of aliases) copy the fields of the merged mappings that the mapping
// does not set itself, earlier merged mappings first, where the merge key
// stands.
func (c *yamlConverter) mapping(n *yaml.Node, depth int) (*Value, error) {
	v := &Value{Kind: Object, Line: n.Line}
	seen := make(map[string]bool)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Tag != "!!merge" {
			seen[k.Value] = false // set by the mapping itself: merges skip it
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			return nil, &SyntaxError{Line: k.Line, Msg: "object keys must be strings"}
		}
		if k.Tag == "!!merge" {
			if err := c.merge(v, n.Content[i+1], seen, depth); err != nil {
				return nil, err
			}
			continue
		}
		dup := seen[k.Value]
		seen[k.Value] = true
		ev, err := c.convert(n.Content[i+1], depth+1)
		if err != nil {
			return nil, err
		}
		f := Field{Key: k.Value, Line: k.Line, Val: ev}
		if dup {
			v.Dups = append(v.Dups, f)
		} else {
			v.Fields = append(v.Fields, f)
		}
	}
	return v, nil
}

// merge adds to v the fields of the merge key's value m (a mapping, or a
// list of mappings) whose keys are not in seen.
func (c *yamlConverter) merge(v *Value, m *yaml.Node, seen map[string]bool, depth int) error {
	for m.Kind == yaml.AliasNode {
		m = m.Alias
	}
	sources := []*yaml.Node{m}
	if m.Kind == yaml.SequenceNode {
		sources = m.Content
	}
	for _, src := range sources {
		sv, err := c.convert(src, depth+1)
		if err != nil {
			return err
		}
		if sv.Kind != Object {
			return &SyntaxError{Line: src.Line, Msg: "a merge key (<<) takes a mapping or a list of mappings"}
		}
		for _, f := range sv.Fields {
			if _, ok := seen[f.Key]; !ok {
				seen[f.Key] = true
				v.Fields = append(v.Fields, f)
			}
		}
	}
	return nil
}

func scalar(n *yaml.Node) (*Value, error) {
	v := &Value{Line: n.Line}
	switch n.Tag {
	case "!!null":
		v.Kind = Null
	case "!!bool":
		b, err := strconv.ParseBool(strings.ToLower(n.Value))
		if err != nil {
			return nil, &SyntaxError{Line: n.Line, Msg: fmt.Sprintf("invalid boolean %q", n.Value)}
		}
		v.Kind, v.Bool = Bool, b
	case "!!int", "!!float":
		f, err := yamlNumber(n.Value)
		if err != nil {
			return nil, &SyntaxError{Line: n.Line, Msg: fmt.Sprintf("invalid number %q", n.Value)}
		}
		v.Kind, v.Num = Number, f
	case "!!str", "", "!!timestamp":
		// A date or time is text: its value as written.
		v.Kind, v.Str = String, n.Value
	default:
		return nil, &SyntaxError{Line: n.Line, Msg: fmt.Sprintf("unsupported YAML tag %s", n.Tag)}
	}
	return v, nil
}

func yamlNumber(s string) (float64, error) {
	t := strings.ReplaceAll(s, "_", "")
	switch strings.ToLower(t) {
	case ".inf", "+.inf":
		return math.Inf(1), nil
	case "-.inf":
		return math.Inf(-1), nil
	case ".nan":
		return math.NaN(), nil
	}
	if i, err := strconv.ParseInt(t, 0, 64); err == nil {
		return float64(i), nil
	}
	return strconv.ParseFloat(t, 64)
}
