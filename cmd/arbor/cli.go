package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// parseArgs parses a command's flags, which may come before or after its
// positional arguments. It reports whether the command should go on; when
// not, code is its exit status: 0 after -h (the usage goes to stdout), 2
// after a bad flag (the problem and the usage go to the flag set's output,
// standard error).
func parseArgs(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, ok bool) {
	usage := fs.Usage
	fs.Usage = func() {}
	err := parseInterspersed(fs, args)
	fs.Usage = usage
	switch {
	case errors.Is(err, flag.ErrHelp):
		out := fs.Output()
		fs.SetOutput(stdout)
		fs.Usage()
		fs.SetOutput(out)
		return 0, false
	case err != nil:
		fs.Usage()
		return 2, false
	}
	return 0, true
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

// usageError prints what is wrong with a command line, then the command's
// usage, to the flag set's output, and returns the exit status 2.
func usageError(fs *flag.FlagSet, format string, args ...any) int {
	fmt.Fprintf(fs.Output(), "arbor %s: %s\n", fs.Name(), fmt.Sprintf(format, args...))
	fs.Usage()
	return 2
}

// checkTickMs checks a -tick-ms value: a finite number of milliseconds
// whose ticks (n of them, 0 when unbounded) fit in a time.Duration and
// are at least a microsecond apart. It returns the problem, or "".
func checkTickMs(ms float64, n int) string {
	const maxMs = float64(math.MaxInt64) / float64(time.Millisecond)
	switch {
	case math.IsNaN(ms) || math.IsInf(ms, 0) || ms <= 0:
		return fmt.Sprintf("-tick-ms must be a positive number of milliseconds, got %v", ms)
	case ms < 0.001:
		return fmt.Sprintf("-tick-ms must be at least 0.001 (a microsecond), got %v", ms)
	case ms*float64(max(n, 1)) >= maxMs:
		return fmt.Sprintf("-tick-ms %v: %d ticks would run past the largest game time (about 292 years)", ms, max(n, 1))
	}
	return ""
}

// checkArgs checks a command's positional arguments: exactly len(names) of
// them, or at least one when the only name ends in "...". It returns the
// problem, or "".
func checkArgs(fs *flag.FlagSet, names ...string) string {
	n := fs.NArg()
	if len(names) == 1 && strings.HasSuffix(names[0], "...") {
		if n == 0 {
			return "missing " + names[0]
		}
		return ""
	}
	switch {
	case n < len(names):
		return "missing " + strings.Join(names[n:], " ")
	case n > len(names) && len(names) == 0:
		return fmt.Sprintf("unexpected argument %q", fs.Arg(0))
	case n > len(names):
		return fmt.Sprintf("unexpected argument %q after %s", fs.Arg(len(names)), strings.Join(names, " "))
	}
	return ""
}
