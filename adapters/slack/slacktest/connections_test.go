package slacktest_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"
	"github.com/slack-go/slack/socketmode"

	"github.com/parleybot/parley/adapters/slack/slacktest"
)

// received is one events_api envelope a client got.
type received struct {
	client   int
	envelope string
	ts       string // the message's
	attempt  int
}

// client is one of an app's Socket Mode connections, as each replica of
// a bot opens one.
type client struct {
	sm   *socketmode.Client
	stop func() // closes its connection and waits for it to end
}

// startClients opens n Socket Mode connections for one app, each
// reporting the message events it gets to out and acking those ack
// allows; it returns once the fake has them all open.
func startClients(t *testing.T, ctx context.Context, srv *slacktest.Server, api *slack.Client, n int,
	out chan<- received, ack func(received) bool) []client {
	t.Helper()
	clients := make([]client, n)
	for i := range clients {
		sm := runSocket(t, ctx, api)
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				select {
				case <-runCtx.Done():
					return
				case evt := <-sm.Events:
					if evt.Type != socketmode.EventTypeEventsAPI {
						continue
					}
					msg, ok := evt.Data.(slackevents.EventsAPIEvent).InnerEvent.Data.(*slackevents.MessageEvent)
					if !ok {
						continue
					}
					r := received{client: i, envelope: evt.Request.EnvelopeID, ts: msg.TimeStamp, attempt: evt.Request.RetryAttempt}
					if ack(r) {
						_ = sm.Ack(*evt.Request)
					}
					select {
					case out <- r:
					case <-runCtx.Done():
						return
					}
				}
			}
		}()
		var once sync.Once
		clients[i] = client{sm: sm, stop: func() { once.Do(func() { cancel(); <-done }) }}
		t.Cleanup(clients[i].stop)
	}
	if err := srv.WaitFor(ctx, func() bool { return srv.OpenConnections() == n }); err != nil {
		t.Fatalf("waiting for %d open connections: %v (%d open)", n, err, srv.OpenConnections())
	}
	return clients
}

func always(received) bool { return true }

// TestEventsSpreadOverConnections: with two connections open, each new
// event goes over one of them, in turn, so both get their share.
func TestEventsSpreadOverConnections(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t)
	out := make(chan received, 16)
	startClients(t, ctx, srv, api, 2, out, always)

	const posts = 6
	for i := range posts {
		srv.PostUserMessage(dm, alice, "hello "+string(rune('a'+i)), "")
	}
	per := map[int]int{}
	for range posts {
		select {
		case r := <-out:
			per[r.client]++
		case <-ctx.Done():
			t.Fatalf("events so far %v: %v", per, ctx.Err())
		}
	}
	if per[0] != posts/2 || per[1] != posts/2 {
		t.Fatalf("events per connection = %v, want %d each", per, posts/2)
	}
	if err := srv.WaitFor(ctx, func() bool { return len(srv.Acks()) == posts }); err != nil {
		t.Fatalf("acks = %d, want %d: %v", len(srv.Acks()), posts, err)
	}
}

// TestUnackedEnvelopeRedeliveredOverAnotherConnection: an envelope one
// connection leaves unacked comes again over the other, where its ack
// ends it: one ack, no further delivery.
func TestUnackedEnvelopeRedeliveredOverAnotherConnection(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t, slacktest.WithAckTimeout(100*time.Millisecond))
	out := make(chan received, 16)
	// The first sighting is left unacked, a redelivery acked.
	startClients(t, ctx, srv, api, 2, out, func(r received) bool { return r.attempt > 0 })

	ts := srv.PostUserMessage(dm, alice, "hello", "")
	var got []received
	for len(got) < 2 {
		select {
		case r := <-out:
			got = append(got, r)
		case <-ctx.Done():
			t.Fatalf("deliveries so far %+v: %v", got, ctx.Err())
		}
	}
	first, again := got[0], got[1]
	if first.ts != ts || again.envelope != first.envelope || again.attempt != 1 || again.client == first.client {
		t.Fatalf("deliveries %+v: want the same envelope again, retry 1, over the other connection", got)
	}
	if err := srv.WaitFor(ctx, func() bool { return len(srv.Acks()) == 1 }); err != nil {
		t.Fatal(err)
	}
	if a := srv.Acks(); a[0].EnvelopeID != first.envelope {
		t.Fatalf("acks %+v", a)
	}
	// Acked, it is no longer pending: nothing more comes, however long
	// past the ack deadline.
	select {
	case r := <-out:
		t.Fatalf("delivered again after its ack: %+v", r)
	case <-time.After(300 * time.Millisecond):
	}
	if d := srv.Delivered(); len(d) != 2 {
		t.Fatalf("Delivered = %+v, want the envelope twice", d)
	}
}

// TestConnectionClosingLosesNothing: one of two connections goes away
// with envelopes it never acked while people keep writing; every event
// is acked in the end, over the connection that stayed.
func TestConnectionClosingLosesNothing(t *testing.T) {
	ctx := testCtx(t)
	srv, api := newServer(t, slacktest.WithAckTimeout(100*time.Millisecond))
	out := make(chan received, 64)
	// Client 0 acks nothing: it dies with what it got.
	clients := startClients(t, ctx, srv, api, 2, out, func(r received) bool { return r.client != 0 })

	posted := map[string]bool{}
	post := func(n int) {
		for i := range n {
			posted[srv.PostUserMessage(dm, alice, "message "+string(rune('a'+len(posted)+i)), "")] = true
		}
	}
	post(4)
	// Wait until the doomed connection holds one, then close it.
	for doomed := false; !doomed; {
		select {
		case r := <-out:
			doomed = r.client == 0
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
	}
	clients[0].stop()
	post(4)

	acked := func() map[string]bool {
		ids := map[string]bool{}
		for _, a := range srv.Acks() {
			ids[a.EnvelopeID] = true
		}
		return ids
	}
	if err := srv.WaitFor(ctx, func() bool { return len(acked()) == len(posted) }); err != nil {
		t.Fatalf("acked %d of %d envelopes: %v", len(acked()), len(posted), err)
	}
	ids := acked()
	seen := map[string]bool{}
	for _, e := range srv.Delivered() {
		if !ids[e.EnvelopeID] {
			t.Errorf("envelope %s delivered, never acked", e.EnvelopeID)
		}
		seen[e.EnvelopeID] = true
	}
	if len(seen) != len(posted) {
		t.Fatalf("%d envelopes for %d messages", len(seen), len(posted))
	}
}
