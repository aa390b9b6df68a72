package main

// Slack's HTTP mode and Telegram's webhook together: both receive on the
// one http.listen, through the whole runtime.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

func TestSlackHTTPAndTelegramWebhookShareTheListener(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	slk := slacktest.NewServer()
	t.Cleanup(slk.Close)
	slk.AddUser("U1", "ana")
	slk.AddChannel("C1", "general", slacktest.Public)
	tg := telegramtest.NewServer()
	t.Cleanup(tg.Close)
	tg.AddUser(tgAna, "Ana", "ana")
	model := llmtest.NewServer()
	t.Cleanup(model.Close)
	const signing = "slack-signing-secret"
	hook := "http://" + addr + "/telegram/hook"
	cfg := platformConfig(t, filepath.Join(t.TempDir(), "data"), model, map[string]string{
		"PARLEY_HTTP_LISTEN":                 addr,
		"PARLEY_SLACK_ENABLED":               "true",
		"PARLEY_SLACK_MODE":                  "http",
		"PARLEY_SLACK_BOT_TOKEN":             slk.BotToken(),
		"PARLEY_SLACK_SIGNING_SECRET":        signing,
		"PARLEY_SLACK_API_URL":               slk.URL + "/",
		"PARLEY_TELEGRAM_ENABLED":            "true",
		"PARLEY_TELEGRAM_TOKEN":              tg.Token(),
		"PARLEY_TELEGRAM_API_URL":            tg.URL,
		"PARLEY_TELEGRAM_MODE":               "webhook",
		"PARLEY_TELEGRAM_WEBHOOK_URL":        hook,
		"PARLEY_ACCESS_TELEGRAM_ALLOW_USERS": strconv.FormatInt(tgAna, 10),
	})
	t.Cleanup(startPlatforms(t, cfg))
	ctx := waitCtx(t)

	// Telegram, by webhook.
	if err := tg.WaitFor(ctx, func() bool { return tg.WebhookURL() == hook }); err != nil {
		t.Fatalf("no webhook registered: %v", err)
	}
	model.Enqueue(llmtest.Text("Hello on Telegram."))
	tg.Post(telegramtest.Incoming{Chat: tgAna, From: tgAna, Text: "hi"})
	if err := tg.WaitFor(ctx, func() bool {
		for _, m := range tg.BotMessages(tgAna) {
			if m.Visible == "Hello on Telegram." {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no Telegram answer: %v", err)
	}

	// Slack, a signed Events API request to the same address.
	model.Enqueue(llmtest.Text("Hello on Slack."))
	ts := "1700000000.000100"
	event := `{"token":"x","team_id":"` + slk.TeamID() + `","api_app_id":"A1","type":"event_callback","event_id":"Ev1","event_time":1700000000,` +
		`"event":{"type":"app_mention","user":"U1","text":"<@` + slk.BotUserID() + `> hi","ts":"` + ts + `","channel":"C1","event_ts":"` + ts + `"}}`
	stamp := strconv.FormatInt(time.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(signing))
	fmt.Fprintf(mac, "v0:%s:%s", stamp, event)
	var code int
	// Slack retries until the app answers; so does this, while Slack's
	// endpoint is being registered.
	for code != http.StatusOK && ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/slack/events", strings.NewReader(event))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Slack-Request-Timestamp", stamp)
		req.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(mac.Sum(nil)))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		code = resp.StatusCode
	}
	if err := slk.WaitFor(ctx, func() bool {
		for _, m := range slk.Thread("C1", ts) {
			if m.BotID != "" && m.Visible() == "Hello on Slack." && !m.Streaming {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no Slack answer: %v; thread %+v", err, slk.Thread("C1", ts))
	}
}
