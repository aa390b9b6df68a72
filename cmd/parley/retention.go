package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/parleybot/parley/internal/clock"
)

// history.keep_days (docs/history.md): conversations idle longer are
// deleted whole, at start and every pruneEvery after, by one replica at a
// time.

// pruneEvery is how often the idle conversations are looked for: a day's
// retention is kept to within this.
const pruneEvery = time.Hour

// pruner deletes the conversations idle for longer than keep.
type pruner struct {
	keep   time.Duration
	prune  func(ctx context.Context, cutoff time.Time) (int, error)
	now    func() time.Time
	sleep  func(context.Context, time.Duration) error
	logger *slog.Logger
}

func newPruner(keepDays int, prune func(context.Context, time.Time) (int, error), logger *slog.Logger) pruner {
	return pruner{keep: time.Duration(keepDays) * 24 * time.Hour, prune: prune, now: time.Now, sleep: clock.Sleep, logger: logger}
}

// run prunes now and after every pruneEvery until ctx ends. A failed
// prune is logged and tried again at the next.
func (p pruner) run(ctx context.Context) {
	for {
		n, err := p.prune(ctx, p.now().Add(-p.keep))
		switch {
		case err != nil && ctx.Err() == nil:
			p.logger.Error("cannot delete old conversations (history.keep_days)", "err", err)
		case n > 0:
			p.logger.Info("old conversations deleted (history.keep_days)", "conversations", n, "idle_for_more_than", p.keep)
		}
		if p.sleep(ctx, pruneEvery) != nil {
			return
		}
	}
}
