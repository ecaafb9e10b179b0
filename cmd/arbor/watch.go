package main

import (
	"context"
	"os"
	"time"
)

// watchFiles calls changed(path) whenever one of paths changes on disk
// (its modification time or size), polling every interval until ctx ends.
// Polling needs no platform support and costs a stat per file per interval.
func watchFiles(ctx context.Context, paths []string, interval time.Duration, changed func(path string)) {
	type stamp struct {
		mod  time.Time
		size int64
	}
	stampOf := func(p string) stamp {
		st, err := os.Stat(p)
		if err != nil {
			return stamp{}
		}
		return stamp{st.ModTime(), st.Size()}
	}
	last := make(map[string]stamp, len(paths))
	for _, p := range paths {
		last[p] = stampOf(p)
	}
	tk := time.NewTicker(interval)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
		for _, p := range paths {
			if s := stampOf(p); s != last[p] {
				last[p] = s
				changed(p)
			}
		}
	}
}
