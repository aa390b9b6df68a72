package telegram

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
)

// TestConnected: not before Run, while polling, not after a failed poll
// until one succeeds again, and not once Run returned.
func TestConnected(t *testing.T) {
	srv, a := newFileFake(t)
	a.sleep = func(ctx context.Context, _ time.Duration) error { return ctx.Err() } // retry at once
	if a.Connected() {
		t.Fatal("connected before Run")
	}
	stop := running(t, a, newRecorder())
	ctx, cancel := context.WithTimeout(t.Context(), hangLimit)
	defer cancel()
	if err := srv.WaitFor(ctx, func() bool { return srv.Polling() && a.Connected() }); err != nil {
		t.Fatalf("not connected while polling: %v", err)
	}
	srv.FailNext("getUpdates", telegramtest.Fault{Status: http.StatusBadGateway})
	// The fault meets the poll after the one waiting now (1 s at most).
	if err := srv.WaitFor(ctx, func() bool { return !a.Connected() }); err != nil {
		t.Fatalf("still connected after a failed poll: %v", err)
	}
	if err := srv.WaitFor(ctx, func() bool { return srv.Polling() && a.Connected() }); err != nil {
		t.Fatalf("not connected again once polling works: %v", err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if a.Connected() {
		t.Fatal("connected after Run returned")
	}
}
