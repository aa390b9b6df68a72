package metrics_test

import (
	"context"
	"errors"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/slack"
	"github.com/parleybot/parley/adapters/telegram"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/metrics"
	"github.com/parleybot/parley/chat"
)

// scrape returns the Prometheus text of rec.
func scrape(t *testing.T, rec *metrics.Recorder) string {
	t.Helper()
	srv := httptest.NewServer(rec.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %d, %v", resp.StatusCode, err)
	}
	return string(b)
}

// wantLines checks that every line is in the exposition, exactly.
func wantLines(t *testing.T, text string, lines ...string) {
	t.Helper()
	have := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		have[l] = true
	}
	for _, l := range lines {
		if !have[l] {
			t.Errorf("no line %q in\n%s", l, text)
		}
	}
}

// script is an llm.Provider answering with fixed events.
type script []struct {
	ev  llm.Event
	err error
}

func (s script) Stream(context.Context, llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		for _, e := range s {
			if !yield(e.ev, e.err) {
				return
			}
		}
	}
}

func TestRecorderCountsTurnsFinalsAndModelCalls(t *testing.T) {
	rec := metrics.New(metrics.Config{Platforms: []string{"telegram"}})
	rec.TurnEnded("telegram", bot.TurnAnswered)
	rec.TurnEnded("telegram", bot.TurnAnswered)
	rec.TurnEnded("telegram", bot.TurnFailed)
	rec.TurnEnded("matrix", "exploded") // unknown values: a fixed "other"
	rec.FinalShown("telegram", 40*time.Millisecond, 3)
	rec.FinalShown("telegram", 2*time.Second, 0)

	ok := rec.Provider(script{
		{ev: llm.Event{Kind: llm.EventTextDelta, Text: "hi"}},
		{ev: llm.Event{Kind: llm.EventDone, Response: &llm.Response{Usage: llm.Usage{InputTokens: 120, OutputTokens: 7}}}},
	})
	limited := rec.Provider(script{{err: &llm.Error{Kind: llm.KindRateLimit, Status: 429}}})
	broken := rec.Provider(script{{err: llm.ErrIncomplete}})
	if _, err := llm.Collect(ok.Stream(t.Context(), llm.Request{})); err != nil {
		t.Fatal(err)
	}
	for _, p := range []llm.Provider{limited, broken} {
		if _, err := llm.Collect(p.Stream(t.Context(), llm.Request{})); err == nil {
			t.Fatal("a failing model call succeeded")
		}
	}
	// A request the caller cancelled is no failure.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	llm.Collect(rec.Provider(script{{err: context.Canceled}}).Stream(ctx, llm.Request{}))

	wantLines(t, scrape(t, rec),
		`parley_turns_total{outcome="answered",platform="telegram"} 2`,
		`parley_turns_total{outcome="failed",platform="telegram"} 1`,
		`parley_turns_total{outcome="stopped",platform="telegram"} 0`,
		`parley_turns_total{outcome="other",platform="other"} 1`,
		`parley_final_visible_seconds_bucket{platform="telegram",le="0.05"} 1`,
		`parley_final_visible_seconds_bucket{platform="telegram",le="2"} 2`,
		`parley_final_visible_seconds_count{platform="telegram"} 2`,
		`parley_edit_budget_total{platform="telegram"} 3`,
		`parley_model_requests_total 4`,
		`parley_model_tokens_total{direction="in"} 120`,
		`parley_model_tokens_total{direction="out"} 7`,
		`parley_errors_total{class="rate_limit",source="model"} 1`,
		`parley_errors_total{class="incomplete",source="model"} 1`,
		`parley_inbound_to_model_seconds_count{platform="telegram"} 0`,
		`parley_edits_total{platform="telegram"} 0`,
	)
}

