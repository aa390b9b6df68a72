// Package llmtest is an in-process fake of the two LLM wire protocols Parley
// speaks — OpenAI Chat Completions and Anthropic Messages, both streamed
// over SSE — in the style of net/http/httptest, so the real SDK clients run
// against it.
//
// Tests script answers with Enqueue; each request to either endpoint takes
// the next Reply and gets it in its own protocol:
//
//	srv := llmtest.NewServer(llmtest.WithAPIKey("k"))
//	defer srv.Close()
//	srv.Enqueue(
//		llmtest.Text("Hel", "lo"),
//		llmtest.Status(429).WithHeader("Retry-After", "2"),
//	)
//	oa := openai.New(openai.Config{APIKey: "k", BaseURL: srv.OpenAIBaseURL()})
//	an := anthropic.New(anthropic.Config{APIKey: "k", BaseURL: srv.AnthropicBaseURL()})
//
// Every request is recorded (Requests), including refused ones. The
// embeddings and speech-to-text endpoints (embeddings.go,
// transcriptions.go) are scripted and recorded apart.
//
// A request that finds the queue empty gets a 500 saying no reply was
// scripted (or the Responder's answer, when one is set), so a test that
// calls the model more often than it planned fails loudly.
package llmtest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"time"
)

// Server is a running fake. Its methods are safe for concurrent use.
type Server struct {
	// URL is the server's root, "http://127.0.0.1:port", with no trailing
	// slash. openai-go wants URL+"/v1" as its base URL (the version is part
	// of OpenAI base URLs); anthropic-sdk-go wants URL (it adds /v1/ itself).
	// OpenAIBaseURL and AnthropicBaseURL return exactly those.
	URL string

	hs        *httptest.Server
	apiKey    string
	responder func(Request) Reply
	seq       atomic.Int64  // numbers answers, for unique response IDs
	closing   chan struct{} // closed by Close, releases stalled handlers
	closeOnce sync.Once

	embed func(string) []float32
	cache promptCache
	// answered is told of each complete streamed answer (WithAnswered).
	answered func(Request)

	mu         sync.Mutex
	queue      []Reply
	embedQueue []Reply
	requests   []Request
	// The transcription endpoint's script and record (transcriptions.go).
	heardQueue []Heard
	heard      []Transcription
}

// Option configures a Server.
type Option func(*Server)

// WithAPIKey makes the server accept only this key: a request carrying
// another one, or none, gets the provider's 401 (OpenAI invalid_api_key,
// Anthropic authentication_error) and takes no scripted reply. Without it
// any key is accepted.
func WithAPIKey(key string) Option {
	return func(s *Server) { s.apiKey = key }
}

// WithResponder answers with f when the queue is empty, instead of the
// "no reply scripted" 500: for end-to-end tests that talk to the model an
// unknown number of times (see Echo). f may be called concurrently.
func WithResponder(f func(Request) Reply) Option {
	return func(s *Server) { s.responder = f }
}

// WithAnswered has f told of every streamed answer once it is complete:
// its last event written and flushed to the client (not for error
// answers or faults). A load generator joins it with when the answer was
// shown, to tell the model's time from the bot's. f may be called
// concurrently.
func WithAnswered(f func(Request)) Option {
	return func(s *Server) { s.answered = f }
}

// NewServer starts a server on a loopback port. Close it when done.
func NewServer(opts ...Option) *Server {
	s := &Server{closing: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		s.complete(w, r, openAI{})
	})
	mux.HandleFunc("POST /v1/messages", func(w http.ResponseWriter, r *http.Request) {
		s.complete(w, r, anthropic{})
	})
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("POST /v1/audio/transcriptions", s.transcriptions)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("/", s.notFound)
	s.hs = httptest.NewServer(mux)
	s.URL = s.hs.URL
	return s
}

// OpenAIBaseURL is the base URL to give openai-go: URL + "/v1".
func (s *Server) OpenAIBaseURL() string { return s.URL + "/v1" }

// AnthropicBaseURL is the base URL to give anthropic-sdk-go: URL.
func (s *Server) AnthropicBaseURL() string { return s.URL }

// Close releases stalled answers and shuts the server down, waiting for
// in-flight requests to finish.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.closing) })
	s.hs.Close()
}

