package config

import (
	"slices"
	"strings"
	"testing"
)

// TestWebSearch: tools.web_search is off by default and comes on with a
// backend, from the file or the environment; each backend's needs are
// checked, with the key's name and never a URL or the key; web_search is
// then a tool agents may list.
func TestWebSearch(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		env     map[string]string
		want    WebSearch
		wantErr string
	}{
		{"defaults: off", "", nil, WebSearch{RatePerHour: 30, TimeoutSeconds: 15}, ""},
		{"searxng from the file", "tools:\n  web_search:\n    backend: SearXNG\n    url: http://localhost:8888\n    rate_per_hour: 5\n", nil,
			WebSearch{Backend: "searxng", URL: "http://localhost:8888", RatePerHour: 5, TimeoutSeconds: 15}, ""},
		{"brave from the environment", "", map[string]string{"PARLEY_TOOLS_WEB_SEARCH_BACKEND": "brave", "PARLEY_TOOLS_WEB_SEARCH_API_KEY": "BSA-key-0001"},
			WebSearch{Backend: "brave", APIKey: "BSA-key-0001", RatePerHour: 30, TimeoutSeconds: 15}, ""},
		{"template", "tools:\n  web_search:\n    backend: template\n    url_template: https://s.example/api?q={query}&n={k}\n    rate_per_hour: 0\n", nil,
			WebSearch{Backend: "template", URLTemplate: "https://s.example/api?q={query}&n={k}", TimeoutSeconds: 15}, ""},
		{"an unknown backend", "tools:\n  web_search:\n    backend: google\n", nil, WebSearch{},
			`tools.web_search.backend: "google" is not valid; want searxng, brave, tavily or template`},
		{"searxng without its URL", "tools:\n  web_search:\n    backend: searxng\n", nil, WebSearch{}, "tools.web_search.url: searxng needs"},
		{"a URL that is none", "tools:\n  web_search:\n    backend: searxng\n    url: localhost:8888/secretpath\n", nil, WebSearch{},
			"tools.web_search.url: not an http(s) URL"},
		{"tavily without a key", "tools:\n  web_search:\n    backend: tavily\n", nil, WebSearch{}, "tools.web_search.api_key: tavily needs an API key"},
		{"a template without {query}", "tools:\n  web_search:\n    backend: template\n    url_template: https://s.example/?key=k1\n", nil, WebSearch{},
			"tools.web_search.url_template: the template backend needs"},
		{"a template placing a key it lacks", "tools:\n  web_search:\n    backend: template\n    url_template: https://s.example/?key={key}&q={query}\n", nil, WebSearch{},
			"tools.web_search.api_key: url_template holds {key}"},
		{"a negative rate", "tools:\n  web_search:\n    rate_per_hour: -1\n", nil, WebSearch{}, "tools.web_search.rate_per_hour: -1 is out of range"},
		{"no timeout", "tools:\n  web_search:\n    timeout_seconds: 0\n", nil, WebSearch{}, "tools.web_search.timeout_seconds: 0 is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadYAML(t, tt.yaml, tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				for _, leak := range []string{"secretpath", "key=k1"} {
					if strings.Contains(err.Error(), leak) {
						t.Errorf("the error quotes %q: %v", leak, err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Tools.WebSearch != tt.want {
				t.Fatalf("tools.web_search = %+v, want %+v", c.Tools.WebSearch, tt.want)
			}
			if on := slices.Contains(c.ToolNames(), "web_search"); on != tt.want.Enabled() {
				t.Errorf("web_search among the tools: %v", on)
			}
			if tt.want.APIKey != "" && !slices.Contains(c.SecretValues(), tt.want.APIKey.Reveal()) {
				t.Error("the key is not among the secrets doctor scrubs")
			}
		})
	}
}
