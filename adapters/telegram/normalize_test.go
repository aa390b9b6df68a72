package telegram

import (
	"context"
	"errors"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/chat"
)

// The world of the normalization tests.
const (
	alice   = `{"id":11,"is_bot":false,"first_name":"Alice","last_name":"Smith"}`
	botUser = `{"id":1000,"is_bot":true,"first_name":"Parley","username":"parley_bot"}`
	dmChat  = `{"id":11,"type":"private","first_name":"Alice","last_name":"Smith"}`
	group   = `{"id":-100500,"type":"supergroup","title":"Team"}`
	forum   = `{"id":-100600,"type":"supergroup","title":"Forum","is_forum":true}`
)

var testMe = tgbotapi.User{ID: testBotID, IsBot: true, FirstName: "Parley", UserName: testBotName}

// offlineAdapter normalizes without a network: nothing it does here calls
// Telegram.
func offlineAdapter(t testing.TB, st chat.PlatformState) *Adapter {
	t.Helper()
	a, err := New(Config{Token: testToken, APIURL: "http://127.0.0.1:1", State: st, Logger: discard})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	a.me.Set(testMe)
	return a
}

func TestNormalizeMessage(t *testing.T) {
	aliceU := chat.User{Platform: "telegram", ID: "11", Name: "Alice Smith"}
	inGroup := func(id string) chat.Thread { return chat.Thread{Platform: "telegram", Chat: "-100500", ID: id} }
	teamPlace := chat.Place{ChatName: "Team", ChatKind: "group"}
	tests := []struct {
		name      string
		seed      map[string]string // State before
		update    string
		want      *chat.Message // nil: dropped
		wantChain map[string]string
		wantCmd   []string // what chat.ParseCommand reads in the text
	}{{
		name:   "private chat",
		update: `{"message":{"message_id":5,"from":` + alice + `,"chat":` + dmChat + `,"date":1,"text":"hello there"}}`,
		want: &chat.Message{Key: "telegram:11:5", ID: "5", Thread: chat.Thread{Platform: "telegram", Chat: "11"}, User: aliceU,
			Text: "hello there", Place: chat.Place{ChatName: "Alice Smith", ChatKind: "direct"}, Direct: true},
	}, {
		name: "group mention starts a chain",
		update: `{"message":{"message_id":7,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"@Parley_Bot summarize this",
			"entities":[{"type":"mention","offset":0,"length":11}]}}`,
		want: &chat.Message{Key: "telegram:-100500:7", ID: "7", Thread: inGroup("7"), User: aliceU,
			Text: "summarize this", Place: teamPlace, Mentioned: true},
		wantChain: map[string]string{"telegram:chain:-100500:7": "7"},
	}, {
		name: "mention mid-text after an emoji (UTF-16 offsets)",
		update: `{"message":{"message_id":8,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"hi 👋 @parley_bot please",
			"entities":[{"type":"mention","offset":6,"length":11}]}}`,
		want: &chat.Message{Key: "telegram:-100500:8", ID: "8", Thread: inGroup("8"), User: aliceU,
			Text: "hi 👋 please", Place: teamPlace, Mentioned: true},
	}, {
		name: "text_mention of the bot",
		update: `{"message":{"message_id":9,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"Parley do it",
			"entities":[{"type":"text_mention","offset":0,"length":6,"user":` + botUser + `}]}}`,
		want: &chat.Message{Key: "telegram:-100500:9", ID: "9", Thread: inGroup("9"), User: aliceU,
			Text: "do it", Place: teamPlace, Mentioned: true},
	}, {
		name: "mention of someone else",
		update: `{"message":{"message_id":10,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"@bob look",
			"entities":[{"type":"mention","offset":0,"length":4}]}}`,
		want: &chat.Message{Key: "telegram:-100500:10", ID: "10", Thread: inGroup("10"), User: aliceU,
			Text: "@bob look", Place: teamPlace},
	}, {
		name: "reply to the bot continues its chain",
		seed: map[string]string{"telegram:chain:-100500:50": "40"},
		update: `{"message":{"message_id":51,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"and then?",
			"reply_to_message":{"message_id":50,"from":` + botUser + `,"chat":` + group + `,"date":1,"text":"answer"}}}`,
		want: &chat.Message{Key: "telegram:-100500:51", ID: "51", Thread: inGroup("40"), User: aliceU,
			Text: "and then?", Place: teamPlace, Mentioned: true},
		wantChain: map[string]string{"telegram:chain:-100500:51": "40"},
	}, {
		name: "reply to a person in a known chain continues it",
		seed: map[string]string{"telegram:chain:-100500:41": "40"},
		update: `{"message":{"message_id":52,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"agreed",
			"reply_to_message":{"message_id":41,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"x"}}}`,
		want: &chat.Message{Key: "telegram:-100500:52", ID: "52", Thread: inGroup("40"), User: aliceU,
			Text: "agreed", Place: teamPlace},
	}, {
		name: "reply outside any chain roots a new one",
		update: `{"message":{"message_id":53,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"what",
			"reply_to_message":{"message_id":3,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"x"}}}`,
		want: &chat.Message{Key: "telegram:-100500:53", ID: "53", Thread: inGroup("53"), User: aliceU,
			Text: "what", Place: teamPlace},
		wantChain: map[string]string{"telegram:chain:-100500:53": "53"},
	}, {
		name: "topic message replying to the topic's creation is no reply",
		update: `{"message":{"message_id":78,"message_thread_id":77,"is_topic_message":true,"from":` + alice + `,"chat":` + forum + `,"date":1,"text":"status?",
			"reply_to_message":{"message_id":77,"message_thread_id":77,"from":` + botUser + `,"chat":` + forum + `,"date":1,"forum_topic_created":{"name":"Deploys","icon_color":1}}}}`,
		want: &chat.Message{Key: "telegram:-100600:78", ID: "78", Thread: chat.Thread{Platform: "telegram", Chat: "-100600", ID: "topic:77"},
			User: aliceU, Text: "status?", Place: chat.Place{ChatName: "Forum", ChatKind: "group", Thread: "Deploys"}},
	}, {
		name: "topic message replying to the bot",
		update: `{"message":{"message_id":79,"message_thread_id":77,"is_topic_message":true,"from":` + alice + `,"chat":` + forum + `,"date":1,"text":"why",
			"reply_to_message":{"message_id":60,"message_thread_id":77,"from":` + botUser + `,"chat":` + forum + `,"date":1,"text":"because"}}}`,
		want: &chat.Message{Key: "telegram:-100600:79", ID: "79", Thread: chat.Thread{Platform: "telegram", Chat: "-100600", ID: "topic:77"},
			User: aliceU, Text: "why", Place: chat.Place{ChatName: "Forum", ChatKind: "group"}, Mentioned: true},
	}, {
		name: "command addressed to us",
		update: `{"message":{"message_id":12,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"/memory@Parley_bot forget 2",
			"entities":[{"type":"bot_command","offset":0,"length":18}]}}`,
		want: &chat.Message{Key: "telegram:-100500:12", ID: "12", Thread: inGroup("12"), User: aliceU,
			Text: "/memory forget 2", Place: teamPlace, Mentioned: true},
		wantCmd: []string{"memory", "forget", "2"},
	}, {
		name: "bare command",
		update: `{"message":{"message_id":13,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"/help",
			"entities":[{"type":"bot_command","offset":0,"length":5}]}}`,
		want: &chat.Message{Key: "telegram:-100500:13", ID: "13", Thread: inGroup("13"), User: aliceU,
			Text: "/help", Place: teamPlace, Mentioned: true},
	}, {
		name: "command for another bot is dropped",
		update: `{"message":{"message_id":14,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"/memory@otherbot",
			"entities":[{"type":"bot_command","offset":0,"length":16}]}}`,
	}, {
		name:   "from a bot",
		update: `{"message":{"message_id":15,"from":{"id":77,"is_bot":true,"first_name":"Helper"},"chat":` + group + `,"date":1,"text":"beep"}}`,
		want: &chat.Message{Key: "telegram:-100500:15", ID: "15", Thread: inGroup("15"),
			User: chat.User{Platform: "telegram", ID: "77", Name: "Helper"}, Text: "beep", Place: teamPlace, FromBot: true},
	}, {
		name: "anonymous admin is the chat, not the placeholder",
		update: `{"message":{"message_id":16,"from":{"id":1087968824,"is_bot":true,"first_name":"Group","username":"GroupAnonymousBot"},
			"sender_chat":` + group + `,"chat":` + group + `,"date":1,"text":"announce"}}`,
		want: &chat.Message{Key: "telegram:-100500:16", ID: "16", Thread: inGroup("16"),
			User: chat.User{Platform: "telegram", ID: "chat:-100500", Name: "Team"}, Text: "announce", Place: teamPlace},
	}, {
		name: "caption counts as text",
		update: `{"message":{"message_id":17,"from":` + alice + `,"chat":` + dmChat + `,"date":1,"photo":[{"file_id":"f","file_unique_id":"u","width":1,"height":1}],
			"caption":"@parley_bot what is this","caption_entities":[{"type":"mention","offset":0,"length":11}]}}`,
		want: &chat.Message{Key: "telegram:11:17", ID: "17", Thread: chat.Thread{Platform: "telegram", Chat: "11"}, User: aliceU,
			Text: "what is this", Place: chat.Place{ChatName: "Alice Smith", ChatKind: "direct"}, Direct: true, Mentioned: true,
			Files: []chat.File{{ID: "f", Name: "photo.jpg", MIME: "image/jpeg"}}},
	}, {
		name: "a document captioned with a command is the command, with the file",
		update: `{"message":{"message_id":20,"from":` + alice + `,"chat":` + group + `,"date":1,
			"document":{"file_id":"BQAC-doc","file_unique_id":"AgAD1","file_name":"handbook.pdf","mime_type":"application/pdf","file_size":48213},
			"caption":"/kb@parley_bot add","caption_entities":[{"type":"bot_command","offset":0,"length":14}]}}`,
		want: &chat.Message{Key: "telegram:-100500:20", ID: "20", Thread: inGroup("20"), User: aliceU,
			Text: "/kb add", Place: teamPlace, Mentioned: true,
			Files: []chat.File{{ID: "BQAC-doc", Name: "handbook.pdf", MIME: "application/pdf", Size: 48213}}},
		wantCmd: []string{"kb", "add"},
	}, {
		name: "a photo is its largest size",
		update: `{"message":{"message_id":21,"from":` + alice + `,"chat":` + dmChat + `,"date":1,"caption":"this one",
			"photo":[{"file_id":"small","file_unique_id":"u1","width":90,"height":68,"file_size":1200},
				{"file_id":"large","file_unique_id":"u3","width":1280,"height":960,"file_size":98000},
				{"file_id":"medium","file_unique_id":"u2","width":320,"height":240,"file_size":12000}]}}`,
		want: &chat.Message{Key: "telegram:11:21", ID: "21", Thread: chat.Thread{Platform: "telegram", Chat: "11"}, User: aliceU,
			Text: "this one", Place: chat.Place{ChatName: "Alice Smith", ChatKind: "direct"}, Direct: true,
			Files: []chat.File{{ID: "large", Name: "photo.jpg", MIME: "image/jpeg", Size: 98000}}},
	}, {
		name: "a document without a name or size",
		update: `{"message":{"message_id":22,"from":` + alice + `,"chat":` + dmChat + `,"date":1,"caption":"/kb add",
			"caption_entities":[{"type":"bot_command","offset":0,"length":3}],"document":{"file_id":"d","file_unique_id":"u"}}}`,
		want: &chat.Message{Key: "telegram:11:22", ID: "22", Thread: chat.Thread{Platform: "telegram", Chat: "11"}, User: aliceU,
			Text: "/kb add", Place: chat.Place{ChatName: "Alice Smith", ChatKind: "direct"}, Direct: true, Mentioned: true,
			Files: []chat.File{{ID: "d", Name: "document"}}},
	}, {
		// The file is the message: the core reads it (a picture, a text).
		name:   "a document without a caption is seen",
		update: `{"message":{"message_id":23,"from":` + alice + `,"chat":` + dmChat + `,"date":1,"document":{"file_id":"d","file_unique_id":"u"}}}`,
		want: &chat.Message{Key: "telegram:11:23", ID: "23", Thread: chat.Thread{Platform: "telegram", Chat: "11"}, User: aliceU,
			Place: chat.Place{ChatName: "Alice Smith", ChatKind: "direct"}, Direct: true, Files: []chat.File{{ID: "d", Name: "document"}}},
	}, {
		// Parley reads none of these, and the core says so: never unseen.
		name:   "a voice note is seen",
		update: `{"message":{"message_id":30,"from":` + alice + `,"chat":` + dmChat + `,"date":1,"voice":{"file_id":"v","file_unique_id":"u","duration":3,"mime_type":"audio/ogg","file_size":5120}}}`,
		want: &chat.Message{Key: "telegram:11:30", ID: "30", Thread: chat.Thread{Platform: "telegram", Chat: "11"}, User: aliceU,
			Place: chat.Place{ChatName: "Alice Smith", ChatKind: "direct"}, Direct: true, Files: []chat.File{{ID: "v", Name: "voice message", MIME: "audio/ogg", Size: 5120, Duration: 3 * time.Second}}},
	}, {
		name:   "audio, video and a round video are seen, typed when Telegram does not say",
		update: `{"message":{"message_id":31,"from":` + alice + `,"chat":` + dmChat + `,"date":1,"audio":{"file_id":"a","file_unique_id":"u1","duration":60,"title":"Standup"},"video":{"file_id":"vd","file_unique_id":"u2","width":1,"height":1,"duration":1,"file_name":"demo.mov","mime_type":"video/quicktime"},"video_note":{"file_id":"vn","file_unique_id":"u3","length":240,"duration":5}}}`,
		want: &chat.Message{Key: "telegram:11:31", ID: "31", Thread: chat.Thread{Platform: "telegram", Chat: "11"}, User: aliceU,
			Place: chat.Place{ChatName: "Alice Smith", ChatKind: "direct"}, Direct: true, Files: []chat.File{
				{ID: "a", Name: "Standup", MIME: "audio/mpeg", Duration: time.Minute}, {ID: "vd", Name: "demo.mov", MIME: "video/quicktime", Duration: time.Second},
				{ID: "vn", Name: "video message", MIME: "video/mp4", Duration: 5 * time.Second}}},
	}, {
		name:   "an animation is its document, once",
		update: `{"message":{"message_id":32,"from":` + alice + `,"chat":` + dmChat + `,"date":1,"animation":{"file_id":"g","file_unique_id":"u","width":1,"height":1,"duration":1,"file_name":"cat.mp4","mime_type":"video/mp4"},"document":{"file_id":"g","file_unique_id":"u","file_name":"cat.mp4","mime_type":"video/mp4"}}}`,
		want: &chat.Message{Key: "telegram:11:32", ID: "32", Thread: chat.Thread{Platform: "telegram", Chat: "11"}, User: aliceU,
			Place: chat.Place{ChatName: "Alice Smith", ChatKind: "direct"}, Direct: true, Files: []chat.File{{ID: "g", Name: "cat.mp4", MIME: "video/mp4"}}},
	}, {
		name:   "a sticker is its emoji",
		update: `{"message":{"message_id":33,"from":` + alice + `,"chat":` + dmChat + `,"date":1,"sticker":{"file_id":"s","file_unique_id":"u","width":512,"height":512,"is_animated":false,"emoji":"👍"}}}`,
		want: &chat.Message{Key: "telegram:11:33", ID: "33", Thread: chat.Thread{Platform: "telegram", Chat: "11"}, User: aliceU,
			Place: chat.Place{ChatName: "Alice Smith", ChatKind: "direct"}, Direct: true, Text: "[sticker 👍]"},
	}, {
		name: "a photo without a caption is seen",
		update: `{"message":{"message_id":24,"from":` + alice + `,"chat":` + group + `,"date":1,
			"photo":[{"file_id":"p","file_unique_id":"u","width":800,"height":600,"file_size":50000}]}}`,
		want: &chat.Message{Key: "telegram:-100500:24", ID: "24", Thread: inGroup("24"), User: aliceU, Place: teamPlace,
			Files: []chat.File{{ID: "p", Name: "photo.jpg", MIME: "image/jpeg", Size: 50000}}},
	}, {
		name:   "service message without text is dropped",
		update: `{"message":{"message_id":18,"from":` + alice + `,"chat":` + group + `,"date":1,"new_chat_members":[` + alice + `]}}`,
	}, {
		name:   "entities out of range are ignored",
		update: `{"message":{"message_id":19,"from":` + alice + `,"chat":` + dmChat + `,"date":1,"text":"hey","entities":[{"type":"mention","offset":2,"length":40},{"type":"bot_command","offset":-1,"length":2}]}}`,
		want: &chat.Message{Key: "telegram:11:19", ID: "19", Thread: chat.Thread{Platform: "telegram", Chat: "11"}, User: aliceU,
			Text: "hey", Place: chat.Place{ChatName: "Alice Smith", ChatKind: "direct"}, Direct: true},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newMemState()
			for k, v := range tt.seed {
				st.kv[k] = v
			}
			a := offlineAdapter(t, st)
			u, err := decodeUpdate([]byte(tt.update))
			if err != nil {
				t.Fatalf("decodeUpdate: %v", err)
			}
			got, ok, err := a.normalizeMessage(t.Context(), u.tg.Message, u.ext.Message, testMe)
			if err != nil {
				t.Fatalf("normalizeMessage: %v", err)
			}
			switch {
			case tt.want == nil && ok:
				t.Fatalf("got %+v, want it dropped", got)
			case tt.want != nil && !ok:
				t.Fatalf("dropped, want %+v", *tt.want)
			case tt.want != nil:
				if diff := cmp.Diff(*tt.want, got); diff != "" {
					t.Errorf("message (-want +got):\n%s", diff)
				}
			}
			for k, v := range tt.wantChain {
				if got := st.get(k); got != v {
					t.Errorf("State[%s] = %q, want %q", k, got, v)
				}
			}
			if tt.wantCmd != nil {
				name, args, _ := chat.ParseCommand(got.Text)
				if diff := cmp.Diff(tt.wantCmd, append([]string{name}, args...)); diff != "" {
					t.Errorf("the core parses %q as (-want +got):\n%s", got.Text, diff)
				}
			}
		})
	}
}

