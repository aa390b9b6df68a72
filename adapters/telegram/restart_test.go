package telegram_test

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/telegram"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// keyRecorder records the keys of the messages it is handed.
type keyRecorder struct {
	mu      sync.Mutex
	keys    []string
	changed chan struct{} // closed and replaced on every message
	// stopAt, once that many messages arrived, stops Run from inside the
	// handler: before its next poll can confirm them to the fake, so only
	// the saved offset tells the next run where to start.
	stopAt int
	stop   context.CancelFunc
}

func newKeyRecorder() *keyRecorder { return &keyRecorder{changed: make(chan struct{})} }

func (r *keyRecorder) HandleMessage(_ context.Context, m chat.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keys = append(r.keys, m.Key)
	if len(r.keys) == r.stopAt {
		r.stop()
	}
	close(r.changed)
	r.changed = make(chan struct{})
	return nil
}

// wait blocks until n messages arrived or ctx ends.
func (r *keyRecorder) wait(ctx context.Context, n int) error {
	for {
		r.mu.Lock()
		have, ch := len(r.keys), r.changed
		r.mu.Unlock()
		if have >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
func (r *keyRecorder) HandleAction(context.Context, chat.Action) error   { return nil }
func (r *keyRecorder) HandleCommand(context.Context, chat.Command) error { return nil }

func (r *keyRecorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.keys)
}

// TestRestartLosesAndRepeatsNothing: a second adapter on the same store
// resumes from the saved offset, against the full fake.
func TestRestartLosesAndRepeatsNothing(t *testing.T) {
	srv := telegramtest.NewServer(telegramtest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	db, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	srv.AddUser(11, "Alice", "alice")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	// run starts an adapter, waits until rec holds want, then stops it.
	run := func(rec *keyRecorder, want int) {
		t.Helper()
		ad, err := telegram.New(telegram.Config{Token: srv.Token(), APIURL: srv.URL, State: db, PollTimeout: 5 * time.Second,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		rctx, stop := context.WithCancel(ctx)
		rec.stopAt, rec.stop = want, stop
		done := make(chan error, 1)
		go func() { done <- ad.Run(rctx, rec) }()
		if err := rec.wait(ctx, want); err != nil {
			t.Fatalf("waiting for %d messages (have %v): %v", want, rec.got(), err)
		}
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	}

	srv.Post(telegramtest.Incoming{Chat: 11, From: 11, Text: "one"})
	srv.Post(telegramtest.Incoming{Chat: 11, From: 11, Text: "two"})
	first := newKeyRecorder()
	run(first, 2)

	p := srv.Post(telegramtest.Incoming{Chat: 11, From: 11, Text: "three"})
	second := newKeyRecorder()
	run(second, 1)

	all := append(first.got(), second.got()...)
	if len(all) != 3 || slices.Contains(first.got(), second.got()[0]) || second.got()[0] != "telegram:11:"+strconv.Itoa(p.MessageID) {
		t.Errorf("first run %v, second run %v; want the three messages once each, the third after the restart", first.got(), second.got())
	}
}
