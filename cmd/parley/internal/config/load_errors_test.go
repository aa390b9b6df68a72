package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadFileErrors(t *testing.T) {
	t.Parallel()

	t.Run("explicit path missing", func(t *testing.T) {
		t.Parallel()
		opts := hermetic(t, nil)
		opts.Path = filepath.Join(t.TempDir(), "nope.yaml")
		_, err := Load(opts)
		if err == nil || !strings.Contains(err.Error(), opts.Path) {
			t.Fatalf("Load error = %v; want one naming %s", err, opts.Path)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("errors.Is(%v, fs.ErrNotExist) = false", err)
		}
	})

	t.Run("searched file unreadable", func(t *testing.T) {
		t.Parallel()
		opts := hermetic(t, nil)
		wd, _ := opts.Getwd()
		// A directory where the file should be cannot be read.
		if err := os.Mkdir(filepath.Join(wd, "config.yaml"), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(opts); err == nil || !strings.Contains(err.Error(), filepath.Join(wd, "config.yaml")) {
			t.Errorf("Load error = %v; want one naming the unreadable file", err)
		}
	})

	t.Run("working directory gone", func(t *testing.T) {
		t.Parallel()
		opts := hermetic(t, nil)
		opts.Getwd = func() (string, error) { return "", fs.ErrNotExist }
		if _, err := Load(opts); err == nil || !strings.Contains(err.Error(), "working directory") {
			t.Errorf("search: Load error = %v; want a working directory error", err)
		}
		// An absolute --config does not need the working directory.
		opts.Path = writeFile(t, filepath.Join(t.TempDir(), "config.yaml"), "data_dir: /abs\n")
		if cfg, err := Load(opts); err != nil || cfg.DataDir != "/abs" {
			t.Errorf("absolute path: Load = %+v, %v", cfg, err)
		}
	})

	malformed := []struct {
		name, yaml, wantLine string
	}{
		{"bad indentation", "llm:\n  model: a\n bad: [\n", "line "},
		{"unclosed quote", "data_dir: ok\nllm:\n  model: \"openai/x\n", "line "},
		{"tab indentation", "llm:\n\tmodel: x\n", "line 2"},
		{"top level is a list", "- a\n- b\n", "line 1"},
	}
	for _, tt := range malformed {
		t.Run("malformed YAML/"+tt.name, func(t *testing.T) {
			t.Parallel()
			opts := hermetic(t, nil)
			opts.Path = writeFile(t, filepath.Join(t.TempDir(), "config.yaml"), tt.yaml)
			_, err := Load(opts)
			if err == nil {
				t.Fatal("Load succeeded; want a parse error")
			}
			if msg := err.Error(); !strings.Contains(msg, opts.Path) || !strings.Contains(msg, tt.wantLine) {
				t.Errorf("Load error = %q; want it to name %s and %q", msg, opts.Path, tt.wantLine)
			}
			var verr *ValidationError
			if errors.As(err, &verr) {
				t.Errorf("parse error is a *ValidationError; want a plain error")
			}
		})
	}
}

func TestLoadTypeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want string
	}{
		{
			name: "non-numeric env int",
			env:  map[string]string{"PARLEY_LLM_CONTEXT_WINDOW": "abc"},
			want: `llm.context_window: "abc" is not a number (from PARLEY_LLM_CONTEXT_WINDOW)`,
		},
		{
			name: "non-numeric env int beats a good file value",
			yaml: "llm:\n  max_tokens: 100\n",
			env:  map[string]string{"PARLEY_LLM_MAX_TOKENS": "1k"},
			want: `llm.max_tokens: "1k" is not a number (from PARLEY_LLM_MAX_TOKENS)`,
		},
		{
			name: "non-numeric file int",
			yaml: "llm:\n  context_window: abc\n",
			want: `llm.context_window: "abc" is not a number`,
		},
		{
			name: "fractional file int",
			yaml: "llm:\n  max_tokens: 1.5\n",
			want: `llm.max_tokens: 1.5 is not a whole number`,
		},
		{
			name: "out of range env int",
			env:  map[string]string{"PARLEY_LLM_MAX_TOKENS": "99999999999999999999"},
			want: `llm.max_tokens: "99999999999999999999" is out of range`,
		},
		{
			name: "file int beyond int64",
			yaml: "llm:\n  context_window: 9223372036854775808\n",
			want: `llm.context_window: 9223372036854775808 is out of range`,
		},
		{
			name: "list for an int",
			yaml: "llm:\n  max_tokens: [1]\n",
			want: `llm.max_tokens: want a number, got a list`,
		},
		{
			name: "bad env bool",
			env:  map[string]string{"PARLEY_SLACK_ENABLED": "maybe"},
			want: `slack.enabled: "maybe" is not valid; want true or false (from PARLEY_SLACK_ENABLED)`,
		},
		{
			name: "bad env bool for the shell sandbox switch",
			env:  map[string]string{"PARLEY_TOOLS_SHELL_UNSANDBOXED": "sometimes"},
			want: `tools.shell.unsandboxed: "sometimes" is not valid; want true or false (from PARLEY_TOOLS_SHELL_UNSANDBOXED)`,
		},
		{
			name: "bad file bool for the shell sandbox switch",
			yaml: "tools:\n  shell:\n    unsandboxed: [true]\n",
			want: `tools.shell.unsandboxed: want true or false, got a list`,
		},
		{
			name: "mapping for a bool",
			yaml: "discord:\n  enabled: {a: 1}\n",
			want: `discord.enabled: want true or false, got a mapping`,
		},
		{
			name: "mapping for a string",
			yaml: "telegram:\n  token:\n    value: x\n",
			want: `telegram.token: want a string, got a mapping`,
		},
		{
			name: "list for a string",
			yaml: "data_dir: [a, b]\n",
			want: `data_dir: want a string, got a list`,
		},
		{
			name: "mapping for a list",
			yaml: "access:\n  admins: {telegram: 42}\n",
			want: `access.admins: want a list, got a mapping`,
		},
		{
			name: "mapping inside a list",
			yaml: "access:\n  admins:\n    - telegram: 42\n",
			want: `access.admins: entry 1: want a string, got a mapping`,
		},
		{
			name: "unknown key",
			yaml: "slack:\n  bot_tokn: xoxb-1\n",
			want: `slack.bot_tokn: unknown key`,
		},
		{
			name: "unknown section",
			yaml: "matrix:\n  enabled: true\n",
			want: `matrix.enabled: unknown key`,
		},
		{
			name: "scalar where a section belongs",
			yaml: "slack: true\n",
			want: `slack: want a mapping of keys, got true`,
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
			if len(verr.Problems) != 1 || !strings.HasPrefix(verr.Problems[0], tt.want) {
				t.Errorf("Problems = %q; want exactly one starting with %q", verr.Problems, tt.want)
			}
		})
	}

	t.Run("empty section is fine", func(t *testing.T) {
		t.Parallel()
		mustLoadYAML(t, "slack:\naccess:\n  telegram:\n", nil)
	})
}

