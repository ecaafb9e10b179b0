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
	newWatch(tops, files).run(ctx, interval, changed)
}

// stamp is what tells a file changed.
type stamp struct {
	mod  time.Time
	size int64
}

func stampOf(p string) stamp {
	st, err := os.Stat(p)
	if err != nil {
		return stamp{}
	}
	return stamp{st.ModTime(), st.Size()}
}

// watched is a top's files and their stamps.
type watched struct {
	files  []string
	stamps []stamp
}

// watch is the state of watchFiles: the tops and their files' stamps.
type watch struct {
	tops  []string
	files func(top string) []string
	state []watched
}

// newWatch takes the stamps of the tops' files now: a change made after
// it returns is seen by run.
func newWatch(tops []string, files func(top string) []string) *watch {
	if files == nil {
		files = func(top string) []string { return []string{top} }
	}
	w := &watch{tops: tops, files: files, state: make([]watched, len(tops))}
	for i, top := range tops {
		w.state[i] = w.look(top)
	}
	return w
}

func (w *watch) look(top string) watched {
	wd := watched{files: w.files(top)}
	for _, f := range wd.files {
		wd.stamps = append(wd.stamps, stampOf(f))
	}
	return wd
}

// run polls every interval until ctx ends.
func (w *watch) run(ctx context.Context, interval time.Duration, changed func(top string)) {
	tk := time.NewTicker(interval)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
		for i, top := range w.tops {
			wd := w.state[i]
			for j, f := range wd.files {
				if stampOf(f) != wd.stamps[j] {
					w.state[i] = w.look(top)
					changed(top)
					break
				}
			}
		}
	}
}

// goWatch runs watchFiles on a goroutine of wg's.
//
// The files' first stamps are taken before goWatch returns, so that an
// edit made once it has returned (by a test that waits for the command to
// serve, say) is seen as a change.
func goWatch(wg *sync.WaitGroup, ctx context.Context, tops []string, files func(top string) []string, interval time.Duration, changed func(top string)) {
	w := newWatch(tops, files)
	wg.Add(1)
	go func() {
		defer wg.Done()
		w.run(ctx, interval, changed)
	}()
}
