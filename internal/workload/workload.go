// Package workload holds the standard benchmark workloads of Arbor ("guard"
// and "wide"): the user actions they need, the deterministic driver, and
// the hand-written if/else Go equivalent that Arbor is measured against.
//
// The tree (wide adds 50 more copies of the attack branch):
//
//	ReactiveSelector
//	├── ReactiveSequence: Check(hp < 30) → Flee              (running 3 ticks, success on the 4th)
//	├── ReactiveSequence: Check(enemyVisible == true) → Check(enemyDist < 5) → Attack (success; counts)
//	├── ReactiveSequence: Check(enemyVisible == true) → Chase (running 2 ticks, success on the 3rd)
//	└── Sequence: MoveTo A (running 4, success on the 5th) → Wait{ticks:2} → MoveTo B → Wait{ticks:2}
//
// A pre-empted branch is halted: its actions' tick counters and the patrol
// position reset. Each agent i has a xorshift64 state seeded with i+1;
// before each tick three numbers r are drawn: hp = 10 + r%100,
// enemyVisible = r%4 == 0, enemyDist = r%10.
package workload

import (
	"fmt"
	"path/filepath"

	"github.com/arborbt/arbor"
)

// Names of the workloads.
const (
	Guard = "guard"
	Wide  = "wide"
)

// Copies returns how many attack branches a workload has.
func Copies(name string) (int, error) {
	switch name {
	case Guard:
		return 1, nil
	case Wide:
		return 51, nil
	}
	return 0, fmt.Errorf("unknown workload %q (guard or wide)", name)
}

// NPC is an agent's owner: the game object the tree drives.
type NPC struct {
	Attacks int64
	rng     uint64
}

// next advances the NPC's xorshift64 generator.
func (n *NPC) next() uint64 {
	x := n.rng
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	n.rng = x
	return x
}

// Seed returns the NPC of agent i.
func Seed(i int) *NPC { return &NPC{rng: uint64(i) + 1} }

// Blackboard keys of the workload.
var (
	HP           = arbor.NewKey[float64]("hp")
	EnemyVisible = arbor.NewKey[bool]("enemyVisible")
	EnemyDist    = arbor.NewKey[float64]("enemyDist")
)

// Sense draws the NPC's inputs for the next tick and writes them to the
// agent's blackboard through the typed keys.
func Sense(a *arbor.Agent) {
	n := a.Owner().(*NPC)
	bb := a.Blackboard()
	HP.Set(bb, float64(10+n.next()%100))
	EnemyVisible.Set(bb, n.next()%4 == 0)
	EnemyDist.Set(bb, float64(n.next()%10))
}

// counter is the memory of the timed actions: ticks run so far.
type counter struct{ n int32 }

// timed is an action running for a fixed number of ticks, then succeeding.
type timed struct{ running int32 }

func (t *timed) tick(m *counter) (arbor.Status, error) {
	if m.n < t.running {
		m.n++
		return arbor.Running, nil
	}
	return arbor.Success, nil
}

// Flee runs 3 ticks and succeeds on the 4th.
type Flee struct{ timed }

// Tick implements arbor.Action.
func (f *Flee) Tick(_ *arbor.Ctx, m *counter) (arbor.Status, error) { return f.tick(m) }

// Chase runs 2 ticks and succeeds on the 3rd.
type Chase struct{ timed }

// Tick implements arbor.Action.
func (c *Chase) Tick(_ *arbor.Ctx, m *counter) (arbor.Status, error) { return c.tick(m) }

// MoveTo runs 4 ticks and succeeds on the 5th.
type MoveTo struct {
	Target string `arbor:"target,required"`
	timed
}

// Tick implements arbor.Action.
func (mv *MoveTo) Tick(_ *arbor.Ctx, m *counter) (arbor.Status, error) { return mv.tick(m) }

// Register adds the workload's actions to reg.
func Register(reg *arbor.Registry) error {
	if err := reg.ActionFunc("Attack", func(c *arbor.Ctx) (arbor.Status, error) {
		arbor.Owner[*NPC](c).Attacks++
		return arbor.Success, nil
	}); err != nil {
		return err
	}
	if err := arbor.RegisterActionFactory[counter](reg, "Flee", nil, func(map[string]any) (arbor.Action[counter], error) {
		return &Flee{timed{3}}, nil
	}); err != nil {
		return err
	}
	if err := arbor.RegisterActionFactory[counter](reg, "Chase", nil, func(map[string]any) (arbor.Action[counter], error) {
		return &Chase{timed{2}}, nil
	}); err != nil {
		return err
	}
	return arbor.RegisterActionFactory[counter](reg, "MoveTo", []string{"target"}, func(p map[string]any) (arbor.Action[counter], error) {
		target, ok := p["target"].(string)
		if !ok {
			return nil, fmt.Errorf("parameter \"target\": want a string")
		}
		return &MoveTo{Target: target, timed: timed{4}}, nil
	})
}

// LoadTree loads a workload's tree from dir (testdata/bench in the
// repository) with the workload's actions registered.
func LoadTree(dir, name string) (*arbor.Tree, error) {
	if _, err := Copies(name); err != nil {
		return nil, err
	}
	reg := arbor.NewRegistry()
	if err := Register(reg); err != nil {
		return nil, err
	}
	return arbor.LoadTree(filepath.Join(dir, name+".json"), reg)
}
