package config

import (
	"strings"
	"testing"
)

// TestSecretsNotEchoed: a key pasted into the wrong field, or used as a
// key's name, is refused without being quoted back.
func TestSecretsNotEchoed(t *testing.T) {
	const key = "sk-proj-abcdefghijklmnop1234"
	const tg = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw"
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want string // what the message still says
	}{
		{"a number field", "llm:\n  max_tokens: " + key + "\n", nil, "llm.max_tokens: (a value that looks like a secret; not shown) is not a number"},
		{"a number from the environment", "", map[string]string{"PARLEY_LLM_MAX_TOKENS": key}, "llm.max_tokens: (a value that looks like a secret; not shown) is not a number (from PARLEY_LLM_MAX_TOKENS)"},
		{"a switch", "tools:\n  shell:\n    enabled: " + key + "\n", nil, "tools.shell.enabled: (a value that looks like a secret; not shown) is not valid"},
		{"a section given a value", "kb: " + key + "\n", nil, "kb: want a mapping of keys, got (a value that looks like a secret; not shown)"},
		{"a key's name", "llm:\n  " + key + ": 3\n", nil, "llm.(a name that looks like a secret; not shown): unknown key"},
		{"a platform section's key", "telegram:\n  \"" + tg + "\": x\n", nil, "telegram.(a name that looks like a secret; not shown): unknown key"},
		{"a choice", "llm:\n  vision: " + key + "\n", nil, "llm.vision:"},
		{"a zone", "reminders:\n  default_zone: " + key + "\n", nil, "reminders.default_zone:"},
		{"an engine", "store:\n  driver: " + key + "\n", nil, "store.driver:"},
		{"a shell network", "tools:\n  shell:\n    network: " + key + "\n", nil, "tools.shell.network:"},
		{"a budget", "", map[string]string{"PARLEY_TOOLS_SHELL_WORKSPACE_MB": key}, "tools.shell.workspace_mb: (a value that looks like a secret; not shown) is not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadYAML(t, tt.yaml, tt.env)
			if err == nil {
				t.Fatal("loaded")
			}
			msg := strings.ToLower(err.Error())
			if strings.Contains(msg, strings.ToLower(key)) || strings.Contains(msg, strings.ToLower(tg)) {
				t.Errorf("the secret is echoed: %v", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to say %q", err, tt.want)
			}
		})
	}
}
