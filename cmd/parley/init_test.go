package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestInitAsks: on a terminal, init asks for what no flag gave, takes the
// defaults offered, and writes them; bad answers are refused by name,
// and --yes without a needed secret says which flag or variable gives it.
func TestInitAsks(t *testing.T) {
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	env := map[string]string{"PARLEY_LLM_OPENAI_BASE_URL": model.OpenAIBaseURL(), "XDG_CONFIG_HOME": t.TempDir()}
	tests := []struct {
		name     string
		args     []string
		answers  string
		terminal bool
		code     int
		out      []string // in the output
		file     []string // in the file written; nil: none written
	}{
		{"asked, defaults taken", nil, "\n\nsk-typed\n\n", true, 0,
			[]string{"Chat platforms", "Model as provider/name", "OpenAI API key", "No admin yet", "Then run: parley"},
			[]string{"model: openai/gpt-4.1-mini", "api_key: sk-typed"}},
		{"a platform init does not know", []string{"--platform", "irc"}, "", true, 1, []string{`--platform "irc"`}, nil},
		{"a model without its provider", []string{"--platform", "none", "--model", "gpt-4"}, "", true, 1, []string{"want openai/<name> or anthropic/<name>"}, nil},
		{"an admin without a platform", []string{"--platform", "none", "--model", "openai/x", "--openai-api-key", "k", "--admin", "U1"}, "", true, 1,
			[]string{"want platform:id"}, nil},
		{"--yes without the key", []string{"--yes", "--platform", "telegram", "--model", "openai/x", "--openai-api-key", "k"}, "", true, 1,
			[]string{"telegram.token is needed: give --telegram-token or set PARLEY_TELEGRAM_TOKEN"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			var out bytes.Buffer
			e := &environment{stdin: strings.NewReader(tt.answers), stdout: &out, stderr: &out, terminal: tt.terminal,
				lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
			code := execute(t.Context(), e, append([]string{"--config", path, "init"}, tt.args...))
			if code != tt.code {
				t.Fatalf("exit %d, want %d; output:\n%s", code, tt.code, out.String())
			}
			for _, want := range tt.out {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
			data, err := os.ReadFile(path)
			if tt.file == nil {
				if err == nil {
					t.Fatalf("a file was written:\n%s", data)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.file {
				if !strings.Contains(string(data), want) {
					t.Errorf("the file lacks %q:\n%s", want, data)
				}
			}
		})
	}
}
