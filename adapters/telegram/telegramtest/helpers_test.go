package telegramtest_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
)

const (
	alice   int64 = 42
	bob     int64 = 43
	carol   int64 = 44 // has not started the bot
	group   int64 = -1001
	forum   int64 = -1002
	botUser       = "parley_bot"
)

// testCtx bounds a test; its deadline only signals a hang.
func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// newServer starts a fake with a small world and the real client on it.
func newServer(t *testing.T, opts ...telegramtest.Option) (*telegramtest.Server, *tgbotapi.BotAPI) {
	t.Helper()
	srv := telegramtest.NewServer(opts...)
	t.Cleanup(srv.Close)
	srv.AddUser(alice, "Alice", "alice")
	srv.AddUser(bob, "Bob", "bob")
	srv.AddUser(carol, "Carol", "carol")
	srv.SetStarted(carol, false)
	srv.AddGroup(group, "Team")
	srv.AddForum(forum, "Forum")
	bot, err := tgbotapi.NewBotAPIWithAPIEndpoint(srv.Token(), srv.Endpoint())
	if err != nil {
		t.Fatalf("NewBotAPIWithAPIEndpoint: %v", err)
	}
	return srv, bot
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// send calls sendMessage through MakeRequest and decodes the result.
func send(t *testing.T, bot *tgbotapi.BotAPI, p tgbotapi.Params) (tgMessage, error) {
	t.Helper()
	resp, err := bot.MakeRequest("sendMessage", p)
	if err != nil {
		return tgMessage{}, err
	}
	var m tgMessage
	if err := json.Unmarshal(resp.Result, &m); err != nil {
		t.Fatalf("decode sendMessage result %s: %v", resp.Result, err)
	}
	return m, nil
}

// tgMessage is tgbotapi.Message plus the fields v5.5.1 does not model.
type tgMessage struct {
	tgbotapi.Message
	ThreadID       int        `json:"message_thread_id"`
	IsTopicMessage bool       `json:"is_topic_message"`
	ReplyTo        *tgMessage `json:"reply_to_message"`
}

// poll calls getUpdates and decodes the updates.
func poll(bot *tgbotapi.BotAPI, p tgbotapi.Params) ([]tgbotapi.Update, error) {
	resp, err := bot.MakeRequest("getUpdates", p)
	if err != nil {
		return nil, err
	}
	var ups []tgbotapi.Update
	if err := json.Unmarshal(resp.Result, &ups); err != nil {
		return nil, err
	}
	return ups, nil
}

// wantAPIError checks err is the Bot API error code/description.
func wantAPIError(t *testing.T, err error, code int, desc string) *tgbotapi.Error {
	t.Helper()
	var te *tgbotapi.Error
	if !errors.As(err, &te) {
		t.Fatalf("error = %v (%T), want *tgbotapi.Error %d %q", err, err, code, desc)
	}
	if te.Code != code || (desc != "" && te.Message != desc) {
		t.Fatalf("error = %d %q, want %d %q", te.Code, te.Message, code, desc)
	}
	return te
}

func waitFor(t *testing.T, srv *telegramtest.Server, what string, cond func() bool) {
	t.Helper()
	if err := srv.WaitFor(testCtx(t), cond); err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

func jsonDecode(resp *http.Response, v any) error {
	return json.NewDecoder(resp.Body).Decode(v)
}
