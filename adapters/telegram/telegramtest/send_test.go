package telegramtest_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
)

func TestSendInTopicWithReplyParameters(t *testing.T) {
	srv, bot := newServer(t)
	topic := srv.AddTopic(forum, "Planning")
	asked := srv.Post(telegramtest.Incoming{Chat: forum, From: alice, Text: "plan it", Topic: topic, Mention: true})

	p := tgbotapi.Params{"chat_id": id(forum), "text": "<b>Plan</b> ready", "parse_mode": "HTML"}
	p.AddNonZero("message_thread_id", topic)
	if err := p.AddInterface("reply_parameters", map[string]any{"message_id": asked.MessageID}); err != nil {
		t.Fatal(err)
	}
	m, err := send(t, bot, p)
	if err != nil {
		t.Fatal(err)
	}
	if m.ThreadID != topic || !m.IsTopicMessage || m.Text != "Plan ready" || m.From.ID != srv.BotID() {
		t.Fatalf("sent = %+v", m)
	}
	if m.ReplyTo == nil || m.ReplyTo.MessageID != asked.MessageID || m.ReplyTo.ReplyTo != nil {
		t.Fatalf("reply_to_message = %+v, want message %d one level deep", m.ReplyTo, asked.MessageID)
	}
	if len(m.Entities) != 1 || m.Entities[0].Type != "bold" || m.Entities[0].Length != 4 {
		t.Errorf("entities = %+v", m.Entities)
	}
	got := srv.TopicMessages(forum, topic)
	if len(got) != 3 || !got[0].Service || got[0].Visible != "Planning" {
		t.Fatalf("topic messages = %+v", got)
	}
	want := telegramtest.Message{ID: m.MessageID, Chat: forum, Topic: topic, From: srv.BotID(), FromBot: true,
		Text: "<b>Plan</b> ready", ParseMode: "HTML", Visible: "Plan ready", Bold: []string{"Plan"}, ReplyTo: asked.MessageID,
		Entities: []telegramtest.Entity{{Type: "bold", Offset: 0, Length: 4}}}
	if diff := cmp.Diff(want, got[2]); diff != "" {
		t.Errorf("recorded message (-want +got):\n%s", diff)
	}

	// The user's message in the topic replies to the topic's root.
	ups, err := poll(bot, tgbotapi.Params{})
	if err != nil || len(ups) != 1 || ups[0].Message.ReplyToMessage == nil || ups[0].Message.ReplyToMessage.MessageID != topic {
		t.Fatalf("inbound topic message = %+v, %v", ups, err)
	}
	if e := ups[0].Message.Entities; len(e) != 1 || e[0].Type != "mention" || e[0].Length != len("@"+botUser) {
		t.Errorf("mention entities = %+v", e)
	}
}

func TestSendValidation(t *testing.T) {
	srv, bot := newServer(t, telegramtest.WithoutRateLimits())
	srv.AddTopic(forum, "T")
	tests := []struct {
		name   string
		params tgbotapi.Params
		code   int
		desc   string
	}{
		{"unknown chat", tgbotapi.Params{"chat_id": "-999", "text": "x"}, 400, "Bad Request: chat not found"},
		{"empty text", tgbotapi.Params{"chat_id": id(alice), "text": ""}, 400, "Bad Request: message text is empty"},
		{"only tags", tgbotapi.Params{"chat_id": id(alice), "text": "<b> </b>", "parse_mode": "HTML"}, 400, "Bad Request: message text is empty"},
		{"too long by utf16", tgbotapi.Params{"chat_id": id(alice), "text": strings.Repeat("😀", 2049)}, 400, "Bad Request: message is too long"},
		{"bad html", tgbotapi.Params{"chat_id": id(alice), "text": "<b>x", "parse_mode": "HTML"}, 400, `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`},
		{"unknown thread", tgbotapi.Params{"chat_id": id(forum), "text": "x", "message_thread_id": "999"}, 400, "Bad Request: message thread not found"},
		{"reply not found", tgbotapi.Params{"chat_id": id(alice), "text": "x", "reply_parameters": `{"message_id":999}`}, 400, "Bad Request: message to be replied not found"},
		{"empty callback data", tgbotapi.Params{"chat_id": id(alice), "text": "x", "reply_markup": `{"inline_keyboard":[[{"text":"A","callback_data":""}]]}`}, 400, "Bad Request: BUTTON_DATA_INVALID"},
		{"65-byte callback data", tgbotapi.Params{"chat_id": id(alice), "text": "x", "reply_markup": `{"inline_keyboard":[[{"text":"A","callback_data":"` + strings.Repeat("d", 65) + `"}]]}`}, 400, "Bad Request: BUTTON_DATA_INVALID"},
		{"malformed markup", tgbotapi.Params{"chat_id": id(alice), "text": "x", "reply_markup": `{"inline_keyboard":`}, 400, "Bad Request: can't parse reply keyboard markup JSON object"},
		{"unstarted user", tgbotapi.Params{"chat_id": id(carol), "text": "hi"}, 403, "Forbidden: bot can't initiate conversation with a user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := send(t, bot, tt.params)
			wantAPIError(t, err, tt.code, tt.desc)
		})
	}
	if n := len(srv.BotMessages(alice)) + len(srv.BotMessages(forum)); n != 0 {
		t.Errorf("%d messages recorded by rejected calls", n)
	}

	// Exactly at the limit passes; allow_sending_without_reply drops the reply.
	m, err := send(t, bot, tgbotapi.Params{"chat_id": id(alice), "text": strings.Repeat("😀", 2048),
		"reply_parameters": `{"message_id":999,"allow_sending_without_reply":true}`})
	if err != nil || m.ReplyTo != nil {
		t.Fatalf("4096 units = %v, reply %+v", err, m.ReplyTo)
	}
}

