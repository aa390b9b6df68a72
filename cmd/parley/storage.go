package main

import (
	"context"
	"log/slog"

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
func storeName(cfg *config.Config) string {
	if cfg.Store.Driver == config.StorePostgres {
		return "postgres " + config.RedactURL(cfg.Store.PostgresURL.Reveal())
	}
	return cfg.DBPath()
}
