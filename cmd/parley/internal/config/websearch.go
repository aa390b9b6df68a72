package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parleybot/parley/internal/secret"
)

// WebSearch configures the web_search tool: off until Backend is set.
type WebSearch struct {
	// Backend is searxng, brave, tavily or template; "" turns web_search
	// off.
	Backend string `mapstructure:"backend"`
	// URL is the SearXNG instance's base URL (searxng needs it), or in
	// place of Brave's or Tavily's public API a proxy's.
	URL string `mapstructure:"url"`
	// URLTemplate is the template backend's request: an http(s) URL
	// holding {query} and optionally {k} and {key} (APIKey).
	URLTemplate string `mapstructure:"url_template"`
	// APIKey is Brave's or Tavily's key (they need one), or the template
	// backend's: where url_template places {key}, else a bearer token.
	APIKey secret.Secret `mapstructure:"api_key"`
	// RatePerHour is how many searches one person may make an hour; 0
	// none.
	RatePerHour int `mapstructure:"rate_per_hour"`
	// TimeoutSeconds bounds one search.
	TimeoutSeconds int `mapstructure:"timeout_seconds"`
}

// webSearchBackends are tools.web_search.backend's words;
// agent/tools/websearch takes the same (this package does not import it).
var webSearchBackends = []string{"searxng", "brave", "tavily", "template"}

func defaultWebSearch() WebSearch { return WebSearch{RatePerHour: 30, TimeoutSeconds: 15} }

// Enabled reports whether a backend is configured.
func (w WebSearch) Enabled() bool { return w.Backend != "" }

// validate checks the tools.web_search.* keys. URLs are not echoed: a
// template may hold a key.
func (w WebSearch) validate() []string {
	p := outOfRange(bound[int]{"tools.web_search.rate_per_hour", w.RatePerHour, 0, 100000},
		bound[int]{"tools.web_search.timeout_seconds", w.TimeoutSeconds, 1, 120})
	if !w.Enabled() {
		return p
	}
	if !slices.Contains(webSearchBackends, w.Backend) {
		return append(p, fmt.Sprintf("tools.web_search.backend: %q is not valid; want searxng, brave, tavily or template", Quiet(w.Backend)))
	}
	switch {
	case w.URL != "" && !isHTTPURL(w.URL):
		p = append(p, "tools.web_search.url: not an http(s) URL")
	case w.Backend == "searxng" && w.URL == "":
		p = append(p, "tools.web_search.url: searxng needs the instance's base URL, e.g. http://localhost:8888")
	}
	if (w.Backend == "brave" || w.Backend == "tavily") && w.APIKey == "" {
		p = append(p, fmt.Sprintf("tools.web_search.api_key: %s needs an API key (or PARLEY_TOOLS_WEB_SEARCH_API_KEY)", w.Backend))
	}
	if w.Backend == "template" {
		switch {
		case !strings.Contains(w.URLTemplate, "{query}"):
			p = append(p, "tools.web_search.url_template: the template backend needs an http(s) URL holding {query}")
		case !isHTTPURL(strings.NewReplacer("{query}", "q", "{k}", "5", "{key}", "key").Replace(w.URLTemplate)):
			p = append(p, "tools.web_search.url_template: not an http(s) URL")
		case strings.Contains(w.URLTemplate, "{key}") && w.APIKey == "":
			p = append(p, "tools.web_search.api_key: url_template holds {key}, and no key is set")
		}
	}
	return p
}
