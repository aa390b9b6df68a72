// Package config loads Parley's configuration: one YAML file, overridden
// key by key by PARLEY_* environment variables.
//
// Every key has one dotted name (e.g. "llm.openai.base_url"), one
// environment variable derived from it (PARLEY_LLM_OPENAI_BASE_URL, see
// [EnvVar]) and one struct field (found through its mapstructure tag). The
// key names are a contract with operators and end-to-end tests;
// config.example.yaml at the repository root documents each of them, and
// a test keeps that file and the structs below in step.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/secret"
)

// LLM providers a model may name in llm.model ("provider/model").
const (
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
)

// Models picked when llm.model is empty, from whichever provider is configured.
const (
	DefaultOpenAIModel    = "openai/gpt-4.1-mini"
	DefaultAnthropicModel = "anthropic/claude-sonnet-4-5"
)

// PlatformConsole is the terminal's platform name, for access.admins; the
// chat platforms' names are those of the list Load was given.
const PlatformConsole = "console"

// Config is Parley's whole configuration. Obtain one from [Load]: a
// hand-built Config skips defaults, environment overrides and validation.
//
// Secret fields have type [Secret], which masks itself whenever it is
// printed, logged or marshalled, so no way of dumping a Config leaks a key.
type Config struct {
	// DataDir holds the SQLite database and any other state.
	DataDir string `mapstructure:"data_dir"`

	LLM LLM `mapstructure:"llm"`
	// Providers are the named model servers (providers.<name>); a model
	// "name/model" is called on the one named.
	Providers Providers `mapstructure:"providers"`
	// Agents are the named agents (agents.<name>, docs/agents.md); the
	// top-level settings are the agent named default.
	Agents Agents `mapstructure:"agents"`
	// Bindings choose, per place, the agent that answers there.
	Bindings []Binding `mapstructure:"bindings"`
	// Platforms are the chat platforms of the list Load was given, in its
	// order, each with its section of the configuration (keys under its
	// name: "slack.bot_token").
	Platforms []Platform `mapstructure:"-"`
	Access    Access     `mapstructure:"access"`
	Tools     Tools      `mapstructure:"tools"`
	Memory    Memory     `mapstructure:"memory"`
	Limits    Limits     `mapstructure:"limits"`
	// Budget bounds what the default agent's turns cost (docs/costs.md).
	Budget Budget `mapstructure:"budget"`
	KB     KB     `mapstructure:"kb"`
	// Attachments bounds what is read of the files people attach.
	Attachments Attachments `mapstructure:"attachments"`
	// Transcription turns voice notes and audio into text.
	Transcription Transcription `mapstructure:"transcription"`
	Evolution     Evolution     `mapstructure:"evolution"`
	Reminders     Reminders     `mapstructure:"reminders"`
	Tasks         Tasks         `mapstructure:"tasks"`
	HTTP          HTTP          `mapstructure:"http"`
	// Console is the web console.
	Console Console `mapstructure:"console"`
	// Store selects SQLite (default) or a shared PostgreSQL database.
	Store Store `mapstructure:"store"`
	// Backup schedules local backups of the SQLite file.
	Backup Backup `mapstructure:"backup"`
	// History says how long conversations are kept.
	History History `mapstructure:"history"`
	// Log is Parley's own log: its level and format.
	Log Log `mapstructure:"log"`

	// File is the configuration file that was read, or "" if none was
	// found. It is not a key: it records where the values came from.
	File string `mapstructure:"-"`
}

