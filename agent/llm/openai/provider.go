// Package openai adapts openai-go's streamed Chat Completions to
// llm.Provider. Chat Completions is the dialect every OpenAI-compatible
// server speaks (Ollama, vLLM, OpenRouter, Gemini's compatibility endpoint),
// so Config.BaseURL is all it takes to use one of them.
package openai

import (
	"cmp"
	"context"
	"maps"
	"slices"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/parleybot/parley/agent/llm"
)

// DefaultBaseURL is OpenAI's API; compatible servers use their own, which
// includes the version path (e.g. http://localhost:11434/v1 for Ollama).
const DefaultBaseURL = "https://api.openai.com/v1"

// Config configures a Provider. Nothing is read from the environment: the
// caller resolves OPENAI_API_KEY and friends into its fields. APIKey is
// sent as a bearer token; an empty one sends none (local servers).
type Config = llm.Config

// Provider streams Chat Completions. It is safe for concurrent use.
type Provider struct {
	chat       sdk.ChatCompletionService
	models     sdk.ModelService
	embeddings sdk.EmbeddingService
	endpoint   llm.Endpoint // names the API in errors, and scrubs the key from them
}

// New returns a Provider for cfg.
func New(cfg Config) *Provider {
	base := cmp.Or(cfg.BaseURL, DefaultBaseURL)
	opts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(cfg.Client()),
		// The agent is the one retry layer (visible retry events, one cap);
		// SDK retries underneath would multiply the attempts.
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	// After the key: a header configured on purpose (a gateway's own
	// Authorization) wins over the SDK's.
	for _, name := range slices.Sorted(maps.Keys(cfg.Headers)) {
		opts = append(opts, option.WithHeader(name, cfg.Headers[name]))
	}
	if cfg.Timeout > 0 {
		opts = append(opts, option.WithRequestTimeout(cfg.Timeout))
	}
	// The services are built directly rather than through sdk.NewClient,
	// because NewClient starts from the environment (OPENAI_API_KEY,
	// OPENAI_BASE_URL, but also OPENAI_ORG_ID, OPENAI_PROJECT_ID and
	// OPENAI_CUSTOM_HEADERS, which no explicit option overrides) and this
	// package must send exactly what Config says.
	return &Provider{
		chat:       sdk.NewChatCompletionService(opts...),
		models:     sdk.NewModelService(opts...),
		embeddings: sdk.NewEmbeddingService(opts...),
		endpoint:   llm.Endpoint{Provider: "OpenAI", BaseURL: base, APIKey: cfg.APIKey, ReadError: readError},
	}
}

// Check makes one cheap authenticated call (list models), so `parley
// doctor` can tell a wrong key or base URL from a working setup. It returns
// nil or an *llm.Error.
func (p *Provider) Check(ctx context.Context) error {
	var a llm.Attempt
	if _, err := p.models.List(ctx, option.WithMiddleware(a.Observe)); err != nil {
		return p.endpoint.Classify(ctx, &a, err)
	}
	return nil
}
