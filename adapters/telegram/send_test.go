package telegram

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/chat"
)

func TestSendParams(t *testing.T) {
	noPreview := `{"is_disabled":true}`
	tests := []struct {
		name   string
		thread chat.Thread
		out    chat.Out
		want   map[string]string // "" means absent
	}{{
		name:   "private chat, HTML",
		thread: chat.Thread{Platform: "telegram", Chat: "11"},
		out:    chat.Out{Text: "**done** <now>", ReplyTo: "4"},
		want: map[string]string{"chat_id": "11", "text": "<b>done</b> &lt;now&gt;", "parse_mode": "HTML",
			"link_preview_options": noPreview, "message_thread_id": "", "reply_parameters": "", "reply_markup": ""},
	}, {
		name:   "topic with a reply and buttons",
		thread: chat.Thread{Platform: "telegram", Chat: "-100600", ID: "topic:77"},
		out:    chat.Out{Text: "ok?", ReplyTo: "80", Buttons: []chat.Button{{Label: "Approve", Data: "a:1"}, {Label: "Deny", Data: "d:1"}}},
		want: map[string]string{"chat_id": "-100600", "message_thread_id": "77",
			"reply_parameters": `{"allow_sending_without_reply":true,"message_id":80}`,
			"reply_markup":     `{"inline_keyboard":[[{"text":"Approve","callback_data":"a:1"},{"text":"Deny","callback_data":"d:1"}]]}`},
	}, {
		name:   "plain",
		thread: chat.Thread{Platform: "telegram", Chat: "-100500", ID: "40"},
		out:    chat.Out{Text: "**done** <now>", Plain: true},
		want:   map[string]string{"chat_id": "-100500", "text": "done <now>", "parse_mode": "", "message_thread_id": ""},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStub(t)
			a, _ := newTestAdapter(t, s, newMemState())
			ref, err := a.Send(t.Context(), tt.thread, tt.out)
			if err != nil {
				t.Fatalf("Send: %v", err)
			}
			if ref.Thread != tt.thread || ref.ID != "101" {
				t.Errorf("ref = %+v, want message 101 in %v", ref, tt.thread)
			}
			calls := s.callsTo("sendMessage")
			if len(calls) != 1 {
				t.Fatalf("%d sendMessage calls", len(calls))
			}
			got := map[string]string{}
			for k := range tt.want {
				got[k] = calls[0].Params.Get(k)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("params (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSendRecordsReplyChain(t *testing.T) {
	s := newStub(t)
	st := newMemState()
	a, _ := newTestAdapter(t, s, st)
	th := chat.Thread{Platform: "telegram", Chat: "-100500", ID: "40"}
	for range 2 {
		ref, err := a.Send(t.Context(), th, chat.Out{Text: "part"})
		if err != nil {
			t.Fatalf("Send: %v", err)
		}
		if got := st.get("telegram:chain:-100500:" + ref.ID); got != "40" {
			t.Errorf("chain of sent message %s = %q, want 40", ref.ID, got)
		}
	}
}

// TestSendRefusesBeforeCalling: what Telegram would refuse is refused
// without a call, so nothing half-happens.
func TestSendRefusesBeforeCalling(t *testing.T) {
	dm := chat.Thread{Platform: "telegram", Chat: "11"}
	tests := []struct {
		name   string
		thread chat.Thread
		out    chat.Out
	}{
		{"over-long", dm, chat.Out{Text: strings.Repeat("a", maxLen+1)}},
		{"over-long plain", dm, chat.Out{Text: strings.Repeat("é", maxLen+1), Plain: true}},
		{"empty", dm, chat.Out{Text: "  "}},
		{"button payload over 64 bytes", dm, chat.Out{Text: "x", Buttons: []chat.Button{{Label: "A", Data: strings.Repeat("d", 65)}}}},
		{"empty button payload", dm, chat.Out{Text: "x", Buttons: []chat.Button{{Label: "A"}}}},
		{"another platform", chat.Thread{Platform: "slack", Chat: "11"}, chat.Out{Text: "x"}},
		{"no chat", chat.Thread{Platform: "telegram"}, chat.Out{Text: "x"}},
		{"bad topic", chat.Thread{Platform: "telegram", Chat: "-1", ID: "topic:x"}, chat.Out{Text: "x"}},
		{"bad reply", chat.Thread{Platform: "telegram", Chat: "-1", ID: "9"}, chat.Out{Text: "x", ReplyTo: "abc"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStub(t)
			a, _ := newTestAdapter(t, s, newMemState())
			if _, err := a.Send(t.Context(), tt.thread, tt.out); err == nil {
				t.Error("Send succeeded")
			}
			if err := a.Edit(t.Context(), chat.MessageRef{Thread: tt.thread, ID: "5"}, tt.out); err == nil && tt.out.ReplyTo == "" {
				t.Error("Edit succeeded")
			}
			if n := len(s.callsTo("sendMessage")); n != 0 {
				t.Errorf("%d sendMessage calls made, want none", n)
			}
			if n := len(s.callsTo("editMessageText")); n != 0 && tt.out.ReplyTo == "" {
				t.Errorf("%d editMessageText calls made, want none", n)
			}
		})
	}
}

func TestEditKeyboard(t *testing.T) {
	s := newStub(t)
	a, _ := newTestAdapter(t, s, newMemState())
	ref := chat.MessageRef{Thread: chat.Thread{Platform: "telegram", Chat: "-100600", ID: "topic:77"}, ID: "90"}
	if err := a.Edit(t.Context(), ref, chat.Out{Text: "ok?", Buttons: []chat.Button{{Label: "Yes", Data: "y"}}}); err != nil {
		t.Fatal(err)
	}
	if err := a.Edit(t.Context(), ref, chat.Out{Text: "Approved by bob"}); err != nil {
		t.Fatal(err)
	}
	calls := s.callsTo("editMessageText")
	if len(calls) != 2 {
		t.Fatalf("%d edits", len(calls))
	}
	if got := calls[0].Params.Get("reply_markup"); !strings.Contains(got, `"callback_data":"y"`) {
		t.Errorf("edit with buttons sent reply_markup %q", got)
	}
	if _, ok := calls[1].Params["reply_markup"]; ok {
		t.Error("edit without buttons sent a reply_markup: the keyboard must go")
	}
	for _, c := range calls {
		if c.Params.Get("chat_id") != "-100600" || c.Params.Get("message_id") != "90" {
			t.Errorf("edit params %v", c.Params)
		}
	}
}

func TestSendPrivateAndTyping(t *testing.T) {
	s := newStub(t)
	a, _ := newTestAdapter(t, s, newMemState())
	group := chat.Thread{Platform: "telegram", Chat: "-100600", ID: "topic:77"}
	if err := a.SendPrivate(t.Context(), group, chat.User{Platform: "telegram", ID: "11"}, chat.Out{Text: "only you"}); err != nil {
		t.Fatal(err)
	}
	if c := s.callsTo("sendMessage"); len(c) != 1 || c[0].Params.Get("chat_id") != "11" || c[0].Params.Get("message_thread_id") != "" {
		t.Errorf("SendPrivate calls %v, want one sendMessage to chat 11", c)
	}
	err := a.SendPrivate(t.Context(), group, chat.User{Platform: "telegram", ID: "chat:-100500"}, chat.Out{Text: "x"})
	if !errors.Is(err, ErrNoPrivateChat) {
		t.Errorf("SendPrivate to an anonymous admin: %v, want ErrNoPrivateChat", err)
	}
	if err := a.Typing(t.Context(), group); err != nil {
		t.Fatal(err)
	}
	if c := s.callsTo("sendChatAction"); len(c) != 1 || c[0].Params.Get("action") != "typing" || c[0].Params.Get("message_thread_id") != "77" {
		t.Errorf("Typing calls %v", c)
	}
}

func TestStream(t *testing.T) {
	s := newStub(t)
	a, _ := newTestAdapter(t, s, newMemState())
	ctx := t.Context()
	if _, err := a.StartStream(ctx, chat.Thread{Platform: "telegram", Chat: "-100500", ID: "40"}, chat.User{}); !errors.Is(err, chat.ErrStreamNotHere) {
		t.Errorf("StartStream in a group: %v, want chat.ErrStreamNotHere", err)
	}
	dm := chat.Thread{Platform: "telegram", Chat: "11"}
	st, err := a.StartStream(ctx, dm, chat.User{Platform: "telegram", ID: "11"})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Append(ctx, "Hello **wor"); err != nil {
		t.Fatal(err)
	}
	s.script("sendMessageDraft", stubReply{Code: 429, RetryAfter: 3})
	if _, ok := chat.RetryAfter(st.Append(ctx, "ld**")); !ok {
		t.Error("a rate-limited Append did not report it")
	}
	if err := st.Append(ctx, "ld**"); err != nil { // delivery repeats the delta
		t.Fatal(err)
	}
	if err := st.Append(ctx, strings.Repeat("x", maxLen)); err != nil {
		t.Fatal(err)
	}
	ref, err := st.Finish(ctx, chat.Out{Text: "Hello **world**"})
	if err != nil {
		t.Fatal(err)
	}
	drafts := s.callsTo("sendMessageDraft")
	var texts []string
	for _, d := range drafts {
		if d.Params.Get("draft_id") == "" || d.Params.Get("draft_id") == "0" || d.Params.Get("draft_id") != drafts[0].Params.Get("draft_id") {
			t.Errorf("draft_id %q, want one stable non-zero id", d.Params.Get("draft_id"))
		}
		texts = append(texts, d.Params.Get("text"))
	}
	// The whole text each time, the refused one repeated; the over-long
	// append makes no call.
	want := []string{"Hello **wor", "Hello <b>world</b>", "Hello <b>world</b>"}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("drafts (-want +got):\n%s", diff)
	}
	sent := s.callsTo("sendMessage")
	if len(sent) != 1 || sent[0].Params.Get("text") != "Hello <b>world</b>" || ref.ID != "101" || ref.Thread != dm {
		t.Errorf("Finish: ref %+v, sendMessage calls %v", ref, sent)
	}
}
