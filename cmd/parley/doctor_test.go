package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/store"

	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/agent/guard"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/tools/shell"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// Secrets the fakes accept. Long enough that Mask shows only a suffix.
const (
	goodOpenAI    = "sk-openai-good-0000000000001111"
	goodAnthropic = "sk-ant-good-00000000000002222"
	goodSlack     = "xoxb-slack-good-000000003333"
	goodTelegram  = "123456:telegram-good-0000004444"
	goodDiscord   = "discord-good-00000000000005555"
)

// platformFake answers each platform's cheap auth call the way the real
// API does, accepting only the good token.
func platformFake(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /slack/auth.test", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		tok := r.Form.Get("token")
		if tok == "" {
			tok = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		}
		if tok != goodSlack {
			json.NewEncoder(w).Encode(map[string]any{"ok": false, "error": "invalid_auth"})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "team": "Acme", "user": "parley", "team_id": "T1", "user_id": "U1"})
	})
	mux.HandleFunc("/telegram/{bot}/getWebhookInfo", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": map[string]any{"url": "", "pending_update_count": 0}})
	})
	mux.HandleFunc("/telegram/{bot}/getMe", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("bot") != "bot"+goodTelegram {
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]any{"ok": false, "error_code": 401, "description": "Unauthorized"})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": map[string]any{"id": 1, "is_bot": true, "first_name": "Parley", "username": "parley_bot"}})
	})
	mux.HandleFunc("GET /discord/api/v9/users/@me", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bot "+goodDiscord {
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]any{"message": "401: Unauthorized", "code": 0})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "1", "username": "parley", "bot": true})
	})
	mux.HandleFunc("GET /discord/api/v9/applications/@me", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bot "+goodDiscord {
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]any{"message": "401: Unauthorized", "code": 0})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "1", "name": "Parley", "flags": 1 << 19})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestDoctor(t *testing.T) {
	llm := llmtest.NewServer(llmtest.WithAPIKey(goodOpenAI), llmtest.WithResponder(capableModel))
	defer llm.Close()
	ant := llmtest.NewServer(llmtest.WithAPIKey(goodAnthropic), llmtest.WithResponder(capableModel))
	defer ant.Close()
	plat := platformFake(t)

	env := func(openai, anthropic, slack, telegram, discord string) map[string]string {
		return map[string]string{
			"PARLEY_DATA_DIR":               filepath.Join(t.TempDir(), "data"),
			"XDG_CONFIG_HOME":               t.TempDir(),
			"PARLEY_LLM_OPENAI_API_KEY":     openai,
			"PARLEY_LLM_OPENAI_BASE_URL":    llm.OpenAIBaseURL(),
			"PARLEY_LLM_ANTHROPIC_API_KEY":  anthropic,
			"PARLEY_LLM_ANTHROPIC_BASE_URL": ant.AnthropicBaseURL(),
			"PARLEY_SLACK_ENABLED":          "true",
			"PARLEY_SLACK_BOT_TOKEN":        slack,
			"PARLEY_SLACK_APP_TOKEN":        "xapp-1-app-token-00000000",
			"PARLEY_SLACK_API_URL":          plat.URL + "/slack/",
			"PARLEY_TELEGRAM_ENABLED":       "true",
			"PARLEY_TELEGRAM_TOKEN":         telegram,
			"PARLEY_TELEGRAM_API_URL":       plat.URL + "/telegram",
			"PARLEY_DISCORD_ENABLED":        "true",
			"PARLEY_DISCORD_TOKEN":          discord,
			"PARLEY_DISCORD_API_URL":        plat.URL + "/discord/api/v9",
		}
	}
	tests := []struct {
		name     string
		env      map[string]string
		wantCode int
		want     []string
	}{
		{
			name: "all good",
			env:  env(goodOpenAI, goodAnthropic, goodSlack, goodTelegram, goodDiscord),
			want: []string{
				"OK    config", "OK    database", "OK    model      openai/gpt-4.1-mini", "OK    shell      disabled",
				"OK    web_fetch  public addresses only", "OK    web_search off (tools.web_search.backend is not set)", "OK    provider anthropic key sk-…2222 at ", "OK    provider openai key sk-…1111 at ",
				"OK    slack      workspace Acme as @parley", "OK    telegram   bot @parley_bot, no webhook (polling)",
				"OK    discord    bot @parley, message content intent on",
				"OK    judge      memory.guard_model openai/gpt-4.1-mini judged a known-safe entry safe and a known-unsafe one unsafe",
				"OK    tools      llm.model openai/gpt-4.1-mini called add_numbers(2, 3) and answered after its result", "all checks passed",
			},
		},
		{
			name: "web_fetch opened on purpose",
			env: func() map[string]string {
				e := env(goodOpenAI, goodAnthropic, goodSlack, goodTelegram, goodDiscord)
				e["PARLEY_TOOLS_WEB_FETCH_ALLOW_HOSTS"] = "wiki.intra, 10.1.0.0/16"
				return e
			}(),
			want: []string{"OK    web_fetch  public addresses, and on purpose wiki.intra, 10.1.0.0/16", "all checks passed"},
		},
		{
			name:     "all rejected",
			env:      env("sk-openai-bad-00000000000009999", "sk-ant-bad-000000000000008888", "xoxb-bad-0000000000000007777", "999:telegram-bad-00000000006666", "discord-bad-0000000000000005555x"),
			wantCode: 1,
			want: []string{
				"FAIL  provider openai the OpenAI API key was rejected (401)",
				"FAIL  provider anthropic the Anthropic API key was rejected (401)",
				"FAIL  slack", "invalid_auth",
				"FAIL  telegram", "Unauthorized",
				"FAIL  discord", "401",
				"FAIL  judge      memory.guard_model openai/gpt-4.1-mini could not be asked", "FAIL  tools", "7 check(s) failed",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			e := &environment{
				stdin: strings.NewReader(""), stdout: &out, stderr: &errOut,
				lookupEnv: func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok },
			}
			code := execute(t.Context(), e, []string{"doctor"})
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d", code, tt.wantCode)
			}
			got := out.String() + errOut.String()
			t.Log("\n" + got)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("doctor output lacks %q:\n%s", w, got)
				}
			}
			for k, v := range tt.env {
				if strings.Contains(k, "KEY") || strings.Contains(k, "TOKEN") {
					if strings.Contains(got, v) {
						t.Errorf("doctor printed the secret %s:\n%s", k, got)
					}
				}
			}
		})
	}
}

