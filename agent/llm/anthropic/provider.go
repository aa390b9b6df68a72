// Package anthropic adapts anthropic-sdk-go's streamed Messages API to
// llm.Provider.
package anthropic

import (
	"cmp"
	"context"
	"maps"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/parleybot/parley/agent/llm"
)

// DefaultBaseURL is Anthropic's API. Unlike OpenAI base URLs it has no
// version path: the SDK adds /v1/ itself.
const DefaultBaseURL = "https://api.anthropic.com"

// DefaultMaxTokens is the output limit sent when a request sets none: the
// Messages API requires one.
const DefaultMaxTokens = 4096

// Config configures a Provider. Nothing is read from the environment or
// from profile files: the caller resolves ANTHROPIC_API_KEY into APIKey.
type Config = llm.Config

// Provider streams Messages API calls. It is safe for concurrent use.
type Provider struct {
	client   sdk.Client   // its Messages and Models services
	endpoint llm.Endpoint // names the API in errors, and scrubs the key from them
}

// New returns a Provider for cfg.
func New(cfg Config) *Provider {
	base := cmp.Or(cfg.BaseURL, DefaultBaseURL)
	opts := []option.RequestOption{
		// Without this the SDK walks its credential chain: ANTHROPIC_API_KEY,
		// ANTHROPIC_AUTH_TOKEN, ANTHROPIC_PROFILE, federation variables, a
		// profile file, plus ANTHROPIC_BASE_URL and ANTHROPIC_CUSTOM_HEADERS.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base),
		option.WithHTTPClient(cfg.Client()),
		// The agent is the one retry layer (visible retry events, one cap);
		// SDK retries underneath would multiply the attempts, and this SDK
		// honours Retry-After without any cap.
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
	return &Provider{client: sdk.NewClient(opts...),
		endpoint: llm.Endpoint{Provider: "Anthropic", BaseURL: base, APIKey: cfg.APIKey, ReadError: readError}}
}

// Check makes one cheap authenticated call (list one model), so `parley
// doctor` can tell a wrong key or base URL from a working setup. It returns
// nil or an *llm.Error.
func (p *Provider) Check(ctx context.Context) error {
	var a llm.Attempt
	if _, err := p.client.Models.List(ctx, sdk.ModelListParams{Limit: sdk.Int(1)}, option.WithMiddleware(a.Observe)); err != nil {
		return p.endpoint.Classify(ctx, &a, err)
	}
	return nil
}
