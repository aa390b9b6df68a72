package webconsole_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

// history_search over the console benchmark's store (bench_test.go:
// 10,000 conversations, 1,000,000 messages), as a person asks it — in a
// channel (that channel's 83,000 messages), and in their private chat
// (the four Slack channels they wrote in: 333,000) — through
// bot.HistoryReach and the store's index, reporting p50 and p95 in
// milliseconds (#31: p95 ≤ 50 ms):
//
//	go test -tags sqlite_fts5 -run '^$' -bench BenchmarkHistorySearch -benchtime 200x ./webconsole/
//
// The same with PARLEY_TEST_POSTGRES_URL set measures PostgreSQL too.

// historyStore is what the benchmark needs of either engine.
type historyStore interface {
	bot.HistoryIndex
	FinishTurn(ctx context.Context, keys []string, t bot.TurnRecord) error
}

func BenchmarkHistorySearch(b *testing.B) {
	path := benchPath(b)
	b.Run("sqlite", func(b *testing.B) { benchHistory(b, benchSQLite(b, path)) })
	b.Run("postgres", func(b *testing.B) { benchHistory(b, benchPostgres(b, path)) })
}

func benchHistory(b *testing.B, db historyStore) {
	ctx := b.Context()
	person := chat.User{Platform: "slack", ID: "U0007", Name: "Person slack 7"}
	dm := chat.Thread{Platform: "slack", Space: "W1", Chat: "D0007"}
	// Where the person has written: the four Slack channels and their DM.
	for _, c := range []string{"C00", "C03", "C06", "C09"} {
		rec := bot.TurnRecord{At: time.Now(), Outcome: bot.TurnAnswered, ChatName: c,
			Where: bot.Where{Thread: chat.Thread{Platform: "slack", Space: "W1", Chat: c, ID: "t1"}, User: person}}
		if err := db.FinishTurn(ctx, nil, rec); err != nil {
			b.Fatal(err)
		}
	}
	reach := bot.HistoryReach{Index: db, Member: func(context.Context, chat.Thread, chat.User) bool { return true }}
	channel := bot.Where{Thread: chat.Thread{Platform: "slack", Space: "W1", Chat: "C03", ID: "t9"}, User: person}
	private := bot.Where{Thread: dm, User: person, Direct: true}
	for _, c := range []struct {
		name  string
		where bot.Where
		q     agent.HistoryQuery
	}{
		{"channel/project", channel, agent.HistoryQuery{Query: benchProject(7)}},
		{"channel/common", channel, agent.HistoryQuery{Query: "deploy"}},
		{"channel/chinese", channel, agent.HistoryQuery{Query: "设备"}},
		{"channel/who", channel, agent.HistoryQuery{Query: "deploy database", Who: "Other"}},
		{"channel/two", channel, agent.HistoryQuery{Query: "deploy database"}},
		{"private/project", private, agent.HistoryQuery{Query: benchProject(7)}},
		{"private/common", private, agent.HistoryQuery{Query: "deploy"}},
		{"private/common-words", private, agent.HistoryQuery{Query: "deploy build server"}},
		{"private/since", private, agent.HistoryQuery{Query: "deploy", Since: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.q.Limit = 10
			hits, err := reach.Search(ctx, c.where, person.Name, c.q)
			if err != nil || len(hits) == 0 {
				b.Fatalf("%+v: %d hits, %v", c.q, len(hits), err)
			}
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := reach.Search(ctx, c.where, person.Name, c.q); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			ms := func(q float64) float64 {
				return float64(took[min(int(q*float64(len(took))), len(took)-1)]) / float64(time.Millisecond)
			}
			b.ReportMetric(ms(0.50), "p50-ms")
			b.ReportMetric(ms(0.95), "p95-ms")
		})
	}
}
