package config

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/internal/secret"
)

// ValidationError lists every problem found in a configuration, so an
// operator fixes them all in one pass rather than one restart per mistake.
type ValidationError struct {
	// File is the configuration file that was read, "" if none.
	File string
	// Problems each name a key, what is wrong and what is wanted, e.g.
	// `slack.mode: "sockets" is not valid; want socket or http`.
	Problems []string
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("invalid configuration")
	if e.File != "" {
		fmt.Fprintf(&b, " (file %s)", e.File)
	}
	if len(e.Problems) == 1 {
		b.WriteString(": " + e.Problems[0])
		return b.String()
	}
	b.WriteString(":")
	for _, p := range e.Problems {
		b.WriteString("\n  - " + p)
	}
	return b.String()
}

// normalize fills values that depend on other values and puts the
// forgiving spellings into canonical form before validation.
func (c *Config) normalize() {
	if c.LLM.Model == "" {
		switch {
		case c.LLM.Configured(ProviderOpenAI):
			c.LLM.Model = DefaultOpenAIModel
		case c.LLM.Configured(ProviderAnthropic):
			c.LLM.Model = DefaultAnthropicModel
		}
	}
	c.LLM.normalize()
	if m := c.Memory.GuardModel; m != "" && m != GuardModelOff {
		if canonical, err := llm.Canonical(m); err == nil {
			c.Memory.GuardModel = canonical
		}
	}
	c.Slack.Mode = strings.ToLower(c.Slack.Mode)
	c.Telegram.Mode = strings.ToLower(c.Telegram.Mode)
	// The Slack SDK appends method names to the base URL directly, so a
	// missing slash would turn ".../api" + "chat.postMessage" into a 404.
	if !strings.HasSuffix(c.Slack.APIURL, "/") {
		c.Slack.APIURL += "/"
	}
}

