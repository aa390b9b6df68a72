package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parleybot/parley/internal/secret"
)

func TestMCPServers(t *testing.T) {
	want := []MCPServer{
		{Name: "files", Command: "npx", Args: []string{"-y", "server-filesystem", "/srv"}, Env: map[string]secret.Secret{"GITHUB_TOKEN": "x", "Mixed_Case": "y"}},
		{Name: "gh", URL: "https://mcp.example.com/mcp", Headers: map[string]secret.Secret{"Authorization": "Bearer t"}, Trusted: true},
	}
	t.Run("yaml keeps the case of env and header names", func(t *testing.T) {
		cfg := mustLoadYAML(t, `
tools:
  mcp:
    servers:
      - name: files
        command: npx
        args: ["-y", "server-filesystem", "/srv"]
        env: {GITHUB_TOKEN: x, Mixed_Case: "y"}
      - name: gh
        url: https://mcp.example.com/mcp
        headers:
          Authorization: Bearer t
        trusted: true
`, nil)
		if diff := cmp.Diff(want, cfg.Tools.MCP.Servers); diff != "" {
			t.Fatalf("servers (-want +got):\n%s", diff)
		}
	})
	t.Run("env JSON overrides the file", func(t *testing.T) {
		cfg := mustLoadYAML(t, "tools:\n  mcp:\n    servers:\n      - {name: other, command: x}\n", map[string]string{
			"PARLEY_TOOLS_MCP_SERVERS": `[{"name":"files","command":"npx","args":["-y","server-filesystem","/srv"],"env":{"GITHUB_TOKEN":"x","Mixed_Case":"y"}},
			  {"name":"gh","url":"https://mcp.example.com/mcp","headers":{"Authorization":"Bearer t"},"trusted":true}]`,
		})
		if diff := cmp.Diff(want, cfg.Tools.MCP.Servers); diff != "" {
			t.Fatalf("servers (-want +got):\n%s", diff)
		}
	})
}

func TestHarnessValidation(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want string
	}{
		{"compact percent too high", "llm:\n  compact_at_percent: 99\n", nil, "llm.compact_at_percent: 99 is out of range; want 10 to 95"},
		{"memory cap too small", "memory:\n  facts_chars: 5\n", nil, "memory.facts_chars: 5 is out of range"},
		{"team cap too large", "memory:\n  team_chars: 200000\n", nil, "memory.team_chars: 200000 is out of range"},
		{"team writers mixed", "memory:\n  team:\n    writers: [anyone, slack:U1]\n", nil, `memory.team.writers: "anyone" is not platform:id`},
		{"team writer without platform", "", map[string]string{"PARLEY_MEMORY_TEAM_WRITERS": "slack:U1, U2"}, `memory.team.writers: "U2" is not platform:id`},
		{"shell never", "", map[string]string{"PARLEY_TOOLS_APPROVAL_NEVER": "web_fetch, shell"}, "tools.approval.never: shell always needs approval"},
		{"both lists", "tools:\n  approval:\n    always: [web_fetch]\n    never: [web_fetch]\n", nil, `tools.approval: "web_fetch" is in both always and never`},
		{"web_fetch opened to everything", "tools:\n  web_fetch:\n    allow_hosts: [wiki.intra, 0.0.0.0/0]\n", nil, `tools.web_fetch.allow_hosts: "0.0.0.0/0" would allow every address`},
		{"web_fetch opened to metadata", "", map[string]string{"PARLEY_TOOLS_WEB_FETCH_ALLOW_HOSTS": "metadata.google.internal"}, `tools.web_fetch.allow_hosts: "metadata.google.internal" is a cloud metadata host name`},
		{"web_fetch opened to a URL", "tools:\n  web_fetch:\n    allow_hosts: ['http://wiki/']\n", nil, `tools.web_fetch.allow_hosts: "http://wiki/" is not a host name`},
		{"server without name", "tools:\n  mcp:\n    servers: [{command: x}]\n", nil, `tools.mcp.servers[0].name: "" is not valid`},
		{"server name with a dot", "tools:\n  mcp:\n    servers: [{name: a.b, command: x}]\n", nil, `tools.mcp.servers[0].name: "a.b" is not valid`},
		{"duplicate server", "tools:\n  mcp:\n    servers: [{name: a, command: x}, {name: a, url: 'http://h/mcp'}]\n", nil, `tools.mcp.servers[1].name: "a" is used twice`},
		{"command and url", "tools:\n  mcp:\n    servers: [{name: a, command: x, url: 'http://h'}]\n", nil, "tools.mcp.servers[0]: set exactly one of command"},
		{"bad url", "tools:\n  mcp:\n    servers: [{name: a, url: 'ftp://h'}]\n", nil, `tools.mcp.servers[0].url: not an http(s) URL`},
		{"unknown server field", "tools:\n  mcp:\n    servers: [{name: a, comand: x}]\n", nil, `unknown field "comand"`},
		{"not a list", "tools:\n  mcp:\n    servers: files\n", nil, "tools.mcp.servers: want a list of mappings"},
		{"bad env JSON", "", map[string]string{"PARLEY_TOOLS_MCP_SERVERS": "[{name: a}]"}, "(from PARLEY_TOOLS_MCP_SERVERS)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadYAML(t, tt.yaml, tt.env)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestMCPSecretsMasked(t *testing.T) {
	cfg := mustLoadYAML(t, "tools:\n  mcp:\n    servers:\n      - name: gh\n        url: https://h/mcp\n        headers: {Authorization: Bearer ghp_0123456789abcdefghij}\n        env: {TOKEN: sk-0123456789abcdefghijkl}\n", nil)
	for _, out := range []string{fmt.Sprintf("%v", cfg), fmt.Sprintf("%+v", cfg.Tools), cfg.Redacted()} {
		if strings.Contains(out, "ghp_0123456789abcdefghij") || strings.Contains(out, "sk-0123456789abcdefghijkl") {
			t.Fatalf("an MCP secret was printed:\n%s", out)
		}
	}
	if got := cfg.Tools.MCP.Servers[0].Headers["Authorization"].Reveal(); got != "Bearer ghp_0123456789abcdefghij" {
		t.Fatalf("Reveal = %q", got)
	}
}

// TestTeamWriters: memory.team.writers takes one word or a list, from the
// file or the environment; the default is anyone.
func TestTeamWriters(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want []string
	}{
		{"default", "", nil, []string{"anyone"}},
		{"one word", "memory:\n  team:\n    writers: admins\n", nil, []string{"admins"}},
		{"a list", "memory:\n  team:\n    writers: [slack:U1, telegram:42]\n", nil, []string{"slack:U1", "telegram:42"}},
		{"environment", "", map[string]string{"PARLEY_MEMORY_TEAM_WRITERS": "slack:U1,discord:9"}, []string{"slack:U1", "discord:9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustLoadYAML(t, tt.yaml, tt.env)
			if diff := cmp.Diff(tt.want, cfg.Memory.Team.Writers); diff != "" {
				t.Errorf("writers (-want +got):\n%s", diff)
			}
			if cfg.Memory.TeamChars != 2000 {
				t.Errorf("memory.team_chars = %d, want the default 2000", cfg.Memory.TeamChars)
			}
		})
	}
}