func TestDoctorBadDatabase(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "parley.db"), bytes.Repeat([]byte("garbage!"), 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	env := map[string]string{"PARLEY_DATA_DIR": dir, "XDG_CONFIG_HOME": t.TempDir()}
	e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	if code := execute(t.Context(), e, []string{"doctor"}); code != 1 {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{"FAIL  database", filepath.Join(dir, "parley.db"), "FAIL  model      no LLM configured"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, out.String())
		}
	}
}

// TestDoctorDiscordMessageContent: doctor fails, saying where to switch it
// on, when the application's Message Content intent is off.
func TestDoctorDiscordMessageContent(t *testing.T) {
	for _, tt := range []struct {
		flags int
		want  string
	}{
		{1 << 19, "OK    discord    bot @Parley, message content intent on"},
		{1 << 18, "OK    discord    bot @Parley, message content intent on"},
		{0, "FAIL  discord    bot @Parley: the Message Content intent is off"},
	} {
		t.Run(fmt.Sprint(tt.flags), func(t *testing.T) {
			dc := discordtest.NewServer(discordtest.WithApplicationFlags(tt.flags))
			defer dc.Close()
			cfg := map[string]string{
				"PARLEY_DATA_DIR":            filepath.Join(t.TempDir(), "data"),
				"XDG_CONFIG_HOME":            t.TempDir(),
				"PARLEY_LLM_OPENAI_API_KEY":  "sk-x",
				"PARLEY_LLM_OPENAI_BASE_URL": "http://127.0.0.1:1/v1",
				"PARLEY_DISCORD_ENABLED":     "true",
				"PARLEY_DISCORD_TOKEN":       dc.Token(),
				"PARLEY_DISCORD_API_URL":     dc.APIURL(),
			}
			var out bytes.Buffer
			e := &environment{
				stdin: strings.NewReader(""), stdout: &out, stderr: &out,
				lookupEnv: func(k string) (string, bool) { v, ok := cfg[k]; return v, ok },
			}
			execute(t.Context(), e, []string{"doctor"})
			if !strings.Contains(out.String(), tt.want) {
				t.Fatalf("doctor printed\n%s\nwant a line %q", out.String(), tt.want)
			}
		})
	}
}

