package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/format"
	"github.com/arborbt/arbor/format/btcpp"
)

// loadTreeFile reads a tree file in any format Arbor knows: native JSON or
// YAML, Behavior3 JSON, BT.CPP XML; from is a format name, or "" to tell
// it from the file (format.Detect).
func loadTreeFile(path, from string) (*arbor.Document, error) {
	return format.Load(path, from)
}

// treeFiles lists the files a tree file is made of, for a watcher: the
// file itself and, for BT.CPP XML, the files it includes.
func treeFiles(path string) []string {
	if f, err := format.Detect(path); err == nil && f == format.BTCPP {
		if files, err := btcpp.Files(path); err == nil {
			// Watch the path as given (the first is its absolute form).
			return append([]string{path}, files[1:]...)
		}
	}
	return []string{path}
}

// cmdConvert implements "arbor convert IN OUT [-from F] [-to F]".
func cmdConvert(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	names := strings.Join(format.Names(), ", ")
	from := fs.String("from", "", "input format: "+names+" (default: from the file)")
	to := fs.String("to", "", "output format: "+names+" (default: from OUT's extension)")
	var palettes typesFlags
	fs.Var(&palettes, "types", "a palette `FILE` declaring the program's node types (as for validate; repeatable): their categories, for the types IN does not declare (a native file declares none), so that a condition is written as one")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `usage: arbor convert IN OUT [-from F] [-to F] [-types PALETTE]

Converts a tree file between formats: arbor (native JSON/YAML), b3 (Behavior3
editor JSON) and btcpp (BehaviorTree.CPP v4 XML, Groot2). Formats come from the
extensions unless given: .xml is btcpp, .yaml/.yml arbor, .json arbor or b3
(detected from the content when reading; .b3.json writes b3). OUT "-" writes to
standard output (-to required).`)
		fs.PrintDefaults()
	}
	if code, ok := parseArgs(fs, args, stdout); !ok {
		return code
	}
	if msg := checkArgs(fs, "IN", "OUT"); msg != "" {
		return usageError(fs, "%s", msg)
	}
	in, out := fs.Arg(0), fs.Arg(1)
	doc, err := loadTreeFile(in, *from)
	if err != nil {
		printErrors(stderr, err)
		return 1
	}
	if err := declareCategories(doc, palettes); err != nil {
		fmt.Fprintf(stderr, "arbor convert: %v\n", err)
		return 1
	}
	if hasMachines(in) {
		// The loaders read trees only: say so rather than drop the
		// machines without a word.
		fmt.Fprintf(stderr, "arbor convert: warning: %s: its fsm section (state machines) is not converted; only the trees are written\n", in)
	}
	if out == "-" {
		if *to == "" {
			fmt.Fprintln(stderr, "arbor convert: writing to standard output needs -to")
			return 2
		}
		data, err := format.Convert(doc, *to)
		if err != nil {
			fmt.Fprintf(stderr, "arbor convert: %v\n", err)
			return 1
		}
		stdout.Write(data)
		return 0
	}
	if err := format.Write(out, doc, *to); err != nil {
		fmt.Fprintf(stderr, "arbor convert: %v\n", err)
		return 1
	}
	return 0
}
