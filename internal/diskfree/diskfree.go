// Package diskfree is the data directory's free-space floor
// (store.min_free_mb): below it Parley refuses new writes that are not
// its own bookkeeping, and says why, rather than letting one user's
// documents or files fill the disk until the database fails for
// everyone.
package diskfree

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// ErrLow is what every refusal below the floor matches (errors.Is).
var ErrLow = errors.New("low on disk space")

// Free returns the bytes an unprivileged process may still write on the
// filesystem holding path. Blocks reserved for root do not count: SQLite
// must not depend on them.
func Free(path string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, fmt.Errorf("free space of %s: %w", path, err)
	}
	return st.Bavail * uint64(st.Bsize), nil
}

// Floor is a free-space floor on the filesystem holding Path; a zero Min
// turns it off.
type Floor struct {
	Path string
	Min  uint64
	// Free measures; nil means the filesystem's own figure (Free).
	// Tests inject a full disk here.
	Free func(path string) (uint64, error)
}

// LowError is a refusal below the floor. It matches ErrLow.
type LowError struct {
	Free, Min uint64
}

func (e *LowError) Error() string {
	return fmt.Sprintf("Parley's data directory is low on disk space: %s free, below the floor of %s "+
		"(store.min_free_mb); new files and documents are refused until an operator frees space, so that "+
		"conversations and the database keep working", MiB(e.Free), MiB(e.Min))
}

// Is makes errors.Is(err, ErrLow) hold.
func (e *LowError) Is(target error) bool { return target == ErrLow }

// Check returns a *LowError when less than Min is free, and an error when
// the free space cannot be read (a write should not go ahead blind).
func (f Floor) Check() error {
	if f.Min == 0 {
		return nil
	}
	measure := f.Free
	if measure == nil {
		measure = Free
	}
	free, err := measure(f.Path)
	if err != nil {
		return err
	}
	if free < f.Min {
		return &LowError{Free: free, Min: f.Min}
	}
	return nil
}

// MiB writes a byte count for people: "512 MiB", "3.2 GiB".
func MiB(n uint64) string {
	if n >= 10<<30 {
		return fmt.Sprintf("%d GiB", n>>30)
	}
	if n >= 1<<30 {
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	}
	return fmt.Sprintf("%d MiB", n>>20)
}
