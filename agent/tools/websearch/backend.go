package websearch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Backend answers a query with results, at most k (fewer when it has
// fewer). The tool declares it; searxng.go, brave.go, tavily.go and
// template.go implement it.
type Backend interface {
	Search(ctx context.Context, query string, k int) ([]Result, error)
	// Endpoint is where a search for query sends it: the request's URL,
	// query included, never a key. The egress rule judges it
	// (agent.Egress), and an approval shows it.
	Endpoint(query string, k int) string
	// Name says which backend it is: searxng, brave, tavily or template.
	Name() string
}

// The backends' names, as tools.web_search.backend takes them.
const (
	SearXNG  = "searxng"
	Brave    = "brave"
	Tavily   = "tavily"
	Template = "template"
)

// Defaults for zero Config fields.
const (
	DefaultTimeout  = 15 * time.Second
	DefaultMaxBytes = 1 << 20
	DefaultBraveURL = "https://api.search.brave.com"
	DefaultTavily   = "https://api.tavily.com"
	userAgent       = "Parley/1 (+https://github.com/parleybot/parley)"
)

// Config chooses and configures a backend (tools.web_search.*).
type Config struct {
	// Backend is searxng, brave, tavily or template.
	Backend string
	// URL is SearXNG's base URL (required for searxng), or Brave's or
	// Tavily's API base in place of the public one (a proxy; tests).
	URL string
	// URLTemplate is the template backend's request URL, holding {query}
	// (URL-escaped) and optionally {k} and {key} (APIKey, URL-escaped).
	URLTemplate string
	// APIKey is Brave's subscription token, Tavily's key, or for the
	// template backend a bearer token (optional; SearXNG takes none).
	APIKey string
	// Timeout bounds one search. Default 15 s.
	Timeout time.Duration
	// MaxBytes caps the answer read. Default 1 MiB.
	MaxBytes int64
	// Client makes the requests; nil: a client of its own. The backend is
	// the operator's choice (SearXNG is often on the LAN), so no address
	// is refused as web_fetch refuses them.
	Client *http.Client
}

// NewBackend returns the backend c configures.
func NewBackend(c Config) (Backend, error) {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.Client == nil {
		c.Client = &http.Client{}
	}
	h := &httpGetter{client: c.Client, timeout: c.Timeout, maxBytes: c.MaxBytes}
	switch c.Backend {
	case SearXNG:
		base, err := baseURL(c.URL, "")
		if err != nil {
			return nil, fmt.Errorf("web_search: searxng needs the URL of the instance: %w", err)
		}
		return &searxng{base: base, h: h}, nil
	case Brave:
		base, err := baseURL(c.URL, DefaultBraveURL)
		if err != nil {
			return nil, fmt.Errorf("web_search: brave: %w", err)
		}
		if c.APIKey == "" {
			return nil, errors.New("web_search: brave needs an API key")
		}
		return &brave{base: base, key: c.APIKey, h: h}, nil
	case Tavily:
		base, err := baseURL(c.URL, DefaultTavily)
		if err != nil {
			return nil, fmt.Errorf("web_search: tavily: %w", err)
		}
		if c.APIKey == "" {
			return nil, errors.New("web_search: tavily needs an API key")
		}
		return &tavily{base: base, key: c.APIKey, h: h}, nil
	case Template:
		if err := CheckTemplate(c.URLTemplate); err != nil {
			return nil, err
		}
		if strings.Contains(c.URLTemplate, "{key}") && c.APIKey == "" {
			return nil, errors.New("web_search: url_template holds {key}, and no API key is set")
		}
		return &template{tmpl: c.URLTemplate, key: c.APIKey, h: h}, nil
	case "":
		return nil, errors.New("web_search: no backend configured")
	}
	return nil, fmt.Errorf("web_search: unknown backend %q (searxng, brave, tavily or template)", c.Backend)
}

// baseURL is raw (or def when raw is empty) as an absolute http(s) URL
// without a trailing slash.
func baseURL(raw, def string) (string, error) {
	if raw == "" {
		raw = def
	}
	if raw == "" {
		return "", errors.New("no URL")
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%q is not an http(s) URL", raw)
	}
	return strings.TrimRight(raw, "/"), nil
}

// StatusError is a backend's answer other than 200. A rate limit or a
// server's failure is the environment's (agent.TransientError).
type StatusError struct {
	Backend string
	Code    int
}

func (e *StatusError) Error() string {
	why := ""
	switch {
	case e.Code == http.StatusTooManyRequests:
		why = ": it is rate limiting searches; try again later"
	case e.Code == http.StatusUnauthorized || e.Code == http.StatusForbidden:
		why = ": it refused the request (a wrong API key, or a SearXNG instance without format json in search.formats)"
	case e.Code >= 500:
		why = ": the search service failed"
	}
	return fmt.Sprintf("web_search: %s answered HTTP %d%s", e.Backend, e.Code, why)
}

// Transient: a rate limit or a server's failure passes.
func (e *StatusError) Transient() bool {
	return e.Code == http.StatusTooManyRequests || e.Code >= 500
}

// httpGetter makes one backend request and reads its answer, bounded in
// time and size.
type httpGetter struct {
	client   *http.Client
	timeout  time.Duration
	maxBytes int64
}

// do sends req (body, when not nil, as JSON) and returns the answer's
// body. Errors never quote the URL: a template may hold a key.
func (h *httpGetter) do(ctx context.Context, backend, method, target string, body []byte, header http.Header) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return nil, fmt.Errorf("web_search: %s: bad request URL", backend)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := h.client.Do(req)
	if err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return nil, fmt.Errorf("web_search: %s: %w", backend, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, &StatusError{Backend: backend, Code: resp.StatusCode}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, h.maxBytes+1))
	if err != nil {
		if ue, ok := errors.AsType[*url.Error](err); ok {
			err = ue.Err
		}
		return nil, fmt.Errorf("web_search: %s: reading the answer: %w", backend, err)
	}
	if int64(len(b)) > h.maxBytes {
		return nil, fmt.Errorf("web_search: %s answered more than %d bytes", backend, h.maxBytes)
	}
	return b, nil
}

// results makes the request and parses its answer into at most k results.
func (h *httpGetter) results(ctx context.Context, backend, method, target string, body []byte, header http.Header,
	k int, parse func([]byte, int) ([]Result, error)) ([]Result, error) {
	b, err := h.do(ctx, backend, method, target, body, header)
	if err != nil {
		return nil, err
	}
	return parse(b, k)
}

// shown is a request's URL as an approval may show it: without the
// credentials a base URL may carry (http://user:pass@searx.lan/).
func shown(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// malformed is the error of an answer that is not the expected JSON.
func malformed(backend string) error {
	return fmt.Errorf("web_search: %s answered something other than its JSON results", backend)
}
