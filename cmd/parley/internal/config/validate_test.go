package config

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want []string // the exact problems, in order
	}{
		{
			name: "slack mode",
			yaml: "slack:\n  mode: sockets\n",
			want: []string{`slack.mode: "sockets" is not valid; want socket or http`},
		},
		{
			name: "telegram mode",
			env:  map[string]string{"PARLEY_TELEGRAM_MODE": "push"},
			want: []string{`telegram.mode: "push" is not valid; want polling or webhook`},
		},
		{
			name: "kb embedding model from anthropic",
			yaml: "kb:\n  embedding_model: anthropic/claude\n",
			want: []string{`kb.embedding_model: Anthropic has no embeddings endpoint; use openai/… (OpenAI, or a compatible server such as Ollama through llm.openai.base_url)`},
		},
		{
			name: "kb embedding model without provider",
			env:  map[string]string{"PARLEY_KB_EMBEDDING_MODEL": "text-embedding-3-small"},
			want: []string{`kb.embedding_model: "text-embedding-3-small" must be provider/model, e.g. openai/text-embedding-3-small`},
		},
		{
			name: "kb sizes",
			yaml: "kb:\n  chunk_lines: 4\n  chunk_overlap: 4\n  top_k: 50\n  vector_weight: -1\n  rrf_k: 0\n",
			want: []string{
				"kb.top_k: 50 is out of range; want 1 to 20",
				"kb.chunk_overlap: 4 must be less than kb.chunk_lines (4)",
				"kb.keyword_weight and kb.vector_weight: want weights of 0 or more, not both 0",
				"kb.rrf_k: 0 must be more than 0",
			},
		},
		{
			name: "evolution out of range",
			yaml: "evolution:\n  cycle_hours: 0\n  max_skills: 0\n  threshold: 1.5\n  weights:\n    weakness: -0.1\n",
			env:  map[string]string{"PARLEY_EVOLUTION_INDEX_TOKENS": "10"},
			want: []string{
				"evolution.cycle_hours: 0 is out of range; want 1 to 720",
				"evolution.max_skills: 0 is out of range; want 1 to 10000",
				"evolution.index_tokens: 10 is out of range; want 100 to 100000",
				"evolution.threshold: 1.5 is out of range; want 0 to 1",
				"evolution.weights.weakness: -0.1 is out of range; want 0 to 1",
			},
		},
		{
			name: "tasks out of range",
			yaml: "tasks:\n  max_steps: 0\n",
			env:  map[string]string{"PARLEY_TASKS_MAX_CHECKS": "11"},
			want: []string{
				"tasks.max_steps: 0 is out of range; want 1 to 1000",
				"tasks.max_checks: 11 is out of range; want 0 to 10",
			},
		},
		{
			name: "store driver",
			yaml: "store:\n  driver: mysql\n",
			want: []string{`store.driver: "mysql" is not a storage engine; want sqlite or postgres`},
		},
		{
			name: "postgres without url",
			env:  map[string]string{"PARLEY_STORE_DRIVER": "postgres"},
			want: []string{"store.postgres_url: required when store.driver is postgres (postgres://user:password@host:5432/db)"},
		},
		{
			name: "postgres url of another scheme, password not echoed",
			env:  map[string]string{"PARLEY_STORE_DRIVER": "postgres", "PARLEY_STORE_POSTGRES_URL": "mysql://u:HUNTER2@db/x"},
			want: []string{"store.postgres_url: not a postgres:// or postgresql:// URL"},
		},
		{
			name: "kb weight from the environment",
			env:  map[string]string{"PARLEY_KB_VECTOR_WEIGHT": "many"},
			want: []string{`kb.vector_weight: "many" is not a number (from PARLEY_KB_VECTOR_WEIGHT)`},
		},
		{
			name: "model without provider",
			yaml: "llm:\n  model: llama3.2\n",
			want: []string{`llm.model: "llama3.2" must be provider/model (e.g. openai/gpt-4o-mini), or a bare name starting with gpt-, o1, o3, o4 or claude-`},
		},
		{
			name: "model with empty name",
			yaml: "llm:\n  model: openai/\n",
			want: []string{`llm.model: "openai/" must be provider/model (e.g. openai/gpt-4o-mini), or a bare name starting with gpt-, o1, o3, o4 or claude-`},
		},
		{
			name: "model with unknown provider",
			yaml: "llm:\n  model: google/gemini-2.5-pro\n",
			want: []string{`llm.model: provider "google" in "google/gemini-2.5-pro" is not configured; the providers are anthropic and openai (providers.<name> defines one)`},
		},
		{
			name: "context window too small",
			yaml: "llm:\n  context_window: 512\n  max_tokens: 100\n",
			want: []string{`llm.context_window: 512 is too small; want at least 1024 tokens, or 0 for the table of known models`},
		},
		{
			name: "max tokens too small",
			env:  map[string]string{"PARLEY_LLM_MAX_TOKENS": "-1"},
			want: []string{`llm.max_tokens: -1 is too small; want at least 1, or 0 for the table of known models`},
		},
		{
			name: "max tokens fills the window",
			yaml: "llm:\n  context_window: 4096\n  max_tokens: 4096\n",
			want: []string{`llm.max_tokens: 4096 must be less than llm.context_window (4096)`},
		},
		{
			name: "fallback chain",
			yaml: "llm:\n  model: claude-sonnet-4-5\n  fallback: [anthropic/claude-sonnet-4-5, gpt-4.1-mini, mistral-large, google/gemini-2.5-pro, openai/gpt-4.1-mini]\n",
			want: []string{
				`llm.fallback[0]: the same model as llm.model`,
				`llm.fallback[2]: "mistral-large" must be provider/model (e.g. openai/gpt-4o-mini), or a bare name starting with gpt-, o1, o3, o4 or claude-`,
				`llm.fallback[3]: provider "google" in "google/gemini-2.5-pro" is not configured; the providers are anthropic and openai (providers.<name> defines one)`,
				`llm.fallback[4]: the same model as llm.fallback[1]`,
			},
		},
		{
			name: "thinking and the cool-down",
			env:  map[string]string{"PARLEY_LLM_THINKING": "500", "PARLEY_LLM_FALLBACK_COOLDOWN_SECONDS": "0"},
			want: []string{
				`llm.thinking: a budget of 500 tokens is too small; want at least 1024`,
				`llm.fallback_cooldown_seconds: 0 is out of range; want 1 to 86400`,
			},
		},
		{
			name: "models table",
			yaml: "llm:\n  models:\n    gpt-4.1-mini: {context_window: 100}\n    Qwen/Qwen2.5-7B: {context_window: 8192, max_tokens: 8192}\n",
			want: []string{
				`llm.models.Qwen/Qwen2.5-7B.max_tokens: 8192 must be less than llm.models.Qwen/Qwen2.5-7B.context_window (8192)`,
				`llm.models.gpt-4.1-mini.context_window: 100 is too small; want at least 1024 tokens, or 0 for the table of known models`,
			},
		},
		{
			name: "models table of the wrong shape",
			env:  map[string]string{"PARLEY_LLM_MODELS": `{"gpt-4o": {"window": 1}}`},
			want: []string{`llm.models: want a mapping of names to mappings (JSON in the environment): json: unknown field "window" (from PARLEY_LLM_MODELS)`},
		},
		{
			name: "URL without scheme",
			env:  map[string]string{"PARLEY_LLM_OPENAI_BASE_URL": "localhost:11434/v1"},
			want: []string{`llm.openai.base_url: "localhost:11434/v1" is not a valid URL; want http(s)://host[:port][/path]`},
		},
		{
			name: "every URL key is checked",
			yaml: "llm:\n  anthropic:\n    base_url: ftp://x\n" +
				"slack:\n  api_url: slack.com/api\n" +
				"telegram:\n  api_url: https://\n" +
				"discord:\n  api_url: \"http://[::1\"\n",
			want: []string{
				`llm.anthropic.base_url: "ftp://x" is not a valid URL; want http(s)://host[:port][/path]`,
				`slack.api_url: "slack.com/api/" is not a valid URL; want http(s)://host[:port][/path]`,
				`telegram.api_url: "https://" is not a valid URL; want http(s)://host[:port][/path]`,
				`discord.api_url: "http://[::1" is not a valid URL; want http(s)://host[:port][/path]`,
			},
		},
		{
			name: "discord shards below one",
			yaml: "discord:\n  shards: 0\n",
			want: []string{`discord.shards: 0 is out of range; want 1 to 1024`},
		},
		{
			name: "discord shards past the limit",
			env:  map[string]string{"PARLEY_DISCORD_SHARDS": "1025"},
			want: []string{`discord.shards: 1025 is out of range; want 1 to 1024`},
		},
		{
			name: "listen without port",
			yaml: "http:\n  listen: \"8080\"\n",
			want: []string{`http.listen: "8080" is not valid; want host:port, e.g. 127.0.0.1:8080 or :8080`},
		},
		{
			name: "listen with bad port",
			env:  map[string]string{"PARLEY_HTTP_LISTEN": "localhost:http"},
			want: []string{`http.listen: "localhost:http" is not valid; want host:port, e.g. 127.0.0.1:8080 or :8080`},
		},
		{
			name: "admins",
			yaml: "access:\n  admins: [telegram:42, \"42\", \"irc:42\", \"telegram:\", \":42\", console:local]\n",
			want: []string{
				`access.admins: "42" must be platform:id with platform slack, telegram, discord or console, e.g. telegram:42`,
				`access.admins: "irc:42" must be platform:id with platform slack, telegram, discord or console, e.g. telegram:42`,
				`access.admins: "telegram:" must be platform:id with platform slack, telegram, discord or console, e.g. telegram:42`,
				`access.admins: ":42" must be platform:id with platform slack, telegram, discord or console, e.g. telegram:42`,
			},
		},
		{
			name: "swapped slack tokens",
			env: map[string]string{
				"PARLEY_SLACK_BOT_TOKEN": "xapp-1-A0-123-abc",
				"PARLEY_SLACK_APP_TOKEN": "xoxb-123-456-abc",
			},
			want: []string{
				`slack.bot_token: this is an app-level token (xapp-…); want the bot token (xoxb-…)`,
				`slack.app_token: this is a bot token (xoxb-…); want the app-level token (xapp-…)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadYAML(t, tt.yaml, tt.env)
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Load error = %v; want a *ValidationError", err)
			}
			if diff := cmp.Diff(tt.want, verr.Problems); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
			for _, p := range tt.want {
				if !strings.Contains(err.Error(), p) {
					t.Errorf("Error() = %q; does not contain %q", err, p)
				}
			}
		})
	}
}

func TestEnabledPlatformTokens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		env           map[string]string
		wantProblems  []string
		wantPlatforms []string
	}{
		{
			name: "slack socket mode without tokens",
			env:  map[string]string{"PARLEY_SLACK_ENABLED": "true"},
			wantProblems: []string{
				"slack.bot_token: required when slack.enabled is true; set it in the config file or PARLEY_SLACK_BOT_TOKEN",
				"slack.app_token: required when slack.enabled is true and slack.mode is socket; set it in the config file or PARLEY_SLACK_APP_TOKEN",
			},
		},
		{
			name: "slack http mode needs the signing secret, not the app token",
			env: map[string]string{
				"PARLEY_SLACK_ENABLED": "true", "PARLEY_SLACK_MODE": "http",
				"PARLEY_SLACK_BOT_TOKEN": "xoxb-1",
			},
			wantProblems: []string{
				"slack.signing_secret: required when slack.enabled is true and slack.mode is http; set it in the config file or PARLEY_SLACK_SIGNING_SECRET",
			},
		},
		{
			name: "telegram without token",
			env:  map[string]string{"PARLEY_TELEGRAM_ENABLED": "true"},
			wantProblems: []string{
				"telegram.token: required when telegram.enabled is true; set it in the config file or PARLEY_TELEGRAM_TOKEN",
			},
		},
		{
			name: "discord without token",
			env:  map[string]string{"PARLEY_DISCORD_ENABLED": "true"},
			wantProblems: []string{
				"discord.token: required when discord.enabled is true; set it in the config file or PARLEY_DISCORD_TOKEN",
			},
		},
		{
			name: "disabled platforms need nothing",
			env:  map[string]string{"PARLEY_SLACK_MODE": "http"},
		},
		{
			name: "all enabled with tokens",
			env: map[string]string{
				"PARLEY_SLACK_ENABLED": "true", "PARLEY_SLACK_BOT_TOKEN": "xoxb-1", "PARLEY_SLACK_APP_TOKEN": "xapp-1",
				"PARLEY_TELEGRAM_ENABLED": "true", "PARLEY_TELEGRAM_TOKEN": "1:a",
				"PARLEY_DISCORD_ENABLED": "true", "PARLEY_DISCORD_TOKEN": "d",
			},
			wantPlatforms: []string{"slack", "telegram", "discord"},
		},
		{
			name: "slack http mode with its tokens",
			env: map[string]string{
				"PARLEY_SLACK_ENABLED": "true", "PARLEY_SLACK_MODE": "http",
				"PARLEY_SLACK_BOT_TOKEN": "xoxb-1", "PARLEY_SLACK_SIGNING_SECRET": "s",
			},
			wantPlatforms: []string{"slack"},
		},
		{
			name:          "telegram alone",
			env:           map[string]string{"PARLEY_TELEGRAM_ENABLED": "true", "PARLEY_TELEGRAM_TOKEN": "1:a"},
			wantPlatforms: []string{"telegram"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := Load(hermetic(t, tt.env))
			if tt.wantProblems != nil {
				var verr *ValidationError
				if !errors.As(err, &verr) {
					t.Fatalf("Load error = %v; want a *ValidationError", err)
				}
				if diff := cmp.Diff(tt.wantProblems, verr.Problems); diff != "" {
					t.Errorf("problems (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := cfg.EnabledPlatforms(); !slices.Equal(got, tt.wantPlatforms) {
				t.Errorf("EnabledPlatforms() = %q, want %q", got, tt.wantPlatforms)
			}
		})
	}
}

func TestValidationErrorFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  ValidationError
		want string
	}{
		{ValidationError{Problems: []string{"a: x"}}, "invalid configuration: a: x"},
		{ValidationError{File: "/c.yaml", Problems: []string{"a: x"}}, "invalid configuration (file /c.yaml): a: x"},
		{ValidationError{Problems: []string{"a: x", "b: y"}}, "invalid configuration:\n  - a: x\n  - b: y"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestTelegramWebhookSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		vars map[string]string
		want string // "" means valid
	}{
		{"polling needs no URL", map[string]string{"PARLEY_TELEGRAM_MODE": "polling"}, ""},
		{"webhook needs its URL", map[string]string{"PARLEY_TELEGRAM_MODE": "webhook"}, "telegram.webhook_url: required when telegram.enabled is true and telegram.mode is webhook; set it in the config file or PARLEY_TELEGRAM_WEBHOOK_URL"},
		{"webhook with URL", map[string]string{"PARLEY_TELEGRAM_MODE": "webhook", "PARLEY_TELEGRAM_WEBHOOK_URL": "https://bot.example.com/telegram"}, ""},
		{"bad URL", map[string]string{"PARLEY_TELEGRAM_WEBHOOK_URL": "bot.example.com"}, `telegram.webhook_url: "bot.example.com" is not a valid URL`},
		{"bad secret is not echoed", map[string]string{"PARLEY_TELEGRAM_WEBHOOK_SECRET": "has spaces and ünïcode"}, "telegram.webhook_secret: want 1 to 256 characters"},
		{"good secret", map[string]string{"PARLEY_TELEGRAM_WEBHOOK_SECRET": "Abc_123-xyz"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vars := map[string]string{"PARLEY_TELEGRAM_ENABLED": "true", "PARLEY_TELEGRAM_TOKEN": "123:abc"}
			for k, v := range tt.vars {
				vars[k] = v
			}
			_, err := Load(hermetic(t, vars))
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Load: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Load error %v, want it to contain %q", err, tt.want)
			case err != nil && strings.Contains(err.Error(), "ünïcode"):
				t.Fatalf("the secret is echoed: %v", err)
			}
		})
	}
}
