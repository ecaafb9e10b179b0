// Package village is the world of `arbor demo`: the village of the shared
// spec's village.md (villagers with needs Food, Water, Energy, Mood and
// Money walking between coloured zones to eat, drink, rest, play and work)
// with a pack of monsters running the guard tree (flee / attack / chase /
// patrol) in the same world. The trees are the files villager.yaml and
// monster.yaml beside this package, loaded at start (LoadTrees); a copy is
// embedded for when the directory is not at hand.
//
// The world's physics (walking, sensing, the monsters' hits) run between
// ticks, on the goroutine that steps the world; only the behaviour trees
// tick in parallel, each agent touching its own villager or monster.
package village

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/arborbt/arbor"
)

// Vec is a position on the ground plane (x, z), in world units.
type Vec struct{ X, Z float64 }

// String formats the position, as the debugger's blackboard panel shows it.
func (v Vec) String() string { return fmt.Sprintf("(%.2f, %.2f)", v.X, v.Z) }

func (v Vec) sub(w Vec) Vec       { return Vec{v.X - w.X, v.Z - w.Z} }
func (v Vec) add(w Vec) Vec       { return Vec{v.X + w.X, v.Z + w.Z} }
func (v Vec) scale(f float64) Vec { return Vec{v.X * f, v.Z * f} }
func (v Vec) len() float64        { return math.Hypot(v.X, v.Z) }
func (v Vec) dist(w Vec) float64  { return v.sub(w).len() }
func (v Vec) rotate(rad float64) Vec {
	s, c := math.Sincos(rad)
	return Vec{v.X*c - v.Z*s, v.X*s + v.Z*c}
}

// Zone is a coloured area of the village.
type Zone struct {
	Name   string  `json:"name"`
	Colour string  `json:"colour"`
	Centre Vec     `json:"centre"`
	W      float64 `json:"w"` // extent along x
	H      float64 `json:"h"` // extent along z
}

// Zones are the zones of the village, at the positions of village.md. The spec gives the sizes of
// the playground and the river; the others are 6 × 5.
var Zones = []Zone{
	{Name: "Playground", Colour: "#4caf50", Centre: Vec{0, 0}, W: 15, H: 12},
	{Name: "Restaurant", Colour: "#e53935", Centre: Vec{-16.61, 0}, W: 6, H: 5},
	{Name: "River", Colour: "#81d4fa", Centre: Vec{0.18, 11.82}, W: 40, H: 3},
	{Name: "Home", Colour: "#ffffff", Centre: Vec{0.22, -10.78}, W: 6, H: 5},
	{Name: "Company", Colour: "#fdd835", Centre: Vec{14.88, 0}, W: 6, H: 5},
}

func zoneByName(name string) (int, bool) {
	for i, z := range Zones {
		if strings.EqualFold(z.Name, name) {
			return i, true
		}
	}
	return 0, false
}

// lairs are where the monsters live, outside the village.
var lairs = []Vec{{-25, 15.5}, {25, 15.5}, {25.5, -8}, {-25.5, -8}, {-12, -16}, {12, -16}}

// World bounds (the canvas shows this rectangle).
const (
	worldMinX, worldMaxX = -28.0, 28.0
	worldMinZ, worldMaxZ = -18.0, 18.0
)

// Movement and combat constants.
const (
	walkSpeed     = 15.0 // villagers, u/s (village.md)
	arriveRadius  = 1.0  // WalkTo succeeds within this distance
	stopRadius    = 0.5  // movement stops within this distance
	monsterWalk   = 5.0  // patrol speed
	monsterChase  = 8.0
	monsterFlee   = 10.0
	sightRadius   = 6.0
	hitMood       = 6.0 // per second of attack, on the villager
	hitEnergy     = 3.0
	hitBack       = 25.0 // hp per second a monster loses while attacking
	regenHP       = 1.0  // hp per second
	regenHPAtLair = 5.0
	healedHP      = 90.0 // a fleeing monster rests at its lair until this
	jitterNeeds   = 20.0 // villagers start with needs in [100-jitterNeeds, 100]
)

// Activities, as shown in the world view.
const (
	ActThinking = iota // between activities, choosing
	ActWalking
	ActHaveFun
	ActEatFood
	ActDrinkWater
	ActHaveRest
	ActWork
	ActOddJob
	ActForage
	numActs
)

