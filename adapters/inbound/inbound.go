// Package inbound serves the HTTP endpoints chat platforms post events to
// (Slack's HTTP mode, Telegram's webhook) on one address, http.listen, so
// that several adapters share one listener behind one reverse proxy.
package inbound

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// ShutdownWait bounds the graceful shutdown: requests in flight are
// answered, then the server closes.
const ShutdownWait = 5 * time.Second

// Server is one HTTP listener with a mux adapters register on. Handle may
// be called before or while it serves: until an adapter has registered,
// its path answers 404 and the platform retries.
type Server struct {
	listen string
	log    *slog.Logger
	mux    *http.ServeMux
}

// New returns a Server for listen (host:port).
func New(listen string, logger *slog.Logger) *Server {
	if logger == nil {
		logger = slog.Default()
	}
	return &Server{listen: listen, log: logger, mux: http.NewServeMux()}
}

// Handle registers h for pattern (net/http.ServeMux patterns); like
// ServeMux it panics when two registrations conflict.
func (s *Server) Handle(pattern string, h http.Handler) {
	s.mux.Handle(pattern, h)
	s.log.Info("serving an inbound endpoint", "pattern", pattern)
}

// Serve listens and serves until ctx ends, then shuts down gracefully. It
// returns nil after a shutdown, or why it could not listen or serve.
func (s *Server) Serve(ctx context.Context) error {
	ln, err := s.Listen()
	if err != nil {
		return err
	}
	return s.ServeOn(ctx, ln)
}

// Listen binds the server's address. Binding before telling a platform
// where to post (Telegram's setWebhook) means its first delivery finds
// the port open.
func (s *Server) Listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", s.listen)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s (http.listen): %w", s.listen, err)
	}
	return ln, nil
}

// ServeOn serves on ln (from Listen) until ctx ends, as Serve does.
func (s *Server) ServeOn(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		// Slack gives up on a request after 3 s, Telegram after about
		// 60 s; handlers answer as soon as an event is recorded.
		WriteTimeout:   30 * time.Second,
		IdleTimeout:    2 * time.Minute,
		MaxHeaderBytes: 64 << 10,
		ErrorLog:       slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	s.log.Info("listening for platform events", "listen", ln.Addr().String())
	select {
	case err := <-served:
		return fmt.Errorf("HTTP server on %s: %w", s.listen, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownWait)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		s.log.Warn("HTTP server did not shut down in time; closing it", "err", err)
		_ = srv.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("HTTP server on %s: %w", s.listen, err)
	}
	return nil
}
