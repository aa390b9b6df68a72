package telegram

import (
	"testing"

	"github.com/parleybot/parley/chat"
)

// TestMessageLink: supergroups' messages have t.me/c links; private
// chats and basic groups have none; keys of other chats give none.
func TestMessageLink(t *testing.T) {
	var a Adapter
	group := chat.Thread{Platform: platform, Chat: "-1001234567890", ID: "77"}
	for _, tc := range []struct {
		name string
		t    chat.Thread
		key  string
		want string
	}{
		{"a message", group, "telegram:-1001234567890:80", "https://t.me/c/1234567890/80"},
		{"the chain's root", group, "", "https://t.me/c/1234567890/77"},
		{"a topic", chat.Thread{Platform: platform, Chat: "-1001234567890", ID: "topic:5"}, "", ""},
		{"another chat's key", group, "telegram:-1009:80", ""},
		{"a private chat", chat.Thread{Platform: platform, Chat: "42"}, "telegram:42:3", ""},
		{"a basic group", chat.Thread{Platform: platform, Chat: "-4242"}, "telegram:-4242:3", ""},
		{"a basic group's id that starts like one", chat.Thread{Platform: platform, Chat: "-1001"}, "telegram:-1001:3", ""},
		{"a forged chat", chat.Thread{Platform: platform, Chat: "-100abcdefghij"}, "telegram:-100abcdefghij:3", ""},
	} {
		if got := a.MessageLink(t.Context(), tc.t, tc.key); got != tc.want {
			t.Errorf("%s: MessageLink = %q, want %q", tc.name, got, tc.want)
		}
	}
}
