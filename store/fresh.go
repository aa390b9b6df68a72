package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// ensureFile makes sure the database file exists, creating its directory
// as needed. A new database is built whole beside path and then linked
// into place (createFresh), so a first start pays two fsyncs instead of
// the dozen that creating the file in place, switching it to WAL and
// migrating it there took; an existing one is left alone.
func ensureFile(ctx context.Context, path string, schema fs.FS) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return err // there (nil), or unreadable: the open says which
	}
	return createFresh(ctx, path, schema)
}

// createFresh builds a new database at a temporary name beside path with
// every migration applied and the journal in WAL mode, without a single
// fsync on the way — a crash meanwhile leaves only the temporary file,
// never a half-made database at path — then syncs it once and links it
// to path. Linking, unlike renaming, fails when path appeared meanwhile
// (another process starting on the same new database): that one is used
// and this one dropped.
func createFresh(ctx context.Context, path string, schema fs.FS) error {
	tmp := path + ".new-" + strconv.Itoa(os.Getpid())
	// The file is created here, not by SQLite, so that it is private:
	// SQLite gives the -wal and -shm files the mode of the database file.
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	f.Close()
	defer removeDB(tmp) // backup.go; once linked, path holds the file
	if err := buildFresh(ctx, tmp, schema); err != nil {
		return fmt.Errorf("create the database: %w", err)
	}
	if err := syncFile(tmp); err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		// A file system without hard links: a rename, which could only
		// replace a database another process made in this instant.
		if err := os.Rename(tmp, path); err != nil {
			return err
		}
	}
	syncDir(filepath.Dir(path))
	return nil
}

// buildFresh migrates the empty database at path with its rollback
// journal in memory and no syncs, then leaves it in WAL mode.
func buildFresh(ctx context.Context, path string, schema fs.FS) error {
	db, err := sql.Open(driverName, "file:"+escapePath(path)+
		"?_journal_mode=MEMORY&_sync=OFF&_txlock=immediate&_foreign_keys=on")
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	err = migrate(ctx, db, schema)
	if err == nil {
		_, err = createKeywordIndex(ctx, db)
	}
	if err == nil {
		_, err = createMessageIndex(ctx, db)
	}
	if err == nil {
		var mode string
		if err = db.QueryRowContext(ctx, "PRAGMA journal_mode = WAL").Scan(&mode); err == nil && mode != "wal" {
			err = fmt.Errorf("journal mode is %q: SQLite could not switch to WAL, which needs a local file system", mode)
		}
	}
	// The last connection closing checkpoints the WAL into the file and
	// removes it: what is synced next is the whole database.
	return errors.Join(err, db.Close())
}
