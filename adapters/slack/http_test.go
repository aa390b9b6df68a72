package slack

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/chat"
)

const testSigningSecret = "8f742231b10e8888abcd99yyyzzz85a5"

// recorder is a chat.Handler that records what reaches it. A slash
// command is answered through Respond with answer, as the core does.
type recorder struct {
	msgs   chan chat.Message
	acts   chan chat.Action
	cmds   chan chat.Command
	answer string
}

func newRecorder() *recorder {
	return &recorder{msgs: make(chan chat.Message, 8), acts: make(chan chat.Action, 8), cmds: make(chan chat.Command, 8),
		answer: "You have 2 memories."}
}

func (r *recorder) HandleMessage(_ context.Context, m chat.Message) error { r.msgs <- m; return nil }
func (r *recorder) HandleAction(_ context.Context, a chat.Action) error   { r.acts <- a; return nil }
func (r *recorder) HandleCommand(ctx context.Context, c chat.Command) error {
	r.cmds <- c
	return c.Respond(ctx, chat.Out{Text: r.answer})
}

// nothing fails the test if anything reached the handler. The handler
// runs before the response is written for events, so after a refused
// request there is nothing in flight.
func (r *recorder) nothing(t *testing.T) {
	t.Helper()
	select {
	case m := <-r.msgs:
		t.Errorf("message handled: %+v", m)
	case a := <-r.acts:
		t.Errorf("action handled: %+v", a)
	case c := <-r.cmds:
		t.Errorf("command handled: %+v", c)
	default:
	}
}

// httpFixture is the adapter in HTTP mode behind httptest, its Web API
// calls going to slacktest.
type httpFixture struct {
	api *slacktest.Server
	ad  *Adapter
	rec *recorder
	url string // where the endpoints are served
}

func newHTTPFixture(t *testing.T) *httpFixture {
	t.Helper()
	api := slacktest.NewServer(slacktest.WithoutRateLimits())
	t.Cleanup(api.Close)
	api.AddUser("U1", "alice")
	api.AddChannel("C1", "general", slacktest.Public)
	ad, err := New(Config{BotToken: api.BotToken(), APIURL: api.URL + "/", Mode: ModeHTTP, SigningSecret: testSigningSecret})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ad.me.Set(self{UserID: api.BotUserID(), BotID: api.BotID()}) // Run's auth.test
	rec := newRecorder()
	srv := httptest.NewServer(ad.Handler(t.Context(), rec))
	t.Cleanup(srv.Close)
	return &httpFixture{api: api, ad: ad, rec: rec, url: srv.URL}
}

// sign signs body as Slack does: v0=hex(hmac_sha256(secret, "v0:"+ts+":"+body)).
func sign(secret string, ts time.Time, body string) (sig, stamp string) {
	stamp = strconv.FormatInt(ts.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("v0:" + stamp + ":" + body))
	return "v0=" + hex.EncodeToString(mac.Sum(nil)), stamp
}

// post sends body to path signed with secret at ts.
func (f *httpFixture) post(t *testing.T, path, contentType, body, secret string, ts time.Time) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, f.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	sig, stamp := sign(secret, ts, body)
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("X-Slack-Signature", sig)
	req.Header.Set("X-Slack-Request-Timestamp", stamp)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func (f *httpFixture) postJSON(t *testing.T, path, body string) (int, string) {
	t.Helper()
	return f.post(t, path, "application/json", body, testSigningSecret, time.Now())
}

func (f *httpFixture) postForm(t *testing.T, path string, form url.Values) (int, string) {
	t.Helper()
	return f.post(t, path, "application/x-www-form-urlencoded", form.Encode(), testSigningSecret, time.Now())
}

func mentionEvent(botUser string) string {
	return `{"token":"x","team_id":"T1","api_app_id":"A1","type":"event_callback","event_id":"Ev1","event_time":1700000000,
		"event":{"type":"app_mention","user":"U1","text":"<@` + botUser + `> summarize","ts":"1700000000.000100","channel":"C1","event_ts":"1700000000.000100"}}`
}

func TestHTTPURLVerification(t *testing.T) {
	f := newHTTPFixture(t)
	code, body := f.postJSON(t, EventsPath, `{"token":"x","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`)
	if code != http.StatusOK || body != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" {
		t.Errorf("url_verification = %d %q, want the challenge echoed", code, body)
	}
	f.rec.nothing(t)
}

