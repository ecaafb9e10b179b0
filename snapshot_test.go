package arbor_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// A restored agent continues exactly as the original.
func TestSnapshotRestoreContinues(t *testing.T) {
	tree := benchGuardTree(t)
	orig := arbor.NewAgent(tree)
	driveGuard(orig, 5, 37)
	orig.Blackboard().Set("list", []any{1.0, "two"})
	orig.Blackboard().SetTTL("temp", "x", time.Hour)
	data, err := orig.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	copyA := arbor.NewAgent(tree)
	if err := copyA.Restore(data); err != nil {
		t.Fatal(err)
	}
	if v := copyA.Blackboard().Value("list"); !v.Equal(arbor.ValueOf([]any{1.0, "two"})) {
		t.Fatalf("list = %v", v)
	}
	if v, ok := copyA.Blackboard().Lookup("temp"); !ok || v.String() != `"x"` {
		t.Fatalf("temp = %v %v", v, ok)
	}
	// Same inputs from here on: same results.
	a := fmt.Sprint(driveGuard(orig, 99, 200))
	b := fmt.Sprint(driveGuard(copyA, 99, 200))
	if a != b {
		t.Fatal("the restored agent diverged")
	}
}

func TestRestoreRejectsAnotherTree(t *testing.T) {
	a := arbor.NewAgent(mustCompile(t, arbor.NewRegistry(), arbor.WaitTicks(3)))
	a.Blackboard().Set("k", 1)
	a.Tick(time.Second)
	data, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	other := arbor.NewAgent(mustCompile(t, arbor.NewRegistry(), arbor.WaitTicks(4)))
	if err := other.Restore(data); !errors.Is(err, arbor.ErrTreeMismatch) {
		t.Fatalf("err = %v, want ErrTreeMismatch", err)
	}
	if err := other.Restore(data, arbor.KeepBlackboard()); err != nil {
		t.Fatal(err)
	}
	if v := other.Blackboard().Value("k"); v.String() != "1" {
		t.Fatalf("k = %v, want the blackboard kept", v)
	}
	if other.Running(0) {
		t.Fatal("the tree must start afresh")
	}
}

// opaque and unregistered are user types of blackboard values (a pointer
// inside, so no codec can be guessed); only opaque gets a codec (codecs
// are process-wide: a type of its own keeps the test right under -count).
type (
	opaque       struct{ p *int }
	unregistered struct{ p *int }
)

var _, _ = opaque{}.p, unregistered{}.p

func TestSnapshotNamesValuesWithoutCodec(t *testing.T) {
	a := arbor.NewAgent(mustCompile(t, arbor.NewRegistry(), arbor.AlwaysSuccess()))
	a.Blackboard().Set("thing", unregistered{})
	_, err := a.Snapshot()
	if err == nil || !strings.Contains(err.Error(), "arbor_test.unregistered") || !strings.Contains(err.Error(), "codec") {
		t.Fatalf("err = %v", err)
	}
	arbor.RegisterCodec("test/opaque", func(opaque) ([]byte, error) { return []byte{1}, nil },
		func([]byte) (opaque, error) { return opaque{}, nil })
	a.Blackboard().Set("thing", opaque{})
	data, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b := arbor.NewAgent(a.Tree())
	if err := b.Restore(data); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Blackboard().Value("thing").Interface().(opaque); !ok {
		t.Fatal("the value did not come back through its codec")
	}
}

// Lists and objects snapshot only when they hold JSON values: anything
// else inside would come back changed.
func TestSnapshotListsKeepTheirValues(t *testing.T) {
	tree := mustCompile(t, arbor.NewRegistry(), arbor.AlwaysSuccess())
	for _, tt := range []struct {
		v    any
		want string // error; "" = round trip
	}{
		{[]any{1.5, "a", true, nil, map[string]any{"n": 2, "l": []any{3}}}, ""},
		{[]any{opaque{}}, "element [0] is an arbor_test.opaque"},
		{map[string]any{"big": int64(1)<<60 + 1}, "element big: the integer 1152921504606846977 is not exact"},
		{map[string]any{"names": []string{"a"}}, "element names is a []string"},
	} {
		a := arbor.NewAgent(tree)
		a.Blackboard().Set("v", tt.v)
		data, err := a.Snapshot()
		if tt.want != "" {
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%v: err = %v, want %q", tt.v, err, tt.want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tt.v, err)
		}
		b := arbor.NewAgent(tree)
		if err := b.Restore(data); err != nil {
			t.Fatal(err)
		}
		if got := b.Blackboard().Value("v"); !got.Equal(arbor.ValueOf(tt.v)) {
			t.Errorf("restored %v, want %v", got, tt.v)
		}
	}
}

type fragile struct{ n int }

