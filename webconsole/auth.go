package webconsole

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/time/rate"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/webconsole/signin"
)

// Signing in: a one-time link (NewLink) opens a page whose button signs
// the browser in; a GET never does, so a chat's link preview cannot spend
// the link. The session is a cookie holding a random secret; the store
// keeps its hash.

// cookieName is the session cookie.
const cookieName = "parley_console"

// Operator is who a link made without --as signs in: whoever holds the
// machine Parley runs on. Always an admin.
const Operator = "operator"

// secret is 32 random bytes as URL-safe text.
func secret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hash is what the store keeps of a secret.
func hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// NewLink makes a one-time sign-in link for user ("platform:id", or
// Operator), valid LinkLifetime; admins' links open the admin view.
func (s *Server) NewLink(ctx context.Context, user string) (string, error) {
	token := secret()
	now := s.cfg.Now()
	l := signin.Login{Hash: hash(token), User: user, Admin: user == Operator || s.cfg.IsAdmin(user), Created: now, Expires: now.Add(LinkLifetime)}
	if err := s.cfg.Auth.AddLogin(ctx, l); err != nil {
		return "", err
	}
	return s.link(nil, "/login/"+token), nil
}

// loginPage shows the button that signs in with the link's token.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusOK, "login", nil, map[string]any{"Token": r.PathValue("token")})
}

// login takes the link's token once and opens a session.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.limits.allow(s.client(r)) {
		s.fail(w, r, http.StatusTooManyRequests, "Too many sign-in attempts from here. Wait a minute and use a new link.")
		return
	}
	l, ok, err := s.cfg.Auth.UseLogin(r.Context(), hash(r.PathValue("token")), s.cfg.Now())
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if !ok {
		s.fail(w, r, http.StatusForbidden, "This sign-in link is not valid: it was used already, it expired, or it was never made. Ask for a new one (/console in chat, or parley console login).")
		return
	}
	// A person who lost admin since the link was made signs in as a person.
	admin := l.User == Operator || l.Admin && s.cfg.IsAdmin(l.User)
	value, now := secret(), s.cfg.Now()
	sess := signin.Session{Hash: hash(value), User: l.User, Admin: admin, CSRF: secret(), Created: now,
		Expires: now.Add(SessionLifetime), Agent: cut(r.UserAgent(), 200)}
	if err := s.cfg.Auth.AddSession(r.Context(), sess); err != nil {
		s.serverError(w, r, err)
		return
	}
	// Max-Age, which browsers prefer to Expires, counts on the browser's
	// own clock: a browser whose clock is behind or ahead of the server's
	// still keeps the cookie for the session's lifetime, no more.
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: value, Path: "/", Expires: sess.Expires,
		MaxAge: int(SessionLifetime / time.Second), HttpOnly: true, Secure: s.secure(r), SameSite: http.SameSiteStrictMode})
	s.record(r.Context(), &sess, "console.signin", sess.Hash[:12], cut(r.UserAgent(), 200))
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// logout ends the caller's session.
func (s *Server) logout(w http.ResponseWriter, r *http.Request, who *signin.Session) {
	if _, err := s.cfg.Auth.RevokeSessions(r.Context(), who.Hash); err != nil {
		s.serverError(w, r, err)
		return
	}
	s.record(r.Context(), who, "console.signout", who.Hash[:12], "")
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: s.secure(r), SameSite: http.SameSiteStrictMode})
	s.render(w, r, http.StatusOK, "message", nil, map[string]any{"Title": "Signed out", "Text": "You are signed out."})
}

// handler is a page for a signed-in person.
type handler func(http.ResponseWriter, *http.Request, *signin.Session)

// signedIn runs h for a live session, after the CSRF check of a form;
// anyone else is told to sign in.
func (s *Server) signedIn(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(cookieName)
		if err != nil || c.Value == "" {
			s.fail(w, r, http.StatusUnauthorized, "Sign in first: send /console to Parley in chat, or run parley console login on its machine.")
			return
		}
		who, ok, err := s.cfg.Auth.LiveSession(r.Context(), hash(c.Value), s.cfg.Now())
		if err != nil {
			s.serverError(w, r, err)
			return
		}
		if !ok {
			s.fail(w, r, http.StatusUnauthorized, "Your session has ended. Sign in again: send /console to Parley in chat, or run parley console login.")
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if err := s.readForm(r); errors.As(err, new(*http.MaxBytesError)) {
				// Refused before the CSRF check, as nothing was done: the
				// sender should hear it was the size, not a stale form.
				s.fail(w, r, http.StatusRequestEntityTooLarge, s.tooLarge(r))
				return
			}
			if !s.sameOrigin(r, &who) {
				s.fail(w, r, http.StatusForbidden, "This form is out of date or did not come from this console; reload the page and try again.")
				return
			}
		}
		h(w, r, &who)
	})
}

