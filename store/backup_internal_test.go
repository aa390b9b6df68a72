package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBackupBeforeMigrate: opening an existing database with migrations
// pending first copies it to backups/pre-migrate-v<old>-to-v<new>-<time>.db;
// a new database and one already up to date are not copied.
func TestBackupBeforeMigrate(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "parley.db")
	at := time.Date(2026, 12, 6, 9, 30, 0, 0, time.UTC)
	clock := WithClock(func() time.Time { return at })

	db, err := open(ctx, path, migrations(), clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set(ctx, "k", "before the upgrade"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := os.Stat(filepath.Join(dir, BackupDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a new database was backed up: %v", err)
	}
	// Up to date: no copy either.
	if db, err = open(ctx, path, migrations(), clock); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := os.Stat(filepath.Join(dir, BackupDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("an up-to-date database was backed up: %v", err)
	}

	old := latestVersion(t)
	v2 := withMigration(t, "00999_session_title.sql", "-- +goose Up\nALTER TABLE sessions ADD COLUMN title TEXT NOT NULL DEFAULT '';\n")
	if db, err = open(ctx, path, v2, clock); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want := filepath.Join(dir, BackupDir, fmt.Sprintf("pre-migrate-v%d-to-v999-20261206T093000Z.db", old))
	v, err := CheckBackup(ctx, want)
	if err != nil {
		entries, _ := os.ReadDir(filepath.Join(dir, BackupDir))
		t.Fatalf("no pre-migrate backup %s (%v); the folder holds %v", want, err, entries)
	}
	if v != old {
		t.Errorf("the backup's schema version = %d, want %d (before the migration)", v, old)
	}
	if fi, err := os.Stat(want); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup mode: %v, %v; want 0600", fi, err)
	}
	cp, err := open(ctx, want, migrations())
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if got, _, _ := cp.Get(ctx, "k"); got != "before the upgrade" {
		t.Errorf("the backup holds k = %q", got)
	}
}

// TestOpenRefusesNewerSchemaNamingBothVersions: a database a newer Parley
// migrated is refused at start, and the message names its version and
// this build's.
func TestOpenRefusesNewerSchemaNamingBothVersions(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "parley.db")
	v2 := withMigration(t, "00999_session_title.sql", "-- +goose Up\nALTER TABLE sessions ADD COLUMN title TEXT NOT NULL DEFAULT '';\n")
	db, err := open(ctx, path, v2)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, path)
	if !errors.Is(err, ErrTooNew) {
		t.Fatalf("Open = %v, want ErrTooNew", err)
	}
	for _, want := range []string{path, "schema version 999", fmt.Sprintf("knows up to %d", latestVersion(t)), "newer parley"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), BackupDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused database was backed up: %v", err)
	}
}
