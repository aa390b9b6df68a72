package discord

import (
	"testing"

	"github.com/parleybot/parley/chat"
)

// TestMessageLink: a message in a channel, in a thread (its own channel),
// in a DM, and keys that are not Discord messages'.
func TestMessageLink(t *testing.T) {
	a := newTestAdapter(t, newFakeREST(t), nil)
	inChannel := chat.Thread{Platform: platform, Space: testGuild, Chat: testChan, ID: "900"}
	inThread := chat.Thread{Platform: platform, Space: testGuild, Chat: testChan, ID: testThr}
	dm := chat.Thread{Platform: platform, Chat: "555"}
	for _, tc := range []struct {
		name string
		t    chat.Thread
		key  string
		want string
	}{
		{"reply in a channel", inChannel, "discord:901", "https://discord.com/channels/" + testGuild + "/" + testChan + "/901"},
		{"root in a channel", inChannel, "", "https://discord.com/channels/" + testGuild + "/" + testChan + "/900"},
		{"in a thread", inThread, "discord:902", "https://discord.com/channels/" + testGuild + "/" + testThr + "/902"},
		{"a thread itself", inThread, "", "https://discord.com/channels/" + testGuild + "/" + testThr},
		{"in a DM", dm, "discord:903", "https://discord.com/channels/@me/555/903"},
		{"another platform's key", inChannel, "telegram:1:2", ""},
		{"a forged key", inChannel, "discord:1:2", ""},
		{"no chat", chat.Thread{Platform: platform}, "discord:1", ""},
	} {
		if got := a.MessageLink(t.Context(), tc.t, tc.key); got != tc.want {
			t.Errorf("%s: MessageLink = %q, want %q", tc.name, got, tc.want)
		}
	}
}