// validate returns one message per problem, each starting with the key.
func (c *Config) validate() []string {
	var p []string
	// A value pasted into the wrong field may be a key: problems never
	// quote one (redact.go).
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, quietArgs(args)...)) }

	if m := c.Memory.GuardModel; m != "" && m != GuardModelOff {
		if provider, _, ok := strings.Cut(m, "/"); !ok || (provider != ProviderOpenAI && provider != ProviderAnthropic) {
			add("memory.guard_model: %q must be provider/model (openai or anthropic), or off", m)
		}
	}
	p = append(p, c.LLM.validate()...)

	if n := c.LLM.MaxConcurrent; n < 1 || n > 1000 {
		add("llm.max_concurrent: %d is out of range; want 1 to 1000", n)
	}
	if n := c.Discord.Shards; n < 1 || n > MaxDiscordShards {
		add("discord.shards: %d is out of range; want 1 to %d", n, MaxDiscordShards)
	}
	if n := c.Tools.Approval.ExpireMinutes; n < 1 || n > 7*24*60 {
		add("tools.approval.expire_minutes: %d is out of range; want 1 to 10080 (a week)", n)
	}
	if p := c.LLM.CompactAtPercent; p < 10 || p > 95 {
		add("llm.compact_at_percent: %d is out of range; want 10 to 95", p)
	}
	for _, l := range []struct {
		key string
		n   int
		max int
	}{
		{"limits.turns_per_minute", c.Limits.TurnsPerMinute, 10000},
		{"limits.daily_tokens", c.Limits.DailyTokens, 1_000_000_000},
		{"limits.queue_messages", c.Limits.QueueMessages, 10000},
		{"limits.queue_bytes", c.Limits.QueueBytes, 100 << 20},
		{"limits.message_chars", c.Limits.MessageChars, 1_000_000},
	} {
		if l.n < 0 || l.n > l.max {
			add("%s: %d is out of range; want 0 (no limit) to %d", l.key, l.n, l.max)
		}
	}
	for _, m := range []struct {
		key string
		n   int
	}{{"memory.profile_chars", c.Memory.ProfileChars}, {"memory.facts_chars", c.Memory.FactsChars}} {
		if m.n < 100 || m.n > 100000 {
			add("%s: %d is out of range; want 100 to 100000 characters", m.key, m.n)
		}
	}
	p = append(p, c.KB.validate()...)
	p = append(p, c.Evolution.validate()...)
	p = append(p, c.Reminders.validate()...)
	p = append(p, c.Store.validate()...)
	p = append(p, c.Tasks.validate()...)
	p = append(p, c.Attachments.validate(c.LLM.Vision)...)
	for _, name := range c.Tools.Approval.Never {
		if name == "shell" {
			add("tools.approval.never: shell always needs approval; remove it from the list")
		}
		if slices.Contains(c.Tools.Approval.Always, name) {
			add("tools.approval: %q is in both always and never", name)
		}
	}
	seen := map[string]bool{}
	for i, srv := range c.Tools.MCP.Servers {
		key := fmt.Sprintf("tools.mcp.servers[%d]", i)
		switch {
		case !validServerName(srv.Name):
			add("%s.name: %q is not valid; want 1-32 letters, digits, _ or -", key, srv.Name)
		case seen[srv.Name]:
			add("%s.name: %q is used twice", key, srv.Name)
		}
		seen[srv.Name] = true
		switch {
		case (srv.Command == "") == (srv.URL == ""):
			add("%s: set exactly one of command (a stdio server) or url (streamable HTTP)", key)
		case srv.URL != "" && !isHTTPURL(srv.URL):
			// The URL is not echoed: some services put a key in it.
			add("%s.url: not an http(s) URL", key)
		}
	}

	for _, u := range []struct{ key, value string }{
		{"llm.openai.base_url", c.LLM.OpenAI.BaseURL},
		{"llm.anthropic.base_url", c.LLM.Anthropic.BaseURL},
		{"slack.api_url", c.Slack.APIURL},
		{"telegram.api_url", c.Telegram.APIURL},
		{"discord.api_url", c.Discord.APIURL},
	} {
		if u.value != "" && !isHTTPURL(u.value) {
			add("%s: %q is not a valid URL; want http(s)://host[:port][/path]", u.key, u.value)
		}
	}

	switch c.Slack.Mode {
	case SlackModeSocket, SlackModeHTTP:
	default:
		add("slack.mode: %q is not valid; want socket or http", c.Slack.Mode)
	}
	switch c.Telegram.Mode {
	case TelegramModePolling, TelegramModeWebhook:
	default:
		add("telegram.mode: %q is not valid; want polling or webhook", c.Telegram.Mode)
	}

	if c.Slack.Enabled {
		require(&p, "slack.bot_token", c.Slack.BotToken, "slack.enabled is true")
		switch c.Slack.Mode {
		case SlackModeSocket:
			require(&p, "slack.app_token", c.Slack.AppToken, "slack.enabled is true and slack.mode is socket")
		case SlackModeHTTP:
			require(&p, "slack.signing_secret", c.Slack.SigningSecret, "slack.enabled is true and slack.mode is http")
		}
	}
	// Swapped Slack tokens fail later with an opaque "not_allowed_token_type".
	if strings.HasPrefix(string(c.Slack.BotToken), "xapp-") {
		add("slack.bot_token: this is an app-level token (xapp-…); want the bot token (xoxb-…)")
	}
	if strings.HasPrefix(string(c.Slack.AppToken), "xoxb-") {
		add("slack.app_token: this is a bot token (xoxb-…); want the app-level token (xapp-…)")
	}
	if c.Telegram.Enabled {
		require(&p, "telegram.token", c.Telegram.Token, "telegram.enabled is true")
		if c.Telegram.Mode == TelegramModeWebhook {
			require(&p, "telegram.webhook_url", secret.Secret(c.Telegram.WebhookURL), "telegram.enabled is true and telegram.mode is webhook")
		}
	}
	if c.Telegram.WebhookURL != "" && !isHTTPURL(c.Telegram.WebhookURL) {
		add("telegram.webhook_url: %q is not a valid URL; want https://your.host/path", c.Telegram.WebhookURL)
	}
	if s := string(c.Telegram.WebhookSecret); s != "" && !validWebhookSecret(s) {
		// The value is a secret: say what is wrong, never echo it.
		add("telegram.webhook_secret: want 1 to 256 characters of A-Z, a-z, 0-9, _ and - (Telegram's rule)")
	}
	if c.Discord.Enabled {
		require(&p, "discord.token", c.Discord.Token, "discord.enabled is true")
	}

	for _, a := range c.Access.Admins {
		if isAdmin(a) {
			continue
		}
		add("access.admins: %q must be platform:id with platform slack, telegram, discord or console, e.g. telegram:42", a)
	}
	for _, a := range c.Tools.Approval.Approvers {
		if isAdmin(a) {
			continue
		}
		add("tools.approval.approvers: %q must be platform:id with platform slack, telegram, discord or console, e.g. telegram:42", a)
	}

	if c.HTTP.Listen != "" && !isHostPort(c.HTTP.Listen) {
		add("http.listen: %q is not valid; want host:port, e.g. 127.0.0.1:8080 or :8080", c.HTTP.Listen)
	}
	return p
}

