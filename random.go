package arbor

import (
	"math"
	"math/bits"
	"reflect"
	"time"
)

// The random composites, RandomSelector and RandomSequence: Arbor's own
// (the specification does not have them; doc.go specifies them, down to
// the generator, so that draws are reproducible across versions).
//
// Memory of a random composite with k children, at node.mem:
//
//	word 0          the position in the order to resume at (activation)
//	words 1 .. k    the order drawn for the activation: child indexes (activation)
//	word 1 + k      the generator's state (life-long; seeded per agent)
//
// node.flag tells a seed parameter, node.b holds it; nodeMeta.weights the
// integer weights (nil: equal).

// golden is splitmix64's increment (2^64 / φ, odd).
const golden = 0x9E3779B97F4A7C15

// mix64 is splitmix64's output function.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// randomSeed is the generator's first state for node i with base b (the
// seed parameter, or the agent's id).
func randomSeed(b uint64, i int32) uint64 { return mix64(b ^ mix64(uint64(i)+golden)) }

func isRandomKind(k kind) bool { return k == kRandomSelector || k == kRandomSequence }

// randomWords returns the activation and life-long memory words of a
// random composite with nk children.
func randomWords(nk int) (act, life int32) { return 1 + int32(nk), 1 }

// seedRandom sets the generator state of every random composite of the
// agent's tree from its seed parameter or the agent's id: when the agent
// gets its tree or its id, and when Reset has cleared its memory.
func (a *Agent) seedRandom() {
	if a.tree == nil {
		return
	}
	for _, i := range a.tree.random {
		n := &a.tree.nodes[i]
		b := uint64(int64(a.id))
		if n.flag {
			b = uint64(n.b)
		}
		a.mem[n.mem+n.actW] = int64(randomSeed(b, i))
	}
}

// drawOrder draws the order of random composite i (n) for an activation
// that starts: a weighted shuffle without replacement (doc.go). The
// children still to place are kept at the positions after p, in child
// order; a child drawn from among them moves to p, the ones it passed
// shift by one.
func (a *Agent) drawOrder(i int32, n *node) {
	nk := len(n.kids)
	order := a.mem[n.mem+1 : n.mem+1+int32(nk)]
	for p := range order {
		order[p] = int64(p)
	}
	state := &a.mem[n.mem+n.actW]
	w := a.tree.meta[i].weights
	if w == nil {
		// Every weight is 1: the walk lands on the t-th child left.
		for p := 0; p < nk-1; p++ {
			s := uint64(*state) + golden
			*state = int64(s)
			t, _ := bits.Mul64(mix64(s), uint64(nk-p))
			j := p + int(t)
			c := order[j]
			copy(order[p+1:j+1], order[p:j])
			order[p] = c
		}
		return
	}
	var total uint64 // the positive weights not placed: sum, count
	left := 0
	for _, x := range w {
		if x > 0 {
			total += x
			left++
		}
	}
	for p := 0; left > 0; p++ {
		var t uint64
		if left > 1 {
			s := uint64(*state) + golden
			*state = int64(s)
			t, _ = bits.Mul64(mix64(s), total)
		}
		j := p
		for ; ; j++ {
			if x := w[order[j]]; x > 0 {
				if t < x {
					break
				}
				t -= x
			}
		}
		c := order[j]
		copy(order[p+1:j+1], order[p:j])
		order[p] = c
		total -= w[c]
		left--
	}
}

// random ticks RandomSelector and RandomSequence: Selector and Sequence
// over the order drawn when the activation starts.
func (a *Agent) random(i int32, n *node, starting bool) Status {
	if starting {
		a.drawOrder(i, n)
	}
	cont := Success
	if n.kind == kRandomSelector {
		cont = Failure
	}
	cur := &a.mem[n.mem]
	order := a.mem[n.mem+1 : n.mem+n.actW]
	for k := int(*cur); k < len(n.kids); k++ {
		s := a.tick(n.kids[order[k]])
		if s == cont {
			continue
		}
		if s == Running {
			*cur = int64(k)
		}
		return s
	}
	return cont
}

// randomParams compiles the parameters of a random composite with nk
// children: weights (the integer weights in meta) and seed.
func (c *compiler) randomParams(p *proto, pr *paramReader, nk int) {
	if pr.has("seed") {
		p.n.flag = true
		p.n.b = pr.count("seed", 0, false, func(int64) bool { return true }, "")
		if x, ok := goInteger(pr.def.Params["seed"]); ok {
			// A Go integer from the builder, exactly (the parameters are
			// normalized to float64, exact only up to 2^53).
			p.n.b = x
		}
	}
	raw, ok := pr.get("weights")
	if !ok {
		return
	}
	ws, ok := numberList(raw)
	if !ok {
		pr.errf("weights", "want a list of numbers ≥ 0, one per child, got %s", describe(raw))
		return
	}
	if len(ws) != nk {
		pr.errf("weights", "%d weights for %d children: give one per child", len(ws), nk)
		return
	}
	var max float64
	for k, w := range ws {
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
			pr.errf("weights", "weights[%d] is %v: a weight is a number ≥ 0", k, w)
			return
		}
		max = math.Max(max, w)
	}
	if max == 0 {
		pr.errf("weights", "every weight is 0: at least one must be positive")
		return
	}
	p.meta.weights = scaleWeights(ws, max)
}

// goInteger returns a Go integer as a 64-bit two's complement integer
// (a uint64 beyond math.MaxInt64 wraps); false for any other value.
func goInteger(v any) (int64, bool) {
	if _, ok := v.(time.Duration); ok {
		return 0, false // milliseconds in parameters
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return int64(rv.Uint()), true
	}
	return 0, false
}

// scaleWeights returns the integer weights: round(w / max · 2^32), at
// least 1 for a positive weight (doc.go).
func scaleWeights(ws []float64, max float64) []uint64 {
	out := make([]uint64, len(ws))
	for k, w := range ws {
		x := uint64(math.Round(w / max * (1 << 32)))
		if x == 0 && w > 0 {
			x = 1
		}
		out[k] = x
	}
	return out
}

// numberList converts a list parameter to numbers: a list from a file
// ([]any of numbers) or a Go slice of numbers from the builder.
func numberList(raw any) ([]float64, bool) {
	if raw == nil {
		return nil, false
	}
	v := reflect.ValueOf(raw)
	if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
		return nil, false
	}
	out := make([]float64, v.Len())
	for k := range out {
		x := ValueOf(v.Index(k).Interface())
		if x.kind != KindNumber {
			return nil, false
		}
		out[k] = x.num
	}
	return out, true
}
