package main

// Named model servers end to end: two llmtest fakes as two providers, a
// hosted one that fails and a local one the turn falls back to.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/cmd/parley/internal/platforms"
)

// The hosted provider's secrets: neither may ever be printed.
const (
	e2eHostedKey = "sk-hosted-e2e-0123456789abcdefQ1"
	e2eGateway   = "gw-e2e-0123456789abcdefQ2"
)

// twoServers writes a configuration naming hosted and local, the model on
// hosted and the fallback on local, and returns its path and environment.
func twoServers(t *testing.T, hosted, local *llmtest.Server) (path string, env map[string]string) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "config.yaml")
	yaml := fmt.Sprintf(`llm:
  model: hosted/gpt-4.1-mini
  fallback: [local/llama3.2]
memory:
  guard_model: "off"
providers:
  hosted:
    kind: openai
    base_url: %s
    api_key_env: HOSTED_KEY
    headers: {X-Gateway-Token: %s}
    timeout: 90s
  local:
    kind: openai
    base_url: %s
    headers: {X-Local-Tag: ollama-box}
`, hosted.OpenAIBaseURL(), e2eGateway, local.OpenAIBaseURL())
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, map[string]string{
		"HOSTED_KEY":      e2eHostedKey,
		"PARLEY_DATA_DIR": filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "xdg"),
	}
}

// TestProvidersFallBackToLocal: the hosted provider rejects the key, or
// fails with server errors past the retries; the person gets the local
// server's answer. Each fake saw its own model's name, without the
// provider's, and its own headers; the local one no key.
func TestProvidersFallBackToLocal(t *testing.T) {
	retryNow := func() llmtest.Reply { return llmtest.Status(500).WithHeader("Retry-After-Ms", "1") }
	tests := []struct {
		name   string
		hosted []llmtest.Reply
	}{
		{"key rejected", []llmtest.Reply{llmtest.Status(401)}},
		{"server errors", []llmtest.Reply{retryNow(), retryNow(), retryNow()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hosted, local := llmtest.NewServer(), llmtest.NewServer()
			defer hosted.Close()
			defer local.Close()
			hosted.Enqueue(tt.hosted...)
			local.Enqueue(llmtest.Text("Hello from the local model."))

			path, env := twoServers(t, hosted, local)
			cfg, err := config.Load(config.LoadOptions{Path: path, Platforms: platforms.All(),
				Env: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
			if err != nil {
				t.Fatal(err)
			}
			fake := newWatched()
			stop := start(t, cfg, fake)
			defer stop()
			if err := fake.InjectMessage(t.Context(), mention("T1:C1:1", "ana", "hello?")); err != nil {
				t.Fatal(err)
			}
			fake.waitFor(t, thread, "the local answer", func(ms []bottest.Msg) bool {
				return len(ms) > 0 && ms[len(ms)-1].Text == "Hello from the local model."
			})

			if got, want := len(hosted.Requests()), len(tt.hosted); got != want {
				t.Errorf("hosted saw %d requests, want %d", got, want)
			}
			for _, r := range hosted.Requests() {
				if m := model(t, r); m != "gpt-4.1-mini" {
					t.Errorf("hosted was asked for model %q", m)
				}
				if r.Header.Get("Authorization") != "Bearer "+e2eHostedKey || r.Header.Get("X-Gateway-Token") != e2eGateway {
					t.Errorf("hosted's key or header did not arrive: %v", r.Header)
				}
			}
			reqs := local.Requests()
			if len(reqs) != 1 {
				t.Fatalf("local saw %d requests, want 1", len(reqs))
			}
			if m := model(t, reqs[0]); m != "llama3.2" {
				t.Errorf("local was asked for model %q", m)
			}
			if reqs[0].Header.Get("X-Local-Tag") != "ollama-box" || reqs[0].Header.Get("X-Gateway-Token") != "" {
				t.Errorf("local's headers: %v", reqs[0].Header)
			}
			if a := reqs[0].Header.Get("Authorization"); a != "" {
				t.Errorf("local, which takes no key, was sent Authorization %q", a)
			}
			if !strings.Contains(reqs[0].LastUserText(), "hello?") {
				t.Errorf("local was not sent the message: %s", reqs[0].Body)
			}
		})
	}
}

// model is the model a request asked for.
func model(t *testing.T, r llmtest.Request) string {
	t.Helper()
	var body struct {
		Model string `json:"model"`
	}
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return body.Model
}

// TestProvidersDoctor: doctor checks each provider by name with one live
// call, says where its key came from and which headers it sends, and never
// prints the key or a header's value.
func TestProvidersDoctor(t *testing.T) {
	hosted := llmtest.NewServer(llmtest.WithAPIKey(e2eHostedKey), llmtest.WithResponder(capableModel))
	defer hosted.Close()
	local := llmtest.NewServer(llmtest.WithResponder(capableModel))
	defer local.Close()
	path, env := twoServers(t, hosted, local)

	for _, tt := range []struct {
		name     string
		key      string
		wantCode int
		want     []string
	}{
		{"all good", e2eHostedKey, 0, []string{
			"OK    provider hosted key sk-…efQ1 (from $HOSTED_KEY) at " + hosted.OpenAIBaseURL() + "; headers X-Gateway-Token; timeout 1m30s\n",
			"OK    provider local no key at " + local.OpenAIBaseURL() + "; headers X-Local-Tag\n",
			"OK    model      hosted/gpt-4.1-mini\n",
			"OK    tools      llm.model hosted/gpt-4.1-mini called add_numbers(2, 3)",
		}},
		{"key rejected", "sk-wrong-e2e-0123456789abcdef", 1, []string{
			"FAIL  provider hosted the OpenAI API key was rejected (401)",
			"OK    provider local no key at ",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := maps.Clone(env)
			env["HOSTED_KEY"] = tt.key
			var out bytes.Buffer
			e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out,
				lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
			if code := execute(t.Context(), e, []string{"doctor", "--config", path}); code != tt.wantCode {
				t.Errorf("exit %d, want %d", code, tt.wantCode)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("doctor output lacks %q:\n%s", w, out.String())
				}
			}
			for _, secret := range []string{tt.key, e2eGateway} {
				if strings.Contains(out.String(), secret) {
					t.Errorf("doctor printed a secret (%s…):\n%s", secret[:6], out.String())
				}
			}
		})
	}
}
