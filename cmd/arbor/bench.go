package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/arborbt/arbor/internal/workload"
)

// benchResult is the JSON output of arbor bench -json.
type benchResult struct {
	Workload               string  `json:"workload"`
	Agents                 int     `json:"agents"`
	Ticks                  int     `json:"ticks"`
	Workers                int     `json:"workers"`
	NsPerAgentTick         float64 `json:"nsPerAgentTick"`
	BaselineNsPerAgentTick float64 `json:"baselineNsPerAgentTick"`
	Ratio                  float64 `json:"ratio"`
	AllocsPerAgentTick     float64 `json:"allocsPerAgentTick"`
	BytesPerAgent          float64 `json:"bytesPerAgent"`
	Attacks                int64   `json:"attacks"`
	BaselineAttacks        int64   `json:"baselineAttacks"`
}

// cmdBench implements "arbor bench".
func cmdBench(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("workload", "guard", "workload: guard (16 nodes) or wide (216 nodes)")
	agents := fs.Int("agents", 10_000, "number of agents")
	ticks := fs.Int("ticks", 1_000, "ticks per run")
	workers := fs.Int("workers", 1, "worker goroutines")
	runs := fs.Int("runs", 5, "timed runs of each implementation (the median is reported)")
	dir := fs.String("trees", benchTreesDir, "directory holding guard.json and wide.json")
	asJSON := fs.Bool("json", false, "print one JSON object")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: arbor bench [-workload guard|wide] [-agents N] [-ticks T] [-workers W] [-runs R] [-trees DIR] [-json]\n\nRuns a standard workload with Arbor and with hand-written Go, and compares them.")
		fs.PrintDefaults()
	}
	if code, ok := parseArgs(fs, args, stdout); !ok {
		return code
	}
	if msg := checkArgs(fs); msg != "" {
		return usageError(fs, "%s", msg)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"agents", *agents}, {"ticks", *ticks}, {"workers", *workers}, {"runs", *runs}} {
		if f.v < 1 {
			return usageError(fs, "-%s must be 1 or more, got %d", f.name, f.v)
		}
	}
	tree, err := workload.LoadTree(*dir, *name)
	if err != nil {
		fmt.Fprintf(stderr, "arbor bench: %v\n", err)
		if errors.Is(err, os.ErrNotExist) && *dir == benchTreesDir {
			fmt.Fprintln(stderr, "arbor bench: run it from the repository's root, or give -trees DIR")
		}
		return 1
	}
	// Progress on stderr: one line redrawn on a terminal, plain lines in a
	// log (where the escapes would be noise).
	progress := func(format string, args ...any) {
		if format != "" {
			fmt.Fprintf(stderr, "arbor bench: "+format+"\n", args...)
		}
	}
	if isTerminal(stderr) {
		progress = func(format string, args ...any) { fmt.Fprintf(stderr, "\r\033[K"+format, args...) }
	}

	// Warm up both, then alternate timed runs.
	progress("warming up")
	warm := max(*ticks/10, 1)
	workload.MeasureArbor(tree, min(*agents, 10_000), warm, *workers)
	if _, err := workload.MeasureHands(*name, min(*agents, 10_000), warm, *workers); err != nil {
		fmt.Fprintf(stderr, "arbor bench: %v\n", err)
		return 1
	}
	var arborRuns, handRuns []workload.Run
	for i := 0; i < *runs; i++ {
		progress("run %d/%d: arbor", i+1, *runs)
		arborRuns = append(arborRuns, workload.MeasureArbor(tree, *agents, *ticks, *workers))
		progress("run %d/%d: hand-written", i+1, *runs)
		h, _ := workload.MeasureHands(*name, *agents, *ticks, *workers)
		handRuns = append(handRuns, h)
	}
	progress("measuring memory")
	bytes := workload.BytesPerAgent(tree, *agents)
	progress("")

	agentTicks := float64(*agents) * float64(*ticks)
	a, h := median(arborRuns), median(handRuns)
	res := benchResult{
		Workload: *name, Agents: *agents, Ticks: *ticks, Workers: *workers,
		NsPerAgentTick:         float64(a.Elapsed) / agentTicks,
		BaselineNsPerAgentTick: float64(h.Elapsed) / agentTicks,
		AllocsPerAgentTick:     float64(a.Allocs) / agentTicks,
		BytesPerAgent:          bytes,
		Attacks:                a.Attacks,
		BaselineAttacks:        h.Attacks,
	}
	res.Ratio = res.NsPerAgentTick / res.BaselineNsPerAgentTick
	if *asJSON {
		enc := json.NewEncoder(stdout)
		if err := enc.Encode(res); err != nil {
			fmt.Fprintf(stderr, "arbor bench: %v\n", err)
			return 1
		}
	} else {
		fmt.Fprintf(stdout, "workload %s: %d agents × %d ticks, %d worker(s), median of %d runs\n", res.Workload, res.Agents, res.Ticks, res.Workers, *runs)
		fmt.Fprintf(stdout, "  arbor         %8.1f ns/agent-tick  %.4f allocs/agent-tick  %.0f bytes/agent  %d attacks  (%.0f agent-ticks/s)\n",
			res.NsPerAgentTick, res.AllocsPerAgentTick, res.BytesPerAgent, res.Attacks, 1e9/res.NsPerAgentTick)
		fmt.Fprintf(stdout, "  hand-written  %8.1f ns/agent-tick  %d attacks\n", res.BaselineNsPerAgentTick, res.BaselineAttacks)
		fmt.Fprintf(stdout, "  ratio arbor/hand-written: %.2f\n", res.Ratio)
	}
	if res.Attacks != res.BaselineAttacks {
		fmt.Fprintf(stderr, "arbor bench: attack counts differ: arbor %d, hand-written %d\n", res.Attacks, res.BaselineAttacks)
		return 1
	}
	return 0
}

// benchTreesDir holds the workloads' trees in the repository.
const benchTreesDir = "testdata/bench"

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// median returns the run with the median elapsed time.
func median(runs []workload.Run) workload.Run {
	sorted := append([]workload.Run(nil), runs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Elapsed < sorted[j].Elapsed })
	return sorted[len(sorted)/2]
}
