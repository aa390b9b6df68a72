package llm

import (
	"context"
	"iter"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, want string
	}{
		{"gpt-4.1-mini", "openai/gpt-4.1-mini"},
		{"chatgpt-4o-latest", "openai/chatgpt-4o-latest"},
		{"o1", "openai/o1"},
		{"o3-mini", "openai/o3-mini"},
		{"o4-mini-2025-04-16", "openai/o4-mini-2025-04-16"},
		{"claude-sonnet-4-5", "anthropic/claude-sonnet-4-5"},
		{"openai/gpt-4o", "openai/gpt-4o"},
		{"openai/meta-llama/llama-3.1-8b", "openai/meta-llama/llama-3.1-8b"},
		{"anthropic/claude-opus-4-1", "anthropic/claude-opus-4-1"},
		{"llama3.2", ""}, // no family: a provider must be named
		{"o2", ""},
		{"ollama", ""},
		{"openai/", ""},
		{"", ""},
	}
	for _, tc := range tests {
		got, err := Canonical(tc.name)
		if tc.want == "" {
			if err == nil {
				t.Errorf("Canonical(%q) = %q, want an error", tc.name, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestModelsTable(t *testing.T) {
	tests := []struct {
		name   string
		models Models
		want   ModelInfo
	}{
		{name: "anthropic/claude-sonnet-4-5-20250929",
			want: ModelInfo{ContextWindow: 200000, MaxTokens: 8192, MaxOutput: 64000, Reasoning: true, Known: true}},
		{name: "anthropic/claude-opus-4-20250514", // claude-opus-4, not 4-5
			want: ModelInfo{ContextWindow: 200000, MaxTokens: 8192, MaxOutput: 32000, Reasoning: true, Known: true}},
		{name: "openai/gpt-4o-mini-2024-07-18",
			want: ModelInfo{ContextWindow: 128000, MaxTokens: 8192, MaxOutput: 16384, Known: true}},
		{name: "openai/gpt-4.1-nano",
			want: ModelInfo{ContextWindow: 1047576, MaxTokens: 8192, MaxOutput: 32768, Known: true}},
		{name: "openai/gpt-4-turbo",
			want: ModelInfo{ContextWindow: 128000, MaxTokens: 4096, MaxOutput: 4096, Known: true}},
		{name: "openai/o3",
			want: ModelInfo{ContextWindow: 200000, MaxTokens: 8192, MaxOutput: 100000, Reasoning: true, Known: true}},
		{name: "openai/openai/gpt-4o", // OpenRouter's vendor prefix
			want: ModelInfo{ContextWindow: 128000, MaxTokens: 8192, MaxOutput: 16384, Known: true}},
		{name: "openai/gpt-4.5-preview", // not gpt-4
			want: ModelInfo{ContextWindow: 128000, MaxTokens: 4096, MaxOutput: 4096}},
		{name: "openai/llama3.2",
			want: ModelInfo{ContextWindow: 128000, MaxTokens: 4096, MaxOutput: 4096}},
		{name: "openai/llama3.2", models: Models{Default: Limits{ContextWindow: 32768}},
			want: ModelInfo{ContextWindow: 32768, MaxTokens: 4096, MaxOutput: 4096}},
		{name: "openai/Qwen/Qwen2.5-7B-Instruct", // by the provider's own name
			models: Models{Overrides: map[string]Limits{"Qwen/Qwen2.5-7B-Instruct": {ContextWindow: 32768, MaxTokens: 2048}}},
			want:   ModelInfo{ContextWindow: 32768, MaxTokens: 2048, MaxOutput: 4096, Known: true}},
		{name: "anthropic/claude-haiku-4-5", // by the full name, over the default
			models: Models{Overrides: map[string]Limits{"anthropic/claude-haiku-4-5": {MaxTokens: 100000}},
				Default: Limits{ContextWindow: 50000}},
			want: ModelInfo{ContextWindow: 200000, MaxTokens: 100000, MaxOutput: 100000, Reasoning: true, Known: true}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, tc.models.Info(tc.name)); diff != "" {
			t.Errorf("Info(%q) (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestParseReasoning(t *testing.T) {
	tests := []struct {
		in   string
		want Reasoning
		bad  bool
	}{
		{in: "", want: Reasoning{}},
		{in: "off", want: Reasoning{}},
		{in: "low", want: Reasoning{Budget: 2048, Effort: "low"}},
		{in: "High", want: Reasoning{Budget: 24576, Effort: "high"}},
		{in: "10000", want: Reasoning{Budget: 10000, Effort: "medium"}},
		{in: "1024", want: Reasoning{Budget: 1024, Effort: "low"}},
		{in: "1000", bad: true},
		{in: "lots", bad: true},
	}
	for _, tc := range tests {
		got, err := ParseReasoning(tc.in)
		if (err != nil) != tc.bad || got != tc.want {
			t.Errorf("ParseReasoning(%q) = %+v, %v; want %+v (error: %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

// spy records the requests it gets and answers with an empty response.
type spy struct{ reqs []Request }

func (s *spy) Stream(_ context.Context, req Request) iter.Seq2[Event, error] {
	s.reqs = append(s.reqs, req)
	return func(yield func(Event, error) bool) {
		yield(Event{Kind: EventDone, Response: &Response{}}, nil)
	}
}

// TestResolveFits: a bound model gets its own answer size and thinking
// budget, no thinking when it cannot reason, only its own thinking blocks;
// its answers name it.
func TestResolveFits(t *testing.T) {
	an, oa := &spy{}, &spy{}
	reg := NewRegistry()
	reg.Register(Anthropic, an)
	reg.Register(OpenAI, oa)
	history := []Message{
		{Role: RoleUser, Text: "q"},
		{Role: RoleAssistant, Text: "a1", Model: "anthropic/claude-opus-4-1", Thinking: []Thinking{{Text: "t1", Signature: "s1"}}},
		{Role: RoleUser, Text: "q"},
		{Role: RoleAssistant, Text: "a2", Model: "anthropic/claude-haiku-4-5", Thinking: []Thinking{{Text: "t2", Signature: "s2"}}},
		{Role: RoleUser, Text: "q"},
	}
	high := Reasoning{Budget: 24576, Effort: "high"}
	tests := []struct {
		name      string
		spy       *spy
		wantModel string
		maxTokens int
		reasoning Reasoning
		thinking  []int // messages that keep their thinking
	}{
		{"claude-opus-4-1", an, "claude-opus-4-1", 8192, Reasoning{Budget: 32000 - 8192, Effort: "high"}, []int{1}},
		{"anthropic/claude-haiku-4-5", an, "claude-haiku-4-5", 8192, high, []int{3}},
		{"gpt-4o", oa, "gpt-4o", 8192, Reasoning{}, nil},
	}
	for _, tc := range tests {
		p, err := reg.Resolve(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := Collect(p.Stream(t.Context(), Request{Messages: history, Reasoning: high}))
		if err != nil {
			t.Fatal(err)
		}
		if full, _ := Canonical(tc.name); resp.Model != full {
			t.Errorf("%s: response model %q, want %q", tc.name, resp.Model, full)
		}
		got := tc.spy.reqs[len(tc.spy.reqs)-1]
		var kept []int
		for i, m := range got.Messages {
			if len(m.Thinking) > 0 {
				kept = append(kept, i)
			}
		}
		if got.Model != tc.wantModel || got.MaxTokens != tc.maxTokens || got.Reasoning != tc.reasoning || !cmp.Equal(kept, tc.thinking) {
			t.Errorf("%s: model %q, max tokens %d, reasoning %+v, thinking kept in %v", tc.name, got.Model, got.MaxTokens, got.Reasoning, kept)
		}
	}
	if len(history[1].Thinking) == 0 || len(history[3].Thinking) == 0 {
		t.Error("Resolve's provider changed the caller's messages")
	}
	if _, err := reg.Resolve("mistral-large"); err == nil {
		t.Error("a bare name of no known family resolved")
	}
}