func TestLoadReportsEveryProblem(t *testing.T) {
	t.Parallel()
	_, err := loadYAML(t, "slack:\n  mode: sockets\nhttp:\n  listen: nowhere\n",
		map[string]string{"PARLEY_LLM_CONTEXT_WINDOW": "abc"})
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Load error = %v; want a *ValidationError", err)
	}
	for _, want := range []string{"llm.context_window:", "slack.mode:", "http.listen:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	if !strings.Contains(err.Error(), verr.File) || verr.File == "" {
		t.Errorf("error %q does not name the file", err)
	}
}

func TestLoadIsIndependentPerCall(t *testing.T) {
	t.Parallel()
	// Two loads with different inputs must not see each other's values,
	// as they would through viper's global instance.
	a := mustLoadYAML(t, "data_dir: /a\n", nil)
	b := mustLoadYAML(t, "", map[string]string{"PARLEY_HTTP_LISTEN": ":9"})
	if a.DataDir != "/a" || b.DataDir != defaults().DataDir || a.HTTP.Listen != defaults().HTTP.Listen {
		t.Errorf("loads leaked into each other: a=%+v b=%+v", a, b)
	}
}

// TestLoadZeroOptions checks that the zero LoadOptions reads the real
// process environment (and so cannot run in parallel).
func TestLoadZeroOptions(t *testing.T) {
	t.Setenv("PARLEY_DATA_DIR", "/from-process-env")
	path := writeFile(t, filepath.Join(t.TempDir(), "config.yaml"), "http:\n  listen: :9999\n")
	cfg, err := Load(LoadOptions{Path: path})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if cfg.DataDir != "/from-process-env" || cfg.HTTP.Listen != ":9999" || cfg.File != path {
		t.Errorf("Load = data_dir %q, http.listen %q, file %q", cfg.DataDir, cfg.HTTP.Listen, cfg.File)
	}
}
