package telegram

import (
	"errors"
	"testing"

	"github.com/parleybot/parley/chat"
)

// TestPrivateLink: the deep link that opens a private chat with the bot
// and sends /start with the parameter, once the bot knows its username;
// a refused private message is the core's chat.ErrNoPrivateChat.
func TestPrivateLink(t *testing.T) {
	s := newStub(t)
	a, _ := newTestAdapter(t, s, newMemState())
	if got := a.PrivateLink("held"); got != "" {
		t.Fatalf("before getMe: %q, want no link", got)
	}
	a.me.Set(testMe)
	for start, want := range map[string]string{"held": "https://t.me/parley_bot?start=held", "": "https://t.me/parley_bot"} {
		if got := a.PrivateLink(start); got != want {
			t.Errorf("PrivateLink(%q) = %q, want %q", start, got, want)
		}
	}
	if !errors.Is(ErrNoPrivateChat, chat.ErrNoPrivateChat) {
		t.Error("Telegram's refused private message is not chat.ErrNoPrivateChat")
	}
}
