// Package slacktest is an in-process fake of Slack for tests and benchmarks,
// in the style of net/http/httptest. It speaks the real wire protocols — the
// form-encoded Web API and the Socket Mode websocket — so the real slack-go
// client (and socketmode client) can be pointed at it unchanged:
//
//	srv := slacktest.NewServer()
//	defer srv.Close()
//	api := slack.New(srv.BotToken(),
//		slack.OptionAPIURL(srv.URL+"/"), // slack-go appends the method name to this
//		slack.OptionAppLevelToken(srv.AppToken()))
//	sm := socketmode.New(api, socketmode.OptionPingInterval(time.Second))
//	go sm.RunContext(ctx)
//
// The fake models one workspace (team, bot, users, channels and their
// members, messages), enforces Slack's per-method rate-limit tiers and
// length limits, and lets a test inject what users do (messages, mentions,
// clicks, slash commands) as the exact payloads Slack would deliver, files
// people share included (PostUserFiles; their bytes are served at
// url_private as files.slack.com serves them). Everything the client did is queryable afterwards (Calls,
// Messages, Thread, Ephemerals, Acks, Delivered, Downloads).
package slacktest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/parleybot/parley/internal/changes"
	"github.com/parleybot/parley/internal/holdgate"
)

// Server is a fake Slack workspace. Create it with NewServer and Close it
// when done. All methods are safe for concurrent use.
type Server struct {
	// URL is the base URL of the fake, without a trailing slash. The Web API
	// base for slack-go is URL+"/" (slack.OptionAPIURL needs the slash).
	URL string

	opts options
	hs   *httptest.Server

	ctx    context.Context // cancelled by Close; stops timers and sockets
	cancel context.CancelFunc

	mu      sync.Mutex
	changes *changes.Feed // notified on every state change (see WaitFor)
	st      *state
	calls   []Call
	limits  *limiter
	faults  map[string][]fault
	// streamErr, when set, is answered by chat.startStream/appendStream/stopStream
	// so tests can exercise the adapter's fallback to postMessage+update.
	streamErr string
	sock      *socketState
	files     map[string]*storedFile // by file id (files.go)
	downloads []Download
	holds     holdgate.Gate
}

// NewServer starts a fake Slack listening on a loopback port.
func NewServer(opts ...Option) *Server {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		opts:    o,
		ctx:     ctx,
		cancel:  cancel,
		changes: changes.New(),
		st:      newState(o),
		limits:  newLimiter(o.limits, o.now),
		faults:  map[string][]fault{},
		sock:    newSocketState(),
		files:   map[string]*storedFile{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/ws", s.serveSocket)
	mux.HandleFunc("/response/{id}", s.serveResponseURL)
	mux.HandleFunc("GET /files-pri/{file}/{name}", s.serveFile)
	mux.HandleFunc("GET /files-pri/{file}/download/{name}", s.serveFile)
	mux.HandleFunc("/{method}", s.serveWebAPI)
	s.hs = httptest.NewServer(mux)
	s.URL = s.hs.URL
	return s
}

// Close drops every websocket, stops redelivery timers and shuts the HTTP
// server down. It blocks until all handlers have returned.
func (s *Server) Close() {
	s.cancel()
	s.changes.Close()
	s.mu.Lock()
	conns := s.sock.allConns()
	s.sock.stopTimers()
	s.mu.Unlock()
	for _, c := range conns {
		c.closeNow()
	}
	s.hs.Close()
}

// BotToken is the xoxb- token the Web API accepts (see WithTokens).
func (s *Server) BotToken() string { return s.opts.botToken }

// AppToken is the xapp- token apps.connections.open accepts (see WithTokens).
func (s *Server) AppToken() string { return s.opts.appToken }

// TeamID is the fake workspace's team id.
func (s *Server) TeamID() string { return s.opts.teamID }

// BotUserID is the bot's user id, the one mentions use as <@BOTUSERID>.
func (s *Server) BotUserID() string { return s.opts.botUserID }

// BotID is the bot's bot id (B…), set on messages the app posts.
func (s *Server) BotID() string { return s.opts.botID }

// hostURL is the base used for URLs handed to the client (websocket,
// response_url); it is the httptest listener address.
func (s *Server) wsURL(ticket string) string {
	return "ws://" + strings.TrimPrefix(s.URL, "http://") + "/ws?ticket=" + ticket
}

// notifyLocked wakes WaitFor callers. Callers hold s.mu.
func (s *Server) notifyLocked() {
	s.changes.Notify()
}

// WaitFor blocks until cond returns true or ctx ends. cond is evaluated
// after every state change of the fake (a call served, an envelope delivered
// or acked, a socket connected…), so tests synchronise without sleeping.
// cond must not call WaitFor; it may call the query methods.
func (s *Server) WaitFor(ctx context.Context, cond func() bool) error {
	return s.changes.WaitFor(ctx, cond)
}

func (s *Server) now() time.Time { return s.opts.now() }
