package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestPrunerRuns: the prune runs at start and every hour, with the
// cutoff keep_days back from now; a failure is logged and tried again.
func TestPrunerRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		var logs bytes.Buffer
		start := time.Now()
		var cutoffs []time.Time
		p := newPruner(30, func(_ context.Context, cutoff time.Time) (int, error) {
			cutoffs = append(cutoffs, cutoff)
			if len(cutoffs) == 2 {
				return 0, errors.New("database is locked")
			}
			return 3, nil
		}, slog.New(slog.NewTextHandler(&logs, nil)))
		done := make(chan struct{})
		go func() { p.run(ctx); close(done) }()
		time.Sleep(2*pruneEvery + time.Minute)
		cancel()
		<-done
		if len(cutoffs) != 3 {
			t.Fatalf("pruned %d times in two hours, want 3 (at start, then hourly)", len(cutoffs))
		}
		for i, c := range cutoffs {
			if want := start.Add(time.Duration(i)*pruneEvery - 30*24*time.Hour); !c.Equal(want) {
				t.Errorf("cutoff %d = %v, want %v", i, c, want)
			}
		}
		if !strings.Contains(logs.String(), "database is locked") || strings.Count(logs.String(), "conversations=3") != 2 {
			t.Errorf("logs:\n%s", logs.String())
		}
	})
}
