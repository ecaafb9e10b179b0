//go:build race

package refmodel

// raceEnabled: the race detector slows the differential test about
// fivefold; it then compares fewer seeds.
const raceEnabled = true
