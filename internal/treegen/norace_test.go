//go:build !race

package treegen

const raceEnabled = false
