package refmodel

import (
	"math"
	"math/big"

	"github.com/arborbt/arbor"
)

// The random composites, RandomSelector and RandomSequence, are Arbor's
// own: the specification does not have them, the engine's package
// documentation (doc.go, "Random composites") does, and this file follows
// its text: "When an activation starts, the node draws an order of its
// children (a weighted shuffle without replacement); then it behaves
// exactly as a Selector (RandomSelector) or a Sequence (RandomSequence)
// whose children come in that order".

// isRandom reports whether n is a random composite.
func (n *node) isRandom() bool { return n.typ == "RandomSelector" || n.typ == "RandomSequence" }

// gamma is doc.go's γ.
const gamma uint64 = 0x9E3779B97F4A7C15

// mix is doc.go's "mix(z) = let z = (z ^ z>>30) · 0xBF58476D1CE4E5B9,
// z = (z ^ z>>27) · 0x94D049BB133111EB, in z ^ z>>31" (modulo 2^64).
func mix(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xBF58476D1CE4E5B9
	z ^= z >> 27
	z *= 0x94D049BB133111EB
	z ^= z >> 31
	return z
}

// seedRandom sets every random composite's generator to its seed (doc.go:
// "Seed: s = mix(B ^ mix(N + γ)), where N is the node's id ... and B is
// the seed parameter as a 64-bit two's complement integer, or without one
// the agent's id"), as when the agent gets its tree or id, and after a
// Reset ("Agent.Reset sets it back to its seed").
func (m *Model) seedRandom() {
	for _, n := range m.nodes {
		if !n.isRandom() || n.inGuard {
			continue
		}
		b := uint64(int64(m.id))
		if _, ok := n.param("seed"); ok {
			b = uint64(int64(n.num("seed", 0)))
		}
		n.life.rng = mix(b ^ mix(uint64(n.id)+gamma))
	}
}

// draw is doc.go's "A draw adds γ to the state s and returns mix(s)".
func (n *node) draw() uint64 {
	n.life.rng += gamma
	return mix(n.life.rng)
}

// intWeights are doc.go's integer weights: "W = round(w / max · 2^32)
// (halves away from zero), max being the largest weight, and at least 1
// when w > 0; without weights, W = 1 for every child".
func (n *node) intWeights() []*big.Int {
	out := make([]*big.Int, len(n.children))
	raw, ok := n.param("weights")
	if !ok {
		for i := range out {
			out[i] = big.NewInt(1)
		}
		return out
	}
	var ws []float64
	for _, v := range listOf(raw) {
		ws = append(ws, valueOf(v).f)
	}
	top := 0.0
	for _, w := range ws {
		top = math.Max(top, w)
	}
	for i, w := range ws {
		x := math.Round(w / top * (1 << 32))
		if x == 0 && w > 0 {
			x = 1
		}
		out[i] = new(big.Int).SetUint64(uint64(x))
	}
	return out
}

// drawOrder is doc.go's "Order": "let R be the children not yet placed, in
// child order, and T the sum of their W. While R holds a child of W > 0:
// if it holds exactly one, that child comes next (no draw); else draw x
// and let t = ⌊x · T / 2^64⌋; going through R's children of W > 0 in
// child order, the first whose W > t comes next, each one passed
// subtracting its W from t. The child that comes next leaves R (T
// decreases by its W). Then R's children, all of W 0, follow in child
// order."
func (m *Model) drawOrder(n *node) []int {
	w := n.intWeights()
	var r []int
	for i := range n.children {
		r = append(r, i)
	}
	var order []int
	for {
		var positive []int
		t := new(big.Int)
		total := new(big.Int)
		for _, c := range r {
			total.Add(total, w[c])
			if w[c].Sign() > 0 {
				positive = append(positive, c)
			}
		}
		if len(positive) == 0 {
			break
		}
		next := positive[0]
		if len(positive) > 1 {
			x := new(big.Int).SetUint64(n.draw())
			t.Mul(x, total)
			t.Rsh(t, 64)
			for _, c := range positive {
				if w[c].Cmp(t) > 0 {
					next = c
					break
				}
				t.Sub(t, w[c])
			}
		}
		order = append(order, next)
		for k, c := range r {
			if c == next {
				r = append(r[:k:k], r[k+1:]...)
				break
			}
		}
	}
	return append(order, r...)
}

// randomBody ticks a random composite: "exactly as a Selector
// (RandomSelector) or a Sequence (RandomSequence) whose children come in
// that order: it resumes at the running child, the order holds for the
// whole activation" (goOn: success for the sequence, failure for the
// selector, as in §3).
func (m *Model) randomBody(n *node, goOn arbor.Status) arbor.Status {
	for i := n.act.idx; i < len(n.act.order); i++ {
		n.act.idx = i
		if r := m.tick(n.children[n.act.order[i]]); r != goOn {
			return r
		}
	}
	return goOn
}

// listOf returns a list parameter's elements: a list from a file or a Go
// slice from the builder.
func listOf(raw any) []any {
	switch l := raw.(type) {
	case []any:
		return l
	case []float64:
		out := make([]any, len(l))
		for i, x := range l {
			out[i] = x
		}
		return out
	case []int:
		out := make([]any, len(l))
		for i, x := range l {
			out[i] = float64(x)
		}
		return out
	case []string:
		out := make([]any, len(l))
		for i, x := range l {
			out[i] = x
		}
		return out
	}
	panic("refmodel: a list parameter is not a list")
}
