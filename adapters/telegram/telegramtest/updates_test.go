package telegramtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
)

func TestGetMe(t *testing.T) {
	srv, bot := newServer(t, telegramtest.WithBot(777, "other_bot"))
	if bot.Self.ID != 777 || bot.Self.UserName != "other_bot" || !bot.Self.IsBot {
		t.Fatalf("Self = %+v", bot.Self)
	}
	if srv.BotID() != 777 || srv.BotUsername() != "other_bot" {
		t.Fatalf("BotID/BotUsername = %d %q", srv.BotID(), srv.BotUsername())
	}
	if calls := srv.CallsTo("getMe"); len(calls) != 1 || calls[0].Status != http.StatusOK {
		t.Fatalf("getMe calls = %+v", calls)
	}
}

func TestLongPollBlocksThenReturnsPost(t *testing.T) {
	srv, bot := newServer(t)
	type result struct {
		ups []tgbotapi.Update
		err error
	}
	done := make(chan result, 1)
	go func() {
		ups, err := poll(bot, tgbotapi.Params{"timeout": "15"})
		done <- result{ups, err}
	}()
	waitFor(t, srv, "the poll to wait", srv.Polling)

	posted := srv.Post(telegramtest.Incoming{Chat: alice, From: alice, Text: "/start now"})
	var res result
	select {
	case res = <-done:
	case <-testCtx(t).Done():
		t.Fatal("getUpdates did not return after Post")
	}
	if res.err != nil {
		t.Fatal(res.err)
	}
	if len(res.ups) != 1 {
		t.Fatalf("got %d updates, want 1", len(res.ups))
	}
	u := res.ups[0]
	if u.UpdateID != 100001 || u.UpdateID != posted.UpdateID {
		t.Errorf("update_id = %d, posted %d, want 100001", u.UpdateID, posted.UpdateID)
	}
	m := u.Message
	if m == nil || m.MessageID != posted.MessageID || m.Text != "/start now" || m.From.ID != alice || m.Chat.Type != "private" {
		t.Fatalf("message = %+v", m)
	}
	if !m.IsCommand() || m.Command() != "start" || m.CommandArguments() != "now" {
		t.Errorf("command = %q %q, want start now", m.Command(), m.CommandArguments())
	}
}

func TestLongPollTimesOutEmpty(t *testing.T) {
	_, bot := newServer(t)
	ups, err := poll(bot, tgbotapi.Params{"timeout": "1"})
	if err != nil || len(ups) != 0 {
		t.Fatalf("getUpdates = %v, %v; want [] after the timeout", ups, err)
	}
}

func TestOffsetConfirmsAndRedeliver(t *testing.T) {
	srv, bot := newServer(t)
	first := srv.Post(telegramtest.Incoming{Chat: alice, From: alice, Text: "one"})
	second := srv.Post(telegramtest.Incoming{Chat: alice, From: alice, Text: "two"})

	ups, err := poll(bot, tgbotapi.Params{})
	if err != nil || len(ups) != 2 {
		t.Fatalf("first poll = %d updates, %v", len(ups), err)
	}
	// Without a new offset, both come again.
	if ups, _ := poll(bot, tgbotapi.Params{}); len(ups) != 2 {
		t.Fatalf("unconfirmed poll = %d updates, want 2", len(ups))
	}
	ups, err = poll(bot, tgbotapi.Params{"offset": id(int64(first.UpdateID + 1))})
	if err != nil || len(ups) != 1 || ups[0].UpdateID != second.UpdateID {
		t.Fatalf("offset poll = %+v, %v", ups, err)
	}
	if srv.Offset() != first.UpdateID+1 || srv.Pending() != 1 {
		t.Errorf("Offset, Pending = %d, %d", srv.Offset(), srv.Pending())
	}
	if _, err := poll(bot, tgbotapi.Params{"offset": id(int64(second.UpdateID + 1))}); err != nil {
		t.Fatal(err)
	}
	if srv.Pending() != 0 {
		t.Fatalf("Pending = %d after confirming all", srv.Pending())
	}

	if err := srv.Redeliver(first.UpdateID); err != nil {
		t.Fatal(err)
	}
	ups, err = poll(bot, tgbotapi.Params{"offset": id(int64(second.UpdateID + 1))})
	if err != nil || len(ups) != 1 || ups[0].UpdateID != first.UpdateID || ups[0].Message.Text != "one" {
		t.Fatalf("redelivered = %+v, %v", ups, err)
	}
	if ups, _ := poll(bot, tgbotapi.Params{"offset": id(int64(second.UpdateID + 1))}); len(ups) != 0 {
		t.Fatalf("redelivery not confirmed by the next offset: %+v", ups)
	}
	if err := srv.Redeliver(999); err == nil {
		t.Error("Redeliver of an unknown update_id succeeded")
	}
}

