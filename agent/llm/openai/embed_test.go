package openai_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/llm/openai"
)

func TestEmbed(t *testing.T) {
	srv := llmtest.NewServer(llmtest.WithAPIKey("k"))
	defer srv.Close()
	e := openai.New(openai.Config{APIKey: "k", BaseURL: srv.OpenAIBaseURL()}).Embedder("text-embedding-3-small")

	texts := []string{"rotate the signing key", "设备申领", "lunch menu"}
	got, err := e.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if !slices.Equal(got[i], llmtest.HashEmbedding(text)) {
			t.Errorf("vector %d is not %q's", i, text)
		}
	}
	req := srv.Requests()[0]
	if req.Path != "/v1/embeddings" || req.Model() != "text-embedding-3-small" || req.JSON["encoding_format"] != "float" {
		t.Errorf("request %s %v", req.Path, req.JSON)
	}
}

func TestEmbedErrors(t *testing.T) {
	tests := []struct {
		name      string
		reply     llmtest.Reply
		key       string
		kind      llm.ErrorKind
		retryable bool
		after     time.Duration
	}{
		{"rate limited", llmtest.Status(http.StatusTooManyRequests).WithHeader("Retry-After", "7"), "k", llm.KindRateLimit, true, 7 * time.Second},
		{"server error", llmtest.Status(http.StatusInternalServerError), "k", llm.KindServer, true, 0},
		{"unknown model", llmtest.Status(http.StatusNotFound), "k", llm.KindBadRequest, false, 0},
		{"wrong key", llmtest.Reply{}, "wrong", llm.KindAuth, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.WithAPIKey("k"))
			defer srv.Close()
			srv.EnqueueEmbeddings(tt.reply)
			e := openai.New(openai.Config{APIKey: tt.key, BaseURL: srv.OpenAIBaseURL()}).Embedder("m")
			_, err := e.Embed(t.Context(), []string{"x"})
			le, ok := llm.AsError(err)
			if !ok || le.Kind != tt.kind || le.Retryable() != tt.retryable || le.RetryAfter != tt.after {
				t.Fatalf("Embed error = %#v, want kind %v, retryable %v, retry after %v", err, tt.kind, tt.retryable, tt.after)
			}
			if strings.Contains(err.Error(), tt.key) && tt.key == "wrong" {
				t.Errorf("the key shows in %q", err)
			}
		})
	}
}