// LLM configures the language model.
type LLM struct {
	// Model is "provider/model", e.g. "openai/gpt-4.1-mini". Everything
	// after the first "/" is passed to the provider verbatim, so names
	// with slashes of their own (OpenRouter's "openai/meta-llama/…") work.
	// A bare name of a known family (gpt-…, o1/o3/o4…, claude-…) is
	// completed with its provider when the configuration loads.
	Model string `mapstructure:"model"`
	// Fallback are the models a turn continues on, in order, when Model
	// fails it (docs/models.md#fallback); names as for Model.
	Fallback []string `mapstructure:"fallback"`
	// Switchable are the models a conversation of the default agent may
	// switch to with /model (docs/agents.md#switching-the-model); empty,
	// none.
	Switchable []string `mapstructure:"switchable"`
	// FallbackCooldownSeconds is how long a model that failed is left
	// alone before calls try it again.
	FallbackCooldownSeconds int `mapstructure:"fallback_cooldown_seconds"`
	// ContextWindow is the context size in tokens of every model that
	// llm.models does not size; 0 takes it from the table of known models
	// (llm.DefaultContextWindow for models it does not know). Compaction
	// keeps each request below it.
	ContextWindow int `mapstructure:"context_window"`
	// MaxTokens caps the tokens of each answer, for every model llm.models
	// does not size; 0 takes it from the table of known models.
	MaxTokens int `mapstructure:"max_tokens"`
	// Models sizes models by name ("provider/model" or the provider's own
	// name), over the table of known models.
	Models map[string]ModelLimits `mapstructure:"models"`
	// Thinking asks models that can reason to think before answering:
	// "off", an effort ("low", "medium", "high") or a budget in tokens.
	Thinking string `mapstructure:"thinking"`
	// ShowThinking shows the model's reasoning on the reply's status line
	// while it thinks; off, no thinking text reaches a chat.
	ShowThinking bool `mapstructure:"show_thinking"`
	// Persona replaces the built-in persona in the system prompt; "" keeps it.
	Persona string `mapstructure:"persona"`
	// MaxConcurrent bounds the answers being written at once, across all
	// conversations; more wait their turn in arrival order.
	MaxConcurrent int `mapstructure:"max_concurrent"`
	// CompactAtPercent is how full the context window may get (in percent)
	// before older history is compacted.
	CompactAtPercent int `mapstructure:"compact_at_percent"`
	// Vision says whether the model sees images: auto (from a table of
	// known models), on or off. A blind model gets a note per picture.
	Vision string `mapstructure:"vision"`

	OpenAI    Provider `mapstructure:"openai"`
	Anthropic Provider `mapstructure:"anthropic"`
}

// ModelLimits sizes one model (llm.models); 0 keeps the table's value.
type ModelLimits struct {
	ContextWindow int `mapstructure:"context_window" json:"context_window"`
	MaxTokens     int `mapstructure:"max_tokens" json:"max_tokens"`
}

// Provider holds one LLM provider's endpoint and credentials.
type Provider struct {
	APIKey secret.Secret `mapstructure:"api_key"`
	// BaseURL overrides the SDK's endpoint; "" keeps the SDK default.
	BaseURL string `mapstructure:"base_url"`
}

// Platform is one chat platform: its description and its section of the
// configuration.
type Platform struct {
	chat.Platform
	Section chat.Settings
}

// Format writes the platform as its name and its section's values, so
// that the section's secrets mask themselves as everywhere else: fmt would
// print a pointer's fields raw, and a description is only functions.
func (p Platform) Format(f fmt.State, verb rune) {
	var section any = p.Section
	if v := reflect.ValueOf(p.Section); v.Kind() == reflect.Pointer && !v.IsNil() {
		section = v.Elem().Interface()
	}
	fmt.Fprintf(f, "{%s "+fmt.FormatString(f, verb)+"}", p.Name, section)
}

// MarshalJSON writes the platform as its name and its section (secrets
// masked): a description's functions have no JSON.
func (p Platform) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name    string        `json:"name"`
		Section chat.Settings `json:"section"`
	}{p.Name, p.Section})
}

// Access says who may talk to the bot and who administers it.
type Access struct {
	// Platforms are the allow lists of the chat platforms, by name
	// (access.<name>.allow_users …).
	Platforms map[string]*AllowList `mapstructure:"-"`
	// Admins are "platform:id" entries, e.g. "telegram:42".
	Admins []string `mapstructure:"admins"`
}

// AllowList restricts one platform to the listed user and chat ids; "*"
// allows everyone.
type AllowList struct {
	AllowUsers []string `mapstructure:"allow_users"`
	AllowChats []string `mapstructure:"allow_chats"`
	// FreeChats are chats where the bot answers every message, mentioned
	// or not.
	FreeChats []string `mapstructure:"free_chats"`
}

// Tools switches optional agent tools on and off.
type Tools struct {
	Shell    Shell    `mapstructure:"shell"`
	WebFetch WebFetch `mapstructure:"web_fetch"`
	// WebSearch is off until a backend is configured.
	WebSearch WebSearch `mapstructure:"web_search"`
	Approval  Approval  `mapstructure:"approval"`
	MCP       MCP       `mapstructure:"mcp"`
}

// WebFetch configures the web_fetch tool.
type WebFetch struct {
	Enabled bool `mapstructure:"enabled"`
	// AllowHosts are hosts it may reach although their addresses are
	// refused (an intranet wiki): names, addresses or CIDR prefixes
	// (webfetch.ParseAllowHost).
	AllowHosts []string `mapstructure:"allow_hosts"`
}

