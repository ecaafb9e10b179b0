package village

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/arborbt/arbor"
)

// Blackboard keys of the villagers (their needs live on the blackboard, so
// the debugger shows them and trees may Check them) and of the monsters.
var (
	food          = arbor.NewKey[float64]("Food")
	water         = arbor.NewKey[float64]("Water")
	energy        = arbor.NewKey[float64]("Energy")
	mood          = arbor.NewKey[float64]("Mood")
	money         = arbor.NewKey[float64]("Money")
	thinking      = arbor.NewKey[string]("thinking")
	targetMovePos = arbor.NewKey[Vec]("TargetMovePos")

	hpKey        = arbor.NewKey[float64]("hp")
	enemyVisible = arbor.NewKey[bool]("enemyVisible")
	enemyDist    = arbor.NewKey[float64]("enemyDist")
)

// needs are a villager's five needs.
type needs struct{ Food, Water, Energy, Mood, Money float64 }

func readNeeds(bb *arbor.Blackboard) needs {
	var n needs
	n.Food, _ = food.Get(bb)
	n.Water, _ = water.Get(bb)
	n.Energy, _ = energy.Get(bb)
	n.Mood, _ = mood.Get(bb)
	n.Money, _ = money.Get(bb)
	return n
}

func (n needs) write(bb *arbor.Blackboard) {
	food.Set(bb, n.Food)
	water.Set(bb, n.Water)
	energy.Set(bb, n.Energy)
	mood.Set(bb, n.Mood)
	money.Set(bb, n.Money)
}

func (n needs) add(rate needs, dt float64) needs {
	return needs{n.Food + rate.Food*dt, n.Water + rate.Water*dt, n.Energy + rate.Energy*dt, n.Mood + rate.Mood*dt, n.Money + rate.Money*dt}
}

// feel is a Feel* node of village.md without its need test (the tree
// checks the needs first): it sets TargetMovePos to the villager's spot in
// its zone and a thinking line, and succeeds.
type feel struct {
	zone  int
	lines [3]string
}

// Tick implements arbor.Action.
func (f *feel) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	v := arbor.Owner[*Villager](c)
	if v == nil {
		return arbor.Failure, errors.New("the agent's owner is not a *village.Villager")
	}
	bb := c.Blackboard()
	targetMovePos.Set(bb, v.spots[f.zone])
	thinking.Set(bb, f.lines[int(v.rand()*3)%3])
	v.Zone = f.zone
	v.setAct(ActThinking)
	return arbor.Success, nil
}

// walkTo walks the villager to TargetMovePos.
type walkTo struct{}

// Tick implements arbor.Action.
func (walkTo) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	v := arbor.Owner[*Villager](c)
	if v == nil {
		return arbor.Failure, errors.New("the agent's owner is not a *village.Villager")
	}
	target, err := targetMovePos.Get(c.Blackboard())
	if err != nil {
		return arbor.Failure, nil // the internal condition: the key must be present
	}
	v.Dest, v.Moving = target, true
	if v.Pos.dist(target) < arriveRadius {
		return arbor.Success, nil
	}
	v.setAct(ActWalking)
	return arbor.Running, nil
}

// activity changes the needs at its rates until its "over" test holds.
type activity struct {
	act  int
	rate needs
	over func(n needs) bool
}

// Tick implements arbor.Action.
func (x *activity) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	v := arbor.Owner[*Villager](c)
	if v == nil {
		return arbor.Failure, errors.New("the agent's owner is not a *village.Villager")
	}
	bb := c.Blackboard()
	n := readNeeds(bb)
	if x.over(n) {
		return arbor.Success, nil
	}
	n.add(x.rate, v.world.dt).write(bb)
	v.setAct(x.act)
	return arbor.Running, nil
}

// alive drains the needs in parallel with the activities; it finishes when
// a need reaches 0 (death, which stops nothing: village.md).
type alive struct{}

var aliveRate = needs{-1, -2, -1, -1, 0}

