package discord

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/syncbuf"

	"github.com/google/go-cmp/cmp"
)

const sentMessage = `{"id":"700","channel_id":"x","content":"ok","author":{"id":"` + testBot + `"}}`

// TestSendOpensThreadLazily: the first answer in a guild conversation
// opens the thread on its root; the platform's answer decides whether
// the bot then answers in the thread or inline.
func TestSendOpensThreadLazily(t *testing.T) {
	conv := chat.Thread{Platform: "discord", Space: testGuild, Chat: testChan, ID: "450"}
	threadsRoute := "POST /channels/" + testChan + "/messages/450/threads"
	tests := []struct {
		name      string
		thread    int // status of the thread start
		body      string
		wantCalls []string // method and path of every call, over two Sends
		wantRef   bool     // the posts reply to the root (inline)
		wantErr   bool
	}{{
		name: "thread opened", thread: 201, body: `{"id":"450","type":11,"parent_id":"` + testChan + `","name":"deploy"}`,
		wantCalls: []string{threadsRoute, "POST /channels/450/messages", "POST /channels/450/messages"},
	}, {
		name: "already created", thread: 400, body: `{"message":"A thread has already been created for this message","code":160004}`,
		wantCalls: []string{threadsRoute, "POST /channels/450/messages", "POST /channels/450/messages"},
	}, {
		name: "missing permissions: inline replies", thread: 403, body: `{"message":"Missing Permissions","code":50013}`,
		wantCalls: []string{threadsRoute, "POST /channels/" + testChan + "/messages", "POST /channels/" + testChan + "/messages"},
		wantRef:   true,
	}, {
		name: "channel type without threads: inline replies", thread: 400, body: `{"message":"Cannot execute action on this channel type","code":50024}`,
		wantCalls: []string{threadsRoute, "POST /channels/" + testChan + "/messages", "POST /channels/" + testChan + "/messages"},
		wantRef:   true,
	}, {
		name: "a thread without a starter message", thread: 404, body: `{"message":"Unknown Message","code":10008}`,
		wantCalls: []string{threadsRoute, "GET /channels/450", "POST /channels/450/messages", "POST /channels/450/messages"},
	}, {
		name: "server error: nothing posted, retried next time", thread: 500, body: `{"message":"oops","code":0}`,
		wantCalls: []string{threadsRoute, threadsRoute}, wantErr: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeREST(t)
			f.answer(threadsRoute, tt.thread, tt.body)
			f.answer("POST /channels/450/messages", 200, sentMessage)
			f.answer("POST /channels/"+testChan+"/messages", 200, sentMessage)
			f.answer("GET /channels/450", 200, `{"id":"450","type":11,"guild_id":"`+testGuild+`","parent_id":"`+testChan+`"}`)
			var log syncbuf.Buffer
			a := newTestAdapter(t, f, &log)
			a.msgs.Put("450", seenMessage{name: threadName("deploy the staging box"), root: "450"})
			for range 2 {
				ref, err := a.Send(testCtx(t), conv, chat.Out{Text: "answer"})
				if (err != nil) != tt.wantErr {
					t.Fatalf("Send error = %v, want error %v", err, tt.wantErr)
				}
				if err == nil && (ref.Thread != conv || ref.ID != "700") {
					t.Errorf("Send ref = %+v, want message 700 in %v", ref, conv)
				}
			}
			calls := f.recorded()
			var got []string
			for _, c := range calls {
				got = append(got, c.Method+" "+c.Path)
			}
			if diff := cmp.Diff(tt.wantCalls, got); diff != "" {
				t.Fatalf("calls (-want +got):\n%s", diff)
			}
			if !strings.Contains(calls[0].Body, `"name":"deploy the staging box"`) {
				t.Errorf("thread start body %s, want the root's first words as its name", calls[0].Body)
			}
			for _, c := range calls[1:] {
				if c.Method != "POST" || strings.Contains(c.Path, "threads") {
					continue
				}
				var body struct {
					Reference *struct {
						MessageID string `json:"message_id"`
					} `json:"message_reference"`
				}
				if err := json.Unmarshal([]byte(c.Body), &body); err != nil {
					t.Fatal(err)
				}
				if inline := body.Reference != nil && body.Reference.MessageID == "450"; inline != tt.wantRef {
					t.Errorf("post %s replies to the root: %v, want %v", c.Body, inline, tt.wantRef)
				}
				if !strings.Contains(c.Body, `"allowed_mentions":{"parse":[],"replied_user":false}`) {
					t.Errorf("post %s may notify people", c.Body)
				}
			}
			if tt.wantRef && strings.Count(log.String(), "cannot open threads") != 1 {
				t.Errorf("want one warning about threads, log:\n%s", log.String())
			}
		})
	}
}

