package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/arborbt/arbor"
)

// cmdValidate implements "arbor validate FILE".
func cmdValidate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	allow := fs.Bool("allow-unknown", false, "accept node types that are not built in, as actions taking any parameters")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: arbor validate [-allow-unknown] FILE\n\nChecks a tree file (native JSON/YAML, Behavior3 JSON or BT.CPP XML) and prints every problem, or \"ok\" and the node count.")
		fs.PrintDefaults()
	}
	if err := parseInterspersed(fs, args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	path := fs.Arg(0)
	doc, err := loadTreeFile(path, "")
	if err != nil {
		printErrors(stdout, err)
		return 1
	}
	reg := arbor.NewRegistry()
	if *allow {
		if err := mockUnknown(reg, doc, nil); err != nil {
			fmt.Fprintf(stderr, "arbor validate: %v\n", err)
			return 1
		}
	}
	tree, err := arbor.Compile(doc, reg)
	if err != nil {
		printErrors(stdout, fmt.Errorf("%s: %w", path, err))
		return 1
	}
	fmt.Fprintf(stdout, "ok: %s: tree %q, %d nodes\n", path, tree.Name(), tree.Len())
	return 0
}

// printErrors prints each load error on its own line.
func printErrors(w io.Writer, err error) {
	var les arbor.LoadErrors
	if errors.As(err, &les) {
		for _, e := range les {
			fmt.Fprintln(w, e)
		}
		return
	}
	fmt.Fprintln(w, err)
}
