package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/arborbt/arbor/scenario"
)

// cmdTest implements "arbor test [-v] PATH...".
func cmdTest(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "print every tick's status and trace")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: arbor test [-v] PATH...\n\nRuns scenario files (.json, .yaml, .yml), or directories searched recursively for them.")
		fs.PrintDefaults()
	}
	if err := parseInterspersed(fs, args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	sum, err := scenario.RunPaths(stdout, fs.Args(), *verbose)
	if err != nil {
		fmt.Fprintf(stderr, "arbor test: %v\n", err)
		return 1
	}
	if sum.Failed > 0 {
		return 1
	}
	return 0
}

// parseInterspersed parses flags that may come before or after the
// positional arguments ("arbor run tree.json -ticks 5").
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	return fs.Parse(append([]string{"--"}, pos...))
}
