package workload

import (
	"path/filepath"
	"testing"
	"time"
)

var benchDir = filepath.Join("..", "..", "testdata", "bench")

// Arbor and the hand-written code make the same decisions: per agent, the
// same number of attacks.
func TestArborMatchesHandWritten(t *testing.T) {
	for _, name := range []string{Guard, Wide} {
		t.Run(name, func(t *testing.T) {
			tree, err := LoadTree(benchDir, name)
			if err != nil {
				t.Fatal(err)
			}
			const n, ticks = 300, 400
			w := NewArbor(tree, n, 2)
			defer w.Manager.Close()
			w.Tick(1, ticks, 50*time.Millisecond)
			h, err := NewHands(name, n, 1)
			if err != nil {
				t.Fatal(err)
			}
			h.Tick(ticks)
			for i := 0; i < n; i++ {
				if w.NPCs[i].Attacks != h.agents[i].Attacks {
					t.Fatalf("agent %d: arbor attacked %d times, hand-written %d", i, w.NPCs[i].Attacks, h.agents[i].Attacks)
				}
			}
		})
	}
}

// The reference figure of the workload: 10,000 agents × 1,000 ticks make
// 1,000,141 attacks.
func TestReferenceAttackCount(t *testing.T) {
	h, err := NewHands(Guard, 10_000, 2)
	if err != nil {
		t.Fatal(err)
	}
	h.Tick(1000)
	if got := h.Attacks(); got != 1_000_141 {
		t.Fatalf("hand-written: %d attacks, want 1,000,141", got)
	}
	if raceEnabled {
		// 10 million Arbor agent-ticks take minutes under the race
		// detector; TestArborMatchesHandWritten checks Arbor against the
		// hand-written code per agent, and .ci/run runs this test
		// without -race as well.
		return
	}
	tree, err := LoadTree(benchDir, Guard)
	if err != nil {
		t.Fatal(err)
	}
	w := NewArbor(tree, 10_000, 2)
	defer w.Manager.Close()
	w.Tick(1, 1000, 50*time.Millisecond)
	if got := w.Attacks(); got != 1_000_141 {
		t.Fatalf("arbor: %d attacks, want 1,000,141", got)
	}
}
