package slack

import (
	"context"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/slack/slacktest"
)

// TestConnected: not before Run, connected once Socket Mode said hello,
// and not once Run returned.
func TestConnected(t *testing.T) {
	srv := slacktest.NewServer(slacktest.WithoutRateLimits())
	t.Cleanup(srv.Close)
	ad := newFileAdapter(t, srv)
	srv.AddUser("UALICE", "alice")
	srv.AddChannel("DALICE", "DALICE", slacktest.IM)
	if ad.Connected() {
		t.Fatal("connected before Run")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ad.Run(runCtx, &recordingHandler{}) }()

	// Events come after the hello on the one socket: once a message is
	// acknowledged, the hello was handled.
	if err := srv.WaitFor(ctx, srv.Connected); err != nil {
		t.Fatal(err)
	}
	srv.PostUserMessage("DALICE", "UALICE", "hello", "")
	if err := srv.WaitFor(ctx, func() bool { return len(srv.Acks()) > 0 }); err != nil {
		t.Fatalf("no ack: %v", err)
	}
	if !ad.Connected() {
		t.Fatal("not connected while receiving")
	}
	stop()
	<-done
	if ad.Connected() {
		t.Fatal("connected after Run returned")
	}
}