// Enqueue appends replies to the script. Requests to either endpoint take
// them in order.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Pending returns how many scripted replies no request has taken yet.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns every request received so far, in arrival order,
// refused ones included. The Requests share their maps with the server's
// record: read them, do not modify them.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// protocol renders replies in one provider's wire format.
type protocol interface {
	key(h http.Header) string
	writeError(w http.ResponseWriter, req Request, reply Reply)
	writeModels(w http.ResponseWriter)
	// streamBody writes the events carrying the reply's content and
	// streamEnd the ones closing a complete answer; a Fault goes between.
	streamBody(s *sseWriter, req Request, reply Reply, seq int64)
	streamEnd(s *sseWriter, req Request, reply Reply, seq int64)
	// streamError writes the in-stream error event that ends a failed answer.
	streamError(s *sseWriter)
	// refuse returns the provider's complaint about a request it would
	// refuse before answering, "" when it takes the request.
	refuse(req Request) string
}

func (s *Server) complete(w http.ResponseWriter, r *http.Request, p protocol) {
	req, ok := s.receive(w, r, p)
	if !ok {
		return
	}
	if !req.Stream() {
		p.writeError(w, req, Status(http.StatusBadRequest).WithMessage(`llmtest: only streamed requests are supported; send "stream": true`))
		return
	}
	if msg := p.refuse(req); msg != "" {
		p.writeError(w, req, Status(http.StatusBadRequest).WithMessage(msg))
		return
	}
	reply := s.next(req)
	if reply.Latency > 0 {
		t := time.NewTimer(reply.Latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		case <-s.closing:
			t.Stop()
			return
		}
	}
	if reply.Status != 0 {
		p.writeError(w, req, reply)
		return
	}
	reply.Usage = s.usage(req, reply, p)
	seq := s.seq.Add(1)
	sse := startSSE(r.Context(), w, reply.Header)
	p.streamBody(sse, req, reply, seq)
	switch reply.Fault {
	case FaultStall:
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return
	case FaultDrop:
		// net/http closes the connection without ending the chunked body,
		// so the client reads an unexpected EOF mid-stream.
		panic(http.ErrAbortHandler)
	case FaultTruncate:
		return
	case FaultErrorEvent:
		p.streamError(sse)
		return
	}
	p.streamEnd(sse, req, reply, seq)
	if s.answered != nil && sse.err == nil {
		s.answered(req)
	}
}

// usage is what the answer to req reports: the scripted usage, else the
// estimate with the prompt cache's accounting. Either way the prompt
// enters the cache.
func (s *Server) usage(req Request, reply Reply, p protocol) Usage {
	_, anthropicAPI := p.(anthropic)
	read, write := s.cache.account(req, anthropicAPI)
	if reply.Usage != (Usage{}) {
		return reply.Usage
	}
	u := reply.usageFor(req)
	u.CachedTokens = min(read, u.InputTokens)
	u.CacheWriteTokens = min(write, u.InputTokens-u.CachedTokens)
	return u
}

// models answers the model list both SDKs use as a cheap authenticated
// call. Both live at GET /v1/models; the anthropic-version header, which
// anthropic-sdk-go always sends, tells them apart.
func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	var p protocol = openAI{}
	if r.Header.Get("Anthropic-Version") != "" {
		p = anthropic{}
	}
	if _, ok := s.receive(w, r, p); ok {
		p.writeModels(w)
	}
}

// notFound answers unknown paths — typically a base URL missing or doubling
// "/v1" — with an error body both SDKs can parse.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.receive(w, r, nil)
	msg := fmt.Sprintf("llmtest: no endpoint %s %s (OpenAI base URL is %s, Anthropic base URL is %s)",
		r.Method, r.URL.Path, s.OpenAIBaseURL(), s.AnthropicBaseURL())
	writeJSON(w, http.StatusNotFound, nil, map[string]any{
		"type":  "error",
		"error": map[string]any{"type": "not_found_error", "message": msg},
	})
}

// receive records the request and checks its key; when it returns false
// the request has been answered.
func (s *Server) receive(w http.ResponseWriter, r *http.Request, p protocol) (Request, bool) {
	body, err := io.ReadAll(r.Body)
	req := newRequest(r, body)
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	if p == nil {
		return req, true
	}
	if err != nil {
		p.writeError(w, req, Status(http.StatusBadRequest).WithMessage("llmtest: cannot read request body: "+err.Error()))
		return req, false
	}
	if s.apiKey != "" && p.key(r.Header) != s.apiKey {
		p.writeError(w, req, Status(http.StatusUnauthorized))
		return req, false
	}
	return req, true
}

// next takes the reply for req: the head of the queue, else the
// Responder's answer, else a loud 500.
func (s *Server) next(req Request) Reply {
	s.mu.Lock()
	if len(s.queue) > 0 {
		r := s.queue[0]
		s.queue[0] = Reply{}
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return r
	}
	s.mu.Unlock()
	if s.responder != nil {
		return s.responder(req)
	}
	return Status(http.StatusInternalServerError).WithMessage(
		fmt.Sprintf("llmtest: no reply scripted for %s %s; Enqueue one per model call", req.Method, req.Path))
}
