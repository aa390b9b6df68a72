// Package webconsole is the web console (docs/console.md): a page where
// the operator sees and steers what Parley does, and each person sees
// what Parley keeps about them. Server-rendered html/template pages over
// the store interfaces, embedded in the binary; signing in is by
// one-time link, never a password.
package webconsole

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/webconsole/signin"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Lifetimes of what signs people in (issue: single use, 10 minutes; 12 h
// sessions).
const (
	LinkLifetime    = 10 * time.Minute
	SessionLifetime = 12 * time.Hour
)

// Config wires a Server.
type Config struct {
	Auth  signin.Auth
	Audit bot.AuditLog
	// Data is what the pages read and change.
	Data Data
	// Shared says which replicas share the store and who holds which
	// lease, for the overview; nil: not shown.
	Shared bot.SharedState
	// Costs are what model calls cost, for the usage page; nil: the page
	// says they are not kept.
	Costs bot.CostBook
	// VetMemory is the memory guard (guard.Vet with the judge): what a
	// person writes into their memory in the console passes it, as the
	// memory tool's writes do; nil: entries can be forgotten here, not
	// edited.
	VetMemory func(ctx context.Context, content string, existing []string) error
	// MemoryLimits cap each memory list, as in chat.
	MemoryLimits agent.MemoryLimits
	// Turns are how turns ended, for the overview's answers and latency;
	// nil: not shown.
	Turns bot.TurnBook
	// Limits are the money limits the usage page shows how close people
	// and agents are to.
	Limits Limits
	// Knowledge is the knowledge base the Knowledge page lists, searches
	// and changes; nil: the page says it is off.
	Knowledge Knowledge
	// Learning is what the Learning page shows and changes; nil: the page
	// says learning from use is off.
	Learning Learning
	// IsAdmin says whether a person ("platform:id") is an admin
	// (access.admins): their link opens the admin view.
	IsAdmin func(user string) bool
	// PublicURL is where people reach the console (console.public_url):
	// the base of links; "" is http:// and the listening address.
	PublicURL string
	// LinkBase is the base of links made outside a request (NewLink):
	// PublicURL, or the listening address; "" is http://localhost.
	LinkBase string
	// TrustedProxies may say who the client is (X-Forwarded-For) and that
	// it came over TLS (X-Forwarded-Proto).
	TrustedProxies []netip.Prefix
	// SignInsPerMinute bounds sign-in attempts per client address; 0: 10.
	SignInsPerMinute int
	Now              func() time.Time
	Logger           *slog.Logger
}

// Server serves the console.
type Server struct {
	cfg         Config
	mu          sync.Mutex
	approvalsOf Approvals             // UseApprovals
	live        *live                 // UseLive
	mux         func() *http.ServeMux // routes, on the first request
	pages       func() (map[string]*template.Template, error)
	limits      *clientLimits
}

