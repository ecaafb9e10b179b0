// Package browsertest drives headless Chromium for the browser tests of the
// debugger page and the village demo: it starts the browser, evaluates and
// polls JavaScript in the page, collects the page's uncaught errors and
// saves screenshots. The tests need Debian's chromium at /usr/bin/chromium
// (CI installs it), or a browser named by $CHROMIUM.
package browsertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Chromium returns the browser's path, failing the test when it is missing.
func Chromium(t testing.TB) string {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	if path == "" {
		path = "/usr/bin/chromium"
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the browser tests need Chromium at %s (apt-get install -y chromium): %v", path, err)
	}
	return path
}

// Start starts headless Chromium with a window and viewport of the given
// size; it is stopped when the test ends, and gives up after 5 minutes (a
// whole page test runs in about 40 seconds under -race on a quiet 2-core
// machine, and has taken 90 on a loaded one). A browser that fails to
// start is started again, twice at most: Debian's launcher script has
// failed so once in a few hundred starts on a busy machine (a shell test
// of the free space of /dev/shm), which says nothing of the page.
func Start(t testing.TB, width, height int) context.Context {
	t.Helper()
	for attempt := 1; ; attempt++ {
		ctx, stop, err := start(t, width, height)
		if err == nil {
			t.Cleanup(stop)
			return ctx
		}
		stop()
		if attempt == 3 {
			t.Fatalf("start chromium: %v", err)
		}
		t.Logf("start chromium (attempt %d of 3): %v", attempt, err)
	}
}

// start starts one browser; stop ends it.
func start(t testing.TB, width, height int) (ctx context.Context, stop func(), err error) {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.WindowSize(width, height),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithErrorf(func(format string, args ...any) {
		// This chromedp does not know every event newer browsers send.
		if msg := fmt.Sprintf(format, args...); !strings.Contains(msg, "could not unmarshal event") {
			t.Logf("chromedp: %s", msg)
		}
	}))
	ctx, cancelTimeout := context.WithTimeout(ctx, 5*time.Minute)
	stop = func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
	}
	return ctx, stop, chromedp.Run(ctx, chromedp.EmulateViewport(int64(width), int64(height)))
}

// Errors collects the page's uncaught JavaScript errors from now on; the
// function returned lists those seen so far.
func Errors(ctx context.Context) func() []string {
	var mu sync.Mutex
	var thrown []string
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*cdpruntime.EventExceptionThrown); ok {
			mu.Lock()
			thrown = append(thrown, e.ExceptionDetails.Error())
			mu.Unlock()
		}
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), thrown...)
	}
}

// Run runs chromedp actions, failing the test on an error.
func Run(t testing.TB, ctx context.Context, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// Eval evaluates a JavaScript expression in the page.
func Eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	var out T
	if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &out)); err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return out
}

// Slack multiplies every Wait timeout. The timeouts in the tests are what a
// quiet machine needs with room to spare; CI runs the race detector with
// other packages' tests (and their browsers) on the same two cores, and a
// check that only waits longer there should not fail.
const Slack = 3

// Click clicks the middle of the element that the CSS selector sel finds
// (scrolled into view), as a person does: at a point of the page.
// chromedp.Click holds on to the element it found, and fails ("Could not
// find node with given id") when the page redraws it before the click, as
// the agent list does with an entry whose agent changed.
func Click(t testing.TB, ctx context.Context, sel string) {
	t.Helper()
	// The middle of the element, and whether the element is what is there
	// (not moved by a redraw since its box was read, nor covered).
	at := `(() => { const e = document.querySelector(` + strconv.Quote(sel) + `); if (!e) return [];
		e.scrollIntoView({ block: 'nearest', inline: 'nearest' });
		const r = e.getBoundingClientRect(), x = r.x + r.width / 2, y = r.y + r.height / 2;
		const top = document.elementFromPoint(x, y);
		return [x, y, top && (top === e || e.contains(top)) ? 1 : 0]; })()`
	Wait(t, ctx, "an element "+sel+" to click", `(`+at+`).length > 0`, 5*time.Second)
	var xy []float64
	for try := 0; try < 40; try++ {
		// A redraw under way (a list refreshing) ends within a few
		// polls; an element covered for good is clicked where it is.
		if xy = Eval[[]float64](t, ctx, at); len(xy) == 3 && xy[2] == 1 {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if len(xy) != 3 {
		t.Fatalf("no element %s to click", sel)
	}
	Run(t, ctx, chromedp.MouseClickXY(xy[0], xy[1]))
}

// Wait polls a JavaScript expression until it is true, failing the test
// (with what) when it is still false after Slack × timeout. A poll that
// meets the page navigating (a reload the page does itself, say) counts
// as false: the next one asks the new document.
func Wait(t testing.TB, ctx context.Context, what, expr string, timeout time.Duration) {
	t.Helper()
	timeout *= Slack
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		err := chromedp.Run(ctx, chromedp.Evaluate(expr, &ok))
		if err != nil && !navigating(err) {
			t.Fatalf("%s: evaluate %s: %v", what, expr, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if err != nil {
				t.Fatalf("%s: still failing after %v: %s: %v", what, timeout, expr, err)
			}
			t.Fatalf("%s: still false after %v: %s\npage: %s", what, timeout, expr, pageState(ctx))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// navigating says whether err is DevTools' answer to an evaluation that
// the page's navigation interrupted: its document went away meanwhile.
func navigating(err error) bool {
	var e *cdproto.Error
	if !errors.As(err, &e) {
		return false
	}
	for _, m := range []string{"Inspected target navigated or closed", "Execution context was destroyed", "Cannot find context with specified id"} {
		if strings.Contains(e.Message, m) {
			return true
		}
	}
	return false
}

// pageState describes the page for a failure's message: its address, the
// element with the focus and the start of its text.
func pageState(ctx context.Context) string {
	var s string
	err := chromedp.Run(ctx, chromedp.Evaluate(`(() => {
		const el = document.activeElement;
		const focus = !el ? 'none' : el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
			(typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\s+/).join('.') : '');
		return location.href + ' · focus: ' + focus + ' · text: ' +
			(document.body ? document.body.innerText.replace(/\s+/g, ' ').slice(0, 600) : '');
	})()`, &s))
	if err != nil {
		return err.Error()
	}
	return s
}

// Screenshot saves the page as name in each of dirs (made when missing).
// A failure is logged, not fatal: screenshots are for people to look at.
func Screenshot(t testing.TB, ctx context.Context, name string, dirs ...string) {
	t.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	for _, dir := range dirs {
		err := os.MkdirAll(dir, 0o755)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), png, 0o644)
		}
		if err != nil {
			t.Logf("screenshot %s: %v", name, err)
		}
	}
}

// TickEvery calls tick(now) every interval until ctx is done, with now the
// game time of the i-th call: i × interval. It is the ticking loop of the
// servers the browser tests watch.
func TickEvery(ctx context.Context, interval time.Duration, tick func(now time.Duration)) {
	tk := time.NewTicker(interval)
	defer tk.Stop()
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
		tick(time.Duration(i) * interval)
	}
}
