package shell

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The workspace budget and the disk floor
//
// RLIMIT_FSIZE bounds each file, not their sum: one call wrote 430 MB
// in many files under a 1 GiB per-file limit. So the supervisor, which
// already wakes every watchEvery to count processes, also measures the
// workspace (the blocks its files really occupy) and kills the command's
// whole tree once it has grown past the budget; and, where Parley has a
// free-space floor for its data directory (store.min_free_mb), once the
// filesystem fell below it while the workspace grew. Measuring rather
// than a size-limited mount (tmpfs, a loop device, quotas) because none
// of those exists without privileges or a filesystem that supports them,
// and the workspace must persist on disk between calls.
//
// What a command can write between two looks is bounded too: no file may
// exceed the budget itself (RLIMIT_FSIZE is lowered to it), and the
// overshoot of many small files is what the disk accepts in one interval
// (the default 0.1 s). A workspace that is already over its budget when a
// call starts (after such an overshoot, or a budget lowered since) may
// shrink but not grow, so the model can still delete files.

// DefaultWorkspaceBudget is Options.WorkspaceBudget's default
// (tools.shell.workspace_mb: 200).
const DefaultWorkspaceBudget = 200 << 20

// Why the supervisor killed a command for the space it used.
const (
	killedWorkspace = "workspace" // the workspace grew past its budget
	killedDisk      = "disk"      // the data directory fell below its floor
)

// spaceLimits are what the supervisor measures against.
type spaceLimits struct {
	// Budget is the workspace's size limit in bytes.
	Budget int64 `json:"budget"`
	// MinFree is the data directory's free-space floor in bytes (0: none),
	// measured on the workspace's filesystem.
	MinFree int64 `json:"min_free,omitempty"`
}

// workspaceSize is the space the files below dir occupy, in bytes:
// allocated blocks rather than apparent sizes, so a sparse file costs what
// it really takes, and a file with several links in the workspace counts
// once. Files that vanish while it walks are skipped.
func workspaceSize(dir string) int64 {
	var total int64
	seen := map[uint64]bool{}
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable or gone: count what can be counted
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			total += info.Size()
			return nil
		}
		if st.Nlink > 1 && !d.IsDir() {
			if seen[st.Ino] {
				return nil
			}
			seen[st.Ino] = true
		}
		total += st.Blocks * 512
		return nil
	})
	return total
}

// freeSpace is what an unprivileged process may still write on path's
// filesystem.
func freeSpace(path string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, fmt.Errorf("free space of %s: %w", path, err)
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// overSpace decides, from one look, whether the command must be killed
// for the space it used: "" if not, else killedWorkspace or killedDisk.
// Nothing is killed unless the workspace grew since the call started.
func overSpace(l spaceLimits, start, size int64, free uint64, freeErr error) string {
	if size <= start {
		return ""
	}
	if size > l.Budget {
		return killedWorkspace
	}
	if l.MinFree > 0 && freeErr == nil && free < uint64(l.MinFree) {
		return killedDisk
	}
	return ""
}

// spaceWatch measures the workspace at most as often as it can afford:
// a walk that took d is not repeated within 4·d, so a workspace of many
// thousands of files does not keep a core busy.
type spaceWatch struct {
	dir    string
	limits spaceLimits
	start  int64
	next   time.Time
}

func newSpaceWatch(dir string, l spaceLimits) *spaceWatch {
	return &spaceWatch{dir: dir, limits: l, start: workspaceSize(dir)}
}

// check looks once if it is time to, and says why the command must be
// killed, or "".
func (w *spaceWatch) check(now time.Time) string {
	if now.Before(w.next) {
		return ""
	}
	size := workspaceSize(w.dir)
	free, err := freeSpace(w.dir)
	w.next = now.Add(4 * time.Since(now))
	return overSpace(w.limits, w.start, size, free, err)
}

// spaceMessage is what the model reads when a command was killed for
// the space it used.
func spaceMessage(why string, l spaceLimits) string {
	if why == killedDisk {
		return fmt.Sprintf("killed: Parley's data directory fell below its free-space floor of %d MiB "+
			"(store.min_free_mb) while the command wrote; what it wrote is kept. Delete files in the workspace, "+
			"or ask the operator to free disk space", l.MinFree>>20)
	}
	return fmt.Sprintf("killed: the command grew the workspace past its budget of %d MiB "+
		"(tools.shell.workspace_mb); what it wrote is kept. Delete files in the workspace (du -sh * shows "+
		"what is large) or write less", l.Budget>>20)
}
