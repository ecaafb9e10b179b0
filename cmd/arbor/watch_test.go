package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
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
	go watchFiles(ctx, []string{p}, nil, 5*time.Millisecond, func(path string) { changed <- path })
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

// TestWatchFilesSeesIncludes checks that editing a file a BT.CPP tree
// includes reloads the tree, and that an include added by an edit is
// watched from then on.
func TestWatchFilesSeesIncludes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	top := write("main.xml", `<root BTCPP_format="4"><include path="a.xml"/><BehaviorTree ID="M"><SubTree ID="A"/></BehaviorTree></root>`)
	write("a.xml", `<root BTCPP_format="4"><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree></root>`)
	if got := treeFiles(top); len(got) != 2 || got[0] != top || got[1] != filepath.Join(dir, "a.xml") {
		t.Fatalf("treeFiles = %q", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := make(chan string, 16)
	go watchFiles(ctx, []string{top}, treeFiles, 5*time.Millisecond, func(path string) { changed <- path })
	// Keep editing until the watcher (whose first look may come after any
	// one write) reports a change of top.
	seen := func(what string, edit func(i int)) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for i := 0; ; i++ {
			edit(i)
			select {
			case got := <-changed:
				if got != top {
					t.Fatalf("%s: changed %q, want %q", what, got, top)
				}
				return
			case <-time.After(20 * time.Millisecond):
			case <-deadline:
				t.Fatalf("%s: not seen", what)
			}
		}
	}
	seen("the included file edited", func(i int) {
		write("a.xml", `<root BTCPP_format="4"><BehaviorTree ID="A"><AlwaysFailure/></BehaviorTree></root>`+strings.Repeat(" ", i+1))
	})
	b := `<root BTCPP_format="4"><BehaviorTree ID="B"><AlwaysSuccess/></BehaviorTree></root>`
	write("b.xml", b)
	seen("an include added", func(i int) {
		write("main.xml", `<root BTCPP_format="4"><include path="a.xml"/><include path="b.xml"/><BehaviorTree ID="M"><SubTree ID="B"/></BehaviorTree></root>`+strings.Repeat(" ", i+1))
	})
	time.Sleep(50 * time.Millisecond) // the watcher has looked at the last edit
	for len(changed) > 0 {
		<-changed
	}
	seen("the added include edited", func(i int) { write("b.xml", b+strings.Repeat(" ", i+1)) })
}

// goWatch has its files' first stamps when it returns: a change made
// right after is seen (the stamps were taken on the watcher's goroutine,
// so that a file edited as soon as arbor serve said it was ready could
// count as the first version; TestDemoReloadsTreeFiles failed so under
// load).
func TestGoWatchSeesAChangeRightAfter(t *testing.T) {
	for i := 0; i < 20; i++ {
		dir := t.TempDir()
		f := filepath.Join(dir, "tree.yaml")
		if err := os.WriteFile(f, []byte("type: Success\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		seen := make(chan string, 1)
		goWatch(&wg, ctx, []string{f}, nil, 5*time.Millisecond, func(top string) {
			select {
			case seen <- top:
			default:
			}
		})
		if err := os.WriteFile(f, []byte("type: Failure\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case <-seen:
		case <-time.After(2 * time.Second):
			t.Fatalf("run %d: a change made right after goWatch returned was not seen", i)
		}
		cancel()
		wg.Wait()
	}
}
