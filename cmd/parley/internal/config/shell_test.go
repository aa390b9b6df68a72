package config

import (
	"strings"
	"testing"
)

// TestShellNetworkAndBudgets: tools.shell.network, tools.shell.workspace_mb
// and store.min_free_mb load from the file and the environment, default
// to the safe values, and refuse what they cannot mean.
func TestShellNetworkAndBudgets(t *testing.T) {
	type got struct {
		network          string
		workspace, floor int
	}
	read := func(c *Config) got { return got{c.Tools.Shell.Network, c.Tools.Shell.WorkspaceMB, c.Store.MinFreeMB} }
	tests := []struct {
		name    string
		yaml    string
		env     map[string]string
		want    got
		wantErr string
	}{
		{"defaults", "", nil, got{"none", 200, 256}, ""},
		{"from the file", "tools:\n  shell:\n    network: public\n    workspace_mb: 50\nstore:\n  min_free_mb: 0\n", nil, got{"public", 50, 0}, ""},
		{"from the environment", "", map[string]string{"PARLEY_TOOLS_SHELL_NETWORK": "all", "PARLEY_TOOLS_SHELL_WORKSPACE_MB": "1024", "PARLEY_STORE_MIN_FREE_MB": "2048"}, got{"all", 1024, 2048}, ""},
		{"an unknown mode", "tools:\n  shell:\n    network: host\n", nil, got{}, `tools.shell.network: "host" is not valid; want none, public or all`},
		{"no budget", "tools:\n  shell:\n    workspace_mb: 0\n", nil, got{}, "tools.shell.workspace_mb: 0 is out of range"},
		{"a negative floor", "store:\n  min_free_mb: -1\n", nil, got{}, "store.min_free_mb: -1 is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadYAML(t, tt.yaml, tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g := read(c); g != tt.want {
				t.Errorf("got %+v, want %+v", g, tt.want)
			}
		})
	}
}
