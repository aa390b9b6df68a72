package openai

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
)

const testKey = "sk-test-0123456789"

var hello = llm.Request{Model: "gpt-test", Messages: []llm.Message{{Role: llm.RoleUser, Text: "hi"}}}

// collect drains a stream: the events before EventDone, the final
// response, and the error that ended it.
func collect(stream iter.Seq2[llm.Event, error]) (events []llm.Event, resp *llm.Response, err error) {
	for ev, err := range stream {
		if err != nil {
			return events, nil, err
		}
		if ev.Kind == llm.EventDone {
			resp = ev.Response
			continue
		}
		events = append(events, ev)
	}
	return events, resp, nil
}

func text(s string) llm.Event { return llm.Event{Kind: llm.EventTextDelta, Text: s} }

func start(i int, id, name string) llm.Event {
	return llm.Event{Kind: llm.EventToolCallStart, Index: i, ToolCall: &llm.ToolCall{ID: id, Name: name}}
}

func delta(i int, s string) llm.Event {
	return llm.Event{Kind: llm.EventToolCallDelta, Index: i, Text: s}
}

func call(id, name, args string) llm.ToolCall {
	return llm.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func newServer(t *testing.T, replies ...llmtest.Reply) *llmtest.Server {
	t.Helper()
	srv := llmtest.NewServer(llmtest.WithAPIKey(testKey))
	t.Cleanup(srv.Close)
	srv.Enqueue(replies...)
	return srv
}

func TestStream(t *testing.T) {
	tests := []struct {
		name       string
		reply      llmtest.Reply
		wantEvents []llm.Event
		want       *llm.Response
	}{
		{
			name:       "text in several deltas",
			reply:      llmtest.Text("Hel", "lo", " world").WithUsage(11, 3),
			wantEvents: []llm.Event{text("Hel"), text("lo"), text(" world")},
			want:       &llm.Response{Text: "Hello world", StopReason: llm.StopEnd, Usage: llm.Usage{InputTokens: 11, OutputTokens: 3}},
		},
		{
			name:  "tool call with arguments split across chunks",
			reply: llmtest.ToolCall("call_1", "get_weather", `{"ci`, `ty": "Pa`, `ris"}`).WithUsage(20, 9),
			wantEvents: []llm.Event{
				start(0, "call_1", "get_weather"), delta(0, `{"ci`), delta(0, `ty": "Pa`), delta(0, `ris"}`),
			},
			want: &llm.Response{
				ToolCalls:  []llm.ToolCall{call("call_1", "get_weather", `{"city": "Paris"}`)},
				StopReason: llm.StopToolUse, Usage: llm.Usage{InputTokens: 20, OutputTokens: 9},
			},
		},
		{
			name: "text and two tool calls",
			reply: llmtest.Text("Checking", " both.").
				WithToolCall("call_a", "get_weather", `{"city":`, `"Paris"}`).
				WithToolCall("call_b", "get_time", `{"tz":"CET"}`).
				WithUsage(30, 12),
			wantEvents: []llm.Event{
				text("Checking"), text(" both."),
				start(0, "call_a", "get_weather"), delta(0, `{"city":`), delta(0, `"Paris"}`),
				start(1, "call_b", "get_time"), delta(1, `{"tz":"CET"}`),
			},
			want: &llm.Response{
				Text: "Checking both.",
				ToolCalls: []llm.ToolCall{
					call("call_a", "get_weather", `{"city":"Paris"}`),
					call("call_b", "get_time", `{"tz":"CET"}`),
				},
				StopReason: llm.StopToolUse, Usage: llm.Usage{InputTokens: 30, OutputTokens: 12},
			},
		},
		{
			name:       "tool call without arguments",
			reply:      llmtest.ToolCall("call_1", "now").WithUsage(5, 1),
			wantEvents: []llm.Event{start(0, "call_1", "now")},
			want: &llm.Response{
				ToolCalls:  []llm.ToolCall{call("call_1", "now", `{}`)},
				StopReason: llm.StopToolUse, Usage: llm.Usage{InputTokens: 5, OutputTokens: 1},
			},
		},
		{
			name:       "cut off by the output limit",
			reply:      llmtest.Reply{Chunks: []string{"Once upon"}, MaxTokens: true}.WithUsage(5, 2),
			wantEvents: []llm.Event{text("Once upon")},
			want:       &llm.Response{Text: "Once upon", StopReason: llm.StopMaxTokens, Usage: llm.Usage{InputTokens: 5, OutputTokens: 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, tc.reply)
			p := New(Config{APIKey: testKey, BaseURL: srv.OpenAIBaseURL()})

			events, resp, err := collect(p.Stream(t.Context(), hello))
			if err != nil {
				t.Fatalf("Stream: %v", err)
			}
			if diff := cmp.Diff(tc.wantEvents, events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, resp); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamErrors(t *testing.T) {
	tests := []struct {
		name      string
		reply     llmtest.Reply
		key       string // default testKey
		wantKind  llm.ErrorKind
		status    int
		wait      time.Duration
		retryable bool
		wantText  string // text streamed before the failure
		wantErr   string // exact Error(); {base} is the base URL
	}{
		{
			name: "rate limit with Retry-After seconds", reply: llmtest.Status(429).WithHeader("Retry-After", "2"),
			wantKind: llm.KindRateLimit, status: 429, wait: 2 * time.Second, retryable: true,
			wantErr: "OpenAI rate limit (429): Rate limit reached for requests",
		},
		{
			name:     "rate limit prefers retry-after-ms",
			reply:    llmtest.Status(429).WithHeader("Retry-After-Ms", "1500").WithHeader("Retry-After", "2"),
			wantKind: llm.KindRateLimit, status: 429, wait: 1500 * time.Millisecond, retryable: true,
		},
		{
			name: "key rejected by the server", key: "sk-wrong-0123456789",
			wantKind: llm.KindAuth, status: 401,
			wantErr: "the OpenAI API key was rejected (401): Incorrect API key provided",
		},
		{
			name: "401 scripted", reply: llmtest.Status(401),
			wantKind: llm.KindAuth, status: 401,
			wantErr: "the OpenAI API key was rejected (401): Incorrect API key provided",
		},
		{name: "403", reply: llmtest.Status(403), wantKind: llm.KindAuth, status: 403},
		{
			name: "500", reply: llmtest.Status(500), wantKind: llm.KindServer, status: 500, retryable: true,
			wantErr: "OpenAI server error (500): The server had an error while processing your request. Sorry about that!",
		},
		{name: "503", reply: llmtest.Status(503), wantKind: llm.KindServer, status: 503, retryable: true},
		{name: "408", reply: llmtest.Status(408), wantKind: llm.KindServer, status: 408, retryable: true},
		{name: "409", reply: llmtest.Status(409), wantKind: llm.KindServer, status: 409, retryable: true},
		{name: "400", reply: llmtest.Status(400), wantKind: llm.KindBadRequest, status: 400},
		{name: "422", reply: llmtest.Status(422), wantKind: llm.KindBadRequest, status: 422},
		{
			name: "404 points at the base URL", reply: llmtest.Status(404),
			wantKind: llm.KindBadRequest, status: 404,
			wantErr: "OpenAI answered 404 at {base}/chat/completions: check the base URL and the model name: " +
				"The model `gpt-test` does not exist or you do not have access to it.",
		},
		{
			name: "context overflow", reply: llmtest.ContextOverflow(),
			wantKind: llm.KindContextOverflow, status: 400,
		},
		{
			name:     "stream ended cleanly but unfinished",
			reply:    llmtest.Reply{Chunks: []string{"Hel"}, Fault: llmtest.FaultTruncate},
			wantKind: llm.KindNetwork, retryable: true, wantText: "Hel",
			wantErr: "could not reach OpenAI at {base}/chat/completions: stream ended before the answer was complete: unexpected EOF",
		},
		{
			name: "connection dropped mid-stream", reply: llmtest.Drop("Hel", "lo"),
			wantKind: llm.KindNetwork, retryable: true, wantText: "Hello",
			wantErr: "could not reach OpenAI at {base}/chat/completions: connection lost mid-stream: unexpected EOF",
		},
		{
			name: "error event mid-stream", reply: llmtest.Reply{Chunks: []string{"Hel"}, Fault: llmtest.FaultErrorEvent},
			wantKind: llm.KindServer, retryable: true, wantText: "Hel",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t, tc.reply)
			base := srv.OpenAIBaseURL()
			p := New(Config{APIKey: cmpOr(tc.key, testKey), BaseURL: base})

			events, _, err := collect(p.Stream(t.Context(), hello))
			e, ok := llm.AsError(err)
			if !ok {
				t.Fatalf("error = %v (%T), want *llm.Error", err, err)
			}
			got := errSummary{e.Kind, e.Status, e.RetryAfter, e.Retryable(), e.Provider, e.URL}
			want := errSummary{tc.wantKind, tc.status, tc.wait, tc.retryable, "OpenAI", base + "/chat/completions"}
			if got != want {
				t.Errorf("error = %+v\nwant    %+v", got, want)
			}
			if tc.wantErr != "" {
				if want := strings.ReplaceAll(tc.wantErr, "{base}", base); e.Error() != want {
					t.Errorf("Error() = %q\nwant      %q", e.Error(), want)
				}
			}
			if got := joinText(events); got != tc.wantText {
				t.Errorf("text before the error = %q, want %q", got, tc.wantText)
			}
			if strings.Contains(e.Error(), testKey) {
				t.Errorf("Error() contains the API key: %q", e.Error())
			}
		})
	}
}

type errSummary struct {
	Kind       llm.ErrorKind
	Status     int
	RetryAfter time.Duration
	Retryable  bool
	Provider   string
	URL        string
}

func joinText(events []llm.Event) string {
	var b strings.Builder
	for _, ev := range events {
		if ev.Kind == llm.EventTextDelta {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestStreamErrorPages covers answers that are not the provider's JSON,
// such as a proxy's HTML page, which the SDK cannot parse.
func TestStreamErrorPages(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		header   map[string]string
		wantKind llm.ErrorKind
		wait     time.Duration
	}{
		{name: "plain-text 404", status: 404, wantKind: llm.KindBadRequest},
		{name: "proxy 502", status: 502, wantKind: llm.KindServer},
		{name: "proxy 429", status: 429, header: map[string]string{"Retry-After": "7"}, wantKind: llm.KindRateLimit, wait: 7 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(tc.status)
				io.WriteString(w, "<html><body>nope</body></html>")
			}))
			t.Cleanup(hs.Close)
			p := New(Config{APIKey: testKey, BaseURL: hs.URL + "/v1"})

			_, _, err := collect(p.Stream(t.Context(), hello))
			e, ok := llm.AsError(err)
			if !ok {
				t.Fatalf("error = %v (%T), want *llm.Error", err, err)
			}
			if e.Kind != tc.wantKind || e.Status != tc.status || e.RetryAfter != tc.wait {
				t.Errorf("got kind %v status %d wait %v, want %v %d %v", e.Kind, e.Status, e.RetryAfter, tc.wantKind, tc.status, tc.wait)
			}
			if want := http.StatusText(tc.status); e.Message != want {
				t.Errorf("Message = %q, want %q", e.Message, want)
			}
		})
	}
}

// TestStreamConnectionFailures: every way of not getting an answer is a
// network error naming the endpoint that was tried.
func TestStreamConnectionFailures(t *testing.T) {
	tests := []struct {
		name  string
		base  func(t *testing.T) string // returns the base URL
		cause func(error) bool          // nil: any cause
	}{
		{
			name: "connection refused",
			base: func(t *testing.T) string {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				ln.Close() // nothing listens there any more
				return "http://" + ln.Addr().String() + "/v1"
			},
			cause: func(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) },
		},
		{
			name: "closed before answering",
			base: func(t *testing.T) string {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ln.Close() })
				go func() {
					for {
						c, err := ln.Accept()
						if err != nil {
							return
						}
						c.Close()
					}
				}()
				return "http://" + ln.Addr().String() + "/v1"
			},
			// No cause to check: net/http says EOF, reset, or "server
			// closed idle connection", depending on timing.
		},
		{
			name: "untrusted TLS certificate",
			base: func(t *testing.T) string {
				hs := httptest.NewUnstartedServer(http.NotFoundHandler())
				hs.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is the point
				hs.StartTLS()
				t.Cleanup(hs.Close)
				return hs.URL + "/v1"
			},
			cause: func(err error) bool {
				_, ok := errors.AsType[*tls.CertificateVerificationError](err)
				return ok
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := tc.base(t)
			endpoint := base + "/chat/completions"
			p := New(Config{APIKey: testKey, BaseURL: base})

			_, _, err := collect(p.Stream(t.Context(), hello))
			e, ok := llm.AsError(err)
			if !ok {
				t.Fatalf("error = %v (%T), want *llm.Error", err, err)
			}
			if e.Kind != llm.KindNetwork || !e.Retryable() || e.URL != endpoint {
				t.Errorf("got kind %v retryable %v URL %q, want network, retryable, %q", e.Kind, e.Retryable(), e.URL, endpoint)
			}
			if want := "could not reach OpenAI at " + endpoint + ": "; !strings.HasPrefix(e.Error(), want) {
				t.Errorf("Error() = %q, want prefix %q", e.Error(), want)
			}
			if tc.cause != nil && !tc.cause(err) {
				t.Errorf("error %v does not wrap the expected cause", err)
			}
		})
	}
}

