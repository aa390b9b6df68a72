package slack

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/parleybot/parley/chat"
)

var testSelf = self{UserID: "UBOT", BotID: "BBOT"}

// callback wraps an inner event the way Slack's Events API does.
func callback(inner string) string {
	return `{"token":"x","team_id":"T1","api_app_id":"A1","type":"event_callback","event_id":"Ev1","event_time":1700000000,"event":` + inner + `}`
}

func parseEvent(t *testing.T, body string) slackevents.EventsAPIEvent {
	t.Helper()
	e, err := slackevents.ParseEvent(json.RawMessage(body), slackevents.OptionNoVerifyToken())
	if err != nil {
		t.Fatalf("ParseEvent: %v", err)
	}
	return e
}

func TestNormalizeEvent(t *testing.T) {
	channelThread := chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1700000000.000100"}
	tests := []struct {
		name  string
		inner string
		ok    bool
		want  chat.Message
	}{
		{
			name:  "app_mention in a channel starts a thread on it",
			inner: `{"type":"app_mention","user":"U1","text":"<@UBOT> summarize this","ts":"1700000000.000100","channel":"C1","event_ts":"1700000000.000100"}`,
			ok:    true,
			want: chat.Message{Key: "T1:C1:1700000000.000100", ID: "1700000000.000100", Thread: channelThread,
				User: chat.User{Platform: "slack", ID: "U1"}, Text: "summarize this", Mentioned: true,
				Place: chat.Place{ChatKind: "channel", Thread: "1700000000.000100"}},
		},
		{
			name:  "the matching message event has the same key",
			inner: `{"type":"message","client_msg_id":"c1","user":"U1","text":"<@UBOT> summarize this","ts":"1700000000.000100","channel":"C1","channel_type":"channel","event_ts":"1700000000.000100"}`,
			ok:    true,
			want: chat.Message{Key: "T1:C1:1700000000.000100", ID: "1700000000.000100", Thread: channelThread,
				User: chat.User{Platform: "slack", ID: "U1"}, Text: "summarize this", Mentioned: true,
				Place: chat.Place{ChatKind: "channel", Thread: "1700000000.000100"}},
		},
		{
			name:  "thread reply without mention continues the thread",
			inner: `{"type":"message","user":"U2","text":"and the budget?","ts":"1700000050.000200","thread_ts":"1700000000.000100","channel":"C1","channel_type":"channel","event_ts":"1700000050.000200"}`,
			ok:    true,
			want: chat.Message{Key: "T1:C1:1700000050.000200", ID: "1700000050.000200", Thread: channelThread,
				User: chat.User{Platform: "slack", ID: "U2"}, Text: "and the budget?",
				Place: chat.Place{ChatKind: "channel", Thread: "1700000000.000100"}},
		},
		{
			name:  "private channel message is a group",
			inner: `{"type":"message","user":"U2","text":"hi","ts":"1700000060.000100","channel":"G1","channel_type":"group","event_ts":"1700000060.000100"}`,
			ok:    true,
			want: chat.Message{Key: "T1:G1:1700000060.000100", ID: "1700000060.000100",
				Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "G1", ID: "1700000060.000100"},
				User:   chat.User{Platform: "slack", ID: "U2"}, Text: "hi",
				Place: chat.Place{ChatKind: "group", Thread: "1700000060.000100"}},
		},
		{
			name:  "a DM is one continuing conversation",
			inner: `{"type":"message","user":"U1","text":"hello","ts":"1700000100.000100","channel":"D1","channel_type":"im","event_ts":"1700000100.000100"}`,
			ok:    true,
			want: chat.Message{Key: "T1:D1:1700000100.000100", ID: "1700000100.000100",
				Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"},
				User:   chat.User{Platform: "slack", ID: "U1"}, Text: "hello", Direct: true,
				Place: chat.Place{ChatKind: "direct"}},
		},
		{
			name:  "a DM thread reply is its own conversation",
			inner: `{"type":"message","user":"U1","text":"more","ts":"1700000200.000100","thread_ts":"1700000100.000100","channel":"D1","channel_type":"im","event_ts":"1700000200.000100"}`,
			ok:    true,
			want: chat.Message{Key: "T1:D1:1700000200.000100", ID: "1700000200.000100",
				Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "D1", ID: "1700000100.000100"},
				User:   chat.User{Platform: "slack", ID: "U1"}, Text: "more", Direct: true,
				Place: chat.Place{ChatKind: "direct", Thread: "1700000100.000100"}},
		},
		{
			name:  "another bot's bot_message is flagged",
			inner: `{"type":"message","subtype":"bot_message","bot_id":"B9","username":"ci","text":"build failed","ts":"1700000300.000100","channel":"C1","channel_type":"channel","event_ts":"1700000300.000100"}`,
			ok:    true,
			want: chat.Message{Key: "T1:C1:1700000300.000100", ID: "1700000300.000100",
				Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1700000300.000100"},
				User:   chat.User{Platform: "slack", ID: "B9"}, Text: "build failed", FromBot: true,
				Place: chat.Place{ChatKind: "channel", Thread: "1700000300.000100"}},
		},
		{
			name:  "our own post is flagged",
			inner: `{"type":"message","user":"UBOT","bot_id":"BBOT","app_id":"A1","text":"Here is the summary","ts":"1700000400.000100","thread_ts":"1700000000.000100","channel":"C1","channel_type":"channel","event_ts":"1700000400.000100"}`,
			ok:    true,
			want: chat.Message{Key: "T1:C1:1700000400.000100", ID: "1700000400.000100", Thread: channelThread,
				User: chat.User{Platform: "slack", ID: "UBOT"}, Text: "Here is the summary", FromBot: true,
				Place: chat.Place{ChatKind: "channel", Thread: "1700000000.000100"}},
		},
		{
			name:  "our own message without bot_id is flagged by user id",
			inner: `{"type":"message","user":"UBOT","text":"x","ts":"1700000410.000100","channel":"D1","channel_type":"im","event_ts":"1700000410.000100"}`,
			ok:    true,
			want: chat.Message{Key: "T1:D1:1700000410.000100", ID: "1700000410.000100",
				Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"},
				User:   chat.User{Platform: "slack", ID: "UBOT"}, Text: "x", Direct: true, FromBot: true,
				Place: chat.Place{ChatKind: "direct"}},
		},
		{
			name: "a file shared with a command carries the file",
			inner: `{"type":"message","subtype":"file_share","user":"U1","text":"/kb add","ts":"1700000450.000100","channel":"D1","channel_type":"im","event_ts":"1700000450.000100","upload":false,"files":[` +
				`{"id":"F1","name":"handbook.pdf","title":"Handbook","mimetype":"application/pdf","size":48213,"mode":"hosted",` +
				`"url_private":"https://files.slack.com/files-pri/T1-F1/handbook.pdf","url_private_download":"https://files.slack.com/files-pri/T1-F1/download/handbook.pdf"},` +
				`{"id":"F2","title":"notes","mimetype":"text/plain","size":12,"url_private":"https://files.slack.com/files-pri/T1-F2/notes"},` +
				`{"id":"F3","mode":"tombstone"}]}`,
			ok: true,
			want: chat.Message{Key: "T1:D1:1700000450.000100", ID: "1700000450.000100",
				Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"},
				User:   chat.User{Platform: "slack", ID: "U1"}, Text: "/kb add", Direct: true,
				Place: chat.Place{ChatKind: "direct"},
				Files: []chat.File{
					{ID: "F1", Name: "handbook.pdf", MIME: "application/pdf", Size: 48213, URL: "https://files.slack.com/files-pri/T1-F1/download/handbook.pdf"},
					// No download URL, no name: url_private and the title.
					{ID: "F2", Name: "notes", MIME: "text/plain", Size: 12, URL: "https://files.slack.com/files-pri/T1-F2/notes"},
				}},
		},
		{
			name: "an app_mention carries the files of its message",
			inner: `{"type":"app_mention","user":"U1","text":"<@UBOT> /kb add","ts":"1700000460.000100","channel":"C1","event_ts":"1700000460.000100","files":[` +
				`{"id":"F4","name":"a.md","mimetype":"text/markdown","size":3,"url_private_download":"https://files.slack.com/files-pri/T1-F4/download/a.md"}]}`,
			ok: true,
			want: chat.Message{Key: "T1:C1:1700000460.000100", ID: "1700000460.000100",
				Thread: chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1700000460.000100"},
				User:   chat.User{Platform: "slack", ID: "U1"}, Text: "/kb add", Mentioned: true,
				Place: chat.Place{ChatKind: "channel", Thread: "1700000460.000100"},
				Files: []chat.File{{ID: "F4", Name: "a.md", MIME: "text/markdown", Size: 3, URL: "https://files.slack.com/files-pri/T1-F4/download/a.md"}}},
		},
		{
			name:  "message_changed (our chat.update echoed) is ignored",
			inner: `{"type":"message","subtype":"message_changed","hidden":true,"channel":"C1","channel_type":"channel","ts":"1700000500.000100","event_ts":"1700000500.000100","message":{"type":"message","user":"UBOT","bot_id":"BBOT","text":"edited","ts":"1700000400.000100","edited":{"user":"UBOT","ts":"1700000500.000000"}},"previous_message":{"type":"message","user":"UBOT","text":"Here","ts":"1700000400.000100"}}`,
		},
		{
			name:  "message_deleted is ignored",
			inner: `{"type":"message","subtype":"message_deleted","hidden":true,"channel":"C1","channel_type":"channel","ts":"1700000600.000100","deleted_ts":"1700000400.000100","event_ts":"1700000600.000100","previous_message":{"type":"message","user":"U1","text":"gone","ts":"1700000400.000100"}}`,
		},
		{
			name:  "channel_join is ignored",
			inner: `{"type":"message","subtype":"channel_join","user":"U3","text":"<@U3> has joined the channel","ts":"1700000700.000100","channel":"C1","channel_type":"channel","event_ts":"1700000700.000100"}`,
		},
		{
			name:  "an edited app_mention is ignored",
			inner: `{"type":"app_mention","user":"U1","text":"<@UBOT> fixed typo","ts":"1700000000.000100","channel":"C1","event_ts":"1700000800.000100","edited":{"user":"U1","ts":"1700000800.000000"}}`,
		},
		{
			name:  "other events are ignored",
			inner: `{"type":"reaction_added","user":"U1","reaction":"thumbsup","item":{"type":"message","channel":"C1","ts":"1700000000.000100"},"event_ts":"1700000900.000100"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := normalizeEvent(parseEvent(t, callback(tt.inner)), testSelf)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v (message %+v)", ok, tt.ok, got)
			}
			if diff := cmp.Diff(tt.want, got); ok && diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStripMention(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<@UBOT> hi", "hi"},
		{"hi <@UBOT>", "hi"},
		{"ask <@UBOT> now", "ask now"},
		{"<@UBOT|parley> labelled", "labelled"},
		{"<@UBOT2> is someone else", "<@UBOT2> is someone else"},
		{"<@U<@UBOT>BOT> nested", "nested"},
		{"<@UBOT>", ""},
		{"cc <@U1> and <@UBOT>", "cc <@U1> and"},
		{"<@UBOT", "<@UBOT"},
	}
	for _, tt := range tests {
		if got := stripMention(tt.in, "UBOT"); got != tt.want {
			t.Errorf("stripMention(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if !mentions("hey <@UBOT|parley>", "UBOT") || mentions("hey <@UBOT2>", "UBOT") || mentions("hey <@UBOT>", "") {
		t.Error("mentions misjudges a mention")
	}
}

// FuzzStripMention: arbitrary text never panics and never keeps a
// mention of the bot.
func FuzzStripMention(f *testing.F) {
	for _, s := range []string{"<@UBOT> hi", "<@U<@UBOT>BOT>", "<@UBOT|x", "<@UBOT|a>b>", "\xff<@UBOT>", "<<@UBOT>@UBOT>>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		got := stripMention(text, "UBOT")
		if mentionAt(got, "UBOT") >= 0 {
			t.Errorf("stripMention(%q) = %q still mentions the bot", text, got)
		}
		m, ok := normalizeMessage("T1", &slackevents.MessageEvent{Type: "message", User: "U1", Text: text, TimeStamp: "1.2", Channel: "C1"}, testSelf)
		if !ok || mentionAt(m.Text, "UBOT") >= 0 {
			t.Errorf("normalized %q to %+v", text, m)
		}
	})
}

func TestNormalizeAction(t *testing.T) {
	const clickInThread = `{"type":"block_actions","user":{"id":"U2","username":"bob","name":"bob","team_id":"T1"},"api_app_id":"A1","token":"x",
"container":{"type":"message","message_ts":"1700000400.000100","channel_id":"C1","is_ephemeral":false,"thread_ts":"1700000000.000100"},
"trigger_id":"111.222.abc","team":{"id":"T1","domain":"acme"},"channel":{"id":"C1","name":"general"},
"message":{"type":"message","user":"UBOT","bot_id":"BBOT","text":"May I run the deploy","ts":"1700000400.000100","thread_ts":"1700000000.000100"},
"response_url":"https://hooks.slack.com/actions/T1/1/x",
"actions":[{"action_id":"parley_button_0","block_id":"parley_actions_0","text":{"type":"plain_text","text":"Approve"},"value":"a:42","style":"primary","type":"button","action_ts":"1700000450.000300"}]}`
	const clickInDM = `{"type":"block_actions","user":{"id":"U1","name":"alice"},"container":{"type":"message","message_ts":"1700000500.000100","channel_id":"D1"},
"team":{"id":"T1"},"channel":{"id":"D1","name":"directmessage"},
"actions":[{"action_id":"parley_button_1","block_id":"parley_actions_0","value":"d:42","type":"button","action_ts":"1700000550.000300"}]}`
	const viewSubmission = `{"type":"view_submission","user":{"id":"U1"},"team":{"id":"T1"},"view":{"id":"V1"}}`

	inThread := chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1700000000.000100"}
	dm := chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"}
	tests := []struct {
		name, payload string
		ok            bool
		want          chat.Action
	}{
		{"click in a thread", clickInThread, true, chat.Action{Key: "111.222.abc", Thread: inThread,
			User: chat.User{Platform: "slack", ID: "U2", Name: "bob"}, Data: "a:42",
			Message: chat.MessageRef{Thread: inThread, ID: "1700000400.000100"}}},
		{"click in a DM without trigger id", clickInDM, true, chat.Action{Key: "T1:D1:1700000500.000100:1700000550.000300", Thread: dm,
			User: chat.User{Platform: "slack", ID: "U1", Name: "alice"}, Data: "d:42",
			Message: chat.MessageRef{Thread: dm, ID: "1700000500.000100"}}},
		{"view submission", viewSubmission, false, chat.Action{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cb slack.InteractionCallback
			if err := json.Unmarshal([]byte(tt.payload), &cb); err != nil {
				t.Fatalf("unmarshal: %v", err)
			}
			got, ok := normalizeAction(&cb)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			got.Respond = nil
			if ok && (got.Key != tt.want.Key || got.Thread != tt.want.Thread || got.User != tt.want.User ||
				got.Data != tt.want.Data || got.Message != tt.want.Message) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestNormalizeCommand(t *testing.T) {
	base := slack.SlashCommand{TeamID: "T1", ChannelID: "C1", ChannelName: "general", UserID: "U1", UserName: "alice",
		Command: "/parley", ResponseURL: "https://hooks.slack.com/commands/T1/1/x", TriggerID: "333.444.def"}
	with := func(f func(*slack.SlashCommand)) slack.SlashCommand { sc := base; f(&sc); return sc }
	tests := []struct {
		name   string
		sc     slack.SlashCommand
		ok     bool
		cmd    string
		args   []string
		direct bool
	}{
		{"subcommand with args", with(func(s *slack.SlashCommand) { s.Text = "memory forget 2" }), true, "memory", []string{"forget", "2"}, false},
		{"alone is help", base, true, "help", nil, false},
		{"blank text is help", with(func(s *slack.SlashCommand) { s.Text = "   " }), true, "help", nil, false},
		{"case and a typed slash", with(func(s *slack.SlashCommand) { s.Text = "/Status" }), true, "status", nil, false},
		{"in a DM", with(func(s *slack.SlashCommand) { s.ChannelID, s.ChannelName, s.Text = "D1", "directmessage", "new" }), true, "new", nil, true},
		{"a command of its own", with(func(s *slack.SlashCommand) { s.Command, s.Text = "/memory", "clear" }), true, "memory", []string{"clear"}, false},
		{"no user", with(func(s *slack.SlashCommand) { s.UserID = "" }), false, "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := normalizeCommand(&tt.sc)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if got.Name != tt.cmd || !slices.Equal(got.Args, tt.args) || got.Direct != tt.direct {
				t.Errorf("got Name %q Args %q Direct %v; want %q %q %v", got.Name, got.Args, got.Direct, tt.cmd, tt.args, tt.direct)
			}
			wantThread := chat.Thread{Platform: "slack", Space: "T1", Chat: tt.sc.ChannelID}
			if got.Thread != wantThread || got.User.ID != "U1" || !strings.HasSuffix(got.Key, "333.444.def") {
				t.Errorf("got %+v", got)
			}
		})
	}
}
