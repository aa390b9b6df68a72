package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/parleybot/parley/internal/secret"
)

// secretConfig loads a config with every secret field set, through the
// environment as an operator would.
func secretConfig(t *testing.T) (*Config, []string) {
	t.Helper()
	secrets := map[string]string{
		"PARLEY_LLM_OPENAI_API_KEY":       "sk-proj-OPENAISECRETVALUE0001",
		"PARLEY_LLM_ANTHROPIC_API_KEY":    "sk-ant-ANTHROPICSECRETVALUE02",
		"PARLEY_SLACK_BOT_TOKEN":          "xoxb-SLACKBOTSECRETVALUE0003",
		"PARLEY_SLACK_APP_TOKEN":          "xapp-SLACKAPPSECRETVALUE0004",
		"PARLEY_SLACK_SIGNING_SECRET":     "SLACKSIGNINGSECRETVALUE00005",
		"PARLEY_TELEGRAM_TOKEN":           "123456:TELEGRAMSECRETVALUE0006",
		"PARLEY_TELEGRAM_WEBHOOK_SECRET":  "TELEGRAMWEBHOOKSECRETVALUE08",
		"PARLEY_DISCORD_TOKEN":            "DISCORDSECRETVALUE.000000007",
		"PARLEY_STORE_POSTGRES_URL":       "postgres://parley:PGPASSWORD0009@db:5432/parley",
		"PARLEY_TOOLS_WEB_SEARCH_API_KEY": "BSAWEBSEARCHSECRETVALUE00010",
	}
	vars := map[string]string{
		"PARLEY_SLACK_ENABLED": "true", "PARLEY_TELEGRAM_ENABLED": "true", "PARLEY_DISCORD_ENABLED": "true",
		"PARLEY_LLM_OPENAI_BASE_URL": "https://user:URLPASSWORD@proxy.example/v1",
	}
	var want []string
	for k, v := range secrets {
		vars[k] = v
		want = append(want, v)
	}
	cfg, err := Load(hermetic(t, vars))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	// Every Secret field must be covered, or this test proves nothing.
	if n := countSecretFields(); n != len(secrets) {
		t.Fatalf("Config has %d Secret fields; this test sets %d", n, len(secrets))
	}
	return cfg, want
}

func countSecretFields() int {
	n := 0
	for _, l := range leavesOf() {
		if l.typ == reflect.TypeFor[secret.Secret]() {
			n++
		}
	}
	return n
}

func TestSecretsNeverPrinted(t *testing.T) {
	t.Parallel()
	cfg, secrets := secretConfig(t)

	var logText, logJSON bytes.Buffer
	slog.New(slog.NewTextHandler(&logText, nil)).Info("config", "cfg", cfg, "key", cfg.LLM.OpenAI.APIKey)
	slog.New(slog.NewJSONHandler(&logJSON, nil)).Info("config", "cfg", cfg, "llm", cfg.LLM)
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"Redacted":     cfg.Redacted(),
		"json":         string(js),
		"slog text":    logText.String(),
		"slog json":    logJSON.String(),
		"error":        fmt.Errorf("auth failed with %v", slackOf(cfg).BotToken).Error(),
		"Sprint field": fmt.Sprint(slackOf(cfg).SigningSecret),
	}
	// Every verb, including ones that make no sense for the type: fmt's
	// fallbacks for those must not print the raw string either.
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%T %[1]v"} {
		for name, value := range map[string]any{
			"*Config": cfg, "Config": *cfg, "LLM": cfg.LLM, "Provider": cfg.LLM.Anthropic,
			"Slack": *slackOf(cfg), "Telegram": *telegramOf(cfg), "Secret": discordOf(cfg).Token,
		} {
			outputs[verb+" "+name] = fmt.Sprintf(verb, value)
		}
	}
	for name, out := range outputs {
		for _, s := range secrets {
			if strings.Contains(out, s) {
				t.Errorf("%s output contains secret %q:\n%s", name, s, out)
			}
		}
	}
	// Redacted also hides a password in a URL, and keeps the rest of it.
	if r := outputs["Redacted"]; strings.Contains(r, "URLPASSWORD") || !strings.Contains(r, "proxy.example") {
		t.Errorf("Redacted() shows the URL password or lost the URL:\n%s", r)
	}
	// Reveal is the one way out.
	if got := cfg.LLM.OpenAI.APIKey.Reveal(); got != "sk-proj-OPENAISECRETVALUE0001" {
		t.Errorf("Reveal() = %q", got)
	}
}

func TestRedacted(t *testing.T) {
	t.Parallel()
	cfg := mustLoadYAML(t, "access:\n  admins: [telegram:42]\n", map[string]string{
		"PARLEY_TELEGRAM_TOKEN": "123456:TELEGRAMSECRETVALUE0006",
	})
	out := cfg.Redacted()
	for _, want := range []string{
		`data_dir: "./data"` + "\n",
		"llm.context_window: 0\n",
		"llm.openai.api_key: (not set)\n",
		"telegram.token: …0006\n",
		`access.admins: ["telegram:42"]` + "\n",
		"tools.web_fetch.enabled: true\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Redacted() lacks %q:\n%s", want, out)
		}
	}
	if got, want := strings.Count(out, "\n"), len(leavesOf()); got != want {
		t.Errorf("Redacted() has %d lines, want one per key (%d)", got, want)
	}
}
