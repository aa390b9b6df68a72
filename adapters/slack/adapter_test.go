package slack

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/parleybot/parley/chat"
)

func TestNew(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		err  string
	}{
		{"socket", Config{BotToken: "xoxb-1", AppToken: "xapp-1"}, ""},
		{"no bot token", Config{AppToken: "xapp-1"}, "bot token"},
		{"socket without app token", Config{BotToken: "xoxb-1"}, "app-level token"},
		{"http", Config{BotToken: "xoxb-1", Mode: ModeHTTP, SigningSecret: "s3cret"}, ""},
		{"http without signing secret", Config{BotToken: "xoxb-1", Mode: ModeHTTP}, "signing secret"},
		{"unknown mode", Config{BotToken: "xoxb-1", AppToken: "xapp-1", Mode: "carrier-pigeon"}, "unknown mode"},
	}
	for _, tt := range tests {
		a, err := New(tt.cfg)
		if tt.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
				continue
			}
			if a.cfg.APIURL != DefaultAPIURL || a.Platform() != "slack" {
				t.Errorf("%s: api url %q", tt.name, a.cfg.APIURL)
			}
			c := a.Capabilities()
			if c.MaxLen != 4000 || c.SplitAt != 3900 || c.EditScope != chat.PacePerWorkspace || !c.Buttons || !c.Ephemeral || c.Measure("hello") != 5 {
				t.Errorf("capabilities %+v", c)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want one mentioning %q", tt.name, err, tt.err)
		}
	}
	a, err := New(Config{BotToken: "xoxb-1", AppToken: "xapp-1", APIURL: "http://127.0.0.1:1/api"})
	if err != nil || a.cfg.APIURL != "http://127.0.0.1:1/api/" {
		t.Errorf("API URL without slash: %v, %q", err, a.cfg.APIURL)
	}
}

func TestUserProfilesCachesOnce(t *testing.T) {
	var calls atomic.Int32
	fail := true
	c := newUserProfiles(func(_ context.Context, id string) (profile, error) {
		calls.Add(1)
		if fail {
			return profile{}, errors.New("users.info down")
		}
		return profile{name: "Alice " + id, zone: "Europe/Berlin"}, nil
	})
	ctx := t.Context()
	if p, err := c.get(ctx, "U1"); err == nil || p != (profile{}) {
		t.Errorf("failed lookup = %+v, %v", p, err)
	}
	fail = false
	for range 3 {
		if p, err := c.get(ctx, "U1"); err != nil || p.name != "Alice U1" || p.zone != "Europe/Berlin" {
			t.Errorf("profile = %+v, %v", p, err)
		}
	}
	if p, _ := c.get(ctx, ""); p != (profile{}) || calls.Load() != 2 {
		t.Errorf("lookups = %d, want 2 (a failure is retried, a success cached)", calls.Load())
	}
}

func TestSlashReplyAndAckPayload(t *testing.T) {
	r := &slashReply{}
	if !r.offer(chat.Out{Text: "first"}) || r.offer(chat.Out{Text: "second"}) {
		t.Fatal("only the first answer goes in the ack")
	}
	first := r.close()
	if first == nil || first.Text != "first" || r.offer(chat.Out{Text: "late"}) {
		t.Fatalf("close = %+v; after the ack answers go later", first)
	}
	p, later := ackPayload(first)
	m, ok := p.(map[string]any)
	if !ok || later != nil || m["response_type"] != "ephemeral" || m["text"] != "first" {
		t.Errorf("payload %#v, later %+v", p, later)
	}
	if p, later := ackPayload(&chat.Out{Text: "pick", Buttons: []chat.Button{{Label: "Yes", Data: "y"}}}); later != nil || p.(map[string]any)["blocks"] == nil {
		t.Errorf("buttons are not in the ack: %#v", p)
	}
	if p, later := ackPayload(nil); p != nil || later != nil {
		t.Error("no answer, no payload")
	}
	// Within Slack's length, but 3 bytes a character, twice (text and
	// section): past the 20 KB Socket Mode response limit.
	big := &chat.Out{Text: strings.Repeat("界", 3900), Buttons: []chat.Button{{Label: "ok", Data: "1"}}}
	if _, err := renderOut(*big); err != nil {
		t.Fatal(err)
	}
	if p, later := ackPayload(big); p != nil || later != big {
		t.Errorf("an answer past the Socket Mode limit must go later: %v", later)
	}
	tooLong := &chat.Out{Text: strings.Repeat("<", 3000)} // 12,000 characters of &lt;
	if p, later := ackPayload(tooLong); p != nil || later != tooLong {
		t.Errorf("an unrenderable answer must go later, to report its error: %v", later)
	}
}

func TestTypingWithoutThreadIsNoop(t *testing.T) {
	a, err := New(Config{BotToken: "xoxb-1", AppToken: "xapp-1", APIURL: "http://127.0.0.1:1/"})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Typing(t.Context(), chat.Thread{Platform: "slack", Space: "T1", Chat: "D1"}); err != nil {
		t.Errorf("Typing in a DM: %v", err)
	}
	if _, err := a.Send(t.Context(), chat.Thread{Platform: "telegram", Chat: "1"}, chat.Out{Text: "x"}); err == nil {
		t.Error("Send to another platform's thread succeeded")
	}
}
