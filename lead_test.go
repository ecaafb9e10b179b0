package arbor

import (
	"maps"
	"math"
	"strings"
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

// The plain user nodes of the root's region, and only those, are ticked
// bare in a manager tick (kidBare): a node below a decorator is in a
// walk that tickNode starts, whose frames the manager's barrier does not
// resume.
func TestKidBareIsTheRootRegion(t *testing.T) {
	reg := NewRegistry()
	for _, name := range []string{"A", "B"} {
		if err := reg.ActionFunc(name, func(*Ctx) (Status, error) { return Success, nil }); err != nil {
			t.Fatal(err)
		}
	}
	compile := func(root *Node) *Tree {
		t.Helper()
		tree, err := Compile(&Document{Trees: map[string]*Node{"main": root}}, reg)
		if err != nil {
			t.Fatal(err)
		}
		return tree
	}
	// ops returns the opcodes of the kidRefs of plain user nodes, by
	// path.
	ops := func(tree *Tree) map[string]uint8 {
		m := map[string]uint8{}
		for i := range tree.nodes {
			for _, ref := range tree.nodes[i].kr {
				if ref.op == kidAct || ref.op == kidBare {
					m[tree.meta[ref.node].path] = ref.op
				}
			}
		}
		return m
	}
	tree := compile(ReactiveSelector(
		Sequence(Check("x", "<", 1), Leaf("A")),
		Inverter(Sequence(Leaf("A"), Sequence(Leaf("B")))),
		Leaf("B"),
	))
	got := ops(tree)
	want := map[string]uint8{}
	for i := range tree.nodes {
		if tree.nodes[i].kind != kAction {
			continue
		}
		p := tree.meta[i].path
		if want[p] = kidBare; strings.Contains(p, ".child.") { // below the Inverter
			want[p] = kidAct
		}
	}
	if !maps.Equal(got, want) || len(got) != 4 {
		t.Errorf("opcodes %v, want %v", got, want)
	}
	// A root that walk does not tick: no region.
	for p, op := range ops(compile(Inverter(Sequence(Leaf("A"), Leaf("B"))))) {
		if op != kidAct {
			t.Errorf("%s: opcode %d, want kidAct", p, op)
		}
	}
}
