// Package discord connects Parley to Discord.
package discord

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// apiPrefix is the path discordgo's endpoints are built on.
// discordgo.APIVersion is a var, so this is computed per call.
func apiPrefix() string { return "/api/v" + discordgo.APIVersion }

// Rewrite sends discordgo's requests to base (discord.api_url, e.g. a proxy
// or a fake) instead of discord.com. discordgo computes its endpoints from
// package globals at init; rewriting per client keeps sessions independent.
type Rewrite struct {
	Base *url.URL
	Next http.RoundTripper // nil: http.DefaultTransport
}

// NewRewrite parses apiURL ("https://discord.com/api/v9").
func NewRewrite(apiURL string) (*Rewrite, error) {
	u, err := url.Parse(strings.TrimRight(apiURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("discord api url %q: want an http(s) URL", apiURL)
	}
	return &Rewrite{Base: u}, nil
}

func (t *Rewrite) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host, r.Host = t.Base.Scheme, t.Base.Host, t.Base.Host
	r.URL.Path = t.Base.Path + strings.TrimPrefix(r.URL.Path, apiPrefix())
	r.URL.RawPath = ""
	next := t.Next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r)
}
