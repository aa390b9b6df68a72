package llm_test

import (
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/anthropic"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
)

// clock is a manual clock for the breakers.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// rig is Anthropic (the primary) and OpenAI (the fallback), each on its
// own fake, behind a Fallback.
type rig struct {
	an, oa *llmtest.Server
	clock  *clock
	f      *llm.Fallback
}

func newRig(t *testing.T, chain ...string) *rig {
	t.Helper()
	r := &rig{an: llmtest.NewServer(), oa: llmtest.NewServer(), clock: &clock{now: time.Unix(1_700_000_000, 0)}}
	t.Cleanup(r.an.Close)
	t.Cleanup(r.oa.Close)
	reg := llm.NewRegistry()
	reg.Register(llm.Anthropic, anthropic.New(anthropic.Config{APIKey: "k", BaseURL: r.an.AnthropicBaseURL()}))
	reg.Register(llm.OpenAI, openai.New(openai.Config{APIKey: "k", BaseURL: r.oa.OpenAIBaseURL()}))
	f, err := reg.Fallback(chain, llm.FallbackOptions{Now: r.clock.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	r.f = f
	return r
}

var question = llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}

// call makes one call as the agent does, retrying what may be retried,
// and returns the answer and how many attempts it took.
func (r *rig) call(t *testing.T, req llm.Request) (*llm.Response, int) {
	t.Helper()
	for attempt := 1; attempt <= 5; attempt++ {
		resp, err := llm.Collect(r.f.Stream(t.Context(), req))
		if err == nil {
			return resp, attempt
		}
		if e, ok := llm.AsError(err); !ok || !e.Retryable() {
			t.Fatalf("attempt %d: %v", attempt, err)
		}
	}
	t.Fatal("no answer in 5 attempts")
	return nil, 0
}

// TestFallbackOnServerStorm: Anthropic answers 529 to everything; after
// the retries the call continues on OpenAI, and later calls go straight
// there until the cool-down ends.
func TestFallbackOnServerStorm(t *testing.T) {
	r := newRig(t, "claude-sonnet-4-5", "openai/gpt-4.1-mini")
	r.an.Enqueue(llmtest.Status(529), llmtest.Status(529), llmtest.Status(529))
	r.oa.Enqueue(llmtest.Text("from OpenAI"), llmtest.Text("still OpenAI"))
	resp, attempts := r.call(t, question)
	if resp.Model != "openai/gpt-4.1-mini" || resp.Text != "from OpenAI" || attempts != 3 {
		t.Fatalf("answered %q by %s after %d attempts; want OpenAI on the third", resp.Text, resp.Model, attempts)
	}
	if resp, _ = r.call(t, question); resp.Model != "openai/gpt-4.1-mini" || len(r.an.Requests()) != 3 {
		t.Fatalf("during the cool-down: answered by %s, Anthropic asked %d times", resp.Model, len(r.an.Requests()))
	}
	r.clock.Advance(time.Minute)
	r.an.Enqueue(llmtest.Text("Anthropic is back"))
	if resp, _ = r.call(t, question); resp.Model != "anthropic/claude-sonnet-4-5" || resp.Text != "Anthropic is back" {
		t.Fatalf("after the cool-down: %q by %s, want the primary", resp.Text, resp.Model)
	}
}

// TestFallbackOnAuth: a 401 from Anthropic moves the call to OpenAI at
// once, without retrying a key that will not work.
func TestFallbackOnAuth(t *testing.T) {
	r := newRig(t, "anthropic/claude-sonnet-4-5", "gpt-4.1-mini")
	r.an.Enqueue(llmtest.Status(http.StatusUnauthorized))
	r.oa.Enqueue(llmtest.Text("from OpenAI"))
	var fallback *llm.Event
	var resp *llm.Response
	for ev, err := range r.f.Stream(t.Context(), question) {
		if err != nil {
			t.Fatal(err)
		}
		switch ev.Kind {
		case llm.EventFallback:
			fallback = &ev
		case llm.EventDone:
			resp = ev.Response
		}
	}
	if fallback == nil || fallback.Text != "openai/gpt-4.1-mini" {
		t.Fatalf("EventFallback = %+v, want one naming openai/gpt-4.1-mini", fallback)
	}
	if e, ok := llm.AsError(fallback.Err); !ok || e.Kind != llm.KindAuth {
		t.Errorf("EventFallback.Err = %v, want Anthropic's 401", fallback.Err)
	}
	if resp.Model != "openai/gpt-4.1-mini" || len(r.an.Requests()) != 1 {
		t.Errorf("answered by %s after %d Anthropic requests", resp.Model, len(r.an.Requests()))
	}
}

// TestFallbackDropsThinking: thinking goes back to the model that wrote
// it, and is left out when the conversation continues on another model —
// else Anthropic (and the fake) refuse its signature.
func TestFallbackDropsThinking(t *testing.T) {
	r := newRig(t, "claude-sonnet-4-5", "claude-haiku-4-5")
	r.an.Enqueue(llmtest.Text("42").WithThinking("Six times seven."))
	req := question
	req.Reasoning = llm.Reasoning{Budget: 2048, Effort: "low"}
	first, _ := r.call(t, req)
	if len(first.Thinking) != 1 || first.Model != "anthropic/claude-sonnet-4-5" {
		t.Fatalf("first answer %+v", first)
	}
	req.Messages = append(req.Messages,
		llm.Message{Role: llm.RoleAssistant, Text: first.Text, Model: first.Model, Thinking: first.Thinking},
		llm.Message{Role: llm.RoleUser, Text: "why?"})

	r.an.Enqueue(llmtest.Text("because"))
	if resp, _ := r.call(t, req); resp.Model != "anthropic/claude-sonnet-4-5" {
		t.Fatalf("answered by %s", resp.Model)
	}
	if got := r.an.Requests()[1].ThinkingBlocks(); len(got) != 1 || got[0].Thinking != "Six times seven." {
		t.Fatalf("to the same model: thinking %+v, want it back verbatim", got)
	}

	r.an.Enqueue(llmtest.Status(http.StatusNotFound), llmtest.Text("haiku here"))
	resp, _ := r.call(t, req)
	if resp.Model != "anthropic/claude-haiku-4-5" || resp.Text != "haiku here" {
		t.Fatalf("answered %q by %s, want haiku", resp.Text, resp.Model)
	}
	reqs := r.an.Requests()
	if got := reqs[2].ThinkingBlocks(); len(got) != 1 {
		t.Errorf("to sonnet before it failed: thinking %+v", got)
	}
	if got := reqs[3].ThinkingBlocks(); len(got) != 0 || reqs[3].Model() != "claude-haiku-4-5" {
		t.Errorf("to %s: thinking %+v, want none", reqs[3].Model(), got)
	}
}