func TestAllowedUpdatesFilterPersists(t *testing.T) {
	srv, bot := newServer(t)
	sent, err := send(t, bot, tgbotapi.Params{"chat_id": id(group), "text": "pick",
		"reply_markup": `{"inline_keyboard":[[{"text":"A","callback_data":"a"}]]}`})
	if err != nil {
		t.Fatal(err)
	}
	srv.Post(telegramtest.Incoming{Chat: group, From: alice, Text: "hi", Mention: true})
	if _, err := srv.Click(group, sent.MessageID, 0, bob); err != nil {
		t.Fatal(err)
	}
	ups, err := poll(bot, tgbotapi.Params{"allowed_updates": `["callback_query"]`})
	if err != nil || len(ups) != 1 || ups[0].CallbackQuery == nil {
		t.Fatalf("filtered poll = %+v, %v", ups, err)
	}
	// The list persists: a later poll without it still filters.
	srv.Post(telegramtest.Incoming{Chat: group, From: alice, Text: "again", Mention: true})
	ups, err = poll(bot, tgbotapi.Params{"offset": id(int64(ups[0].UpdateID + 1))})
	if err != nil || len(ups) != 0 {
		t.Fatalf("poll after filter = %+v, %v; want none", ups, err)
	}
}

func TestConcurrentPollConflict(t *testing.T) {
	srv, bot := newServer(t)
	errc := make(chan error, 1)
	go func() {
		_, err := poll(bot, tgbotapi.Params{"timeout": "15"})
		errc <- err
	}()
	waitFor(t, srv, "the first poll to wait", srv.Polling)
	if _, err := poll(bot, tgbotapi.Params{}); err != nil {
		t.Fatalf("second poll: %v", err)
	}
	select {
	case err := <-errc:
		wantAPIError(t, err, http.StatusConflict,
			"Conflict: terminated by other getUpdates request; make sure that only one bot instance is running")
	case <-testCtx(t).Done():
		t.Fatal("first poll was not terminated")
	}
}

// hookRecorder is the bot's webhook endpoint: it fails the first failN
// requests with 500, then records updates.
type hookRecorder struct {
	mu      sync.Mutex
	failN   int
	secrets []string
	updates []tgbotapi.Update
}

func (h *hookRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.secrets = append(h.secrets, r.Header.Get("X-Telegram-Bot-Api-Secret-Token"))
	if h.failN > 0 {
		h.failN--
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	var u tgbotapi.Update
	if err := json.Unmarshal(body, &u); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	h.updates = append(h.updates, u)
}

func (h *hookRecorder) received() []tgbotapi.Update {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]tgbotapi.Update(nil), h.updates...)
}

