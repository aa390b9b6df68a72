package bottest

import (
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// checkShortAnswer: an answer the model finishes before the first frame is
// due goes out through the core's own Delivery as one message created
// with its final text: one Send, no Edit, no native stream, no
// placeholder (docs/architecture.md, "One reply, one message").
func checkShortAnswer(t *testing.T, newHarness func(*testing.T) Harness) {
	for _, kind := range confKinds {
		t.Run(kind.String(), func(t *testing.T) {
			h := newHarness(t)
			ctx := confContext(t)
			startConfRun(t, h.Adapter())
			alice := h.User("alice")
			th := h.Thread(kind, alice)
			c := &countCalls{Adapter: h.Adapter()}
			d, err := outbound.NewDelivery(outbound.DeliveryConfig{Adapter: c, Outbox: &Outbox{}, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			w, err := d.Begin(ctx, "conformance-short", "s1", th, alice, "")
			if err != nil {
				t.Fatal(err)
			}
			const answer = "conformance short answer"
			w.Delta(ctx, "conformance short")
			if err := w.Finish(ctx, answer); err != nil {
				t.Fatalf("Finish: %v", noLimits(err))
			}
			if sends, edits, streams := c.counts(); sends != 1 || edits != 0 || streams != 0 {
				t.Errorf("%d sends, %d edits, %d native streams; want one send and nothing else", sends, edits, streams)
			}
			vis := h.Visible(th)
			if len(vis) != 1 || vis[0].Text != answer {
				t.Errorf("the conversation shows %s; want one message reading %q", describeVisible(vis), answer)
			}
		})
	}
}

// countCalls counts the calls that show text. It hides whether the
// adapter streams natively: a short answer must not need to know.
type countCalls struct {
	chat.Adapter
	mu                    sync.Mutex
	sends, edits, streams int
}

func (c *countCalls) Send(ctx context.Context, t chat.Thread, out chat.Out) (chat.MessageRef, error) {
	c.mu.Lock()
	c.sends++
	c.mu.Unlock()
	return c.Adapter.Send(ctx, t, out)
}

func (c *countCalls) Edit(ctx context.Context, ref chat.MessageRef, out chat.Out) error {
	c.mu.Lock()
	c.edits++
	c.mu.Unlock()
	return c.Adapter.Edit(ctx, ref, out)
}

// StreamsIn and StartStream make countCalls a Streamer whenever the
// adapter is one, counting every stream started.
func (c *countCalls) StreamsIn(t chat.Thread) bool {
	s, ok := c.Adapter.(chat.Streamer)
	return ok && s.StreamsIn(t)
}

func (c *countCalls) StartStream(ctx context.Context, t chat.Thread, u chat.User) (chat.Stream, error) {
	c.mu.Lock()
	c.streams++
	c.mu.Unlock()
	return c.Adapter.(chat.Streamer).StartStream(ctx, t, u)
}

func (c *countCalls) counts() (sends, edits, streams int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sends, c.edits, c.streams
}
