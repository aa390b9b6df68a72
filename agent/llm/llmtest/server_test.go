package llmtest

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const streamBody = `{"model":"m","stream":true,"stream_options":{"include_usage":true},` +
	`"messages":[{"role":"user","content":"hi"}]}`

// post sends body to path with the headers given as "Name: value" pairs.
func post(t *testing.T, srv *Server, path, body string, headers ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return string(b)
}

// TestGoldenStreams pins the exact wire format of each protocol for one
// reply with text, a tool call in two fragments and usage.
func TestGoldenStreams(t *testing.T) {
	reply := Text("Hi").WithToolCall("call_1", "get_weather", `{"city"`, `:"Paris"}`).WithUsage(3, 4)
	for _, tc := range []struct{ path, golden string }{
		{"/v1/chat/completions", "openai.sse"},
		{"/v1/messages", "anthropic.sse"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			srv := NewServer()
			t.Cleanup(srv.Close)
			srv.Enqueue(reply)
			resp := post(t, srv, tc.path, streamBody)
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
				t.Errorf("Content-Type = %q, want text/event-stream", ct)
			}
			got := readAll(t, resp)
			path := filepath.Join("testdata", tc.golden)
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("stream (-want +got):\n%s", diff)
			}
		})
	}
}

// TestQueueSharedAcrossProtocols: one FIFO, each reply rendered in the
// protocol of the endpoint that takes it.
func TestQueueSharedAcrossProtocols(t *testing.T) {
	srv := NewServer()
	t.Cleanup(srv.Close)
	srv.Enqueue(Text("first"), Text("second"))

	if body := readAll(t, post(t, srv, "/v1/messages", streamBody)); !strings.Contains(body, `"text":"first"`) {
		t.Errorf("Anthropic endpoint got:\n%s\nwant the first reply as a text_delta", body)
	}
	if body := readAll(t, post(t, srv, "/v1/chat/completions", streamBody)); !strings.Contains(body, `"content":"second"`) {
		t.Errorf("OpenAI endpoint got:\n%s\nwant the second reply as a content delta", body)
	}
	if n := srv.Pending(); n != 0 {
		t.Errorf("Pending = %d, want 0", n)
	}
}

