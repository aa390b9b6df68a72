package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestRequireLLM(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		yaml      string
		env       map[string]string
		wantModel string
		wantErr   []string // substrings; nil means no error
	}{
		{
			name: "nothing configured",
			wantErr: []string{
				"no LLM configured: set ",
				"OPENAI_API_KEY (or PARLEY_LLM_OPENAI_API_KEY / llm.openai.api_key)",
				"ANTHROPIC_API_KEY (or PARLEY_LLM_ANTHROPIC_API_KEY / llm.anthropic.api_key)",
				"llm.openai.base_url (PARLEY_LLM_OPENAI_BASE_URL) for a local OpenAI-compatible server such as Ollama",
			},
		},
		{
			name:      "OpenAI key picks the OpenAI default",
			env:       map[string]string{"OPENAI_API_KEY": "sk-x"},
			wantModel: DefaultOpenAIModel,
		},
		{
			name:      "Anthropic key picks the Anthropic default",
			env:       map[string]string{"ANTHROPIC_API_KEY": "sk-ant-x"},
			wantModel: DefaultAnthropicModel,
		},
		{
			name:      "both keys prefer OpenAI",
			env:       map[string]string{"OPENAI_API_KEY": "sk-x", "ANTHROPIC_API_KEY": "sk-ant-x"},
			wantModel: DefaultOpenAIModel,
		},
		{
			name:      "base URL alone configures OpenAI (Ollama)",
			yaml:      "llm:\n  model: openai/llama3.2\n  openai:\n    base_url: http://localhost:11434/v1\n",
			wantModel: "openai/llama3.2",
		},
		{
			name:      "model names an unconfigured OpenAI",
			yaml:      "llm:\n  model: openai/gpt-4o\n",
			env:       map[string]string{"ANTHROPIC_API_KEY": "sk-ant-x"},
			wantModel: "openai/gpt-4o",
			wantErr: []string{
				`llm.model is "openai/gpt-4o" but OpenAI is not configured: set `,
				"OPENAI_API_KEY (or PARLEY_LLM_OPENAI_API_KEY / llm.openai.api_key)",
				"llm.openai.base_url",
			},
		},
		{
			name:      "model names an unconfigured Anthropic",
			env:       map[string]string{"PARLEY_LLM_MODEL": "anthropic/claude-opus-4-1", "OPENAI_API_KEY": "sk-x"},
			wantModel: "anthropic/claude-opus-4-1",
			wantErr: []string{
				`llm.model is "anthropic/claude-opus-4-1" but Anthropic is not configured: set `,
				"ANTHROPIC_API_KEY (or PARLEY_LLM_ANTHROPIC_API_KEY / llm.anthropic.api_key)",
			},
		},
		{
			name:      "Anthropic base URL alone is not enough",
			env:       map[string]string{"PARLEY_LLM_MODEL": "anthropic/claude-sonnet-4-5", "PARLEY_LLM_ANTHROPIC_BASE_URL": "http://proxy:1"},
			wantModel: "anthropic/claude-sonnet-4-5",
			wantErr:   []string{"Anthropic is not configured"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustLoadYAML(t, tt.yaml, tt.env)
			if cfg.LLM.Model != tt.wantModel {
				t.Errorf("llm.model = %q, want %q", cfg.LLM.Model, tt.wantModel)
			}
			err := cfg.RequireLLM()
			if tt.wantErr == nil {
				if err != nil {
					t.Errorf("RequireLLM() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("RequireLLM() = nil, want an error")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("RequireLLM() = %q; want a single line", err)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("RequireLLM() = %q; want it to contain %q", err, want)
				}
			}
		})
	}

	t.Run("hand-built config with a bad model", func(t *testing.T) {
		t.Parallel()
		cfg := defaults()
		cfg.LLM.Model = "gpt-4o"
		if err := cfg.RequireLLM(); err == nil || !strings.HasPrefix(err.Error(), `llm.model: "gpt-4o" must be provider/model`) {
			t.Errorf("RequireLLM() = %v; want a provider/model error", err)
		}
	})
}

func TestProviderModel(t *testing.T) {
	t.Parallel()
	tests := []struct{ model, provider, name string }{
		{"openai/gpt-4.1-mini", "openai", "gpt-4.1-mini"},
		{"openai/meta-llama/llama-3.1-8b-instruct", "openai", "meta-llama/llama-3.1-8b-instruct"},
		{"anthropic/claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"},
		{"gpt-4o", "", ""},
		{"/gpt-4o", "", ""},
		{"openai/", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		l := LLM{Model: tt.model}
		if p, n := l.ProviderModel(); p != tt.provider || n != tt.name {
			t.Errorf("ProviderModel(%q) = %q, %q; want %q, %q", tt.model, p, n, tt.provider, tt.name)
		}
	}
}

func TestDBPath(t *testing.T) {
	t.Parallel()
	cfg := mustLoadYAML(t, "", map[string]string{"PARLEY_DATA_DIR": "/var/lib/parley"})
	if got, want := cfg.DBPath(), filepath.Join("/var/lib/parley", "parley.db"); got != want {
		t.Errorf("DBPath() = %q, want %q", got, want)
	}
}

func TestEnvVar(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"data_dir":                    "PARLEY_DATA_DIR",
		"llm.openai.base_url":         "PARLEY_LLM_OPENAI_BASE_URL",
		"llm.openai.api_key":          "PARLEY_LLM_OPENAI_API_KEY",
		"llm.anthropic.api_key":       "PARLEY_LLM_ANTHROPIC_API_KEY",
		"telegram.token":              "PARLEY_TELEGRAM_TOKEN",
		"access.telegram.allow_users": "PARLEY_ACCESS_TELEGRAM_ALLOW_USERS",
	}
	for key, want := range tests {
		if got := EnvVar(key); got != want {
			t.Errorf("EnvVar(%q) = %q, want %q", key, got, want)
		}
	}

	// Two keys mapping to one variable would make one of them unsettable.
	seen := map[string]string{}
	for _, l := range leavesOf() {
		name := EnvVar(l.key)
		if other, dup := seen[name]; dup {
			t.Errorf("keys %q and %q share the variable %s", other, l.key, name)
		}
		seen[name] = l.key
	}
}