// ActivityNames names the activities by index.
var ActivityNames = [numActs]string{"thinking", "walking", "HaveFun", "EatFood", "DrinkWater", "HaveRest", "Work", "OddJob", "Forage"}

// Villager is the owner object of a villager agent.
type Villager struct {
	ID     int
	Pos    Vec
	Dest   Vec  // where the last WalkTo ordered it to go
	Moving bool // a move order is active (it outlives the WalkTo node, as in the original)
	Act    int  // current activity
	Zone   int  // zone of the last need felt
	Dead   bool
	Deaths int
	Starts [numActs]int // activity starts
	spots  [5]Vec       // its own spot in each zone
	agent  *arbor.Agent
	rng    uint64
	world  *World
}

// Monster is the owner object of a monster agent.
type Monster struct {
	ID        int
	Pos       Vec
	HP        float64
	Lair      Vec
	A, B      Vec // patrol points
	Mode      string
	Dest      Vec
	Speed     float64
	Moving    bool
	Target    int // nearest visible villager, or -1
	TargetPos Vec
	Attacking int // villager hit this tick, or -1
	Attacks   int
	Flees     int
	agent     *arbor.Agent
	world     *World
}

// Config configures a World.
type Config struct {
	Villagers int     // default 200
	Monsters  int     // default 6; -1 for none
	Seed      uint64  // default 1
	TickRate  float64 // ticks per second of game time (default 20)
	Workers   int     // manager workers (default GOMAXPROCS)
	// Uniform starts every villager as village.md does: all needs 100, at
	// the spawn point, walking to zone centres. By default each villager
	// starts with needs of its own and walks to a spot of its own in each
	// zone, so that 200 villagers do not move as one.
	Uniform bool
}

// World is the village: its agents, their owners and the clock.
type World struct {
	cfg       Config
	m         *arbor.Manager
	Villagers []*Villager
	Monsters  []*Monster
	tick      int
	dt        float64
	step      time.Duration
	rng       uint64
	hits      int          // attack ticks so far
	ticks     atomic.Int64 // tick, readable from any goroutine

	viewers  atomic.Int32 // world views connected: snapshots are built only then
	snapshot atomic.Pointer[[]byte]
	notifyMu sync.Mutex
	notify   chan struct{}
}

// Ticker runs the world's ticks: *debug.Session, or Plain(manager).
type Ticker interface {
	TickWith(now time.Duration, before func(*arbor.Agent))
	Do(fn func(m *arbor.Manager))
}

// Plain returns a Ticker that ticks m directly, for runs without a debugger.
func Plain(m *arbor.Manager) Ticker { return plain{m} }

type plain struct{ m *arbor.Manager }

// TickWith ticks the manager.
func (p plain) TickWith(now time.Duration, before func(*arbor.Agent)) { p.m.TickWith(now, before) }

// Do runs fn with the manager.
func (p plain) Do(fn func(m *arbor.Manager)) { fn(p.m) }

