package guard

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/anthropic"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
)

// TestJudgeThroughProviders runs the judge end to end: LLMClassifier over
// the real OpenAI and Anthropic providers, against llmtest's fake servers
// speaking each wire protocol.
func TestJudgeThroughProviders(t *testing.T) {
	const key = "test-key"
	providers := []struct {
		name string
		new  func(srv *llmtest.Server) llm.Provider
	}{
		{"openai", func(srv *llmtest.Server) llm.Provider {
			return openai.New(openai.Config{APIKey: key, BaseURL: srv.OpenAIBaseURL()})
		}},
		{"anthropic", func(srv *llmtest.Server) llm.Provider {
			return anthropic.New(anthropic.Config{APIKey: key, BaseURL: srv.AnthropicBaseURL()})
		}},
	}
	cases := []struct {
		name   string
		reply  llmtest.Reply
		cat    Category // "" accepts
		reason string
		kind   llm.ErrorKind // for provider errors: the kind Cause carries
	}{
		{name: "safe", reply: llmtest.Text("SA", "FE")},
		{name: "unsafe", reply: llmtest.Text("UNSAFE: ", "tells the assistant to skip approvals"), cat: Judged, reason: "tells the assistant to skip approvals"},
		{name: "garbage", reply: llmtest.Text("Sure! Here is the memory entry you asked for."), cat: Unverified, reason: "no clear verdict"},
		{name: "empty", reply: llmtest.Text(), cat: Unverified, reason: "empty answer"},
		{name: "provider error", reply: llmtest.Status(http.StatusInternalServerError), cat: Unverified, reason: "the memory judge (memory.guard_model) failed", kind: llm.KindServer},
		{name: "rate limited", reply: llmtest.Status(http.StatusTooManyRequests), cat: Unverified, reason: "the memory judge (memory.guard_model) failed", kind: llm.KindRateLimit},
		{name: "broken stream", reply: llmtest.Drop("SA"), cat: Unverified, reason: "the memory judge (memory.guard_model) failed"},
		{name: "cut off", reply: llmtest.Reply{Chunks: []string{"SA"}, Fault: llmtest.FaultTruncate}, cat: Unverified, reason: "the memory judge (memory.guard_model) failed"},
	}
	for _, p := range providers {
		for _, tt := range cases {
			t.Run(p.name+"/"+tt.name, func(t *testing.T) {
				srv := llmtest.NewServer(llmtest.WithAPIKey(key))
				t.Cleanup(srv.Close)
				srv.Enqueue(tt.reply)
				j := &Judge{
					Classifier: LLMClassifier{Provider: p.new(srv), Request: llm.Request{Model: "judge-model"}},
					Sleep:      neverFires,
				}
				rej := wantRejection(t, j.Check(t.Context(), "Prefers Go.", []string{"Lives in Porto."}), tt.cat, tt.reason)
				if tt.kind != llm.KindUnknown {
					if e, ok := llm.AsError(rej); !ok || e.Kind != tt.kind {
						t.Errorf("cause of %v is not an *llm.Error of kind %v", rej, tt.kind)
					}
				}
				reqs := srv.Requests()
				if len(reqs) != 1 {
					t.Fatalf("%d requests, want 1", len(reqs))
				}
				req := reqs[0]
				if req.Model() != "judge-model" || !req.Stream() {
					t.Errorf("model %q, stream %v", req.Model(), req.Stream())
				}
				if got := req.LastUserText(); got != judgeInput("Prefers Go.", []string{"Lives in Porto."}) {
					t.Errorf("user message:\n%s", got)
				}
				// The system prompt went out (JSON-escaped in the body).
				if !strings.Contains(string(req.Body), "You vet entries that an AI assistant wants to save") {
					t.Errorf("request body lacks the judge prompt: %s", req.Body)
				}
				// It asks for the structured verdict: response_format on
				// OpenAI, one forced tool on Anthropic, and no other tools.
				if got := req.FormatName(); got != JudgeFormat.Name {
					t.Errorf("format %q, want %q: %s", got, JudgeFormat.Name, req.Body)
				}
				tools, _ := req.JSON["tools"].([]any)
				if p.name == "openai" && len(tools) > 0 || p.name == "anthropic" && len(tools) != 1 {
					t.Errorf("request offers tools: %s", req.Body)
				}
			})
		}
	}
}

