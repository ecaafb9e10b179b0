// Package suggest finds the known name closest to a misspelt one, for the
// "did you mean" part of error messages.
package suggest

import "strings"

// Closest returns the candidate nearest to name (case-insensitive edit
// distance, a swap of neighbours counting as one edit), or "" when none is
// close enough to be a likely typo: at most 1 edit for names of up to 4
// bytes, 2 up to 8, 3 beyond.
func Closest(name string, cands []string) string {
	limit := 3
	switch {
	case len(name) <= 4:
		limit = 1
	case len(name) <= 8:
		limit = 2
	}
	best, bestD := "", limit+1
	lower := strings.ToLower(name)
	for _, c := range cands {
		if d := Distance(lower, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the edit distance between a and b, in bytes: insertions,
// deletions, substitutions and swaps of two neighbours (optimal string
// alignment).
func Distance(a, b string) int {
	// Three rows: two back (for swaps), one back, current.
	pp := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
		pp, prev, cur = prev, cur, pp
	}
	return prev[len(b)]
}
