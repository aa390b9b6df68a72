package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-sqlite3"
)

// Sentinel errors, for errors.Is. Every error the store returns wraps at
// most one of them.
var (
	// ErrNotFound: the session, inbox key or other record does not exist.
	ErrNotFound = errors.New("not found")

	// ErrLocked: another process holds a lock on the database for longer
	// than the busy timeout.
	ErrLocked = errors.New("database is locked")
	// ErrReadOnly: the database file, or the directory that must hold its
	// -wal and -shm files, is not writable.
	ErrReadOnly = errors.New("database is read-only")
	// ErrCorrupt: the file is not a usable SQLite database.
	ErrCorrupt = errors.New("database is corrupt")
	// ErrTooNew: a newer version of Parley has migrated the database.
	ErrTooNew = errors.New("database was migrated by a newer parley")
)

// classify turns an error met while opening the database into one an
// operator can act on: it names the file, says what is wrong in words and
// wraps the matching sentinel as well as the cause.
func classify(path string, busy time.Duration, err error) error {
	var code sqlite3.ErrNo // zero for errors that are not SQLite's
	if se, ok := errors.AsType[sqlite3.Error](err); ok {
		code = se.Code
	}
	_, damaged := errors.AsType[*integrityError](err)
	switch {
	case code == sqlite3.ErrBusy || code == sqlite3.ErrLocked:
		return &openError{ErrLocked, err, fmt.Sprintf(
			"store: %s is locked by another process (is another parley running on it?); gave up after %s", path, busy)}
	case code == sqlite3.ErrNotADB:
		return &openError{ErrCorrupt, err, fmt.Sprintf(
			"store: %s is not a SQLite database (file is corrupt or encrypted); %s", path, salvage)}
	case code == sqlite3.ErrCorrupt || damaged:
		return &openError{ErrCorrupt, err, fmt.Sprintf("store: %s is corrupt; %s", path, salvage)}
	case code == sqlite3.ErrReadonly || code == sqlite3.ErrPerm,
		errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return readOnly(path, err)
	case code == sqlite3.ErrCantOpen && !dirWritable(filepath.Dir(path)):
		// SQLite says "unable to open database file" for the -wal and
		// -shm files too, which it cannot create in a read-only directory.
		return readOnly(path, err)
	}
	return fmt.Errorf("store: open %s: %w", path, err)
}

// salvage is what to do about a corrupt database.
const salvage = "stop parley, move the file aside (with any -wal and -shm files) and restore a backup; sqlite3's .recover may salvage its contents"

func readOnly(path string, err error) error {
	return &openError{ErrReadOnly, err, fmt.Sprintf(
		"store: %s is read-only: parley needs write access to the file and to %s (for its -wal and -shm files)", path, filepath.Dir(path))}
}

// openError is a classified failure to open the database: a message for the
// operator, the sentinel for errors.Is and the underlying cause.
type openError struct {
	kind  error
	cause error
	msg   string
}

func (e *openError) Error() string   { return e.msg + ": " + e.cause.Error() }
func (e *openError) Unwrap() []error { return []error{e.kind, e.cause} }

// dirWritable reports whether a file can be created in dir, by trying: the
// permission bits alone do not tell (root, ACLs, read-only mounts).
func dirWritable(dir string) bool {
	f, err := os.CreateTemp(dir, ".parley-probe-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

// integrityError is what PRAGMA quick_check found wrong with the database.
type integrityError struct {
	report []string // quick_check's rows, "ok" excluded
}

func (e *integrityError) Error() string {
	// quick_check's rows may hold several lines each; the report is short
	// enough to keep whole (SQLite stops at 100 problems), on one line.
	var lines []string
	for _, row := range e.report {
		for line := range strings.Lines(row) {
			line = strings.TrimSpace(line)
			if line != "" && line != "*** in database main ***" {
				lines = append(lines, line)
			}
		}
	}
	return "quick_check: " + strings.Join(lines, "; ")
}