// Shell configures the shell tool.
type Shell struct {
	Enabled bool `mapstructure:"enabled"`
	// Unsandboxed lets the shell tool run commands on a host without
	// Landlock, where it otherwise refuses every command. Where Landlock
	// works it changes nothing: commands are sandboxed whenever they can
	// be.
	Unsandboxed bool `mapstructure:"unsandboxed"`
	// Network is what commands may reach: none (default; an empty
	// network namespace), public (public addresses only, through the
	// sandbox's HTTP proxy) or all (the host's network).
	Network string `mapstructure:"network"`
	// WorkspaceMB is each conversation's workspace budget in MiB,
	// enforced while a command runs.
	WorkspaceMB int `mapstructure:"workspace_mb"`
}

// Approval overrides tools' own approval policies, by tool name (MCP tools
// are named "<server>__<tool>"). The shell tool always needs approval.
type Approval struct {
	Always []string `mapstructure:"always"`
	Never  []string `mapstructure:"never"`
	// Approvers are "platform:id" entries who may decide any approval and
	// who alone may approve a mandatory one (shell, tools of untrusted MCP
	// servers); empty means access.admins.
	Approvers []string `mapstructure:"approvers"`
	// ExpireMinutes after which an undecided approval counts as denied.
	ExpireMinutes int `mapstructure:"expire_minutes"`
}

// MCP lists the Model Context Protocol servers whose tools Parley offers.
type MCP struct {
	Servers []MCPServer `mapstructure:"servers"`
}

// MCPServer is one MCP server: a command speaking stdio, or a streamable
// HTTP URL. In the environment (PARLEY_TOOLS_MCP_SERVERS) the list is JSON.
type MCPServer struct {
	Name    string                   `mapstructure:"name" json:"name"`
	Command string                   `mapstructure:"command" json:"command"`
	Args    []string                 `mapstructure:"args" json:"args"`
	Env     map[string]secret.Secret `mapstructure:"env" json:"env"`
	URL     string                   `mapstructure:"url" json:"url"`
	Headers map[string]secret.Secret `mapstructure:"headers" json:"headers"`
	// Trusted servers' tools run without asking; others need approval.
	Trusted bool `mapstructure:"trusted" json:"trusted"`
}

// Memory caps what Parley remembers per user, in characters.
type Memory struct {
	ProfileChars int `mapstructure:"profile_chars"`
	FactsChars   int `mapstructure:"facts_chars"`
	// TeamChars caps each place's team notes (docs/team-notes.md).
	TeamChars int `mapstructure:"team_chars"`
	// Team says who writes team notes.
	Team TeamMemory `mapstructure:"team"`
	// GuardModel is the provider/model that judges each memory write; ""
	// means llm.model, GuardModelOff turns the judge off.
	GuardModel string `mapstructure:"guard_model"`
}

// TeamMemory is memory.team.
type TeamMemory struct {
	// Writers write team notes without an admin's confirmation: "anyone",
	// "admins", or a list of "platform:id" (admins always may).
	Writers []string `mapstructure:"writers"`
}

// GuardModelOff turns the memory judge off: the phrase tables and the
// taint rule remain.
const GuardModelOff = "off"

// JudgeModel is the model that judges memory writes, "" when none does.
func (c *Config) JudgeModel() string {
	switch c.Memory.GuardModel {
	case GuardModelOff:
		return ""
	case "":
		return c.LLM.Model
	}
	return c.Memory.GuardModel
}

// Limits bound what one person can ask of Parley; 0 turns one off. Admins
// are exempt from the rate and the token budget.
type Limits struct {
	TurnsPerMinute int `mapstructure:"turns_per_minute"`
	DailyTokens    int `mapstructure:"daily_tokens"`
	QueueMessages  int `mapstructure:"queue_messages"`
	QueueBytes     int `mapstructure:"queue_bytes"`
	MessageChars   int `mapstructure:"message_chars"`
	// DailyCost is what a person's turns may cost per UTC day, in US
	// dollars (docs/costs.md); 0: no limit.
	DailyCost float64 `mapstructure:"daily_cost"`
}

// Budget bounds what an agent's turns may cost (budget, agents.<a>.budget).
type Budget struct {
	// Monthly is in US dollars per UTC month; 0: no bound. At 80 % the
	// admins are told; at 100 % new turns are refused until the month ends.
	Monthly float64 `mapstructure:"monthly" json:"monthly"`
}

