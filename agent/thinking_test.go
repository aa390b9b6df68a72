package agent_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/anthropic"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
)

func ofKind(evs []agent.Event, k agent.EventKind) []agent.Event {
	var out []agent.Event
	for _, ev := range evs {
		if ev.Kind == k {
			out = append(out, ev)
		}
	}
	return out
}

// TestThinkingKeptAndHidden: an answer's thinking is stored with it, with
// the model that wrote it, and goes back to that model on the next turn;
// it reaches the chat as events only with ShowThinking.
func TestThinkingKeptAndHidden(t *testing.T) {
	for _, show := range []bool{false, true} {
		r := newCacheRig(t, "claude-sonnet-4-5")
		r.runner.Reasoning = llm.Reasoning{Budget: 2048, Effort: "low"}
		r.runner.ShowThinking = show
		r.srv.Enqueue(llmtest.Text("42").WithThinking("Six times ", "seven."), llmtest.Text("Because."))
		evs, err := collect(t.Context(), r.runner, agent.Turn{SessionID: r.sid, Text: "six times seven?",
			Caller: agent.Caller{UserKey: "slack:U1", UserName: "ana"}})
		if err != nil {
			t.Fatal(err)
		}
		thinking := ofKind(evs, agent.EventThinking)
		if show != (len(thinking) == 2) || show && (thinking[0].Text != "Six times " || thinking[1].Text != "Six times seven.") {
			t.Errorf("show %v: thinking events %+v", show, thinking)
		}
		if done := ofKind(evs, agent.EventDone); done[0].Text != "42" || done[0].Model != "anthropic/claude-sonnet-4-5" {
			t.Errorf("done: %+v", done[0])
		}
		r.turn(t, "why?")
		msgs, err := r.runner.Sessions.Messages(t.Context(), r.sid)
		if err != nil {
			t.Fatal(err)
		}
		if a := msgs[1]; a.Model != "anthropic/claude-sonnet-4-5" || len(a.Thinking) != 1 || a.Thinking[0].Text != "Six times seven." ||
			a.Thinking[0].Signature != llmtest.Signature("claude-sonnet-4-5", "Six times seven.") {
			t.Errorf("stored answer %+v", a)
		}
		reqs := r.srv.Requests()
		if reqs[0].ThinkingBudget() != 2048 {
			t.Errorf("thinking budget %d, want 2048", reqs[0].ThinkingBudget())
		}
		if got := reqs[1].ThinkingBlocks(); len(got) != 1 || got[0].Thinking != "Six times seven." {
			t.Errorf("second turn sent thinking %+v, want the first answer's", got)
		}
	}
}

// TestRunnerFallback: Anthropic refuses the key; the turn is answered on
// OpenAI at once, the reply is told (a retry naming the model, its text
// void), the answer is stamped with the model that wrote it, and /status's
// measure names it.
func TestRunnerFallback(t *testing.T) {
	r := newCacheRig(t, "claude-sonnet-4-5")
	reg := llm.NewRegistry()
	reg.Register(llm.Anthropic, anthropic.New(anthropic.Config{APIKey: "k", BaseURL: r.srv.AnthropicBaseURL()}))
	reg.Register(llm.OpenAI, openai.New(openai.Config{APIKey: "k", BaseURL: r.srv.OpenAIBaseURL()}))
	f, err := reg.Fallback([]string{"claude-sonnet-4-5", "gpt-4.1-mini"}, llm.FallbackOptions{Now: func() time.Time { return r.now }, Logger: r.runner.Logger})
	if err != nil {
		t.Fatal(err)
	}
	r.runner.Provider = f
	r.srv.Enqueue(llmtest.Status(http.StatusUnauthorized), llmtest.Text("from OpenAI"))
	evs, err := collect(t.Context(), r.runner, agent.Turn{SessionID: r.sid, Text: "hi",
		Caller: agent.Caller{UserKey: "slack:U1", UserName: "ana"}})
	if err != nil {
		t.Fatal(err)
	}
	retries := ofKind(evs, agent.EventRetry)
	if len(retries) != 1 || retries[0].Retry.Model != "openai/gpt-4.1-mini" || retries[0].Retry.Wait != 0 {
		t.Fatalf("retries %+v, want one naming the fallback model", retries)
	}
	if done := ofKind(evs, agent.EventDone); done[0].Model != "openai/gpt-4.1-mini" || done[0].Text != "from OpenAI" {
		t.Errorf("done %+v", done[0])
	}
	size, err := r.runner.Measure(t.Context(), r.sid)
	if err != nil {
		t.Fatal(err)
	}
	if size.Model != "openai/gpt-4.1-mini" || size.Usage.InputTokens == 0 {
		t.Errorf("measure %+v", size)
	}
	paths := []string{}
	for _, q := range r.srv.Requests() {
		paths = append(paths, q.Path)
	}
	if !slices.Equal(paths, []string{"/v1/messages", "/v1/chat/completions"}) {
		t.Errorf("requests %v", paths)
	}
}
