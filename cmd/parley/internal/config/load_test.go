package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/parleybot/parley/adapters/slack"
	"github.com/parleybot/parley/cmd/parley/internal/platforms"

	"github.com/google/go-cmp/cmp"
	"github.com/parleybot/parley/internal/secret"
)

// env turns a map into a LoadOptions.Env, so tests never touch the
// process environment and can run in parallel.
func env(m map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := m[name]
		return v, ok
	}
}

// hermetic returns options whose working and home directories are fresh
// empty temporary directories, so no real config file is ever found.
func hermetic(t testing.TB, vars map[string]string) LoadOptions {
	t.Helper()
	wd, home := t.TempDir(), t.TempDir()
	return LoadOptions{
		Platforms:   platforms.All(),
		Env:         env(vars),
		Environ:     environ(vars),
		Getwd:       func() (string, error) { return wd, nil },
		UserHomeDir: func() (string, error) { return home, nil },
	}
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadYAML loads content as the --config file, with the given environment.
func loadYAML(t *testing.T, content string, vars map[string]string) (*Config, error) {
	t.Helper()
	opts := hermetic(t, vars)
	opts.Path = writeFile(t, filepath.Join(t.TempDir(), "config.yaml"), content)
	return Load(opts)
}

func mustLoadYAML(t *testing.T, content string, vars map[string]string) *Config {
	t.Helper()
	cfg, err := loadYAML(t, content, vars)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return cfg
}

func TestLoadDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := Load(hermetic(t, nil))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := defaults()
	if diff := cmp.Diff(&want, cfg, samePlatform); diff != "" {
		t.Errorf("Load with no file and no env (-want +got):\n%s", diff)
	}
	if got, want := cfg.DBPath(), filepath.Join("data", "parley.db"); got != want {
		t.Errorf("DBPath() = %q, want %q", got, want)
	}
	if got := cfg.EnabledPlatforms(); len(got) != 0 {
		t.Errorf("EnabledPlatforms() = %v, want none", got)
	}
}

func TestLoadPrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		get  func(*Config) any
		want any
	}{
		{
			name: "file sets top-level key",
			yaml: "data_dir: /srv/file\n",
			get:  func(c *Config) any { return c.DataDir },
			want: "/srv/file",
		},
		{
			name: "env beats file",
			yaml: "data_dir: /srv/file\n",
			env:  map[string]string{"PARLEY_DATA_DIR": "/srv/env"},
			get:  func(c *Config) any { return c.DataDir },
			want: "/srv/env",
		},
		{
			name: "env-only top-level key",
			env:  map[string]string{"PARLEY_DATA_DIR": "/srv/env"},
			get:  func(c *Config) any { return c.DataDir },
			want: "/srv/env",
		},
		{
			name: "env beats file for nested key",
			yaml: "llm:\n  openai:\n    base_url: http://file:11434/v1\n",
			env:  map[string]string{"PARLEY_LLM_OPENAI_BASE_URL": "http://env:8000/v1"},
			get:  func(c *Config) any { return c.LLM.OpenAI.BaseURL },
			want: "http://env:8000/v1",
		},
		{
			name: "env-only nested key, section absent from file",
			yaml: "data_dir: /srv\n",
			env:  map[string]string{"PARLEY_LLM_OPENAI_BASE_URL": "http://env:8000/v1"},
			get:  func(c *Config) any { return c.LLM.OpenAI.BaseURL },
			want: "http://env:8000/v1",
		},
		{
			name: "env-only key, section present without it",
			yaml: "telegram:\n  mode: polling\n",
			env:  map[string]string{"PARLEY_TELEGRAM_TOKEN": "123:abc"},
			get:  func(c *Config) any { return telegramOf(c).Token },
			want: secret.Secret("123:abc"),
		},
		{
			name: "env int beats file int",
			yaml: "llm:\n  context_window: 2048\n  max_tokens: 100\n",
			env:  map[string]string{"PARLEY_LLM_CONTEXT_WINDOW": "8192"},
			get:  func(c *Config) any { return c.LLM.ContextWindow },
			want: 8192,
		},
		{
			name: "env false beats default true",
			env:  map[string]string{"PARLEY_TOOLS_WEB_FETCH_ENABLED": "false"},
			get:  func(c *Config) any { return c.Tools.WebFetch.Enabled },
			want: false,
		},
		{
			name: "env false beats file true",
			yaml: "tools:\n  shell:\n    enabled: true\n",
			env:  map[string]string{"PARLEY_TOOLS_SHELL_ENABLED": "0"},
			get:  func(c *Config) any { return c.Tools.Shell.Enabled },
			want: false,
		},
		{
			name: "env turns the shell sandbox requirement off",
			yaml: "tools:\n  shell:\n    enabled: true\n",
			env:  map[string]string{"PARLEY_TOOLS_SHELL_UNSANDBOXED": "true"},
			get:  func(c *Config) any { return c.Tools.Shell },
			want: Shell{Enabled: true, Unsandboxed: true, Network: "none", WorkspaceMB: DefaultWorkspaceMB},
		},
		{
			name: "shell runs sandboxed only by default",
			yaml: "tools:\n  shell:\n    enabled: true\n",
			get:  func(c *Config) any { return c.Tools.Shell.Unsandboxed },
			want: false,
		},
		{
			name: "empty env var counts as unset",
			yaml: "http:\n  listen: 0.0.0.0:9000\n",
			env:  map[string]string{"PARLEY_HTTP_LISTEN": ""},
			get:  func(c *Config) any { return c.HTTP.Listen },
			want: "0.0.0.0:9000",
		},
		{
			name: "empty file value keeps default",
			yaml: "slack:\n  mode: \"\"\n",
			get:  func(c *Config) any { return slackOf(c).Mode },
			want: slack.ModeSocket,
		},
		{
			name: "null file value keeps default",
			yaml: "telegram:\n  api_url:\n",
			get:  func(c *Config) any { return telegramOf(c).APIURL },
			want: "https://api.telegram.org",
		},
		{
			name: "flat dotted key in file",
			yaml: "llm.openai.base_url: http://localhost:11434/v1\n",
			get:  func(c *Config) any { return c.LLM.OpenAI.BaseURL },
			want: "http://localhost:11434/v1",
		},
		{
			name: "discord shards default to one",
			get:  func(c *Config) any { return discordOf(c).Shards },
			want: 1,
		},
		{
			name: "discord shards from the file",
			yaml: "discord:\n  shards: 3\n",
			get:  func(c *Config) any { return discordOf(c).Shards },
			want: 3,
		},
		{
			name: "discord shards from the environment",
			yaml: "discord:\n  shards: 3\n",
			env:  map[string]string{"PARLEY_DISCORD_SHARDS": "16"},
			get:  func(c *Config) any { return discordOf(c).Shards },
			want: 16,
		},
		{
			name: "file keys are case-insensitive",
			yaml: "Discord:\n  API_URL: https://proxy.example/api/v9\n",
			get:  func(c *Config) any { return discordOf(c).APIURL },
			want: "https://proxy.example/api/v9",
		},
		{
			name: "YAML 1.1 boolean spelling",
			yaml: "tools:\n  shell:\n    enabled: yes\n",
			get:  func(c *Config) any { return c.Tools.Shell.Enabled },
			want: true,
		},
		{
			name: "values are trimmed",
			env:  map[string]string{"PARLEY_TELEGRAM_TOKEN": "  123:abc\n"},
			get:  func(c *Config) any { return telegramOf(c).Token },
			want: secret.Secret("123:abc"),
		},
		{
			name: "numeric YAML scalar read as a string",
			yaml: "llm:\n  persona: 42\n",
			get:  func(c *Config) any { return c.LLM.Persona },
			want: "42",
		},
		{
			name: "whole float read as an int",
			yaml: "llm:\n  context_window: 2048.0\n  max_tokens: 1e3\n",
			get:  func(c *Config) any { return [2]int{c.LLM.ContextWindow, c.LLM.MaxTokens} },
			want: [2]int{2048, 1000},
		},
		{
			name: "boolean YAML scalar read as a string",
			yaml: "llm:\n  persona: true\n",
			get:  func(c *Config) any { return c.LLM.Persona },
			want: "true",
		},
		{
			name: "slack api_url gains its trailing slash",
			env:  map[string]string{"PARLEY_SLACK_API_URL": "https://slack-gov.com/api"},
			get:  func(c *Config) any { return slackOf(c).APIURL },
			want: "https://slack-gov.com/api/",
		},
		{
			name: "mode is case-insensitive",
			yaml: "slack:\n  mode: HTTP\n",
			get:  func(c *Config) any { return slackOf(c).Mode },
			want: slack.ModeHTTP,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustLoadYAML(t, tt.yaml, tt.env)
			if diff := cmp.Diff(tt.want, tt.get(cfg)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadAPIKeyFallback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		yaml          string
		env           map[string]string
		wantOpenAI    secret.Secret
		wantAnthropic secret.Secret
	}{
		{
			name: "plain variables alone",
			env:  map[string]string{"OPENAI_API_KEY": "plain-o", "ANTHROPIC_API_KEY": "plain-a"},
			// The fallbacks feed only their own provider.
			wantOpenAI: "plain-o", wantAnthropic: "plain-a",
		},
		{
			name: "PARLEY_ variable beats plain variable",
			env: map[string]string{
				"OPENAI_API_KEY": "plain-o", "PARLEY_LLM_OPENAI_API_KEY": "parley-o",
				"ANTHROPIC_API_KEY": "plain-a", "PARLEY_LLM_ANTHROPIC_API_KEY": "parley-a",
			},
			wantOpenAI: "parley-o", wantAnthropic: "parley-a",
		},
		{
			name:       "file beats plain variable",
			yaml:       "llm:\n  openai:\n    api_key: file-o\n  anthropic:\n    api_key: file-a\n",
			env:        map[string]string{"OPENAI_API_KEY": "plain-o", "ANTHROPIC_API_KEY": "plain-a"},
			wantOpenAI: "file-o", wantAnthropic: "file-a",
		},
		{
			name:       "PARLEY_ variable beats file",
			yaml:       "llm:\n  openai:\n    api_key: file-o\n",
			env:        map[string]string{"OPENAI_API_KEY": "plain-o", "PARLEY_LLM_OPENAI_API_KEY": "parley-o"},
			wantOpenAI: "parley-o",
		},
		{
			name:       "empty file value lets plain variable through",
			yaml:       "llm:\n  openai:\n    api_key: \"\"\n",
			env:        map[string]string{"OPENAI_API_KEY": "plain-o"},
			wantOpenAI: "plain-o",
		},
		{
			name:       "empty PARLEY_ variable lets plain variable through",
			env:        map[string]string{"PARLEY_LLM_OPENAI_API_KEY": "", "OPENAI_API_KEY": "plain-o"},
			wantOpenAI: "plain-o",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustLoadYAML(t, tt.yaml, tt.env)
			if got := cfg.LLM.OpenAI.APIKey; got != tt.wantOpenAI {
				t.Errorf("llm.openai.api_key = %q, want %q", got.Reveal(), tt.wantOpenAI.Reveal())
			}
			if got := cfg.LLM.Anthropic.APIKey; got != tt.wantAnthropic {
				t.Errorf("llm.anthropic.api_key = %q, want %q", got.Reveal(), tt.wantAnthropic.Reveal())
			}
		})
	}
}

