package postgres_test

import (
	"github.com/parleybot/parley/bot/metrics"
	"github.com/parleybot/parley/store/postgres"
)

// The operator endpoints read the same figures from either store.
var (
	_ metrics.Counts = (*postgres.DB)(nil)
	_ metrics.Pools  = (*postgres.DB)(nil)
	_ metrics.Pinger = (*postgres.DB)(nil)
)
