package llm

import (
	"net/http"
	"net/url"
	"strings"
)

// Attempt records the one HTTP exchange of a provider call, through the
// SDK's middleware: where the request went and the response, if one came.
// An SDK's error alone cannot tell a refused connection from a stream cut
// midway, nor give the status of an error page that is not JSON.
type Attempt struct {
	URL  string         // the endpoint, without credentials or query
	Resp *http.Response // nil when no response came
}

// Observe is the body of an SDK middleware: it records req's endpoint and
// the response next returns.
func (a *Attempt) Observe(req *http.Request, next func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	a.URL = DisplayURL(req.URL)
	resp, err := next(req)
	if err == nil {
		a.Resp = resp
	}
	return resp, err
}

// DisplayURL drops credentials, query and fragment from u: the URL is shown
// to operators, and only scheme, host and path help fix a base URL.
func DisplayURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment = nil, "", false, "", ""
	return c.String()
}

// Scrub removes key from a provider's message: some servers echo the key
// they refused.
func Scrub(msg, key string) string {
	if len(key) < 8 { // too short to search for without mangling text
		return msg
	}
	return strings.ReplaceAll(msg, key, "[redacted]")
}
