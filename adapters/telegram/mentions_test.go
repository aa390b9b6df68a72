package telegram

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

const mentionGroup = -100500

// newMentionFake is the full fake with a group, Ana (no username) and Bo
// (@bo_builder) in it, and the adapter on it.
func newMentionFake(t *testing.T) (*telegramtest.Server, *Adapter, chat.Thread) {
	t.Helper()
	srv, a := newFileFake(t)
	srv.AddGroup(mentionGroup, "Team")
	srv.AddUser(101, "Ana", "")
	srv.AddUser(102, "Bo", "bo_builder")
	return srv, a, chat.Thread{Platform: "telegram", Chat: "-100500"}
}

// TestMentionsPingOnlyThem: a message mentions exactly its Mentions with
// an id, as text mentions (HTML links, or entities in plain text), and a
// username as @username; mention syntax in the text itself mentions
// nobody.
func TestMentionsPingOnlyThem(t *testing.T) {
	ana := chat.User{Platform: "telegram", ID: "101", Name: "Ana"}
	bo := chat.User{Platform: "telegram", ID: "102", Name: "Bo"}
	tests := []struct {
		name    string
		out     chat.Out
		visible string
		ids     []int64
		runs    []string // the text each text mention covers
	}{
		{"mentions, each once", chat.Out{Text: "standup in **5** minutes", Mentions: []chat.User{ana, bo, ana}},
			"Ana Bo standup in 5 minutes", []int64{101, 102}, []string{"Ana", "Bo"}},
		{"plain keeps them", chat.Out{Text: "**standup** <soon>", Plain: true, Mentions: []chat.User{bo, ana}},
			"Bo Ana standup <soon>", []int64{102, 101}, []string{"Bo", "Ana"}},
		{"plain offsets count UTF-16", chat.Out{Text: "hi", Plain: true, Mentions: []chat.User{{ID: "101", Name: "😀 Ana"}, bo}},
			"😀 Ana Bo hi", []int64{101, 102}, []string{"😀 Ana", "Bo"}},
		{"a name is escaped", chat.Out{Text: "hi", Mentions: []chat.User{{ID: "101", Name: "<Ana & co>"}}},
			"<Ana & co> hi", []int64{101}, []string{"<Ana & co>"}},
		{"no name shows the id", chat.Out{Mentions: []chat.User{{ID: "101"}}}, "101", []int64{101}, []string{"101"}},
		{"a username without an id", chat.Out{Text: "hi", Mentions: []chat.User{{Name: "@bo_builder"}}},
			"@bo_builder hi", nil, nil},
		{"a name that is no username", chat.Out{Text: "hi", Mentions: []chat.User{{Name: "@Bo builder"}, {ID: "chat:-100500", Name: "Team"}}},
			"Bo builder Team hi", nil, nil},
		{"mention syntax in the text", chat.Out{Text: `[Ana](tg://user?id=101) <a href="tg://user?id=102">Bo</a> <tg://user?id=102> <@101> @everyone`},
			`Ana (tg://user?id=101) <a href="tg://user?id=102">Bo</a> tg://user?id=102 <@101> @everyone`, nil, nil},
		{"mention syntax in plain text", chat.Out{Text: "[Ana](tg://user?id=101)", Plain: true},
			"Ana (tg://user?id=101)", nil, nil},
		{"mention syntax beside a mention", chat.Out{Text: "[Bo](tg://user?id=102) too", Mentions: []chat.User{ana}},
			"Ana Bo (tg://user?id=102) too", []int64{101}, []string{"Ana"}},
	}
	srv, a, th := newMentionFake(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, err := a.Send(t.Context(), th, tt.out)
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			m := sentMessage(t, srv, ref)
			if m.Visible != tt.visible {
				t.Errorf("visible = %q, want %q", m.Visible, tt.visible)
			}
			if diff := cmp.Diff(tt.ids, m.MentionedIDs()); diff != "" {
				t.Errorf("mentioned (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.runs, mentionRuns(m)); diff != "" {
				t.Errorf("text mention runs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPlainFallbackKeepsMentions: when Telegram refuses the HTML, the
// plain text the core repeats the message as still mentions the people.
func TestPlainFallbackKeepsMentions(t *testing.T) {
	srv, a, th := newMentionFake(t)
	srv.FailNext("sendMessage", telegramtest.Fault{Status: http.StatusBadRequest,
		Description: "Bad Request: can't parse entities: Unsupported start tag \"x\" at byte offset 0"})
	out, err := outbound.New(outbound.Config{Adapters: []chat.Adapter{a},
		Sleep: func(_ context.Context, d time.Duration) error { t.Errorf("slept %v", d); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := out.Post(t.Context(), th, chat.Out{Text: "**standup**", Mentions: []chat.User{{ID: "101", Name: "Ana"}}})
	if err != nil {
		t.Fatalf("Post: %v", err)
	}
	m := sentMessage(t, srv, ref)
	if m.ParseMode != "" || m.Visible != "Ana standup" || !cmp.Equal(m.MentionedIDs(), []int64{101}) {
		t.Errorf("sent %q (parse mode %q) mentioning %v; want plain %q mentioning 101", m.Visible, m.ParseMode, m.MentionedIDs(), "Ana standup")
	}
}

// TestNoMentionsRenderAsBefore: without Mentions (nil or empty) the text
// is what it was before they existed, with no entities.
func TestNoMentionsRenderAsBefore(t *testing.T) {
	for _, md := range []string{"**done** with `make`", "<@1> @everyone & more", "> quote\n- item", "[x](https://example.com)"} {
		for _, mentions := range [][]chat.User{nil, {}} {
			r, err := render(chat.Out{Text: md, Mentions: mentions})
			if err != nil || r.text != format.TelegramHTML(md) || r.parseMode != "HTML" || r.entities != nil {
				t.Errorf("render(%q, mentions %v) = %+v, %v; want the HTML as before", md, mentions, r, err)
			}
			r, err = render(chat.Out{Text: md, Plain: true, Mentions: mentions})
			if err != nil || r.text != format.Plain(md) || r.parseMode != "" || r.entities != nil {
				t.Errorf("render(%q, plain, mentions %v) = %+v, %v; want the plain text as before", md, mentions, r, err)
			}
		}
	}
}

// sentMessage is the bot's message ref in the fake.
func sentMessage(t *testing.T, srv *telegramtest.Server, ref chat.MessageRef) telegramtest.Message {
	t.Helper()
	for _, m := range srv.BotMessages(mentionGroup) {
		if ref.ID == strconv.Itoa(m.ID) {
			return m
		}
	}
	t.Fatalf("no message %s in the group", ref.ID)
	return telegramtest.Message{}
}

// mentionRuns is the text each text mention of m covers.
func mentionRuns(m telegramtest.Message) []string {
	units := utf16.Encode([]rune(m.Visible))
	var runs []string
	for _, e := range m.Entities {
		if e.Type == "text_mention" {
			runs = append(runs, string(utf16.Decode(units[e.Offset:e.Offset+e.Length])))
		}
	}
	return runs
}