func TestHTTPEventReachesHandler(t *testing.T) {
	f := newHTTPFixture(t)
	code, _ := f.postJSON(t, EventsPath, mentionEvent(f.api.BotUserID()))
	if code != http.StatusOK {
		t.Fatalf("event answered %d", code)
	}
	// The handler returned before the 200, so the message is here.
	select {
	case m := <-f.rec.msgs:
		if m.Key != "T1:C1:1700000000.000100" || m.Text != "summarize" || !m.Mentioned || m.User.ID != "U1" || m.User.Name != "alice" ||
			m.Thread != (chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1700000000.000100"}) {
			t.Errorf("message %+v", m)
		}
	default:
		t.Fatal("the 200 came before the handler had the message")
	}
}

func TestHTTPHandlerErrorAsksForRetry(t *testing.T) {
	f := newHTTPFixture(t)
	failing := &failingHandler{recorder: f.rec}
	srv := httptest.NewServer(f.ad.Handler(t.Context(), failing))
	defer srv.Close()
	f.url = srv.URL
	if code, _ := f.postJSON(t, EventsPath, mentionEvent(f.api.BotUserID())); code != http.StatusInternalServerError {
		t.Errorf("unrecorded event answered %d, want 500 so Slack redelivers", code)
	}
}

type failingHandler struct{ *recorder }

func (failingHandler) HandleMessage(context.Context, chat.Message) error {
	return errors.New("inbox down")
}

