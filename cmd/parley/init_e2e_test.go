package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/cmd/parley/internal/platforms"
)

// initWorld is what parley init is tried against: the Telegram and model
// fakes, where the config goes, and the environment. Where the fakes are
// and where data goes is not init's business, so it comes from the
// environment, for init's checks and for the run alike.
func initWorld(t *testing.T) (*telegramtest.Server, *llmtest.Server, string, func(string) (string, bool)) {
	t.Helper()
	tg := telegramtest.NewServer(telegramtest.WithoutRateLimits())
	t.Cleanup(tg.Close)
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	dir := t.TempDir()
	env := map[string]string{
		"PARLEY_TELEGRAM_API_URL":    tg.URL,
		"PARLEY_LLM_OPENAI_BASE_URL": model.OpenAIBaseURL(),
		"PARLEY_DATA_DIR":            filepath.Join(dir, "data"),
		"XDG_CONFIG_HOME":            t.TempDir(),
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	return tg, model, filepath.Join(dir, "config.yaml"), lookup
}

// TestInitThenAnswer: parley init, with nothing asked (--yes), checks the
// Telegram token and the model with one live call each against the
// fakes, writes a config readable by its owner alone with the operator
// as admin, and Parley started on that file answers a message. A token
// the platform refuses writes nothing.
func TestInitThenAnswer(t *testing.T) {
	tg, model, path, lookup := initWorld(t)
	tg.AddUser(tgAna, "Ana", "ana")
	runInit := func(token string) (int, string) {
		var out bytes.Buffer
		e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out, lookupEnv: lookup}
		code := execute(t.Context(), e, []string{"--config", path, "init", "--yes", "--platform", "telegram", "--telegram-token", token,
			"--model", "openai/gpt-test", "--openai-api-key", "sk-test", "--admin", "telegram:101"})
		return code, out.String()
	}

	if code, out := runInit("999:refused"); code != 1 || !strings.Contains(out, "FAIL  telegram") || strings.Contains(out, "999:refused") {
		t.Fatalf("a refused token: exit %d, output:\n%s", code, out)
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("a failed init wrote the config")
	}
	code, out := runInit(tg.Token())
	if code != 0 || !strings.Contains(out, "OK    telegram") || !strings.Contains(out, "OK    provider openai") || !strings.Contains(out, "Next:") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	if strings.Contains(out, tg.Token()) || strings.Contains(out, "sk-test") {
		t.Fatalf("a secret was printed:\n%s", out)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("config %v, mode %v; want 0600", err, info.Mode().Perm())
	}
	if code, out := runInit(tg.Token()); code != 1 || !strings.Contains(out, "exists") {
		t.Fatalf("a second init without --force: exit %d, %s", code, out)
	}

	cfg, err := config.Load(config.LoadOptions{Path: path, Env: lookup, Platforms: platforms.All()})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.LLM.Model != "openai/gpt-test" || len(cfg.Access.Admins) != 1 || cfg.Access.Admins[0] != "telegram:101" {
		t.Fatalf("the config init wrote: model %q, admins %q", cfg.LLM.Model, cfg.Access.Admins)
	}
	w := &tgWorld{tg: tg, model: model, instance: startInstance(t, cfg)}
	model.Enqueue(llmtest.Text("Hello, Ana."))
	tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "hi"})
	w.botSays(t, waitCtx(t), tgAna, 0, "Hello, Ana.")
}
