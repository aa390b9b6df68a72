package bot

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot/outbound"
)

// statusSpy records what a reply was told to show.
type statusSpy struct {
	statuses []string
	resets   int
}

func (s *statusSpy) Delta(context.Context, string) error  { return nil }
func (s *statusSpy) Reset(context.Context) error          { s.resets++; return nil }
func (s *statusSpy) Finish(context.Context, string) error { return nil }
func (s *statusSpy) Progress(_ context.Context, status string) error {
	s.statuses = append(s.statuses, status)
	return nil
}

// TestShowFallbackAndThinking: a call that moved to a fallback model says
// which one, dropping what the failed model streamed; thinking (sent only
// when llm.show_thinking is on) shows its latest words on one line.
func TestShowFallbackAndThinking(t *testing.T) {
	spy := &statusSpy{}
	fell := agent.Event{Kind: agent.EventRetry, Retry: &agent.RetryInfo{Attempt: 1, Err: errors.New("key rejected"), Reset: true, Model: "openai/gpt-4.1-mini"}}
	thought := agent.Event{Kind: agent.EventThinking, Text: strings.Repeat("x", 500) + "\nthe user wants   the deploy date"}
	for _, ev := range []agent.Event{fell, thought} {
		if err := show(t.Context(), spy, ev); err != nil {
			t.Fatal(err)
		}
	}
	if spy.resets != 1 || spy.statuses[0] != "model call failed (key rejected); continuing on openai/gpt-4.1-mini" {
		t.Errorf("fallback shown as %q after %d resets", spy.statuses[0], spy.resets)
	}
	got := spy.statuses[1]
	if !strings.HasPrefix(got, "💭 …") || !strings.HasSuffix(got, "x the user wants the deploy date") || len([]rune(got)) != outbound.MaxStatusRunes {
		t.Errorf("thinking shown as %q", got)
	}
}

// TestShowCompaction: the reply's status line tells a turn's own steps
// summarised (the turn tier) from the conversation compacted.
func TestShowCompaction(t *testing.T) {
	for _, tt := range []struct {
		method, want string
	}{
		{"model", "conversation compacted (9000 → 3000 tokens)"},
		{agent.MethodTurn, "earlier steps summarised (9000 → 3000 tokens)"},
		{agent.MethodTurnSnip + "+extractive", "earlier steps summarised (9000 → 3000 tokens)"},
	} {
		spy := &statusSpy{}
		ev := agent.Event{Kind: agent.EventCompaction, Compaction: &agent.CompactionInfo{Before: 9000, After: 3000, Method: tt.method}}
		if err := show(t.Context(), spy, ev); err != nil {
			t.Fatal(err)
		}
		if len(spy.statuses) != 1 || spy.statuses[0] != tt.want {
			t.Errorf("%s: shown as %q, want %q", tt.method, spy.statuses, tt.want)
		}
	}
}
