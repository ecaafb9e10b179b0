package arbor

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
	"unsafe"
)

func compileKeys(t *testing.T, root *Node) *Tree {
	t.Helper()
	tree, err := Compile(&Document{Main: "main", Trees: map[string]*Node{"main": root}}, NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// An agent's blackboard has a slot per key its tree mentions, however many
// keys the program has named before.
func TestBlackboardSlotsFollowTheTree(t *testing.T) {
	for i := 0; i < 1000; i++ {
		NewKey[float64](fmt.Sprintf("keyindex-test-other-%d", i))
	}
	tree := compileKeys(t, Sequence(Check("keyindex-hp", ">", 0), Set("keyindex-mode", "idle")))
	a := NewAgent(tree)
	if n := len(a.bb.local); n != 2 {
		t.Fatalf("%d slots, want 2 (one per key of the tree)", n)
	}
	hp := NewKey[float64]("keyindex-hp")
	hp.Set(a.Blackboard(), 5)
	if s := a.Tick(time.Second); s != Success {
		t.Fatalf("tick: %v", s)
	}
	if v, _ := a.Blackboard().Lookup("keyindex-mode"); v != String("idle") {
		t.Errorf("mode = %v", v)
	}
}

// Keys the tree does not mention get slots of the agent's own; the tree's
// index, shared by its agents, is not changed.
func TestBlackboardKeysBeyondTheTree(t *testing.T) {
	tree := compileKeys(t, Check("keyindex-a", "==", 1))
	a, b := NewAgent(tree), NewAgent(tree)
	extra := NewKey[string]("keyindex-extra")
	extra.Set(a.Blackboard(), "x")
	a.Blackboard().Set("keyindex-more", 2.5)
	a.Blackboard().Set("keyindex-a", 1)
	if got, err := extra.Get(a.Blackboard()); err != nil || got != "x" {
		t.Errorf("extra key: %q, %v", got, err)
	}
	if v, ok := a.Blackboard().Lookup("keyindex-more"); !ok || v.String() != "2.5" {
		t.Errorf("more: %v %v", v, ok)
	}
	if _, err := extra.Get(b.Blackboard()); err == nil {
		t.Error("another agent of the tree sees the first one's extra key")
	}
	if len(tree.keys.ids) != 1 || len(b.bb.local) != 1 {
		t.Errorf("the tree's index grew: %d keys, other agent %d slots", len(tree.keys.ids), len(b.bb.local))
	}
	if s := a.Tick(time.Second); s != Success {
		t.Errorf("tree key after extras: %v", s)
	}
	entries := a.Blackboard().Entries()
	if len(entries) != 3 {
		t.Errorf("entries: %v", entries)
	}
	extra.Delete(a.Blackboard())
	if extra.Has(a.Blackboard()) {
		t.Error("deleted extra key still present")
	}
}

// Moving an agent to another tree keeps its values, whichever tree
// mentions them; so does a snapshot round trip.
func TestBlackboardKeptAcrossTreesAndSnapshots(t *testing.T) {
	t1 := compileKeys(t, Check("keyindex-p", "==", 1))
	t2 := compileKeys(t, Sequence(Check("keyindex-q", "==", 2), Check("keyindex-p", "==", 1)))
	a := NewAgent(t1)
	bb := a.Blackboard()
	bb.Set("keyindex-p", 1)
	bb.Set("keyindex-q", 2) // not t1's: an extra key
	bb.SetTTL("keyindex-r", "soon", time.Hour)
	if err := a.SetTree(t2); err != nil {
		t.Fatal(err)
	}
	if s := a.Tick(time.Second); s != Success {
		t.Errorf("t2 sees p and q: %v", s)
	}
	if len(a.bb.keys.ids) != 3 {
		t.Errorf("after SetTree: keys %v", a.bb.keys.ids)
	}
	data, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b := NewAgent(t2)
	if err := b.Restore(data); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"keyindex-p", "keyindex-q", "keyindex-r"} {
		av, _ := a.Blackboard().Lookup(k)
		bv, ok := b.Blackboard().Lookup(k)
		if !ok || !av.Equal(bv) {
			t.Errorf("%s: restored %v %v, want %v", k, bv, ok, av)
		}
	}
	if s := b.Tick(2 * time.Second); s != Success {
		t.Errorf("restored agent: %v", s)
	}
}

// Keys named by user nodes' "{key}" parameters are keys of the tree: an
// agent writing them keeps sharing the tree's index.
func TestBlackboardParamKeysBelongToTheTree(t *testing.T) {
	reg := NewRegistry()
	if err := reg.ActionFunc("keyindexAim", func(c *Ctx) (Status, error) { return Success, nil }, AnyParams()); err != nil {
		t.Fatal(err)
	}
	tree, err := Compile(&Document{Main: "main", Trees: map[string]*Node{
		"main": Leaf("keyindexAim", "at", "{keyindex-target}", "speed", 3, "shared", "{@keyindex-global}"),
	}}, reg)
	if err != nil {
		t.Fatal(err)
	}
	if tree.keys.find(internKey("keyindex-target")) < 0 {
		t.Fatalf("{keyindex-target} is not a key of the tree: %v", tree.keys.ids)
	}
	if tree.keys.find(internKey("@keyindex-global")) >= 0 {
		t.Error("a global key got an agent slot")
	}
	a := NewAgent(tree)
	a.Blackboard().Set("keyindex-target", "door")
	if a.bb.keys != tree.keys {
		t.Error("writing a parameter's key copied the tree's index")
	}
}

// An agent with many keys of its own finds them through a map, and every
// value stays where it was written, across a tree change too.
func TestBlackboardManyExtraKeys(t *testing.T) {
	t1 := compileKeys(t, Check("keyindex-many-0", "==", 0))
	a := NewAgent(t1)
	bb := a.Blackboard()
	const n = 3 * extraScan
	for i := 0; i < n; i++ {
		bb.Set(fmt.Sprintf("keyindex-many-%d", i), float64(i))
		if i == extraScan && a.bb.keys.extra != nil {
			t.Fatalf("map built at %d keys of the agent's own, want after %d", i, extraScan)
		}
	}
	if a.bb.keys.extra == nil {
		t.Fatal("no map after many keys")
	}
	check := func(when string) {
		t.Helper()
		for i := 0; i < n; i++ {
			if v, ok := a.Blackboard().Lookup(fmt.Sprintf("keyindex-many-%d", i)); !ok || !v.Equal(ValueOf(float64(i))) {
				t.Fatalf("%s: key %d = %v %v", when, i, v, ok)
			}
		}
	}
	check("written")
	t2 := compileKeys(t, Check("keyindex-many-5", "==", 5))
	if err := a.SetTree(t2); err != nil {
		t.Fatal(err)
	}
	check("after SetTree")
	if s := a.Tick(time.Second); s != Success {
		t.Errorf("t2's check: %v", s)
	}
}

// keyindexHP is a named number type: its Keys take the fast paths too.
type keyindexHP float64

// Key.Get, Has and Set have fast paths for keys of the agent's tree (Get
// and Set for number and boolean keys only). Whatever the blackboard holds
// (nothing, another kind, an expired value, a string to drop), however the
// agent came by its keys (its tree, keys of its own, another tree, a
// restored snapshot), they read and write what the general paths do.
func TestKeyFastPathsMatchTheGeneralPaths(t *testing.T) {
	const p = "keyindex-fast-"
	t1 := compileKeys(t, Sequence(Check(p+"num", "<", 1), Check(p+"flag", "==", true),
		Check(p+"named", ">", 0), Check(p+"str", "exists")))
	t2 := compileKeys(t, Check(p+"other", "==", 1)) // none of t1's keys
	num, flag, named := NewKey[float64](p+"num"), NewKey[bool](p+"flag"), NewKey[keyindexHP](p+"named")
	str, own, global := NewKey[string](p+"str"), NewKey[float64](p+"own"), NewKey[float64]("@"+p+"global")
	names := []string{p + "num", p + "flag", p + "named", p + "str", p + "own", "@" + p + "global"}
	values := []any{nil, 2.5, true, false, "text", []int{1}}

	// compareReads checks Get and Has against the general paths for every
	// handle of every key name.
	compareReads := func(what string, bb *Blackboard) {
		t.Helper()
		for _, name := range names {
			checkRead(t, what, bb, NewKey[float64](name))
			checkRead(t, what, bb, NewKey[bool](name))
			checkRead(t, what, bb, NewKey[keyindexHP](name))
			checkRead(t, what, bb, NewKey[string](name))
			checkRead(t, what, bb, NewKey[int](name))
		}
	}
	// agents returns agents whose blackboards lay the keys out in the
	// different ways an agent comes by them.
	agents := func() map[string]*Agent {
		fresh := NewAgent(t1)
		moved := NewAgent(t1)
		moved.Blackboard().Set(p+"own", 1.0)
		if err := moved.SetTree(t2); err != nil {
			t.Fatal(err)
		}
		back := NewAgent(t2)
		back.Blackboard().Set(p+"flag", true)
		if err := back.SetTree(t1); err != nil {
			t.Fatal(err)
		}
		data, err := moved.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		restored := NewAgent(t2)
		if err := restored.Restore(data); err != nil {
			t.Fatal(err)
		}
		return map[string]*Agent{"fresh": fresh, "moved to another tree": moved,
			"moved back": back, "restored": restored, "zero": {}}
	}
	for aname, a := range agents() {
		bb := a.Blackboard()
		for _, name := range names {
			for _, v := range values {
				for _, ttl := range []time.Duration{0, time.Second} {
					what := fmt.Sprintf("%s agent, %s = %v (TTL %v)", aname, name, v, ttl)
					if ttl == 0 {
						bb.Set(name, v)
					} else {
						bb.SetTTL(name, v, ttl)
					}
					compareReads(what, bb)
					bb.now += int64(2 * time.Second) // expires the TTL'd value
					compareReads(what+", expired", bb)
				}
			}
		}
	}

	// Writes: each write through Set on one agent, through the general
	// path on another laid out alike, leaves the same blackboards.
	a, b := agents(), agents()
	for aname := range a {
		for _, name := range names {
			for _, v := range values {
				a[aname].Blackboard().SetTTL(name, v, time.Second)
				b[aname].Blackboard().SetTTL(name, v, time.Second)
				bba, bbb := a[aname].Blackboard(), b[aname].Blackboard()
				num.Set(bba, 3)
				num.set(bbb, 3)
				flag.Set(bba, true)
				flag.set(bbb, true)
				named.Set(bba, 4)
				named.set(bbb, 4)
				str.Set(bba, "s")
				str.set(bbb, "s")
				own.Set(bba, 5)
				own.set(bbb, 5)
				global.Set(bba, 6)
				global.set(bbb, 6)
				if !reflect.DeepEqual(bba.local, bbb.local) || !reflect.DeepEqual(bba.keys.ids, bbb.keys.ids) ||
					!reflect.DeepEqual(bba.global.slots, bbb.global.slots) {
					t.Fatalf("%s agent, after %s = %v: Set wrote\n%+v, the general path\n%+v", aname, name, v, bba.local, bbb.local)
				}
			}
		}
	}
}

// checkRead compares k's Get and Has with the general paths on bb.
func checkRead[T any](t *testing.T, what string, bb *Blackboard, k Key[T]) {
	t.Helper()
	got, err := k.Get(bb)
	want, werr := k.get(bb)
	if !reflect.DeepEqual(got, want) || fmt.Sprint(err) != fmt.Sprint(werr) || reflect.TypeOf(err) != reflect.TypeOf(werr) {
		t.Errorf("%s: Key[%T](%q).Get = %v, %v; the general path: %v, %v", what, got, k.Name(), got, err, want, werr)
	}
	if has, want := k.Has(bb), bb.get(k.id, k.global()) != nil; has != want {
		t.Errorf("%s: Key[%T](%q).Has = %v, the general path %v", what, got, k.Name(), has, want)
	}
}

// NewAgent lays an agent out in one allocation (agentLayout): the Agent,
// its tree keys' slots, its node state and memory words. A key of its own
// moves the slots to a table of their own, leaving the node state as it
// was; SetTree gives the state of the new tree allocations of its own.
func TestAgentLayout(t *testing.T) {
	tree := compileKeys(t, Sequence(Check("layout-a", ">", 0), Check("layout-b", ">", 0), WaitTicks(3)))
	a := NewAgent(tree)
	base, size := uintptr(unsafe.Pointer(a)), tree.layout.typ.Size()
	within := func(p unsafe.Pointer, n uintptr) bool {
		return uintptr(p) >= base && uintptr(p)+n <= base+size
	}
	if len(a.bb.local) != 2 || cap(a.bb.local) != 2 || !within(unsafe.Pointer(&a.bb.local[0]), 2*unsafe.Sizeof(slot{})) {
		t.Fatalf("slots: len %d, cap %d, not in the agent's allocation", len(a.bb.local), cap(a.bb.local))
	}
	if !within(unsafe.Pointer(&a.st[0]), uintptr(len(a.st))) || !within(unsafe.Pointer(&a.mem[0]), uintptr(len(a.mem))*8) {
		t.Fatal("node state not in the agent's allocation")
	}
	a.Blackboard().Set("layout-a", 1)
	a.Blackboard().Set("layout-b", 2)
	if s := a.Tick(time.Second); s != Running {
		t.Fatalf("tick: %v", s)
	}
	st, mem := append([]uint8(nil), a.st...), append([]int64(nil), a.mem...)
	for i := range 3 * extraScan {
		a.Blackboard().Set(fmt.Sprintf("layout-own-%d", i), float64(i))
	}
	if within(unsafe.Pointer(&a.bb.local[0]), 0) {
		t.Error("the grown slots are still in the agent's allocation")
	}
	if !slices.Equal(st, a.st) || !slices.Equal(mem, a.mem) {
		t.Fatalf("new keys changed the node state: %v %v, was %v %v", a.st, a.mem, st, mem)
	}
	for i := range 3 * extraScan {
		if v, ok := a.Blackboard().Lookup(fmt.Sprintf("layout-own-%d", i)); !ok || v != Number(float64(i)) {
			t.Fatalf("own key %d: %v %v", i, v, ok)
		}
	}
	if s := a.Tick(2 * time.Second); s != Running {
		t.Fatalf("tick after new keys: %v", s)
	}
	other := compileKeys(t, Sequence(Check("layout-b", "==", 2), WaitTicks(3)))
	if err := a.SetTree(other); err != nil {
		t.Fatal(err)
	}
	if within(unsafe.Pointer(&a.st[0]), 0) || within(unsafe.Pointer(&a.bb.local[0]), 0) {
		t.Error("SetTree placed the new tree's state in the first tree's room")
	}
	if s := a.Tick(3 * time.Second); s != Running {
		t.Fatalf("tick of the new tree: %v", s)
	}
}

// Restore puts the values of the tree's keys in the agent's own slots,
// where NewAgent allocated them (a Manager's restore adds its agents, then
// restores them); the agent's own keys get slots of their own.
func TestRestoreKeepsAgentLayout(t *testing.T) {
	tree := compileKeys(t, Sequence(Check("layout-r", ">", 0), WaitTicks(3)))
	a := NewAgent(tree)
	a.Blackboard().Set("layout-r", 7)
	a.Tick(time.Second)
	data, err := a.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b := NewAgent(tree)
	slots := unsafe.SliceData(b.bb.local)
	if err := b.Restore(data); err != nil {
		t.Fatal(err)
	}
	if unsafe.SliceData(b.bb.local) != slots {
		t.Error("the restored values are not in the agent's own slots")
	}
	if v, _ := b.Blackboard().Lookup("layout-r"); v != Number(7) {
		t.Errorf("restored value %v", v)
	}
	a.Blackboard().Set("layout-r-own", "x")
	if data, err = a.Snapshot(); err != nil {
		t.Fatal(err)
	}
	if err := b.Restore(data); err != nil {
		t.Fatal(err)
	}
	if v, _ := b.Blackboard().Lookup("layout-r-own"); v != String("x") {
		t.Errorf("restored own key %v", v)
	}
	if v, _ := b.Blackboard().Lookup("layout-r"); v != Number(7) {
		t.Errorf("restored value %v after own keys", v)
	}
}
