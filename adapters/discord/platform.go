package discord

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/secret"
)

// Platform describes Discord to the program that runs Parley.
func Platform() chat.Platform {
	return chat.Platform{
		Name:     platform,
		Settings: func() chat.Settings { return &Settings{APIURL: DefaultAPIURL, Shards: 1} },
		Method: func(req *http.Request) string {
			return route(req.Method, strings.Split(strings.Trim(req.URL.Path, "/"), "/"))
		},
		IsEdit: func(m string) bool {
			return strings.HasPrefix(m, "PATCH ") && strings.Contains(m, "/messages/")
		},
	}
}

// Settings is the discord section of the configuration.
type Settings struct {
	On     bool          `mapstructure:"enabled"`
	Token  secret.Secret `mapstructure:"token"`
	APIURL string        `mapstructure:"api_url"`
	// GuildID registers the application commands in that guild only, where
	// changes show at once; empty registers them globally.
	GuildID string `mapstructure:"guild_id"`
	// Shards splits the gateway into that many connections (Discord
	// requires sharding from 2,500 guilds on); replicas sharing a store
	// spread them over themselves.
	Shards int `mapstructure:"shards"`
}

// Enabled reports discord.enabled.
func (s *Settings) Enabled() bool { return s.On }

// Validate checks the discord.* keys.
func (s *Settings) Validate(p chat.Problems) {
	if n := s.Shards; n < 1 || n > MaxShards {
		p.Add("discord.shards: %d is out of range; want 1 to %d", n, MaxShards)
	}
	p.URL("discord.api_url", s.APIURL, chat.AnyURL)
	if s.On {
		p.Require("discord.token", s.Token.Reveal(), "discord.enabled is true")
	}
}

// Check calls /users/@me.
func (s *Settings) Check(ctx context.Context) (string, error) {
	return Check(ctx, s.Token.Reveal(), s.APIURL)
}

// Receiver: each shard of the gateway is received by one elected replica
// (Discord closes a session IDENTIFYing twice); the lease is per shard
// below this name.
func (s *Settings) Receiver() string { return "receive:" + platform }

// ServesHTTP is false: the gateway is an outbound websocket.
func (s *Settings) ServesHTTP() bool { return false }

// New builds the adapter.
func (s *Settings) New(env chat.Env) (chat.Adapter, error) {
	return New(Config{
		Token: s.Token.Reveal(), APIURL: s.APIURL, GuildID: s.GuildID, Shards: s.Shards, State: env.State,
		HTTPClient: env.HTTPClient, Logger: env.Logger,
	})
}

// routeWords are the route segments kept in a method's name; any other
// segment (ids, tokens) reads {}.
func routeWords() []string {
	return []string{"channels", "messages", "typing", "threads", "users", "@me", "@original", "gateway", "bot",
		"applications", "guilds", "commands", "interactions", "callback", "webhooks", "attachments", "reactions"}
}

// isAPIPrefix reports whether seg is part of the URL before the route:
// /api/v9.
func isAPIPrefix(seg string) bool {
	if seg == "api" {
		return true
	}
	v, ok := strings.CutPrefix(seg, "v")
	return ok && v != "" && strings.Trim(v, "0123456789") == ""
}

// route is "VERB route", the route's ids and tokens replaced by {}:
// "PATCH channels/{}/messages/{}".
func route(verb string, segs []string) string {
	switch verb {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		verb = "OTHER"
	}
	for len(segs) > 0 && isAPIPrefix(segs[0]) {
		segs = segs[1:]
	}
	const maxSegs = 8 // Discord's routes are shorter; the label stays bounded
	out := make([]string, 0, min(len(segs), maxSegs))
	for _, s := range segs[:min(len(segs), maxSegs)] {
		if !slices.Contains(routeWords(), s) {
			s = "{}"
		}
		out = append(out, s)
	}
	return verb + " " + strings.Join(out, "/")
}