// require reports key as missing when an enabled platform needs it, and
// says how to set it.
func require(p *[]string, key string, value secret.Secret, when string) {
	if value == "" {
		*p = append(*p, fmt.Sprintf("%s: required when %s; set it in the config file or %s",
			key, when, EnvVar(key)))
	}
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

// isAdmin reports whether a has the form platform:id.
func isAdmin(a string) bool {
	platform, id, _ := strings.Cut(a, ":")
	switch platform {
	case PlatformSlack, PlatformTelegram, PlatformDiscord, PlatformConsole:
		return id != ""
	}
	return false
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

func isHostPort(s string) bool {
	_, port, err := net.SplitHostPort(s)
	if err != nil {
		return false
	}
	n, err := strconv.ParseUint(port, 10, 16)
	return err == nil && n <= 65535
}

func validServerName(s string) bool {
	if len(s) == 0 || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// validate checks the kb.* keys.
func (k *KB) validate() []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, quietArgs(args)...)) }
	if m := k.EmbeddingModel; m != "" {
		provider, model, ok := strings.Cut(m, "/")
		switch {
		case !ok || model == "":
			add("kb.embedding_model: %q must be provider/model, e.g. openai/text-embedding-3-small", m)
		case provider == ProviderAnthropic:
			add("kb.embedding_model: Anthropic has no embeddings endpoint; use openai/… (OpenAI, or a compatible server such as Ollama through llm.openai.base_url)")
		case provider != ProviderOpenAI:
			add("kb.embedding_model: provider %q in %q is not supported; want openai", provider, m)
		}
	}
	p = append(p, outOfRange(
		bound[int]{"kb.chunk_lines", k.ChunkLines, 1, 1000},
		bound[int]{"kb.chunk_overlap", k.ChunkOverlap, 0, 999},
		bound[int]{"kb.chunk_chars", k.ChunkChars, 200, 100000},
		bound[int]{"kb.max_file_mb", k.MaxFileMB, 1, 1024},
		bound[int]{"kb.max_scope_mb", k.MaxScopeMB, 1, 100000},
		bound[int]{"kb.top_k", k.TopK, 1, 20},
	)...)
	if k.ChunkOverlap >= k.ChunkLines {
		add("kb.chunk_overlap: %d must be less than kb.chunk_lines (%d)", k.ChunkOverlap, k.ChunkLines)
	}
	if k.KeywordWeight < 0 || k.VectorWeight < 0 || k.KeywordWeight+k.VectorWeight == 0 {
		add("kb.keyword_weight and kb.vector_weight: want weights of 0 or more, not both 0")
	}
	if k.RRFK <= 0 {
		add("kb.rrf_k: %g must be more than 0", k.RRFK)
	}
	if k.MinScore < 0 {
		add("kb.min_score: %g must be 0 or more", k.MinScore)
	}
	return p
}

// bound is a numeric key's allowed range.
type bound[T int | float64] struct {
	key      string
	v        T
	min, max T
}

// outOfRange names each key whose value is outside its bound.
func outOfRange[T int | float64](bounds ...bound[T]) []string {
	var p []string
	for _, b := range bounds {
		if b.v < b.min || b.v > b.max {
			p = append(p, fmt.Sprintf("%s: %v is out of range; want %v to %v", b.key, b.v, b.min, b.max))
		}
	}
	return p
}
