package slack

import (
	"testing"

	"github.com/parleybot/parley/chat"
)

// TestMessageLink: permalinks of a channel's root and replies, a DM's
// message, and no link before auth.test told the workspace's address or
// for a key of another channel or platform.
func TestMessageLink(t *testing.T) {
	a, err := New(Config{BotToken: "xoxb-1", AppToken: "xapp-1", APIURL: "http://127.0.0.1:1/api"})
	if err != nil {
		t.Fatal(err)
	}
	thread := chat.Thread{Platform: platform, Space: "T1", Chat: "C1", ID: "1700000000.000100"}
	if got := a.MessageLink(t.Context(), thread, ""); got != "" {
		t.Errorf("before auth.test: %q, want none", got)
	}
	a.me.Set(self{UserID: "UBOT", URL: "https://acme.slack.com/"})
	dm := chat.Thread{Platform: platform, Space: "T1", Chat: "D1"}
	for _, tc := range []struct {
		name string
		t    chat.Thread
		key  string
		want string
	}{
		{"the root", thread, "T1:C1:1700000000.000100", "https://acme.slack.com/archives/C1/p1700000000000100"},
		{"a reply", thread, "T1:C1:1700000001.000200",
			"https://acme.slack.com/archives/C1/p1700000001000200?cid=C1&thread_ts=1700000000.000100"},
		{"the thread", thread, "", "https://acme.slack.com/archives/C1/p1700000000000100"},
		{"a DM's message", dm, "T1:D1:1700000002.000300", "https://acme.slack.com/archives/D1/p1700000002000300"},
		{"a DM", dm, "", "https://acme.slack.com/archives/D1"},
		{"another channel's key", thread, "T1:C2:1700000001.000200", ""},
		{"another platform's key", thread, "discord:1", ""},
	} {
		if got := a.MessageLink(t.Context(), tc.t, tc.key); got != tc.want {
			t.Errorf("%s: MessageLink = %q, want %q", tc.name, got, tc.want)
		}
	}
}
