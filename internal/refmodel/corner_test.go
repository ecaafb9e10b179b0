package refmodel

import (
	"testing"

	"github.com/arborbt/arbor"
	"github.com/arborbt/arbor/internal/treegen"
)

// cornerDocs are hand-written documents for what the generators make
// rarely or never: list and map values compared with ==, a lone leaf or
// decorator as the root, guards inside guards, chains of lower and both
// observers through several levels and subtrees, observers under
// parallels and repeats.
func cornerDocs() map[string]*arbor.Document {
	act := func(r string, n int) *arbor.Node { return arbor.Leaf(treegen.ActType, "r", r, "n", n) }
	cond := func(k string) *arbor.Node { return arbor.Leaf(treegen.CondType, "key", k) }
	one := func(root *arbor.Node) *arbor.Document {
		return &arbor.Document{Main: "main", Trees: map[string]*arbor.Node{"main": root}}
	}
	docs := map[string]*arbor.Document{
		"lists": one(arbor.Sequence(
			arbor.Set("a", []any{1, "x", []any{true}}),
			arbor.Set("b", map[string]any{"k": 1.0}),
			arbor.Selector(arbor.Check("a", "==", "{b}"), arbor.Check("a", "!=", "{c}"), act("rx", 2)),
			arbor.Check("b", "==", "{b}"),
			act("r0", 3))),
		"leaf root":      one(act("r1", 2)),
		"decorator root": one(arbor.Timeout(120e6, act("r2", 5))),
		"guard in guard": one(arbor.Selector(
			act("r0", 2).WithGuard(arbor.Sequence(cond("a").WithGuard(cond("b")), cond("c"))),
			act("rx", 3))),
		"lower chain": {Main: "main", Trees: map[string]*arbor.Node{
			"main": arbor.Sequence(
				arbor.Selector(
					arbor.Sequence(cond("a"), arbor.SubTree("inner")).WithAbort(arbor.AbortLower),
					act("rx", 2)).WithAbort(arbor.AbortLower),
				arbor.Selector(arbor.ForceFailure(cond("b")), act("r1", 4)).WithAbort(arbor.AbortBoth),
				act("rx", 6)).WithAbort(arbor.AbortLower),
			"inner": arbor.Selector(arbor.ForceFailure(cond("c")), act("rx", 1)).WithAbort(arbor.AbortBoth),
		}},
		"both chain": one(arbor.Selector(
			arbor.Sequence(
				arbor.Sequence(arbor.ForceSuccess(cond("a")), act("rx", 1)).WithAbort(arbor.AbortBoth),
				arbor.Sequence(arbor.ForceSuccess(cond("b")), act("rx", 2)).WithAbort(arbor.AbortSelf),
				act("r0", 4)).WithAbort(arbor.AbortBoth),
			act("rx", 3)).WithAbort(arbor.AbortSelf)),
		"parallel observers": one(arbor.Sequence(
			arbor.ForceSuccess(cond("a")),
			arbor.Parallel(1, 0,
				arbor.Sequence(arbor.ForceSuccess(cond("b")), act("rx", 3)).WithAbort(arbor.AbortSelf),
				arbor.Sequence(arbor.ForceSuccess(cond("c")), act("r1", 3)).WithAbort(arbor.AbortBoth)),
			act("rx", 2)).WithAbort(arbor.AbortBoth)),
		"repeat observers": one(arbor.Repeat(0,
			arbor.SequenceWithMemory(arbor.Inverter(cond("a")), arbor.RetryUntilSuccessful(-1, arbor.Sequence(cond("b"), act("r2", 2))), act("rx", 2)).WithAbort(arbor.AbortSelf))),
	}
	return docs
}

// TestCornerDocuments runs the differential comparison of
// TestModelMatchesEngine on cornerDocs, with many input seeds each.
func TestCornerDocuments(t *testing.T) {
	reg := treegen.Registry()
	var st runStats
	for name, doc := range cornerDocs() {
		for seed := uint64(0); seed < 100; seed++ {
			if msg := runSeed(reg, doc, seed, 40, &st); msg != "" {
				t.Fatalf("%s, input seed %d: %s\ndocument:\n%s", name, seed, msg, dumpDoc(doc))
			}
		}
	}
	t.Logf("%d runs: %d events, %d observer re-evaluations, %d aborts", st.docs, st.events, st.reevals, st.aborts)
}
