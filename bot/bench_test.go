package bot_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/store"
)

// nopReply discards the answer: the benchmarks measure the router.
type nopReply struct{}

func (nopReply) Delta(context.Context, string) error    { return nil }
func (nopReply) Reset(context.Context) error            { return nil }
func (nopReply) Progress(context.Context, string) error { return nil }
func (nopReply) Finish(context.Context, string) error   { return nil }

func benchRouter(b *testing.B) (*bot.Router, *store.DB) {
	b.Helper()
	db, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "parley.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	runner := &agent.Runner{RunnerConfig: agent.RunnerConfig{
		Provider: llmtest.NewInstant(llm.Response{Text: "fine, thanks", StopReason: llm.StopEnd}),
		Sessions: db, Memory: db, Logger: slog.New(slog.DiscardHandler),
	}}
	r := newRouter(b, bot.RouterConfig{
		Sessions: db, Inbox: db, KV: db, Runner: runner,
		Commands: bot.NewSharedCommands(db, db, agent.MemoryLimits{}),
		Reply: func(context.Context, chat.Adapter, string, string, chat.Thread, chat.User, string) (outbound.Reply, error) {
			return nopReply{}, nil
		},
		Logger: slog.New(slog.DiscardHandler),
	}, &chatFake{platform: "slack"})
	return r, db
}

// BenchmarkRouterMessage is one inbound message, opening a conversation,
// end to end through the router with a zero-latency model: gate, access,
// durable inbox, session binding, queue, turn (prompt, transcript writes),
// inbox done. SQLite writes (WAL, real file) dominate.
func BenchmarkRouterMessage(b *testing.B) {
	r, _ := benchRouter(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		m := msg("slack", fmt.Sprint("C", i), "", "U1", fmt.Sprint("k", i), "how are you?")
		m.Direct = true
		if err := r.HandleMessage(b.Context(), m); err != nil {
			b.Fatal(err)
		}
	}
	r.Wait()
}

// BenchmarkIdleSessionMemory reports the heap a conversation keeps after
// its turn ends: the router drops per-session state when a queue drains,
// so idle sessions live only in SQLite.
func BenchmarkIdleSessionMemory(b *testing.B) {
	r, _ := benchRouter(b)
	const sessions = 1000
	var before, after runtime.MemStats
	round := 0
	for b.Loop() {
		round++
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range sessions {
			m := msg("slack", fmt.Sprint("C", i), "", "U1", fmt.Sprint(round, "-", i), "hello")
			m.Direct = true
			if err := r.HandleMessage(b.Context(), m); err != nil {
				b.Fatal(err)
			}
		}
		r.Wait()
		runtime.GC()
		runtime.ReadMemStats(&after)
	}
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/sessions, "heap-bytes/idle-session")
}
