// Command monster runs the monster of monster.yaml against a scripted hero
// and prints what happens on each tick:
//
//	go run ./examples/monster
//
// The monster is a hierarchical state machine, Alive{Calm, Alert, Combat}
// → Dead (package fsm), whose Combat state runs the behavior tree Fight:
// flee when hurt, bite when in reach, else chase. The game writes the
// monster's hp and the distance to the hero to the instance's blackboard
// before each update; the machine's transitions read them like Check
// nodes, and so does the tree, which shares the blackboard.
package main

import (
	_ "embed"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/fsm"
)

//go:embed monster.yaml
var monsterYAML []byte

// sightRange is how far the monster sees: beyond it, enemyDist is absent.
const sightRange = 15

// Monster is the owner of the machine's instance: its callbacks and the
// Fight tree's actions reach it through the instance's owner.
type Monster struct {
	x, hp  float64
	hero   *Hero
	events []string // what happened during the current tick
}

// Hero is the monster's scripted opponent.
type Hero struct{ x, hp float64 }

func (m *Monster) say(format string, args ...any) {
	m.events = append(m.events, fmt.Sprintf(format, args...))
}

func (m *Monster) dist() float64 { return math.Abs(m.hero.x - m.x) }

// moveToward moves the monster by step toward x (away from it when step
// is negative), stopping at reach.
func (m *Monster) moveToward(x, step, reach float64) {
	d := x - m.x
	dir := math.Copysign(1, d)
	if step > 0 && math.Abs(d)-step < reach {
		step = math.Max(0, math.Abs(d)-reach)
	}
	m.x += dir * step
}

// The Fight tree's actions.

// Chase runs toward the hero until the tree pre-empts it.
type Chase struct{}

// Tick moves one step.
func (Chase) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	m := arbor.Owner[*Monster](c)
	m.moveToward(m.hero.x, 1, 1)
	m.say("chases the hero")
	return arbor.Running, nil
}

// Bite winds up for a tick, then bites.
type Bite struct {
	Damage float64 `arbor:"damage,default=4"`
}

type biteMem struct{ windingUp bool }

// Start begins the wind-up.
func (b *Bite) Start(c *arbor.Ctx, _ *biteMem) error {
	arbor.Owner[*Monster](c).say("bares its teeth")
	return nil
}

// Tick bites on the second tick.
func (b *Bite) Tick(c *arbor.Ctx, mem *biteMem) (arbor.Status, error) {
	if !mem.windingUp {
		mem.windingUp = true
		return arbor.Running, nil
	}
	m := arbor.Owner[*Monster](c)
	m.hero.hp -= b.Damage
	m.say("BITES the hero (hero hp %g)", m.hero.hp)
	return arbor.Success, nil
}

// Halt is called when the bite is pre-empted or the Combat state exits.
func (b *Bite) Halt(c *arbor.Ctx, _ *biteMem) {
	arbor.Owner[*Monster](c).say("bite interrupted")
}

// Flee runs away from the hero.
type Flee struct{}

// Tick moves one step away.
func (Flee) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	m := arbor.Owner[*Monster](c)
	m.moveToward(m.hero.x, -1.5, 0)
	m.say("flees")
	return arbor.Running, nil
}

// Halt is called when the monster stops fleeing.
func (Flee) Halt(c *arbor.Ctx, _ *struct{}) { arbor.Owner[*Monster](c).say("stops fleeing") }

// The machine's named callbacks.
var callbacks = fsm.Funcs{Calls: map[string]func(*fsm.Ctx){
	"wander": func(c *fsm.Ctx) {
		if m := fsm.Owner[*Monster](c); m.x != 0 {
			m.moveToward(0, 1, 0)
			m.say("wanders back to its lair")
		}
	},
	"sniff":    func(c *fsm.Ctx) { fsm.Owner[*Monster](c).say("sniffs the air") },
	"roar":     func(c *fsm.Ctx) { fsm.Owner[*Monster](c).say("ROARS") },
	"dropLoot": func(c *fsm.Ctx) { fsm.Owner[*Monster](c).say("drops 12 gold") },
	"collapse": func(c *fsm.Ctx) { fsm.Owner[*Monster](c).say("collapses") },
}}

// heroAct moves the hero by the script and lets it strike when close.
func heroAct(tick int, h *Hero, m *Monster) {
	switch {
	case tick <= 2: // far away
	case tick <= 5: // comes closer, within sight
		h.x -= 4
	case tick <= 9: // thinks better of it and leaves
		h.x += 6
	case tick <= 12: // comes back running
		h.x -= 7
	case tick <= 23: // fights: steps in and strikes
		if d := h.x - m.x; math.Abs(d) > 1 {
			h.x -= math.Copysign(math.Min(1, math.Abs(d)-1), d)
		}
	case tick <= 29: // lets the wounded monster run, then hunts it down
	default:
		if d := h.x - m.x; math.Abs(d) > 1 {
			h.x -= math.Copysign(math.Min(3, math.Abs(d)-1), d)
		}
	}
	if tick > 12 && math.Abs(h.x-m.x) <= 2 {
		m.hp--
		m.say("is struck by the hero")
	}
}

// run plays the scene, printing to w.
func run(w io.Writer) error {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterAction[Chase, struct{}](reg, "Chase"); err != nil {
		return err
	}
	if err := arbor.RegisterAction[Bite, biteMem](reg, "Bite"); err != nil {
		return err
	}
	if err := arbor.RegisterAction[Flee, struct{}](reg, "Flee"); err != nil {
		return err
	}
	doc, err := fsm.ParseYAML(monsterYAML)
	if err != nil {
		return fmt.Errorf("monster.yaml: %w", err)
	}
	def, err := doc.Compile("Monster", reg, fsm.WithFuncs(callbacks))
	if err != nil {
		return err
	}
	for _, warning := range def.Warnings() {
		fmt.Fprintln(w, "warning:", warning)
	}

	hero := &Hero{x: 20, hp: 30}
	monster := &Monster{hp: 8, hero: hero}
	inst, err := fsm.NewInstance(def, fsm.WithOwner(monster), fsm.WithTracer(func(_ *fsm.Instance, e fsm.Event) {
		switch e.Kind {
		case fsm.EventTransition:
			monster.say("[%s → %s]", e.State, e.Target)
		default:
			monster.say("[%s %s]", e.Kind, e.State)
		}
	}))
	if err != nil {
		return err
	}
	hp := arbor.NewKey[float64]("hp")
	dist := arbor.NewKey[float64]("enemyDist")
	bb := inst.Blackboard()

	fmt.Fprintln(w, "tick  time   hero  monster hp  state          what happens")
	for tick := 1; tick <= 40; tick++ {
		now := time.Duration(tick) * 250 * time.Millisecond
		monster.events = monster.events[:0]
		heroAct(tick, hero, monster)
		hp.Set(bb, monster.hp)
		if d := monster.dist(); d <= sightRange {
			dist.Set(bb, d)
		} else {
			dist.Delete(bb)
		}
		status := inst.Update(now)
		fmt.Fprintf(w, "%4d %5.2fs %6.1f %6.1f %3g  %-14s %s\n", tick, now.Seconds(), hero.x, monster.x, monster.hp,
			inst.ActivePath(), strings.Join(monster.events, "; "))
		if status != arbor.Running {
			fmt.Fprintf(w, "the monster's machine ended: %s (mood %s)\n", status, bb.Value("mood"))
			inst.Stop()
			return nil
		}
	}
	return nil
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "monster:", err)
		os.Exit(1)
	}
}