func TestWebhookDeliveryRetriesWithSecret(t *testing.T) {
	srv, bot := newServer(t)
	rec := &hookRecorder{failN: 1}
	hook := httptest.NewServer(rec)
	t.Cleanup(hook.Close)

	if _, err := bot.MakeRequest("setWebhook", tgbotapi.Params{"url": hook.URL, "secret_token": "s3cr-et_"}); err != nil {
		t.Fatal(err)
	}
	if srv.WebhookURL() != hook.URL {
		t.Fatalf("WebhookURL = %q", srv.WebhookURL())
	}
	// Polling is refused while the webhook is set.
	_, err := poll(bot, tgbotapi.Params{})
	wantAPIError(t, err, http.StatusConflict,
		"Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first")

	a := srv.Post(telegramtest.Incoming{Chat: alice, From: alice, Text: "first"})
	b := srv.Post(telegramtest.Incoming{Chat: alice, From: alice, Text: "second"})
	// The fake records a delivery after the bot answered it.
	waitFor(t, srv, "three delivery attempts", func() bool { return len(srv.WebhookDeliveries()) == 3 })

	got := rec.received()
	if len(got) != 2 || got[0].UpdateID != a.UpdateID || got[1].UpdateID != b.UpdateID || got[1].Message.Text != "second" {
		t.Fatalf("delivered out of order: %+v", got)
	}
	want := []telegramtest.Delivery{
		{UpdateID: a.UpdateID, Status: 500}, {UpdateID: a.UpdateID, Status: 200}, {UpdateID: b.UpdateID, Status: 200},
	}
	if d := srv.WebhookDeliveries(); len(d) != 3 || d[0] != want[0] || d[1] != want[1] || d[2] != want[2] {
		t.Fatalf("deliveries = %+v, want %+v", d, want)
	}
	rec.mu.Lock()
	for _, s := range rec.secrets {
		if s != "s3cr-et_" {
			t.Errorf("secret header = %q", s)
		}
	}
	rec.mu.Unlock()
	if srv.Pending() != 0 {
		t.Errorf("Pending = %d after 2xx", srv.Pending())
	}

	if _, err := bot.Request(tgbotapi.DeleteWebhookConfig{}); err != nil {
		t.Fatal(err)
	}
	if srv.WebhookURL() != "" {
		t.Fatal("webhook still set after deleteWebhook")
	}
	if _, err := poll(bot, tgbotapi.Params{}); err != nil {
		t.Fatalf("poll after deleteWebhook: %v", err)
	}
}

func TestSetWebhookBadSecret(t *testing.T) {
	_, bot := newServer(t)
	_, err := bot.MakeRequest("setWebhook", tgbotapi.Params{"url": "https://example.com/hook", "secret_token": "bad secret!"})
	te := wantAPIError(t, err, http.StatusBadRequest, "")
	if want := "Bad Request: bad webhook: "; len(te.Message) < len(want) || te.Message[:len(want)] != want {
		t.Fatalf("description = %q", te.Message)
	}
}

func TestPostRawOverridesUpdateID(t *testing.T) {
	srv, bot := newServer(t)
	a := srv.PostRaw(json.RawMessage(`{"update_id":1,"message":"not an object"}`))
	b := srv.PostRaw(json.RawMessage(`not json`))
	resp, err := bot.MakeRequest("getUpdates", tgbotapi.Params{})
	if err != nil {
		t.Fatal(err)
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(resp.Result, &raw); err != nil || len(raw) != 2 {
		t.Fatalf("batch %s: %v", resp.Result, err)
	}
	if string(raw[0]["update_id"]) != id(int64(a)) || string(raw[0]["message"]) != `"not an object"` {
		t.Errorf("first = %s", resp.Result)
	}
	if string(raw[1]["update_id"]) != id(int64(b)) || string(raw[1]["raw"]) != `"not json"` {
		t.Errorf("second = %s", resp.Result)
	}
}

func TestCloseEndsLongPoll(t *testing.T) {
	srv, bot := newServer(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = poll(bot, tgbotapi.Params{"timeout": "15"})
	}()
	waitFor(t, srv, "the poll to wait", srv.Polling)
	srv.Close()
	select {
	case <-done:
	case <-testCtx(t).Done():
		t.Fatal("Close left the long poll blocked")
	}
}
