#!/usr/bin/env bash
# Counts the instructions per agent-tick of a workload benchmark with
# callgrind: a deterministic figure for hot-path work (wall time on shared
# machines is noisy). Usage: scripts/instructions.sh [Benchmark] [outdir]
# e.g. scripts/instructions.sh BenchmarkWideArbor
set -euo pipefail
bench=${1:-BenchmarkGuardArbor}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
cd "$(dirname "$0")/.."
out=$(cd "$out" && pwd)
go test -c -o "$out/workload.test" ./internal/workload
count() {
	(cd internal/workload && GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
		--callgrind-out-file="$out/cg.$1" "$out/workload.test" \
		-test.run '^$' -test.bench "^$bench\$" -test.benchtime "$1x" >/dev/null 2>"$out/log.$1")
	grep -o 'Collected : [0-9]*' "$out/log.$1" | grep -o '[0-9]*'
}
a=$(count 30)
b=$(count 60)
# 30 extra rounds of 10,000 agents.
echo "$bench: $(( (b - a) / 300000 )) instructions per agent-tick (profiles in $out)"