func TestEditNotModifiedAndMarkupRemoval(t *testing.T) {
	srv, bot := newServer(t, telegramtest.WithoutRateLimits())
	msg := tgbotapi.NewMessage(group, "<i>Approve?</i>")
	msg.ParseMode = tgbotapi.ModeHTML
	kb := tgbotapi.NewInlineKeyboardMarkup(tgbotapi.NewInlineKeyboardRow(
		tgbotapi.NewInlineKeyboardButtonData("Approve", "ap:1"), tgbotapi.NewInlineKeyboardButtonData("Deny", "dn:1")))
	msg.ReplyMarkup = kb
	sent, err := bot.Send(msg)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.BotMessages(group)[0].Buttons; !cmp.Equal(got, [][]telegramtest.Button{{{Text: "Approve", Data: "ap:1"}, {Text: "Deny", Data: "dn:1"}}}) {
		t.Fatalf("buttons = %+v", got)
	}

	same := tgbotapi.NewEditMessageTextAndMarkup(group, sent.MessageID, "<i>Approve?</i>", kb)
	same.ParseMode = tgbotapi.ModeHTML
	_, err = bot.Send(same)
	wantAPIError(t, err, 400, "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message")

	// Same text without markup is a change: it removes the keyboard.
	plain := tgbotapi.NewEditMessageText(group, sent.MessageID, "<i>Approve?</i>")
	plain.ParseMode = tgbotapi.ModeHTML
	edited, err := bot.Send(plain)
	if err != nil {
		t.Fatal(err)
	}
	if edited.ReplyMarkup != nil {
		t.Errorf("edited message still has markup %+v", edited.ReplyMarkup)
	}
	got := srv.BotMessages(group)[0]
	if got.Buttons != nil || got.Edits != 1 {
		t.Fatalf("after edit: buttons %+v, edits %d", got.Buttons, got.Edits)
	}
	_, err = bot.Send(tgbotapi.NewEditMessageText(group, 999, "x"))
	wantAPIError(t, err, 400, "Bad Request: message to edit not found")
}

