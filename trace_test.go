package arbor_test

import (
	"slices"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

// traceOf ticks a once per now in nows and returns the events of the last
// tick as "label:kind[:status]".
func traceOf(a *arbor.Agent, events *[]string, nows ...time.Duration) []string {
	for _, now := range nows {
		*events = (*events)[:0]
		a.Tick(now)
	}
	return *events
}

func eventRecorder(events *[]string) arbor.Tracer {
	return func(a *arbor.Agent, e arbor.Event) {
		s := a.Tree().Node(int(e.Node)).Label() + ":" + e.Kind.String()
		if e.Kind == arbor.EventResult || e.Kind == arbor.EventEval {
			s += ":" + e.Status.String()
		}
		*events = append(*events, s)
	}
}

// A guard's nodes report their evaluation (EventEval), children before
// parents, and nodes a composite did not need are not evaluated; a guard
// never emits start, result or halt events.
func TestGuardEvalEvents(t *testing.T) {
	guard := arbor.Selector(arbor.Check("a", "==", 1).Named("a1"), arbor.Check("b", "==", 1).Named("b1")).Named("either")
	tree := mustCompile(t, arbor.NewRegistry(), arbor.Sequence(arbor.WaitTicks(5).Named("wait").WithGuard(guard)).Named("root"))
	for _, tc := range []struct {
		a, b int
		want []string
	}{
		{1, 0, []string{"root:start", "a1:eval:success", "either:eval:success", "wait:start", "wait:result:running", "root:result:running"}},
		{0, 1, []string{"root:start", "a1:eval:failure", "b1:eval:success", "either:eval:success", "wait:start", "wait:result:running", "root:result:running"}},
		{0, 0, []string{"root:start", "a1:eval:failure", "b1:eval:failure", "either:eval:failure", "root:result:failure"}},
	} {
		var events []string
		a := arbor.NewAgent(tree, arbor.WithTracer(eventRecorder(&events)))
		a.Blackboard().Set("a", tc.a)
		a.Blackboard().Set("b", tc.b)
		if got := traceOf(a, &events, time.Second); !slices.Equal(got, tc.want) {
			t.Errorf("a=%d b=%d:\n got %q\nwant %q", tc.a, tc.b, got, tc.want)
		}
	}

	// A running node whose guard turns false is halted: the guard's
	// evaluation comes first.
	var events []string
	a := arbor.NewAgent(tree, arbor.WithTracer(eventRecorder(&events)))
	a.Blackboard().Set("a", 1)
	a.Tick(time.Second)
	a.Blackboard().Set("a", 0)
	want := []string{"a1:eval:failure", "b1:eval:failure", "either:eval:failure", "wait:halt", "root:result:failure"}
	if got := traceOf(a, &events, 2*time.Second); !slices.Equal(got, want) {
		t.Errorf("guard turning false:\n got %q\nwant %q", got, want)
	}
}

// A condition re-evaluated by its observer (conditional abort) reports
// the evaluation before the abort it causes.
func TestObserverEvalEvents(t *testing.T) {
	tree := mustCompile(t, arbor.NewRegistry(), arbor.Selector(
		arbor.Sequence(arbor.Check("enemy", "==", true).Named("enemy?"), arbor.WaitTicks(9).Named("fight")).
			WithAbort(arbor.AbortLower).Named("combat"),
		arbor.WaitTicks(9).Named("patrol"),
	).Named("root"))
	var events []string
	a := arbor.NewAgent(tree, arbor.WithTracer(eventRecorder(&events)))
	a.Blackboard().Set("enemy", false)
	a.Tick(time.Second)
	if got := traceOf(a, &events, 2*time.Second); !slices.Contains(got, "enemy?:eval:failure") {
		t.Errorf("observer unchanged: want an evaluation of enemy?, got %q", got)
	}
	a.Blackboard().Set("enemy", true)
	got := traceOf(a, &events, 3*time.Second)
	// The abort names the watched composite: the Selector whose lower
	// child is pre-empted.
	eval, abort := slices.Index(got, "enemy?:eval:success"), slices.Index(got, "root:abort")
	if eval < 0 || abort < 0 || eval > abort {
		t.Errorf("observer changed: want enemy?:eval:success before root:abort, got %q", got)
	}
	if got[len(got)-1] != "root:result:running" {
		t.Errorf("the tick should end with the root running, got %q", got)
	}
}
