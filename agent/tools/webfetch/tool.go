// Package webfetch provides the web_fetch tool: fetch a public http(s) URL
// and return its readable content as Markdown or text, behind an SSRF guard
// (see guard.go) and hard limits on time, size and redirects.
package webfetch

import (
	"context"
	"encoding/json"
	"net/http"
	"net/netip"
	"time"

	"github.com/parleybot/parley/agent"
)

// Name is the tool's name as the model sees it.
const Name = "web_fetch"

// Defaults for zero Options fields.
const (
	DefaultMaxBytes     = 2 << 20
	DefaultTimeout      = 20 * time.Second
	DefaultMaxRedirects = 5
	DefaultMaxChars     = 20_000
	DefaultUserAgent    = "Parley/1 (+https://github.com/parleybot/parley)"
)

// Options configures the tool. The zero value is safe and usable.
type Options struct {
	// MaxBytes caps the response body read (after transfer decoding);
	// longer bodies are cut and the result says so. Default 2 MiB.
	MaxBytes int64
	// Timeout bounds the whole fetch: connect, redirects, headers and body.
	// Default 20s.
	Timeout time.Duration
	// MaxRedirects is how many redirects are followed. Default 5; negative
	// means none.
	MaxRedirects int
	// MaxChars caps the returned text (in characters, after conversion).
	// Default 20,000.
	MaxChars int
	// UserAgent is sent with every request. Default DefaultUserAgent.
	UserAgent string

	// AllowAddr, if set, is asked about every address the built-in policy
	// refuses (loopback, private, link-local, …) and may let it through by
	// returning true. It sees addresses after DNS resolution. Tests use it
	// to reach an httptest server on 127.0.0.1; a deployment could use it
	// to expose one deliberate internal host. Names refused outright
	// (localhost, metadata.google.internal) stay refused.
	AllowAddr func(netip.Addr) bool
	// AllowHosts are hosts web_fetch may reach although their addresses
	// are refused (an intranet wiki, on purpose): exact names, addresses
	// or CIDR prefixes (tools.web_fetch.allow_hosts). A listed name's
	// every address is allowed; a redirect elsewhere is checked as usual.
	// Names refused by name (localhost, cloud metadata) stay refused.
	AllowHosts []string
	// Resolve, if set, replaces DNS for host names. The guard still checks
	// each returned address when it is dialed. Tests use it to point a
	// public-looking name at a private address.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	switch {
	case o.MaxRedirects == 0:
		o.MaxRedirects = DefaultMaxRedirects
	case o.MaxRedirects < 0:
		o.MaxRedirects = 0
	}
	if o.MaxChars <= 0 {
		o.MaxChars = DefaultMaxChars
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	return o
}

// Args is the web_fetch argument contract.
type Args struct {
	URL string `json:"url" jsonschema:"the absolute http:// or https:// URL to fetch"`
}

const description = `Fetch a public web page or text resource over HTTP(S) and return its content: ` +
	`HTML pages are reduced to the main article and converted to Markdown; plain text, Markdown, JSON and XML are returned as they are. ` +
	`Images, PDFs and other binary types are not supported. ` +
	`Only public internet hosts can be reached (no localhost, private networks or cloud metadata). ` +
	`Long content is truncated, with a note saying so.`

// fetcher is one configured instance, behind both the tool and Fetcher.
// It is safe for concurrent use: everything in it is read-only after
// newFetcher, and per-call state lives in get.
type fetcher struct {
	opts      Options
	guard     *guard
	transport http.RoundTripper
}

// New returns the web_fetch tool.
func New(opts Options) (agent.Tool, error) {
	f, err := newFetcher(opts)
	if err != nil {
		return nil, err
	}
	t, err := agent.Func(Name, description, func(ctx context.Context, _ agent.Caller, a Args) (string, error) {
		return f.fetch(ctx, a.URL)
	})
	if err != nil {
		return nil, err
	}
	return fetchTool{t}, nil
}

// fetchTool is web_fetch as the agent sees it: what a page says is text
// from outside, and its URL is where a call sends data (agent/egress.go).
type fetchTool struct{ agent.Tool }

// UntrustedOutput: a page may say anything, to the model too.
func (fetchTool) UntrustedOutput() bool { return true }

// EgressTargets is the URL fetched; arguments that do not parse name
// nothing, and the call fails on them before anything is sent.
func (fetchTool) EgressTargets(args json.RawMessage) []string {
	var a Args
	if json.Unmarshal(args, &a) != nil || a.URL == "" {
		return nil
	}
	return []string{a.URL}
}

func newFetcher(opts Options) (*fetcher, error) {
	opts = opts.withDefaults()
	g, err := newGuard(opts)
	if err != nil {
		return nil, err
	}
	return &fetcher{opts: opts, guard: g, transport: g.transport()}, nil
}
