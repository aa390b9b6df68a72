package config

import (
	"slices"
	"strings"
	"testing"
)

func TestApprovers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		env     map[string]string
		want    []string // the approvers in effect
		refused string   // RequireApprover's error, "" for none
	}{
		{"shell off, nobody", nil, nil, ""},
		{"shell on, terminal only", map[string]string{"PARLEY_TOOLS_SHELL_ENABLED": "true"}, nil, ""},
		{"shell on, Telegram, nobody", map[string]string{
			"PARLEY_TOOLS_SHELL_ENABLED": "true", "PARLEY_TELEGRAM_ENABLED": "true", "PARLEY_TELEGRAM_TOKEN": "1:x",
		}, nil, "tools.approval.approvers"},
		{"shell on, Telegram, admins approve by default", map[string]string{
			"PARLEY_TOOLS_SHELL_ENABLED": "true", "PARLEY_TELEGRAM_ENABLED": "true", "PARLEY_TELEGRAM_TOKEN": "1:x",
			"PARLEY_ACCESS_ADMINS": "telegram:7",
		}, []string{"telegram:7"}, ""},
		{"approvers win over admins", map[string]string{
			"PARLEY_TOOLS_SHELL_ENABLED": "true", "PARLEY_TELEGRAM_ENABLED": "true", "PARLEY_TELEGRAM_TOKEN": "1:x",
			"PARLEY_ACCESS_ADMINS": "telegram:7", "PARLEY_TOOLS_APPROVAL_APPROVERS": "telegram:8, slack:U9",
		}, []string{"telegram:8", "slack:U9"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustLoadYAML(t, "", tt.env)
			if got := cfg.ApproversOrAdmins(); !slices.Equal(got, tt.want) {
				t.Errorf("approvers = %q, want %q", got, tt.want)
			}
			err := cfg.RequireApprover()
			switch {
			case tt.refused == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused)):
				t.Errorf("RequireApprover = %v, want an error naming %s", err, tt.refused)
			}
		})
	}
}

func TestApproversValidated(t *testing.T) {
	t.Parallel()
	_, err := loadYAML(t, "tools:\n  approval:\n    approvers: [\"42\", \"irc:1\"]\n", nil)
	if err == nil {
		t.Fatal("bad approvers accepted")
	}
	for _, want := range []string{`tools.approval.approvers: "42" must be platform:id`, `tools.approval.approvers: "irc:1" must be platform:id`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestJudgeModel(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		set, want string
	}{
		{"", "openai/gpt-4.1-mini"},
		{"off", ""},
		{"anthropic/claude-haiku-4-5", "anthropic/claude-haiku-4-5"},
	} {
		cfg := mustLoadYAML(t, "", map[string]string{"PARLEY_LLM_OPENAI_API_KEY": "sk-x", "PARLEY_MEMORY_GUARD_MODEL": tt.set})
		if got := cfg.JudgeModel(); got != tt.want {
			t.Errorf("guard_model %q: judge %q, want %q", tt.set, got, tt.want)
		}
	}
	if _, err := loadYAML(t, "memory:\n  guard_model: llama3\n", nil); err == nil || !strings.Contains(err.Error(), "memory.guard_model") {
		t.Errorf("a model without provider was accepted: %v", err)
	}
}
