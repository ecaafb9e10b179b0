package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/arborbt/arbor/debug"
)

// cmdReplay implements "arbor replay FILE.json": the debugger's page with
// a recording (an agent's exported history) open, read-only.
func cmdReplay(args []string, stdout, stderr io.Writer) int {
	return untilSignal(runReplay, args, stdout, stderr)
}

// runReplay is cmdReplay with a context; ready, when not nil, receives the
// base URL once the server listens.
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(base string)) int {
	fset := flag.NewFlagSet("replay", flag.ContinueOnError)
	fset.SetOutput(stderr)
	addr := fset.String("addr", debug.DefaultAddr, "address to serve the debugger on (no host: 127.0.0.1)")
	fset.Usage = func() {
		fmt.Fprintln(fset.Output(), "usage: arbor replay [-addr HOST:PORT] FILE.json\n\n"+
			"Serves the debugger at http://"+debug.DefaultAddr+"/ with a recording open: an agent's history saved with\n"+
			"the debugger's \"Export JSON\" (GET api/agents/{id}/export). Read-only; no program needed.")
		fset.PrintDefaults()
	}
	if code, ok := parseArgs(fset, args, stdout); !ok {
		return code
	}
	if msg := checkArgs(fset, "FILE.json"); msg != "" {
		return usageError(fset, "%s", msg)
	}
	rec, err := debug.LoadRecordingFile(fset.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "arbor replay: %v\n", err)
		return 1
	}
	ln, err := debug.Listen(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "arbor replay: %v\n", err)
		return 1
	}
	base := "http://" + displayAddr(ln.Addr()) + "/"
	fmt.Fprintf(stdout, "arbor replay: %s: agent #%d (%s), %d ticks, exported %s\n  debugger: %s\nPress Ctrl+C to stop.\n",
		rec.Name, rec.Agent(), rec.TreeName(), rec.Ticks(), rec.Exported(), base)
	if ready != nil {
		ready(strings.TrimSuffix(base, "/"))
	}
	if err := debug.Serve(ctx, ln, rec.Handler()); err != nil {
		fmt.Fprintf(stderr, "arbor replay: %v\n", err)
		return 1
	}
	return 0
}
