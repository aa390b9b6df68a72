package discord

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/syncbuf"

	"github.com/bwmarrin/discordgo"
	"github.com/google/go-cmp/cmp"
)

func TestNormalize(t *testing.T) {
	alice := &discordgo.User{ID: "11", Username: "alice", GlobalName: "Alice A."}
	bob := &discordgo.User{ID: "12", Username: "bob"}
	helper := &discordgo.User{ID: "13", Username: "helper", Bot: true}
	me := &discordgo.User{ID: testBot, Username: "Parley", Bot: true}
	botUser := chat.User{Platform: "discord", ID: testBot, Name: "Parley"}
	group := func(id string) chat.Thread {
		return chat.Thread{Platform: "discord", Space: testGuild, Chat: testChan, ID: id}
	}
	channel := chat.Place{ChatName: "general", ChatKind: "channel"}

	tests := []struct {
		name  string
		known map[string]seenMessage // messages the adapter saw before
		in    discordgo.Message
		want  chat.Message
		drop  bool
	}{{
		name: "direct message",
		in:   discordgo.Message{ID: "501", ChannelID: "77", Author: alice, Content: "hello there"},
		want: chat.Message{Key: "discord:501", ID: "501", Thread: chat.Thread{Platform: "discord", Chat: "77"},
			User: chat.User{Platform: "discord", ID: "11", Name: "Alice A."}, Text: "hello there",
			Place: chat.Place{ChatKind: "direct"}, Direct: true},
	}, {
		name: "mention in a guild channel starts a conversation on that message",
		in: discordgo.Message{ID: "502", ChannelID: testChan, GuildID: testGuild, Author: bob,
			Content: "<@" + testBot + "> summarize this", Mentions: []*discordgo.User{me}},
		want: chat.Message{Key: "discord:502", ID: "502", Thread: group("502"),
			User: chat.User{Platform: "discord", ID: "12", Name: "bob"}, Text: "summarize this", Place: channel, Mentioned: true},
	}, {
		name: "nickname mention form",
		in: discordgo.Message{ID: "503", ChannelID: testChan, GuildID: testGuild, Author: bob,
			Content: "hey <@!" + testBot + "> look", Mentions: []*discordgo.User{me}},
		want: chat.Message{Key: "discord:503", ID: "503", Thread: group("503"),
			User: chat.User{Platform: "discord", ID: "12", Name: "bob"}, Text: "hey  look", Place: channel, Mentioned: true},
	}, {
		name: "no mention",
		in:   discordgo.Message{ID: "504", ChannelID: testChan, GuildID: testGuild, Author: bob, Content: "just chatting"},
		want: chat.Message{Key: "discord:504", ID: "504", Thread: group("504"),
			User: chat.User{Platform: "discord", ID: "12", Name: "bob"}, Text: "just chatting", Place: channel},
	}, {
		name: "in a thread: the parent channel and the thread",
		in:   discordgo.Message{ID: "505", ChannelID: testThr, GuildID: testGuild, Author: bob, Content: "more"},
		want: chat.Message{Key: "discord:505", ID: "505",
			Thread: chat.Thread{Platform: "discord", Space: testGuild, Chat: testChan, ID: testThr},
			User:   chat.User{Platform: "discord", ID: "12", Name: "bob"}, Text: "more",
			Place: chat.Place{ChatName: "general", ChatKind: "channel", Thread: "a thread"}},
	}, {
		name:  "reply to the bot's inline answer continues its conversation",
		known: map[string]seenMessage{"600": {root: "450", byBot: true}},
		in: discordgo.Message{ID: "506", ChannelID: testChan, GuildID: testGuild, Author: bob, Content: "and then?",
			Type: discordgo.MessageTypeReply, MessageReference: &discordgo.MessageReference{MessageID: "600", ChannelID: testChan},
			ReferencedMessage: &discordgo.Message{ID: "600", Author: me}},
		want: chat.Message{Key: "discord:506", ID: "506", Thread: group("450"),
			User: chat.User{Platform: "discord", ID: "12", Name: "bob"}, Text: "and then?", Place: channel, Mentioned: true},
	}, {
		name: "reply to the bot after a restart: the root its answer replied to",
		in: discordgo.Message{ID: "507", ChannelID: testChan, GuildID: testGuild, Author: bob, Content: "ok",
			Type: discordgo.MessageTypeReply, MessageReference: &discordgo.MessageReference{MessageID: "601"},
			ReferencedMessage: &discordgo.Message{ID: "601", Author: me, MessageReference: &discordgo.MessageReference{MessageID: "451"}}},
		want: chat.Message{Key: "discord:507", ID: "507", Thread: group("451"),
			User: chat.User{Platform: "discord", ID: "12", Name: "bob"}, Text: "ok", Place: channel, Mentioned: true},
	}, {
		name: "reply to a person joins that message's conversation, unmentioned",
		in: discordgo.Message{ID: "508", ChannelID: testChan, GuildID: testGuild, Author: bob, Content: "agreed",
			Type: discordgo.MessageTypeReply, MessageReference: &discordgo.MessageReference{MessageID: "452"},
			ReferencedMessage: &discordgo.Message{ID: "452", Author: alice}},
		want: chat.Message{Key: "discord:508", ID: "508", Thread: group("452"),
			User: chat.User{Platform: "discord", ID: "12", Name: "bob"}, Text: "agreed", Place: channel},
	}, {
		name: "from another bot",
		in:   discordgo.Message{ID: "509", ChannelID: testChan, GuildID: testGuild, Author: helper, Content: "notice"},
		want: chat.Message{Key: "discord:509", ID: "509", Thread: group("509"),
			User: chat.User{Platform: "discord", ID: "13", Name: "helper"}, Text: "notice", Place: channel, FromBot: true},
	}, {
		name: "own message",
		in:   discordgo.Message{ID: "510", ChannelID: testThr, GuildID: testGuild, Author: me, Content: "my answer"},
		want: chat.Message{Key: "discord:510", ID: "510",
			Thread: chat.Thread{Platform: "discord", Space: testGuild, Chat: testChan, ID: testThr},
			User:   botUser, Text: "my answer",
			Place: chat.Place{ChatName: "general", ChatKind: "channel", Thread: "a thread"}, FromBot: true},
	}, {
		name: "a command typed with attachments carries them",
		in: discordgo.Message{ID: "513", ChannelID: "77", Author: alice, Content: "/kb add", Attachments: []*discordgo.MessageAttachment{
			{ID: "a1", Filename: "handbook.pdf", ContentType: "application/pdf", Size: 48213,
				URL:      "https://cdn.discordapp.com/attachments/77/a1/handbook.pdf?ex=1&is=2&hm=3&",
				ProxyURL: "https://media.discordapp.net/attachments/77/a1/handbook.pdf?ex=1&is=2&hm=3&"},
			{ID: "a2", Filename: "notes.txt", Size: 12, ProxyURL: "https://media.discordapp.net/attachments/77/a2/notes.txt"},
			nil,
		}},
		want: chat.Message{Key: "discord:513", ID: "513", Thread: chat.Thread{Platform: "discord", Chat: "77"},
			User: chat.User{Platform: "discord", ID: "11", Name: "Alice A."}, Text: "/kb add",
			Place: chat.Place{ChatKind: "direct"}, Direct: true, Files: []chat.File{
				{ID: "a1", Name: "handbook.pdf", MIME: "application/pdf", Size: 48213, URL: "https://cdn.discordapp.com/attachments/77/a1/handbook.pdf?ex=1&is=2&hm=3&"},
				{ID: "a2", Name: "notes.txt", Size: 12, URL: "https://media.discordapp.net/attachments/77/a2/notes.txt"},
			}},
	}, {
		name: "a mention with only an attachment",
		in: discordgo.Message{ID: "514", ChannelID: testChan, GuildID: testGuild, Author: bob, Content: "<@" + testBot + ">",
			Mentions:    []*discordgo.User{me},
			Attachments: []*discordgo.MessageAttachment{{ID: "a3", Filename: "x.png", ContentType: "image/png", Size: 5, URL: "https://cdn.discordapp.com/x.png"}}},
		want: chat.Message{Key: "discord:514", ID: "514", Thread: group("514"),
			User: chat.User{Platform: "discord", ID: "12", Name: "bob"}, Place: channel, Mentioned: true,
			Files: []chat.File{{ID: "a3", Name: "x.png", MIME: "image/png", Size: 5, URL: "https://cdn.discordapp.com/x.png"}}},
	}, {
		name: "system message (thread created)",
		in:   discordgo.Message{ID: "511", ChannelID: testChan, GuildID: testGuild, Author: bob, Type: discordgo.MessageTypeThreadCreated},
		drop: true,
	}, {
		name: "no author",
		in:   discordgo.Message{ID: "512", ChannelID: testChan, GuildID: testGuild, Content: "x"},
		drop: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newTestAdapter(t, newFakeREST(t), nil)
			for id, s := range tt.known {
				a.msgs.Put(id, s)
			}
			got, ok := a.normalize(testCtx(t), &tt.in)
			if ok == tt.drop {
				t.Fatalf("normalize kept = %v, want %v", ok, !tt.drop)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("normalize (-want +got):\n%s", diff)
			}
		})
	}
}

