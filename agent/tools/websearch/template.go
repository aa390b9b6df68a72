package websearch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// template asks any service that answers SearXNG's shape: GET the
// configured URL with {query} (URL-escaped), {k} and {key} (the API key,
// URL-escaped) filled in; a key the template does not place is sent as a
// bearer token. The answer is JSON:
//
//	{"results": [{"title": "…", "url": "https://…",
//	              "content": "…" (or "snippet"),
//	              "publishedDate": "…" (or "date")}]}
//
// Other fields are ignored; a result without an http(s) url is dropped.
type template struct {
	tmpl, key string
	h         *httpGetter
}

func (s *template) Name() string { return Template }

// Endpoint is the request with the key left out.
func (s *template) Endpoint(query string, k int) string { return shown(s.fill(query, k, "KEY")) }

func (s *template) fill(query string, k int, key string) string {
	return strings.NewReplacer("{query}", url.QueryEscape(query), "{k}", kParam(k), "{key}", url.QueryEscape(key)).Replace(s.tmpl)
}

func (s *template) Search(ctx context.Context, query string, k int) ([]Result, error) {
	var h http.Header
	if s.key != "" && !strings.Contains(s.tmpl, "{key}") {
		h = http.Header{"Authorization": {"Bearer " + s.key}}
	}
	return s.h.results(ctx, Template, http.MethodGet, s.fill(query, k, s.key), nil, h, k, func(b []byte, k int) ([]Result, error) {
		return parseSearXNG(Template, b, k)
	})
}

// CheckTemplate says what is wrong with a URL template: it must be an
// absolute http(s) URL holding {query}.
func CheckTemplate(tmpl string) error {
	if tmpl == "" {
		return errors.New("web_search: the template backend needs url_template")
	}
	if !strings.Contains(tmpl, "{query}") {
		return errors.New("web_search: url_template must hold {query}")
	}
	u, err := url.Parse(strings.NewReplacer("{query}", "q", "{k}", "5", "{key}", "key").Replace(tmpl))
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("web_search: url_template is not an http(s) URL")
	}
	return nil
}
