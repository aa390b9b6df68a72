// Package telegramtest is an in-process fake of the Telegram Bot API for
// tests and benchmarks, in the style of net/http/httptest. It speaks the real
// wire protocol (POST/GET /bot<token>/<method>, form, multipart, JSON or query
// parameters, {"ok":…} answers), so the real telegram-bot-api client works
// against it unchanged:
//
//	srv := telegramtest.NewServer()
//	t.Cleanup(srv.Close)
//	bot, err := tgbotapi.NewBotAPIWithAPIEndpoint(srv.Token(), srv.Endpoint())
//
// The fake models one bot and its world (users, private chats, supergroups
// and their members, forum topics, messages), queues updates for long
// polling or a webhook, validates messages the way Telegram does (HTML
// parse mode, 4096 UTF-16 units, buttons) and enforces Telegram's flood
// limits. Tests inject what
// people do (Post, Click; Post attaches documents and photos, served by
// getFile and /file/bot<token>/<path>) and faults (FailNext, Storm,
// DropNext, FailFile), and read back what the bot did (Messages, Calls,
// Drafts, CallbackAnswers, Downloads…).
package telegramtest

import (
	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
	"github.com/parleybot/parley/internal/changes"
	"github.com/parleybot/parley/internal/holdgate"

	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"
)

// Server is a fake Telegram Bot API. Create it with NewServer and Close it
// when done. All methods are safe for concurrent use.
type Server struct {
	// URL is the base URL of the fake, e.g. http://127.0.0.1:41234.
	URL string

	opts options
	hs   *httptest.Server

	ctx    context.Context // cancelled by Close: ends long polls and webhook delivery
	cancel context.CancelFunc
	wg     sync.WaitGroup // the webhook delivery loop

	mu      sync.Mutex
	changes *changes.Feed // notified on every state change (see WaitFor)
	world   *world
	queue   *updateQueue
	hook    webhook
	poll    *poller // the getUpdates call currently waiting, if any
	offset  int

	calls       []Call
	deliveries  []Delivery
	queries     map[string]*callbackQuery
	querySeq    uint64
	answers     []CallbackAnswer
	commands    []tgbotapi.BotCommand
	limits      *limiter
	rateLimited int
	faults      map[string][]Fault
	drops       map[string]int
	holds       holdgate.Gate
	storm       storm
	rng         *rand.Rand
	files       map[string]*storedFile // by file_id (files.go)
	downloads   []Download
}

// NewServer starts a fake Bot API on a loopback port.
func NewServer(opts ...Option) *Server {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	seed := uint64(o.seed)
	s := &Server{
		opts:    o,
		ctx:     ctx,
		cancel:  cancel,
		changes: changes.New(),
		world:   newWorld(o),
		queue:   newUpdateQueue(),
		limits:  newLimiter(o.rateLimits, time.Now),
		queries: map[string]*callbackQuery{},
		faults:  map[string][]Fault{},
		drops:   map[string]int{},
		files:   map[string]*storedFile{},
		rng:     rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
	}
	s.hs = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	s.URL = s.hs.URL
	s.wg.Add(1)
	go s.deliverLoop()
	return s
}

// Close ends pending long polls, stops webhook delivery and shuts the HTTP
// server down. It blocks until every handler has returned.
func (s *Server) Close() {
	s.cancel()
	s.changes.Close()
	s.hs.Close()
	s.wg.Wait()
}

// Token is the bot token the fake accepts.
func (s *Server) Token() string { return s.opts.token }

// Endpoint is the format string tgbotapi.NewBotAPIWithAPIEndpoint expects
// (token, then method).
func (s *Server) Endpoint() string { return s.URL + "/bot%s/%s" }

// BotID is the bot's user id.
func (s *Server) BotID() int64 { return s.opts.botID }

// BotUsername is the bot's username, without "@".
func (s *Server) BotUsername() string { return s.opts.botUsername }

// notifyLocked wakes WaitFor callers, long polls and the webhook loop.
// Callers hold s.mu.
func (s *Server) notifyLocked() {
	s.changes.Notify()
}

// WaitFor blocks until cond returns true or ctx ends. cond is re-checked
// after every state change of the fake (a call answered, a message posted or
// edited, a webhook delivery…), so tests synchronise without sleeping. cond
// may call the query methods but not WaitFor.
func (s *Server) WaitFor(ctx context.Context, cond func() bool) error {
	return s.changes.WaitFor(ctx, cond)
}