func TestErrorBodies(t *testing.T) {
	tests := []struct {
		name    string
		reply   *Reply // nil: nothing scripted
		opts    []Option
		path    string
		body    string
		headers []string
		status  int
		want    string // exact JSON body
	}{
		{
			name: "OpenAI wrong key", opts: []Option{WithAPIKey("k")}, path: "/v1/chat/completions",
			headers: []string{"Authorization: Bearer nope"}, status: 401,
			want: `{"error":{"code":"invalid_api_key","message":"Incorrect API key provided","param":null,"type":"invalid_request_error"}}`,
		},
		{
			name: "OpenAI no key", opts: []Option{WithAPIKey("k")}, path: "/v1/chat/completions", status: 401,
			want: `{"error":{"code":"invalid_api_key","message":"Incorrect API key provided","param":null,"type":"invalid_request_error"}}`,
		},
		{
			name: "Anthropic wrong x-api-key", opts: []Option{WithAPIKey("k")}, path: "/v1/messages",
			headers: []string{"X-Api-Key: nope"}, status: 401,
			want: `{"error":{"message":"invalid x-api-key","type":"authentication_error"},"type":"error"}`,
		},
		{
			name: "Anthropic wrong bearer", opts: []Option{WithAPIKey("k")}, path: "/v1/messages",
			headers: []string{"Authorization: Bearer nope"}, status: 401,
			want: `{"error":{"message":"invalid x-api-key","type":"authentication_error"},"type":"error"}`,
		},
		{
			name: "OpenAI nothing scripted", path: "/v1/chat/completions", status: 500,
			want: `{"error":{"code":null,"message":"llmtest: no reply scripted for POST /v1/chat/completions; Enqueue one per model call","param":null,"type":"server_error"}}`,
		},
		{
			name: "Anthropic nothing scripted", path: "/v1/messages", status: 500,
			want: `{"error":{"message":"llmtest: no reply scripted for POST /v1/messages; Enqueue one per model call","type":"api_error"},"type":"error"}`,
		},
		{
			name: "OpenAI context overflow", reply: ptr(ContextOverflow()), path: "/v1/chat/completions", status: 400,
			want: `{"error":{"code":"context_length_exceeded","message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.","param":null,"type":"invalid_request_error"}}`,
		},
		{
			name: "Anthropic context overflow", reply: ptr(ContextOverflow()), path: "/v1/messages", status: 400,
			want: `{"error":{"message":"prompt is too long: 210000 tokens > 200000 maximum","type":"invalid_request_error"},"type":"error"}`,
		},
		{
			name: "Anthropic overloaded", reply: ptr(Status(529)), path: "/v1/messages", status: 529,
			want: `{"error":{"message":"Overloaded","type":"overloaded_error"},"type":"error"}`,
		},
		{
			name: "OpenAI rate limit with own message", reply: ptr(Status(429).WithMessage("slow down")), path: "/v1/chat/completions", status: 429,
			want: `{"error":{"code":"rate_limit_exceeded","message":"slow down","param":null,"type":"requests"}}`,
		},
		{
			name: "not streamed", reply: ptr(Text("unused")), path: "/v1/messages", body: `{"model":"m"}`, status: 400,
			want: `{"error":{"message":"llmtest: only streamed requests are supported; send \"stream\": true","type":"invalid_request_error"},"type":"error"}`,
		},
		{
			name: "unknown path", path: "/chat/completions", status: 404,
			want: `{"error":{"message":"llmtest: no endpoint POST /chat/completions (OpenAI base URL is {url}/v1, Anthropic base URL is {url})","type":"not_found_error"},"type":"error"}`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := NewServer(tc.opts...)
			t.Cleanup(srv.Close)
			if tc.reply != nil {
				srv.Enqueue(*tc.reply)
			}
			body := tc.body
			if body == "" {
				body = streamBody
			}
			resp := post(t, srv, tc.path, body, tc.headers...)
			if resp.StatusCode != tc.status {
				t.Errorf("status = %d, want %d", resp.StatusCode, tc.status)
			}
			want := strings.ReplaceAll(tc.want, "{url}", srv.URL)
			if got := strings.TrimSpace(readAll(t, resp)); got != want {
				t.Errorf("body = %s\nwant   %s", got, want)
			}
			if tc.name == "not streamed" && srv.Pending() != 1 {
				t.Errorf("a refused request took a scripted reply")
			}
		})
	}
}

func TestStatusHeaders(t *testing.T) {
	srv := NewServer()
	t.Cleanup(srv.Close)
	srv.Enqueue(Status(429).WithHeader("Retry-After", "2").WithHeader("Retry-After-Ms", "1500"))
	resp := post(t, srv, "/v1/messages", streamBody)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || resp.Header.Get("Retry-After-Ms") != "1500" {
		t.Errorf("got %d with headers %v, want 429 with Retry-After 2 and Retry-After-Ms 1500", resp.StatusCode, resp.Header)
	}
}

