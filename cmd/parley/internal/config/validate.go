package config

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/parleybot/parley/agent/tools/webfetch"

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
		case c.configured(ProviderOpenAI):
			c.LLM.Model = DefaultOpenAIModel
		case c.configured(ProviderAnthropic):
			c.LLM.Model = DefaultAnthropicModel
		}
	}
	c.LLM.normalize()
	c.Tools.WebSearch.Backend = strings.ToLower(strings.TrimSpace(c.Tools.WebSearch.Backend))
	c.normalizeAgents()
	if m := c.Memory.GuardModel; m != "" && m != GuardModelOff {
		if canonical, err := llm.Canonical(m); err == nil {
			c.Memory.GuardModel = canonical
		}
	}
	if m := c.Evolution.Model; m != "" {
		if canonical, err := llm.Canonical(m); err == nil {
			c.Evolution.Model = canonical
		}
	}
}

// validate returns one message per problem, each starting with the key.
func (c *Config) validate() []string {
	var p []string
	// A value pasted into the wrong field may be a key: problems never
	// quote one (redact.go).
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, quietArgs(args)...)) }

	if m := c.Memory.GuardModel; m != "" && m != GuardModelOff {
		if provider, _, ok := strings.Cut(m, "/"); !ok {
			add("memory.guard_model: %q must be provider/model, e.g. openai/gpt-4.1-mini, or off", m)
		} else if problem := c.providerProblem(provider, m); problem != "" {
			p = append(p, "memory.guard_model: "+problem)
		}
	}
	if m := c.Evolution.Model; m != "" {
		if problem := modelProblem(m, c.providerProblem); problem != "" {
			p = append(p, "evolution.model: "+problem)
		}
	}
	p = append(p, c.LLM.validate(c.providerProblem)...)
	p = append(p, c.validateAgents()...)

	if n := c.LLM.MaxConcurrent; n < 1 || n > 1000 {
		add("llm.max_concurrent: %d is out of range; want 1 to 1000", n)
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
		{"limits.turns_per_minute", c.Limits.TurnsPerMinute, maxTurnsPerMinute},
		{"limits.daily_tokens", c.Limits.DailyTokens, maxDailyTokens},
		{"limits.queue_messages", c.Limits.QueueMessages, 10000},
		{"limits.queue_bytes", c.Limits.QueueBytes, 100 << 20},
		{"limits.message_chars", c.Limits.MessageChars, 1_000_000},
	} {
		p = append(p, countProblem(l.key, l.n, l.max)...)
	}
	p = append(p, moneyProblem("limits.daily_cost", c.Limits.DailyCost)...)
	p = append(p, moneyProblem("budget.monthly", c.Budget.Monthly)...)
	for _, m := range []struct {
		key string
		n   int
	}{{"memory.profile_chars", c.Memory.ProfileChars}, {"memory.facts_chars", c.Memory.FactsChars}, {"memory.team_chars", c.Memory.TeamChars}} {
		if m.n < 100 || m.n > 100000 {
			add("%s: %d is out of range; want 100 to 100000 characters", m.key, m.n)
		}
	}
	p = append(p, teamWritersProblems(c.Memory.Team.Writers)...)
	p = append(p, c.KB.validate(c.providerKind, c.providerProblem)...)
	p = append(p, c.Evolution.validate()...)
	p = append(p, c.Reminders.validate()...)
	p = append(p, c.Store.validate()...)
	p = append(p, c.Backup.validate(c.Store.Driver)...)
	p = append(p, c.History.validate()...)
	p = append(p, c.Log.validate()...)
	p = append(p, c.Tools.Shell.validate()...)
	p = append(p, c.Tools.WebSearch.validate()...)
	p = append(p, c.Tasks.validate()...)
	p = append(p, c.Attachments.validate(c.LLM.Vision)...)
	p = append(p, c.Transcription.validate(c.providerKind, c.providerProblem)...)
	for _, name := range c.Tools.Approval.Never {
		if name == "shell" {
			add("tools.approval.never: shell always needs approval; remove it from the list")
		}
		if slices.Contains(c.Tools.Approval.Always, name) {
			add("tools.approval: %q is in both always and never", name)
		}
	}
	for _, h := range c.Tools.WebFetch.AllowHosts {
		if _, _, err := webfetch.ParseAllowHost(h); err != nil {
			add("tools.web_fetch.allow_hosts: %s", strings.TrimPrefix(err.Error(), "web_fetch: "))
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
	} {
		if u.value != "" && !isHTTPURL(u.value) {
			add("%s: %q is not a valid URL; want http(s)://host[:port][/path]", u.key, u.value)
		}
	}

	for _, pl := range c.Platforms {
		pl.Section.Validate(&problems{list: &p})
	}

	for _, a := range c.Access.Admins {
		if c.isAdmin(a) {
			continue
		}
		add("access.admins: %q must be platform:id with platform %s, e.g. telegram:42", a, c.platformNames())
	}
	for _, a := range c.Tools.Approval.Approvers {
		if c.isAdmin(a) {
			continue
		}
		add("tools.approval.approvers: %q must be platform:id with platform %s, e.g. telegram:42", a, c.platformNames())
	}

	p = append(p, c.Console.problems()...)
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

// isAdmin reports whether a has the form platform:id, of a platform this
// configuration knows.
func (c *Config) isAdmin(a string) bool {
	platform, id, _ := strings.Cut(a, ":")
	return id != "" && (platform == PlatformConsole || c.Platform(platform) != nil)
}

// platformNames are the names a platform:id may start with, for messages:
// "slack, telegram, discord or console".
func (c *Config) platformNames() string {
	return orList(append(c.names(), PlatformConsole), "or")
}

// PlatformNames lists the chat platforms for a message, the last after
// word: "slack, telegram or discord".
func (c *Config) PlatformNames(word string) string { return orList(c.names(), word) }

func (c *Config) names() []string {
	var names []string
	for _, p := range c.Platforms {
		names = append(names, p.Name)
	}
	return names
}

// orList is "a, b or c".
func orList(items []string, word string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + word + " " + items[len(items)-1]
}

// problems is how a platform's section reports to validate (chat.Problems).
type problems struct{ list *[]string }

func (p *problems) Add(format string, args ...any) {
	*p.list = append(*p.list, fmt.Sprintf(format, quietArgs(args)...))
}

func (p *problems) Require(key, value, when string) { require(p.list, key, secret.Secret(value), when) }

func (p *problems) URL(key, value, want string) {
	if value != "" && !isHTTPURL(value) {
		p.Add("%s: %q is not a valid URL; want %s", key, value, want)
	}
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
// kind is the kind of a provider (providerKind), problem what is wrong
// with naming it (providerProblem).
func (k *KB) validate(kind func(provider string) string, problem func(provider, name string) string) []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, quietArgs(args)...)) }
	if m := k.EmbeddingModel; m != "" {
		provider, model, ok := strings.Cut(m, "/")
		switch {
		case !ok || model == "":
			add("kb.embedding_model: %q must be provider/model, e.g. openai/text-embedding-3-small", m)
		case provider == ProviderAnthropic && kind(provider) == KindAnthropic:
			add("kb.embedding_model: Anthropic has no embeddings endpoint; use openai/… (OpenAI, or a compatible server such as Ollama through llm.openai.base_url)")
		case kind(provider) == KindAnthropic:
			add("kb.embedding_model: the provider %s is of kind anthropic, which has no embeddings endpoint; use a provider of kind openai (OpenAI, or a compatible server such as Ollama)", provider)
		case kind(provider) == "":
			p = append(p, "kb.embedding_model: "+problem(provider, m))
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

// The highest limits.turns_per_minute and limits.daily_tokens (the
// top-level ones and an agent's): higher is no limit an operator means.
const (
	maxTurnsPerMinute = 10000
	maxDailyTokens    = 1_000_000_000
)

// countProblem says what is wrong with a limit at key that is a count, 0
// for no limit.
func countProblem(key string, n, max int) []string {
	if n < 0 || n > max {
		return []string{fmt.Sprintf("%s: %d is out of range; want 0 (no limit) to %d", key, n, max)}
	}
	return nil
}

// teamWritersProblems checks memory.team.writers: "anyone" or "admins"
// alone, or a list of platform:id.
func teamWritersProblems(writers []string) []string {
	if len(writers) == 1 && (writers[0] == "anyone" || writers[0] == "admins") {
		return nil
	}
	if len(writers) == 0 {
		return []string{"memory.team.writers: empty; want anyone, admins or a list of platform:id"}
	}
	var p []string
	for _, w := range writers {
		if platform, id, ok := strings.Cut(w, ":"); !ok || platform == "" || id == "" {
			p = append(p, fmt.Sprintf("memory.team.writers: %q is not platform:id; want anyone, admins or a list of platform:id", w))
		}
	}
	return p
}
