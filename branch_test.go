package arbor_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// branchStep is one step of a branching composite's test: the mocks'
// results and blackboard values to change before it, then a tick (or a
// halt) and what it must give.
type branchStep struct {
	res    map[string]arbor.Status
	set    map[string]any // nil value: delete the key
	halt   bool           // halt the agent instead of ticking
	status arbor.Status
	trace  string
}

func runBranchSteps(t *testing.T, root *arbor.Node, steps []branchStep) {
	t.Helper()
	h := newRndHarness(t)
	a := h.agent(t, root)
	for k, st := range steps {
		for name, s := range st.res {
			h.res[name] = s
		}
		for key, v := range st.set {
			if v == nil {
				a.Blackboard().Delete(key)
			} else {
				a.Blackboard().Set(key, v)
			}
		}
		if st.halt {
			a.Halt()
		} else if s := a.Tick(time.Duration(k+1) * time.Millisecond); s != st.status {
			t.Fatalf("step %d: status %v, want %v (trace %s)", k, s, st.status, h.take())
		}
		if got := h.take(); got != st.trace {
			t.Fatalf("step %d: trace\n  %s\nwant\n  %s", k, got, st.trace)
		}
	}
}

type res = map[string]arbor.Status

func TestIfThenElse(t *testing.T) {
	S, F, R := arbor.Success, arbor.Failure, arbor.Running
	A, B, C := arbor.Leaf("A"), arbor.Leaf("B"), arbor.Leaf("C")
	cases := []struct {
		name  string
		root  *arbor.Node
		steps []branchStep
	}{
		{"success runs then, failure else", arbor.IfThenElse(A, B, C), []branchStep{
			{status: S, trace: "A:start A:success B:start B:success"},
			{res: res{"A": F, "C": F}, status: F, trace: "A:start A:failure C:start C:failure"},
		}},
		{"two children: a failed condition fails the node", arbor.IfThenElse(A, B), []branchStep{
			{res: res{"A": F}, status: F, trace: "A:start A:failure"},
			{res: res{"A": S, "B": F}, status: F, trace: "A:start A:success B:start B:failure"},
		}},
		{"a running condition is ticked again", arbor.IfThenElse(A, B, C), []branchStep{
			{res: res{"A": R}, status: R, trace: "A:start A:running"},
			{status: R, trace: "A:running"},
			{res: res{"A": F}, status: S, trace: "A:failure C:start C:success"},
		}},
		{"the branch entered runs on without the condition", arbor.IfThenElse(A, B, C), []branchStep{
			{res: res{"B": R}, status: R, trace: "A:start A:success B:start B:running"},
			{res: res{"A": F}, status: R, trace: "B:running"},
			{res: res{"B": F}, status: F, trace: "B:failure"},
			// The next activation asks the condition again.
			{res: res{"C": R}, status: R, trace: "A:start A:failure C:start C:running"},
			{res: res{"A": S, "C": S}, status: S, trace: "C:success"},
		}},
		{"halt halts the running branch, the next activation starts over", arbor.IfThenElse(A, B, C), []branchStep{
			{res: res{"A": F, "C": R}, status: R, trace: "A:start A:failure C:start C:running"},
			{halt: true, trace: "C:halt"},
			{res: res{"A": S, "B": S}, status: S, trace: "A:start A:success B:start B:success"},
		}},
		{"halt halts a running condition", arbor.IfThenElse(A, B, C), []branchStep{
			{res: res{"A": R}, status: R, trace: "A:start A:running"},
			{halt: true, trace: "A:halt"},
		}},
		{"a guard false halts the branch", arbor.IfThenElse(A, B, C).WithGuard(arbor.Check("go", "exists")), []branchStep{
			{set: map[string]any{"go": true}, res: res{"B": R}, status: R, trace: "A:start A:success B:start B:running"},
			{set: map[string]any{"go": nil}, status: F, trace: "B:halt"},
		}},
		{"the condition may be a Check", arbor.IfThenElse(arbor.Check("k", "==", 1), B, C), []branchStep{
			{set: map[string]any{"k": 1}, res: res{"B": R}, status: R, trace: "B:start B:running"},
			{set: map[string]any{"k": 2}, status: R, trace: "B:running"},
			{res: res{"B": S}, status: S, trace: "B:success"},
			{status: S, trace: "C:start C:success"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runBranchSteps(t, c.root, c.steps) })
	}
}

func TestWhileDoElse(t *testing.T) {
	S, F, R := arbor.Success, arbor.Failure, arbor.Running
	A, B, C := arbor.Leaf("A"), arbor.Leaf("B"), arbor.Leaf("C")
	cases := []struct {
		name  string
		root  *arbor.Node
		steps []branchStep
	}{
		{"the condition every tick; its change halts the other branch first", arbor.WhileDoElse(A, B, C), []branchStep{
			{res: res{"B": R, "C": R}, status: R, trace: "A:start A:success B:start B:running"},
			{status: R, trace: "A:start A:success B:running"},
			{res: res{"A": F}, status: R, trace: "A:start A:failure B:halt C:start C:running"},
			{res: res{"A": S}, status: R, trace: "A:start A:success C:halt B:start B:running"},
			{res: res{"B": F}, status: F, trace: "A:start A:success B:failure"},
		}},
		{"two children: failure halts do and fails", arbor.WhileDoElse(A, B), []branchStep{
			{res: res{"B": R}, status: R, trace: "A:start A:success B:start B:running"},
			{res: res{"A": F}, status: F, trace: "A:start A:failure B:halt"},
			{status: F, trace: "A:start A:failure"},
		}},
		{"a running condition halts the running branch", arbor.WhileDoElse(A, B, C), []branchStep{
			{res: res{"A": F, "C": R}, status: R, trace: "A:start A:failure C:start C:running"},
			{res: res{"A": R}, status: R, trace: "A:start A:running C:halt"},
			{status: R, trace: "A:running"},
			{res: res{"A": F}, status: R, trace: "A:failure C:start C:running"},
		}},
		{"halt halts the condition and the branch", arbor.WhileDoElse(A, B, C), []branchStep{
			{res: res{"A": F, "C": R}, status: R, trace: "A:start A:failure C:start C:running"},
			{halt: true, trace: "C:halt"},
			{res: res{"A": R}, status: R, trace: "A:start A:running"},
			{halt: true, trace: "A:halt"},
		}},
		{"with a Check as condition", arbor.WhileDoElse(arbor.Check("k", "==", true), B, C), []branchStep{
			{set: map[string]any{"k": true}, res: res{"B": R, "C": R}, status: R, trace: "B:start B:running"},
			{set: map[string]any{"k": false}, status: R, trace: "B:halt C:start C:running"},
			{set: map[string]any{"k": nil}, status: R, trace: "C:running"},
			{set: map[string]any{"k": true}, res: res{"B": S}, status: S, trace: "C:halt B:start B:success"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runBranchSteps(t, c.root, c.steps) })
	}
}

func TestSwitch(t *testing.T) {
	S, F, R := arbor.Success, arbor.Failure, arbor.Running
	sw := func(cases ...any) *arbor.Node {
		return arbor.Switch("mode", cases, mocks("ABCD"[:len(cases)+1])...)
	}
	all := func(s arbor.Status) res { return res{"A": s, "B": s, "C": s, "D": s} }
	cases := []struct {
		name  string
		root  *arbor.Node
		steps []branchStep
	}{
		{"the first equal case, else the default", sw("idle", 2, true), []branchStep{
			{set: map[string]any{"mode": "idle"}, status: S, trace: "A:start A:success"},
			{set: map[string]any{"mode": 2}, status: S, trace: "B:start B:success"},
			{set: map[string]any{"mode": 2.0}, res: res{"B": F}, status: F, trace: "B:start B:failure"},
			{set: map[string]any{"mode": true}, status: S, trace: "C:start C:success"},
			{set: map[string]any{"mode": "other"}, status: S, trace: "D:start D:success"},
			{set: map[string]any{"mode": nil}, status: S, trace: "D:start D:success"},
		}},
		{"kinds must match", sw("2", 1, false), []branchStep{
			{set: map[string]any{"mode": 2}, status: S, trace: "D:start D:success"},
			{set: map[string]any{"mode": "1"}, status: S, trace: "D:start D:success"},
			{set: map[string]any{"mode": 0}, status: S, trace: "D:start D:success"},
			{set: map[string]any{"mode": "2"}, status: S, trace: "A:start A:success"},
			{set: map[string]any{"mode": []any{1}}, status: S, trace: "D:start D:success"},
		}},
		{"a repeated case: the first wins", sw(1, 1), []branchStep{
			{set: map[string]any{"mode": 1}, status: S, trace: "A:start A:success"},
		}},
		{"a change halts the running child first", sw("a", "b"), []branchStep{
			{set: map[string]any{"mode": "a"}, res: all(R), status: R, trace: "A:start A:running"},
			{status: R, trace: "A:running"},
			{set: map[string]any{"mode": "b"}, status: R, trace: "A:halt B:start B:running"},
			{set: map[string]any{"mode": nil}, status: R, trace: "B:halt C:start C:running"},
			{set: map[string]any{"mode": "b"}, res: res{"B": S}, status: S, trace: "C:halt B:start B:success"},
		}},
		{"halt halts the running child", sw("a"), []branchStep{
			{set: map[string]any{"mode": "a"}, res: all(R), status: R, trace: "A:start A:running"},
			{halt: true, trace: "A:halt"},
			{status: R, trace: "A:start A:running"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runBranchSteps(t, c.root, c.steps) })
	}

	// A global key; an expired value picks the default.
	h := newRndHarness(t)
	b := h.agent(t, arbor.Branch("Switch", mocks("ABC")...).With("key", "@mode").With("cases", []string{"x", "y"}))
	b.Blackboard().Set("@mode", "y")
	b.Tick(time.Millisecond)
	if got := h.take(); got != "B:start B:success" {
		t.Fatal(got)
	}
	c := h.agent(t, arbor.Sequence(arbor.Leaf("A"), arbor.Switch("mode", []any{"a"}, arbor.Leaf("B"), arbor.Leaf("C"))))
	c.Blackboard().SetTTL("mode", "a", 5*time.Millisecond) // at time 0: present until 5 ms
	c.Tick(5 * time.Millisecond)
	c.Tick(6 * time.Millisecond)
	if got := h.take(); got != "A:start A:success B:start B:success A:start A:success C:start C:success" {
		t.Fatalf("expiry: %s", got)
	}
}

func TestBranchLoadErrors(t *testing.T) {
	A, B, C, D := arbor.Leaf("A"), arbor.Leaf("B"), arbor.Leaf("C"), arbor.Leaf("D")
	cases := []struct {
		name string
		root *arbor.Node
		want string
	}{
		{"IfThenElse with one child", arbor.Branch("IfThenElse", A), `wrong number of children: has 1, IfThenElse needs 2 or 3`},
		{"IfThenElse with four children", arbor.IfThenElse(A, B, C, D), `wrong number of children: has 4, IfThenElse needs 2 or 3`},
		{"IfThenElse with none", arbor.Branch("IfThenElse"), `wrong number of children: has 0, IfThenElse needs 2 or 3`},
		{"WhileDoElse with one child", arbor.Branch("WhileDoElse", A), `wrong number of children: has 1, WhileDoElse needs 2 or 3`},
		{"IfThenElse takes no parameters", arbor.IfThenElse(A, B).With("x", 1), `unknown parameter "x"; IfThenElse takes no parameters`},
		{"Switch too few children", arbor.Switch("k", []any{1, 2}, A, B), `wrong number of children: has 2, Switch with 2 cases needs 3 (one per case, then the default)`},
		{"Switch too many children", arbor.Switch("k", []any{1}, A, B, C), `wrong number of children: has 3, Switch with 1 cases needs 2`},
		{"Switch without key", arbor.Branch("Switch", A, B).With("cases", []any{1}), `parameter "key": missing required parameter`},
		{"Switch key reference", arbor.Switch("{k}", []any{1}, A, B), `parameter "key": "{k}": write the key's name, without braces`},
		{"Switch empty key", arbor.Switch("", []any{1}, A, B), `parameter "key": empty key name`},
		{"Switch key @", arbor.Switch("@", []any{1}, A, B), `parameter "key": "@" names no key: a global key is @ and its name (@alarm)`},
		{"Switch without cases", arbor.Branch("Switch", A).With("key", "k"), `parameter "cases": missing required parameter`},
		{"Switch empty cases", arbor.Switch("k", []any{}, A), `parameter "cases": want a non-empty list of numbers, strings or booleans, got an empty list`},
		{"Switch cases not a list", arbor.Branch("Switch", A, B).With("key", "k").With("cases", "a"), `parameter "cases": want a non-empty list of numbers, strings or booleans, got string "a"`},
		{"Switch null case", arbor.Switch("k", []any{1, nil}, A, B, C), `parameter "cases": cases[1] is null: a case is a number, a string or a boolean`},
		{"Switch list case", arbor.Switch("k", []any{[]any{1}}, A, B), `cases[0] is a list`},
		{"Switch reference case", arbor.Switch("k", []any{"a", "{b}"}, A, B, C), `cases[1] is "{b}": a case is a literal value, not a {key} reference`},
		{"Switch no children, bad cases", arbor.Switch("k", nil), `wrong number of children: a composite needs at least one child`},
		{"abort", arbor.IfThenElse(A, B).WithAbort(arbor.AbortSelf), `abort "self" is only allowed on Sequence, SequenceWithMemory and Selector`},
		{"abort none", mustParse(t, `{"type": "Switch", "key": "k", "cases": [1], "abort": "none", "children": [{"type": "A"}, {"type": "B"}]}`), `abort "none" is only allowed`},
		{"IfThenElse in a guard", arbor.Leaf("A").WithGuard(arbor.IfThenElse(arbor.AlwaysSuccess(), arbor.AlwaysSuccess())), `IfThenElse is not allowed in a guard`},
		{"WhileDoElse in a guard", arbor.Leaf("A").WithGuard(arbor.WhileDoElse(arbor.AlwaysSuccess(), arbor.AlwaysSuccess())), `WhileDoElse is not allowed in a guard`},
		{"Switch in a guard", arbor.Leaf("A").WithGuard(arbor.Switch("k", []any{1}, arbor.AlwaysSuccess(), arbor.AlwaysFailure())), `Switch is not allowed in a guard`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newRndHarness(t)
			_, err := arbor.Compile(&arbor.Document{Trees: map[string]*arbor.Node{"main": c.root}}, h.reg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
			if err != nil && strings.Count(err.Error(), "wrong number of children") > 1 {
				t.Fatalf("the children reported twice: %v", err)
			}
		})
	}
}

// TestBranchAborts checks that the branching composites are boundaries of
// conditional aborts: their condition leaves do not observe, observers
// moving up to them are dropped, a nearer Sequence with abort works
// inside a branch, and an abort above one halts its running child.
func TestBranchAborts(t *testing.T) {
	h := newRndHarness(t)
	h.res["B"] = arbor.Running
	h.res["C"] = arbor.Running
	// The Check is IfThenElse's condition: under a Selector with abort
	// lower, it does not observe (IfThenElse is its nearest composite).
	a := h.agent(t, arbor.Selector(arbor.IfThenElse(arbor.Check("k", "==", true), arbor.Leaf("A")), arbor.Leaf("B")).WithAbort(arbor.AbortLower))
	a.Blackboard().Set("k", false)
	a.Tick(time.Millisecond)
	a.Blackboard().Set("k", true)
	a.Tick(2 * time.Millisecond)
	if got := h.take(); got != "B:start B:running B:running" {
		t.Fatalf("IfThenElse's condition observed: %s", got)
	}
	// An observer moving up to a Switch is dropped: the inner Selector
	// with abort lower fails (Check false, A fails), its observer moves
	// up to the Switch, not on to the outer Selector: C runs on when k
	// changes. Without the Switch, the change aborts C.
	h.res["A"] = arbor.Failure
	inner := func() *arbor.Node {
		return arbor.Selector(arbor.Check("k", "==", true), arbor.Leaf("A")).WithAbort(arbor.AbortLower)
	}
	for _, c := range []struct {
		mid  *arbor.Node
		want string
	}{
		{arbor.Switch("m", []any{1}, inner(), arbor.AlwaysFailure()), "A:start A:failure C:start C:running C:running"},
		{inner(), "A:start A:failure C:start C:running C:halt"},
	} {
		b := h.agent(t, arbor.Selector(c.mid, arbor.Leaf("C")).WithAbort(arbor.AbortLower))
		b.Blackboard().Set("k", false)
		b.Blackboard().Set("m", 1)
		b.Tick(time.Millisecond)
		b.Blackboard().Set("k", true)
		b.Tick(2 * time.Millisecond)
		if got := h.take(); got != c.want {
			t.Fatalf("through %s: %s, want %s", c.mid.Type, got, c.want)
		}
	}
	// A Sequence with abort self inside the condition: its observer
	// aborts the running Wait, the Sequence fails, the else branch runs.
	c := h.agent(t, arbor.IfThenElse(
		arbor.Sequence(arbor.Check("k", "==", true), arbor.Leaf("B")).WithAbort(arbor.AbortSelf),
		arbor.Leaf("A"), arbor.Leaf("C")))
	c.Blackboard().Set("k", true)
	c.Tick(time.Millisecond)
	c.Blackboard().Set("k", false)
	c.Tick(2 * time.Millisecond)
	if got := h.take(); got != "B:start B:running B:halt C:start C:running" {
		t.Fatalf("abort inside the condition: %s", got)
	}
	// An abort above a WhileDoElse halts its running branch.
	d := h.agent(t, arbor.Sequence(arbor.Check("k", "==", true), arbor.WhileDoElse(arbor.AlwaysSuccess(), arbor.Leaf("C"))).WithAbort(arbor.AbortSelf))
	d.Blackboard().Set("k", true)
	d.Tick(time.Millisecond)
	d.Blackboard().Set("k", false)
	d.Tick(2 * time.Millisecond)
	if got := h.take(); got != "C:start C:running C:halt" {
		t.Fatal(got)
	}
}

// TestBranchSnapshotRestore: IfThenElse's branch is carried by
// snapshots (the restored agent does not ask the condition again); Reset
// clears it.
func TestBranchSnapshotRestore(t *testing.T) {
	h := newRndHarness(t)
	tree := mustCompile(t, h.reg, arbor.Sequence(
		arbor.IfThenElse(arbor.Check("k", "==", true), arbor.Leaf("A"), arbor.Leaf("B")),
		arbor.Switch("m", []any{"x"}, arbor.Leaf("C"), arbor.Leaf("D")),
		arbor.WhileDoElse(arbor.Check("k", "==", true), arbor.Leaf("E"), arbor.Leaf("F"))))
	h.res["B"] = arbor.Running
	a := arbor.NewAgent(tree, arbor.WithTracer(h.tracer))
	a.Tick(time.Millisecond)
	if got := h.take(); got != "B:start B:running" {
		t.Fatal(got)
	}
	data, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b := arbor.NewAgent(tree, arbor.WithTracer(h.tracer))
	if err := b.Restore(data); err != nil {
		t.Fatal(err)
	}
	b.Blackboard().Set("k", true)
	b.Tick(2 * time.Millisecond)
	if got := h.take(); got != "B:running" {
		t.Fatalf("restored: %s", got)
	}
	b.Reset()
	if got := h.take(); got != "B:halt" {
		t.Fatalf("reset: %s", got)
	}
	b.Tick(3 * time.Millisecond)
	if got := h.take(); got != "A:start A:success D:start D:success E:start E:success" {
		t.Fatalf("after reset: %s", got)
	}

	// Many snapshots along a run with all three running: the restored
	// agent goes the same way.
	h2 := newRndHarness(t)
	tree2 := mustCompile(t, h2.reg, arbor.Repeat(0, arbor.Sequence(
		arbor.IfThenElse(arbor.WaitTicks(1), arbor.Sequence(arbor.WaitTicks(2), arbor.Leaf("A")), arbor.Leaf("B")),
		arbor.WhileDoElse(arbor.Check("k", "==", true), arbor.WaitTicks(1), arbor.Set("k", true)),
		arbor.Switch("n", []any{0, 1}, arbor.WaitTicks(2), arbor.WaitTicks(1), arbor.Set("k", false)),
		arbor.Set("k", false))))
	for at := 0; at < 12; at++ {
		var logA, logB []string
		rec := func(l *[]string) arbor.AgentOption {
			return arbor.WithTracer(func(a *arbor.Agent, e arbor.Event) {
				*l = append(*l, fmt.Sprintf("%s:%v:%v", a.Tree().Node(int(e.Node)).Path, e.Kind, e.Status))
			})
		}
		a := arbor.NewAgent(tree2, rec(&logA))
		for k := 1; k <= at; k++ {
			a.Blackboard().Set("n", k%3)
			a.Tick(time.Duration(k) * time.Millisecond)
		}
		data, err := a.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		b := arbor.NewAgent(tree2, rec(&logB))
		if err := b.Restore(data); err != nil {
			t.Fatal(err)
		}
		logA = logA[:0]
		for k := at + 1; k <= at+20; k++ {
			now := time.Duration(k) * time.Millisecond
			a.Blackboard().Set("n", k%3)
			b.Blackboard().Set("n", k%3)
			if sa, sb := a.Tick(now), b.Tick(now); sa != sb {
				t.Fatalf("restored after %d ticks: tick %d: %v, restored %v", at, k, sa, sb)
			}
		}
		if !slices.Equal(logA, logB) {
			t.Fatalf("restored after %d ticks: events differ\n  %v\n  %v", at, logA, logB)
		}
		sa, _ := a.Snapshot()
		sb, _ := b.Snapshot()
		if !bytes.Equal(sa, sb) {
			t.Fatalf("restored after %d ticks: snapshots differ at the end", at)
		}
	}
}

// TestBranchTickDoesNotAllocate: the branching composites allocate
// nothing per tick.
func TestBranchTickDoesNotAllocate(t *testing.T) {
	h := newRndHarness(t)
	h.res["C"] = arbor.Running
	a := arbor.NewAgent(mustCompile(t, h.reg, arbor.Parallel(-1, 0,
		arbor.Repeat(0, arbor.IfThenElse(arbor.Check("k", "<", 3), arbor.Leaf("A"), arbor.Leaf("B"))),
		arbor.WhileDoElse(arbor.Check("k", "==", 1), arbor.Leaf("C"), arbor.Leaf("D")),
		arbor.Switch("s", []any{"x", 1, true}, mocks("CABD")...),
		arbor.Switch("@g", []any{"x"}, mocks("CD")...),
	)))
	i := 0
	a.Blackboard().Set("s", "x")
	if n := testing.AllocsPerRun(1000, func() {
		i++
		a.Blackboard().Set("k", i%4)
		a.Tick(time.Duration(i) * time.Millisecond)
	}); n != 0 {
		t.Fatalf("%v allocations per tick", n)
	}
}
