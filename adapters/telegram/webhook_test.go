package telegram

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/parleybot/parley/chat"
)

const (
	hookURL    = "https://bot.example.com/tg/hook"
	hookSecret = "s3cret_token-1"
)

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

func TestWebhook(t *testing.T) {
	s := newStub(t)
	listen := freeAddr(t)
	a, _ := newTestAdapter(t, s, newMemState(), func(c *Config) {
		c.Mode, c.WebhookURL, c.WebhookSecret, c.Listen = ModeWebhook, hookURL, hookSecret, listen
	})
	rec := newRecorder()
	stop := running(t, a, rec)
	s.waitFor(t, "setWebhook", func() bool { return len(s.callsTo("setWebhook")) == 1 })
	p := s.callsTo("setWebhook")[0].Params
	if p.Get("url") != hookURL || p.Get("secret_token") != hookSecret || p.Get("allowed_updates") != `["message","callback_query"]` {
		t.Errorf("setWebhook params %v", p)
	}

	endpoint := "http://" + listen + "/tg/hook"
	tests := []struct {
		name     string
		method   string
		secret   string
		body     string
		failNext bool // the handler fails to record
		want     int
		handled  int // messages handled after the request
	}{
		{"missing secret", http.MethodPost, "", dm(1), false, http.StatusUnauthorized, 0},
		{"wrong secret", http.MethodPost, "s3cret_token-2", dm(1), false, http.StatusUnauthorized, 0},
		{"not a POST", http.MethodGet, hookSecret, "", false, http.StatusMethodNotAllowed, 0},
		{"bad JSON", http.MethodPost, hookSecret, `{"update_id":`, false, http.StatusBadRequest, 0},
		{"handler fails", http.MethodPost, hookSecret, `{"update_id":1,` + dm(1)[1:], true, http.StatusInternalServerError, 0},
		{"right secret", http.MethodPost, hookSecret, `{"update_id":1,` + dm(1)[1:], false, http.StatusOK, 1},
		{"malformed update is skipped", http.MethodPost, hookSecret, `{"update_id":2,"message":7}`, false, http.StatusOK, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.failNext {
				rec.mu.Lock()
				rec.failMessages = 1
				rec.mu.Unlock()
			}
			req, err := http.NewRequestWithContext(t.Context(), tt.method, endpoint, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.secret != "" {
				req.Header.Set(SecretHeader, tt.secret)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
			if n := len(rec.messages()); n != tt.handled {
				t.Errorf("%d messages handled, want %d", n, tt.handled)
			}
		})
	}
	if err := stop(); err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	if n := len(s.callsTo("deleteWebhook")) + len(s.callsTo("getUpdates")); n != 0 {
		t.Errorf("webhook mode made %d deleteWebhook/getUpdates calls", n)
	}
	if _, err := http.Post(endpoint, "application/json", strings.NewReader(dm(1))); err == nil {
		t.Error("the webhook server still answers after Run returned")
	}
}

func TestWebhookRandomSecret(t *testing.T) {
	s := newStub(t)
	a, _ := newTestAdapter(t, s, newMemState(), func(c *Config) {
		c.Mode, c.WebhookURL, c.Listen = ModeWebhook, hookURL, freeAddr(t)
	})
	h := httptest.NewServer(a.WebhookHandler())
	t.Cleanup(h.Close)
	post := func(secret string) int {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.URL, strings.NewReader(`{"update_id":1,`+dm(1)[1:]))
		req.Header.Set(SecretHeader, secret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(""); got != http.StatusServiceUnavailable {
		t.Errorf("before Run: status %d, want 503", got)
	}
	rec := newRecorder()
	running(t, a, rec)
	s.waitFor(t, "setWebhook", func() bool { return len(s.callsTo("setWebhook")) == 1 })
	secret := s.callsTo("setWebhook")[0].Params.Get("secret_token")
	if !validSecret(secret) || len(secret) < 20 {
		t.Fatalf("generated secret %q", secret)
	}
	if got := post(""); got != http.StatusUnauthorized {
		t.Errorf("without the secret: status %d, want 401", got)
	}
	if got := post(secret); got != http.StatusOK || len(rec.messages()) != 1 {
		t.Errorf("with the secret: status %d, %d messages; want 200, 1", got, len(rec.messages()))
	}
}

func TestNewValidates(t *testing.T) {
	ok := Config{Token: testToken, State: newMemState()}
	tests := []struct {
		name string
		mod  func(*Config)
	}{
		{"no token", func(c *Config) { c.Token = "" }},
		{"token with a slash", func(c *Config) { c.Token = "1:a/b" }},
		{"no state", func(c *Config) { c.State = nil }},
		{"bad api url", func(c *Config) { c.APIURL = "ftp://x" }},
		{"unknown mode", func(c *Config) { c.Mode = "push" }},
		{"webhook without url", func(c *Config) { c.Mode = ModeWebhook }},
		{"webhook over http", func(c *Config) { c.Mode, c.WebhookURL = ModeWebhook, "http://x/hook" }},
		{"bad secret", func(c *Config) { c.Mode, c.WebhookURL, c.WebhookSecret = ModeWebhook, hookURL, "no spaces" }},
		{"negative poll timeout", func(c *Config) { c.PollTimeout = -1 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := ok
			tt.mod(&cfg)
			if _, err := New(cfg); err == nil {
				t.Error("New accepted it")
			}
		})
	}
	if _, err := New(ok); err != nil {
		t.Errorf("New(minimal config) = %v", err)
	}
}

func TestClickAnsweredOnce(t *testing.T) {
	click := `{"update_id":9,"callback_query":{"id":"q1","from":` + alice + `,"chat_instance":"c","data":"a:1",
		"message":{"message_id":60,"from":` + botUser + `,"chat":` + group + `,"date":1,"text":"ok?"}}}`
	inline := `{"update_id":9,"callback_query":{"id":"q1","from":` + alice + `,"chat_instance":"c","inline_message_id":"x","data":"a:1"}}`
	long := strings.Repeat("é", 300)
	tests := []struct {
		name       string
		update     string
		onAction   func(context.Context, chat.Action) error
		wantErr    bool
		wantText   string
		wantAlert  bool
		wantHandle int
	}{
		{name: "handler answers", update: click, wantHandle: 1, wantText: "Only the requester can decide.", wantAlert: true,
			onAction: func(ctx context.Context, a chat.Action) error {
				return a.Respond(ctx, "Only the **requester** can decide.")
			}},
		{name: "handler does not answer", update: click, wantHandle: 1},
		{name: "handler answers twice", update: click, wantHandle: 1, wantText: "first", wantAlert: true,
			onAction: func(ctx context.Context, a chat.Action) error {
				if err := a.Respond(ctx, "first"); err != nil {
					return err
				}
				if a.Respond(ctx, "second") == nil {
					return errors.New("a second answer was accepted")
				}
				return nil
			}},
		{name: "long answer is cut to 200", update: click, wantHandle: 1, wantText: strings.Repeat("é", 199) + "…", wantAlert: true,
			onAction: func(ctx context.Context, a chat.Action) error { return a.Respond(ctx, long) }},
		{name: "query without a message", update: inline},
		{name: "handler fails: retried, not answered yet", update: click, wantHandle: 1, wantErr: true,
			onAction: func(context.Context, chat.Action) error { return errors.New("inbox down") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStub(t)
			a, _ := newTestAdapter(t, s, newMemState())
			a.me.Set(testMe)
			rec := newRecorder()
			rec.onAction = tt.onAction
			err := a.dispatch(t.Context(), rec, []byte(tt.update))
			if (err != nil) != tt.wantErr {
				t.Fatalf("dispatch = %v, want error %v", err, tt.wantErr)
			}
			if n := len(rec.actions()); n != tt.wantHandle {
				t.Errorf("%d actions handled, want %d", n, tt.wantHandle)
			}
			answers := s.callsTo("answerCallbackQuery")
			if tt.wantErr {
				if len(answers) != 0 {
					t.Errorf("answered %d times before the click was recorded", len(answers))
				}
				return
			}
			if len(answers) != 1 {
				t.Fatalf("answered %d times, want once", len(answers))
			}
			p := answers[0].Params
			if p.Get("callback_query_id") != "q1" || p.Get("text") != tt.wantText || (p.Get("show_alert") == "true") != tt.wantAlert {
				t.Errorf("answer %v, want text %q alert %v", p, tt.wantText, tt.wantAlert)
			}
		})
	}
}

func TestValidSecret(t *testing.T) {
	for s, want := range map[string]bool{
		"a": true, "Az09_-": true, strings.Repeat("z", 256): true,
		"": false, strings.Repeat("z", 257): false, "no spaces": false, "ä": false, "a=b": false,
	} {
		if got := validSecret(s); got != want {
			t.Errorf("validSecret(%q) = %v, want %v", s, got, want)
		}
	}
}
