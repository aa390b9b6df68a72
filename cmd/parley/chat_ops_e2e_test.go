package main

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm/llmtest"
)

// TestTerminalChatServesOps: with http.listen set, the terminal chat
// serves /healthz, /readyz and /metrics as a platform run does, and stops
// serving when the person leaves.
func TestTerminalChatServesOps(t *testing.T) {
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	addr := freeAddr(t)
	env := map[string]string{
		"PARLEY_DATA_DIR": filepath.Join(t.TempDir(), "data"), "XDG_CONFIG_HOME": t.TempDir(), "USER": "ana",
		"PARLEY_LLM_OPENAI_API_KEY": "sk-test", "PARLEY_LLM_OPENAI_BASE_URL": model.OpenAIBaseURL(), "PARLEY_LLM_MODEL": "openai/gpt-test",
		"PARLEY_HTTP_LISTEN": addr,
	}
	in, typed := io.Pipe()
	var out strings.Builder
	e := &environment{stdin: in, stdout: &out, stderr: io.Discard, lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	done := make(chan int, 1)
	go func() { done <- execute(t.Context(), e, []string{"chat"}) }()

	// The listener opens as the chat starts: asked again until it answers.
	ctx := waitCtx(t)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("/healthz never answered: %v", err)
		}
	}
	if code, body := get(t, "http://"+addr+"/metrics"); code != http.StatusOK || !strings.Contains(body, "parley_") {
		t.Fatalf("/metrics: %d\n%s", code, body)
	}
	if code, body := get(t, "http://"+addr+"/readyz"); code != http.StatusOK || !strings.Contains(body, "store: ok") {
		t.Fatalf("/readyz: %d %q", code, body)
	}
	typed.Close() // the person leaves
	if code := <-done; code != 0 {
		t.Fatalf("chat exited %d", code)
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Fatal("still served after the chat ended")
	}
}
