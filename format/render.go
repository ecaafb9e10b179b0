package format

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format/internal/conv"
)

// The render styles.
const (
	RenderASCII   = "ascii"
	RenderDOT     = "dot"
	RenderMermaid = "mermaid"
)

// Render draws every tree of a document, the main tree first: "ascii" an
// indented tree for terminals, "dot" a Graphviz graph, "mermaid" a Mermaid
// flowchart. Each node shows its name and type, its parameters, its abort
// mode and its guard (a condition tree hanging from the node); SubTree
// nodes point to the tree they run.
func Render(doc *arbor.Document, style string) (string, error) {
	if doc == nil || len(doc.Trees) == 0 {
		return "", fmt.Errorf("render: the document has no trees")
	}
	for _, name := range doc.TreeNames() {
		if err := depthOK(doc.Trees[name], 0); err != nil {
			return "", fmt.Errorf("render: trees.%s: %w", name, err)
		}
	}
	switch style {
	case RenderASCII, "":
		return renderASCII(doc), nil
	case RenderDOT:
		return renderGraph(doc, false), nil
	case RenderMermaid:
		return renderGraph(doc, true), nil
	}
	return "", fmt.Errorf("render: unknown style %q (want ascii, dot or mermaid)", style)
}

func depthOK(n *arbor.Node, depth int) error {
	if n == nil {
		return nil
	}
	if depth > conv.MaxDepth {
		return fmt.Errorf("nodes nested deeper than %d", conv.MaxDepth)
	}
	for _, c := range n.Children {
		if err := depthOK(c, depth+1); err != nil {
			return err
		}
	}
	return depthOK(n.Guard, depth+1)
}

// treeOrder is the main tree first, then the others sorted.
func treeOrder(doc *arbor.Document) []string {
	if conv.MainTree(doc) != "" && doc.Trees[conv.MainTree(doc)] != nil {
		return conv.TreeOrder(doc)
	}
	return doc.TreeNames()
}

// label is a node's title line: "name (Type)" or "Type".
func label(n *arbor.Node) string {
	if n == nil {
		return "<missing node>"
	}
	if n.Name != "" && n.Name != n.Type {
		return n.Name + " (" + n.Type + ")"
	}
	return n.Type
}

// paramText lists parameters as key=value, values in JSON.
func paramText(n *arbor.Node) []string {
	var out []string
	for _, k := range conv.SortedKeys(n.Params) {
		out = append(out, k+"="+jsonText(n.Params[k]))
	}
	return out
}

func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimRight(b.String(), "\n")
}

// markers are the bracketed notes after a node: abort mode, guard.
func markers(n *arbor.Node) []string {
	var out []string
	if n.Abort != arbor.AbortNone {
		out = append(out, "abort="+n.Abort.String())
	}
	if n.Guard != nil {
		out = append(out, "guarded")
	}
	return out
}

func renderASCII(doc *arbor.Document) string {
	var b strings.Builder
	main := conv.MainTree(doc)
	for i, name := range treeOrder(doc) {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(name)
		if name == main {
			b.WriteString(" (main tree)")
		}
		b.WriteByte('\n')
		asciiNode(&b, doc.Trees[name], "", true, "")
	}
	return b.String()
}

func asciiNode(b *strings.Builder, n *arbor.Node, prefix string, last bool, tag string) {
	branch, cont := "|-- ", "|   "
	if last {
		branch, cont = "`-- ", "    "
	}
	b.WriteString(prefix + branch + tag + label(n))
	if n == nil {
		b.WriteByte('\n')
		return
	}
	for _, p := range paramText(n) {
		b.WriteString(" " + p)
	}
	if m := markers(n); len(m) > 0 {
		b.WriteString(" [" + strings.Join(m, ", ") + "]")
	}
	if conv.Canonical(n.Type) == "SubTree" {
		if t, ok := n.Params["tree"].(string); ok {
			b.WriteString(" -> " + t)
		}
	}
	b.WriteByte('\n')
	next := prefix + cont
	if n.Guard != nil {
		asciiNode(b, n.Guard, next, len(n.Children) == 0, "guard: ")
	}
	for i, c := range n.Children {
		asciiNode(b, c, next, i == len(n.Children)-1, "")
	}
}

// graph is the nodes and edges of a DOT or Mermaid drawing.
type graph struct {
	mermaid bool
	b       strings.Builder
	next    int
	roots   map[string]int // tree → id of its root
	links   []string       // cross-cluster edges (subtrees, guards)
	pending []subLink
}

