package store_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// TestBackupUnderLoad backs up a database that goroutines keep writing:
// the copy passes integrity_check and holds every message committed
// before the backup began.
func TestBackupUnderLoad(t *testing.T) {
	path := dbPath(t)
	db := openDB(t, path)
	ctx := t.Context()
	const writers = 4
	sids := make([]string, writers)
	for i := range sids {
		sids[i] = newSession(t, db, chat.Thread{Platform: "fake", Chat: fmt.Sprint("c", i)})
	}
	// committed[i] is how many messages writer i has committed.
	var committed [writers]atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for n := int64(1); ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				if err := db.AppendMessages(ctx, sids[i], llm.Message{Role: llm.RoleUser, Text: fmt.Sprint("m", n)}); err != nil {
					t.Errorf("writer %d: %v", i, err)
					return
				}
				committed[i].Store(n)
			}
		})
	}
	// Let the writers get going, then back up while they write.
	for committed[writers-1].Load() < 20 {
		time.Sleep(time.Millisecond)
	}
	var before [writers]int64
	for i := range before {
		before[i] = committed[i].Load()
	}
	dest := filepath.Join(t.TempDir(), "copy.db")
	err := store.Backup(ctx, path, dest, false)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("Backup: %v", err)
	}
	if fi, err := os.Stat(dest); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("backup file: %v, %v; want mode 0600", fi, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dest))
	for _, e := range entries {
		if e.Name() != "copy.db" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	if v, err := store.CheckBackup(ctx, dest); err != nil || v != store.LatestSchema() {
		t.Fatalf("CheckBackup = %d, %v; want %d", v, err, store.LatestSchema())
	}
	cp := openDB(t, dest)
	for i, sid := range sids {
		msgs, err := cp.Messages(ctx, sid)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(msgs)) < before[i] {
			t.Errorf("session %d: the backup has %d messages, %d were committed before it began", i, len(msgs), before[i])
		}
		for n, m := range msgs { // in order, none missing in between
			if want := fmt.Sprint("m", n+1); m.Text != want {
				t.Fatalf("session %d message %d = %q, want %q", i, n, m.Text, want)
			}
		}
	}
}

