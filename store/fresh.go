package store

import (
	"compress/gzip"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ensureFile makes sure the database file exists, creating its directory
// as needed, and reports whether it made the file. A new database is made
// whole beside path and then linked into place (createFresh), so a first
// start pays two fsyncs instead of the dozen that creating the file in
// place, switching it to WAL and migrating it there took; an existing one
// is left alone. image, when not empty, is what a new database starts as
// (freshImage); else it is built from schema.
func ensureFile(ctx context.Context, path string, schema fs.FS, image string) (made bool, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, err
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return false, err // there (nil), or unreadable: the open says which
	}
	return createFresh(ctx, path, schema, image)
}

// createFresh makes a new database at a temporary name beside path, a copy
// of image or, without one, built with every migration applied and the
// journal in WAL mode, without a single fsync on the way — a crash meanwhile leaves only the temporary file,
// never a half-made database at path — then syncs it once and links it
// to path. Linking, unlike renaming, fails when path appeared meanwhile
// (another process starting on the same new database): that one is used
// and this one dropped, and made is false.
func createFresh(ctx context.Context, path string, schema fs.FS, image string) (made bool, err error) {
	tmp := path + ".new-" + strconv.Itoa(os.Getpid())
	// The file is created here, not by SQLite, so that it is private:
	// SQLite gives the -wal and -shm files the mode of the database file.
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return false, err
	}
	if image != "" {
		err = inflate(f, image)
	}
	err = errors.Join(err, f.Close())
	defer removeDB(tmp) // backup.go; once linked, path holds the file
	if err != nil {
		return false, fmt.Errorf("create the database: %w", err)
	}
	if image == "" {
		if err := buildFresh(ctx, tmp, schema, true); err != nil {
			return false, fmt.Errorf("create the database: %w", err)
		}
	}
	if err := syncFile(tmp); err != nil {
		return false, err
	}
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		// A file system without hard links: a rename, which could only
		// replace a database another process made in this instant.
		if err := os.Rename(tmp, path); err != nil {
			return false, err
		}
	}
	syncDir(filepath.Dir(path))
	return true, nil
}

// inflate writes the gzipped image to f.
func inflate(f *os.File, image string) error {
	z, err := gzip.NewReader(strings.NewReader(image))
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, z); err != nil {
		return err
	}
	return z.Close()
}

// buildFresh migrates the empty database at path with its rollback
// journal in memory and no syncs, creates the FTS5 indexes when indexes
// is set and the build has FTS5, then leaves it in WAL mode. freshImage is
// made without them, so that a build without FTS5 can use it too: Open
// creates them after.
func buildFresh(ctx context.Context, path string, schema fs.FS, indexes bool) error {
	db, err := sql.Open(driverName, "file:"+escapePath(path)+
		"?_journal_mode=MEMORY&_sync=OFF&_txlock=immediate&_foreign_keys=on")
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	err = migrate(ctx, db, schema)
	if err == nil && indexes {
		_, err = createKeywordIndex(ctx, db)
	}
	if err == nil && indexes {
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
