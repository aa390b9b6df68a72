package discord

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Test identities.
const (
	testBot   = "900000000000000001"
	testGuild = "100"
	testChan  = "200" // a text channel in testGuild
	testThr   = "300" // a thread under testChan
)

// restCall is one request the fake REST API saw.
type restCall struct {
	Method, Path, Body string
	Query              url.Values
}

// fakeREST is a loopback Discord REST API for unit tests: canned answers
// by "METHOD /path" (a path of the API, without /api/v9), every call
// recorded. Unanswered routes get Discord's 404 Unknown Channel.
type fakeREST struct {
	srv *httptest.Server

	mu      sync.Mutex
	calls   []restCall
	answers map[string]restAnswer
	first   map[string][]restAnswer // answered before answers, once each
}

type restAnswer struct {
	status int
	body   string
	header http.Header
}

func newFakeREST(t testing.TB) *fakeREST {
	f := &fakeREST{answers: map[string]restAnswer{}, first: map[string][]restAnswer{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeREST) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	path := strings.TrimPrefix(r.URL.Path, "/api/v9")
	f.mu.Lock()
	f.calls = append(f.calls, restCall{Method: r.Method, Path: path, Body: string(body), Query: r.URL.Query()})
	route := r.Method + " " + path
	ans, ok := f.answers[route]
	if q := f.first[route]; len(q) > 0 {
		ans, ok, f.first[route] = q[0], true, q[1:]
	}
	f.mu.Unlock()
	if !ok {
		ans = restAnswer{status: http.StatusNotFound, body: `{"message":"Unknown Channel","code":10003}`}
	}
	for k, v := range ans.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ans.status)
	_, _ = io.WriteString(w, ans.body)
}

func (f *fakeREST) answer(route string, status int, body string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[route] = restAnswer{status: status, body: body}
}

func (f *fakeREST) rateLimit(route string, retryAfter string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answers[route] = restAnswer{
		status: http.StatusTooManyRequests,
		body:   `{"message":"You are being rate limited.","retry_after":` + retryAfter + `,"global":false}`,
		header: http.Header{"Retry-After": {retryAfter}, "X-Ratelimit-Scope": {"user"}},
	}
}

// rateLimitOnce answers the next call of route with a 429, then as before.
func (f *fakeREST) rateLimitOnce(route string, retryAfter string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.first[route] = append(f.first[route], restAnswer{
		status: http.StatusTooManyRequests,
		body:   `{"message":"You are being rate limited.","retry_after":` + retryAfter + `,"global":false}`,
		header: http.Header{"Retry-After": {retryAfter}, "X-Ratelimit-Scope": {"user"}},
	})
}

func (f *fakeREST) recorded() []restCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]restCall(nil), f.calls...)
}

// newTestAdapter is an adapter on f whose gateway state knows the bot,
// testGuild with testChan and the thread testThr, as READY and
// GUILD_CREATE would have told it. log receives the adapter's log.
func newTestAdapter(t testing.TB, f *fakeREST, log io.Writer) *Adapter {
	t.Helper()
	if log == nil {
		log = io.Discard
	}
	a, err := New(Config{
		Token:  "test-token",
		APIURL: f.srv.URL + "/api/v9",
		Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	st := a.s.State
	st.Lock()
	st.Ready = discordgo.Ready{User: &discordgo.User{ID: testBot, Username: "Parley", Bot: true}}
	st.Unlock()
	err = st.GuildAdd(&discordgo.Guild{ID: testGuild, Name: "guild",
		Channels: []*discordgo.Channel{{ID: testChan, GuildID: testGuild, Name: "general", Type: discordgo.ChannelTypeGuildText}},
		Threads: []*discordgo.Channel{{ID: testThr, GuildID: testGuild, ParentID: testChan, Name: "a thread",
			Type: discordgo.ChannelTypeGuildPublicThread}},
	})
	if err != nil {
		t.Fatalf("state: %v", err)
	}
	return a
}

// testCtx bounds a test; the deadline only ever signals a hang.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}
