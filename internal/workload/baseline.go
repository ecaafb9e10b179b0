package workload

// Hand is the hand-written if/else Go equivalent of the workload tree for
// one agent: the plainest fast code making the same decisions. Its fields
// are the state the tree keeps: which root branch is running and the
// counters of the running actions.
type Hand struct {
	rng     uint64
	Attacks int64
	copies  int32 // attack branches (1 for guard, 51 for wide)
	branch  int8  // running root branch: none, flee, chase or patrol
	flee    int32
	chase   int32
	step    int8  // patrol: 0 MoveTo A, 1 Wait, 2 MoveTo B, 3 Wait
	count   int32 // patrol: ticks of the current step
}

const (
	none int8 = iota
	fleeing
	chasing
	patrolling
)

// NewHand returns the hand-written agent i of a workload with the given
// number of attack branches.
func NewHand(i, copies int) Hand { return Hand{rng: uint64(i) + 1, copies: int32(copies)} }

func (h *Hand) next() uint64 {
	x := h.rng
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	h.rng = x
	return x
}

// halt forgets the running branch (its counters reset), unless it is keep.
func (h *Hand) halt(keep int8) {
	if h.branch == keep {
		return
	}
	switch h.branch {
	case fleeing:
		h.flee = 0
	case chasing:
		h.chase = 0
	case patrolling:
		h.step, h.count = 0, 0
	}
	h.branch = none
}

// Tick draws the inputs and makes one decision.
func (h *Hand) Tick() {
	hp := float64(10 + h.next()%100)
	visible := h.next()%4 == 0
	dist := float64(h.next() % 10)

	if hp < 30 {
		h.halt(fleeing)
		if h.flee < 3 {
			h.flee++
			h.branch = fleeing
			return
		}
		h.flee, h.branch = 0, none
		return
	}
	if h.branch == fleeing {
		h.halt(none)
	}
	// The attack branches, in priority order (each checks its inputs).
	for i := int32(0); i < h.copies; i++ {
		if visible && dist < 5 {
			h.halt(none)
			h.Attacks++
			return
		}
	}
	if visible {
		h.halt(chasing)
		if h.chase < 2 {
			h.chase++
			h.branch = chasing
			return
		}
		h.chase, h.branch = 0, none
		return
	}
	if h.branch == chasing {
		h.halt(none)
	}
	h.branch = patrolling
	for {
		switch h.step {
		case 0, 2: // MoveTo: running 4 ticks, success on the 5th
			if h.count < 4 {
				h.count++
				return
			}
		default: // Wait{ticks: 2}
			if h.count < 2 {
				h.count++
				return
			}
		}
		h.count = 0
		if h.step == 3 {
			h.step, h.branch = 0, none
			return
		}
		h.step++
	}
}
