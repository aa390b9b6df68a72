package outbound_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// benchDelivery returns a Delivery on a fake platform that records but
// does not enforce limits, paced at one call per every and chat.
func benchDelivery(b *testing.B, every time.Duration) (*outbound.Delivery, *bottest.Adapter) {
	caps := bottest.DefaultCapabilities()
	caps.EditEvery = every
	fake := bottest.New(bottest.Config{Capabilities: caps, LimitEvery: -1, DiscardCalls: true})
	d, err := outbound.NewDelivery(outbound.DeliveryConfig{
		Adapter:     fake,
		Outbox:      &bottest.Outbox{},
		Split:       testSplit,
		Logger:      slog.New(slog.DiscardHandler),
		TypingEvery: -1,
	})
	if err != nil {
		b.Fatal(err)
	}
	return d, fake
}

// BenchmarkDeliveryStreams: 1,000 replies stream at once, each in its own
// chat, while deltas arrive from GOMAXPROCS goroutines. One op is one
// delta; calls/delta shows how much coalescing saved. Every 200th delta of
// a reply is a Reset instead, so answers stay answer-sized (~800 bytes)
// however long the benchmark runs.
func BenchmarkDeliveryStreams(b *testing.B) {
	const streams = 1000
	for _, bc := range []struct {
		name  string
		every time.Duration
	}{
		{"paced=1s", time.Second},             // Telegram-like: one edit per chat and second
		{"paced=10ms", 10 * time.Millisecond}, // busy pumps
	} {
		b.Run(bc.name, func(b *testing.B) {
			d, fake := benchDelivery(b, bc.every)
			ctx := context.Background()
			ws := make([]*outbound.ReplyWriter, streams)
			for i := range ws {
				th := chat.Thread{Platform: "fake", Space: "W", Chat: fmt.Sprint(i)}
				w, err := d.Begin(ctx, fmt.Sprintf("k%d", i), "s", th, chat.User{Platform: "fake", ID: "u"}, "")
				if err != nil {
					b.Fatal(err)
				}
				ws[i] = w
			}
			var next atomic.Uint64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					n := next.Add(1)
					if w := ws[n%streams]; (n/streams)%200 == 199 {
						w.Reset(ctx)
					} else {
						w.Delta(ctx, "tok ")
					}
				}
			})
			b.StopTimer()
			var wg sync.WaitGroup
			for _, w := range ws {
				wg.Go(func() {
					if err := w.Finish(ctx, "done"); err != nil {
						b.Error(err)
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(fake.Count(bottest.OpEdit)+fake.Count(bottest.OpSend))/float64(b.N), "calls/delta")
		})
	}
}

// BenchmarkDeliveryReply: the whole life of one short reply on an
// unpaced platform: Begin, ten deltas, Finish. One op is one reply.
func BenchmarkDeliveryReply(b *testing.B) {
	d, _ := benchDelivery(b, 0)
	ctx := context.Background()
	th := chat.Thread{Platform: "fake", Space: "W", Chat: "C"}
	u := chat.User{Platform: "fake", ID: "u"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w, err := d.Begin(ctx, fmt.Sprintf("k%d", i), "s", th, u, "")
		if err != nil {
			b.Fatal(err)
		}
		for range 10 {
			w.Delta(ctx, "tok ")
		}
		if err := w.Finish(ctx, "the answer"); err != nil {
			b.Fatal(err)
		}
	}
}