type subLink struct {
	from int
	tree string
}

func renderGraph(doc *arbor.Document, mermaid bool) string {
	g := &graph{mermaid: mermaid, roots: map[string]int{}}
	main := conv.MainTree(doc)
	if mermaid {
		g.b.WriteString("flowchart TD\n")
	} else {
		g.b.WriteString("digraph arbor {\n  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=9];\n")
	}
	for i, name := range treeOrder(doc) {
		title := name
		if name == main {
			title += " (main tree)"
		}
		if mermaid {
			fmt.Fprintf(&g.b, "  subgraph tree%d[\"%s\"]\n", i, mermaidText(title))
		} else {
			fmt.Fprintf(&g.b, "  subgraph cluster_%d {\n    label=\"%s\";\n", i, dotText(title))
		}
		g.roots[name] = g.node(doc.Trees[name], -1, "")
		if mermaid {
			g.b.WriteString("  end\n")
		} else {
			g.b.WriteString("  }\n")
		}
	}
	for _, p := range g.pending {
		if to, ok := g.roots[p.tree]; ok {
			g.links = append(g.links, g.edge(p.from, to, "subtree", true))
		}
	}
	for _, l := range g.links {
		g.b.WriteString("  " + l + "\n")
	}
	if !mermaid {
		g.b.WriteString("}\n")
	}
	return g.b.String()
}

// node writes n (and its descendants and guard) and returns its id.
func (g *graph) node(n *arbor.Node, parent int, edgeLabel string) int {
	id := g.next
	g.next++
	lines := []string{label(n)}
	shape := "box"
	if n != nil {
		lines = append(lines, paramText(n)...)
		if n.Abort != arbor.AbortNone {
			lines = append(lines, "abort: "+n.Abort.String())
		}
		switch conv.ShapeOf(n.Type) {
		case conv.Composite:
			shape = "box"
		case conv.Decorator:
			shape = "octagon"
		case conv.SubTreeRef:
			shape = "component"
		default:
			shape = "ellipse"
			if conv.IsCondition(n.Type) {
				shape = "hexagon"
			}
		}
	}
	if g.mermaid {
		text := mermaidText(strings.Join(lines, "\n"))
		open, close := "[\"", "\"]"
		switch shape {
		case "ellipse":
			open, close = "([\"", "\"])"
		case "hexagon":
			open, close = "{{\"", "\"}}"
		case "component":
			open, close = "[[\"", "\"]]"
		case "octagon":
			open, close = "[/\"", "\"\\]"
		}
		fmt.Fprintf(&g.b, "    n%d%s%s%s\n", id, open, text, close)
	} else {
		extra := ""
		if n != nil && n.Abort != arbor.AbortNone {
			extra = ", penwidth=2"
		}
		fmt.Fprintf(&g.b, "    n%d [label=\"%s\", shape=%s%s];\n", id, dotText(strings.Join(lines, "\n")), shape, extra)
	}
	if parent >= 0 {
		g.b.WriteString("    " + g.edge(parent, id, edgeLabel, edgeLabel != "") + "\n")
	}
	if n == nil {
		return id
	}
	if n.Guard != nil {
		g.node(n.Guard, id, "guard")
	}
	for _, c := range n.Children {
		g.node(c, id, "")
	}
	if conv.Canonical(n.Type) == "SubTree" {
		if t, ok := n.Params["tree"].(string); ok {
			g.pending = append(g.pending, subLink{id, t})
		}
	}
	return id
}

func (g *graph) edge(from, to int, lbl string, dashed bool) string {
	if g.mermaid {
		switch {
		case dashed && lbl != "":
			return fmt.Sprintf("n%d -.->|%s| n%d", from, mermaidText(lbl), to)
		case dashed:
			return fmt.Sprintf("n%d -.-> n%d", from, to)
		}
		return fmt.Sprintf("n%d --> n%d", from, to)
	}
	if dashed {
		return fmt.Sprintf("n%d -> n%d [style=dashed, label=\"%s\"];", from, to, dotText(lbl))
	}
	return fmt.Sprintf("n%d -> n%d;", from, to)
}

func dotText(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return r.Replace(s)
}

func mermaidText(s string) string {
	r := strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "\n", "<br/>", "\r", "")
	return r.Replace(s)
}