func TestBackupRefusesToOverwrite(t *testing.T) {
	path := dbPath(t)
	db := openDB(t, path)
	ctx := t.Context()
	if err := db.Set(ctx, "k", "1"); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(t.TempDir(), "copy.db")
	if err := os.WriteFile(dest, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := store.Backup(ctx, path, dest, false); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Backup over an existing file = %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != "keep me" {
		t.Fatalf("the existing file was changed: %q", b)
	}
	if err := store.Backup(ctx, path, dest, true); err != nil {
		t.Fatalf("Backup with overwrite: %v", err)
	}
	if _, err := store.CheckBackup(ctx, dest); err != nil {
		t.Fatal(err)
	}
	if err := store.Backup(ctx, filepath.Join(t.TempDir(), "missing.db"), dest+"2", false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Backup of a missing database = %v, want fs.ErrNotExist", err)
	}
}

// TestRestoreRoundTrip backs up, changes the database, restores, and
// finds the backup's state, with the replaced database kept aside.
func TestRestoreRoundTrip(t *testing.T) {
	path := dbPath(t)
	ctx := t.Context()
	db, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set(ctx, "k", "backed up"); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(t.TempDir(), "b.db")
	if err := store.Backup(ctx, path, backup, false); err != nil {
		t.Fatal(err)
	}
	if err := db.Set(ctx, "k", "after"); err != nil {
		t.Fatal(err)
	}

	// Refused while the database is open.
	if _, err := store.Restore(ctx, path, backup, epoch); !errors.Is(err, store.ErrLocked) {
		t.Fatalf("Restore while running = %v, want ErrLocked", err)
	} else if !strings.Contains(err.Error(), "stop Parley") {
		t.Errorf("the refusal does not say what to do: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	r, err := store.Restore(ctx, path, backup, epoch)
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if r.Version != store.LatestSchema() {
		t.Errorf("Version = %d, want %d", r.Version, store.LatestSchema())
	}
	if want := path + ".before-restore-20261101T090000Z"; r.Previous != want {
		t.Errorf("Previous = %q, want %q", r.Previous, want)
	}
	db = openDB(t, path)
	if v, _, _ := db.Get(ctx, "k"); v != "backed up" {
		t.Errorf("after restore k = %q, want the backup's value", v)
	}
	prev := openDB(t, r.Previous)
	if v, _, _ := prev.Get(ctx, "k"); v != "after" {
		t.Errorf("the kept database has k = %q, want %q", v, "after")
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("restored file: %v, %v; want mode 0600", fi, err)
	}
}

// TestRestoreIntoEmptyDataDir restores where there is no database yet.
func TestRestoreIntoEmptyDataDir(t *testing.T) {
	ctx := t.Context()
	src := dbPath(t)
	db := openDB(t, src)
	if err := db.Set(ctx, "k", "v"); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(t.TempDir(), "b.db")
	if err := store.Backup(ctx, src, backup, false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "data", "parley.db")
	r, err := store.Restore(ctx, path, backup, epoch)
	if err != nil || r.Previous != "" {
		t.Fatalf("Restore = %+v, %v", r, err)
	}
	if v, _, _ := openDB(t, path).Get(ctx, "k"); v != "v" {
		t.Errorf("k = %q", v)
	}
}

func TestRestoreRefusesBadFiles(t *testing.T) {
	ctx := t.Context()
	good := dbPath(t)
	db, err := store.Open(ctx, good)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if err := db.Set(ctx, fmt.Sprint("key", i), strings.Repeat("x", 500)); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	dir := t.TempDir()
	backup := filepath.Join(dir, "good.db")
	if err := store.Backup(ctx, good, backup, false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(backup)
	if err != nil {
		t.Fatal(err)
	}

	notDB := filepath.Join(dir, "not.db")
	os.WriteFile(notDB, []byte("hello, this is not a database at all"), 0o600)

	corrupt := filepath.Join(dir, "corrupt.db")
	bad := append([]byte(nil), data...)
	for i := 4096 * 2; i < len(bad)-4096; i += 7 { // every page but the first and last
		bad[i] ^= 0x5a
	}
	os.WriteFile(corrupt, bad, 0o600)

	truncated := filepath.Join(dir, "truncated.db")
	os.WriteFile(truncated, data[:len(data)/2], 0o600)

	// A database written by a newer Parley.
	newer := filepath.Join(dir, "newer.db")
	os.WriteFile(newer, data, 0o600)
	if err := bumpSchema(ctx, newer, store.LatestSchema()+5); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, file string
		want       error
		says       string
	}{
		{"not a database", notDB, store.ErrCorrupt, "not a SQLite database"},
		{"corrupt", corrupt, store.ErrCorrupt, "damaged"},
		{"truncated", truncated, store.ErrCorrupt, "damaged"},
		{"newer schema", newer, store.ErrTooNew, fmt.Sprintf("schema version %d, this build knows up to %d", store.LatestSchema()+5, store.LatestSchema())},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "parley.db")
			cur := openDB(t, path)
			if err := cur.Set(ctx, "k", "current"); err != nil {
				t.Fatal(err)
			}
			if err := cur.Close(); err != nil {
				t.Fatal(err)
			}
			_, err := store.Restore(ctx, path, tt.file, epoch)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Restore(%s) = %v, want %v saying %q", tt.name, err, tt.want, tt.says)
			}
			if !strings.Contains(err.Error(), tt.file) {
				t.Errorf("the error does not name the file: %v", err)
			}
			// Nothing changed, nothing left behind.
			entries, _ := os.ReadDir(filepath.Dir(path))
			for _, e := range entries {
				if e.Name() != "parley.db" {
					t.Errorf("left behind: %s", e.Name())
				}
			}
			db := openDB(t, path)
			if v, _, _ := db.Get(ctx, "k"); v != "current" {
				t.Errorf("the current database changed: k = %q", v)
			}
		})
	}
}

// bumpSchema records version in the goose table of the database at path,
// as a newer Parley's migration would.
func bumpSchema(ctx context.Context, path string, version int64) error {
	db, err := sql.Open("sqlite3", path) // registered by the store's import of mattn/go-sqlite3
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, 1)`, version)
	return err
}
