#!/usr/bin/env bash
# Counts the data cache misses per agent-tick of a workload benchmark with
# callgrind's cache simulation: a deterministic figure for the memory an
# agent-tick pulls in (wall time on shared machines is noisy). The caches
# simulated are those of the development machine: I1 32 KiB 8-way, D1
# 48 KiB 12-way, last level 32 MiB 16-way, 64-byte lines (no
# prefetching). Usage:
# scripts/cachemisses.sh [Benchmark] [outdir], e.g.
# scripts/cachemisses.sh BenchmarkGuardArbor100k (100,000 agents: their
# state does not fit in the last level; the other benchmarks tick 10,000).
set -euo pipefail
bench=${1:-BenchmarkGuardArbor100k}
out=${2:-$(mktemp -d)}
agents=10000
case $bench in *100k) agents=100000 ;; esac
mkdir -p "$out"
cd "$(dirname "$0")/.."
out=$(cd "$out" && pwd)
go test -c -o "$out/workload.test" ./internal/workload
count() {
	(cd internal/workload && GOGC=off GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 valgrind --tool=callgrind \
		--cache-sim=yes --I1=32768,8,64 --D1=49152,12,64 --LL=33554432,16,64 \
		--callgrind-out-file="$out/cg.$1" "$out/workload.test" \
		-test.run '^$' -test.bench "^$bench\$" -test.benchtime "$1x" >/dev/null 2>"$out/log.$1")
	grep '^summary:' "$out/cg.$1" | sed 's/^summary: //'
}
a=$(count 4)
b=$(count 8)
# 4 extra rounds; the events are Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw.
read -r -a x <<<"$a"
read -r -a y <<<"$b"
n=$((4 * agents))
per() { awk -v d=$(($2 - $1)) -v n=$n 'BEGIN { printf "%.2f", d / n }'; }
echo "$bench per agent-tick: $(per "${x[0]}" "${y[0]}") instructions," \
	"D1 misses $(per "${x[4]}" "${y[4]}") read + $(per "${x[5]}" "${y[5]}") write," \
	"LL misses $(per "${x[7]}" "${y[7]}") read + $(per "${x[8]}" "${y[8]}") write (profiles in $out)"