// KB configures the knowledge base (docs/knowledge-base.md).
type KB struct {
	// Dirs are folders kept in sync while Parley runs, in the operator's
	// scope: new, changed and deleted files are picked up.
	Dirs []string `mapstructure:"dirs"`
	// EmbeddingModel turns on search by meaning: provider/model of an
	// embeddings endpoint (openai, or an OpenAI-compatible server through
	// llm.openai.base_url). Empty: keyword-only.
	EmbeddingModel string `mapstructure:"embedding_model"`
	// ChunkLines, ChunkOverlap and ChunkChars size the passages.
	ChunkLines   int `mapstructure:"chunk_lines"`
	ChunkOverlap int `mapstructure:"chunk_overlap"`
	ChunkChars   int `mapstructure:"chunk_chars"`
	// MaxFileMB caps one document; MaxScopeMB the documents of one scope
	// (the operator's, a workspace's, a person's) together.
	MaxFileMB  int `mapstructure:"max_file_mb"`
	MaxScopeMB int `mapstructure:"max_scope_mb"`
	// TopK is how many passages a search returns by default.
	TopK int `mapstructure:"top_k"`
	// KeywordWeight and VectorWeight weigh the two passes in the
	// Reciprocal Rank Fusion, RRFK is its k, MinScore its floor.
	KeywordWeight float64 `mapstructure:"keyword_weight"`
	VectorWeight  float64 `mapstructure:"vector_weight"`
	RRFK          float64 `mapstructure:"rrf_k"`
	MinScore      float64 `mapstructure:"min_score"`
}

// HTTP configures the HTTP listener (webhooks, metrics, health).
type HTTP struct {
	// Listen is host:port; an empty host listens on every interface.
	// Set, it also serves /metrics, /healthz and /readyz
	// (docs/operations.md). Empty (the default), the webhooks of Slack's
	// HTTP mode and Telegram's webhook mode listen on DefaultListen and
	// nothing else is served.
	Listen string `mapstructure:"listen"`
}

// DefaultListen is where the webhooks listen when http.listen is empty.
const DefaultListen = "127.0.0.1:8080"

// Address is where the HTTP listener listens: http.listen, or
// DefaultListen.
func (h HTTP) Address() string {
	if h.Listen == "" {
		return DefaultListen
	}
	return h.Listen
}

// Ops reports whether the operator endpoints (/metrics, /healthz,
// /readyz) are served: only when http.listen is set, so that an
// operator decides where they are reachable.
func (h HTTP) Ops() bool { return h.Listen != "" }

// Default returns the configuration used when neither the file nor the
// environment sets anything, with a section for each of platforms.
func Default(platforms ...chat.Platform) Config {
	c := Config{
		DataDir: "./data",
		LLM: LLM{
			FallbackCooldownSeconds: 60,
			Thinking:                "off",
			CompactAtPercent:        60,
			MaxConcurrent:           16, // bot.DefaultMaxConcurrent
			Vision:                  VisionAuto,
		},
		Tools:  Tools{Shell: defaultShell(), WebFetch: WebFetch{Enabled: true}, WebSearch: defaultWebSearch(), Approval: Approval{ExpireMinutes: 10}},
		Memory: Memory{ProfileChars: 1500, FactsChars: 3000, TeamChars: 2000, Team: TeamMemory{Writers: []string{"anyone"}}},
		Limits: Limits{TurnsPerMinute: 10, DailyTokens: 1_000_000, QueueMessages: 20, QueueBytes: 64 << 10, MessageChars: 16000},
		KB: KB{ChunkLines: 40, ChunkOverlap: 5, ChunkChars: 4000, MaxFileMB: 20, MaxScopeMB: 200, TopK: 5,
			KeywordWeight: 1, VectorWeight: 1.5, RRFK: 60},
		Evolution:     defaultEvolution(),
		Reminders:     defaultReminders(),
		Tasks:         defaultTasks(),
		Store:         defaultStore(),
		Backup:        defaultBackup(),
		Console:       Console{Listen: DefaultConsoleListen},
		Log:           defaultLog(),
		Attachments:   defaultAttachments(),
		Transcription: defaultTranscription(),
		Access:        Access{Platforms: map[string]*AllowList{}},
	}
	for _, p := range platforms {
		c.Platforms = append(c.Platforms, Platform{Platform: p, Section: p.Settings()})
		c.Access.Platforms[p.Name] = &AllowList{}
	}
	return c
}

