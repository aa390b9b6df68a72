package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/cmd/parley/internal/platforms"
	"github.com/parleybot/parley/internal/secret"
)

// A fifth platform, registered here and nowhere else: Parley's list plus
// this description is all it takes for configuration, doctor, access,
// metrics and building its adapter to know it (docs/architecture.md,
// Platforms).

// pager is the fifth platform's description.
func pager() chat.Platform {
	return chat.Platform{
		Name:     "pager",
		Settings: func() chat.Settings { return &pagerSettings{APIURL: "https://pager.example/api"} },
		Method: func(req *http.Request) string {
			if strings.HasSuffix(req.URL.Path, "/page") {
				return "page"
			}
			return "other"
		},
		IsEdit: func(m string) bool { return m == "repage" },
	}
}

// pagerSettings is its section of the configuration.
type pagerSettings struct {
	On     bool          `mapstructure:"enabled"`
	Token  secret.Secret `mapstructure:"token"`
	APIURL string        `mapstructure:"api_url"`
	// client is what New was handed, for the metrics check.
	client *http.Client
}

func (s *pagerSettings) Enabled() bool { return s.On }

func (s *pagerSettings) Validate(p chat.Problems) {
	p.URL("pager.api_url", s.APIURL, chat.AnyURL)
	if s.On {
		p.Require("pager.token", s.Token.Reveal(), "pager.enabled is true")
	}
}

func (s *pagerSettings) Check(context.Context) (string, error) {
	if s.Token.Reveal() != "pager-token-0123456789" {
		return "", errors.New("pager refused the token " + s.Token.Reveal())
	}
	return "paging as @parley", nil
}

func (s *pagerSettings) Receiver() string { return "" }
func (s *pagerSettings) ServesHTTP() bool { return false }

func (s *pagerSettings) New(env chat.Env) (chat.Adapter, error) {
	s.client = env.HTTPClient
	return bottest.New(bottest.Config{Platform: "pager"}), nil
}

// fifthEnv is an environment whose platforms are Parley's and the pager,
// configured by vars.
func fifthEnv(out io.Writer, vars map[string]string) *environment {
	return &environment{stdin: strings.NewReader(""), stdout: out, stderr: out,
		lookupEnv: func(k string) (string, bool) { v, ok := vars[k]; return v, ok },
		platforms: append(platforms.All(), pager())}
}

func loadFifth(t *testing.T, vars map[string]string) (*config.Config, error) {
	t.Helper()
	vars["XDG_CONFIG_HOME"] = t.TempDir()
	return config.Load(config.LoadOptions{Env: fifthEnv(io.Discard, vars).lookupEnv, Getwd: func() (string, error) { return t.TempDir(), nil },
		Platforms: append(platforms.All(), pager())})
}

func TestFifthPlatformConfig(t *testing.T) {
	tests := []struct {
		name string
		vars map[string]string
		want string // a problem; "" when it loads
	}{
		{"enabled without its token", map[string]string{"PARLEY_PAGER_ENABLED": "true"},
			"pager.token: required when pager.enabled is true; set it in the config file or PARLEY_PAGER_TOKEN"},
		{"a bad URL", map[string]string{"PARLEY_PAGER_API_URL": "ftp://x"}, `pager.api_url: "ftp://x" is not a valid URL`},
		{"an admin of the fifth platform", map[string]string{"PARLEY_ACCESS_ADMINS": "pager:7"}, ""},
		{"an admin of no platform", map[string]string{"PARLEY_ACCESS_ADMINS": "fax:7"},
			`access.admins: "fax:7" must be platform:id with platform slack, telegram, discord, pager or console`},
		{"enabled", map[string]string{"PARLEY_PAGER_ENABLED": "true", "PARLEY_PAGER_TOKEN": "pager-token-0123456789"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadFifth(t, tt.vars)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("Load: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Fatalf("Load = %v, want a problem %q", err, tt.want)
			case err != nil:
				return
			}
			red := cfg.Redacted()
			if strings.Contains(red, "pager-token-0123456789") || !strings.Contains(red, "pager.api_url: \"https://pager.example/api\"") {
				t.Errorf("Redacted() shows the token or lacks the section:\n%s", red)
			}
		})
	}
}