// TestTransport: every call counted by method, 429s apart, the edits the
// platform accepted, failures by class.
func TestTransport(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/sendMessage") && r.URL.Query().Get("n") == "2":
			w.WriteHeader(http.StatusTooManyRequests)
		case strings.HasSuffix(r.URL.Path, "/getChat"):
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	defer srv.Close()
	rec := metrics.New(metrics.Config{Platforms: []string{"telegram"}})
	client := &http.Client{Transport: rec.Transport(telegram.Platform(), nil)}
	const token = "123456:SECRET-token"
	for _, path := range []string{"/sendMessage?n=1", "/sendMessage?n=2", "/editMessageText", "/editMessageText", "/getChat", "/frobnicate"} {
		resp, err := client.Get(srv.URL + "/bot" + token + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	// A refused connection is a network failure.
	if _, err := (&http.Client{Transport: rec.Transport(telegram.Platform(), nil)}).Get("http://127.0.0.1:1/bot" + token + "/getMe"); err == nil {
		t.Fatal("port 1 answered")
	}
	text := scrape(t, rec)
	wantLines(t, text,
		`parley_platform_requests_total{method="sendMessage",platform="telegram"} 2`,
		`parley_platform_requests_total{method="editMessageText",platform="telegram"} 2`,
		`parley_platform_requests_total{method="other",platform="telegram"} 1`,
		`parley_platform_requests_total{method="getMe",platform="telegram"} 1`,
		`parley_platform_rate_limited_total{method="sendMessage",platform="telegram"} 1`,
		`parley_edits_total{platform="telegram"} 2`,
		`parley_errors_total{class="rate_limit",source="telegram"} 1`,
		`parley_errors_total{class="server",source="telegram"} 1`,
		`parley_errors_total{class="network",source="telegram"} 1`,
	)
	if strings.Contains(text, "SECRET") || strings.Contains(text, "123456") {
		t.Fatalf("the bot token reached the metrics:\n%s", text)
	}
}

// described is the description of Parley's platform name.
func described(name string) chat.Platform {
	for _, p := range []chat.Platform{slack.Platform(), telegram.Platform(), discord.Platform()} {
		if p.Name == name {
			return p
		}
	}
	return chat.Platform{Name: name}
}

// TestMethodNames: what each platform's URLs become as a method label —
// never a token, an id or anything else from the URL outside a fixed
// vocabulary.
func TestMethodNames(t *testing.T) {
	tests := []struct {
		platform, verb, url, want string
	}{
		{"telegram", "POST", "https://api.telegram.org/bot123:ABC/sendMessage", "sendMessage"},
		{"telegram", "POST", "http://127.0.0.1:9/prefix/bot123:ABC/sendMessageDraft", "sendMessageDraft"},
		{"telegram", "GET", "https://api.telegram.org/file/bot123:ABC/documents/file_1.pdf", "file"},
		{"telegram", "POST", "https://api.telegram.org/bot123:ABC/ask-me-anything", "other"},
		{"slack", "POST", "https://slack.com/api/chat.update", "chat.update"},
		{"slack", "POST", "http://127.0.0.1:9/chat.appendStream", "chat.appendStream"},
		{"slack", "POST", "https://hooks.slack.com/commands/T1/123/xyzSECRET", "response_url"},
		{"slack", "GET", "https://files.slack.com/files-pri/T1-F1/a.pdf", "file"},
		{"slack", "POST", "https://slack.com/api/admin.users.remove", "other"},
		{"discord", "POST", "https://discord.com/api/v9/channels/111/messages", "POST channels/{}/messages"},
		{"discord", "PATCH", "https://discord.com/api/v10/channels/111/messages/222", "PATCH channels/{}/messages/{}"},
		{"discord", "POST", "https://discord.com/api/v9/interactions/333/aW50ZXJhY3Rpb24tdG9rZW4/callback", "POST interactions/{}/{}/callback"},
		{"discord", "PATCH", "https://discord.com/api/v9/webhooks/444/aW50ZXJhY3Rpb24tdG9rZW4/messages/@original", "PATCH webhooks/{}/{}/messages/@original"},
		{"discord", "PROPFIND", "https://discord.com/api/v9/a/b/c/d/e/f/g/h/i/j", "OTHER {}/{}/{}/{}/{}/{}/{}/{}"},
	}
	for _, tt := range tests {
		srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		rec := metrics.New(metrics.Config{Platforms: []string{tt.platform}})
		rt := rec.Transport(described(tt.platform), rewriteTo(srv.URL))
		req, err := http.NewRequest(tt.verb, tt.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Close()
		want := `parley_platform_requests_total{method="` + tt.want + `",platform="` + tt.platform + `"} 1`
		text := scrape(t, rec)
		if !strings.Contains(text, want+"\n") {
			t.Errorf("%s %s: no %q in\n%s", tt.verb, tt.url, want, grep(text, "parley_platform_requests_total"))
		}
		labels := labelsOf(text)
		for _, secret := range []string{"SECRET", "ABC", "aW50", "111", "222", "333", "444"} {
			if strings.Contains(labels, secret) {
				t.Errorf("%s %s: %q reached the metrics", tt.verb, tt.url, secret)
			}
		}
	}
}

// rewriteTo sends every request to base, whatever its URL, as a proxy
// would: the transport under test sees the original URL.
type rewriteTo string

func (base rewriteTo) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.URL.Scheme, r.URL.Host = "http", strings.TrimPrefix(string(base), "http://")
	return http.DefaultTransport.RoundTrip(r)
}

// labelsOf is the label sets of every parley_ series in text: where a
// URL's parts could leak to.
func labelsOf(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "parley_") {
			continue
		}
		if i, j := strings.Index(l, "{"), strings.LastIndex(l, "}"); i >= 0 && j > i {
			out = append(out, l[i:j+1])
		}
	}
	return strings.Join(out, "\n")
}