// Edit finds the message where Send put it; after a restart it tries the
// thread, then the parent channel.
func TestEditResolvesTheChannel(t *testing.T) {
	conv := chat.Thread{Platform: "discord", Space: testGuild, Chat: testChan, ID: "450"}
	tests := []struct {
		name  string
		mode  replyMode // 0: unknown (a restart)
		found map[string]bool
		want  []string
	}{
		{name: "thread", mode: inThread, want: []string{"PATCH /channels/450/messages/700"}},
		{name: "inline", mode: inlineReplies, want: []string{"PATCH /channels/" + testChan + "/messages/700"}},
		{name: "after a restart, in the thread", want: []string{"PATCH /channels/450/messages/700"}},
		{name: "after a restart, inline", found: map[string]bool{"PATCH /channels/450/messages/700": false},
			want: []string{"PATCH /channels/450/messages/700", "PATCH /channels/" + testChan + "/messages/700"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeREST(t)
			if tt.found == nil {
				f.answer("PATCH /channels/450/messages/700", 200, sentMessage)
			}
			f.answer("PATCH /channels/"+testChan+"/messages/700", 200, sentMessage)
			a := newTestAdapter(t, f, nil)
			if tt.mode != 0 {
				a.modes.Put("450", tt.mode)
			}
			if err := a.Edit(testCtx(t), chat.MessageRef{Thread: conv, ID: "700"}, chat.Out{Text: "decided"}); err != nil {
				t.Fatalf("Edit: %v", err)
			}
			var got []string
			for _, c := range f.recorded() {
				got = append(got, c.Method+" "+c.Path)
				if !strings.Contains(c.Body, `"components":[]`) {
					t.Errorf("edit %s keeps the old buttons: want an empty components list", c.Body)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// Nothing Discord would refuse is sent: no call is spent on it.
func TestSendRejectsBeforeCalling(t *testing.T) {
	f := newFakeREST(t)
	a := newTestAdapter(t, f, nil)
	dm := chat.Thread{Platform: "discord", Chat: "77"}
	for _, out := range []chat.Out{
		{Text: "x", Buttons: []chat.Button{{Label: "Approve", Data: strings.Repeat("a", maxCustomID+1)}}},
		{Text: strings.Repeat("y", maxLen+1)},
	} {
		if _, err := a.Send(testCtx(t), dm, out); err == nil {
			t.Errorf("Send accepted %d text characters, buttons %v", len(out.Text), out.Buttons)
		}
		if err := a.Edit(testCtx(t), chat.MessageRef{Thread: dm, ID: "1"}, out); err == nil {
			t.Error("Edit accepted what Send refused")
		}
	}
	for _, th := range []chat.Thread{{Platform: "slack", Chat: "C1"}, {Platform: "discord"}} {
		if _, err := a.Send(testCtx(t), th, chat.Out{Text: "x"}); err == nil {
			t.Errorf("Send to %v succeeded", th)
		}
	}
	if calls := f.recorded(); len(calls) != 0 {
		t.Errorf("refused messages still made calls: %+v", calls)
	}
}

// A 429 comes back at once as the core's shape, with Discord's figure,
// whether it hits the post or the thread start.
func TestRateLimitReturnsAtOnce(t *testing.T) {
	for _, route := range []string{"POST /channels/77/messages", "POST /channels/" + testChan + "/messages/450/threads"} {
		t.Run(route, func(t *testing.T) {
			f := newFakeREST(t)
			f.rateLimit(route, "2.5")
			a := newTestAdapter(t, f, nil)
			th := chat.Thread{Platform: "discord", Chat: "77"}
			if strings.Contains(route, "threads") {
				th = chat.Thread{Platform: "discord", Space: testGuild, Chat: testChan, ID: "450"}
			}
			_, err := a.Send(testCtx(t), th, chat.Out{Text: "x"})
			d, ok := chat.RetryAfter(err)
			if !ok || d != 2500*time.Millisecond {
				t.Fatalf("Send error = %v (retry after %v, %v); want a *chat.RateLimitError of 2.5s", err, d, ok)
			}
			if n := len(f.recorded()); n != 1 {
				t.Errorf("%d calls, want 1: a 429 is not retried inside the call", n)
			}
		})
	}
}

func TestWrap(t *testing.T) {
	f := newFakeREST(t)
	f.answer("POST /channels/1/messages", 400, `{"message":"Invalid Form Body","code":50035,"errors":{"content":{"_errors":[{"code":"BASE_TYPE_MAX_LENGTH"}]}}}`)
	f.answer("POST /channels/2/messages", 401, `{"message":"401: Unauthorized","code":0}`)
	f.answer("POST /channels/3/messages", 403, `{"message":"Missing Permissions","code":50013}`)
	f.answer("POST /channels/4/messages", 500, `{"message":"boom","code":0}`)
	a := newTestAdapter(t, f, nil)
	for _, tt := range []struct {
		chat string
		want error
	}{{"1", ErrInvalidBody}, {"2", ErrAuth}, {"3", ErrForbidden}, {"4", nil}} {
		_, err := a.Send(testCtx(t), chat.Thread{Platform: "discord", Chat: tt.chat}, chat.Out{Text: "x"})
		if err == nil {
			t.Fatalf("channel %s: Send succeeded", tt.chat)
		}
		if tt.want != nil && !errors.Is(err, tt.want) {
			t.Errorf("channel %s: %v, want %v", tt.chat, err, tt.want)
		}
		if errors.Is(err, chat.ErrAuth) != (tt.want == ErrAuth) {
			t.Errorf("channel %s: %v is chat.ErrAuth = %v", tt.chat, err, errors.Is(err, chat.ErrAuth))
		}
		if !strings.Contains(err.Error(), "POST /channels/{id}/messages") {
			t.Errorf("channel %s: %v does not name the route", tt.chat, err)
		}
		if _, limited := chat.RetryAfter(err); limited {
			t.Errorf("channel %s: %v read as a rate limit", tt.chat, err)
		}
	}
	if code, status := restCode(errors.New("plain")); code != 0 || status != 0 {
		t.Errorf("restCode of a non-REST error = %d, %d", code, status)
	}
	if wrap("x", nil) != nil {
		t.Error("wrap(nil) != nil")
	}
}
