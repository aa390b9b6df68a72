package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mattn/go-sqlite3"
)

// Backups and restores of the SQLite file (docs/backups.md): parley
// backup, parley restore, the scheduled backups and the copy taken before
// migrations. A backup is made with VACUUM INTO, which reads the database
// in one read transaction: the copy is the database as it was when the
// backup began — every transaction committed before, none after — while
// the running Parley keeps writing (WAL lets readers and the writer run
// at once). The copy is a single file, without -wal or -shm.

// BackupDir is the folder, inside the database's own folder (data_dir),
// that holds the scheduled backups and those taken before migrations.
const BackupDir = "backups"

// TimestampFormat is the UTC time in backup file names: it sorts in time
// order.
const TimestampFormat = "20060102T150405Z"

// sqliteHeader is the first 16 bytes of every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// Backup writes a consistent copy of the SQLite database at src to dest,
// while other connections (a running Parley) read and write it. dest is
// written under a temporary name beside it and renamed into place once
// complete and synced, so dest is never a partial copy. An existing dest
// is refused with an error wrapping fs.ErrExist unless overwrite is true.
// The copy has mode 0600, like the database. src must exist: Backup
// creates no database.
func Backup(ctx context.Context, src, dest string, overwrite bool) error {
	src, err := filepath.Abs(src)
	if err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	if dest, err = filepath.Abs(dest); err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	if src == dest {
		return fmt.Errorf("store: backup: %s is the database itself", dest)
	}
	if !overwrite {
		if _, err := os.Lstat(dest); err == nil {
			return fmt.Errorf("store: backup: %s: %w (pass --force to overwrite it)", dest, fs.ErrExist)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	tmp, err := vacuumInto(ctx, src, filepath.Dir(dest), "."+filepath.Base(dest)+".tmp-*")
	if err != nil {
		return fmt.Errorf("store: backup %s: %w", src, err)
	}
	defer os.Remove(tmp) // after a successful rename or link, a no-op or the extra name
	if overwrite {
		err = os.Rename(tmp, dest)
	} else if err = os.Link(tmp, dest); err != nil && !errors.Is(err, fs.ErrExist) {
		// A file system without hard links: check, then rename.
		if _, serr := os.Lstat(dest); serr == nil {
			err = fs.ErrExist
		} else {
			err = os.Rename(tmp, dest)
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("store: backup: %s: %w (pass --force to overwrite it)", dest, fs.ErrExist)
	}
	if err != nil {
		return fmt.Errorf("store: backup: %w", err)
	}
	syncDir(filepath.Dir(dest))
	return nil
}

// vacuumInto copies the database at src into a new file in dir named by
// pattern (os.CreateTemp's), synced, and returns its path.
func vacuumInto(ctx context.Context, src, dir, pattern string) (string, error) {
	f, err := os.CreateTemp(dir, pattern) // mode 0600; VACUUM INTO accepts an empty file
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	f.Close()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmp)
		}
	}()
	q := url.Values{}
	q.Set("mode", "rw") // never create the source
	q.Set("_busy_timeout", "5000")
	c, err := sql.Open(driverName, "file:"+escapePath(src)+"?"+q.Encode())
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetMaxOpenConns(1)
	if _, err := c.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		return "", err
	}
	if err := syncFile(tmp); err != nil {
		return "", err
	}
	ok = true
	return tmp, nil
}

// backupTo copies db into dest, which must not exist, with the writer
// connection. It is for the copy before migrations, when nothing else
// uses the database yet.
func (db *DB) backupTo(ctx context.Context, dest string) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	if _, err := db.w.ExecContext(ctx, "VACUUM INTO ?", dest); err != nil {
		os.Remove(dest)
		return err
	}
	if err := syncFile(dest); err != nil {
		os.Remove(dest)
		return err
	}
	syncDir(filepath.Dir(dest))
	return nil
}

