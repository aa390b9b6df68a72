package evolve

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
)

func toolEnd(name, result string, isErr bool) agent.Event {
	return agent.Event{Kind: agent.EventToolEnd, Tool: &llm.ToolCall{Name: name, Arguments: []byte(`{"name":"deploy-checklist"}`)}, Result: result, IsError: isErr}
}

// netFailure is a tool's end as the runner emits it when the tool's
// typed error was the environment's (agent.Transient).
func netFailure(name, result string) agent.Event {
	ev := toolEnd(name, result, true)
	ev.Transient = true
	return ev
}

func TestSignals(t *testing.T) {
	retry := agent.Event{Kind: agent.EventRetry, Retry: &agent.RetryInfo{Attempt: 1, Err: errors.New("429")}}
	rateLimited := &llm.Error{Provider: "OpenAI", Kind: llm.KindRateLimit, Status: 429}
	tests := []struct {
		name    string
		events  []agent.Event
		err     error
		stopped bool
		want    Signals
	}{
		{name: "a plain answer", want: Signals{}},
		{name: "tools that worked", events: []agent.Event{toolEnd("web_fetch", "ok", false), toolEnd("shell", "ok", false)},
			want: Signals{ToolCalls: 2}},
		{name: "a real error, then an answer", events: []agent.Event{toolEnd("shell", "exit status 1: no such file", true), toolEnd("shell", "ok", false)},
			want: Signals{ToolCalls: 2, RealErrors: 1, Recovered: true}},
		{name: "a storm of network errors is transient only",
			events: []agent.Event{retry, retry, netFailure("web_fetch", "timed out after 30s"), netFailure("web_fetch", "HTTP 503 Service Unavailable"),
				netFailure("web_fetch", "fetch failed: read tcp: connection reset by peer")},
			err:  rateLimited,
			want: Signals{ToolCalls: 3, TransientErrors: 6}},
		{name: "the words of a failure are not its kind",
			events: []agent.Event{toolEnd("shell", "exit status 1\nHTTP 503 at line 512: unexpected EOF, timed out", true)},
			want:   Signals{ToolCalls: 1, RealErrors: 1, Recovered: true}},
		{name: "a run ending in a typed timeout", err: fmt.Errorf("turn: %w", context.DeadlineExceeded),
			want: Signals{TransientErrors: 1}},
		{name: "a run ending in words of a timeout", events: []agent.Event{toolEnd("shell", "exit status 1", true)}, err: errors.New("timed out: 503 EOF"),
			want: Signals{ToolCalls: 1, RealErrors: 1, EndedInRealError: true}},
		{name: "ended in a real error", events: []agent.Event{toolEnd("shell", "permission denied", true)}, err: errors.New("tool loop limit"),
			want: Signals{ToolCalls: 1, RealErrors: 1, EndedInRealError: true}},
		{name: "stopped is not ineffective", events: []agent.Event{toolEnd("shell", "permission denied", true)}, err: errors.New("context canceled"), stopped: true,
			want: Signals{ToolCalls: 1, RealErrors: 1, Stopped: true}},
		{name: "a skill read", events: []agent.Event{toolEnd("skill_read", "1. do this", false)},
			want: Signals{ToolCalls: 1, SkillsRead: []string{"deploy-checklist"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var o Observer
			for _, ev := range tt.events {
				o.Observe(ev)
			}
			got := o.End(tt.err, tt.stopped)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("signals = %+v\nwant      %+v", got, tt.want)
			}
		})
	}
}

func TestIsCorrection(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"No, the staging cluster is in eu-west-1", true},
		{"wrong — use the v2 endpoint", true},
		{"Actually it's the other repo", true},
		{"that's not what I asked", true},
		{"use pnpm instead", true},
		{"I meant the Friday release", true},
		{"不对，应该是周五发布", true},
		{"你搞错了", true},
		{"重新来一遍", true},
		{"違う、それじゃない", true},
		{"そうじゃなくて、こっち", true},
		{"그게 아니라 다른 거", true},
		{"thanks, that works", false},
		{"no problem, thanks!", false},
		{"great, now deploy it", false},
		{"谢谢，很好", false},
		{"ありがとう", false},
		{"what about the docs?", false},
	}
	for _, tt := range tests {
		if got := IsCorrection(tt.text); got != tt.want {
			t.Errorf("IsCorrection(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestScore(t *testing.T) {
	w := DefaultWeights()
	tests := []struct {
		name    string
		s       Signals
		want    float64
		warrant bool
	}{
		{"nothing", Signals{}, 0, false},
		{"corrected", Signals{Corrected: true}, 0.9, true},
		{"a skill read, then a real error", Signals{SkillsRead: []string{"x"}, EndedInRealError: true, RealErrors: 1}, 0.85, true},
		{"a skill read, stopped", Signals{SkillsRead: []string{"x"}, EndedInRealError: false, Stopped: true}, 0, false},
		{"recovered", Signals{RealErrors: 1, Recovered: true}, 0.8, true},
		{"a weakness", Signals{Weakness: true}, 0.7, true},
		{"complex", Signals{ToolCalls: 9}, 0.5, false},
		{"transient only, however many", Signals{TransientErrors: 50, ToolCalls: 4}, 0, false},
		{"the strongest counts", Signals{Corrected: true, RealErrors: 1, Recovered: true, ToolCalls: 20}, 0.9, true},
	}
	for _, tt := range tests {
		got := Score(tt.s, w)
		if got != tt.want || w.Warranted(got) != tt.warrant {
			t.Errorf("%s: score %v (warranted %v), want %v (%v)", tt.name, got, w.Warranted(got), tt.want, tt.warrant)
		}
	}
}

// A failed command's long output does not crowd the later tools out of
// what the run was about.
func TestAboutKeepsEveryTool(t *testing.T) {
	var o Observer
	o.Observe(toolEnd("shell", "exit status 1\n"+strings.Repeat("é noisy build output ", 1000), true))
	o.Observe(toolEnd("kb_search", "no results", false))
	about := o.About()
	if !strings.Contains(about, "kb_search") || len(about) > 1024 || !utf8.ValidString(about) {
		t.Errorf("about (%d bytes) lost the later tool or cut a rune: %.80q…", len(about), about)
	}
}
