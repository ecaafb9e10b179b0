#!/usr/bin/env bash
# Writes cmd/arbor/default.pgo, the CPU profile with which Go builds the
# arbor command (profile-guided optimization: `go build ./cmd/arbor` and
# `go install` use a main package's default.pgo on their own). The profile
# is of the engine's hot paths: the standard workloads (guard and wide, at
# 10,000 and 100,000 agents, and guard with Go conditions) and the single
# node types. Run it again after a change to the hot path; a stale profile
# still builds, it only helps less. Usage: scripts/pgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -run '^$' -bench '^Benchmark(GuardArbor|WideArbor|GuardArbor100k|GuardConditions)$' -benchtime 3s \
	-cpuprofile "$tmp/workload.prof" -o "$tmp/workload.test" ./internal/workload >/dev/null
go test -run '^$' -bench '^BenchmarkNodes$' -benchtime 200ms \
	-cpuprofile "$tmp/nodes.prof" -o "$tmp/nodes.test" . >/dev/null
go tool pprof -proto "$tmp/workload.prof" "$tmp/nodes.prof" >cmd/arbor/default.pgo 2>/dev/null
echo "wrote cmd/arbor/default.pgo ($(wc -c <cmd/arbor/default.pgo) bytes)"
