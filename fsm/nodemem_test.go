package fsm

import (
	"math/rand"
	"testing"

	"github.com/arborbt/arbor"
)

// A machine state saved in a snapshot comes back as it was, and bad data
// is an error (at decoding, or when checked against the machine), never a
// panic.
func TestMachineStateData(t *testing.T) {
	m := NewMachine("Job", "Job")
	job0 := m.State("Job")
	job0.Machine("Prepare").State("Prepare").To("Act", Check("ready", "==", true))
	job0.Sub.State("Act")
	m.State("Done").SetFinal(arbor.Success)
	def, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	index := func(path string) int32 {
		for i := range def.states {
			if def.states[i].path == path {
				return int32(i)
			}
		}
		t.Fatalf("no state %s", path)
		return -1
	}
	job, act := index("Job"), index("Job/Act")
	ms := &machineState{active: []int32{job, act}, since: []int64{5, 7}, treeStatus: []arbor.Status{arbor.Invalid, arbor.Running}, now: 9}
	var got nodeMem
	if err := got.UnmarshalBinary(ms.encode()); err != nil {
		t.Fatal(err)
	}
	in, err := NewInstance(def)
	if err != nil {
		t.Fatal(err)
	}
	if err := in.restore(got.saved); err != nil || in.ActivePath() != "Job/Act" || in.since[1] != 7 || in.now != 9 {
		t.Fatalf("restore: %v, %s", err, in.ActivePath())
	}
	for _, bad := range [][]int32{{act}, {job, job}, {job, act, act}, {99}, {-1}} {
		in, _ := NewInstance(def)
		s := &machineState{active: bad, since: make([]int64, len(bad)), treeStatus: make([]arbor.Status, len(bad))}
		var n nodeMem
		if err := n.UnmarshalBinary(s.encode()); err != nil {
			continue // refused at decoding
		}
		if err := in.restore(n.saved); err == nil {
			t.Errorf("states %v restored", bad)
		}
	}
	r := rand.New(rand.NewSource(1))
	data := ms.encode()
	for i := 0; i < 20000; i++ {
		b := append([]byte(nil), data[:r.Intn(len(data)+1)]...)
		for k := range b {
			if r.Intn(4) == 0 {
				b[k] = byte(r.Intn(256))
			}
		}
		var n nodeMem
		if n.UnmarshalBinary(b) == nil && n.saved != nil {
			in, _ := NewInstance(def)
			_ = in.restore(n.saved)
		}
	}
}
