package arbor

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"
)

type kcLog struct {
	calls []string
	errs  []string
	tick  int
}

func kcHash(parts ...any) uint32 {
	h := fnv.New32a()
	fmt.Fprint(h, parts...)
	return h.Sum32()
}

type kcCond struct{ k string }

func (c kcCond) Check(x *Ctx) (bool, error) {
	l := x.Agent().Owner().(*kcLog)
	l.calls = append(l.calls, "C"+c.k+"@"+x.Path())
	switch kcHash(c.k, l.tick) % 8 {
	case 0, 1, 2:
		return true, nil
	case 6:
		return false, errors.New("cond error " + c.k)
	case 7:
		panic("cond panic " + c.k)
	}
	return false, nil
}

type kcAct struct{ k string }

var kcMidToggle bool

func (a kcAct) Tick(x *Ctx, m *int64) (Status, error) {
	l := x.Agent().Owner().(*kcLog)
	*m++
	l.calls = append(l.calls, fmt.Sprintf("A%s@%s#%d", a.k, x.Path(), *m))
	if kcMidToggle {
		switch kcHash(a.k, l.tick, "t") % 4 {
		case 0:
			x.Agent().SetTracer(func(*Agent, Event) {})
		case 1:
			x.Agent().SetTracer(nil)
		}
	}
	switch kcHash(a.k, l.tick, "a") % 9 {
	case 0, 1, 2:
		return Running, nil
	case 3, 4:
		return Success, nil
	case 8:
		panic("act panic")
	}
	return Failure, nil
}

// Composites that begin with plain user conditions (kidCond), ticked by a
// Manager (bare), by Agent.Tick, with a tracer (the general path), with a
// watchdog, and with a tracer switched on and off between ticks: all alike.
func TestKidCondDifferential(t *testing.T) { kcDiff(t, false) }

func TestKidCondDifferentialMidTickTracer(t *testing.T) { kcDiff(t, true) }

func kcDiff(t *testing.T, mid bool) {
	kcMidToggle = mid
	defer func() { kcMidToggle = false }()
	reg := NewRegistry()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(RegisterConditionFactory(reg, "KC", []string{"k"}, func(p map[string]any) (Condition, error) {
		return kcCond{p["k"].(string)}, nil
	}))
	must(RegisterActionFactory[int64](reg, "KA", []string{"k"}, func(p map[string]any) (Action[int64], error) {
		return kcAct{p["k"].(string)}, nil
	}))
	nk := 0
	var gen func(r *rand.Rand, depth int) *Node
	gen = func(r *rand.Rand, depth int) *Node {
		if depth == 0 || r.Intn(4) == 0 {
			nk++
			if r.Intn(2) == 0 {
				return Leaf("KC", "k", fmt.Sprint(nk))
			}
			return Leaf("KA", "k", fmt.Sprint(nk))
		}
		var kids []*Node
		if r.Intn(4) != 0 {
			nk++
			kids = append(kids, Leaf("KC", "k", fmt.Sprint(nk)))
		}
		for n := 1 + r.Intn(3); n > 0; n-- {
			kids = append(kids, gen(r, depth-1))
		}
		switch r.Intn(6) {
		case 0:
			return Selector(kids...)
		case 1:
			return SequenceWithMemory(kids...)
		case 2:
			return ReactiveSequence(kids...)
		case 3:
			return ReactiveSelector(kids...)
		case 4:
			return Inverter(Sequence(kids...))
		}
		return Sequence(kids...)
	}
	runs := 0
	for seed := int64(0); seed < 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		root := gen(r, 4)
		if root.Type == "KA" || root.Type == "KC" {
			root = Sequence(root)
		}
		tree, err := Compile(&Document{Main: "main", Trees: map[string]*Node{"main": root}}, reg)
		if err != nil {
			t.Fatal(err)
		}
		type ag struct {
			name string
			a    *Agent
			l    *kcLog
		}
		m := NewManager(WithWorkers(1))
		var ags []ag
		mk := func(name string, managed bool, opts ...AgentOption) {
			l := &kcLog{}
			opts = append(opts, WithOwner(l), WithErrorHandler(func(e *NodeError) {
				msg := e.Err.Error()
				if i := strings.Index(msg, "\n"); i >= 0 {
					msg = msg[:i]
				}
				l.errs = append(l.errs, e.Path+": "+msg)
			}))
			var a *Agent
			if managed {
				a = m.Add(tree, opts...)
			} else {
				a = NewAgent(tree, opts...)
			}
			ags = append(ags, ag{name, a, l})
		}
		mk("plain", false)
		mk("traced", false, WithTracer(func(*Agent, Event) {}))
		mk("managed", true)
		mk("watched", false, WithWatchdog(time.Hour, nil))
		mk("toggled", false)
		mk("managed-watched", true, WithWatchdog(time.Hour, nil))
		mk("managed-toggled", true)
		for tick := 1; tick <= 30; tick++ {
			for _, x := range ags {
				x.l.tick, x.l.calls, x.l.errs = tick, nil, nil
				if strings.HasSuffix(x.name, "toggled") {
					if r.Intn(2) == 0 {
						x.a.SetTracer(func(*Agent, Event) {})
					} else {
						x.a.SetTracer(nil)
					}
				}
			}
			now := time.Duration(tick) * time.Millisecond
			for _, x := range ags {
				if !slices.Contains(m.Agents(), x.a) {
					x.a.Tick(now)
				}
			}
			m.Tick(now)
			runs++
			want := ags[0]
			ws, _ := want.a.Snapshot()
			for _, x := range ags[1:] {
				xs, _ := x.a.Snapshot()
				var run, wrun []int
				for i := 0; i < tree.Len(); i++ {
					if x.a.Running(i) {
						run = append(run, i)
					}
					if want.a.Running(i) {
						wrun = append(wrun, i)
					}
				}
				switch {
				case x.a.Status() != want.a.Status():
					t.Fatalf("seed %d tick %d %s: status %v, want %v", seed, tick, x.name, x.a.Status(), want.a.Status())
				case !slices.Equal(x.l.calls, want.l.calls):
					t.Fatalf("seed %d tick %d %s: calls\n%v\nwant\n%v", seed, tick, x.name, x.l.calls, want.l.calls)
				case !slices.Equal(x.l.errs, want.l.errs):
					t.Fatalf("seed %d tick %d %s: errors\n%v\nwant\n%v", seed, tick, x.name, x.l.errs, want.l.errs)
				case !slices.Equal(run, wrun):
					t.Fatalf("seed %d tick %d %s: running %v, want %v", seed, tick, x.name, run, wrun)
				case !bytes.Equal(xs, ws):
					t.Fatalf("seed %d tick %d %s: snapshots differ", seed, tick, x.name)
				}
			}
		}
		m.Close()
	}
	t.Logf("%d ticks", runs)
}