func TestClickRoundTrip(t *testing.T) {
	srv, bot := newServer(t)
	msg := tgbotapi.NewMessage(group, "Approve?")
	msg.ReplyMarkup = tgbotapi.NewInlineKeyboardMarkup(
		tgbotapi.NewInlineKeyboardRow(tgbotapi.NewInlineKeyboardButtonData("Approve", "ap:1")),
		tgbotapi.NewInlineKeyboardRow(tgbotapi.NewInlineKeyboardButtonData("Deny", "dn:1")))
	sent, err := bot.Send(msg)
	if err != nil {
		t.Fatal(err)
	}
	qid, err := srv.Click(group, sent.MessageID, 1, bob)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Click(group, sent.MessageID, 2, bob); err == nil {
		t.Error("Click on a missing button succeeded")
	}
	ups, err := poll(bot, tgbotapi.Params{})
	if err != nil || len(ups) != 1 || ups[0].CallbackQuery == nil {
		t.Fatalf("updates = %+v, %v", ups, err)
	}
	cq := ups[0].CallbackQuery
	if cq.ID != qid || cq.Data != "dn:1" || cq.From.ID != bob || cq.Message == nil || cq.Message.MessageID != sent.MessageID || cq.Message.ReplyMarkup == nil {
		t.Fatalf("callback_query = %+v", cq)
	}
	if _, err := bot.Request(tgbotapi.NewCallbackWithAlert(cq.ID, "Denied")); err != nil {
		t.Fatal(err)
	}
	_, err = bot.Request(tgbotapi.NewCallback(cq.ID, "again"))
	wantAPIError(t, err, 400, "Bad Request: query is too old and response timeout expired or query ID is invalid")
	want := []telegramtest.CallbackAnswer{{QueryID: qid, UserID: bob, Text: "Denied", ShowAlert: true}}
	if diff := cmp.Diff(want, srv.CallbackAnswers()); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
}

func TestDrafts(t *testing.T) {
	srv, bot := newServer(t)
	_, err := bot.MakeRequest("sendMessageDraft", tgbotapi.Params{"chat_id": id(group), "draft_id": "7", "text": "x"})
	wantAPIError(t, err, 400, "Bad Request: TEXTDRAFT_PEER_INVALID")
	_, err = bot.MakeRequest("sendMessageDraft", tgbotapi.Params{"chat_id": id(alice), "draft_id": "0", "text": "x"})
	wantAPIError(t, err, 400, "")
	if _, err := bot.MakeRequest("sendMessageDraft", tgbotapi.Params{"chat_id": id(alice), "draft_id": "7", "text": "Thin<b>king</b>", "parse_mode": "HTML"}); err != nil {
		t.Fatal(err)
	}
	want := []telegramtest.Draft{{DraftID: 7, Text: "Thin<b>king</b>", ParseMode: "HTML", Visible: "Thinking"}}
	if diff := cmp.Diff(want, srv.Drafts(alice)); diff != "" {
		t.Errorf("drafts (-want +got):\n%s", diff)
	}
	if len(srv.Messages(alice)) != 0 {
		t.Error("a draft became a message")
	}
}

func TestRateLimitShapeAndLimits(t *testing.T) {
	tests := []struct {
		name      string
		chat      int64
		wantRetry int // retry_after of the 4th message
	}{
		{"private 1/s burst 3", alice, 1},
		{"group 20/min burst 3", group, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, bot := newServer(t)
			for i := range 3 {
				if _, err := bot.Send(tgbotapi.NewMessage(tt.chat, "burst")); err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
			}
			_, err := bot.Send(tgbotapi.NewMessage(tt.chat, "over"))
			te := wantAPIError(t, err, http.StatusTooManyRequests, "")
			if te.RetryAfter != tt.wantRetry || te.Message != "Too Many Requests: retry after "+id(int64(tt.wantRetry)) {
				t.Errorf("429 = %q retry_after %d, want %d", te.Message, te.RetryAfter, tt.wantRetry)
			}
			if srv.RateLimited() != 1 || len(srv.BotMessages(tt.chat)) != 3 {
				t.Errorf("RateLimited %d, messages %d; want 1, 3", srv.RateLimited(), len(srv.BotMessages(tt.chat)))
			}
		})
	}
}

