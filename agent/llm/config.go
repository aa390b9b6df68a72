package llm

import (
	"net/http"
	"time"
)

// Config configures a provider; openai.Config and anthropic.Config are
// this type. Nothing is read from the environment: the caller resolves
// OPENAI_API_KEY, ANTHROPIC_API_KEY and the like into these fields, so a
// provider sends exactly what its Config says.
type Config struct {
	APIKey  string // empty sends none (local servers)
	BaseURL string // default: the provider's DefaultBaseURL
	// HTTPClient defaults to a client whose transport gives up on a server
	// that accepts the connection but never answers (10 min, as the SDKs'
	// own default); bound whole calls with the context.
	HTTPClient *http.Client
}

// Client returns HTTPClient, or the default described there when it is
// nil.
func (c Config) Client() *http.Client {
	if c.HTTPClient != nil {
		return c.HTTPClient
	}
	t, ok := http.DefaultTransport.(*http.Transport)
	if !ok { // wrapped, e.g. by otelhttp: keep the wrapper
		return &http.Client{Transport: http.DefaultTransport}
	}
	t = t.Clone()
	t.ResponseHeaderTimeout = 10 * time.Minute
	return &http.Client{Transport: t}
}
