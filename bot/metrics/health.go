package metrics

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/parleybot/parley/chat"
)

// Paths the operator endpoints are served on.
const (
	MetricsPath = "/metrics"
	HealthPath  = "/healthz"
	ReadyPath   = "/readyz"
)

// Pinger is the store's liveness (store.DB).
type Pinger interface {
	Ping(ctx context.Context) error
}

// Health answers /healthz and /readyz.
type Health struct {
	// Store must answer for Parley to be ready.
	Store Pinger
	// Adapters must each be connected (chat.Connection; one without it
	// counts as connected).
	Adapters []chat.Adapter
}

// pingWait bounds the store's answer to a readiness probe, well inside
// the probe timeouts container platforms use (1 s by default).
const pingWait = 900 * time.Millisecond

// Healthz answers 200 while the process serves HTTP at all: a liveness
// probe that fails only when Parley is wedged or gone.
func (h Health) Healthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprintln(w, "ok")
}

// Readyz answers 200 when the store answers and every platform is
// connected, 503 otherwise, with one line per check. The lines name only
// platforms and states: no error text, which could carry a path or a
// token.
func (h Health) Readyz(w http.ResponseWriter, r *http.Request) {
	var lines []string
	ready := true
	ctx, cancel := context.WithTimeout(r.Context(), pingWait)
	defer cancel()
	if h.Store != nil {
		state := "ok"
		if err := h.Store.Ping(ctx); err != nil {
			state, ready = "not answering", false
		}
		lines = append(lines, "store: "+state)
	}
	for _, a := range h.Adapters {
		state := "connected"
		if c, ok := a.(chat.Connection); ok && !c.Connected() {
			state, ready = "not connected", false
		}
		lines = append(lines, a.Platform()+": "+state)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if !ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	fmt.Fprintln(w, strings.Join(lines, "\n"))
}

// Serve registers /metrics, /healthz and /readyz on mux (http.listen's
// server, shared with the platforms' webhooks).
func (r *Recorder) Serve(mux chat.Mux, h Health) {
	mux.Handle("GET "+MetricsPath, r.Handler())
	mux.Handle("GET "+HealthPath, http.HandlerFunc(h.Healthz))
	mux.Handle("GET "+ReadyPath, http.HandlerFunc(h.Readyz))
}