// New builds the world: the villagers (agent ids 0 to Villagers-1) and then
// the monsters, in a new manager.
func New(cfg Config, villager, monster *arbor.Tree) *World {
	if cfg.Villagers <= 0 {
		cfg.Villagers = 200
	}
	switch {
	case cfg.Monsters == 0:
		cfg.Monsters = 6
	case cfg.Monsters < 0:
		cfg.Monsters = 0
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.TickRate <= 0 {
		cfg.TickRate = 20
	}
	var opts []arbor.ManagerOption
	if cfg.Workers > 0 {
		opts = append(opts, arbor.WithWorkers(cfg.Workers))
	}
	w := &World{cfg: cfg, m: arbor.NewManager(opts...), dt: 1 / cfg.TickRate, rng: cfg.Seed*0x9E3779B97F4A7C15 | 1,
		notify: make(chan struct{})}
	w.step = time.Duration(float64(time.Second) / cfg.TickRate)
	spawn := Vec{0, -3.037}
	for i := 0; i < cfg.Villagers; i++ {
		v := &Villager{ID: i, Pos: spawn, world: w, rng: (cfg.Seed+uint64(i))*0x2545F4914F6CDD1D | 1, Zone: -1}
		start := needs{100, 100, 100, 100, 100}
		if !cfg.Uniform {
			v.Pos = spawn.add(Vec{v.rand()*8 - 4, v.rand()*4 - 2})
			j := func() float64 { return 100 - jitterNeeds*v.rand() }
			start = needs{j(), j(), j(), j(), j()}
		}
		for z, zone := range Zones {
			v.spots[z] = zone.Centre
			if !cfg.Uniform {
				v.spots[z] = zone.Centre.add(Vec{(v.rand() - 0.5) * zone.W * 0.8, (v.rand() - 0.5) * zone.H * 0.8})
			}
		}
		v.agent = w.m.Add(villager, arbor.WithOwner(v))
		start.write(v.agent.Blackboard())
		thinking.Set(v.agent.Blackboard(), "…")
		w.Villagers = append(w.Villagers, v)
	}
	for i := 0; i < cfg.Monsters; i++ {
		lair := lairs[i%len(lairs)]
		if i >= len(lairs) {
			lair = lair.add(Vec{float64(i/len(lairs)) * 1.5, 0})
		}
		mo := &Monster{ID: cfg.Villagers + i, Pos: lair, HP: 100, Lair: lair, world: w, Target: -1, Attacking: -1, Mode: "patrol",
			A: lair.scale(0.45).rotate(0.35), B: lair.scale(0.45).rotate(-0.35)}
		mo.agent = w.m.Add(monster, arbor.WithOwner(mo))
		w.Monsters = append(w.Monsters, mo)
	}
	w.sense()
	return w
}

// Manager returns the world's manager.
func (w *World) Manager() *arbor.Manager { return w.m }

// Ticks returns the number of ticks run; it may be called from any
// goroutine.
func (w *World) Ticks() int { return int(w.ticks.Load()) }

// TickDuration returns the game time between ticks.
func (w *World) TickDuration() time.Duration { return w.step }

// rand returns a number in [0, 1) from the villager's own generator.
func (v *Villager) rand() float64 { return xorshift(&v.rng) }

func xorshift(s *uint64) float64 {
	x := *s
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*s = x
	return float64(x>>11) / (1 << 53)
}

// Step runs one frame: movement, then sensing (between ticks), then one
// tick of every agent, then the monsters' hits.
func (w *World) Step(t Ticker) {
	t.Do(func(*arbor.Manager) {
		w.move()
		w.sense()
	})
	w.tick++
	w.ticks.Store(int64(w.tick))
	t.TickWith(time.Duration(w.tick)*w.step, nil)
	t.Do(func(*arbor.Manager) {
		w.resolve()
		if w.viewers.Load() > 0 {
			w.publish()
		}
	})
	w.wake()
}

// moveTowards moves p towards dest by at most d, stopping at stopRadius.
func moveTowards(p, dest Vec, d float64) (Vec, bool) {
	off := dest.sub(p)
	l := off.len()
	if l <= stopRadius {
		return p, false
	}
	if d >= l-stopRadius/2 {
		return dest.sub(off.scale(stopRadius / 2 / l)), false
	}
	return p.add(off.scale(d / l)), true
}

// move applies the move orders of the last tick.
func (w *World) move() {
	for _, v := range w.Villagers {
		if v.Moving {
			v.Pos, v.Moving = moveTowards(v.Pos, v.Dest, walkSpeed*w.dt)
		}
	}
	for _, m := range w.Monsters {
		if m.Moving {
			m.Pos, m.Moving = moveTowards(m.Pos, m.Dest, m.Speed*w.dt)
		}
	}
}

// sense writes each monster's inputs: hp, and the nearest villager in
// sight (villagers at Home are hidden).
func (w *World) sense() {
	home := Zones[3]
	for _, m := range w.Monsters {
		best, bestD := -1, sightRadius
		for i, v := range w.Villagers {
			if math.Abs(v.Pos.X-home.Centre.X) < home.W/2 && math.Abs(v.Pos.Z-home.Centre.Z) < home.H/2 {
				continue
			}
			if d := v.Pos.dist(m.Pos); d < bestD {
				best, bestD = i, d
			}
		}
		regen := regenHP
		if m.Pos.dist(m.Lair) < 1 {
			regen = regenHPAtLair
		}
		m.HP = math.Min(100, m.HP+regen*w.dt)
		bb := m.agent.Blackboard()
		hpKey.Set(bb, math.Round(m.HP*10)/10)
		enemyVisible.Set(bb, best >= 0)
		m.Target = best
		if best >= 0 {
			m.TargetPos = w.Villagers[best].Pos
			enemyDist.Set(bb, math.Round(bestD*100)/100)
		} else {
			enemyDist.Delete(bb)
		}
	}
}

// resolve applies the monsters' attacks of this tick.
func (w *World) resolve() {
	for _, m := range w.Monsters {
		if m.Attacking < 0 {
			continue
		}
		v := w.Villagers[m.Attacking]
		m.Attacking = -1
		m.HP = math.Max(0, m.HP-hitBack*w.dt)
		w.hits++
		bb := v.agent.Blackboard()
		n := readNeeds(bb)
		n.Mood -= hitMood * w.dt
		n.Energy -= hitEnergy * w.dt
		n.write(bb)
	}
}

// wake tells the world views that a frame passed.
func (w *World) wake() {
	w.notifyMu.Lock()
	close(w.notify)
	w.notify = make(chan struct{})
	w.notifyMu.Unlock()
}

func (w *World) changed() <-chan struct{} {
	w.notifyMu.Lock()
	defer w.notifyMu.Unlock()
	return w.notify
}

// Label describes an agent for the debugger's list. Call it between ticks.
func (w *World) Label(a *arbor.Agent) string {
	switch o := a.Owner().(type) {
	case *Villager:
		n := readNeeds(a.Blackboard())
		state := ActivityNames[o.Act]
		if o.Dead {
			state = "dead"
		} else if o.Act == ActWalking && o.Zone >= 0 {
			state = "walking to " + Zones[o.Zone].Name
		}
		return fmt.Sprintf("villager %d · %s · food %.0f water %.0f energy %.0f mood %.0f money %.0f",
			o.ID, state, n.Food, n.Water, n.Energy, n.Mood, n.Money)
	case *Monster:
		return fmt.Sprintf("monster %d · %s · hp %.0f", o.ID-w.cfg.Villagers, o.Mode, o.HP)
	}
	return ""
}

// Summary is what a run did.
type Summary struct {
	Ticks       int
	GameTime    time.Duration
	Wall        time.Duration
	Villagers   int
	Monsters    int
	Started     map[string]int // activity starts over the run
	Now         map[string]int // villagers per current activity
	Deaths      int            // times a villager's need reached 0
	DeadNow     int
	Attacks     int // monster attack ticks
	Flees       int // monster flights
	TicksPerSec float64
}

// Summary reports the run so far; wall is the time it took.
func (w *World) Summary(wall time.Duration) Summary {
	s := Summary{Ticks: w.tick, GameTime: time.Duration(w.tick) * w.step, Wall: wall, Villagers: len(w.Villagers),
		Monsters: len(w.Monsters), Started: map[string]int{}, Now: map[string]int{}, Attacks: w.hits}
	for _, v := range w.Villagers {
		for i, n := range v.Starts {
			if i >= ActHaveFun && n > 0 {
				s.Started[ActivityNames[i]] += n
			}
		}
		s.Now[ActivityNames[v.Act]]++
		s.Deaths += v.Deaths
		if v.Dead {
			s.DeadNow++
		}
	}
	for _, m := range w.Monsters {
		s.Flees += m.Flees
	}
	if wall > 0 {
		s.TicksPerSec = float64(w.tick) / wall.Seconds()
	}
	return s
}

// roundWall rounds a wall time for display: to the millisecond, or for
// short runs to the microsecond (a 40 ms run is not "0s").
func roundWall(d time.Duration) time.Duration {
	if d < time.Second {
		return d.Round(time.Microsecond)
	}
	return d.Round(time.Millisecond)
}

// Write prints the summary for terminals and CI logs.
func (s Summary) Write(out io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "village: %d villagers, %d monsters, %d ticks (%v of game time) in %v: %.0f ticks/s\n",
		s.Villagers, s.Monsters, s.Ticks, s.GameTime, roundWall(s.Wall), s.TicksPerSec)
	fmt.Fprintf(&b, "activities started: %s\n", counts(s.Started, ActivityNames[ActHaveFun:]))
	fmt.Fprintf(&b, "doing now: %s\n", counts(s.Now, ActivityNames[:]))
	fmt.Fprintf(&b, "deaths: %d (dead now: %d)\n", s.Deaths, s.DeadNow)
	fmt.Fprintf(&b, "monsters: %d attack ticks, %d flights\n", s.Attacks, s.Flees)
	_, err := io.WriteString(out, b.String())
	if err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}

// counts formats "a 3, b 0, ..." in the given order, then any other keys.
func counts(m map[string]int, order []string) string {
	var parts []string
	seen := map[string]bool{}
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		seen[k] = true
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
