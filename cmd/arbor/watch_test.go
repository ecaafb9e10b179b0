package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestWatchFilesSeesChanges(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "tree.json")
	if err := os.WriteFile(p, []byte(`{"type": "Success"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan string, 4)
	go watchFiles(ctx, []string{p}, 5*time.Millisecond, func(path string) { changed <- path })
	// Keep changing the file (the size changes each time) until the
	// watcher, whose first stamp may come after any one write, reports it.
	deadline := time.After(10 * time.Second)
	content := `{"type": "Failure"}`
	for {
		content += " "
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-changed:
			if got != p {
				t.Fatalf("changed %q, want %q", got, p)
			}
			return
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatal("the change was not seen")
		}
	}
}
