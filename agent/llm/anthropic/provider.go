// Package anthropic adapts anthropic-sdk-go's streamed Messages API to
// llm.Provider.
package anthropic

import (
	"cmp"
	"context"
	"net/http"
	"time"

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

// name is the provider's display name in errors.
const name = "Anthropic"

// Config configures a Provider. Nothing is read from the environment or
// from profile files: the caller resolves ANTHROPIC_API_KEY into APIKey.
type Config struct {
	APIKey  string
	BaseURL string // default DefaultBaseURL
	// HTTPClient defaults to a client whose transport gives up on a server
	// that accepts the connection but never answers (10 min, as the SDK's
	// own default); bound whole calls with the context.
	HTTPClient *http.Client
}

// Provider streams Messages API calls. It is safe for concurrent use.
type Provider struct {
	messages sdk.MessageService
	models   sdk.ModelService
	baseURL  string
	apiKey   string // kept only to scrub it from error messages
}

// New returns a Provider for cfg.
func New(cfg Config) *Provider {
	base := cmp.Or(cfg.BaseURL, DefaultBaseURL)
	hc := cfg.HTTPClient
	if hc == nil {
		hc = defaultHTTPClient()
	}
	opts := []option.RequestOption{
		// Without this the SDK walks its credential chain: ANTHROPIC_API_KEY,
		// ANTHROPIC_AUTH_TOKEN, ANTHROPIC_PROFILE, federation variables, a
		// profile file, plus ANTHROPIC_BASE_URL and ANTHROPIC_CUSTOM_HEADERS.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base),
		option.WithHTTPClient(hc),
		// The agent is the one retry layer (visible retry events, one cap);
		// SDK retries underneath would multiply the attempts, and this SDK
		// honours Retry-After without any cap.
		option.WithMaxRetries(0),
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	c := sdk.NewClient(opts...)
	return &Provider{messages: c.Messages, models: c.Models, baseURL: base, apiKey: cfg.APIKey}
}

// Check makes one cheap authenticated call (list one model), so `parley
// doctor` can tell a wrong key or base URL from a working setup. It returns
// nil or an *llm.Error.
func (p *Provider) Check(ctx context.Context) error {
	var a llm.Attempt
	if _, err := p.models.List(ctx, sdk.ModelListParams{Limit: sdk.Int(1)}, record(&a)); err != nil {
		return p.classify(ctx, &a, err)
	}
	return nil
}

func defaultHTTPClient() *http.Client {
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok { // wrapped, e.g. by otelhttp: keep the wrapper
		return &http.Client{Transport: http.DefaultTransport}
	}
	t = t.Clone()
	t.ResponseHeaderTimeout = 10 * time.Minute
	return &http.Client{Transport: t}
}