func TestResponder(t *testing.T) {
	srv := NewServer(WithResponder(Echo))
	t.Cleanup(srv.Close)
	srv.Enqueue(Text("scripted"))

	if body := readAll(t, post(t, srv, "/v1/chat/completions", streamBody)); !strings.Contains(body, `"content":"scripted"`) {
		t.Errorf("the queue must come before the Responder; got:\n%s", body)
	}
	body := readAll(t, post(t, srv, "/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"ping"}]}]}`))
	if !strings.Contains(body, `"text":"echo: "`) || !strings.Contains(body, `"text":"ping"`) {
		t.Errorf("Echo reply missing; got:\n%s", body)
	}
}

func TestModels(t *testing.T) {
	srv := NewServer(WithAPIKey("k"))
	t.Cleanup(srv.Close)
	tests := []struct {
		name    string
		headers map[string]string
		status  int
		want    string // a key of the JSON body
	}{
		{"OpenAI", map[string]string{"Authorization": "Bearer k"}, 200, "object"},
		{"Anthropic", map[string]string{"X-Api-Key": "k", "Anthropic-Version": "2023-06-01"}, 200, "has_more"},
		{"OpenAI wrong key", map[string]string{"Authorization": "Bearer x"}, 401, "error"},
		{"Anthropic wrong key", map[string]string{"Authorization": "Bearer x", "Anthropic-Version": "2023-06-01"}, 401, "type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/v1/models", nil)
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status || body[tc.want] == nil {
				t.Errorf("got %d %v, want %d with key %q", resp.StatusCode, body, tc.status, tc.want)
			}
		})
	}
	if n := srv.Pending(); n != 0 {
		t.Errorf("model lists took scripted replies")
	}
}

func TestRequestsRecorded(t *testing.T) {
	srv := NewServer(WithAPIKey("k"))
	t.Cleanup(srv.Close)
	srv.Enqueue(Text("ok"))
	body := `{"model":"gpt-x","stream":true,"max_tokens":1e3,"messages":[{"role":"user","content":"first"},{"role":"assistant","content":"a"},{"role":"user","content":"last"}]}`
	readAll(t, post(t, srv, "/v1/chat/completions", body, "Authorization: Bearer k"))
	readAll(t, post(t, srv, "/v1/messages", `{}`, "X-Api-Key: wrong")) // refused, still recorded

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests recorded, want 2", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1/chat/completions" || string(r.Body) != body || r.Header.Get("Authorization") != "Bearer k" {
		t.Errorf("recorded %s %s %q %v", r.Method, r.Path, r.Body, r.Header)
	}
	if r.Model() != "gpt-x" || !r.Stream() || r.LastUserText() != "last" || r.JSON["max_tokens"] != json.Number("1e3") {
		t.Errorf("helpers: model %q stream %v last user %q max_tokens %#v", r.Model(), r.Stream(), r.LastUserText(), r.JSON["max_tokens"])
	}
	if reqs[1].Path != "/v1/messages" || reqs[1].Header.Get("X-Api-Key") != "wrong" {
		t.Errorf("refused request recorded as %s %v", reqs[1].Path, reqs[1].Header)
	}
}

func TestLastUserText(t *testing.T) {
	tests := []struct{ body, want string }{
		{`{"messages":[{"role":"user","content":"hi"}]}`, "hi"},
		{`{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`, "ab"},
		// A tool-result turn is not what the user said.
		{`{"messages":[{"role":"user","content":"asked"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"r"}]}]}`, "asked"},
		{`{"messages":[{"role":"assistant","content":"only me"}]}`, ""},
		{`not json`, ""},
	}
	for _, tc := range tests {
		r, _ := http.NewRequest(http.MethodPost, "/", nil)
		if got := newRequest(r, []byte(tc.body)).LastUserText(); got != tc.want {
			t.Errorf("LastUserText(%s) = %q, want %q", tc.body, got, tc.want)
		}
	}
}

func TestWithToolCallDoesNotAlias(t *testing.T) {
	base := Text("x").WithToolCall("a", "f")
	one := base.WithToolCall("b", "g")
	two := base.WithToolCall("c", "h")
	if one.ToolCalls[1].ID != "b" || two.ToolCalls[1].ID != "c" || len(base.ToolCalls) != 1 {
		t.Errorf("replies built from one base share state: %v %v %v", base.ToolCalls, one.ToolCalls, two.ToolCalls)
	}
	h := Status(429).WithHeader("A", "1")
	h2 := h.WithHeader("B", "2")
	if h.Header.Get("B") != "" || h2.Header.Get("A") != "1" {
		t.Errorf("WithHeader shares headers: %v %v", h.Header, h2.Header)
	}
}

