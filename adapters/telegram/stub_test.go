package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// A scripted Bot API on loopback for the unit tests: it records every call
// and answers from a script, so each test controls exactly what Telegram
// says. The conformance test uses the full fake, telegramtest.

const (
	testToken   = "123456:TEST-very-secret"
	testBotID   = 1000
	testBotName = "parley_bot"
	// hangLimit only ever ends a failing test.
	hangLimit = 20 * time.Second
)

var discard = slog.New(slog.DiscardHandler)

type stubCall struct {
	Method string
	Params url.Values
}

// stubReply is a scripted answer: an error when Code is set, else Result
// (nil: the method's default).
type stubReply struct {
	Code       int
	Desc       string
	RetryAfter int
	Result     any
}

type stubAPI struct {
	srv *httptest.Server

	mu      sync.Mutex
	calls   []stubCall
	next    map[string][]stubReply
	updates []json.RawMessage // update_id i+1 at index i
	msgID   int
	changed chan struct{}
	// gates hold the answers to a method until the channel closes.
	gates map[string]chan struct{}
}

// gate holds every answer to method, once the call is recorded, until
// the returned function is called.
func (s *stubAPI) gate(method string) (release func()) {
	ch := make(chan struct{})
	s.mu.Lock()
	if s.gates == nil {
		s.gates = map[string]chan struct{}{}
	}
	s.gates[method] = ch
	s.mu.Unlock()
	var once sync.Once
	return func() { once.Do(func() { close(ch) }) }
}

func newStub(t *testing.T) *stubAPI {
	s := &stubAPI{next: map[string][]stubReply{}, msgID: 100, changed: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *stubAPI) URL() string { return s.srv.URL }

// script queues replies for the next calls of method.
func (s *stubAPI) script(method string, r ...stubReply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next[method] = append(s.next[method], r...)
}

// push queues an update (a JSON object without update_id) and returns its
// update_id.
func (s *stubAPI) push(obj string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := len(s.updates) + 1
	s.updates = append(s.updates, json.RawMessage(fmt.Sprintf(`{"update_id":%d,%s`, id, strings.TrimPrefix(obj, "{"))))
	s.notifyLocked()
	return id
}

// callsTo returns the calls of method, or all calls for "".
func (s *stubAPI) callsTo(method string) []stubCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []stubCall
	for _, c := range s.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

func (s *stubAPI) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// waitFor blocks until cond holds; it re-checks on every call recorded.
func (s *stubAPI) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(hangLimit)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func (s *stubAPI) serve(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot"+testToken+"/")
	if !ok {
		writeStub(w, stubReply{Code: 401, Desc: "Unauthorized"})
		return
	}
	if err := r.ParseForm(); err != nil {
		writeStub(w, stubReply{Code: 400, Desc: "Bad Request: " + err.Error()})
		return
	}
	s.mu.Lock()
	s.calls = append(s.calls, stubCall{Method: rest, Params: r.PostForm})
	s.notifyLocked()
	var reply *stubReply
	if q := s.next[rest]; len(q) > 0 {
		reply, s.next[rest] = &q[0], q[1:]
	}
	gate := s.gates[rest]
	s.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
	}
	if reply != nil && (reply.Code != 0 || reply.Result != nil) {
		writeStub(w, *reply)
		return
	}
	writeStub(w, stubReply{Result: s.defaultResult(r.Context(), rest, r.PostForm)})
}

func (s *stubAPI) defaultResult(ctx context.Context, method string, p url.Values) any {
	switch method {
	case "getMe":
		return map[string]any{"id": testBotID, "is_bot": true, "first_name": "Parley", "username": testBotName}
	case "sendMessage":
		s.mu.Lock()
		s.msgID++
		id := s.msgID
		s.mu.Unlock()
		chat, _ := strconv.ParseInt(p.Get("chat_id"), 10, 64)
		return map[string]any{"message_id": id, "date": 1, "chat": map[string]any{"id": chat}, "text": p.Get("text")}
	case "getUpdates":
		return s.getUpdates(ctx, p)
	}
	return true
}

// getUpdates answers the updates from offset on, waiting up to timeout
// seconds for one.
func (s *stubAPI) getUpdates(ctx context.Context, p url.Values) []json.RawMessage {
	offset, _ := strconv.Atoi(p.Get("offset"))
	secs, _ := strconv.Atoi(p.Get("timeout"))
	timer := time.NewTimer(time.Duration(secs) * time.Second)
	defer timer.Stop()
	for {
		s.mu.Lock()
		var out []json.RawMessage
		for i, u := range s.updates {
			if i+1 >= offset {
				out = append(out, u)
			}
		}
		ch := s.changed
		s.mu.Unlock()
		if len(out) > 0 {
			return out
		}
		select {
		case <-ch:
		case <-timer.C:
			return []json.RawMessage{}
		case <-ctx.Done():
			return nil
		}
	}
}

func writeStub(w http.ResponseWriter, r stubReply) {
	w.Header().Set("Content-Type", "application/json")
	if r.Code != 0 {
		body := map[string]any{"ok": false, "error_code": r.Code, "description": r.Desc}
		if r.RetryAfter > 0 {
			body["parameters"] = map[string]any{"retry_after": r.RetryAfter}
		}
		w.WriteHeader(r.Code)
		_ = json.NewEncoder(w).Encode(body)
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": r.Result})
}
