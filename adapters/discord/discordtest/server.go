// Package discordtest is an in-process fake of Discord (REST API v9 and the
// gateway websocket) for tests, in the style of net/http/httptest. It speaks
// the real wire protocol, so an unmodified discordgo Session works against it:
//
//	srv := discordtest.NewServer()
//	defer srv.Close()
//	s, _ := discordgo.New("Bot " + srv.Token())
//	rw, _ := discord.NewRewrite(srv.APIURL())
//	s.Client = &http.Client{Transport: rw}
//	_ = s.Open() // GET /gateway, then the websocket at srv.URL+"/gateway"
//
// The fake models one bot in some guilds: channels, threads, DMs, messages,
// buttons, slash commands and interactions, with Discord's validation errors,
// allowed_mentions rules, rate-limit buckets and session resumption. Every
// user it knows is a member of every guild (GET /guilds/{id}/members/{id})
// until RemoveMember. Tests
// inject what users do (Post, Click, Command; Post attaches files, served
// at their url as the CDN serves them), steer the gateway (DropConnection,
// RequestReconnect, InvalidateSession, ForgetSessions, HoldGateway) and
// query what the bot did (Messages, InteractionReplies, Ephemeral, Calls,
// Downloads…), synchronising with WaitFor instead of sleeping.
//
// A client may shard: each IDENTIFY with shard [i, n] starts shard i's
// session, which receives the events of the guilds with
// (guild_id >> 22) % n == i, and shard 0 the DMs'. DropShard and
// ForgetShard steer one shard; ShardIdentifies, ShardConnected and
// Dispatches tell what each got; WithRequiredShards makes too few shards
// a 4011.
package discordtest

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/parleybot/parley/internal/changes"
	"github.com/parleybot/parley/internal/holdgate"
)

const apiPrefix = "/api/v9"

// Server is a fake Discord. Create it with NewServer and Close it when done.
// All methods are safe for concurrent use.
type Server struct {
	// URL is the base URL, http://127.0.0.1:port, without a trailing slash.
	URL string

	opts   options
	hs     *httptest.Server
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	conns  sync.WaitGroup // gateway handlers, which httptest forgets once hijacked

	mu          sync.Mutex
	changes     *changes.Feed // notified on every state change (see WaitFor)
	rng         *rand.Rand
	w           *world
	gw          *gateway
	routes      []route
	calls       []Call
	limits      *limiter
	faults      map[string][]injected
	storms      map[string]storm
	rateLimited int
	// nonceReturns counts creates answered by enforce_nonce with an earlier message.
	nonceReturns int
	typing       map[string]int
	downloads    []Download
	holds        holdgate.Gate
}

// NewServer starts a fake Discord on a loopback port.
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
		rng:     rand.New(rand.NewPCG(uint64(o.seed), uint64(o.seed)^0x5eed)),
		w:       newWorld(o),
		gw:      newGateway(),
		limits:  newLimiter(o),
		faults:  map[string][]injected{},
		storms:  map[string]storm{},
		typing:  map[string]int{},
		routes:  routes(),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/gateway", s.serveGateway)
	mux.HandleFunc("/gateway/", s.serveGateway) // discordgo appends a slash
	mux.HandleFunc(apiPrefix+"/", s.serveREST)
	mux.HandleFunc("GET /attachments/{channel}/{id}/{name}", s.serveAttachment)
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusNotFound, notFound())
	})
	s.hs = httptest.NewServer(mux)
	s.URL = s.hs.URL
	return s
}

// Close drops every gateway connection, unblocks WaitFor callers' conditions
// from further changes and shuts the HTTP server down.
func (s *Server) Close() {
	s.cancel()
	s.changes.Close()
	s.mu.Lock()
	conns := s.gw.allConns()
	s.notifyLocked()
	s.mu.Unlock()
	for _, c := range conns {
		c.closeNow()
	}
	s.hs.Close()
	s.conns.Wait()
}

// APIURL is the REST base, URL+"/api/v9": the discord.api_url value.
func (s *Server) APIURL() string { return s.URL + apiPrefix }

// Token is the bot token (without the "Bot " prefix).
func (s *Server) Token() string { return s.opts.token }

// BotID is the bot user's id, which is also the application id.
func (s *Server) BotID() string { return s.opts.botID }

func (s *Server) gatewayURL() string {
	return "ws://" + strings.TrimPrefix(s.URL, "http://") + "/gateway"
}

// notifyLocked wakes WaitFor callers. Callers hold s.mu.
func (s *Server) notifyLocked() {
	s.changes.Notify()
}

// ErrClosed is returned by WaitFor once the server is closed.
var ErrClosed = errors.New("discordtest: server closed")

// WaitFor blocks until cond returns true, ctx ends or the server is closed. cond is re-evaluated
// after every state change of the fake (a call answered, a dispatch sent, a
// client identified…). cond may call the query methods but not WaitFor.
func (s *Server) WaitFor(ctx context.Context, cond func() bool) error {
	err := s.changes.WaitFor(ctx, cond)
	if errors.Is(err, changes.ErrClosed) {
		return ErrClosed
	}
	return err
}

func (s *Server) now() time.Time { return time.Now() }
