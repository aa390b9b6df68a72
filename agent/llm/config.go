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
	// Headers are sent with every request, over the SDK's own (a proxy's
	// or a gateway's); their values may be credentials.
	Headers map[string]string
	// Timeout bounds each request, its streamed answer included; 0 leaves
	// it to the caller's context.
	Timeout time.Duration
}

// maxIdlePerHost is how many idle connections to the model's server the
// default client keeps: more than any llm.max_concurrent in practice.
const maxIdlePerHost = 256

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
	// Every concurrent turn streams on a connection of its own from a
	// server speaking HTTP/1.1 (local and compatible servers; HTTPS APIs
	// multiplex on one HTTP/2 connection instead). The default keeps two
	// idle per host, so under load most requests would dial anew.
	t.MaxIdleConnsPerHost = maxIdlePerHost
	t.MaxIdleConns = max(t.MaxIdleConns, maxIdlePerHost)
	return &http.Client{Transport: t}
}