func TestFifthPlatformDoctor(t *testing.T) {
	for _, tt := range []struct {
		token string
		want  string
		code  int
	}{
		{"pager-token-0123456789", "OK    pager      paging as @parley", 0},
		{"pager-token-wrong-9876543210", "FAIL  pager      pager refused the token [redacted]", 1},
	} {
		var out bytes.Buffer
		vars := map[string]string{"PARLEY_DATA_DIR": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir(),
			"OPENAI_API_KEY": "sk-test-0123456789", "PARLEY_LLM_OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
			"PARLEY_PAGER_ENABLED": "true", "PARLEY_PAGER_TOKEN": tt.token}
		execute(t.Context(), fifthEnv(&out, vars), []string{"doctor"})
		if !strings.Contains(out.String(), tt.want) || strings.Contains(out.String(), tt.token) {
			t.Errorf("doctor's output lacks %q or shows the token:\n%s", tt.want, out.String())
		}
	}
}

func TestFifthPlatformAccess(t *testing.T) {
	closed, err := loadFifth(t, map[string]string{})
	if err != nil {
		t.Fatal(err)
	}
	listed, err := loadFifth(t, map[string]string{"PARLEY_ACCESS_PAGER_ALLOW_USERS": "7", "PARLEY_ACCESS_PAGER_FREE_CHATS": "ops"})
	if err != nil {
		t.Fatal(err)
	}
	u7, u8 := chat.User{Platform: "pager", ID: "7"}, chat.User{Platform: "pager", ID: "8"}
	where := chat.Thread{Platform: "pager", Chat: "ops"}
	for _, tt := range []struct {
		name string
		cfg  *config.Config
		u    chat.User
		want bool
	}{
		{"closed by default, as its description says", closed, u7, false},
		{"a listed person", listed, u7, true},
		{"someone else", listed, u8, false},
		{"slack stays open by default", closed, chat.User{Platform: "slack", ID: "U1"}, true},
	} {
		if got := access(tt.cfg).Allowed(tt.u, where); got != tt.want {
			t.Errorf("%s: Allowed(%v) = %v, want %v", tt.name, tt.u, got, tt.want)
		}
	}
	if !access(listed).FreeResponse("pager", "ops") {
		t.Error("access.pager.free_chats is not free")
	}
}

func TestFifthPlatformMetrics(t *testing.T) {
	cfg, err := loadFifth(t, map[string]string{"PARLEY_PAGER_ENABLED": "true", "PARLEY_PAGER_TOKEN": "pager-token-0123456789",
		"PARLEY_HTTP_LISTEN": "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ops := newOperator(cfg)
	adapters, err := platformAdapters(cfg, nil, nil, ops, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(adapters) != 1 || adapters[0].Platform() != "pager" {
		t.Fatalf("adapters built: %v", adapters)
	}
	api := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer api.Close()
	client := cfg.Platform("pager").Section.(*pagerSettings).client
	for _, path := range []string{"/page", "/page", "/secret-42"} {
		resp, err := client.Get(api.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	scrape := httptest.NewRecorder()
	ops.rec.Handler().ServeHTTP(scrape, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	text := scrape.Body.String()
	for _, want := range []string{
		`parley_platform_requests_total{method="page",platform="pager"} 2`,
		`parley_platform_requests_total{method="other",platform="pager"} 1`,
		`parley_turns_total{outcome="answered",platform="pager"} 0`,
	} {
		if !strings.Contains(text, want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(text, "secret-42") {
		t.Error("a URL reached a label")
	}
}
