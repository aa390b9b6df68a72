package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/anthropic"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
)

// specTool is a tool the model is offered and never calls: it gives the
// prompt the size real tool sets give it.
type specTool struct{ spec llm.ToolSpec }

func (s specTool) Spec() llm.ToolSpec { return s.spec }

func (t specTool) Name() string { return t.Spec().Name }
func (specTool) Execute(context.Context, agent.Caller, json.RawMessage) (string, error) {
	return "", nil
}

func toolSet() []agent.Tool {
	var out []agent.Tool
	for i, name := range []string{"web_fetch", "kb_search", "remind", "schedule", "todo", "jira_search"} {
		desc := fmt.Sprintf("Tool %d: %s. ", i, name) + strings.Repeat("Use it when the person asks for what it does, and say what it returned. ", 8)
		schema := fmt.Sprintf(`{"type":"object","properties":{"query":{"type":"string","description":%q},"limit":{"type":"integer","minimum":1,"maximum":50}},"required":["query"]}`,
			strings.Repeat("What to look for, in the person's words. ", 4))
		out = append(out, specTool{llm.ToolSpec{Name: name, Description: desc, Schema: json.RawMessage(schema)}})
	}
	return out
}

// cacheRig is the harness's runner on one provider of the fake, through a
// Registry (as Parley builds it), offered a realistic tool set, with a
// clock that moves a few minutes per turn.
type cacheRig struct {
	*harness
	sid string
	now time.Time
}

func newCacheRig(t *testing.T, model string) *cacheRig {
	t.Helper()
	h := newHarness(t, toolSet()...)
	reg := llm.NewRegistry()
	reg.Register(llm.OpenAI, openai.New(openai.Config{APIKey: "k", BaseURL: h.srv.OpenAIBaseURL()}))
	reg.Register(llm.Anthropic, anthropic.New(anthropic.Config{APIKey: "k", BaseURL: h.srv.AnthropicBaseURL()}))
	p, err := reg.Resolve(model)
	if err != nil {
		t.Fatal(err)
	}
	rig := &cacheRig{harness: h, sid: h.session(t, "C1"), now: time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)}
	h.runner.Provider = p
	h.runner.Now = func() time.Time { return rig.now }
	return rig
}