func TestNormalizeStateFailureIsRetried(t *testing.T) {
	st := newMemState()
	st.failGet = errors.New("disk full")
	a := offlineAdapter(t, st)
	rec := newRecorder()
	raw := `{"update_id":3,"message":{"message_id":51,"from":` + alice + `,"chat":` + group + `,"date":1,"text":"x",
		"reply_to_message":{"message_id":50,"from":` + botUser + `,"chat":` + group + `,"date":1,"text":"y"}}}`
	if err := a.dispatch(t.Context(), rec, []byte(raw)); err == nil {
		t.Fatal("dispatch with a failing State returned nil: the update would be skipped")
	}
	if n := len(rec.messages()); n != 0 {
		t.Errorf("handler got %d messages", n)
	}
}

func TestDispatchSkipsMalformed(t *testing.T) {
	a := offlineAdapter(t, newMemState())
	rec := newRecorder()
	for _, raw := range []string{
		`{"update_id":1,"message":"nope"}`,
		`{"update_id":2,"message":{"message_id":"x","chat":{"id":1}}}`,
		`{"update_id":3,"callback_query":[1,2]}`,
		`{"update_id":4}`,
		`{"update_id":5,"edited_message":{"message_id":1,"chat":{"id":1,"type":"private"},"text":"x"}}`,
	} {
		if err := a.dispatch(t.Context(), rec, []byte(raw)); err != nil {
			t.Errorf("dispatch(%s) = %v, want nil (skipped)", raw, err)
		}
	}
	if n := len(rec.messages()) + len(rec.actions()); n != 0 {
		t.Errorf("handler got %d events from malformed updates", n)
	}
}

