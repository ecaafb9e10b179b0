package arbor

import (
	"fmt"
	"testing"
	"time"
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