func TestStreamMalformedBaseURL(t *testing.T) {
	p := New(Config{APIKey: testKey, BaseURL: "http://[::1"})
	_, _, err := collect(p.Stream(t.Context(), hello))
	e, ok := llm.AsError(err)
	if !ok || e.Kind != llm.KindBadRequest || e.URL != "http://[::1" {
		t.Fatalf("error = %#v, want KindBadRequest naming the base URL", err)
	}
}

// TestStreamCancel cancels the context while the server is mid-answer: the
// stream must end at once with the context's error, not a network error.
func TestStreamCancel(t *testing.T) {
	srv := newServer(t, llmtest.Stall("Hel"))
	p := New(Config{APIKey: testKey, BaseURL: srv.OpenAIBaseURL()})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	var err error
	for ev, serr := range p.Stream(ctx, hello) {
		if serr != nil {
			err = serr
			break
		}
		if ev.Kind == llm.EventTextDelta {
			cancel() // the server is now stalled until the client goes away
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
	if _, ok := llm.AsError(err); ok {
		t.Errorf("cancellation came back as *llm.Error: %v", err)
	}
}

// TestStreamStopEarly checks that leaving the range closes the response
// body before the range statement returns.
func TestStreamStopEarly(t *testing.T) {
	srv := newServer(t, llmtest.Stall("Hel", "lo"))
	spy := &closeSpy{next: http.DefaultTransport, closed: make(chan struct{})}
	p := New(Config{APIKey: testKey, BaseURL: srv.OpenAIBaseURL(), HTTPClient: &http.Client{Transport: spy}})

	for ev, err := range p.Stream(t.Context(), hello) {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == llm.EventTextDelta {
			break
		}
	}
	select {
	case <-spy.closed:
	default:
		t.Fatal("response body still open after the consumer stopped")
	}
}

type closeSpy struct {
	next   http.RoundTripper
	closed chan struct{}
}

func (s *closeSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := s.next.RoundTrip(r)
	if err == nil {
		resp.Body = &spyBody{ReadCloser: resp.Body, closed: s.closed}
	}
	return resp, err
}

type spyBody struct {
	io.ReadCloser
	closed chan struct{}
	once   sync.Once
}

func (b *spyBody) Close() error {
	b.once.Do(func() { close(b.closed) })
	return b.ReadCloser.Close()
}