// ApproversOrAdmins are the approvers in effect: tools.approval.approvers,
// else access.admins.
func (c *Config) ApproversOrAdmins() []string {
	if len(c.Tools.Approval.Approvers) > 0 {
		return c.Tools.Approval.Approvers
	}
	return c.Access.Admins
}

// RequireApprover refuses to serve chat platforms with the shell tool on
// and no one to approve its commands: every command would be refused, or,
// worse, an operator would loosen access to get them approved.
func (c *Config) RequireApprover() error {
	if c.Tools.Shell.Enabled && len(c.EnabledPlatforms()) > 0 && len(c.ApproversOrAdmins()) == 0 {
		return errors.New("tools.shell.enabled is true but nobody may approve shell commands: set tools.approval.approvers " +
			"(or access.admins) to the platform:id of the people who may, e.g. PARLEY_TOOLS_APPROVAL_APPROVERS=slack:U012ABCDEF")
	}
	return nil
}

// DBPath is the SQLite database file inside DataDir.
func (c *Config) DBPath() string {
	return filepath.Join(c.DataDir, "parley.db")
}

// EnabledPlatforms lists the names of the enabled chat platforms, in the
// order of the list.
func (c *Config) EnabledPlatforms() []string {
	var out []string
	for _, p := range c.Platforms {
		if p.Section.Enabled() {
			out = append(out, p.Name)
		}
	}
	return out
}

// Platform returns the platform named name, or nil.
func (c *Config) Platform(name string) *Platform {
	for i := range c.Platforms {
		if c.Platforms[i].Name == name {
			return &c.Platforms[i]
		}
	}
	return nil
}

// ProviderModel splits Model into the provider and the provider's own model
// name. Both are "" if Model is not of the form provider/model.
func (l *LLM) ProviderModel() (provider, model string) {
	provider, model, ok := strings.Cut(l.Model, "/")
	if !ok || provider == "" || model == "" {
		return "", ""
	}
	return provider, model
}

// Configured reports whether the named provider has enough settings to be
// called. An OpenAI base URL alone counts: local OpenAI-compatible servers
// (Ollama, vLLM) need no key.
func (l *LLM) Configured(provider string) bool {
	switch provider {
	case ProviderOpenAI:
		return l.OpenAI.APIKey != "" || l.OpenAI.BaseURL != ""
	case ProviderAnthropic:
		return l.Anthropic.APIKey != ""
	}
	return false
}

// Hints telling an operator how to configure each provider, shared by
// RequireLLM's messages so they never disagree. TestEnvVar checks the
// variable names against EnvVar.
const (
	openAIHint    = "OPENAI_API_KEY (or PARLEY_LLM_OPENAI_API_KEY / llm.openai.api_key)"
	anthropicHint = "ANTHROPIC_API_KEY (or PARLEY_LLM_ANTHROPIC_API_KEY / llm.anthropic.api_key)"
	localHint     = "llm.openai.base_url (PARLEY_LLM_OPENAI_BASE_URL) for a local OpenAI-compatible server such as Ollama"
)

// RequireLLM reports whether the provider named by llm.model is configured,
// and if not, what would fix it. It is separate from [Load] because
// commands such as "parley version" must work without any LLM.
func (c *Config) RequireLLM() error {
	if c.LLM.Model == "" && len(c.Providers) > 0 {
		names := c.ProviderNames()
		return fmt.Errorf("llm.model is not set: name a model of the provider %s, e.g. %s/<model> (PARLEY_LLM_MODEL)", orList(names, "or"), names[0])
	}
	if c.LLM.Model == "" {
		return fmt.Errorf("no LLM configured: set %s, %s, or %s", openAIHint, anthropicHint, localHint)
	}
	if err := c.requireProvider("llm.model", c.LLM.Model); err != nil {
		return err
	}
	for i, m := range c.LLM.Fallback {
		if err := c.requireProvider(fmt.Sprintf("llm.fallback[%d]", i), m); err != nil {
			return err
		}
	}
	if m := c.Transcription.Model; m != "" {
		if err := c.requireProvider("transcription.model", m); err != nil {
			return err
		}
	}
	return c.requireAgents()
}

// EnvVar returns the environment variable that overrides a dotted key:
// "llm.openai.base_url" → "PARLEY_LLM_OPENAI_BASE_URL".
func EnvVar(key string) string {
	return "PARLEY_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}