// Tick implements arbor.Action.
func (alive) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	v := arbor.Owner[*Villager](c)
	if v == nil {
		return arbor.Failure, errors.New("the agent's owner is not a *village.Villager")
	}
	bb := c.Blackboard()
	n := readNeeds(bb)
	if n.Food <= 0 || n.Water <= 0 || n.Energy <= 0 || n.Mood <= 0 {
		if !v.Dead {
			v.Dead = true
			v.Deaths++
			thinking.Set(bb, "死亡！")
		}
		return arbor.Success, nil
	}
	v.Dead = false
	n.add(aliveRate, v.world.dt).write(bb)
	return arbor.Running, nil
}

func (v *Villager) setAct(a int) {
	if v.Act != a {
		v.Act = a
		v.Starts[a]++
	}
}

// Monster actions.

type monsterAction struct {
	run func(m *Monster) arbor.Status
}

// Tick implements arbor.Action.
func (x *monsterAction) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	m := arbor.Owner[*Monster](c)
	if m == nil {
		return arbor.Failure, errors.New("the agent's owner is not a *village.Monster")
	}
	return x.run(m), nil
}

func (m *Monster) order(dest Vec, speed float64, mode string) {
	m.Dest, m.Speed, m.Moving = dest, speed, true
	if m.Mode != mode && mode == "flee" {
		m.Flees++
	}
	m.Mode = mode
}

func flee(m *Monster) arbor.Status {
	if m.Pos.dist(m.Lair) <= stopRadius && m.HP >= healedHP {
		return arbor.Success
	}
	m.order(m.Lair, monsterFlee, "flee")
	return arbor.Running
}

func attack(m *Monster) arbor.Status {
	if m.Target < 0 {
		return arbor.Failure
	}
	m.Moving = false
	m.Mode = "attack"
	m.Attacking = m.Target
	m.Attacks++
	return arbor.Success
}

func chase(m *Monster) arbor.Status {
	if m.Target < 0 {
		return arbor.Failure
	}
	m.order(m.TargetPos, monsterChase, "chase")
	return arbor.Running
}

// moveTo walks a monster to its patrol point A or B.
type moveTo struct{ b bool }

// Tick implements arbor.Action.
func (x *moveTo) Tick(c *arbor.Ctx, _ *struct{}) (arbor.Status, error) {
	m := arbor.Owner[*Monster](c)
	if m == nil {
		return arbor.Failure, errors.New("the agent's owner is not a *village.Monster")
	}
	dest := m.A
	if x.b {
		dest = m.B
	}
	if m.Pos.dist(dest) <= stopRadius {
		m.Moving = false
		return arbor.Success, nil
	}
	m.order(dest, monsterWalk, "patrol")
	return arbor.Running, nil
}