func TestHTTPRefusesBadRequests(t *testing.T) {
	f := newHTTPFixture(t)
	ev := mentionEvent(f.api.BotUserID())
	tests := []struct {
		name   string
		secret string
		ts     time.Time
		body   string
		want   int
	}{
		{"bad signature", "not-the-secret", time.Now(), ev, http.StatusUnauthorized},
		{"6 minutes old", testSigningSecret, time.Now().Add(-6 * time.Minute), ev, http.StatusUnauthorized},
		{"6 minutes ahead", testSigningSecret, time.Now().Add(6 * time.Minute), ev, http.StatusUnauthorized},
		{"over the cap", testSigningSecret, time.Now(), ev[:len(ev)-2] + `,"pad":"` + strings.Repeat("x", maxRequestBody) + `"}}`, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		for _, path := range []string{EventsPath, InteractivityPath, CommandsPath} {
			code, _ := f.post(t, path, "application/json", tt.body, tt.secret, tt.ts)
			if code != tt.want {
				t.Errorf("%s to %s: %d, want %d", tt.name, path, code, tt.want)
			}
		}
	}

	// Signed over another body: tampering is caught too.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, f.url+EventsPath, strings.NewReader(ev))
	sig, stamp := sign(testSigningSecret, time.Now(), ev+" ")
	req.Header.Set("X-Slack-Signature", sig)
	req.Header.Set("X-Slack-Request-Timestamp", stamp)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("tampered body: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	// No signature at all.
	resp, err := http.DefaultClient.Post(f.url+EventsPath, "application/json", strings.NewReader(ev))
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("unsigned: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	f.rec.nothing(t)
}

func TestHTTPMethodNotAllowed(t *testing.T) {
	f := newHTTPFixture(t)
	for _, path := range []string{EventsPath, InteractivityPath, CommandsPath} {
		resp, err := http.DefaultClient.Get(f.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != http.MethodPost {
			t.Errorf("GET %s: %d, Allow %q", path, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
	f.rec.nothing(t)
}

func TestHTTPBlockActions(t *testing.T) {
	f := newHTTPFixture(t)
	payload := map[string]any{
		"type":       "block_actions",
		"trigger_id": "trig-1",
		"team":       map[string]any{"id": "T1"},
		"user":       map[string]any{"id": "U1", "name": "alice"},
		"container":  map[string]any{"type": "message", "message_ts": "1700000000.000200", "channel_id": "C1", "thread_ts": "1700000000.000100"},
		"channel":    map[string]any{"id": "C1"},
		"actions": []map[string]any{{"type": "button", "action_id": "approve", "block_id": "approval",
			"value": "appr-42", "action_ts": "1700000001.000000"}},
		"response_url": f.api.URL + "/response/none",
	}
	b, _ := json.Marshal(payload)
	code, _ := f.postForm(t, InteractivityPath, url.Values{"payload": {string(b)}})
	if code != http.StatusOK {
		t.Fatalf("click answered %d", code)
	}
	var act chat.Action
	select {
	case act = <-f.rec.acts:
	case <-t.Context().Done():
		t.Fatal("no action")
	}
	want := chat.Thread{Platform: "slack", Space: "T1", Chat: "C1", ID: "1700000000.000100"}
	if act.Data != "appr-42" || act.User.ID != "U1" || act.Key != "trig-1" || act.Thread != want ||
		act.Message != (chat.MessageRef{Thread: want, ID: "1700000000.000200"}) || act.Respond == nil {
		t.Fatalf("action %+v", act)
	}
	// Respond answers the clicker alone, as in Socket Mode.
	if err := act.Respond(t.Context(), "Only the requester can approve this."); err != nil {
		t.Fatalf("Respond: %v", err)
	}
	eph := f.api.Ephemerals("U1")
	if len(eph) != 1 || eph[0].Channel != "C1" || eph[0].ThreadTS != "1700000000.000100" || !strings.Contains(eph[0].Text, "Only the requester") {
		t.Errorf("ephemerals %+v", eph)
	}
	// A click without a payload is refused.
	if code, _ := f.postForm(t, InteractivityPath, url.Values{"nothing": {"here"}}); code != http.StatusBadRequest {
		t.Errorf("no payload: %d", code)
	}
}

func TestHTTPSlashCommand(t *testing.T) {
	f := newHTTPFixture(t)
	form := url.Values{
		"token": {"deprecated"}, "team_id": {"T1"}, "channel_id": {"C1"}, "channel_name": {"general"},
		"user_id": {"U1"}, "user_name": {"alice"}, "command": {"/parley"}, "text": {"memory"},
		"response_url": {f.api.URL + "/response/none"}, "trigger_id": {"trig-2"},
	}
	code, body := f.postForm(t, CommandsPath, form)
	if code != http.StatusOK {
		t.Fatalf("slash command answered %d %q", code, body)
	}
	var got struct {
		ResponseType string `json:"response_type"`
		Text         string `json:"text"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil || got.ResponseType != "ephemeral" || got.Text != f.rec.answer {
		t.Errorf("response body %q (%v), want the ephemeral answer %q", body, err, f.rec.answer)
	}
	select {
	case c := <-f.rec.cmds:
		if c.Name != "memory" || len(c.Args) != 0 || c.User.ID != "U1" || c.Key != "slash:T1:trig-2" ||
			c.Thread != (chat.Thread{Platform: "slack", Space: "T1", Chat: "C1"}) {
			t.Errorf("command %+v", c)
		}
	default:
		t.Fatal("the answer came without the handler")
	}
	if n := len(f.api.CallsTo("chat.postEphemeral")); n != 0 {
		t.Errorf("%d chat.postEphemeral calls; the answer belongs in the response", n)
	}
}

// listenWatcher is a slog.Handler that reports the address Run serves on,
// from its "serving" log line, so the test needs no polling.
type listenWatcher struct{ addr chan string }

func (w listenWatcher) Enabled(context.Context, slog.Level) bool { return true }
func (w listenWatcher) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w listenWatcher) WithGroup(string) slog.Handler            { return w }
func (w listenWatcher) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "listen" {
			w.addr <- a.Value.String()
		}
		return true
	})
	return nil
}

func TestHTTPRun(t *testing.T) {
	api := slacktest.NewServer(slacktest.WithoutRateLimits())
	t.Cleanup(api.Close)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	watch := listenWatcher{addr: make(chan string, 1)}
	newAd := func(listen string) *Adapter {
		ad, err := New(Config{BotToken: api.BotToken(), APIURL: api.URL + "/", Mode: ModeHTTP,
			SigningSecret: testSigningSecret, Listen: listen, Logger: slog.New(watch)})
		if err != nil {
			t.Fatal(err)
		}
		return ad
	}
	if err := newAd(busy.Addr().String()).Run(t.Context(), newRecorder()); err == nil || !strings.Contains(err.Error(), "cannot listen") {
		t.Errorf("Run on a busy address: %v", err)
	}

	// Run serves the endpoints, knows who the bot is, and stops when ctx ends.
	ad := newAd("127.0.0.1:0")
	rec := newRecorder()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- ad.Run(ctx, rec) }()
	var addr string
	select {
	case addr = <-watch.addr:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	f := &httpFixture{api: api, ad: ad, rec: rec, url: "http://" + addr}
	if code, _ := f.postJSON(t, EventsPath, mentionEvent(api.BotUserID())); code != http.StatusOK {
		t.Fatalf("event through Run: %d", code)
	}
	if m := <-rec.msgs; m.Text != "summarize" || !m.Mentioned {
		t.Errorf("message through Run %+v (the mention is stripped once auth.test told who the bot is)", m)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run after ctx ended: %v", err)
	}

	if a, err := New(Config{BotToken: "xoxb-1", Mode: ModeHTTP, SigningSecret: "s"}); err != nil || a.cfg.Listen != DefaultListen {
		t.Errorf("default listen: %v %q", err, a.cfg.Listen)
	}
}