// A panicking codec fails the Snapshot or Restore that called it.
func TestCodecPanicsAreErrors(t *testing.T) {
	arbor.RegisterCodec("test/fragile", func(f fragile) ([]byte, error) {
		if f.n < 0 {
			panic("negative")
		}
		return []byte{byte(f.n)}, nil
	}, func(b []byte) (fragile, error) { return fragile{int(b[1])}, nil }) // b[1]: out of range
	tree := mustCompile(t, arbor.NewRegistry(), arbor.AlwaysSuccess())
	a := arbor.NewAgent(tree)
	a.Blackboard().Set("f", fragile{-1})
	if _, err := a.Snapshot(); err == nil || !strings.Contains(err.Error(), `codec "test/fragile": the encoder panicked: negative`) {
		t.Fatalf("snapshot: %v", err)
	}
	a.Blackboard().Set("f", fragile{1})
	data, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := arbor.NewAgent(tree).Restore(data); err == nil || !strings.Contains(err.Error(), "the decoder panicked") {
		t.Fatalf("restore: %v", err)
	}
}

func TestManagerSnapshotRestore(t *testing.T) {
	tree := benchGuardTree(t)
	m := arbor.NewManager(arbor.WithWorkers(2))
	defer m.Close()
	for i := 0; i < 300; i++ {
		m.Add(tree)
	}
	m.Globals().Set("@round", 7)
	m.Remove(m.Agent(3)) // ids need not be dense
	for tick := 1; tick <= 20; tick++ {
		for _, a := range m.Agents() {
			driveGuard(a, uint64(a.ID()+tick), 0)
		}
		m.Tick(time.Duration(tick) * time.Second)
	}
	var buf bytes.Buffer
	if err := m.Snapshot(&buf); err != nil {
		t.Fatal(err)
	}
	r := arbor.NewManager(arbor.WithWorkers(2))
	defer r.Close()
	if err := r.Restore(&buf, map[string]*arbor.Tree{tree.Name(): tree}); err != nil {
		t.Fatal(err)
	}
	if r.Len() != m.Len() || r.Agent(3) != nil || r.Agent(299) == nil {
		t.Fatalf("restored %d agents, want %d with the same ids", r.Len(), m.Len())
	}
	if v, _ := r.Globals().Lookup("@round", 0); v.String() != "7" {
		t.Fatalf("@round = %v", v)
	}
	for i, a := range m.Agents() {
		got := fmt.Sprint(driveGuard(r.Agents()[i], 42, 50))
		if want := fmt.Sprint(driveGuard(a, 42, 50)); got != want {
			t.Fatalf("agent %d diverged after restore", a.ID())
		}
	}
}

// A restore that fails part way (here: the second agent's tree is not
// given) leaves the manager as it was: no agents, and Add's ids unchanged.
func TestManagerFailedRestoreLeavesNoTrace(t *testing.T) {
	tree := benchGuardTree(t)
	other := mustCompile(t, arbor.NewRegistry(), arbor.WaitTicks(1))
	m := arbor.NewManager(arbor.WithWorkers(1))
	m.Add(tree)
	m.Add(other)
	var buf bytes.Buffer
	if err := m.Snapshot(&buf); err != nil {
		t.Fatal(err)
	}
	r := arbor.NewManager(arbor.WithWorkers(1))
	r.Remove(r.Add(tree)) // Add's next id is 1
	err := r.Restore(&buf, map[string]*arbor.Tree{tree.Name(): tree})
	if err == nil || !strings.Contains(err.Error(), "not given") {
		t.Fatalf("restore without the second tree: %v", err)
	}
	if r.Len() != 0 {
		t.Fatalf("%d agents after a failed restore", r.Len())
	}
	if a := r.Add(tree); a.ID() != 1 {
		t.Fatalf("Add after a failed restore gave id %d, want 1", a.ID())
	}
}

func TestRestoreRejectsGarbage(t *testing.T) {
	tree := benchGuardTree(t)
	a := arbor.NewAgent(tree)
	driveGuard(a, 1, 10)
	data, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut < len(data); cut++ {
		if err := arbor.NewAgent(tree).Restore(data[:cut]); err == nil {
			t.Fatalf("a snapshot cut at %d of %d bytes restored", cut, len(data))
		}
	}
}

// Hot reload: agents on the old tree halt their running nodes once, keep
// their blackboards and run the new tree.
func TestManagerReload(t *testing.T) {
	reg := arbor.NewRegistry()
	var halts, ticks int
	if err := arbor.RegisterAction[recorder, struct{}](reg, "Rec"); err != nil {
		t.Fatal(err)
	}
	recHalts, recTicks = &halts, &ticks
	oldTree := mustCompile(t, reg, arbor.Sequence(arbor.Leaf("Rec")))
	newTree := mustCompile(t, reg, arbor.Sequence(arbor.Check("k", "==", 1), arbor.Set("done", true)))
	other := mustCompile(t, reg, arbor.Leaf("Rec"))
	m := arbor.NewManager(arbor.WithWorkers(1))
	a, b, c := m.Add(oldTree), m.Add(oldTree), m.Add(other)
	a.Blackboard().Set("k", 1)
	m.Tick(time.Second)
	if n := m.Reload(oldTree, newTree); n != 2 {
		t.Fatalf("reloaded %d agents, want 2", n)
	}
	if halts != 2 {
		t.Fatalf("halts = %d, want 2 (one per running agent)", halts)
	}
	m.Tick(2 * time.Second)
	if a.Status() != arbor.Success || b.Status() != arbor.Failure || c.Tree() != other {
		t.Fatalf("after reload: a %v, b %v", a.Status(), b.Status())
	}
	if v := a.Blackboard().Value("done"); v.String() != "true" {
		t.Fatalf("done = %v", v)
	}
}

