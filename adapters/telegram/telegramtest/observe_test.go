package telegramtest_test

import (
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
)

// TestCallObserver: the observer hears of each call as it is recorded,
// with what Calls will show.
func TestCallObserver(t *testing.T) {
	var heard []telegramtest.Call
	srv, bot := newServer(t, telegramtest.WithCallObserver(func(c telegramtest.Call) { heard = append(heard, c) }))
	if _, err := send(t, bot, tgbotapi.Params{"chat_id": id(alice), "text": "hi"}); err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	if len(heard) != len(calls) || len(heard) == 0 || heard[len(heard)-1].Method != "sendMessage" ||
		heard[len(heard)-1].Params["chat_id"] != id(alice) {
		t.Fatalf("heard %+v, calls %+v", heard, calls)
	}
}
