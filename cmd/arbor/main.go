// Command arbor runs, tests and inspects Arbor behavior trees.
//
//	arbor demo [-addr A] [-headless -ticks N] [flags]
//	                                  the village demo: the world view at http://127.0.0.1:7777/, the debugger at /debug/
//	arbor serve [-addr A] [-agents N] [-mock Type=status,...] [flags] FILE...
//	                                  run tree files with mocks and serve the debugger
//	arbor replay [-addr A] FILE.json open a recording (an agent's exported history) in the debugger
//	arbor test [-v] PATH...           run scenario files (scenario.md)
//	arbor validate [-allow-unknown] FILE
//	                                  check a tree file; print its errors or "ok"
//	arbor run [-ticks N] [-tick-ms MS] [-mock Type=status,...] [-allow-unknown] [-set key=value] [-trace] [-scenario OUT] FILE
//	                                  tick a tree of built-in (and mocked) nodes
//	arbor bench [-workload guard|wide] [-agents N] [-ticks T] [-workers W] [-runs R] [-trees DIR] [-json]
//	                                  compare Arbor with hand-written Go
//	arbor convert IN OUT [-from F] [-to F]
//	                                  convert between arbor, b3 and btcpp files
//	arbor render FILE [-format dot|mermaid|ascii] [-from F]
//	                                  draw a tree file
//
// "arbor help CMD" or "arbor CMD -h" lists a command's flags.
package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: arbor <command> [arguments]

commands:
  demo [-addr A] [-headless -ticks N] [flags]
                           the village: the world view at http://127.0.0.1:7777/, the debugger at /debug/
  serve [-addr A] [-agents N] [-mock Type=status,...] [flags] FILE...
                           run tree files (unknown leaf types as mocks) and serve the debugger
  replay [-addr A] FILE.json
                           serve the debugger with a recording (an agent's exported history) open
  test [-v] PATH...        run scenario files or directories of them (exit 1 when one fails)
  validate [-types PALETTE] [-allow-unknown] FILE
                           check a tree file; print its errors, or "ok" and its node count
  run [-ticks N] [-tick-ms MS] [-mock Type=status,...] [-types PALETTE] [-allow-unknown] [-set key=value] [-trace] [-scenario OUT] FILE
                           tick a tree of built-in (and mocked) nodes and print each tick's status
  bench [-workload guard|wide] [-agents N] [-ticks T] [-workers W] [-runs R] [-trees DIR] [-json]
                           compare Arbor with hand-written Go on a standard workload
  convert IN OUT [-from F] [-to F] [-types PALETTE]
                           convert a tree file between arbor, b3 (Behavior3) and btcpp (BT.CPP XML)
  render FILE [-format dot|mermaid|ascii] [-from F]
                           draw the trees of a tree file (any format)

Run "arbor <command> -h" or "arbor help <command>" for a command's flags.
`

func main() {
	// A closed stdout (arbor run ... | head) is then an error on write,
	// which the commands handle, instead of the end of the process: run
	// -scenario still writes its file.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches a command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "test":
		return cmdTest(rest, stdout, stderr)
	case "validate":
		return cmdValidate(rest, stdout, stderr)
	case "run":
		return cmdRun(rest, stdout, stderr)
	case "bench":
		return cmdBench(rest, stdout, stderr)
	case "demo":
		return cmdDemo(rest, stdout, stderr)
	case "serve":
		return cmdServe(rest, stdout, stderr)
	case "replay":
		return cmdReplay(rest, stdout, stderr)
	case "convert":
		return cmdConvert(rest, stdout, stderr)
	case "render":
		return cmdRender(rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		if len(rest) > 1 && cmd == "help" {
			fmt.Fprintf(stderr, "arbor help: one command at a time, got %q\n\n%s", rest, usage)
			return 2
		}
		if len(rest) > 0 && cmd == "help" {
			return run([]string{rest[0], "-h"}, stdout, stderr) // arbor help CMD
		}
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "arbor: unknown command %q\n\n%s", cmd, usage)
	return 2
}
