package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/store"
)

// runParley runs the CLI in-process with the config file at cfgPath.
func runParley(t *testing.T, cfgPath string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
		lookupEnv: func(string) (string, bool) { return "", false }}
	code = execute(t.Context(), e, append([]string{"--config", cfgPath}, args...))
	return code, out.String(), errOut.String()
}

// TestBackupRestoreCommands: parley backup while the database is open,
// refusing to overwrite; parley restore refusing while it is open, then
// restoring.
func TestBackupRestoreCommands(t *testing.T) {
	ctx := t.Context()
	dataDir := t.TempDir()
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfgPath, []byte("data_dir: "+dataDir+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(dataDir, "parley.db")

	if code, _, errOut := runParley(t, cfgPath, "backup", filepath.Join(t.TempDir(), "x.db")); code != 1 || !strings.Contains(errOut, "no database to back up") {
		t.Errorf("backup without a database: exit %d, %q", code, errOut)
	}

	db, err := store.Open(ctx, dbPath) // a running Parley holds it open
	if err != nil {
		t.Fatal(err)
	}
	defer func() { db.Close() }()
	if err := db.Set(ctx, "k", "in the backup"); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "b.db")
	code, out, errOut := runParley(t, cfgPath, "backup", file)
	if code != 0 || !strings.Contains(out, "backed up "+dbPath+" to "+file) || !strings.Contains(out, "checked") {
		t.Fatalf("backup: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, errOut := runParley(t, cfgPath, "backup", file); code != 1 || !strings.Contains(errOut, "--force") {
		t.Errorf("backup over an existing file: exit %d, %q", code, errOut)
	}
	if err := db.Set(ctx, "k", "after the backup"); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runParley(t, cfgPath, "backup", "--force", file); code != 0 {
		t.Errorf("backup --force: exit %d, %q", code, errOut)
	}
	// The forced backup has the newer value; take the first state again.
	if err := db.Set(ctx, "k", "in the backup"); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runParley(t, cfgPath, "backup", "--force", file); code != 0 {
		t.Fatalf("backup --force: exit %d, %q", code, errOut)
	}
	if err := db.Set(ctx, "k", "replaced"); err != nil {
		t.Fatal(err)
	}

	if code, _, errOut := runParley(t, cfgPath, "restore", file); code != 1 || !strings.Contains(errOut, "is Parley running?") || !strings.Contains(errOut, "stop Parley before restoring") {
		t.Errorf("restore while running: exit %d, %q", code, errOut)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runParley(t, cfgPath, "restore", file)
	if code != 0 || !strings.Contains(out, "restored "+file+" into "+dbPath) || !strings.Contains(out, "kept at "+dbPath+".before-restore-") {
		t.Fatalf("restore: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if db, err = store.Open(ctx, dbPath); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := db.Get(ctx, "k"); v != "in the backup" {
		t.Errorf("after restore k = %q", v)
	}
}

func TestBackupRestorePostgresAdvice(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "config.yaml")
	yaml := "store:\n  driver: postgres\n  postgres_url: postgres://parley@localhost/parley\n"
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]string{"backup": "pg_dump --format=custom", "restore": "pg_restore --clean"} {
		code, _, errOut := runParley(t, cfgPath, cmd, "x.dump")
		if code == 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "docs/backups.md") {
			t.Errorf("%s with postgres: exit %d, %q; want a failure naming %q", cmd, code, errOut, want)
		}
	}
}

// TestScheduledBackupsRotate runs the scheduler on a fake clock: one
// backup per interval, the newest keep kept, other files left alone.
func TestScheduledBackupsRotate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), store.BackupDir)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		premigrate := filepath.Join(dir, "pre-migrate-v15-to-v16-20261101T000000Z.db")
		os.WriteFile(premigrate, []byte("x"), 0o600)
		var (
			mu    sync.Mutex // the scheduler's goroutine appends, the test reads
			taken []string
		)
		backups := func() []string {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(taken)
		}
		s := backupScheduler{
			every: time.Hour,
			keep:  3,
			dir:   dir,
			now:   time.Now,
			sleep: func(ctx context.Context, d time.Duration) error {
				select {
				case <-time.After(d):
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			},
			backup: func(_ context.Context, dest string) error {
				mu.Lock()
				taken = append(taken, filepath.Base(dest))
				mu.Unlock()
				return os.WriteFile(dest, []byte("backup"), 0o600)
			},
			logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		}
		ctx, cancel := context.WithCancel(t.Context())
		start := time.Now()
		done := make(chan struct{})
		go func() { s.run(ctx); close(done) }()

		time.Sleep(30 * time.Minute)
		synctest.Wait()
		if got := backups(); len(got) != 0 {
			t.Errorf("a backup before the first interval: %v", got)
		}
		time.Sleep(10 * time.Hour) // 10:30 after start: 10 backups
		synctest.Wait()
		cancel()
		<-done
		if got := backups(); len(got) != 10 {
			t.Fatalf("%d backups in 10.5 intervals, want 10: %v", len(got), got)
		}
		var want []string
		for h := 8; h <= 10; h++ {
			want = append(want, store.BackupName(start.Add(time.Duration(h)*time.Hour)))
		}
		want = append(want, filepath.Base(premigrate))
		slices.Sort(want)
		entries, _ := os.ReadDir(dir)
		var got []string
		for _, e := range entries {
			got = append(got, e.Name())
		}
		if !slices.Equal(got, want) {
			t.Errorf("backups kept = %v, want %v", got, want)
		}
	})
}

// TestScheduledBackupOfLiveDatabase runs one scheduled backup of a real
// database through the scheduler the server builds from its config.
func TestScheduledBackupOfLiveDatabase(t *testing.T) {
	dataDir := t.TempDir()
	cfg := config.Default()
	cfg.DataDir = dataDir
	cfg.Backup = config.Backup{Every: "1h", Keep: 2}
	db, err := store.Open(t.Context(), cfg.DBPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := newBackupScheduler(&cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	at := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	for i := range 3 {
		s.now = func() time.Time { return at.Add(time.Duration(i) * time.Hour) }
		s.once(t.Context())
	}
	entries, _ := os.ReadDir(filepath.Join(dataDir, store.BackupDir))
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	want := []string{"parley-20261206T110000Z.db", "parley-20261206T120000Z.db"}
	if !slices.Equal(got, want) {
		t.Fatalf("backups = %v, want %v", got, want)
	}
	if _, err := store.CheckBackup(t.Context(), filepath.Join(dataDir, store.BackupDir, want[1])); err != nil {
		t.Error(err)
	}
}
