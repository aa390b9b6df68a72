package adapterkit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Downloads of files people attached. The URL of an attachment comes from
// an event, and an event can be forged (a signed webhook only proves who
// sent it, not that a URL in it is the platform's), so an adapter fetches
// only from the hosts it trusts with its credentials: a forged URL must
// not make the bot send its token, or even a request, anywhere else.

// ErrHostRefused marks a download refused before any request: the URL is
// not on a host the adapter fetches files from.
var ErrHostRefused = errors.New("refused to fetch a file from a host that is not the platform's")

// ErrRedirectRefused marks a download whose host redirected it to a host
// the adapter does not fetch files from; the redirect was not followed.
var ErrRedirectRefused = errors.New("refused to follow a redirect away from the platform's file hosts")

// maxRedirects is net/http's own default limit.
const maxRedirects = 10

// Hosts decides which URLs an adapter may fetch files from: https URLs on
// one of hosts (the platform's file hosts, "files.slack.com"), and URLs
// with the scheme and host of the adapter's configured API URL, which
// already receives its credentials with every call (a proxy, a local Bot
// API server, a fake in tests).
type Hosts struct {
	https []string
	api   *url.URL
}

// NewHosts trusts hosts over https and the scheme and host of apiURL.
func NewHosts(apiURL string, hosts ...string) (Hosts, error) {
	api, err := url.Parse(apiURL)
	if err != nil || api.Scheme == "" || api.Host == "" {
		return Hosts{}, fmt.Errorf("file hosts: api url %q is not an absolute URL", apiURL)
	}
	h := Hosts{api: api}
	for _, host := range hosts {
		h.https = append(h.https, strings.ToLower(host))
	}
	return h, nil
}

// Allows reports whether u is on a trusted host. Ports count: the
// platform's hosts are trusted on https's own port only.
func (h Hosts) Allows(u *url.URL) bool {
	if u == nil || u.Host == "" {
		return false
	}
	if h.api != nil && strings.EqualFold(u.Scheme, h.api.Scheme) && strings.EqualFold(u.Host, h.api.Host) {
		return true
	}
	if !strings.EqualFold(u.Scheme, "https") {
		return false
	}
	host := strings.ToLower(u.Host)
	for _, want := range h.https {
		if host == want {
			return true
		}
	}
	return false
}

// Get GETs rawURL with header (credentials, where the platform wants
// them) through client, if h allows it; otherwise it fails with
// ErrHostRefused and sends nothing. Redirects are followed only to hosts
// h allows (ErrRedirectRefused otherwise), so credentials never follow a
// redirect off the platform; net/http would drop an Authorization header
// on most such hops anyway, but not to a subdomain, and a download
// request itself leaks what the bot fetches. The response is returned
// whatever its status, for the adapter to map; the caller closes its
// body. Errors name the host, never the whole URL: some carry a token.
func Get(ctx context.Context, client *http.Client, rawURL string, header http.Header, h Hosts) (*http.Response, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: the URL does not parse", ErrHostRefused)
	}
	if !h.Allows(u) {
		return nil, fmt.Errorf("%w: %s://%s", ErrHostRefused, u.Scheme, u.Host)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("download from %s: %w", u.Host, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if client == nil {
		client = http.DefaultClient
	}
	c := *client // a copy: the adapter's client keeps its own redirect policy
	next := client.CheckRedirect
	c.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if !h.Allows(r.URL) {
			return fmt.Errorf("%w: %s redirected to %s://%s", ErrRedirectRefused, u.Host, r.URL.Scheme, r.URL.Host)
		}
		if next != nil {
			return next(r, via)
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("download from %s: stopped after %d redirects", u.Host, maxRedirects)
		}
		return nil
	}
	resp, err := c.Do(req)
	if ue, ok := errors.AsType[*url.Error](err); ok {
		// Do's *url.Error quotes the URL: keep only its cause (a
		// timeout, a cancelled context, a refused redirect).
		err = ue.Err
	}
	if err != nil {
		return nil, fmt.Errorf("download from %s: %w", u.Host, err)
	}
	return resp, nil
}

// RetryAfter is how long a file host's 429 asks to wait: its Retry-After
// in whole seconds when that is more than one, else fallback (a "0" or
// "1" would have the caller hammer the host).
func RetryAfter(resp *http.Response, fallback time.Duration) time.Duration {
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 1 {
		return time.Duration(secs) * time.Second
	}
	return fallback
}