// turn runs one turn, the clock three minutes on from the last.
func (r *cacheRig) turn(t *testing.T, text string) llm.Usage {
	t.Helper()
	r.now = r.now.Add(3 * time.Minute)
	if r.srv.Pending() == 0 { // an answer of a few hundred characters, like a chat's
		r.srv.Enqueue(llmtest.Text("Here is what I found about that: ", strings.Repeat("a detail worth knowing, ", 12), "done."))
	}
	res, err := r.runner.RunSync(t.Context(), agent.Turn{
		SessionID: r.sid, Text: text,
		Caller: agent.Caller{UserKey: "slack:U1", UserName: "ana"},
		Place:  agent.Place{Platform: "slack", ChatName: "#eng", ChatKind: "channel", Thread: "1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Usage
}

// stripMarks removes cache_control from JSON values, recursively: a mark
// moves as the conversation grows, and is not part of the prefix.
func stripMarks(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if k != "cache_control" {
				out[k] = stripMarks(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = stripMarks(e)
		}
		return out
	}
	return v
}

func marshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStablePrefix: two turns minutes apart send the same prompt prefix
// byte for byte — tools, system prompt, the first turn — so the second
// reads it from the cache; the time is in the message, not the system
// prompt, and the transcript keeps what the person wrote.
func TestStablePrefix(t *testing.T) {
	t.Run("anthropic", func(t *testing.T) {
		r := newCacheRig(t, "claude-sonnet-4-5")
		r.turn(t, "What did we decide about the deploy freeze?")
		second := r.turn(t, "And who owns the rollback plan?")
		reqs := r.srv.Requests()
		a, b := reqs[0].JSON, reqs[1].JSON
		for _, key := range []string{"tools", "system"} {
			if marshal(t, stripMarks(a[key])) != marshal(t, stripMarks(b[key])) {
				t.Errorf("%s differ between the turns", key)
			}
		}
		first := a["messages"].([]any)
		later := b["messages"].([]any)[:len(first)]
		if marshal(t, stripMarks(first)) != marshal(t, stripMarks(later)) {
			t.Errorf("the first turn's messages differ in the second:\n%s\n%s", marshal(t, first), marshal(t, later))
		}
		if strings.Contains(marshal(t, b["system"]), "2026") {
			t.Errorf("the system prompt holds the time: %s", marshal(t, b["system"]))
		}
		if got := reqs[1].CacheBreakpoints(); len(got) != 2 || got[0] != "system[0]" || got[1] != "messages[2].content[0]" {
			t.Errorf("breakpoints %v, want the system prompt and the conversation's last block", got)
		}
		if second.CachedTokens < second.InputTokens/2 {
			t.Errorf("second turn usage %+v: want most of it read from the cache", second)
		}
	})
	t.Run("openai", func(t *testing.T) {
		r := newCacheRig(t, "gpt-4.1-mini")
		r.turn(t, "What did we decide about the deploy freeze?")
		second := r.turn(t, "And who owns the rollback plan?")
		reqs := r.srv.Requests()
		first, later := marshal(t, reqs[0].JSON["messages"]), marshal(t, reqs[1].JSON["messages"])
		if !strings.HasPrefix(later, strings.TrimSuffix(first, "]")) {
			t.Errorf("the second request does not extend the first byte for byte:\n%s\n%s", first, later)
		}
		if marshal(t, reqs[0].JSON["tools"]) != marshal(t, reqs[1].JSON["tools"]) {
			t.Error("tools differ between the turns")
		}
		if k := reqs[0].PromptCacheKey(); k == "" || k != reqs[1].PromptCacheKey() {
			t.Errorf("prompt_cache_key %q then %q, want one per conversation", k, reqs[1].PromptCacheKey())
		}
		if second.CachedTokens == 0 {
			t.Errorf("second turn usage %+v: nothing read from the cache", second)
		}
		msgs, err := r.runner.Sessions.Messages(t.Context(), r.sid)
		if err != nil {
			t.Fatal(err)
		}
		if msgs[0].Text != "What did we decide about the deploy freeze?" || msgs[0].Preamble != "[Sent Saturday, 2026-11-21 09:03 UTC]" {
			t.Errorf("stored %+v, want the person's text and the time apart", msgs[0])
		}
		if msgs[1].Model != "openai/gpt-4.1-mini" || msgs[1].Usage == nil || msgs[1].Usage.InputTokens == 0 {
			t.Errorf("answer stored as %+v, want it stamped with its model and usage", msgs[1])
		}
	})
}

// TestPromptCacheTwentyTurns measures what the prompt cache saves over a
// 20-turn conversation, by the fake's accounting, against the layout
// before it (a system prompt that changed every turn: it opened with the
// time). Run with -v for the figures docs/models.md quotes.
func TestPromptCacheTwentyTurns(t *testing.T) {
	for _, tc := range []struct {
		model    string
		minShare float64 // of all input tokens, read from the cache
		// The provider's price of a token read from / written to the
		// cache, in input tokens: Anthropic a tenth / a quarter more,
		// OpenAI's gpt-4.1 family a quarter / nothing more.
		read, write float64
	}{{"claude-sonnet-4-5", 0.8, 0.1, 1.25}, {"gpt-4.1-mini", 0.6, 0.25, 1}} {
		t.Run(tc.model, func(t *testing.T) {
			var stable, volatile llm.Usage
			for _, moving := range []bool{false, true} {
				r := newCacheRig(t, tc.model)
				var sum llm.Usage
				for i := range 20 {
					if moving { // what the time to the minute did to the old system prompt
						r.runner.Persona = fmt.Sprintf("Current time: %s. %s", r.now.Add(3*time.Minute).Format(time.RFC1123), agent.DefaultPersona)
					}
					sum = sum.Add(r.turn(t, fmt.Sprintf("Question %d: what about the service-%d deploy, and who is on call for it this week?", i+1, i)))
				}
				if moving {
					volatile = sum
				} else {
					stable = sum
				}
			}
			share := float64(stable.CachedTokens) / float64(stable.InputTokens)
			billed := float64(stable.InputTokens-stable.CachedTokens-stable.CacheWriteTokens) +
				tc.read*float64(stable.CachedTokens) + tc.write*float64(stable.CacheWriteTokens)
			t.Logf("%s, 20 turns: %d input tokens, %d read from the cache (%.0f%%), %d written "+
				"(billed like %.0f input tokens); a system prompt that changes every turn: %d input, %d cached",
				tc.model, stable.InputTokens, stable.CachedTokens, 100*share, stable.CacheWriteTokens,
				billed, volatile.InputTokens, volatile.CachedTokens)
			if share < tc.minShare || volatile.CachedTokens != 0 {
				t.Errorf("cached share %.2f, want at least %.2f; the volatile layout cached %d, want 0", share, tc.minShare, volatile.CachedTokens)
			}
		})
	}
}
