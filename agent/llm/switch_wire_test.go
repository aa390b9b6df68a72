package llm_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/anthropic"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
)

// A conversation moved to another model mid-way is sent, as written by
// the first, through the second provider's real request builder to the
// fakes, which refuse what the real APIs refuse (llmtest: tool-call ids
// and pairing, thinking signatures, images, cache marks).

const (
	gpt    = "openai/gpt-5"
	claude = "anthropic/claude-sonnet-4-5"
	local  = "local/qwen3"
)

// convo is a conversation on the fake, moved between models at will.
type convo struct {
	t    *testing.T
	srv  *llmtest.Server
	reg  *llm.Registry
	msgs []llm.Message
}

func newConvo(t *testing.T) *convo {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	reg := llm.NewRegistry()
	reg.Register(llm.OpenAI, openai.New(openai.Config{APIKey: "k", BaseURL: srv.OpenAIBaseURL()}))
	reg.Register("local", openai.New(openai.Config{BaseURL: srv.OpenAIBaseURL()}))
	reg.Register(llm.Anthropic, anthropic.New(anthropic.Config{APIKey: "k", BaseURL: srv.AnthropicBaseURL()}))
	c := &convo{t: t, srv: srv, reg: reg}
	c.msgs = []llm.Message{{Role: llm.RoleUser, Text: "what is on this picture?", Images: []llm.Image{picture("photo.png")}}}
	return c
}

func picture(name string) llm.Image {
	return llm.ImageHash(llm.Image{MIME: "image/png", Data: []byte("\x89PNG " + name), Width: 8, Height: 8, Name: name})
}

// ask has model answer the conversation with reply, thinking, the prompt
// cached under the session's key, as the agent asks; the answer joins
// the conversation, each of its calls answered, the first with a
// picture that follows the results in a user message (as the agent
// lifts a tool's pictures). It returns the request the fake received.
func (c *convo) ask(model string, reply llmtest.Reply) llmtest.Request {
	c.t.Helper()
	p, err := c.reg.Resolve(model)
	if err != nil {
		c.t.Fatal(err)
	}
	c.srv.Enqueue(reply)
	resp, err := llm.Collect(p.Stream(c.t.Context(), llm.Request{
		System: "You are Parley.", Messages: c.msgs, CacheKey: "session-1",
		Tools:     []llm.ToolSpec{{Name: "search", Description: "search", Schema: json.RawMessage(`{"type":"object"}`)}},
		Reasoning: llm.Reasoning{Effort: "low", Budget: 2048},
	}))
	reqs := c.srv.Requests()
	if err != nil {
		c.t.Fatalf("%s refused the conversation: %v", model, err)
	}
	c.msgs = append(c.msgs, llm.Message{Role: llm.RoleAssistant, Text: resp.Text, ToolCalls: resp.ToolCalls,
		Model: resp.Model, Thinking: resp.Thinking, Usage: &resp.Usage})
	for _, call := range resp.ToolCalls {
		c.msgs = append(c.msgs, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, ToolName: call.Name, Text: "found it"})
	}
	if len(resp.ToolCalls) > 0 {
		c.msgs = append(c.msgs, llm.Message{Role: llm.RoleUser, Text: "[The images search returned.]", Images: []llm.Image{picture("result.png")}})
	}
	return reqs[len(reqs)-1]
}

// TestSwitchAcrossProviders: a conversation with tool calls, pictures
// (a person's and a tool's) and thinking, begun on one provider, is taken
// by the other and back; each request is valid, carries every picture,
// and no reasoning goes to a model that did not write it.
func TestSwitchAcrossProviders(t *testing.T) {
	tests := []struct {
		name  string
		first string
		calls []string // the ids the first model's server writes
		then  string
	}{
		{"OpenAI to Claude", gpt, []string{"call_Qm1xR8", "call_b2"}, claude},
		{"Claude to OpenAI", claude, []string{"toolu_01A09q90qw90lq917835lq9", "toolu_01B"}, gpt},
		{"a local server's ids to Claude", local, []string{"functions.search:0", "chatcmpl-tool-0123456789abcdef0123456789abcdef"}, claude},
		{"a local server's ids to OpenAI", local, []string{"functions.search:0", "chatcmpl-tool-0123456789abcdef0123456789abcdef"}, gpt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newConvo(t)
			// The first model thinks and calls two tools; the second
			// continues its tool loop, thinks and calls one more (the
			// same id as a model reusing "call_0" would), and answers;
			// the first takes the conversation back.
			first := llmtest.ToolCall(tt.calls[0], "search", `{"q":"a"}`).WithToolCall(tt.calls[1], "search", `{"q":"b"}`).
				WithThinking("Let me look it up.")
			c.ask(tt.first, first)
			req := c.ask(tt.then, llmtest.ToolCall(tt.calls[0], "search", `{"q":"c"}`).WithThinking("Once more."))
			checkSwitched(t, req, tt.then, 2)
			if tt.then == claude && req.ThinkingBudget() != 0 {
				t.Errorf("Claude was asked to think while continuing a tool loop another model began: the API refuses it")
			}
			req = c.ask(tt.then, llmtest.Text("A cat."))
			checkSwitched(t, req, tt.then, 3)
			req = c.ask(tt.first, llmtest.Text("Still a cat."))
			checkSwitched(t, req, tt.first, 3)

			// The answers keep what their models wrote, ids included.
			if got := c.msgs[1].ToolCalls[0].ID; got != tt.calls[0] {
				t.Errorf("the transcript's first call id is %q, want %q as written", got, tt.calls[0])
			}
		})
	}
}

// checkSwitched checks the request sent to model: its pictures all
// there, no thinking of another model in it, its cache marks or key set.
func checkSwitched(t *testing.T, req llmtest.Request, model string, images int) {
	t.Helper()
	if got := len(req.Images()); got != images {
		t.Errorf("%s was sent %d pictures, want %d", model, got, images)
	}
	for _, b := range req.ThinkingBlocks() {
		if b.Signature != llmtest.Signature(strings.TrimPrefix(model, "anthropic/"), b.Thinking) {
			t.Errorf("%s was sent thinking it did not write: %+v", model, b)
		}
	}
	for _, foreign := range []string{"Let me look it up.", "Once more."} {
		if strings.HasPrefix(model, "anthropic/") {
			break // its own thinking goes back to it
		}
		if bytes.Contains(req.Body, []byte(foreign)) {
			t.Errorf("%s was sent reasoning %q", model, foreign)
		}
	}
	if strings.HasPrefix(model, "anthropic/") {
		if n := len(req.CacheBreakpoints()); n != 2 {
			t.Errorf("%s: cache marks %v, want the system prompt's and the conversation's", model, req.CacheBreakpoints())
		}
	} else if req.PromptCacheKey() == "" {
		t.Errorf("%s: no prompt_cache_key", model)
	}
}
