package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/metrics"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/postgres"
)

// backend is the storage a Parley process runs on, on either engine: what
// bot and agent need (store.Backend) and what the operator endpoints read.
type backend interface {
	store.Backend
	metrics.Counts
	metrics.Pinger
}

// openStore opens the engine store.driver names: the SQLite file in
// data_dir, or the PostgreSQL database at store.postgres_url. Either
// applies its pending migrations before returning.
func openStore(ctx context.Context, cfg *config.Config, logger *slog.Logger) (backend, error) {
	if cfg.Store.Driver == config.StorePostgres {
		db, err := postgres.Open(ctx, cfg.Store.PostgresURL.Reveal(), postgres.WithLogger(logger))
		if err != nil {
			return nil, err
		}
		return db, nil
	}
	db, err := store.Open(ctx, cfg.DBPath())
	if err != nil {
		return nil, err
	}
	return db, nil
}

// storeName says which database a process uses, for doctor and logs: the
// SQLite file, or the PostgreSQL URL without its password.
// commandStore loads the configuration and opens its store for one
// command, which closes it.
func commandStore(ctx context.Context, load func() (*config.Config, error)) (*config.Config, backend, error) {
	cfg, err := load()
	if err != nil {
		return nil, nil, err
	}
	db, err := openStore(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, nil, err
	}
	return cfg, db, nil
}

func storeName(cfg *config.Config) string {
	if cfg.Store.Driver == config.StorePostgres {
		return "postgres " + config.RedactURL(cfg.Store.PostgresURL.Reveal())
	}
	return cfg.DBPath()
}

// sharing is how this process shares its store with other replicas:
// with PostgreSQL, each session's turns run under a lease and Telegram's
// long polling and Discord's gateway are received by one elected replica
// (docs/replicas.md); with SQLite, nil: one process owns the file.
func sharing(cfg *config.Config, db backend) *bot.Sharing {
	if cfg.Store.Driver != config.StorePostgres {
		return nil
	}
	elected := map[string]string{}
	for _, p := range cfg.Platforms {
		if lease := p.Section.Receiver(); lease != "" {
			elected[p.Name] = lease
		}
	}
	return &bot.Sharing{Leases: db, Replicas: db, Holder: replicaID(), Elected: elected,
		TTL: time.Duration(cfg.Store.LeaseSeconds) * time.Second}
}

// replicaID names this process among the replicas: readable in logs and
// in the leases table, unique across hosts and restarts.
func replicaID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "parley"
	}
	var b [4]byte
	rand.Read(b[:]) // never fails: crypto/rand panics rather than return an error
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// leader runs background work that must not run twice at once: through
// the core's Lead when replicas share the store, else directly.
type leader func(ctx context.Context, name string, run func(context.Context) error) error

// alone is the leader of a process that shares nothing.
func alone(ctx context.Context, _ string, run func(context.Context) error) error { return run(ctx) }
