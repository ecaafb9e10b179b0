package arbor_test

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/arborbt/arbor"
)

func TestWatchdogReportsSlowTicks(t *testing.T) {
	reg := arbor.NewRegistry()
	if err := reg.ActionFunc("Slow", func(*arbor.Ctx) (arbor.Status, error) {
		time.Sleep(20 * time.Millisecond)
		return arbor.Success, nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := reg.ActionFunc("Fast", func(*arbor.Ctx) (arbor.Status, error) { return arbor.Success, nil }); err != nil {
		t.Fatal(err)
	}
	var slow []*arbor.NodeError
	a := arbor.NewAgent(mustCompile(t, reg, arbor.Sequence(arbor.Leaf("Fast"), arbor.Leaf("Slow"))),
		arbor.WithWatchdog(time.Millisecond, func(e *arbor.NodeError) { slow = append(slow, e) }))
	if s := a.Tick(time.Second); s != arbor.Success {
		t.Fatalf("status %v: the watchdog must not change results", s)
	}
	var se *arbor.SlowError
	if len(slow) != 1 || slow[0].Path != "main.children[1]" || !errors.As(slow[0].Err, &se) || se.Elapsed < se.Budget {
		t.Fatalf("reports %v", slow)
	}
}

// Node errors logged by default are rate-limited.
func TestDefaultErrorLogIsRateLimited(t *testing.T) {
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	defer slog.SetDefault(old)
	a := arbor.NewAgent(mustCompile(t, arbor.NewRegistry(), arbor.Leaf(arbor.ErrorType, "message", "boom")))
	for i := 0; i < 200; i++ {
		a.Tick(time.Duration(i) * time.Millisecond)
	}
	if n := strings.Count(buf.String(), "boom"); n == 0 || n > 20 {
		t.Fatalf("%d of 200 errors logged, want a few (at most 10 a second)", n)
	}
}
