package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/arborbt/arbor/format"
)

// cmdRender implements "arbor render FILE [-format dot|mermaid|ascii]".
func cmdRender(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	style := fs.String("format", "ascii", "drawing: ascii (an indented tree), dot (Graphviz) or mermaid")
	from := fs.String("from", "", "input format: "+strings.Join(format.Names(), ", ")+" (default: from the file)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: arbor render FILE [-format dot|mermaid|ascii] [-from F]

Draws every tree of a tree file (any format), the main tree first: node names
and types, parameters, abort modes, guards (hanging from their node) and the
trees SubTree nodes run.`)
		fs.PrintDefaults()
	}
	if code, ok := parseArgs(fs, args, stdout); !ok {
		return code
	}
	if msg := checkArgs(fs, "FILE"); msg != "" {
		return usageError(fs, "%s", msg)
	}
	switch *style {
	case format.RenderASCII, format.RenderDOT, format.RenderMermaid:
	default:
		return usageError(fs, "-format must be ascii, dot or mermaid, got %q", *style)
	}
	doc, err := loadTreeFile(fs.Arg(0), *from)
	if err != nil {
		printErrors(stderr, err)
		return 1
	}
	out, err := format.Render(doc, *style)
	if err != nil {
		fmt.Fprintf(stderr, "arbor %v\n", err)
		return 2
	}
	io.WriteString(stdout, out)
	return 0
}
