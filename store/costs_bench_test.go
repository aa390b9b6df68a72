package store_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
)

// BenchmarkRecordCost is what keeping one model call's cost adds to it.
func BenchmarkRecordCost(b *testing.B) {
	db := newDB(b)
	c := bot.Cost{At: time.Now(), User: "slack:U1", Agent: "default", Place: "slack:channel:C1", Session: "s1",
		Model: "openai/gpt-4.1-mini", Usage: llm.Usage{InputTokens: 12000, CachedTokens: 8000, OutputTokens: 300}, Nanos: 2_480_000, Priced: true}
	b.ReportAllocs()
	for b.Loop() {
		if err := db.RecordCost(b.Context(), c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSumCosts is the money limits' read before a turn (a person's
// day, an agent's month) and /usage's, over 100,000 calls of 200 people in
// 30 days.
func BenchmarkSumCosts(b *testing.B) {
	db := newDB(b)
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	for i := range 100_000 {
		c := bot.Cost{At: now.Add(-time.Duration(i) * 26 * time.Second), User: fmt.Sprintf("slack:U%d", i%200), Agent: []string{"default", "eng"}[i%2],
			Place: fmt.Sprintf("slack:channel:C%d", i%20), Session: fmt.Sprintf("s%d", i%5000), Model: "openai/gpt-4.1-mini",
			Usage: llm.Usage{InputTokens: 5000, OutputTokens: 200}, Nanos: 2_320_000, Priced: true}
		if err := db.RecordCost(b.Context(), c); err != nil {
			b.Fatal(err)
		}
	}
	day := now.Truncate(24 * time.Hour)
	month := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"person-today", func() error {
			_, err := db.SumCosts(b.Context(), bot.CostFilter{User: "slack:U7", Since: day, Until: day.AddDate(0, 0, 1)})
			return err
		}},
		{"agent-month", func() error {
			_, err := db.SumCosts(b.Context(), bot.CostFilter{Agent: "eng", Since: month, Until: month.AddDate(0, 1, 0)})
			return err
		}},
		{"by-person-30-days", func() error {
			_, err := db.CostsBy(b.Context(), bot.ByUser, bot.CostFilter{Since: day.AddDate(0, 0, -29)}, 10)
			return err
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if err := tc.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
