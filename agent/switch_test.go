package agent_test

import (
	"bytes"
	"testing"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/anthropic"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
	"github.com/parleybot/parley/agent/media/mediatest"
)

// TestConversationMovesAcrossProviders: a session with a person's
// picture and a tool call that returned one, answered on one provider,
// continues on the other (as /model or a fallback moves it) through the
// runner and the real SDKs: the turn answers, the fake — which refuses
// what the real APIs refuse — took the request, both pictures went with
// it, and the stored answers keep the ids and thinking their models
// wrote.
func TestConversationMovesAcrossProviders(t *testing.T) {
	tests := []struct {
		name, from, to string
		callID         string // as the first model's server writes it
		thinking       bool   // the first model thinks
	}{
		{"OpenAI to Claude", "openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-5", "call_Qm1xR8vT", false},
		{"a local server to Claude", "local/qwen3", "anthropic/claude-sonnet-4-5", "functions.camera:0", false},
		{"a local server to OpenAI", "local/qwen3", "openai/gpt-4.1-mini", "chatcmpl-tool-0123456789abcdef0123456789abcdef", false},
		{"Claude to OpenAI", "anthropic/claude-sonnet-4-5", "openai/gpt-4.1-mini", "toolu_01A09q90qw90lq917835lq9", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shot := mediatest.PNG(64, 48)
			h := newHarness(t, camera{shot: shot})
			reg := llm.NewRegistry()
			reg.Register(llm.OpenAI, openai.New(openai.Config{APIKey: "k", BaseURL: h.srv.OpenAIBaseURL()}))
			reg.Register("local", openai.New(openai.Config{BaseURL: h.srv.OpenAIBaseURL()}))
			reg.Register(llm.Anthropic, anthropic.New(anthropic.Config{APIKey: "k", BaseURL: h.srv.AnthropicBaseURL()}))
			use := func(model string) {
				p, err := reg.Resolve(model)
				if err != nil {
					t.Fatal(err)
				}
				h.runner.Provider = p
			}
			h.runner.Reasoning = llm.Reasoning{Effort: "low", Budget: 2048}
			sid := h.session(t, "ana")

			use(tt.from)
			call := llmtest.ToolCall(tt.callID, "camera", `{}`)
			if tt.thinking {
				call = call.WithThinking("A picture will tell.")
			}
			h.srv.Enqueue(call, llmtest.Text("A pattern, like your photo."))
			first := turn(sid, "ana", "take a picture and compare it with mine")
			photo := prepared(t, "mine.png", 40, 30)
			first.Images = []llm.Image{photo}
			if _, err := collect(t.Context(), h.runner, first); err != nil {
				t.Fatal(err)
			}

			use(tt.to)
			// The same id again, as a server writing "call_0" every time would.
			h.srv.Enqueue(llmtest.ToolCall(tt.callID, "camera", `{}`), llmtest.Text("The same pattern."))
			evs, err := collect(t.Context(), h.runner, turn(sid, "ana", "and again?"))
			if err != nil {
				t.Fatalf("the conversation broke on %s: %v", tt.to, err)
			}
			if done := ofKind(evs, agent.EventDone); len(done) != 1 || done[0].Text != "The same pattern." || done[0].Model != tt.to {
				t.Fatalf("done %+v", done)
			}
			reqs := h.srv.Requests()
			if len(reqs) != 4 {
				t.Fatalf("%d model calls, want 4", len(reqs))
			}
			for _, req := range reqs[2:] {
				imgs := req.Images()
				if len(imgs) < 2 || !bytes.Equal(imgs[0].Data, photo.Data) || !bytes.Equal(imgs[1].Data, shot) {
					t.Errorf("%s was sent %d pictures, want the person's then the tool's", tt.to, len(imgs))
				}
				if n := len(req.ThinkingBlocks()); n != 0 {
					t.Errorf("%s was sent %d thinking blocks of another model", tt.to, n)
				}
			}

			msgs, err := h.db.Messages(t.Context(), sid)
			if err != nil {
				t.Fatal(err)
			}
			a := msgs[1]
			if a.Model != tt.from || a.ToolCalls[0].ID != tt.callID || tt.thinking != (len(a.Thinking) == 1) {
				t.Errorf("the first answer is stored as %+v; want it as %s wrote it", a, tt.from)
			}
		})
	}
}
