package storetest

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/internal/changes"
)

var kbSyncTests = []test{
	{"SyncDir", testSyncDir},
	{"WatchDirs", testWatchDirs},
}

func writeFile(t *testing.T, path, text string, mtime time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

func sources(t *testing.T, b *kb.Base) []string {
	t.Helper()
	docs, err := b.List(context.Background(), []string{"operator"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range docs {
		out = append(out, d.Source)
	}
	slices.Sort(out)
	return out
}

// SyncDir picks up new, changed and deleted files; unchanged files are not
// read again; hidden folders and unsupported files are passed over.
func testSyncDir(t *testing.T, s suite) {
	b := KeywordBase(t, s.fresh(t))
	ctx := t.Context()
	dir := filepath.Join(t.TempDir(), "docs")
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	writeFile(t, filepath.Join(dir, "a.md"), "# A\nalpha\n", t0)
	writeFile(t, filepath.Join(dir, "sub", "b.txt"), "bravo\n", t0)
	writeFile(t, filepath.Join(dir, ".git", "config"), "secret\n", t0)
	writeFile(t, filepath.Join(dir, "logo.png"), "\x89PNG\r\n\x1a\n\x00\x00\x00", t0)

	r, err := b.SyncDir(ctx, "operator", dir)
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.ToSlash(dir)
	if got, want := sources(t, b), []string{src + "/a.md", src + "/sub/b.txt"}; !slices.Equal(got, want) {
		t.Fatalf("after the first sync: %v, want %v", got, want)
	}
	if r.Count(kb.Added) != 2 || len(r.Skipped()) != 1 || r.Skipped()[0].Source != src+"/logo.png" {
		t.Fatalf("report: added %d, skipped %+v", r.Count(kb.Added), r.Skipped())
	}

	// Change a, delete b, add c; leave logo.
	writeFile(t, filepath.Join(dir, "a.md"), "# A\nalpha two\n", t0.Add(time.Minute))
	os.Remove(filepath.Join(dir, "sub", "b.txt"))
	writeFile(t, filepath.Join(dir, "c.go"), "package c\n\nfunc ParseModelRef() {}\n", t0)
	r, err = b.SyncDir(ctx, "operator", dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sources(t, b), []string{src + "/a.md", src + "/c.go"}; !slices.Equal(got, want) {
		t.Fatalf("after changes: %v, want %v", got, want)
	}
	if r.Count(kb.Replaced) != 1 || r.Count(kb.Added) != 1 || r.Removed() != 1 {
		t.Fatalf("report: replaced %d, added %d, removed %d", r.Count(kb.Replaced), r.Count(kb.Added), r.Removed())
	}
	if got, _ := b.Search(ctx, []string{"operator"}, "two", 5); len(got) != 1 || got[0].Source != src+"/a.md" {
		t.Fatalf("the changed document's new text: %v", Cites(got))
	}
	if got, _ := b.Search(ctx, []string{"operator"}, "bravo", 5); len(got) != 0 {
		t.Fatalf("a deleted file is still found: %v", Cites(got))
	}

	// Nothing changed: nothing is read again (its mtime says so).
	r, err = b.SyncDir(ctx, "operator", dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Count(kb.Unchanged) != 2 || r.Count(kb.Added)+r.Count(kb.Replaced)+r.Removed() != 0 {
		t.Fatalf("a sync with no change: %+v", r.Events)
	}
	// Another folder's documents, and other scopes', are not touched.
	other := filepath.Join(t.TempDir(), "other")
	writeFile(t, filepath.Join(other, "x.md"), "xray\n", t0)
	if _, err := b.SyncDir(ctx, "operator", other); err != nil {
		t.Fatal(err)
	}
	if _, err := b.SyncDir(ctx, "operator", dir); err != nil {
		t.Fatal(err)
	}
	if got := sources(t, b); len(got) != 3 {
		t.Fatalf("syncing one folder removed another's documents: %v", got)
	}
}

// WatchDirs syncs at start and again when files change.
func testWatchDirs(t *testing.T, s suite) {
	db := s.fresh(t)
	needKeywordIndex(t, db)
	feed := changes.New()
	b := kb.New(kb.Config{Store: db})
	dir := filepath.Join(t.TempDir(), "docs")
	writeFile(t, filepath.Join(dir, "a.md"), "alpha\n", time.Now())

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- b.WatchDirs(ctx, "operator", []string{dir}, kb.WatchOptions{
			Settle: 10 * time.Millisecond,
			Synced: func(string, kb.SyncReport, error) { feed.Notify() },
		})
	}()
	wait := func(what string, cond func() bool) {
		t.Helper()
		wctx, wcancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer wcancel()
		if err := feed.WaitFor(wctx, cond); err != nil {
			t.Fatalf("%s: %v (have %v)", what, err, sources(t, b))
		}
	}
	src := filepath.ToSlash(dir)
	wait("the first sync", func() bool { return slices.Equal(sources(t, b), []string{src + "/a.md"}) })
	writeFile(t, filepath.Join(dir, "new", "b.md"), "bravo\n", time.Now())
	wait("a file in a new folder", func() bool { return slices.Contains(sources(t, b), src+"/new/b.md") })
	os.Remove(filepath.Join(dir, "a.md"))
	wait("a deleted file", func() bool { return !slices.Contains(sources(t, b), src+"/a.md") })
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
