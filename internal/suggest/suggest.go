// Package suggest finds the known name closest to a misspelt one, for the
// "did you mean" part of error messages.
package suggest

import "strings"

// Closest returns the candidate nearest to name (case-insensitive edit
// distance), or "" when none is close enough to be a likely typo.
func Closest(name string, cands []string) string {
	best, bestD := "", len(name)/2+2
	lower := strings.ToLower(name)
	for _, c := range cands {
		if d := Distance(lower, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance between a and b, in bytes.
func Distance(a, b string) int {
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
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