// New checks cfg and builds the server.
func New(cfg Config) (*Server, error) {
	if cfg.Auth == nil || cfg.Audit == nil || cfg.Data == nil {
		return nil, errors.New("webconsole: Auth, Audit and Data are required")
	}
	if cfg.IsAdmin == nil {
		cfg.IsAdmin = func(string) bool { return false }
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.SignInsPerMinute <= 0 {
		cfg.SignInsPerMinute = 10
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	// The pages are parsed when the first is shown, not at start: 2.5 ms
	// and ~0.9 MB of allocations a chat-only process need not pay
	// (docs/footprint.md). They are embedded, and the tests parse them.
	// So are the routes: registering each pattern asks the runtime for
	// its caller's file and line (ServeMux keeps them for its conflict
	// messages), 470 allocations and 0.13 ms for the console's 35 once
	// warm (BenchmarkRoutes), more at start, when the runtime first reads
	// its line tables.
	s := &Server{cfg: cfg, pages: sync.OnceValues(parsePages), limits: newClientLimits(cfg.SignInsPerMinute, cfg.Now)}
	s.mux = sync.OnceValue(s.routes)
	return s, nil
}

func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", immutable(http.FileServerFS(static))))
	mux.HandleFunc("GET /login/{token}", s.loginPage)
	mux.HandleFunc("POST /login/{token}", s.login)
	mux.Handle("POST /logout", s.signedIn(s.logout))
	mux.Handle("GET /{$}", s.signedIn(s.home))
	mux.Handle("POST /memory/forget", s.signedIn(s.forget))
	mux.Handle("POST /memory/edit", s.signedIn(s.editMemory))
	mux.Handle("GET /conversations", s.signedIn(s.conversations))
	mux.Handle("GET /conversations/{id}", s.signedIn(s.conversation))
	mux.Handle("GET /conversations/{id}/export", s.signedIn(s.exportConversation))
	mux.Handle("GET /events", s.admin(s.events))
	// A person's own items, an admin's everyone's: the handlers decide.
	mux.Handle("GET /time", s.signedIn(s.timePage))
	mux.Handle("POST /time/{id}/pause", s.signedIn(s.changeItem("pause")))
	mux.Handle("POST /time/{id}/resume", s.signedIn(s.changeItem("resume")))
	mux.Handle("POST /time/{id}/cancel", s.signedIn(s.changeItem("cancel")))
	mux.Handle("GET /approvals", s.admin(s.approvals))
	mux.Handle("POST /approvals/{id}", s.admin(s.decide))
	mux.Handle("GET /audit", s.admin(s.audit))
	mux.Handle("GET /audit/export", s.admin(s.auditExport))
	mux.Handle("GET /sessions", s.admin(s.sessions))
	mux.Handle("GET /kb", s.admin(s.knowledgePage))
	// An admin's to any scope, a person's to their own private
	// documents: the handlers decide.
	mux.Handle("POST /kb/add", s.signedIn(s.addDocument))
	mux.Handle("POST /kb/{id}/remove", s.signedIn(s.removeDocument))
	mux.Handle("GET /learning", s.admin(s.learningPage))
	mux.Handle("GET /learning/skill", s.admin(s.learningSkill))
	mux.Handle("POST /learning/undo", s.admin(s.learningChange("undo")))
	mux.Handle("POST /learning/forget", s.admin(s.learningChange("forget")))
	mux.Handle("POST /learning/skill/edit", s.admin(s.learningChange("edit")))
	mux.Handle("POST /learning/memo", s.admin(s.learningChange("memo")))
	mux.Handle("GET /usage", s.admin(s.usage))
	mux.Handle("GET /people", s.admin(s.people))
	mux.Handle("GET /people/{key}", s.admin(s.person))
	mux.Handle("POST /people/{key}/erase", s.admin(s.erase))
	mux.Handle("POST /sessions/revoke", s.admin(s.revoke))
	return mux
}

// ServeHTTP serves every request with the console's security headers.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// No inline script or style, nothing from elsewhere, never framed.
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "+
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// Sign-in links carry their token in the path: never in a Referer to
	// another site. (no-referrer would make browsers send "Origin: null"
	// with this console's own forms.)
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	if s.secure(r) {
		h.Set("Strict-Transport-Security", "max-age=31536000")
	}
	s.mux().ServeHTTP(w, r)
}

// immutable marks the embedded assets cacheable: they change only with
// the binary, whose version their URLs do not carry, so an hour.
func immutable(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		next.ServeHTTP(w, r)
	})
}

// link is the absolute URL of path for people: on PublicURL, else on the
// request's host.
func (s *Server) link(r *http.Request, path string) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL + path
	}
	if r == nil && s.cfg.LinkBase != "" {
		return strings.TrimRight(s.cfg.LinkBase, "/") + path
	}
	scheme := "http"
	if r != nil && s.secure(r) {
		scheme = "https"
	}
	host := "localhost"
	if r != nil {
		host = r.Host
	}
	return fmt.Sprintf("%s://%s%s", scheme, host, path)
}

// record adds an audit entry for something done in the console; a
// failure is logged, and the action stands.
func (s *Server) record(ctx context.Context, who *signin.Session, action, target, detail string) {
	e := bot.AuditEntry{At: s.cfg.Now(), Actor: who.User, Action: action, Target: target, Detail: detail, Via: "console"}
	if err := s.cfg.Audit.Audit(context.WithoutCancel(ctx), e); err != nil {
		s.cfg.Logger.Error("console: audit", "action", action, "err", err)
	}
}