// Restoring into an agent that is running something halts those nodes
// first, once each, and then continues as the snapshot says.
func TestRestoreHaltsWhatWasRunning(t *testing.T) {
	reg := arbor.NewRegistry()
	var halts, ticks int
	if err := arbor.RegisterAction[recorder, struct{}](reg, "Rec"); err != nil {
		t.Fatal(err)
	}
	recHalts, recTicks = &halts, &ticks
	tree := mustCompile(t, reg, arbor.Selector(arbor.Check("go", "==", true), arbor.Leaf("Rec")))
	idle := arbor.NewAgent(tree)
	idle.Blackboard().Set("go", true)
	idle.Tick(time.Second) // succeeds at the Check: nothing running
	data, err := idle.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	busy := arbor.NewAgent(tree)
	busy.Tick(time.Second) // Rec is running
	if err := busy.Restore(data); err != nil {
		t.Fatal(err)
	}
	if halts != 1 || busy.Running(2) {
		t.Fatalf("after restore: %d halts, running %v; want 1 halt, nothing running", halts, busy.Running(2))
	}
	if s := busy.Tick(2 * time.Second); s != arbor.Success || halts != 1 {
		t.Fatalf("next tick: %v, %d halts", s, halts)
	}
	// Another tree's snapshot with KeepBlackboard: the tree starts afresh.
	other := mustCompile(t, reg, arbor.Leaf("Rec"))
	b := arbor.NewAgent(other)
	b.Tick(time.Second)
	if err := b.Restore(data, arbor.KeepBlackboard()); err != nil {
		t.Fatal(err)
	}
	if halts != 2 || b.Running(0) || b.Blackboard().Value("go").String() != "true" {
		t.Fatalf("keep blackboard: %d halts, running %v, go = %v", halts, b.Running(0), b.Blackboard().Value("go"))
	}
}

// Memory types of user actions that hold pointers (a string): without
// methods, with MarshalBinary only, and with both.
type (
	strMem     struct{ target string }
	strMemHalf struct{ target string }
	strMemBoth struct{ target string }
	strAction  struct{}
	halfAction struct{}
	bothAction struct{}
)

func (strAction) Tick(c *arbor.Ctx, m *strMem) (arbor.Status, error) {
	m.target = "gate"
	return arbor.Running, nil
}

func (halfAction) Tick(c *arbor.Ctx, m *strMemHalf) (arbor.Status, error) {
	m.target = "gate"
	return arbor.Running, nil
}

func (bothAction) Tick(c *arbor.Ctx, m *strMemBoth) (arbor.Status, error) {
	m.target += "."
	c.Blackboard().Set("target", m.target)
	return arbor.Running, nil
}

func (m *strMemHalf) MarshalBinary() ([]byte, error) { return []byte(m.target), nil }
func (m *strMemBoth) MarshalBinary() ([]byte, error) { return []byte(m.target), nil }
func (m *strMemBoth) UnmarshalBinary(b []byte) error { m.target = string(b); return nil }

// A snapshot refused for user memory names the node and the field that
// holds pointers (a string does, which is easy to miss), and memory that
// cannot be read back (no UnmarshalBinary) is refused when the snapshot is
// taken, not when it is restored.
func TestSnapshotUserMemoryWithPointers(t *testing.T) {
	reg := arbor.NewRegistry()
	for _, err := range []error{
		arbor.RegisterAction[strAction, strMem](reg, "StrAction"),
		arbor.RegisterAction[halfAction, strMemHalf](reg, "HalfAction"),
		arbor.RegisterAction[bothAction, strMemBoth](reg, "BothAction"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		typ  string
		want []string
	}{
		{"StrAction", []string{"node 2 (main.children[1], StrAction)", "*arbor_test.strMem", "field target string", "BinaryMarshaler and BinaryUnmarshaler"}},
		{"HalfAction", []string{"node 2 (main.children[1], HalfAction)", "field target string", "does not implement encoding.BinaryUnmarshaler"}},
	} {
		a := arbor.NewAgent(mustCompile(t, reg, arbor.Sequence(arbor.AlwaysSuccess(), arbor.Leaf(c.typ))))
		a.Tick(time.Second)
		_, err := a.Snapshot()
		if err == nil {
			t.Fatalf("%s: snapshot taken", c.typ)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.typ, err, w)
			}
		}
	}
	tree := mustCompile(t, reg, arbor.Sequence(arbor.AlwaysSuccess(), arbor.Leaf("BothAction")))
	a := arbor.NewAgent(tree)
	a.Tick(time.Second)
	a.Tick(2 * time.Second)
	data, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b := arbor.NewAgent(tree)
	if err := b.Restore(data); err != nil {
		t.Fatal(err)
	}
	b.Tick(3 * time.Second)
	if v := b.Blackboard().Value("target"); v.String() != `"..."` {
		t.Fatalf("after the restore the memory held %v, want \"...\"", v)
	}
}
