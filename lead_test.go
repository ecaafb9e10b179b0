package arbor

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
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

// leadRun is the owner of an agent of TestLeadingConditions: the
// conditions' results for the next tick, and what ran.
type leadRun struct {
	script map[string]string // condition → "true", "false", "error" or "panic"
	log    []string          // the conditions called, in order
	errs   []string          // the reported errors: path, and whether a panic
}

// A composite child whose first child is a plain user condition is
// decided from its parent's loop when the condition decides it (kidCond):
// the condition is called there, once per tick and in order, its errors
// and panics reported with its path; a manager tick (bare: the manager's
// barrier resumes the walk after a panic), an agent's own tick and the
// general path (a tracer set) do and leave exactly the same.
func TestLeadingConditions(t *testing.T) {
	reg := NewRegistry()
	conds := []string{"A", "B", "C", "D", "E", "F"}
	for _, name := range conds {
		err := reg.ConditionFunc(name, func(c *Ctx) (bool, error) {
			r := Owner[*leadRun](c)
			r.log = append(r.log, name)
			switch r.script[name] {
			case "panic":
				panic("scripted panic")
			case "error":
				return false, errors.New("scripted error")
			}
			return r.script[name] == "true", nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, s := range map[string]Status{"Ok": Success, "No": Failure, "Run": Running} {
		if err := reg.ActionFunc(name, func(*Ctx) (Status, error) { return s, nil }); err != nil {
			t.Fatal(err)
		}
	}
	// The conditions in the tree's order (tick order).
	root := ReactiveSelector(
		ReactiveSequence(Leaf("A"), Leaf("Ok")),
		Sequence(Leaf("B"), Leaf("Run")),
		Inverter(Selector(Sequence(Leaf("C"), Leaf("Run")), Leaf("Ok"))),
		Selector(Leaf("D"), Leaf("No")),
		SequenceWithMemory(Leaf("E"), Leaf("F"), Leaf("Run")),
	)
	tree, err := Compile(&Document{Trees: map[string]*Node{"main": root}}, reg)
	if err != nil {
		t.Fatal(err)
	}
	// The root's composite children, and the Sequence below the Inverter
	// (in a walk that tickNode starts: its condition is ticked with its
	// own barrier), are decided by their first conditions.
	var kidConds []string
	for i := range tree.nodes {
		for _, ref := range tree.nodes[i].kr {
			if ref.op == kidCond {
				kidConds = append(kidConds, tree.meta[ref.node].path)
			}
		}
	}
	if len(kidConds) != 5 {
		t.Fatalf("kidCond children %q, want 5", kidConds)
	}

	newRun := func() (*leadRun, []AgentOption) {
		r := &leadRun{}
		return r, []AgentOption{WithOwner(r), WithErrorHandler(func(e *NodeError) {
			var pe *PanicError
			r.errs = append(r.errs, fmt.Sprintf("%s panic=%v", e.Path, errors.As(e, &pe)))
		})}
	}
	m := NewManager(WithWorkers(1))
	managed, opts := newRun()
	ma := m.Add(tree, opts...)
	own, opts := newRun()
	oa := NewAgent(tree, opts...)
	traced, opts := newRun()
	ta := NewAgent(tree, append(opts, WithTracer(func(*Agent, Event) {}))...)

	rnd := rand.New(rand.NewPCG(1, 2))
	results := []string{"true", "false", "error", "panic"}
	var sawPanic, sawDecided, sawOn, sawMemory bool
	for tick := range 2000 {
		script := map[string]string{}
		for _, c := range conds {
			// Mostly true or false: the running children stay running
			// for a few ticks.
			script[c] = results[rnd.IntN(2)]
			if rnd.IntN(8) == 0 {
				script[c] = results[2+rnd.IntN(2)]
			}
		}
		now := time.Duration(tick) * time.Millisecond
		for _, r := range []*leadRun{managed, own, traced} {
			r.script, r.log, r.errs = script, nil, nil
		}
		m.Tick(now)
		os := oa.Tick(now)
		ts := ta.Tick(now)
		if ms := ma.Status(); ms != ts || os != ts {
			t.Fatalf("tick %d (%v): manager %v, Agent.Tick %v, traced %v", tick, script, ms, os, ts)
		}
		for name, r := range map[string]*leadRun{"manager": managed, "Agent.Tick": own} {
			if !slices.Equal(r.log, traced.log) || !slices.Equal(r.errs, traced.errs) {
				t.Fatalf("tick %d (%v): %s called %q and reported %q; traced %q, %q", tick, script, name, r.log, r.errs, traced.log, traced.errs)
			}
		}
		for i := range tree.nodes {
			id := int(i)
			if ma.Running(id) != ta.Running(id) || oa.Running(id) != ta.Running(id) || !slices.Equal(ma.mem, ta.mem) || !slices.Equal(oa.mem, ta.mem) {
				t.Fatalf("tick %d (%v): node %s: running %v, %v, traced %v; memory %v, %v, traced %v", tick, script, tree.meta[i].path,
					ma.Running(id), oa.Running(id), ta.Running(id), ma.mem, oa.mem, ta.mem)
			}
		}
		// Each condition once at most, in the tree's order.
		seen := map[string]bool{}
		for k, c := range traced.log {
			if seen[c] || k > 0 && c < traced.log[k-1] {
				t.Fatalf("tick %d: conditions called %q", tick, traced.log)
			}
			seen[c] = true
		}
		for _, e := range traced.errs {
			sawPanic = sawPanic || strings.HasSuffix(e, "panic=true")
		}
		sawDecided = sawDecided || len(traced.log) > 0 && traced.log[0] == "A" && script["A"] != "true"
		sawOn = sawOn || slices.Contains(traced.log, "C") && script["C"] == "true"
		// The SequenceWithMemory resumes at F, where it failed.
		sawMemory = sawMemory || slices.Contains(traced.log, "F") && !slices.Contains(traced.log, "E")
	}
	if !sawPanic || !sawDecided || !sawOn || !sawMemory {
		t.Errorf("the scripts did not cover the cases: a panic %v, a child decided %v, a child going on %v, memory %v", sawPanic, sawDecided, sawOn, sawMemory)
	}
}
