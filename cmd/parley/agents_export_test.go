package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.yaml.in/yaml/v3"

	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/cmd/parley/internal/platforms"
)

// exportBase is a configuration with agents for bindings to name.
const exportBase = `llm:
  model: openai/gpt-4.1-mini
agents:
  support: {tools: [memory, kb_search]}
  eng: {}
`

// loadFile loads the configuration file text, as parley --config does.
func loadFile(t *testing.T, text string) (*config.Config, error) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PARLEY_DATA_DIR": filepath.Join(dir, "data"), "XDG_CONFIG_HOME": dir, "PARLEY_LLM_OPENAI_API_KEY": "sk-test"}
	return config.Load(config.LoadOptions{Path: path, Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Environ: func() []string { return nil }, Platforms: platforms.All()})
}

// TestBindingsYAML: parley agents export prints what binds, the bindings
// made in chat included, as a bindings: block that loads as it reads —
// and leaves as comments what would not load.
func TestBindingsYAML(t *testing.T) {
	tests := []struct {
		name       string
		configured string // the file's bindings: block
		stored     map[string]string
		want       string
		loads      []config.Binding
	}{
		{
			name: "none", configured: "", stored: nil,
			want:  "bindings: []\n",
			loads: nil,
		},
		{
			name:       "configured, then made in chat",
			configured: "bindings:\n  - {place: 'slack:channel:C0HELP01', agent: support}\n  - {place: '*', agent: default}\n",
			stored:     map[string]string{"telegram:chat:-1001234": "eng", "discord:channel:42": "support"},
			want: `bindings:
  - {place: "slack:channel:C0HELP01", agent: support}
  - {place: "*", agent: default}
  - {place: "discord:channel:42", agent: support}  # made in chat with /agent use
  - {place: "telegram:chat:-1001234", agent: eng}  # made in chat with /agent use
`,
			loads: []config.Binding{{Place: "slack:channel:C0HELP01", Agent: "support"}, {Place: "*", Agent: "default"},
				{Place: "discord:channel:42", Agent: "support"}, {Place: "telegram:chat:-1001234", Agent: "eng"}},
		},
		{
			name:       "a place bound in chat replaces its configured binding",
			configured: "bindings:\n  - {place: 'slack:channel:C0ENG001', agent: support}\n",
			stored:     map[string]string{"slack:channel:C0ENG001": "eng"},
			want: `bindings:
  # - {place: "slack:channel:C0ENG001", agent: support}  # replaced in chat with /agent use, below
  - {place: "slack:channel:C0ENG001", agent: eng}  # made in chat with /agent use
`,
			loads: []config.Binding{{Place: "slack:channel:C0ENG001", Agent: "eng"}},
		},
		{
			name:   "an agent no longer configured",
			stored: map[string]string{"slack:channel:C1": "ops"},
			want: `bindings:
  # - {place: "slack:channel:C1", agent: "ops"}  # made in chat with /agent use; there is no agent "ops" now
`,
			loads: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadFile(t, exportBase+tt.configured)
			if err != nil {
				t.Fatal(err)
			}
			got := bindingsYAML(cfg, tt.stored)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("export (-want +got):\n%s", diff)
			}
			var parsed struct{ Bindings []config.Binding }
			if err := yaml.Unmarshal([]byte(got), &parsed); err != nil {
				t.Fatalf("the export is no YAML: %v", err)
			}
			back, err := loadFile(t, exportBase+got)
			if err != nil {
				t.Fatalf("the export pasted into the file does not load: %v", err)
			}
			empty := cmpopts.EquateEmpty()
			if diff := cmp.Diff(tt.loads, back.Bindings, empty); diff != "" || !cmp.Equal(parsed.Bindings, back.Bindings, empty) {
				t.Errorf("bindings loaded (-want +got):\n%s\nparsed as YAML: %+v", diff, parsed.Bindings)
			}
		})
	}
}