func TestLoadLists(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want []string
	}{
		{
			name: "comma-separated env",
			env:  map[string]string{"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS": "42, 43"},
			want: []string{"42", "43"},
		},
		{
			name: "env entries trimmed, empties dropped",
			env:  map[string]string{"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS": " ,42,, 43 ,"},
			want: []string{"42", "43"},
		},
		{
			name: "env wildcard",
			env:  map[string]string{"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS": "*"},
			want: []string{"*"},
		},
		{
			name: "env beats file list",
			yaml: "access:\n  telegram:\n    allow_users: [1, 2]\n",
			env:  map[string]string{"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS": "42"},
			want: []string{"42"},
		},
		{
			name: "YAML list of numbers and strings",
			yaml: "access:\n  telegram:\n    allow_users: [42, \"43\", \" 44 \", \"\"]\n",
			want: []string{"42", "43", "44"},
		},
		{
			name: "YAML block list",
			yaml: "access:\n  telegram:\n    allow_users:\n      - 42\n      - 9007199254740993\n",
			want: []string{"42", "9007199254740993"},
		},
		{
			name: "YAML comma-separated string",
			yaml: "access:\n  telegram:\n    allow_users: \"42, 43\"\n",
			want: []string{"42", "43"},
		},
		{
			name: "YAML scalar",
			yaml: "access:\n  telegram:\n    allow_users: 42\n",
			want: []string{"42"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := mustLoadYAML(t, tt.yaml, tt.env)
			if diff := cmp.Diff(tt.want, cfg.Access.Platforms["telegram"].AllowUsers); diff != "" {
				t.Errorf("access.telegram.allow_users (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("admins from env", func(t *testing.T) {
		t.Parallel()
		cfg := mustLoadYAML(t, "", map[string]string{"PARLEY_ACCESS_ADMINS": "telegram:42, slack:U012AB3CD"})
		if diff := cmp.Diff([]string{"telegram:42", "slack:U012AB3CD"}, cfg.Access.Admins); diff != "" {
			t.Errorf("access.admins (-want +got):\n%s", diff)
		}
	})
}

func TestLoadSearch(t *testing.T) {
	t.Parallel()
	type layout struct {
		cwd  bool   // ./config.yaml exists
		xdg  string // XDG_CONFIG_HOME: "" unset, "abs" a temp dir, or a relative path
		home bool   // ~/.config/parley/config.yaml exists
		path string // LoadOptions.Path, relative to the working directory
	}
	tests := []struct {
		name   string
		layout layout
		want   string // which file was loaded: "cwd", "xdg", "home", "explicit" or ""
	}{
		{"nothing found", layout{}, ""},
		{"working directory", layout{cwd: true}, "cwd"},
		{"working directory beats XDG", layout{cwd: true, xdg: "abs"}, "cwd"},
		{"XDG_CONFIG_HOME", layout{xdg: "abs"}, "xdg"},
		{"XDG_CONFIG_HOME beats ~/.config", layout{xdg: "abs", home: true}, "xdg"},
		{"~/.config when XDG_CONFIG_HOME unset", layout{home: true}, "home"},
		{"relative XDG_CONFIG_HOME ignored", layout{xdg: "rel", home: true}, "home"},
		{"explicit path beats search", layout{cwd: true, xdg: "abs", path: "other/parley.yaml"}, "explicit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			wd, home, xdg := t.TempDir(), t.TempDir(), t.TempDir()
			vars := map[string]string{}
			files := map[string]string{} // name → path
			if tt.layout.cwd {
				files["cwd"] = filepath.Join(wd, "config.yaml")
			}
			switch tt.layout.xdg {
			case "":
			case "abs":
				vars["XDG_CONFIG_HOME"] = xdg
				files["xdg"] = filepath.Join(xdg, "parley", "config.yaml")
			default:
				vars["XDG_CONFIG_HOME"] = tt.layout.xdg
				// Exists relative to the working directory, yet must be ignored.
				writeFile(t, filepath.Join(wd, tt.layout.xdg, "parley", "config.yaml"), "data_dir: /relative-xdg\n")
			}
			if tt.layout.home {
				files["home"] = filepath.Join(home, ".config", "parley", "config.yaml")
			}
			if tt.layout.path != "" {
				files["explicit"] = filepath.Join(wd, tt.layout.path)
			}
			for name, path := range files {
				writeFile(t, path, "data_dir: /from-"+name+"\n")
			}

			cfg, err := Load(LoadOptions{
				Path:        tt.layout.path,
				Env:         env(vars),
				Getwd:       func() (string, error) { return wd, nil },
				UserHomeDir: func() (string, error) { return home, nil },
			})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			wantFile, wantDir := files[tt.want], "/from-"+tt.want
			if tt.want == "" {
				wantDir = defaults().DataDir
			}
			if cfg.File != wantFile || cfg.DataDir != wantDir {
				t.Errorf("loaded File %q with data_dir %q; want %q with %q", cfg.File, cfg.DataDir, wantFile, wantDir)
			}
		})
	}

	t.Run("no home directory", func(t *testing.T) {
		t.Parallel()
		wd := t.TempDir()
		cfg, err := Load(LoadOptions{
			Env:         env(nil),
			Getwd:       func() (string, error) { return wd, nil },
			UserHomeDir: func() (string, error) { return "", errors.New("$HOME is not defined") },
		})
		if err != nil || cfg.File != "" {
			t.Errorf("Load = %+v, %v; want defaults and no error", cfg, err)
		}
	})
}