// TestDrop: the client reads the chunks, then an unexpected EOF.
func TestDrop(t *testing.T) {
	srv := NewServer()
	t.Cleanup(srv.Close)
	srv.Enqueue(Drop("partial"))
	resp := post(t, srv, "/v1/chat/completions", streamBody)
	got, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("read error = %v, want unexpected EOF", err)
	}
	if !strings.Contains(string(got), `"content":"partial"`) {
		t.Errorf("chunks before the drop missing:\n%s", got)
	}
}

// TestStallReleasedByClose: Close must not wait for a stalled answer.
func TestStallReleasedByClose(t *testing.T) {
	srv := NewServer()
	srv.Enqueue(Stall("wait"))
	resp := post(t, srv, "/v1/messages", streamBody)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && !strings.Contains(sc.Text(), `"text":"wait"`) {
	}
	srv.Close() // hangs if the stalled handler is not released
	for sc.Scan() {
		if strings.Contains(sc.Text(), "message_stop") {
			t.Error("a stalled answer finished normally")
		}
	}
}

// TestConcurrent runs requests in parallel under -race.
func TestConcurrent(t *testing.T) {
	srv := NewServer(WithResponder(Echo))
	t.Cleanup(srv.Close)
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		path := "/v1/chat/completions"
		if i%2 == 1 {
			path = "/v1/messages"
		}
		wg.Go(func() {
			body := fmt.Sprintf(`{"model":"m","stream":true,"messages":[{"role":"user","content":"n%d"}]}`, i)
			resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), fmt.Sprintf(`"n%d"`, i)) {
				t.Errorf("request %d got someone else's answer:\n%s", i, b)
			}
		})
	}
	wg.Wait()
	if got := len(srv.Requests()); got != n {
		t.Errorf("%d requests recorded, want %d", got, n)
	}
}

func ptr[T any](v T) *T { return &v }

// TestPacedHoldsUntilTheClientLeaves: a paced reply sends its first delta
// at once and holds the next one back; a client that leaves ends the wait
// (the pause is an hour, so the test would hang if it did not).
func TestPacedHoldsUntilTheClientLeaves(t *testing.T) {
	for _, path := range []string{"/v1/chat/completions", "/v1/messages"} {
		t.Run(path, func(t *testing.T) {
			srv := NewServer()
			defer srv.Close()
			srv.Enqueue(Text("first-delta", "second-delta").Paced(time.Hour))
			ctx, cancel := context.WithCancel(t.Context())
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+path, strings.NewReader(streamBody))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			sc := bufio.NewScanner(resp.Body)
			for sc.Scan() && !strings.Contains(sc.Text(), "first-delta") {
			}
			if !strings.Contains(sc.Text(), "first-delta") {
				t.Fatalf("the first delta never came: %v", sc.Err())
			}
			cancel()
			for sc.Scan() {
				if strings.Contains(sc.Text(), "second-delta") {
					t.Fatal("the second delta came without its pause")
				}
			}
		})
	}
}

// TestDelayedSendsNothingUntilItsLatency: a Delayed reply starts nothing,
// not even the headers, before its latency; a client that leaves
// meanwhile gets no answer and none is counted as answered.
func TestDelayedSendsNothingUntilItsLatency(t *testing.T) {
	var answered sync.WaitGroup
	srv := NewServer(WithAnswered(func(Request) { answered.Done() }))
	defer srv.Close()
	srv.Enqueue(Text("late").Delayed(time.Hour), Text("prompt").Delayed(time.Nanosecond))
	ctx, cancel := context.WithCancel(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(streamBody))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			err = fmt.Errorf("headers came before the latency: %s", resp.Status)
		}
		done <- err
	}()
	for len(srv.Requests()) == 0 {
		runtime.Gosched()
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the delayed request: %v, want it cancelled while waiting", err)
	}
	answered.Add(1)
	if got := readAll(t, post(t, srv, "/v1/chat/completions", streamBody)); !strings.Contains(got, "prompt") {
		t.Fatalf("the next reply: %q", got)
	}
	answered.Wait() // only the second reply; a count below zero panics
}
