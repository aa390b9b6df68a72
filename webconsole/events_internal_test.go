package webconsole

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/webconsole/signin"
)

type loadOf struct {
	mu sync.Mutex
	l  bot.Load
}

func (f *loadOf) Load() bot.Load { f.mu.Lock(); defer f.mu.Unlock(); return f.l }
func (f *loadOf) set(l bot.Load) { f.mu.Lock(); defer f.mu.Unlock(); f.l = l }

// waiting has n approvals pending.
type waiting struct{ n int }

func (w waiting) PendingApprovals(context.Context) ([]approvals.Record, error) {
	return make([]approvals.Record, w.n), nil
}
func (waiting) ApprovalHistory(context.Context, approvals.HistoryFilter, int) ([]approvals.Record, error) {
	return nil, nil
}
func (waiting) DecideApproval(context.Context, string, chat.User, bool) (approvals.Outcome, error) {
	return approvals.Outcome{}, nil
}

// TestEventsStream: the live figures go out at once and then every
// eventsEvery, as they are then, until the browser goes.
func TestEventsStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &Server{cfg: Config{Logger: slog.New(slog.DiscardHandler)}}
		core := &loadOf{}
		s.UseLive(core, nil)
		s.UseApprovals(waiting{n: 2})
		ctx, cancel := context.WithCancel(t.Context())
		w := httptest.NewRecorder()
		done := make(chan struct{})
		go func() {
			defer close(done)
			s.events(w, httptest.NewRequestWithContext(ctx, "GET", "/events", nil), &signin.Session{})
		}()
		synctest.Wait()
		core.set(bot.Load{Running: 3, Waiting: 1, Queued: 4})
		time.Sleep(eventsEvery)
		synctest.Wait()
		cancel()
		<-done
		want := "event: load\ndata: {\"running\":0,\"waiting\":0,\"queued\":0,\"approvals\":2}\n\n" +
			"event: load\ndata: {\"running\":3,\"waiting\":1,\"queued\":4,\"approvals\":2}\n\n"
		if got := w.Body.String(); got != want {
			t.Fatalf("streamed:\n%q\nwant:\n%q", got, want)
		}
		if ct := w.Header().Get("Content-Type"); ct != "text/event-stream" {
			t.Fatalf("Content-Type %q", ct)
		}
	})
}
