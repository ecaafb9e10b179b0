//go:build !race

package refmodel

const raceEnabled = false