func TestInjectedFaults(t *testing.T) {
	srv, bot := newServer(t, telegramtest.WithoutRateLimits(), telegramtest.WithSeed(7))

	srv.RateLimitNext("sendMessage", 1500*time.Millisecond)
	_, err := bot.Send(tgbotapi.NewMessage(alice, "x"))
	if te := wantAPIError(t, err, 429, "Too Many Requests: retry after 2"); te.RetryAfter != 2 {
		t.Errorf("RetryAfter = %d", te.RetryAfter)
	}

	srv.FailNext("sendMessage", telegramtest.Fault{Status: 502})
	_, err = bot.Send(tgbotapi.NewMessage(alice, "x"))
	wantAPIError(t, err, 502, "Bad Gateway")
	if len(srv.Messages(alice)) != 0 || srv.RateLimited() != 0 {
		t.Fatal("a failed call had an effect")
	}

	srv.DropNext("sendMessage")
	_, err = bot.Send(tgbotapi.NewMessage(alice, "dropped"))
	if err == nil {
		t.Fatal("dropped call answered")
	}
	if msgs := srv.Messages(alice); len(msgs) != 1 || msgs[0].Visible != "dropped" {
		t.Fatalf("dropped call did not take effect: %+v", msgs)
	}

	srv.Storm(0.5, 3, "sendMessage")
	var limited, ok int
	for range 40 {
		_, err := bot.Send(tgbotapi.NewMessage(alice, "storm"))
		switch {
		case err == nil:
			ok++
		default:
			wantAPIError(t, err, 429, "Too Many Requests: retry after 3")
			limited++
		}
	}
	if limited == 0 || ok == 0 {
		t.Errorf("storm 0.5: %d limited, %d ok", limited, ok)
	}
	srv.Storm(0, 0)
	if _, err := bot.Send(tgbotapi.NewMessage(alice, "calm")); err != nil {
		t.Fatalf("after the storm: %v", err)
	}
	if srv.RateLimited() != 0 {
		t.Errorf("injected 429s counted in RateLimited: %d", srv.RateLimited())
	}
}

func TestBadRequests(t *testing.T) {
	srv, _ := newServer(t)
	tests := []struct {
		name  string
		path  string
		ctype string
		body  string
		code  int
		desc  string
	}{
		{"wrong token", "/bot1:wrong/getMe", "", "", 401, "Unauthorized"},
		{"unknown method", "/bot" + srv.Token() + "/sendTelepathy", "", "", 404, "Not Found"},
		{"no bot prefix", "/getMe", "", "", 404, "Not Found"},
		{"malformed json", "/bot" + srv.Token() + "/sendMessage", "application/json", `{"chat_id":`, 400, ""},
		{"malformed form", "/bot" + srv.Token() + "/sendMessage", "application/x-www-form-urlencoded", "chat_id=%zz", 400, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL+tt.path, tt.ctype, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var ans tgbotapi.APIResponse
			if err := jsonDecode(resp, &ans); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.code || ans.Ok || ans.ErrorCode != tt.code || (tt.desc != "" && ans.Description != tt.desc) {
				t.Fatalf("answer = %d %+v, want %d %q", resp.StatusCode, ans, tt.code, tt.desc)
			}
			if tt.code == 400 && !strings.HasPrefix(ans.Description, "Bad Request: ") {
				t.Errorf("description = %q", ans.Description)
			}
		})
	}
}

func TestJSONAndQueryBodies(t *testing.T) {
	srv, _ := newServer(t)
	body := `{"chat_id":` + id(alice) + `,"text":"hi","reply_markup":{"inline_keyboard":[[{"text":"Go","callback_data":"go"}]]}}`
	resp, err := http.Post(srv.URL+"/bot"+srv.Token()+"/sendMessage", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp, err = http.Get(srv.URL + "/bot" + srv.Token() + "/sendChatAction?chat_id=" + id(alice) + "&action=typing")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	msgs := srv.BotMessages(alice)
	if len(msgs) != 1 || msgs[0].Buttons[0][0].Data != "go" {
		t.Fatalf("JSON body message = %+v", msgs)
	}
	if got := srv.ChatActions(alice); len(got) != 1 || got[0] != "typing" {
		t.Fatalf("chat actions = %v", got)
	}
	if c := srv.CallsTo("sendMessage"); len(c) != 1 || c[0].Params["reply_markup"] == "" || c[0].Params["chat_id"] != id(alice) {
		t.Fatalf("recorded params = %+v", c)
	}
}

func TestSetMyCommands(t *testing.T) {
	srv, bot := newServer(t)
	cmds := []tgbotapi.BotCommand{{Command: "memory", Description: "What I remember about you"}, {Command: "new", Description: "Start over"}}
	if _, err := bot.Request(tgbotapi.NewSetMyCommands(cmds...)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cmds, srv.Commands()); diff != "" {
		t.Errorf("commands (-want +got):\n%s", diff)
	}
	_, err := bot.Request(tgbotapi.NewSetMyCommands(tgbotapi.BotCommand{Command: "Bad-Name", Description: "x"}))
	wantAPIError(t, err, 400, "Bad Request: BOT_COMMAND_INVALID")
}
