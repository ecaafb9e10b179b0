package village

import (
	"context"
	"time"
)

// RunHeadless runs ticks frames as fast as it can, without a debugger or a
// clock, and returns the summary.
func RunHeadless(w *World, ticks int) Summary {
	t := Plain(w.m)
	start := time.Now()
	for i := 0; i < ticks; i++ {
		w.Step(t)
	}
	return w.Summary(time.Since(start))
}

// Run steps the world at its tick rate on the wall clock until ctx ends.
// ticks > 0 stops after that many frames.
func Run(ctx context.Context, w *World, t Ticker, ticks int) {
	tk := time.NewTicker(w.step)
	defer tk.Stop()
	for n := 0; ticks <= 0 || n < ticks; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
		w.Step(t)
	}
}
