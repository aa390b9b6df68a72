package telegram_test

import (
	"context"
	"strings"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/parleybot/parley/adapters/telegram"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
)

// TestCheckDescribesReceiving: doctor's line says whether Telegram holds
// a webhook, and how many updates wait on it.
func TestCheckDescribesReceiving(t *testing.T) {
	tg := telegramtest.NewServer()
	t.Cleanup(tg.Close)
	ctx := context.Background()
	got, err := telegram.Check(ctx, tg.Token(), tg.URL)
	if err != nil || got != "bot @parley_bot, no webhook (polling)" {
		t.Fatalf("Check = %q, %v", got, err)
	}
	bot, err := tgbotapi.NewBotAPIWithAPIEndpoint(tg.Token(), tg.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bot.MakeRequest("setWebhook", tgbotapi.Params{"url": "http://127.0.0.1:1/hook"}); err != nil {
		t.Fatal(err)
	}
	tg.Post(telegramtest.Incoming{Chat: 11, From: 11, Text: "waiting"})
	got, err = telegram.Check(ctx, tg.Token(), tg.URL)
	if err != nil || !strings.HasPrefix(got, "bot @parley_bot, webhook http://127.0.0.1:1/hook, 1 update(s) pending") {
		t.Fatalf("Check = %q, %v", got, err)
	}
	if _, err := telegram.Check(ctx, "999:wrong", tg.URL); err == nil || strings.Contains(err.Error(), "999:wrong") {
		t.Fatalf("Check with a wrong token: %v (it must fail without quoting the token)", err)
	}
}