func grep(text, prefix string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// fakeAdapter is a chat.Adapter that may say whether it is connected.
type fakeAdapter struct {
	chat.Adapter
	platform string
}

func (a fakeAdapter) Platform() string { return a.platform }

type connectedAdapter struct {
	fakeAdapter
	up bool
}

func (a connectedAdapter) Connected() bool { return a.up }

type pinger struct{ err error }

func (p pinger) Ping(context.Context) error { return p.err }

type loader bot.Load

func (l loader) Load() bot.Load { return bot.Load(l) }

type counts struct {
	approvals, reminders int
	err                  error
}

func (c counts) PendingApprovals(context.Context) (int, error) { return c.approvals, c.err }
func (c counts) DueReminders(context.Context, time.Time) (int, error) {
	return c.reminders, c.err
}

// TestEndpoints: /healthz always answers; /readyz answers 200 only with
// the store answering and every platform connected, and names what is
// not, never why (an error could carry a path or a token); the gauges
// read the core and the store at each scrape.
func TestEndpoints(t *testing.T) {
	tests := []struct {
		name     string
		store    error
		adapters []chat.Adapter
		code     int
		body     string
	}{
		{"ready", nil, []chat.Adapter{connectedAdapter{fakeAdapter{platform: "telegram"}, true}, fakeAdapter{platform: "console"}},
			http.StatusOK, "store: ok\ntelegram: connected\nconsole: connected\n"},
		{"a platform down", nil, []chat.Adapter{connectedAdapter{fakeAdapter{platform: "slack"}, true}, connectedAdapter{fakeAdapter{platform: "discord"}, false}},
			http.StatusServiceUnavailable, "store: ok\nslack: connected\ndiscord: not connected\n"},
		{"store closed", errors.New("store: /secret/path/parley.db does not answer"), []chat.Adapter{connectedAdapter{fakeAdapter{platform: "telegram"}, true}},
			http.StatusServiceUnavailable, "store: not answering\ntelegram: connected\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := metrics.New(metrics.Config{})
			if err := rec.Watch(loader{Queued: 4, Waiting: 2, Running: 8}, counts{approvals: 1, reminders: 3}); err != nil {
				t.Fatal(err)
			}
			mux := http.NewServeMux()
			rec.Serve(mux, metrics.Health{Store: pinger{tt.store}, Adapters: tt.adapters})
			srv := httptest.NewServer(mux)
			defer srv.Close()
			get := func(path string) (int, string) {
				resp, err := http.Get(srv.URL + path)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, string(b)
			}
			if code, body := get(metrics.HealthPath); code != http.StatusOK || body != "ok\n" {
				t.Errorf("/healthz: %d %q", code, body)
			}
			if code, body := get(metrics.ReadyPath); code != tt.code || body != tt.body {
				t.Errorf("/readyz: %d %q, want %d %q", code, body, tt.code, tt.body)
			}
			_, text := get(metrics.MetricsPath)
			wantLines(t, text, "parley_queue_messages 4", "parley_turns_waiting 2", "parley_turns_running 8",
				"parley_approvals_pending 1", "parley_reminders_due 3")
			if resp, err := http.Post(srv.URL+metrics.ReadyPath, "text/plain", nil); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("POST /readyz: %v %v", resp.StatusCode, err)
			}
		})
	}
}

