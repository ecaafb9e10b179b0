package main

import (
	"context"
	"os"
	"sync"
	"time"
)

// watchFiles calls changed(top) whenever a file of one of the tops changes
// on disk (its modification time or size), polling every interval until
// ctx ends. files(top) lists the files a top is made of (itself and, for a
// BT.CPP file, those it includes); it is asked again after each change,
// since an edit may add or drop an include. A nil files means each top is
// one file. Polling needs no platform support and costs a stat per file
// per interval.
func watchFiles(ctx context.Context, tops []string, files func(top string) []string, interval time.Duration, changed func(top string)) {
	if files == nil {
		files = func(top string) []string { return []string{top} }
	}
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
	type watched struct {
		files  []string
		stamps []stamp
	}
	look := func(top string) watched {
		w := watched{files: files(top)}
		for _, f := range w.files {
			w.stamps = append(w.stamps, stampOf(f))
		}
		return w
	}
	state := make([]watched, len(tops))
	for i, top := range tops {
		state[i] = look(top)
	}
	tk := time.NewTicker(interval)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
		for i, top := range tops {
			w := state[i]
			for j, f := range w.files {
				if stampOf(f) != w.stamps[j] {
					state[i] = look(top)
					changed(top)
					break
				}
			}
		}
	}
}

// goWatch runs watchFiles on a goroutine of wg's.
func goWatch(wg *sync.WaitGroup, ctx context.Context, tops []string, files func(top string) []string, interval time.Duration, changed func(top string)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		watchFiles(ctx, tops, files, interval, changed)
	}()
}