// backupBeforeMigrate copies an existing database that has migrations
// pending to <its folder>/backups/pre-migrate-v<old>-to-v<new>-<UTC
// time>.db before they run. A new database (no schema yet) is not
// copied; nor is one migrated by a newer build, which migrate refuses.
func (db *DB) backupBeforeMigrate(ctx context.Context, schema fs.FS) error {
	var n int
	if err := db.w.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, versionTable).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		return nil // a new database: nothing to lose
	}
	applied, err := appliedVersions(ctx, db.w)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	pending, err := PendingMigrations(schema, applied)
	if err != nil || len(pending) == 0 || len(applied) == 0 {
		return nil // migrate reports the error; nothing to do or nothing to lose
	}
	old := slices.Max(applied)
	dest := filepath.Join(filepath.Dir(db.path), BackupDir,
		fmt.Sprintf("pre-migrate-v%d-to-v%d-%s.db", old, pending[len(pending)-1].Version, db.now().UTC().Format(TimestampFormat)))
	if err := db.backupTo(ctx, dest); err != nil {
		return fmt.Errorf("back up the database before migrating it from version %d (to %s): %w; free space or fix the folder and start again", old, dest, err)
	}
	return nil
}

// LatestSchema is the newest schema version this build knows.
func LatestSchema() int64 {
	steps, err := readMigrations(migrations())
	if err != nil || len(steps) == 0 {
		return 0 // the embedded migrations are tested; unreachable
	}
	return steps[len(steps)-1].version
}

// CheckBackup checks that the file at path is a Parley database this build
// can use: a SQLite file that passes PRAGMA integrity_check and whose
// schema version is not newer than LatestSchema. It returns that version.
// The file is only read, but SQLite may create its -wal and -shm files
// beside it for the moment it is open. A file that is not a database or
// is damaged is refused with an error wrapping ErrCorrupt; one written by
// a newer Parley with ErrTooNew.
func CheckBackup(ctx context.Context, path string) (int64, error) {
	return checkFile(ctx, path, path)
}

// checkFile is CheckBackup of the file at path, named name in errors.
func checkFile(ctx context.Context, path, name string) (int64, error) {
	if err := checkHeader(path, name); err != nil {
		return 0, err
	}
	q := url.Values{}
	q.Set("mode", "rw")
	q.Set("_busy_timeout", "5000")
	c, err := sql.Open(driverName, "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		return 0, fmt.Errorf("store: open %s: %w", name, err)
	}
	defer c.Close()
	c.SetMaxOpenConns(1)
	if err := integrityCheck(ctx, c); err != nil {
		return 0, checkError(name, err)
	}
	var n int
	if err := c.QueryRowContext(ctx,
		`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?`, versionTable).Scan(&n); err != nil {
		return 0, checkError(name, err)
	}
	if n == 0 {
		return 0, fmt.Errorf("store: %s is a SQLite database but not Parley's (it has no %s table)", name, versionTable)
	}
	applied, err := appliedVersions(ctx, c)
	if err != nil {
		return 0, checkError(name, err)
	}
	version := int64(0)
	if len(applied) > 0 {
		version = slices.Max(applied)
	}
	if latest := LatestSchema(); version > latest {
		return version, fmt.Errorf("store: %s has schema version %d, this build knows up to %d: "+
			"it was written by a newer Parley; restore it with that version: %w", name, version, latest, ErrTooNew)
	}
	return version, nil
}

// checkHeader makes sure the file at path starts as a SQLite database does.
func checkHeader(path, name string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	head := make([]byte, len(sqliteHeader))
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil || !bytes.Equal(head, sqliteHeader) {
		return fmt.Errorf("store: %s is not a SQLite database: %w", name, ErrCorrupt)
	}
	return nil
}

// integrityCheck runs PRAGMA integrity_check on c.
func integrityCheck(ctx context.Context, c *sql.DB) error {
	return checkPragma(ctx, c, "integrity_check")
}

// checkError names path in an error met checking it, wrapping ErrCorrupt
// where SQLite found the file damaged.
func checkError(path string, err error) error {
	var code sqlite3.ErrNo
	if se, ok := errors.AsType[sqlite3.Error](err); ok {
		code = se.Code
	}
	if _, damaged := errors.AsType[*integrityError](err); damaged || code == sqlite3.ErrCorrupt || code == sqlite3.ErrNotADB {
		return fmt.Errorf("store: %s is damaged: %w: %w", path, ErrCorrupt, err)
	}
	return fmt.Errorf("store: check %s: %w", path, err)
}

