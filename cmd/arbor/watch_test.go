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
	time.Sleep(20 * time.Millisecond) // let the watcher take its first stamp
	if err := os.WriteFile(p, []byte(`{"type": "Failure", "name": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-changed:
		if got != p {
			t.Fatalf("changed %q, want %q", got, p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the change was not seen")
	}
}