// TestDoctorNeverPrintsSecrets: a base URL with credentials is printed
// without them, and a key pasted into the wrong field is not echoed by
// the validation error either.
func TestDoctorNeverPrintsSecrets(t *testing.T) {
	llm := llmtest.NewServer(llmtest.WithAPIKey(goodOpenAI), llmtest.WithResponder(capableModel))
	defer llm.Close()
	withCreds := strings.Replace(llm.OpenAIBaseURL(), "http://", "http://parley:hunter2-PASSWORD@", 1) + "?api_key=sk-query-secret-123456"
	tests := []struct {
		name    string
		env     map[string]string
		secrets []string
		want    string
	}{
		{"credentials in the base URL", map[string]string{
			"PARLEY_LLM_OPENAI_API_KEY": goodOpenAI, "PARLEY_LLM_OPENAI_BASE_URL": withCreds,
		}, []string{"hunter2-PASSWORD", "sk-query-secret-123456"}, "redacted@"},
		{"a token pasted as the listen address", map[string]string{
			"PARLEY_LLM_OPENAI_API_KEY": goodOpenAI, "PARLEY_HTTP_LISTEN": "xoxb-1234567890-abcdefghijklmnop",
		}, []string{"xoxb-1234567890-abcdefghijklmnop"}, "http.listen: \"(a value that looks like a secret; not shown)\""},
		{"a Telegram token pasted as the webhook URL", map[string]string{
			"PARLEY_LLM_OPENAI_API_KEY": goodOpenAI, "PARLEY_TELEGRAM_WEBHOOK_URL": "123456789:AAH-abcdefghijklmnopqrstuvwxyz01234",
		}, []string{"AAH-abcdefghijklmnopqrstuvwxyz01234"}, "telegram.webhook_url:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"PARLEY_DATA_DIR": filepath.Join(t.TempDir(), "data"), "XDG_CONFIG_HOME": t.TempDir()}
			for k, v := range tt.env {
				env[k] = v
			}
			var out bytes.Buffer
			e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out,
				lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
			execute(t.Context(), e, []string{"doctor"})
			got := out.String()
			for _, s := range tt.secrets {
				if strings.Contains(got, s) {
					t.Errorf("printed the secret %q:\n%s", s, got)
				}
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("output lacks %q:\n%s", tt.want, got)
			}
		})
	}
}