// A message in a thread the adapter has not seen is classified by
// GET /channels/{id} once, then from memory.
func TestNormalizeLooksUpUnknownThreads(t *testing.T) {
	f := newFakeREST(t)
	f.answer("GET /channels/301", 200, `{"id":"301","type":11,"guild_id":"`+testGuild+`","parent_id":"`+testChan+`","name":"new thread"}`)
	a := newTestAdapter(t, f, nil)
	for _, id := range []string{"520", "521"} {
		got, ok := a.normalize(testCtx(t), &discordgo.Message{ID: id, ChannelID: "301", GuildID: testGuild,
			Author: &discordgo.User{ID: "12", Username: "bob"}, Content: "hi"})
		want := chat.Thread{Platform: "discord", Space: testGuild, Chat: testChan, ID: "301"}
		if !ok || got.Thread != want || got.Place.Thread != "new thread" {
			t.Fatalf("normalize = %+v, %v; want thread %v named %q", got, ok, want, "new thread")
		}
	}
	if n := len(f.recorded()); n != 1 {
		t.Errorf("%d channel lookups for one unknown thread, want 1: %+v", n, f.recorded())
	}
}

// What the adapter remembers of each message (rememberMessages of them)
// is small whatever the message's length: the name a thread opened on it
// would get, nothing in a DM, which has no threads.
func TestNormalizeRemembersLittle(t *testing.T) {
	long := strings.Repeat("word ", 800) // 4,000 characters
	tests := []struct {
		name, channel, guild string
		want                 seenMessage
	}{
		{name: "direct message", channel: "77", want: seenMessage{}},
		{name: "guild channel", channel: testChan, guild: testGuild,
			want: seenMessage{name: threadName(long), root: "540"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newTestAdapter(t, newFakeREST(t), nil)
			if _, ok := a.normalize(testCtx(t), &discordgo.Message{ID: "540", ChannelID: tt.channel, GuildID: tt.guild,
				Author: &discordgo.User{ID: "12", Username: "bob"}, Content: long}); !ok {
				t.Fatal("dropped")
			}
			got, ok := a.msgs.Get("540")
			if !ok || got != tt.want {
				t.Errorf("remembered %+v, %v; want %+v", got, ok, tt.want)
			}
			if len(got.name) > 4*maxThreadName {
				t.Errorf("remembered a name of %d bytes", len(got.name))
			}
		})
	}
}

