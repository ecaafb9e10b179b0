package refmodel

import (
	"math/rand/v2"
	"time"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/internal/treegen"
)

// abortGen makes documents dense in conditional aborts (§7), which
// treegen's documents exercise only now and then: nested Sequences,
// SequenceWithMemorys and Selectors with every abort mode, conditions on
// the keys the inputs flip most (under decorators now and then), actions
// that run for a while, and, more rarely, reactive composites, parallels,
// decorators, guards and subtrees between them, so that observers move up
// through several levels, meet the types that drop them and are replaced.
type abortGen struct {
	r     *rand.Rand
	nodes int
	subOK bool // SubTree nodes may be made (not in the subtree itself)
}

// abortDoc returns the document of seed: a main tree and one subtree.
func abortDoc(seed uint64) *arbor.Document {
	g := &abortGen{r: rand.New(rand.NewPCG(seed, 0x61626f7274))}
	sub := g.composite(3)
	g.nodes, g.subOK = 0, true
	main := g.composite(5)
	return &arbor.Document{Main: "main", Trees: map[string]*arbor.Node{"main": main, "sub": sub}}
}

func (g *abortGen) chance(p float64) bool { return g.r.Float64() < p }

// cond makes a condition; under a Sequence (goOn success) or a Selector
// (goOn failure) it is often made to let its parent go on whatever its
// result (the observer still remembers the leaf's own result).
func (g *abortGen) cond(goOn arbor.Status) *arbor.Node {
	var n *arbor.Node
	switch x := g.r.IntN(10); {
	case x < 5:
		n = arbor.Leaf(treegen.CondType, "key", []string{"a", "b", "c"}[g.r.IntN(3)])
	case x < 7:
		n = arbor.Check([]string{"a", "b", "c"}[g.r.IntN(3)], []string{"<", ">="}[g.r.IntN(2)], 2)
	case x < 8:
		n = arbor.Check([]string{"a", "b", "@g"}[g.r.IntN(3)], []string{"exists", "missing"}[g.r.IntN(2)])
	case x < 9:
		n = arbor.AlwaysSuccess()
	default:
		n = arbor.AlwaysFailure()
	}
	switch x := g.r.IntN(20); {
	case x < 12 && goOn == arbor.Success:
		n = arbor.ForceSuccess(n)
	case x < 12 && goOn == arbor.Failure:
		n = arbor.ForceFailure(n)
	case x < 14:
		n = arbor.Inverter(n)
	case x < 15:
		n = arbor.RetryUntilSuccessful(2, n)
	case x < 17:
		// Decorators that may not tick the condition: its observer then
		// keeps its old result.
		switch g.r.IntN(3) {
		case 0:
			n = arbor.RunOnce(n)
		case 1:
			n = arbor.Limiter(1+g.r.IntN(2), n)
		default:
			n = arbor.Cooldown(time.Duration(40*g.r.IntN(4))*time.Millisecond, n)
		}
	case x < 18:
		n.Guard = arbor.Leaf(treegen.CondType, "key", "c")
	}
	return n
}

func (g *abortGen) action() *arbor.Node {
	// Act on "rx", which the inputs never write, runs for n ticks then
	// succeeds.
	r := []string{"r0", "r1", "r2", "rx", "rx", "rx"}[g.r.IntN(6)]
	switch g.r.IntN(10) {
	case 0, 1:
		return arbor.WaitTicks(1 + g.r.IntN(5))
	case 2:
		return arbor.Leaf(treegen.ActKeepType, "r", r)
	case 3:
		if g.chance(0.3) {
			return arbor.AlwaysRunning()
		}
	}
	return arbor.Leaf(treegen.ActType, "r", r, "n", 1+g.r.IntN(8))
}

func (g *abortGen) composite(depth int) *arbor.Node {
	g.nodes++
	typ := []string{"Sequence", "Selector", "SequenceWithMemory"}[g.r.IntN(3)]
	switch x := g.r.IntN(20); {
	case g.nodes == 1:
		// The root takes aborts.
	case x < 2:
		typ = []string{"ReactiveSequence", "ReactiveSelector"}[g.r.IntN(2)]
	case x < 3:
		typ = []string{"Parallel", "ParallelAll"}[g.r.IntN(2)]
	}
	n := &arbor.Node{Type: typ}
	goOn := arbor.Invalid
	switch typ {
	case "Sequence", "SequenceWithMemory", "ReactiveSequence":
		goOn = arbor.Success
	case "Selector", "ReactiveSelector":
		goOn = arbor.Failure
	}
	if typ == "Sequence" || typ == "Selector" || typ == "SequenceWithMemory" {
		n.Abort = arbor.Abort(g.r.IntN(4))
		switch {
		case g.nodes == 1:
			// A root's observers can only watch the root itself.
			n.Abort = []arbor.Abort{arbor.AbortSelf, arbor.AbortBoth}[g.r.IntN(2)]
		case g.chance(0.2):
			n.Abort = arbor.AbortNone
		}
	}
	for i, k := 0, 2+g.r.IntN(3); i < k; i++ {
		var c *arbor.Node
		x := g.r.IntN(10)
		if i == 0 && g.chance(0.7) {
			x = 7 // a leading condition
		}
		if i == k-1 && x >= 5 {
			x = 9 // ends with something that runs
		}
		switch {
		case depth > 1 && g.nodes < 30 && x < 5:
			c = g.composite(depth - 1)
			switch y := g.r.IntN(20); {
			case y < 2:
				c = arbor.Inverter(c)
			case y < 3:
				c = arbor.Repeat(2, c)
			case y < 4:
				c = arbor.RetryUntilSuccessful(-1, c)
			case y < 5:
				c = arbor.ForceFailure(c)
			case y < 6:
				c.Guard = arbor.Leaf(treegen.CondType, "key", []string{"a", "b", "c"}[g.r.IntN(3)])
			case y < 9:
				// Durations that are whole ticks of the exact clock, so
				// that the boundaries (now − start = ms) are met.
				typ := []string{"Timeout", "Delay", "Cooldown"}[y-6]
				c = &arbor.Node{Type: typ, Children: []*arbor.Node{c}, Params: map[string]any{"ms": 40 * g.r.IntN(5)}}
			}
		case g.subOK && x < 5 && g.chance(0.3):
			c = arbor.SubTree("sub")
		case x < 8:
			c = g.cond(goOn)
		default:
			c = g.action()
		}
		n.Children = append(n.Children, c)
	}
	if typ == "Parallel" {
		n.With("success", 1+g.r.IntN(len(n.Children)))
		n.With("failure", g.r.IntN(len(n.Children)+1))
		n.With("retryFailed", g.chance(0.5))
	}
	return n
}