// Restored is what Restore did.
type Restored struct {
	// Version is the restored database's schema version; Parley migrates
	// it on its next start when older than LatestSchema.
	Version int64
	// Previous is where the database that was replaced went, with its
	// -wal file beside it if it had one; "" when there was none.
	Previous string
}

// Restore replaces the database at path with a copy of the backup at src.
// It refuses while any process has the database open (a running Parley:
// ErrLocked) and refuses a backup CheckBackup refuses. The backup is
// first copied beside path and checked there, so what is swapped in is
// exactly what was checked; the current database (with its -wal file) is
// renamed to <path>.before-restore-<UTC time>, not deleted. now names it.
func Restore(ctx context.Context, path, src string, now time.Time) (Restored, error) {
	var r Restored
	path, err := filepath.Abs(path)
	if err != nil {
		return r, fmt.Errorf("store: restore: %w", err)
	}
	if src, err = filepath.Abs(src); err != nil {
		return r, fmt.Errorf("store: restore: %w", err)
	}
	if src == path {
		return r, fmt.Errorf("store: restore: %s is the database itself", src)
	}
	exists, err := inUse(ctx, path)
	if err != nil {
		return r, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return r, fmt.Errorf("store: restore: %w", err)
	}
	if err := checkHeader(src, src); err != nil {
		return r, err
	}
	tmp, err := copyBeside(src, path)
	if err != nil {
		return r, fmt.Errorf("store: restore: copy %s: %w", src, err)
	}
	defer removeDB(tmp) // a no-op once renamed
	if r.Version, err = checkFile(ctx, tmp, src); err != nil {
		return r, err
	}
	// Parley may have started while the copy was made.
	if exists, err = inUse(ctx, path); err != nil {
		return r, err
	}
	if exists {
		r.Previous = path + ".before-restore-" + now.UTC().Format(TimestampFormat)
		if err := os.Rename(path, r.Previous); err != nil {
			return Restored{}, fmt.Errorf("store: restore: keep the current database: %w", err)
		}
		// A -wal file holds committed transactions not yet in the main
		// file (after a crash): it goes with its database, and must not
		// be applied to the restored one.
		if err := os.Rename(path+"-wal", r.Previous+"-wal"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return r, fmt.Errorf("store: restore: keep the current database's -wal file: %w", err)
		}
		os.Remove(path + "-shm") // an index of the -wal, rebuilt on open
	}
	if err := os.Rename(tmp, path); err != nil {
		return r, fmt.Errorf("store: restore: %w", err)
	}
	syncDir(filepath.Dir(path))
	return r, nil
}

// inUse reports whether a database exists at path, refusing (ErrLocked)
// when a process has it open.
func inUse(ctx context.Context, path string) (exists bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("store: restore: %w", err)
	}
	if err := Unused(ctx, path); err != nil {
		if errors.Is(err, ErrLocked) {
			return true, fmt.Errorf("%w; stop Parley before restoring", err)
		}
		return true, err
	}
	return true, nil
}

// copyBeside copies the file src into a new file (mode 0600) in the
// folder of path, synced, and returns its name.
func copyBeside(src, path string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".restore-*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out.Name())
		return "", err
	}
	return out.Name(), nil
}

// removeDB removes a database file with its -wal and -shm files.
func removeDB(path string) {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
}

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes a rename in dir durable; where directories cannot be
// synced, nothing more can be done.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// BackupName is the name of a scheduled backup taken at t:
// parley-<UTC time>.db.
func BackupName(t time.Time) string {
	return "parley-" + t.UTC().Format(TimestampFormat) + ".db"
}

// IsBackupName reports whether name is one BackupName makes.
func IsBackupName(name string) bool {
	stamp, ok := strings.CutPrefix(name, "parley-")
	if !ok {
		return false
	}
	stamp, ok = strings.CutSuffix(stamp, ".db")
	if !ok {
		return false
	}
	_, err := time.Parse(TimestampFormat, stamp)
	return err == nil
}
