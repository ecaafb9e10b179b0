package arbor_test

import (
	"fmt"

	"github.com/arborbt/arbor"
)

// Retry is a user decorator: it ticks its child and, after a failure,
// tries again on the next tick, up to Times attempts.
type Retry struct {
	Times int `arbor:"times,default=3"`
}

type retryMem struct{ failures int }

func (r *Retry) Tick(_ *arbor.Ctx, m *retryMem, kids arbor.Children) (arbor.Status, error) {
	if s := kids.Tick(0); s != arbor.Failure {
		return s, nil
	}
	if m.failures++; m.failures < r.Times {
		return arbor.Running, nil
	}
	return arbor.Failure, nil
}

// A decorator written in Go: RegisterDecorator (one child) and
// RegisterControl (one or more) take types whose Tick receives the
// node's children.
func ExampleRegisterDecorator() {
	reg := arbor.NewRegistry()
	if err := arbor.RegisterDecorator[Retry, retryMem](reg, "Retry"); err != nil {
		fmt.Println(err)
		return
	}
	attempts := 0
	if err := reg.ActionFunc("OpenDoor", func(*arbor.Ctx) (arbor.Status, error) {
		if attempts++; attempts == 1 {
			return arbor.Failure, nil // stuck the first time
		}
		return arbor.Success, nil
	}); err != nil {
		fmt.Println(err)
		return
	}
	doc, err := arbor.ParseJSON([]byte(`{"format": "arbor/1", "trees": {"main":
		{"type": "Retry", "times": 5, "child": {"type": "OpenDoor"}}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, err := arbor.Compile(doc, reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	agent := arbor.NewAgent(tree)
	fmt.Println(agent.Tick(0), agent.Tick(0))
	// Output: running success
}
