package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/internal/clock"
	"github.com/parleybot/parley/store"
)

// `parley backup FILE`, `parley restore FILE` and the scheduled backups of
// backup.every (docs/backups.md).

// pgDumpAdvice is what parley backup says when the store is PostgreSQL.
const pgDumpAdvice = "store.driver is postgres: parley backup copies the SQLite file only. Back up PostgreSQL with its own tool, e.g.\n" +
	"  pg_dump --format=custom --file=parley.dump \"$PARLEY_STORE_POSTGRES_URL\"\n" +
	"(consistent while Parley runs; docs/backups.md)"

// pgRestoreAdvice is what parley restore says when the store is PostgreSQL.
const pgRestoreAdvice = "store.driver is postgres: parley restore replaces the SQLite file only. Stop every replica, then restore with\n" +
	"  pg_restore --clean --if-exists --no-owner --dbname=\"$PARLEY_STORE_POSTGRES_URL\" parley.dump\n" +
	"(docs/backups.md)"

func newBackupCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of the SQLite database to FILE, also while Parley runs",
		Long: "Copies the SQLite database in data_dir to FILE with SQLite's VACUUM INTO: the copy is the database as it\n" +
			"was when the backup began, also while Parley runs and writes. An existing FILE is refused unless --force.\n" +
			"With store.driver postgres it prints how to use pg_dump instead and exits with status 1. See docs/backups.md.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := sqliteConfig(load, pgDumpAdvice)
			if err != nil {
				return err
			}
			src, dest := cfg.DBPath(), args[0]
			if _, err := os.Stat(src); errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("no database to back up at %s (data_dir is %s)", src, cfg.DataDir)
			}
			start := time.Now()
			if err := store.Backup(cmd.Context(), src, dest, force); err != nil {
				return err
			}
			version, err := store.CheckBackup(cmd.Context(), dest)
			if err != nil {
				return fmt.Errorf("the backup failed its check: %w", err)
			}
			size := int64(0)
			if fi, err := os.Stat(dest); err == nil {
				size = fi.Size()
			}
			abs, _ := filepath.Abs(dest)
			fmt.Fprintf(e.stdout, "backed up %s to %s (%s, schema version %d, checked) in %s\n",
				src, abs, humanBytes(size), version, time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite FILE if it exists")
	return cmd
}

func newRestoreCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	return &cobra.Command{
		Use:   "restore FILE",
		Short: "Replace the SQLite database with the backup FILE (stop Parley first)",
		Long: "Checks FILE (a SQLite database, PRAGMA integrity_check, a schema version this build knows) and puts it in\n" +
			"place of the database in data_dir. It refuses while Parley (or anything else) has the database open. The\n" +
			"database it replaces is kept beside it as parley.db.before-restore-<UTC time>. An older backup is migrated\n" +
			"at the next start. With store.driver postgres it prints how to use pg_restore instead and exits with status 1.\n" +
			"See docs/backups.md.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := sqliteConfig(load, pgRestoreAdvice)
			if err != nil {
				return err
			}
			path := cfg.DBPath()
			r, err := store.Restore(cmd.Context(), path, args[0], time.Now())
			if err != nil {
				return err
			}
			abs, _ := filepath.Abs(args[0])
			fmt.Fprintf(e.stdout, "restored %s into %s (schema version %d)\n", abs, path, r.Version)
			if r.Previous != "" {
				fmt.Fprintf(e.stdout, "the database it replaced is kept at %s\n", r.Previous)
			}
			if latest := store.LatestSchema(); r.Version < latest {
				fmt.Fprintf(e.stdout, "Parley will migrate it from version %d to %d when it next starts (backing it up first in %s)\n",
					r.Version, latest, filepath.Join(filepath.Dir(path), store.BackupDir))
			}
			fmt.Fprintln(e.stdout, "next: start Parley")
			return nil
		},
	}
}

// humanBytes is n in B, KiB or MiB.
func humanBytes(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// backupScheduler takes a backup every `every` into dir, named
// parley-<UTC time>.db, and keeps the newest keep of them.
type backupScheduler struct {
	every  time.Duration
	keep   int
	dir    string
	now    func() time.Time
	sleep  func(context.Context, time.Duration) error
	backup func(ctx context.Context, dest string) error
	logger *slog.Logger
}

func newBackupScheduler(cfg *config.Config, logger *slog.Logger) backupScheduler {
	src := cfg.DBPath()
	return backupScheduler{
		every:  cfg.Backup.Interval(),
		keep:   cfg.Backup.Keep,
		dir:    filepath.Join(filepath.Dir(src), store.BackupDir),
		now:    time.Now,
		sleep:  clock.Sleep,
		backup: func(ctx context.Context, dest string) error { return store.Backup(ctx, src, dest, false) },
		logger: logger,
	}
}

// startBackups starts the scheduled backups in wg when backup.every is
// set and the store is SQLite; they stop when ctx ends.
func startBackups(ctx context.Context, wg *sync.WaitGroup, cfg *config.Config, logger *slog.Logger) {
	if cfg.Backup.Interval() <= 0 || cfg.Store.Driver == config.StorePostgres {
		return
	}
	s := newBackupScheduler(cfg, logger)
	logger.Info("scheduled backups", "every", s.every, "keep", s.keep, "dir", s.dir)
	wg.Go(func() { s.run(ctx) })
}

// run takes a backup after every interval until ctx ends. A failed backup
// is logged and tried again at the next interval.
func (s backupScheduler) run(ctx context.Context) {
	for s.sleep(ctx, s.every) == nil {
		s.once(ctx)
	}
}

// once takes one backup and deletes the scheduled backups beyond keep.
func (s backupScheduler) once(ctx context.Context) {
	dest := filepath.Join(s.dir, store.BackupName(s.now()))
	if err := s.backup(ctx, dest); err != nil {
		if ctx.Err() == nil {
			s.logger.Error("scheduled backup failed", "file", dest, "err", err)
		}
		return
	}
	s.logger.Info("scheduled backup written", "file", dest)
	removed, err := rotateBackups(s.dir, s.keep)
	for _, name := range removed {
		s.logger.Info("old backup deleted", "file", name)
	}
	if err != nil {
		s.logger.Error("cannot delete old backups", "dir", s.dir, "err", err)
	}
}

// rotateBackups deletes the scheduled backups in dir (parley-<UTC
// time>.db) but the newest keep, and returns the files it deleted. Other
// files, such as the copies taken before migrations, are left alone.
func rotateBackups(dir string, keep int) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && store.IsBackupName(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names) // the UTC stamps sort in time order
	var removed []string
	var errs []error
	for _, name := range names[:max(0, len(names)-keep)] {
		path := filepath.Join(dir, name)
		if err := os.Remove(path); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, path)
	}
	return removed, errors.Join(errs...)
}

// sqliteConfig loads the configuration of a command that works on the
// SQLite file alone; with store.driver postgres it is advice's error.
func sqliteConfig(load func() (*config.Config, error), advice string) (*config.Config, error) {
	cfg, err := load()
	if err != nil {
		return nil, err
	}
	if cfg.Store.Driver == config.StorePostgres {
		return nil, errors.New(advice)
	}
	return cfg, nil
}