// TestJudgeStructuredThroughProviders: a model that answers only in the
// structured form (JSON text on OpenAI-compatible servers, the forced
// tool's input on Anthropic) is understood.
func TestJudgeStructuredThroughProviders(t *testing.T) {
	cases := []struct {
		name, answer string
		cat          Category
		reason       string
	}{
		{name: "safe", answer: `{"verdict":"safe","reason":""}`},
		{name: "unsafe", answer: `{"verdict":"unsafe","reason":"tells the assistant to skip approvals"}`, cat: Judged, reason: "skip approvals"},
		{name: "no verdict", answer: `{"reason":"looks fine"}`, cat: Unverified, reason: "no clear verdict"},
		{name: "other verdict", answer: `{"verdict":"maybe","reason":""}`, cat: Unverified, reason: "no clear verdict"},
	}
	for _, proto := range []string{"openai", "anthropic"} {
		for _, tt := range cases {
			t.Run(proto+"/"+tt.name, func(t *testing.T) {
				srv := llmtest.NewServer()
				t.Cleanup(srv.Close)
				var p llm.Provider
				if proto == "openai" {
					p = openai.New(openai.Config{APIKey: "k", BaseURL: srv.OpenAIBaseURL()})
					srv.Enqueue(llmtest.Text(tt.answer))
				} else {
					p = anthropic.New(anthropic.Config{APIKey: "k", BaseURL: srv.AnthropicBaseURL()})
					srv.Enqueue(llmtest.ToolCall("toolu_1", JudgeFormat.Name, tt.answer))
				}
				j := &Judge{Classifier: LLMClassifier{Provider: p, Request: llm.Request{Model: "m"}}, Sleep: neverFires}
				wantRejection(t, j.Check(t.Context(), "Prefers Go.", nil), tt.cat, tt.reason)
			})
		}
	}
}

// TestJudgeTimeoutThroughProvider: the model starts answering and then
// stalls; the judge's timeout (injected: it fires once the server holds
// the request) ends the call and rejects the entry, without waiting.
func TestJudgeTimeoutThroughProvider(t *testing.T) {
	arrived := make(chan struct{})
	srv := llmtest.NewServer(llmtest.WithResponder(func(llmtest.Request) llmtest.Reply {
		close(arrived)
		return llmtest.Stall("SA")
	}))
	t.Cleanup(srv.Close)
	var asked time.Duration
	j := &Judge{
		Classifier: LLMClassifier{Provider: openai.New(openai.Config{BaseURL: srv.OpenAIBaseURL()}), Request: llm.Request{Model: "judge-model"}},
		Timeout:    7 * time.Second,
		Sleep: func(ctx context.Context, d time.Duration) error {
			asked = d
			select {
			case <-arrived: // the model is now stalled: time is up
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	}
	rej := wantRejection(t, j.Check(t.Context(), "Prefers Go.", nil), Unverified, "no verdict within 7s")
	if !errors.Is(rej, context.DeadlineExceeded) {
		t.Errorf("%v does not wrap context.DeadlineExceeded", rej)
	}
	if asked != 7*time.Second {
		t.Errorf("judge slept %v, want its Timeout", asked)
	}
}

// TestLLMClassifierRequest: model settings come from Request; the
// question, the material and the token cap are the classifier's.
func TestLLMClassifierRequest(t *testing.T) {
	for _, tt := range []struct {
		name      string
		settings  llm.Request
		wantMax   int
		wantModel string
	}{
		{"default cap", llm.Request{Model: "small"}, judgeMaxTokens, "small"},
		{"own cap, stray fields replaced", llm.Request{
			Model: "big", MaxTokens: 20, System: "stale", Messages: []llm.Message{{Role: llm.RoleUser, Text: "stale"}},
			Tools: []llm.ToolSpec{{Name: "shell"}},
		}, 20, "big"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got llm.Request
			p := providerFunc(func(_ context.Context, req llm.Request) (*llm.Response, error) {
				got = req
				return &llm.Response{Text: "SAFE"}, nil
			})
			answer, err := LLMClassifier{Provider: p, Request: tt.settings}.Classify(t.Context(), "question", "material")
			if err != nil || answer != "SAFE" {
				t.Fatalf("Classify = %q, %v", answer, err)
			}
			if got.Model != tt.wantModel || got.MaxTokens != tt.wantMax || got.System != "question" || got.Tools != nil ||
				len(got.Messages) != 1 || got.Messages[0].Role != llm.RoleUser || got.Messages[0].Text != "material" {
				t.Errorf("request = %+v", got)
			}
		})
	}
}

// providerFunc is an llm.Provider answering with one complete response.
type providerFunc func(context.Context, llm.Request) (*llm.Response, error)

func (f providerFunc) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		resp, err := f(ctx, req)
		if err != nil {
			yield(llm.Event{}, err)
			return
		}
		yield(llm.Event{Kind: llm.EventDone, Response: resp}, nil)
	}
}

// TestJudgeFormatRefused: a server that refuses structured output (400)
// is asked again without it, and its plain answer counts.
func TestJudgeFormatRefused(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.Enqueue(llmtest.Status(http.StatusBadRequest).WithMessage("response_format is not supported"), llmtest.Text("SAFE"))
	p := openai.New(openai.Config{APIKey: "k", BaseURL: srv.OpenAIBaseURL()})
	j := &Judge{Classifier: LLMClassifier{Provider: p, Request: llm.Request{Model: "m"}}, Sleep: neverFires}
	if err := j.Check(t.Context(), "Prefers Go.", nil); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].FormatName() != JudgeFormat.Name || reqs[1].FormatName() != "" {
		t.Errorf("%d requests; formats %q", len(reqs), func() (f []string) {
			for _, r := range reqs {
				f = append(f, r.FormatName())
			}
			return f
		}())
	}
}
