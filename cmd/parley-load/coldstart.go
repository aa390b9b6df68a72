package main

// -restarts: the time from exec to Parley's first long poll, on a new
// database and on an existing one.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// coldStart is one start of Parley until it polled.
type coldStart struct {
	NewDatabase bool   `json:"new_database"`
	SinceExec   millis `json:"since_exec_ms"` // exec → the fake sees the first getUpdates
}

// coldStarts starts Parley f.restarts times in dir, each until it polls
// the fake, and stops it, timing exec → first getUpdates: the first start
// creates the database, the others open it as a restart does.
func (f *footprint) coldStarts(ctx context.Context, bin, dir string, env map[string]string, plat platform, grace time.Duration, logger *slog.Logger) ([]coldStart, error) {
	if f.restarts == 0 {
		return nil, nil
	}
	tg, ok := plat.(*telegram)
	if !ok {
		return nil, errors.New("-restarts needs -platform telegram")
	}
	var out []coldStart
	for i := range f.restarts {
		at := time.Now()
		p, err := startParley(bin, dir, env)
		if err != nil {
			return nil, err
		}
		if err := awaitReady(ctx, plat); err != nil {
			_ = p.stop(grace)
			return nil, fmt.Errorf("start %d: parley did not poll (see %s): %w", i, p.logPath, err)
		}
		c := coldStart{NewDatabase: i == 0, SinceExec: millis(time.Since(at))}
		out = append(out, c)
		logger.Info("cold start", "start", i, "new_database", c.NewDatabase, "since_exec", c.SinceExec)
		if err := p.stop(grace); err != nil {
			return nil, fmt.Errorf("start %d: stop: %w", i, err)
		}
		// The fake sees the poll's connection close a moment later; the
		// next start must not be taken for ready before it polls.
		if err := tg.srv.WaitFor(ctx, func() bool { return !tg.srv.Polling() }); err != nil {
			return nil, err
		}
	}
	return out, nil
}
