package telegram

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/secret"
)

// Platform describes Telegram to the program that runs Parley.
func Platform() chat.Platform {
	return chat.Platform{
		Name:     platform,
		Settings: func() chat.Settings { return &Settings{Mode: ModePolling, APIURL: DefaultAPIURL} },
		Method:   method,
		IsEdit: func(m string) bool {
			return m == "editMessageText" || m == "editMessageReplyMarkup" || m == "sendMessageDraft"
		},
	}
}

// Settings is the telegram section of the configuration.
type Settings struct {
	On    bool          `mapstructure:"enabled"`
	Token secret.Secret `mapstructure:"token"`
	// Mode is ModePolling or ModeWebhook.
	Mode   string `mapstructure:"mode"`
	APIURL string `mapstructure:"api_url"`
	// WebhookURL is the public https URL Telegram posts updates to in
	// webhook mode; its path is served on http.listen.
	WebhookURL string `mapstructure:"webhook_url"`
	// WebhookSecret is checked on every webhook request; empty means a
	// random one for each start.
	WebhookSecret secret.Secret `mapstructure:"webhook_secret"`
}

// Enabled reports telegram.enabled.
func (s *Settings) Enabled() bool { return s.On }

// Validate checks the telegram.* keys.
func (s *Settings) Validate(p chat.Problems) {
	p.URL("telegram.api_url", s.APIURL, chat.AnyURL)
	s.Mode = strings.ToLower(s.Mode)
	switch s.Mode {
	case ModePolling, ModeWebhook:
	default:
		p.Add("telegram.mode: %q is not valid; want polling or webhook", s.Mode)
	}
	if tok := s.Token.Reveal(); tok != "" && !validToken(tok) {
		// A secret: say what is wrong, never echo it.
		p.Add("telegram.token: want the token as @BotFather gives it: the bot's id, a colon, then letters, digits, _ and - " +
			"(no \"bot\" prefix, no quotes or spaces)")
	}
	if s.On {
		p.Require("telegram.token", s.Token.Reveal(), "telegram.enabled is true")
		if s.Mode == ModeWebhook {
			p.Require("telegram.webhook_url", s.WebhookURL, "telegram.enabled is true and telegram.mode is webhook")
		}
	}
	p.URL("telegram.webhook_url", s.WebhookURL, "https://your.host/path")
	if w := s.WebhookSecret.Reveal(); w != "" && !validWebhookSecret(w) {
		// The value is a secret: say what is wrong, never echo it.
		p.Add("telegram.webhook_secret: want 1 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)")
	}
}

// validToken is the shape of a bot token: "<bot id>:<secret>", the id
// digits, the secret of A-Z, a-z, 0-9, _ and -.
func validToken(s string) bool {
	id, secret, ok := strings.Cut(s, ":")
	if !ok || id == "" || secret == "" {
		return false
	}
	for _, c := range id {
		if c < '0' || c > '9' {
			return false
		}
	}
	for _, c := range secret {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// validWebhookSecret applies Telegram's rule for setWebhook's secret_token.
func validWebhookSecret(s string) bool {
	if len(s) > 256 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// Check calls getMe (and getWebhookInfo).
func (s *Settings) Check(ctx context.Context) (string, error) {
	return Check(ctx, s.Token.Reveal(), s.APIURL)
}

// Receiver: one replica long-polls (Telegram refuses two getUpdates at
// once); webhooks reach whichever replica the balancer picks.
func (s *Settings) Receiver() string {
	if s.Mode == ModeWebhook {
		return ""
	}
	return "receive:" + platform
}

// ServesHTTP reports webhook mode.
func (s *Settings) ServesHTTP() bool { return s.On && s.Mode == ModeWebhook }

// New builds the adapter.
func (s *Settings) New(env chat.Env) (chat.Adapter, error) {
	return New(Config{
		Token: s.Token.Reveal(), APIURL: s.APIURL, Mode: s.Mode, WebhookURL: s.WebhookURL,
		WebhookSecret: s.WebhookSecret.Reveal(), Listen: env.Listen, Mux: env.Mux, State: env.State,
		HTTPClient: env.HTTPClient, Logger: env.Logger,
	})
}

// methods are the Bot API methods Parley calls.
func methods() []string {
	return []string{"getMe", "getUpdates", "setMyCommands", "deleteWebhook", "setWebhook", "sendMessage",
		"editMessageText", "editMessageReplyMarkup", "deleteMessage", "sendChatAction", "sendMessageDraft",
		"answerCallbackQuery", "getFile", "getChat"}
}

// method names the Bot API method req calls: /bot<token>/<method>, or
// /file/bot<token>/<path> for a download. The token is never a label.
func method(req *http.Request) string {
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	if slices.Contains(segs, "file") {
		return "file"
	}
	if last := segs[len(segs)-1]; slices.Contains(methods(), last) {
		return last
	}
	return "other"
}
