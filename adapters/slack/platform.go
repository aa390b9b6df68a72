package slack

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/secret"
)

// Platform describes Slack to the program that runs Parley.
func Platform() chat.Platform {
	return chat.Platform{
		Name: platform,
		// A Slack app is installed into one workspace, whose members are
		// vetted already.
		Open:     true,
		Settings: func() chat.Settings { return &Settings{Mode: ModeSocket, APIURL: DefaultAPIURL} },
		Method:   method,
		IsEdit:   func(m string) bool { return m == "chat.update" || m == "chat.appendStream" },
	}
}

// Settings is the slack section of the configuration.
type Settings struct {
	On            bool          `mapstructure:"enabled"`
	BotToken      secret.Secret `mapstructure:"bot_token"`
	AppToken      secret.Secret `mapstructure:"app_token"`
	SigningSecret secret.Secret `mapstructure:"signing_secret"`
	// Mode is ModeSocket or ModeHTTP.
	Mode string `mapstructure:"mode"`
	// APIURL is the Web API base; it always ends in "/" because the SDK
	// appends method names to it directly.
	APIURL string `mapstructure:"api_url"`
}

// Enabled reports slack.enabled.
func (s *Settings) Enabled() bool { return s.On }

// Validate checks the slack.* keys.
func (s *Settings) Validate(p chat.Problems) {
	// A missing slash would turn ".../api" + "chat.postMessage" into a 404.
	if !strings.HasSuffix(s.APIURL, "/") {
		s.APIURL += "/"
	}
	p.URL("slack.api_url", s.APIURL, chat.AnyURL)
	s.Mode = strings.ToLower(s.Mode)
	switch s.Mode {
	case ModeSocket, ModeHTTP:
	default:
		p.Add("slack.mode: %q is not valid; want socket or http", s.Mode)
	}
	if s.On {
		p.Require("slack.bot_token", s.BotToken.Reveal(), "slack.enabled is true")
		s.Mode = strings.ToLower(s.Mode)
		switch s.Mode {
		case ModeSocket:
			p.Require("slack.app_token", s.AppToken.Reveal(), "slack.enabled is true and slack.mode is socket")
		case ModeHTTP:
			p.Require("slack.signing_secret", s.SigningSecret.Reveal(), "slack.enabled is true and slack.mode is http")
		}
	}
	// Swapped tokens fail later with an opaque "not_allowed_token_type".
	if strings.HasPrefix(s.BotToken.Reveal(), "xapp-") {
		p.Add("slack.bot_token: this is an app-level token (xapp-…); want the bot token (xoxb-…)")
	}
	if strings.HasPrefix(s.AppToken.Reveal(), "xoxb-") {
		p.Add("slack.app_token: this is a bot token (xoxb-…); want the app-level token (xapp-…)")
	}
}

// Check calls auth.test.
func (s *Settings) Check(ctx context.Context) (string, error) {
	return Check(ctx, s.BotToken.Reveal(), s.APIURL)
}

// Receiver is "": every replica receives (Socket Mode spreads events over
// the open connections; HTTP mode is behind the operator's balancer).
func (s *Settings) Receiver() string { return "" }

// ServesHTTP reports HTTP mode.
func (s *Settings) ServesHTTP() bool { return s.On && s.Mode == ModeHTTP }

// New builds the adapter.
func (s *Settings) New(env chat.Env) (chat.Adapter, error) {
	return New(Config{
		BotToken: s.BotToken.Reveal(), AppToken: s.AppToken.Reveal(), APIURL: s.APIURL, Mode: s.Mode,
		SigningSecret: s.SigningSecret.Reveal(), Listen: env.Listen, Mux: env.Mux, HTTPClient: env.HTTPClient,
		Logger: env.Logger,
	})
}

// methods are the Web API methods Parley calls.
func methods() []string {
	return []string{"auth.test", "apps.connections.open", "chat.postMessage", "chat.update", "chat.postEphemeral",
		"chat.delete", "chat.startStream", "chat.appendStream", "chat.stopStream", "assistant.threads.setStatus",
		"assistant.threads.setSuggestedPrompts", "assistant.threads.setTitle", "users.info", "conversations.info",
		"conversations.history", "conversations.replies", "conversations.open"}
}

// method names the Web API method req calls: <api url>/<method>; files and
// response_urls live on hosts of their own.
func method(req *http.Request) string {
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	if last := segs[len(segs)-1]; slices.Contains(methods(), last) {
		return last
	}
	switch {
	case strings.HasPrefix(req.URL.Host, "files."):
		return "file"
	case strings.HasPrefix(req.URL.Host, "hooks."):
		return "response_url"
	}
	return "other"
}