// TestGaugesWithoutTheStore: a count that fails leaves its gauge out of
// the scrape, counted as a store error, and the rest is served.
func TestGaugesWithoutTheStore(t *testing.T) {
	rec := metrics.New(metrics.Config{})
	if err := rec.Watch(loader{Running: 1}, counts{err: errors.New("database is locked")}); err != nil {
		t.Fatal(err)
	}
	// The failures are counted while the scrape collects, so they show
	// from the next one.
	scrape(t, rec)
	text := scrape(t, rec)
	wantLines(t, text, "parley_turns_running 1")
	// The first scrape's two failed counts show; the second's are counted
	// while it collects, concurrently with the counter itself, so none,
	// one or both of them may be in this scrape.
	if !strings.Contains(text, `parley_errors_total{class="query",source="store"} 2`+"\n") &&
		!strings.Contains(text, `parley_errors_total{class="query",source="store"} 3`+"\n") &&
		!strings.Contains(text, `parley_errors_total{class="query",source="store"} 4`+"\n") {
		t.Errorf("failed counts not counted:\n%s", grep(text, "parley_errors_total"))
	}
	if strings.Contains(text, "parley_approvals_pending ") || strings.Contains(text, "parley_reminders_due ") {
		t.Fatalf("a failed count was served:\n%s", text)
	}
}

// TestRecordersAreIndependent: no global registry, so two recorders in
// one process count apart.
func TestRecordersAreIndependent(t *testing.T) {
	cfg := metrics.Config{Platforms: []string{"slack"}}
	a, b := metrics.New(cfg), metrics.New(cfg)
	a.TurnEnded("slack", bot.TurnAnswered)
	wantLines(t, scrape(t, a), `parley_turns_total{outcome="answered",platform="slack"} 1`)
	if !strings.Contains(scrape(t, b), `parley_turns_total{outcome="answered",platform="slack"} 0`) {
		t.Fatal("a turn counted in one recorder shows in another")
	}
}

type idleTransport struct{ closed int }

func (t *idleTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("not used")
}
func (t *idleTransport) CloseIdleConnections() { t.closed++ }

// TestModelTransportClosesIdle: closing a client's idle connections
// reaches the transport under the model call timer (the trimmer closes
// those to local model servers when Parley is quiet).
func TestModelTransportClosesIdle(t *testing.T) {
	next := &idleTransport{}
	c := &http.Client{Transport: metrics.New(metrics.Config{}).ModelTransport(next)}
	c.CloseIdleConnections()
	if next.closed != 1 {
		t.Errorf("CloseIdleConnections reached the transport below %d times, want 1", next.closed)
	}
}
