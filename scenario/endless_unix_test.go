//go:build unix

package scenario_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/arborbt/arbor/scenario"
)

// TestEndlessFiles: a treeFile, a scenario file or a directory entry that
// never ends (a device, a pipe) is a failure, not a hang: every read stops
// at the 16 MiB limit, and the directory walk skips pipes.
func TestEndlessFiles(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "zero.json")
	if err := os.WriteFile(file, []byte(`{"name": "zero", "treeFile": "/dev/zero", "ticks": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.json"), 0o644); err != nil {
		t.Logf("no pipe: %v", err)
	}
	done := make(chan string, 1)
	go func() {
		var out strings.Builder
		sum, err := scenario.RunPaths(&out, []string{dir, "/dev/zero"}, false)
		done <- fmt.Sprintf("%+v %v\n%s", sum, err, out.String())
	}()
	select {
	case got := <-done:
		for _, want := range []string{"{Passed:0 Failed:2}", "load /dev/zero: file is over the limit", "FAIL /dev/zero\n    file is over the limit"} {
			if !strings.Contains(got, want) {
				t.Errorf("want %q in:\n%s", want, got)
			}
		}
	case <-time.After(30 * time.Second):
		t.Fatal("arbor test of endless files did not end")
	}
}
