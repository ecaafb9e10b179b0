package arbor

import (
	"math"
	"testing"
)

// The interval a leading Check is compiled to holds exactly when the
// comparison does, for every operator, at the edges of the float64 range,
// at infinities and for NaN.
func TestLeadCheckIntervals(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	values := []float64{-inf, -math.MaxFloat64, -5, -math.SmallestNonzeroFloat64, 0, math.SmallestNonzeroFloat64,
		4.999999999999999, 5, 5.000000000000001, math.MaxFloat64, inf, nan}
	literals := []float64{-inf, -math.MaxFloat64, -5, 0, 5, math.MaxFloat64, inf, nan}
	compare := map[Op]func(x, lit float64) bool{
		OpEq: func(x, lit float64) bool { return x == lit },
		OpNe: func(x, lit float64) bool { return x != lit },
		OpLt: func(x, lit float64) bool { return x < lit },
		OpLe: func(x, lit float64) bool { return x <= lit },
		OpGt: func(x, lit float64) bool { return x > lit },
		OpGe: func(x, lit float64) bool { return x >= lit },
	}
	for op, want := range compare {
		for _, lit := range literals {
			l := newLeadCheck(0, op, KindNumber, lit)
			for _, x := range values {
				got := (l.lo <= x && x <= l.hi) != l.neg
				if got != want(x, lit) {
					t.Errorf("%v %s %v: interval [%v, %v] neg %v gives %v, want %v", x, op, lit, l.lo, l.hi, l.neg, got, !got)
				}
			}
		}
	}
}