// admin runs h for an admin's session; a person gets 403, whatever URL
// they typed.
func (s *Server) admin(h handler) http.Handler {
	return s.signedIn(func(w http.ResponseWriter, r *http.Request, who *signin.Session) {
		if !who.Admin {
			s.fail(w, r, http.StatusForbidden, "This page is for admins.")
			return
		}
		h(w, r, who)
	})
}

// sameOrigin checks a state-changing request: its form carries the
// session's CSRF token, and a browser that says where it comes from says
// this console.
func (s *Server) sameOrigin(r *http.Request, who *signin.Session) bool {
	token := r.PostFormValue("csrf") // read within its bound by readForm
	if token == "" || subtle.ConstantTimeCompare([]byte(token), []byte(who.CSRF)) != 1 {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		// No origin said: a browser that says where the request comes
		// from must say this site; a client that says nothing (curl) has
		// the token, which is the check.
		site := r.Header.Get("Sec-Fetch-Site")
		return site == "" || site == "same-origin"
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	if s.cfg.PublicURL != "" {
		p, err := url.Parse(s.cfg.PublicURL)
		return err == nil && strings.EqualFold(u.Host, p.Host)
	}
	return strings.EqualFold(u.Host, r.Host)
}

// formBound is what a form's body may hold, but an upload's.
const formBound = 1 << 20

// uploadRoute is the one form that takes a file: a document for the
// knowledge base (an admin's to any scope, a person's to their own), up
// to its file cap. Anywhere else a form stays within formBound, so no one
// can make the console spool large bodies to disk where it expects none.
const uploadRoute = "POST /kb/add"

// uploadBound is what r's body may hold: a document at the knowledge
// base's file cap and the other fields for an upload, else formBound.
func (s *Server) uploadBound(r *http.Request) int64 {
	if !s.uploading(r) {
		return formBound
	}
	return max(formBound, s.cfg.Knowledge.MaxFileBytes()+uploadSlack)
}

// uploading reports whether r may carry a document: to the upload route,
// with a knowledge base to take it.
func (s *Server) uploading(r *http.Request) bool {
	return r.Pattern == uploadRoute && s.cfg.Knowledge != nil
}

// readForm reads a state-changing request's form within its bound, so
// the CSRF token is there to check whichever way the form was encoded.
// An upload's file past 1 MiB waits on disk, not in memory; net/http
// removes it when the request is done.
func (s *Server) readForm(r *http.Request) error {
	r.Body = http.MaxBytesReader(nil, r.Body, s.uploadBound(r))
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		return r.ParseMultipartForm(formBound)
	}
	return r.ParseForm()
}

// tooLarge says why a form was too large to read.
func (s *Server) tooLarge(r *http.Request) string {
	if s.uploading(r) {
		return "Not added: the upload is over the cap of " + kb.Size(s.cfg.Knowledge.MaxFileBytes()) + " per document."
	}
	return "That form is larger than this console takes."
}

// secure reports whether r came over TLS: directly, or through a trusted
// proxy that says so.
func (s *Server) secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if strings.HasPrefix(s.cfg.PublicURL, "https://") {
		return true
	}
	return s.trusted(r) && strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

// client is the address a request came from: the peer, or the address a
// trusted proxy names as the last one before it.
func (s *Server) client(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if !s.trusted(r) {
		return host
	}
	hops := strings.Split(r.Header.Get("X-Forwarded-For"), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		if !s.trustedAddr(a) {
			return a.String()
		}
	}
	return host
}

func (s *Server) trusted(r *http.Request) bool {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	return err == nil && s.trustedAddr(ap.Addr())
}

func (s *Server) trustedAddr(a netip.Addr) bool {
	for _, p := range s.cfg.TrustedProxies {
		if p.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// clientLimits bound sign-in attempts per client address.
type clientLimits struct {
	every time.Duration
	burst int
	now   func() time.Time

	mu  sync.Mutex
	per map[string]*rate.Limiter
}

func newClientLimits(perMinute int, now func() time.Time) *clientLimits {
	return &clientLimits{every: time.Minute / time.Duration(perMinute), burst: perMinute, now: now, per: map[string]*rate.Limiter{}}
}

func (c *clientLimits) allow(client string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.per) >= 10000 { // forget full buckets: they grant nothing
		for k, l := range c.per {
			if l.TokensAt(now) >= float64(c.burst) {
				delete(c.per, k)
			}
		}
	}
	l, ok := c.per[client]
	if !ok {
		l = rate.NewLimiter(rate.Every(c.every), c.burst)
		c.per[client] = l
	}
	return l.AllowN(now, 1)
}

// cut is s cut to n bytes at most, on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