// TestDoctorShell: doctor says which protection shell commands get,
// what they may reach and their workspace budget; it fails when the
// enabled tool would refuse every command, and warns when commands get
// the host's whole network.
func TestDoctorShell(t *testing.T) {
	on := config.Shell{Enabled: true, Network: "none", WorkspaceMB: 200}
	off := config.Shell{Network: "none", WorkspaceMB: 200}
	all := config.Shell{Enabled: true, Network: "all", WorkspaceMB: 200}
	const ns = "netns"
	tests := []struct {
		cfg      config.Shell
		p        shell.Protection
		want     string
		wantErr  bool
		wantWarn bool
	}{
		{on, shell.Protection{LandlockABI: 7, NetNS: ns}, "sandboxed (Landlock ABI 7); network: none (own namespace, netns); workspace budget 200 MiB (tools.shell.workspace_mb)", false, false},
		{on, shell.Protection{LandlockABI: 4, NetNS: ns}, "sandboxed (Landlock ABI 4); this ABI cannot deny signalling Parley's processes", false, false},
		{on, shell.Protection{Unsandboxed: true, NetNS: ns}, "unsandboxed by config (tools.shell.unsandboxed)", false, false},
		{on, shell.Protection{NetNS: ns}, "refused: no Landlock on this kernel", true, false},
		{on, shell.Protection{LandlockABI: 7}, "refused: tools.shell.network is none, but this host cannot give commands a network namespace", true, false},
		{on, shell.Protection{LandlockABI: 7, Network: shell.NetworkPublic, NetNS: "userns+netns"}, "sandboxed (Landlock ABI 7); network: public addresses only", false, false},
		{all, shell.Protection{LandlockABI: 7, Network: shell.NetworkAll}, "sandboxed (Landlock ABI 7); network: all (the host's); workspace budget 200 MiB (tools.shell.workspace_mb); tools.shell.network is all: commands reach everything", false, true},
		{off, shell.Protection{}, "disabled; if enabled: refused", false, false},
		{off, shell.Protection{LandlockABI: 7, NetNS: ns}, "disabled; if enabled: sandboxed (Landlock ABI 7)", false, false},
	}
	for _, tt := range tests {
		got, err := shellCheck(tt.cfg, tt.p)
		var warn warning
		isWarn := errors.As(err, &warn)
		if err != nil {
			got = err.Error()
		}
		if isWarn != tt.wantWarn || (err != nil && !isWarn) != tt.wantErr || !strings.HasPrefix(got, tt.want) {
			t.Errorf("shellCheck(%+v, %+v) = %q, %v; want %q, error %v, warning %v", tt.cfg, tt.p, got, err, tt.want, tt.wantErr, tt.wantWarn)
		}
	}

	// The real probe, through the command: this host has Landlock and
	// network namespaces.
	if p := shell.Probe(false, shell.NetworkNone); !p.Sandboxed() || p.Refused() {
		t.Skip("no Landlock or no network namespaces on this host")
	}
	for _, tt := range []struct{ network, want string }{
		{"none", "OK    shell      sandboxed (Landlock ABI "},
		{"all", "WARN  shell      sandboxed (Landlock ABI "},
	} {
		var out bytes.Buffer
		env := map[string]string{"PARLEY_DATA_DIR": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir(),
			"PARLEY_TOOLS_SHELL_ENABLED": "true", "PARLEY_TOOLS_SHELL_NETWORK": tt.network}
		e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out,
			lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
		execute(t.Context(), e, []string{"doctor"})
		if !strings.Contains(out.String(), tt.want) || !strings.Contains(out.String(), "network: "+tt.network) {
			t.Errorf("doctor printed\n%s\nwant %q and the network mode %s", out.String(), tt.want, tt.network)
		}
		if strings.Contains(out.String(), "FAIL  shell") {
			t.Errorf("a warning counted as a failure:\n%s", out.String())
		}
	}
}

