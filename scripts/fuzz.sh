#!/usr/bin/env bash
# Runs every fuzz target of the repository (every "func Fuzz..." in a
# _test.go file), one after the other, for the same time each. Not part of
# CI: a development and release check.
#
#   scripts/fuzz.sh [DURATION] [PATTERN]
#
# DURATION is a go test -fuzztime value (default 60s; "10000x" counts
# runs). PATTERN, when given, keeps only the targets whose package path or
# name matches it (an extended grep expression). FUZZ_PARALLEL sets the
# number of fuzzing workers (default: GOMAXPROCS); FUZZ_MINIMIZE_TIME the
# time spent minimizing each new interesting input (default 10s, Go's own
# default of 60s can eat a short run).
#
# A crashing input is written by go test under the package's
# testdata/fuzz/FuzzName/ and from then on runs with the package's tests:
# fix the bug, keep the file as a regression input. The script runs every
# target even after a failure and exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."

dur=${1:-60s}
pattern=${2:-}
flags=(-fuzzminimizetime "${FUZZ_MINIMIZE_TIME:-10s}")
if [[ -n "${FUZZ_PARALLEL:-}" ]]; then
	flags+=(-parallel "$FUZZ_PARALLEL")
fi

# "dir name" pairs, sorted.
mapfile -t targets < <(
	grep -rn --include='*_test.go' --exclude-dir=.git --exclude-dir=vendor -E '^func Fuzz[A-Za-z0-9_]*\(' . |
		sed -E 's#^(.*)/[^/]*_test\.go:[0-9]+:func (Fuzz[A-Za-z0-9_]*)\(.*#\1 \2#' |
		sort -u
)
if [[ -n "$pattern" ]]; then
	mapfile -t targets < <(printf '%s\n' "${targets[@]}" | grep -E -- "$pattern")
fi
if [[ ${#targets[@]} -eq 0 || -z "${targets[0]}" ]]; then
	echo "fuzz.sh: no fuzz targets found" >&2
	exit 2
fi

echo "fuzzing ${#targets[@]} targets for $dur each"
failed=0
summary=()
for t in "${targets[@]}"; do
	dir=${t% *}
	name=${t#* }
	echo "=== $name ($dir)"
	start=$(date +%s)
	if go test -run '^$' -fuzz "^${name}\$" -fuzztime "$dur" "${flags[@]}" "$dir"; then
		result=ok
	else
		result=FAIL
		failed=1
	fi
	summary+=("$(printf '%-4s %-22s %-16s %ss' "$result" "$name" "$dir" "$(($(date +%s) - start))")")
done
echo
echo "summary (fuzzing time $dur per target, wall time including the build):"
printf '%s\n' "${summary[@]}"
exit $failed
