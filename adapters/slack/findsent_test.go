package slack

import (
	"testing"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/chat"
)

// TestFindSent: a message sent with an Out.Key carries it in its metadata
// and FindSent finds it after the message it answers, in a thread
// (conversations.replies) and at a DM's top level (conversations.history);
// other keys, and messages sent without one, are not found.
func TestFindSent(t *testing.T) {
	f := newStreamFixture(t)
	f.srv.AddChannel("DALICE", "alice", slacktest.IM)
	question := f.srv.PostUserMessage("DALICE", "UALICE", "a question", "")
	dm := chat.Thread{Platform: "slack", Space: f.srv.TeamID(), Chat: "DALICE"}
	tests := []struct {
		name   string
		thread chat.Thread
		after  string
	}{
		{"thread", f.thread, f.thread.ID},
		{"DM top level", dm, question},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			if _, err := f.ad.Send(ctx, tt.thread, chat.Out{Text: "no key"}); err != nil {
				t.Fatal(err)
			}
			sent, err := f.ad.Send(ctx, tt.thread, chat.Out{Text: "The answer.", Key: "k-" + tt.name + "#1"})
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := f.ad.FindSent(ctx, tt.thread, "k-"+tt.name+"#1", tt.after)
			if err != nil || !ok || got.ID != sent.ID {
				t.Errorf("FindSent = %v, %v, %v; want %s", got, ok, err, sent.ID)
			}
			if _, ok, err := f.ad.FindSent(ctx, tt.thread, "k-"+tt.name+"#2", tt.after); err != nil || ok {
				t.Errorf("a key never sent: found %v, err %v", ok, err)
			}
			if _, ok, _ := f.ad.FindSent(ctx, tt.thread, "k-"+tt.name+"#1", sent.ID); ok {
				t.Error("found a message at or before the one it came after")
			}
		})
	}
}