// TestDoctorDisk: doctor shows data_dir's free space against
// store.min_free_mb and fails below it.
func TestDoctorDisk(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		floorMB int
		free    uint64
		want    string
		wantErr bool
	}{
		{"above", 256, 20 << 30, "20 GiB free in " + dir + "; floor 256 MiB (store.min_free_mb)", false},
		{"below", 256, 100 << 20, "100 MiB free, below the floor of 256 MiB (store.min_free_mb)", true},
		{"off", 0, 100 << 20, "100 MiB free in " + dir + "; no floor (store.min_free_mb: 0)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{DataDir: dir, Store: config.Store{MinFreeMB: tt.floorMB}}
			got, err := diskCheck(cfg, func(string) (uint64, error) { return tt.free, nil })
			if err != nil {
				got = err.Error()
			}
			if (err != nil) != tt.wantErr || !strings.Contains(got, tt.want) {
				t.Errorf("diskCheck = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

// TestDoctorKB: the doctor says how the knowledge base searches, asks the
// embeddings endpoint once when one is configured, and checks kb.dirs.
func TestDoctorKB(t *testing.T) {
	llm := llmtest.NewServer(llmtest.WithAPIKey(goodOpenAI), llmtest.WithResponder(capableModel))
	defer llm.Close()
	docs := t.TempDir()
	tests := []struct {
		name     string
		extra    map[string]string
		embedErr bool
		wantCode int
		want     string
	}{
		{name: "keyword-only", want: "OK    kb         keyword-only search (FTS5, BM25): set kb.embedding_model to search by meaning too; 0 document(s)"},
		{name: "hybrid", extra: map[string]string{"PARLEY_KB_EMBEDDING_MODEL": "openai/text-embedding-3-small", "PARLEY_KB_DIRS": docs},
			want: "OK    kb         hybrid search: keywords (FTS5, BM25) and meaning (openai/text-embedding-3-small); 0 document(s)"},
		{name: "embeddings endpoint down", extra: map[string]string{"PARLEY_KB_EMBEDDING_MODEL": "openai/text-embedding-3-small"}, embedErr: true,
			wantCode: 1, want: "FAIL  kb         kb.embedding_model openai/text-embedding-3-small: OpenAI server error (500)"},
		{name: "missing folder", extra: map[string]string{"PARLEY_KB_DIRS": filepath.Join(docs, "nope")},
			wantCode: 1, want: "FAIL  kb         kb.dirs: " + filepath.Join(docs, "nope") + " is not a readable folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{
				"PARLEY_DATA_DIR":            filepath.Join(t.TempDir(), "data"),
				"XDG_CONFIG_HOME":            t.TempDir(),
				"PARLEY_LLM_OPENAI_API_KEY":  goodOpenAI,
				"PARLEY_LLM_OPENAI_BASE_URL": llm.OpenAIBaseURL(),
			}
			maps.Copy(env, tt.extra)
			if tt.embedErr {
				llm.EnqueueEmbeddings(llmtest.Status(http.StatusInternalServerError))
			}
			var out bytes.Buffer
			e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out,
				lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
			if code := execute(t.Context(), e, []string{"doctor"}); code != tt.wantCode {
				t.Errorf("exit %d, want %d\n%s", code, tt.wantCode, out.String())
			}
			if !strings.Contains(out.String(), tt.want) {
				t.Errorf("doctor output lacks %q:\n%s", tt.want, out.String())
			}
		})
	}
}

// TestDoctorReminders: doctor counts what waits, names the next due and
// what is overdue (Parley was not running to deliver it).
func TestDoctorReminders(t *testing.T) {
	llm := llmtest.NewServer(llmtest.WithAPIKey(goodOpenAI), llmtest.WithResponder(capableModel))
	defer llm.Close()
	data := filepath.Join(t.TempDir(), "data")
	env := map[string]string{
		"PARLEY_DATA_DIR":            data,
		"XDG_CONFIG_HOME":            t.TempDir(),
		"PARLEY_LLM_OPENAI_API_KEY":  goodOpenAI,
		"PARLEY_LLM_OPENAI_BASE_URL": llm.OpenAIBaseURL(),
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(t.Context(), filepath.Join(data, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	next := time.Date(2099, 1, 2, 9, 0, 0, 0, time.UTC)
	for _, at := range []time.Time{next, time.Now().Add(-time.Hour)} {
		if _, err := db.AddItem(t.Context(), remind.Item{Kind: remind.KindReminder, Scope: "space:slack:T1", Owner: "slack:U1",
			Place: remind.Place{Platform: "slack", Chat: "C1"}, Text: "x", Zone: "UTC", Next: at}, 0); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	run := func(extra map[string]string) string {
		t.Helper()
		e2 := maps.Clone(env)
		maps.Copy(e2, extra)
		var out bytes.Buffer
		e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out,
			lookupEnv: func(k string) (string, bool) { v, ok := e2[k]; return v, ok }}
		execute(t.Context(), e, []string{"doctor"})
		return out.String()
	}
	if got := run(nil); !strings.Contains(got, "OK    reminders  2 active, 0 paused; next due ") || !strings.Contains(got, "; 1 overdue") {
		t.Errorf("doctor:\n%s", got)
	}
	if got := run(map[string]string{"PARLEY_REMINDERS_ENABLED": "false"}); !strings.Contains(got, "OK    reminders  off") {
		t.Errorf("doctor, reminders off:\n%s", got)
	}
}

// capableModel answers the doctor's live checks as a capable model does:
// the memory judge in the structured form (unsafe for the instruction),
// the tool check with a call to add_numbers, then an answer.
func capableModel(r llmtest.Request) llmtest.Reply {
	switch {
	case r.FormatName() == guard.JudgeFormat.Name && strings.Contains(r.LastUserText(), "ignore your previous instructions"):
		return judgeAnswer(r, `{"verdict":"unsafe","reason":"instructs the assistant"}`)
	case r.FormatName() == guard.JudgeFormat.Name:
		return judgeAnswer(r, `{"verdict":"safe","reason":""}`)
	case r.LastText("tool") != "" || r.Path == "/v1/messages" && strings.Contains(string(r.Body), `"tool_result"`):
		return llmtest.Text("2 + 3 = 5.")
	case strings.Contains(string(r.Body), "add_numbers"):
		return llmtest.ToolCall("call_1", "add_numbers", `{"a":2,"b":3}`)
	}
	return llmtest.Text("ok")
}

// judgeAnswer is a structured verdict in the request's protocol: JSON text
// (OpenAI), the forced tool's input (Anthropic).
func judgeAnswer(r llmtest.Request, verdict string) llmtest.Reply {
	if r.Path == "/v1/messages" {
		return llmtest.ToolCall("toolu_1", guard.JudgeFormat.Name, verdict)
	}
	return llmtest.Text(verdict)
}

// TestDoctorJudgeAndTools: doctor asks the memory judge about a known-safe
// and a known-unsafe entry, and makes one tool-call round trip, and fails
// naming the setting to change when the model cannot.
func TestDoctorJudgeAndTools(t *testing.T) {
	plain := func(r llmtest.Request) llmtest.Reply { // ignores the format and the tools
		return llmtest.Text("Sure! Happy to help with that.")
	}
	yesMan := func(r llmtest.Request) llmtest.Reply {
		if r.FormatName() == guard.JudgeFormat.Name {
			return llmtest.Text(`{"verdict":"safe","reason":""}`)
		}
		return capableModel(r)
	}
	badArgs := func(r llmtest.Request) llmtest.Reply {
		if strings.Contains(string(r.Body), "add_numbers") && r.LastText("tool") == "" {
			return llmtest.ToolCall("call_1", "add_numbers", `{"a":"two"}`)
		}
		return capableModel(r)
	}
	for _, tt := range []struct {
		name      string
		responder func(llmtest.Request) llmtest.Reply
		extra     map[string]string
		wantCode  int
		want      []string
	}{
		{name: "capable", responder: capableModel, want: []string{"OK    judge", "OK    tools", "all checks passed"}},
		{name: "anthropic judge", responder: capableModel, extra: map[string]string{"PARLEY_MEMORY_GUARD_MODEL": "anthropic/claude-haiku-4-5"},
			want: []string{"OK    judge      memory.guard_model anthropic/claude-haiku-4-5 judged a known-safe entry safe", "all checks passed"}},
		{name: "cannot judge, cannot call tools", responder: plain, wantCode: 1, want: []string{
			"FAIL  judge      memory.guard_model openai/gpt-4.1-mini cannot judge, so every memory write is refused: the memory judge (memory.guard_model) gave no clear verdict",
			"fix: set memory.guard_model (or PARLEY_MEMORY_GUARD_MODEL) to a model",
			`FAIL  tools      llm.model openai/gpt-4.1-mini did not call the add_numbers tool (it answered "Sure! Happy to help with that."); fix: set llm.model (or PARLEY_LLM_MODEL)`,
		}},
		{name: "judges everything safe", responder: yesMan, wantCode: 1, want: []string{
			"FAIL  judge      memory.guard_model openai/gpt-4.1-mini let an instruction to the assistant through", "fix: set memory.guard_model", "OK    tools"}},
		{name: "wrong arguments", responder: badArgs, wantCode: 1, want: []string{`FAIL  tools      llm.model openai/gpt-4.1-mini called add_numbers with {"a":"two"}`}},
		{name: "judge off", responder: capableModel, extra: map[string]string{"PARLEY_MEMORY_GUARD_MODEL": "off"},
			want: []string{"OK    judge      off (memory.guard_model: off)", "all checks passed"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.NewServer(llmtest.WithResponder(tt.responder))
			defer srv.Close()
			env := map[string]string{
				"PARLEY_DATA_DIR":               filepath.Join(t.TempDir(), "data"),
				"XDG_CONFIG_HOME":               t.TempDir(),
				"PARLEY_LLM_OPENAI_API_KEY":     goodOpenAI,
				"PARLEY_LLM_OPENAI_BASE_URL":    srv.OpenAIBaseURL(),
				"PARLEY_LLM_ANTHROPIC_API_KEY":  goodAnthropic,
				"PARLEY_LLM_ANTHROPIC_BASE_URL": srv.AnthropicBaseURL(),
			}
			maps.Copy(env, tt.extra)
			var out bytes.Buffer
			e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out,
				lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
			if code := execute(t.Context(), e, []string{"doctor"}); code != tt.wantCode {
				t.Errorf("exit %d, want %d", code, tt.wantCode)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("doctor's output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}
