package arbor

import (
	"runtime"
	"testing"
	"time"
)

// The blackboard slots NewAgent lays out in the agent's own allocation
// hold no value once the agent's slots have moved out of it (a key of the
// agent's own, SetTree, a Restore with such keys): a value overwritten
// afterwards is not kept alive by a stale copy there.
func TestLayoutSlotsLeftHoldNothing(t *testing.T) {
	tree := compileKeys(t, Check("retain-k", "exists"))
	other := compileKeys(t, Check("retain-other", "exists"))
	type big struct{ _ [1 << 16]byte }
	for _, c := range []struct {
		name string
		move func(a *Agent)
	}{
		{"own key", func(a *Agent) { a.Blackboard().Set("retain-own", 1) }},
		{"SetTree", func(a *Agent) { a.SetTree(other) }},
		{"Restore", func(a *Agent) {
			b := NewAgent(tree)
			b.Blackboard().Set("retain-own2", 2)
			snap, err := b.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Restore(snap); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		a := NewAgent(tree)
		freed := make(chan struct{})
		obj := &big{}
		runtime.SetFinalizer(obj, func(*big) { close(freed) })
		a.Blackboard().Set("retain-k", obj)
		obj = nil
		c.move(a)
		a.Blackboard().Set("retain-k", 0)
		gone := false
		for k := 0; k < 20 && !gone; k++ {
			runtime.GC()
			select {
			case <-freed:
				gone = true
			case <-time.After(10 * time.Millisecond):
			}
		}
		if !gone {
			t.Errorf("%s: the value overwritten is still reachable (a stale slot in the agent's allocation)", c.name)
		}
		runtime.KeepAlive(a)
	}
}
