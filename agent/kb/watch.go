package kb

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// WatchOptions tune WatchDirs.
type WatchOptions struct {
	// Settle is how long a folder must be quiet after a change before it
	// is synced, so a file being written is read once, whole (default
	// 1 s).
	Settle time.Duration
	// Rescan syncs every folder this often whatever the notifications
	// said: a safety net for changes they miss (network file systems,
	// folders created while the watch was being set up). Default 10 min.
	Rescan time.Duration
	// Synced, if set, is called after each sync of a folder.
	Synced func(dir string, r SyncReport, err error)
}

// WatchDirs keeps scope's documents in step with the folders dirs until ctx
// ends: each folder is synced at once, then again when files in it change
// (fsnotify), and every Rescan.
func (b *Base) WatchDirs(ctx context.Context, scope string, dirs []string, o WatchOptions) error {
	if o.Settle <= 0 {
		o.Settle = time.Second
	}
	if o.Rescan <= 0 {
		o.Rescan = 10 * time.Minute
	}
	sync := func(dir string) {
		r, err := b.SyncDir(ctx, scope, dir)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			b.cfg.Logger.Error("knowledge base: sync folder", "dir", dir, "err", err)
		} else if added, changed, removed := r.Count(Added), r.Count(Replaced), r.Removed(); added+changed+removed > 0 || len(r.Skipped()) > 0 {
			b.cfg.Logger.Info("knowledge base: folder synced", "dir", dir, "added", added, "changed", changed, "removed", removed, "skipped", len(r.Skipped()))
			for _, s := range r.Skipped() {
				b.cfg.Logger.Warn("knowledge base: file skipped", "source", s.Source, "err", s.Err)
			}
		}
		if o.Synced != nil {
			o.Synced(dir, r, err)
		}
	}

	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	abs := make([]string, len(dirs))
	for i, d := range dirs {
		abs[i], _ = filepath.Abs(d)
		watchTree(w, abs[i], b)
		sync(d)
	}

	dirty := map[int]bool{}
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	rescan := time.NewTicker(o.Rescan)
	defer rescan.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					watchTree(w, ev.Name, b) // a new subfolder
				}
			}
			for i, d := range abs {
				if ev.Name == d || strings.HasPrefix(ev.Name, d+string(filepath.Separator)) {
					dirty[i] = true
				}
			}
			settle.Reset(o.Settle)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			b.cfg.Logger.Warn("knowledge base: watching folders", "err", err)
		case <-settle.C:
			for i := range dirty {
				sync(dirs[i])
			}
			clear(dirty)
		case <-rescan.C:
			for _, d := range dirs {
				sync(d)
			}
		}
	}
}

// watchTree watches dir and the folders under it (fsnotify watches one
// level), except hidden ones, as the sync passes over them.
func watchTree(w *fsnotify.Watcher, dir string, b *Base) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if err := w.Add(p); err != nil {
			b.cfg.Logger.Warn("knowledge base: cannot watch folder", "dir", p, "err", err)
		}
		return nil
	})
}