// Without the Message Content intent a mention arrives empty: the
// operator is told once, not once per message.
func TestNormalizeWarnsOnceAboutMessageContent(t *testing.T) {
	var log syncbuf.Buffer
	a := newTestAdapter(t, newFakeREST(t), &log)
	me := &discordgo.User{ID: testBot, Bot: true}
	for _, id := range []string{"530", "531"} {
		if _, ok := a.normalize(testCtx(t), &discordgo.Message{ID: id, ChannelID: testChan, GuildID: testGuild,
			Author: &discordgo.User{ID: "12", Username: "bob"}, Mentions: []*discordgo.User{me}}); !ok {
			t.Fatal("an empty mention was dropped")
		}
	}
	if n := strings.Count(log.String(), "Message Content intent"); n != 1 {
		t.Errorf("warned %d times, want once:\n%s", n, log.String())
	}
}

func TestMessageContentEnabled(t *testing.T) {
	for _, tt := range []struct {
		flags int
		want  bool
	}{{0, false}, {1 << 18, true}, {1 << 19, true}, {1 << 17, false}, {1<<19 | 1<<23, true}} {
		if got := MessageContentEnabled(tt.flags); got != tt.want {
			t.Errorf("MessageContentEnabled(%#x) = %v, want %v", tt.flags, got, tt.want)
		}
	}
}

// FuzzNormalize: whatever a MESSAGE_CREATE holds, normalization never
// panics, and what it keeps is a well-formed message.
func FuzzNormalize(f *testing.F) {
	for _, seed := range []string{
		`{"id":"1","channel_id":"2","author":{"id":"3","username":"a"},"content":"hi"}`,
		`{"id":"1","channel_id":"200","guild_id":"100","author":{"id":"3"},"content":"<@900000000000000001> x","mentions":[{"id":"900000000000000001"}]}`,
		`{"id":"1","channel_id":"200","guild_id":"100","type":19,"author":{"id":"3"},"message_reference":{"message_id":"9"},"referenced_message":{"id":"9","author":null}}`,
		`{"id":"1","channel_id":"300","guild_id":"100","author":{"id":"3","bot":true},"content":"<@!900000000000000001>"}`,
		`{"id":"","channel_id":"","author":null}`,
		`{"mentions":[null],"referenced_message":{"message_reference":{}}}`,
		`null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m discordgo.MessageCreate
		if json.Unmarshal(data, &m) != nil || m.Message == nil {
			return
		}
		a := newTestAdapter(t, newFakeREST(t), nil)
		got, ok := a.normalize(t.Context(), m.Message)
		if !ok {
			return
		}
		if got.Key != "discord:"+m.ID || got.Thread.Chat == "" || got.User.ID == "" {
			t.Errorf("kept a malformed message: %+v", got)
		}
		if got.Direct != (got.Thread.Space == "") {
			t.Errorf("Direct = %v for thread %v", got.Direct, got.Thread)
		}
	})
}
