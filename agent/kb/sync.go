package kb

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Files and folders on disk: `parley kb add PATH…` adds them once;
// kb.dirs keeps folders in sync (watch.go). A file's source is its path as
// the operator gave it, joined with its path inside a given folder, in
// forward slashes: what the model cites.

// FileEvent is what happened to one file while adding or syncing.
type FileEvent struct {
	Source string
	// Outcome is set when the file was ingested; Removed when its document
	// went because the file did.
	Outcome Outcome
	Removed bool
	// Err is why the file was skipped (an unsupported type, too large,
	// unreadable). Other files go on.
	Err error
}

// SyncReport counts what a sync did.
type SyncReport struct {
	Events []FileEvent
}

// Count is how many events had outcome o.
func (r SyncReport) Count(o Outcome) int {
	n := 0
	for _, e := range r.Events {
		if e.Err == nil && !e.Removed && e.Outcome == o {
			n++
		}
	}
	return n
}

// Removed is how many documents went with their files.
func (r SyncReport) Removed() int {
	n := 0
	for _, e := range r.Events {
		if e.Removed {
			n++
		}
	}
	return n
}

// Skipped are the files that could not be added, with why.
func (r SyncReport) Skipped() []FileEvent {
	var out []FileEvent
	for _, e := range r.Events {
		if e.Err != nil {
			out = append(out, e)
		}
	}
	return out
}

// AddPath adds the file or, recursively, the folder at p to scope.
// Hidden files and folders (.git) are passed over; files that cannot be
// added are reported and the rest go on.
func (b *Base) AddPath(ctx context.Context, scope, addedBy, p string) (SyncReport, error) {
	return b.walk(ctx, scope, addedBy, p, sourceOf(p, ""), false)
}

// AddPathAs is AddPath with the sources starting with as instead of p: a
// labelled set's documents keep the sources its labels name wherever the
// set lies.
func (b *Base) AddPathAs(ctx context.Context, scope, addedBy, p, as string) (SyncReport, error) {
	return b.walk(ctx, scope, addedBy, p, sourceOf(as, ""), false)
}

// SyncDir makes scope's documents from the folder dir match its files: new
// files are added, changed ones replace their document (a file whose size
// and modification time are unchanged is not read again), and documents
// whose file is gone are removed.
func (b *Base) SyncDir(ctx context.Context, scope, dir string) (SyncReport, error) {
	return b.walk(ctx, scope, "operator", dir, sourceOf(dir, ""), true)
}

// walk adds what changed under root and, with prune, forgets what is gone.
// It is long because one pass over the folder decides each file (too
// large, unchanged, changed, unreadable) against what is stored, and the
// decisions share the report it fills.
func (b *Base) walk(ctx context.Context, scope, addedBy, root, prefix string, prune bool) (SyncReport, error) {
	if err := b.Ready(); err != nil {
		return SyncReport{}, err
	}
	info, err := os.Stat(root)
	if err != nil {
		return SyncReport{}, fmt.Errorf("kb: %w", err)
	}
	var known map[string]Document
	if info.IsDir() {
		docs, err := b.cfg.Store.Documents(ctx, []string{scope})
		if err != nil {
			return SyncReport{}, err
		}
		known = map[string]Document{}
		for _, d := range docs {
			if strings.HasPrefix(d.Source, prefix+"/") {
				known[d.Source] = d
			}
		}
	}
	var report SyncReport
	seen := map[string]bool{}
	visit := func(path string, d fs.DirEntry) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		source := sourceOf(prefix, relTo(root, path))
		seen[source] = true
		fi, err := d.Info()
		if err != nil {
			report.Events = append(report.Events, FileEvent{Source: source, Err: err})
			return nil
		}
		if old, ok := known[source]; ok && prune && old.Modified.Equal(fi.ModTime().Truncate(time.Millisecond)) {
			report.Events = append(report.Events, FileEvent{Source: source, Outcome: Unchanged})
			return nil
		}
		ev := FileEvent{Source: source}
		if err := b.CheckSize(source, fi.Size()); err != nil {
			ev.Err = err
		} else if data, err := os.ReadFile(path); err != nil {
			ev.Err = err
		} else {
			doc := Document{Scope: scope, Source: source, AddedBy: addedBy, AddedByName: addedBy, Modified: fi.ModTime()}
			ing, err := b.Add(ctx, doc, "", data)
			ev.Outcome, ev.Err = ing.Outcome, err
		}
		if ev.Err != nil && errors.Is(ev.Err, ErrNoKeywordIndex) {
			return ev.Err
		}
		report.Events = append(report.Events, ev)
		return nil
	}
	if !info.IsDir() {
		if err := visit(root, fs.FileInfoToDirEntry(info)); err != nil {
			return report, err
		}
		return report, nil
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			report.Events = append(report.Events, FileEvent{Source: sourceOf(prefix, relTo(root, path)), Err: err})
			return nil
		}
		if path != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		return visit(path, d)
	})
	if err != nil {
		return report, fmt.Errorf("kb: %w", err)
	}
	if prune {
		for source, d := range known {
			if seen[source] {
				continue
			}
			if err := b.Forget(ctx, d.ID); err != nil {
				return report, err
			}
			report.Events = append(report.Events, FileEvent{Source: source, Removed: true})
		}
	}
	return report, nil
}

// sourceOf is the source of the file at rel inside a folder whose source
// is prefix (rel "" for the folder itself), in forward slashes.
func sourceOf(prefix, rel string) string {
	return filepath.ToSlash(filepath.Clean(filepath.Join(prefix, rel)))
}

func relTo(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return rel
}
