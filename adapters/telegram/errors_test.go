package telegram

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/chat"
)

func TestErrorMapping(t *testing.T) {
	private := chat.Thread{Platform: "telegram", Chat: "11"}
	send := func(ctx context.Context, a *Adapter) error {
		_, err := a.Send(ctx, private, chat.Out{Text: "hi"})
		return err
	}
	edit := func(ctx context.Context, a *Adapter) error {
		return a.Edit(ctx, chat.MessageRef{Thread: private, ID: "5"}, chat.Out{Text: "hi"})
	}
	tests := []struct {
		name   string
		method string
		reply  stubReply
		op     func(context.Context, *Adapter) error
		check  func(t *testing.T, err error)
	}{{
		name: "429 is a RateLimitError with Telegram's retry_after", method: "sendMessage", op: send,
		reply: stubReply{Code: 429, Desc: "Too Many Requests: retry after 7", RetryAfter: 7},
		check: func(t *testing.T, err error) {
			if d, ok := chat.RetryAfter(err); !ok || d != 7*time.Second {
				t.Errorf("RetryAfter(%v) = %v, %v; want 7s, true", err, d, ok)
			}
		},
	}, {
		name: "429 without retry_after still waits a second", method: "editMessageText", op: edit,
		reply: stubReply{Code: 429, Desc: "Too Many Requests"},
		check: func(t *testing.T, err error) {
			if d, ok := chat.RetryAfter(err); !ok || d != time.Second {
				t.Errorf("RetryAfter(%v) = %v, %v; want 1s, true", err, d, ok)
			}
		},
	}, {
		name: "can't parse entities is a format rejection", method: "sendMessage", op: send,
		reply: stubReply{Code: 400, Desc: "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0"},
		check: func(t *testing.T, err error) {
			if !errors.Is(err, chat.ErrFormatRejected) {
				t.Errorf("err = %v, want chat.ErrFormatRejected", err)
			}
			if e, ok := errors.AsType[*tgbotapi.Error](err); !ok || e.Code != 400 {
				t.Errorf("err = %v does not wrap Telegram's error", err)
			}
		},
	}, {
		name: "an edit that changes nothing succeeds", method: "editMessageText", op: edit,
		reply: stubReply{Code: 400, Desc: "Bad Request: message is not modified: specified new message content and reply markup are exactly the same"},
		check: func(t *testing.T, err error) {
			if err != nil {
				t.Errorf("err = %v, want nil", err)
			}
		},
	}, {
		name: "a person who never started the bot is told how", method: "sendMessage", op: send,
		reply: stubReply{Code: 403, Desc: "Forbidden: bot can't initiate conversation with a user"},
		check: func(t *testing.T, err error) {
			if !errors.Is(err, ErrNoPrivateChat) || !strings.Contains(err.Error(), "open t.me/parley_bot and press Start") {
				t.Errorf("err = %v, want ErrNoPrivateChat telling to open t.me/parley_bot", err)
			}
		},
	}, {
		name: "a person who blocked the bot is told how", method: "sendMessage", op: send,
		reply: stubReply{Code: 403, Desc: "Forbidden: bot was blocked by the user"},
		check: func(t *testing.T, err error) {
			if !errors.Is(err, ErrNoPrivateChat) || !strings.Contains(err.Error(), "unblock") {
				t.Errorf("err = %v, want ErrNoPrivateChat telling to unblock", err)
			}
		},
	}, {
		name: "401 is the token", method: "sendMessage", op: send,
		reply: stubReply{Code: 401, Desc: "Unauthorized"},
		check: func(t *testing.T, err error) {
			if !errors.Is(err, ErrUnauthorized) || !errors.Is(err, chat.ErrAuth) {
				t.Errorf("err = %v, want ErrUnauthorized, a chat.ErrAuth", err)
			}
		},
	}, {
		name: "other errors keep Telegram's", method: "sendMessage", op: send,
		reply: stubReply{Code: 400, Desc: "Bad Request: chat not found"},
		check: func(t *testing.T, err error) {
			if e, ok := errors.AsType[*tgbotapi.Error](err); !ok || e.Message != "Bad Request: chat not found" {
				t.Errorf("err = %v, want Telegram's error wrapped", err)
			}
			if _, ok := chat.RetryAfter(err); ok || errors.Is(err, chat.ErrFormatRejected) {
				t.Errorf("err = %v mapped to a rate limit or format rejection", err)
			}
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStub(t)
			a, _ := newTestAdapter(t, s, newMemState())
			a.me.Set(testMe)
			s.script(tt.method, tt.reply)
			err := tt.op(t.Context(), a)
			if n := len(s.callsTo(tt.method)); n != 1 {
				t.Errorf("%d calls of %s, want 1", n, tt.method)
			}
			tt.check(t, err)
		})
	}
}

// TestTransportErrorsHideToken: the token is in every request path, and
// transport errors quote the URL.
func TestTransportErrorsHideToken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	a, err := New(Config{Token: testToken, APIURL: "http://" + addr, State: newMemState()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = a.Send(t.Context(), chat.Thread{Platform: "telegram", Chat: "11"}, chat.Out{Text: "hi"})
	if err == nil {
		t.Fatal("Send to a closed port succeeded")
	}
	if strings.Contains(err.Error(), testToken) || strings.Contains(err.Error(), "TEST-very-secret") {
		t.Errorf("error shows the token: %v", err)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = a.Send(ctx, chat.Thread{Platform: "telegram", Chat: "11"}, chat.Out{Text: "hi"})
	if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "TEST-very-secret") {
		t.Errorf("cancelled Send: %v; want context.Canceled, without the token", err)
	}
}