func TestNormalizeAction(t *testing.T) {
	tests := []struct {
		name   string
		seed   map[string]string
		update string
		want   *chat.Action
	}{{
		name:   "in a private chat",
		update: `{"callback_query":{"id":"q1","from":` + alice + `,"chat_instance":"c","data":"a:1","message":{"message_id":9,"from":` + botUser + `,"chat":` + dmChat + `,"date":1,"text":"ok?"}}}`,
		want: &chat.Action{Key: "telegram:cb:q1", Thread: chat.Thread{Platform: "telegram", Chat: "11"},
			User: chat.User{Platform: "telegram", ID: "11", Name: "Alice Smith"}, Data: "a:1",
			Message: chat.MessageRef{Thread: chat.Thread{Platform: "telegram", Chat: "11"}, ID: "9"}},
	}, {
		name:   "in a topic",
		update: `{"callback_query":{"id":"q2","from":` + alice + `,"chat_instance":"c","data":"d","message":{"message_id":90,"message_thread_id":77,"is_topic_message":true,"from":` + botUser + `,"chat":` + forum + `,"date":1,"text":"ok?"}}}`,
		want: &chat.Action{Key: "telegram:cb:q2", Thread: chat.Thread{Platform: "telegram", Chat: "-100600", ID: "topic:77"},
			User: chat.User{Platform: "telegram", ID: "11", Name: "Alice Smith"}, Data: "d",
			Message: chat.MessageRef{Thread: chat.Thread{Platform: "telegram", Chat: "-100600", ID: "topic:77"}, ID: "90"}},
	}, {
		name:   "in a reply chain",
		seed:   map[string]string{"telegram:chain:-100500:60": "40"},
		update: `{"callback_query":{"id":"q3","from":` + alice + `,"chat_instance":"c","data":"d","message":{"message_id":60,"from":` + botUser + `,"chat":` + group + `,"date":1,"text":"ok?"}}}`,
		want: &chat.Action{Key: "telegram:cb:q3", Thread: chat.Thread{Platform: "telegram", Chat: "-100500", ID: "40"},
			User: chat.User{Platform: "telegram", ID: "11", Name: "Alice Smith"}, Data: "d",
			Message: chat.MessageRef{Thread: chat.Thread{Platform: "telegram", Chat: "-100500", ID: "40"}, ID: "60"}},
	}, {
		name:   "inline message without a message",
		update: `{"callback_query":{"id":"q4","from":` + alice + `,"chat_instance":"c","inline_message_id":"i","data":"d"}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newMemState()
			for k, v := range tt.seed {
				st.kv[k] = v
			}
			a := offlineAdapter(t, st)
			u, err := decodeUpdate([]byte(tt.update))
			if err != nil {
				t.Fatalf("decodeUpdate: %v", err)
			}
			got, ok, err := a.normalizeAction(t.Context(), u.tg.CallbackQuery, u.ext.CallbackQuery.Message)
			if err != nil {
				t.Fatalf("normalizeAction: %v", err)
			}
			if tt.want == nil {
				if ok {
					t.Fatalf("got %+v, want it dropped", got)
				}
				return
			}
			if !ok {
				t.Fatal("dropped")
			}
			if diff := cmp.Diff(*tt.want, got, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Respond" }, cmp.Ignore())); diff != "" {
				t.Errorf("action (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzNormalize: no update, however malformed, panics the receive path.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		`{"update_id":1,"message":{"message_id":5,"from":` + alice + `,"chat":` + dmChat + `,"date":1,"text":"hello"}}`,
		`{"update_id":2,"message":{"message_id":8,"from":` + alice + `,"chat":` + group + `,"text":"hi 👋 @parley_bot x","entities":[{"type":"mention","offset":6,"length":11},{"type":"bot_command","offset":0,"length":99}]}}`,
		`{"update_id":3,"message":{"message_id":9,"sender_chat":` + group + `,"chat":` + forum + `,"is_topic_message":true,"message_thread_id":-4,"text":"/a@","entities":[{"type":"bot_command","offset":0,"length":3}],"reply_to_message":{"message_id":0,"from":` + botUser + `}}}`,
		`{"update_id":4,"callback_query":{"id":"q","from":` + alice + `,"message":{"message_id":1,"chat":` + group + `}}}`,
		`{"update_id":5,"message":{"chat":null,"text":"\ud800"}}`,
		`[]`, `null`, `{"message":{"text":"x","entities":[{"type":"text_mention","offset":0,"length":1}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		a := offlineAdapter(t, newMemState())
		u, err := decodeUpdate(raw)
		if err != nil {
			return
		}
		ctx := context.Background()
		if m, ok, err := a.normalizeMessage(ctx, u.tg.Message, u.ext.Message, testMe); err == nil && ok {
			if m.Key == "" || m.Thread.Chat == "" || m.User.ID == "" {
				t.Errorf("normalized without identity: %+v", m)
			}
		}
		var x *extMessage
		if u.ext.CallbackQuery != nil {
			x = u.ext.CallbackQuery.Message
		}
		_, _, _ = a.normalizeAction(ctx, u.tg.CallbackQuery, x)
	})
}
