package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/arborbt/arbor/scenario"
)

// cmdTest implements "arbor test [-v] PATH...".
func cmdTest(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "print every tick's status and trace")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: arbor test [-v] PATH...\n\nRuns scenario files (.json, .yaml, .yml), or directories searched recursively for them.")
		fs.PrintDefaults()
	}
	if code, ok := parseArgs(fs, args, stdout); !ok {
		return code
	}
	if msg := checkArgs(fs, "PATH..."); msg != "" {
		return usageError(fs, "%s", msg)
	}
	sum, err := scenario.RunPaths(stdout, fs.Args(), *verbose)
	if err != nil {
		fmt.Fprintf(stderr, "arbor test: %v\n", err)
		return 1
	}
	if sum.Failed > 0 {
		return 1
	}
	if sum.Passed == 0 {
		// A mistyped or emptied directory must not pass in CI.
		fmt.Fprintf(stderr, "arbor test: no scenarios in %s\n", strings.Join(fs.Args(), " "))
		return 1
	}
	return 0
}
