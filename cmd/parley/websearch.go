package main

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/tools/websearch"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// webSearchBackend is the backend tools.web_search configures.
func webSearchBackend(c config.WebSearch) (websearch.Backend, error) {
	return websearch.NewBackend(websearch.Config{Backend: c.Backend, URL: c.URL, URLTemplate: c.URLTemplate,
		APIKey: c.APIKey.Reveal(), Timeout: time.Duration(c.TimeoutSeconds) * time.Second})
}

// webSearchTool is web_search over the configured backend, each person's
// searches but the admins' counted in kv.
func webSearchTool(c config.WebSearch, admins []string, kv websearch.KV) (agent.Tool, error) {
	b, err := webSearchBackend(c)
	if err != nil {
		return nil, err
	}
	return websearch.New(b, &websearch.Limit{PerHour: c.RatePerHour, KV: kv, Now: time.Now, Exempt: admins})
}

// webSearchQuery is what doctor searches for.
const webSearchQuery = "parley"

// webSearchCheck makes one real search with the configured backend and
// says how many results it found, or why it could not. Where it asked is
// said by scheme and host alone: a template's URL may hold a key.
func webSearchCheck(ctx context.Context, c config.WebSearch) (string, error) {
	if !c.Enabled() {
		return "off (tools.web_search.backend is not set)", nil
	}
	b, err := webSearchBackend(c)
	if err != nil {
		return "", err
	}
	where := c.Backend
	if u, err := url.Parse(b.Endpoint(webSearchQuery, 3)); err == nil {
		where += " at " + u.Scheme + "://" + u.Host
	}
	results, err := b.Search(ctx, webSearchQuery, 3)
	if err != nil {
		return "", fmt.Errorf("%s: %w", where, err)
	}
	if len(results) == 0 {
		return "", warning(fmt.Sprintf("%s answered, but found nothing for %q", where, webSearchQuery))
	}
	return fmt.Sprintf("%s: %d results for %q", where, len(results), webSearchQuery), nil
}
