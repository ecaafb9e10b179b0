package browsertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// A browser that fails to start is started again: the launcher here fails
// its first start, as Debian's did once, and Start still gives a page.
func TestStartRetries(t *testing.T) {
	real := Chromium(t)
	dir := t.TempDir()
	launcher := filepath.Join(dir, "chromium")
	script := "#!/bin/sh\n" +
		"if [ ! -e " + filepath.Join(dir, "started") + " ]; then touch " + filepath.Join(dir, "started") + "; echo 'failing for the test' >&2; exit 1; fi\n" +
		"exec " + real + " \"$@\"\n"
	if err := os.WriteFile(launcher, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CHROMIUM", launcher)
	ctx := Start(t, 400, 300)
	var width int
	Run(t, ctx, chromedp.Navigate("about:blank"), chromedp.Evaluate(`window.innerWidth`, &width))
	if width != 400 {
		t.Errorf("the page's width: %d, want 400", width)
	}
	if _, err := os.Stat(filepath.Join(dir, "started")); err != nil {
		t.Errorf("the launcher's first start did not run: %v", err)
	}
}