// Register adds the village's node types to reg.
func Register(reg *arbor.Registry) error {
	type feelDef struct {
		name  string
		zone  int
		lines [3]string
	}
	feels := []feelDef{
		{"FeelBoring", 0, [3]string{"I'm bored.", "Let's go and play!", "I need some fun."}},
		{"FeelHungry", 1, [3]string{"I'm hungry.", "Time to eat.", "My stomach growls."}},
		{"FeelThirsty", 2, [3]string{"I'm thirsty.", "Water, please.", "To the river!"}},
		{"FeelTired", 3, [3]string{"I'm tired.", "Time for a nap.", "I need a rest."}},
		{"FeelPoor", 4, [3]string{"I need money.", "Back to work.", "Bills to pay."}},
	}
	var errs []error
	for _, f := range feels {
		errs = append(errs, arbor.RegisterActionFactory[struct{}](reg, f.name, []string{"zone"},
			func(p map[string]any) (arbor.Action[struct{}], error) {
				zone := f.zone
				if raw, ok := p["zone"]; ok {
					name, isStr := raw.(string)
					z, known := zoneByName(name)
					if !isStr || !known {
						return nil, fmt.Errorf("parameter \"zone\": want Playground, Restaurant, River, Home or Company")
					}
					zone = z
				}
				return &feel{zone: zone, lines: f.lines}, nil
			}))
	}
	errs = append(errs, arbor.RegisterActionFactory[struct{}](reg, "WalkTo", nil,
		func(map[string]any) (arbor.Action[struct{}], error) { return walkTo{}, nil }))
	acts := []activity{
		{ActHaveFun, needs{-3, -3, -3, 10, 0}, func(n needs) bool { return n.Food <= 28 || n.Water <= 28 || n.Energy <= 28 || n.Mood >= 80 }},
		{ActEatFood, needs{10, -4, 2, 2, -5}, func(n needs) bool { return n.Food >= 80 || n.Water <= 15 || n.Money <= 5 }},
		{ActDrinkWater, needs{-2, 10, 2, 1, -2}, func(n needs) bool { return n.Food <= 15 || n.Water >= 80 || n.Money <= 5 }},
		{ActHaveRest, needs{-1, -1, 10, 1, -1}, func(n needs) bool { return n.Food <= 10 || n.Water <= 10 || n.Energy >= 80 || n.Money <= 5 }},
		{ActWork, needs{-2, -2, -2, -10, 20}, func(n needs) bool { return n.Food <= 20 || n.Water <= 20 || n.Energy <= 20 || n.Mood <= 35 }},
		{ActOddJob, needs{0, 0, 0, -1, 20}, func(n needs) bool { return n.Money >= 60 }},
		{ActForage, needs{5, 10, 0, 0, 0}, func(n needs) bool { return n.Food >= 40 && n.Water >= 40 }},
	}
	for i := range acts {
		x := &acts[i]
		errs = append(errs, arbor.RegisterActionFactory[struct{}](reg, ActivityNames[x.act], nil,
			func(map[string]any) (arbor.Action[struct{}], error) { return x, nil }))
	}
	errs = append(errs, arbor.RegisterActionFactory[struct{}](reg, "Alive", nil,
		func(map[string]any) (arbor.Action[struct{}], error) { return alive{}, nil }))
	for name, run := range map[string]func(*Monster) arbor.Status{"Flee": flee, "Attack": attack, "Chase": chase} {
		errs = append(errs, arbor.RegisterActionFactory[struct{}](reg, name, nil,
			func(map[string]any) (arbor.Action[struct{}], error) { return &monsterAction{run: run}, nil }))
	}
	errs = append(errs, arbor.RegisterActionFactory[struct{}](reg, "MoveTo", []string{"target"},
		func(p map[string]any) (arbor.Action[struct{}], error) {
			switch p["target"] {
			case "A":
				return &moveTo{}, nil
			case "B":
				return &moveTo{b: true}, nil
			}
			return nil, fmt.Errorf("parameter \"target\": want \"A\" or \"B\"")
		}))
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("register village nodes: %w", err)
	}
	return nil
}

//go:embed villager.yaml monster.yaml
var embedded embed.FS

// Embedded returns the tree files shipped with the package.
func Embedded() fs.FS { return embedded }

// LoadTrees loads the villager and monster trees from fsys (a directory
// holding villager.yaml and monster.yaml, or .yml/.json files of those
// names), with the village's node types registered.
func LoadTrees(fsys fs.FS) (villager, monster *arbor.Tree, err error) {
	reg := arbor.NewRegistry()
	if err := Register(reg); err != nil {
		return nil, nil, err
	}
	if villager, err = loadTree(fsys, "villager", reg); err != nil {
		return nil, nil, err
	}
	if monster, err = loadTree(fsys, "monster", reg); err != nil {
		return nil, nil, err
	}
	return villager, monster, nil
}

func loadTree(fsys fs.FS, name string, reg *arbor.Registry) (*arbor.Tree, error) {
	for _, ext := range []string{".yaml", ".yml", ".json"} {
		file := name + ext
		data, err := fs.ReadFile(fsys, file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", file, err)
		}
		var doc *arbor.Document
		if arbor.IsYAMLPath(file) {
			doc, err = arbor.ParseYAML(data)
		} else {
			doc, err = arbor.ParseJSON(data)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		tree, err := arbor.Compile(doc, reg)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return tree, nil
	}
	return nil, fmt.Errorf("no %s: want %s", path.Join(".", name+".yaml"), name+".yaml, .yml or .json")
}
