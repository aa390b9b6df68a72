package bot_test

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
)

// TestAgentLimits: where an agent with limits of its own answers (eng, in
// #C2), a person is held to those, against what they spent with any
// agent; elsewhere (#C1) to the top level's. Admins are exempt as ever.
// The clock stands still, so a rate's bucket never refills.
func TestAgentLimits(t *testing.T) {
	type say struct {
		user, channel string
		told          string // what they alone are told: a refusal; "" answered
	}
	// Every answer reads 150 prompt tokens at $1 a million: $0.00015.
	tests := []struct {
		name     string
		top, eng bot.Limits
		says     []say
		// status is what /status in #C2 tells alice last.
		status []string
	}{
		{
			name: "a lower daily_tokens refuses where the default would not",
			top:  bot.Limits{DailyTokens: 1000}, eng: bot.Limits{DailyTokens: 100},
			says: []say{
				{"alice", "C1", ""},
				{"alice", "C2", "You have used today's budget of 100 model tokens"},
				{"alice", "C1", ""},
				{"root", "C2", ""},
				{"root", "C2", ""},
			},
			status: []string{"Your limits: 0 of 100 tokens left today"},
		},
		{
			name: "a higher daily_cost lets through what the top level refuses",
			top:  bot.Limits{DailyCost: 0.0001}, eng: bot.Limits{DailyCost: 1},
			says: []say{
				{"alice", "C1", ""},
				{"alice", "C1", "You have used today's budget of $0.0001"},
				{"alice", "C2", ""},
				{"alice", "C2", ""},
				{"root", "C1", ""},
			},
			status: []string{"$0.0005 yours today of $1.00"},
		},
		{
			name: "an agent's turns_per_minute is a bucket of its own",
			top:  bot.Limits{TurnsPerMinute: 1}, eng: bot.Limits{TurnsPerMinute: 3},
			says: []say{
				{"alice", "C1", ""},
				{"alice", "C1", "more than 1 messages a minute"},
				{"alice", "C2", ""},
				{"alice", "C2", ""},
				{"alice", "C2", ""},
				{"alice", "C2", "more than 3 messages a minute"},
				{"root", "C2", ""},
			},
			status: []string{"Your limits: 0 of 3 messages left this minute"},
		},
		{
			name: "the same rate shares the person's bucket",
			top:  bot.Limits{TurnsPerMinute: 2}, eng: bot.Limits{TurnsPerMinute: 2},
			says: []say{
				{"alice", "C1", ""},
				{"alice", "C2", ""},
				{"alice", "C2", "more than 2 messages a minute"},
				{"alice", "C1", "more than 2 messages a minute"},
			},
			status: []string{"Your limits: 0 of 2 messages left this minute"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, "slack", bot.Access{})
			now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
			runner := pricedRunner(t, w)
			place, err := chat.ParsePlaceSet("slack:channel:C2")
			if err != nil {
				t.Fatal(err)
			}
			ags, err := bot.NewAgents([]bot.Agent{
				{Name: bot.DefaultAgent, Runner: runner, Model: "openai/m"},
				{Name: "eng", Runner: runner, Model: "openai/m", Limits: &tt.eng},
			}, []bot.Binding{{Place: place, Agent: "eng"}})
			if err != nil {
				t.Fatal(err)
			}
			r := newRouter(t, bot.RouterConfig{
				Sessions: w.db, Inbox: w.db, KV: w.db, Runner: runner, Agents: ags, Costs: w.db, Limits: tt.top,
				Commands: bot.NewSharedCommands(w.db, w.db, agent.MemoryLimits{}),
				Access:   bot.Access{Admins: []string{"slack:root"}}, Reply: w.replies.factory,
				Logger: slog.New(slog.DiscardHandler), Now: func() time.Time { return now },
			}, w.fake)
			answered := 0
			for i, s := range tt.says {
				answer := llmtest.Text("ok")
				answer.Usage = llmtest.Usage{InputTokens: 150}
				w.srv.Enqueue(answer)
				m := msg("slack", s.channel, "1.1", s.user, fmt.Sprint("k", i), "hello")
				m.Mentioned = true
				_, before := w.fake.snapshot()
				r.HandleMessage(t.Context(), m)
				r.Wait()
				_, private := w.fake.snapshot()
				var told string // theirs, not the admins' notes
				for _, p := range private[len(before):] {
					if text, ok := strings.CutPrefix(p, s.user+"|"); ok {
						told += text
					}
				}
				if s.told == "" {
					answered++
				}
				if n := len(w.srv.Requests()); n != answered || !strings.Contains(told, s.told) {
					t.Fatalf("says[%d] (%s in %s): %d model requests, want %d; told %q, want %q", i, s.user, s.channel, n, answered, told, s.told)
				}
			}
			alice := msg("slack", "C2", "1.1", "alice", "s", "")
			if err := r.HandleCommand(t.Context(), chat.Command{Key: "status", Thread: alice.Thread, User: alice.User, Name: "status"}); err != nil {
				t.Fatal(err)
			}
			_, private := w.fake.snapshot()
			for _, want := range tt.status {
				if got := private[len(private)-1]; !strings.Contains(got, want) {
					t.Errorf("/status in #C2 lacks %q:\n%s", want, got)
				}
			}
		})
	}
}
