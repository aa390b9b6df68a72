package slack

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/parleybot/parley/adapters/inbound"
	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// HTTP mode (docs/platforms.md#slack-receiving,
// docs/platforms.md#slack-buttons, docs/platforms.md#slack-slash-commands):
// Slack POSTs events, clicks and slash commands to public URLs instead of
// sending them over a Socket Mode websocket. In the Slack app's settings (or
// the manifest: with settings.socket_mode_enabled false,
// settings.event_subscriptions.request_url,
// settings.interactivity.request_url and each slash command's url), with
// https://parley.example.com standing for wherever the reverse proxy in
// front of http.listen is reached:
//
//	Event Subscriptions → Request URL:  https://parley.example.com/slack/events
//	Interactivity       → Request URL:  https://parley.example.com/slack/interactivity
//	Slash Commands      → /parley URL:  https://parley.example.com/slack/commands
//
// Every request is authenticated by its signature (the signing secret),
// not by the deprecated verification token.
const (
	EventsPath        = "/slack/events"
	InteractivityPath = "/slack/interactivity"
	CommandsPath      = "/slack/commands"
)

// maxRequestBody caps what is read of a request: Slack's payloads are a
// few KB, a message event with blocks some tens.
const maxRequestBody = 1 << 20

// Handler is HTTP mode's request handler, for serving it on a listener
// of one's own (Run serves it on Config.Listen). Events go to h; ctx
// bounds the work that outlives a request (a click's handling, a slash
// command's late answer), as Run's ctx does, and should end no earlier
// than the server.
func (a *Adapter) Handler(ctx context.Context, h chat.Handler) http.Handler {
	return a.newHTTPHandler(ctx, h)
}

// httpHandler serves the three endpoints.
type httpHandler struct {
	a   *Adapter
	ctx context.Context
	h   chat.Handler
	mux *http.ServeMux
	// pending runs the work that outlives its request; Run stops it after
	// the server has shut down, and it refuses requests from then on.
	pending adapterkit.Group
}

func (a *Adapter) newHTTPHandler(ctx context.Context, h chat.Handler) *httpHandler {
	hh := &httpHandler{a: a, ctx: ctx, h: h, mux: http.NewServeMux()}
	hh.mux.HandleFunc(EventsPath, hh.verified(hh.events))
	hh.mux.HandleFunc(InteractivityPath, hh.verified(hh.interactivity))
	hh.mux.HandleFunc(CommandsPath, hh.verified(hh.commands))
	return hh
}

func (hh *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { hh.mux.ServeHTTP(w, r) }

// serveHTTP is Run in HTTP mode: it registers the endpoints on
// Config.Mux, or serves them on Config.Listen itself, until ctx ends.
func (a *Adapter) serveHTTP(ctx context.Context, h chat.Handler) error {
	hh := a.newHTTPHandler(ctx, h)
	var own *inbound.Server
	mux := a.cfg.Mux
	if mux == nil {
		own = inbound.New(a.cfg.Listen, a.log)
		mux = own
	}
	// After Run returns a shared server may still deliver a request; it
	// is refused (Slack retries) rather than handled by a stopped core.
	gate := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hh.pending.Stopping() {
			http.Error(w, "parley is stopping", http.StatusServiceUnavailable)
			return
		}
		hh.ServeHTTP(w, r)
	})
	for _, path := range []string{EventsPath, InteractivityPath, CommandsPath} {
		mux.Handle(path, gate)
	}
	a.log.Info("serving Slack's HTTP endpoints", "events", EventsPath, "interactivity", InteractivityPath, "commands", CommandsPath)
	// Slack posts whenever it has something: registered is connected.
	a.connected.Store(true)
	defer a.connected.Store(false)
	var err error
	if own != nil {
		err = own.Serve(ctx)
	} else {
		<-ctx.Done()
	}
	// Work started by requests ends with ctx; a handler called after Run
	// returned would race the shutdown.
	hh.pending.Stop()
	if err != nil {
		return fmt.Errorf("slack: HTTP mode: %w", err)
	}
	return ctx.Err()
}

// verified wraps an endpoint: POST only, the body read with a cap, and
// the signature and timestamp checked before anything is handled.
func (hh *httpHandler) verified(next func(w http.ResponseWriter, r *http.Request, body []byte)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRequestBody))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				hh.a.log.Warn("Slack request over the size cap refused", "path", r.URL.Path, "limit", tooBig.Limit)
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "cannot read the request body", http.StatusBadRequest)
			return
		}
		if err := verifySignature(r.Header, body, hh.a.cfg.SigningSecret); err != nil {
			// Internet noise or a wrong signing secret: the latter shows
			// as every request failing here.
			hh.a.log.Warn("unsigned or badly signed request refused; check slack.signing_secret if this repeats",
				"path", r.URL.Path, "remote", r.RemoteAddr, "err", err)
			http.Error(w, "invalid signature", http.StatusUnauthorized)
			return
		}
		if n := r.Header.Get("X-Slack-Retry-Num"); n != "" {
			// The inbox dedupes the redelivery.
			hh.a.log.Info("Slack is retrying a request", "path", r.URL.Path, "retry", n,
				"reason", r.Header.Get("X-Slack-Retry-Reason"))
		}
		next(w, r, body)
	}
}

// verifySignature checks Slack's v0 signature of body and that the
// request is at most 5 minutes old (or ahead).
func verifySignature(header http.Header, body []byte, secret string) error {
	sv, err := slack.NewSecretsVerifier(header, secret)
	if err != nil {
		return err
	}
	if _, err := sv.Write(body); err != nil {
		return err
	}
	return sv.Ensure()
}

// events serves the Events API: the URL check, and event callbacks
// answered 200 once the handler has recorded them (an error answers 500,
// and Slack retries; the inbox dedupes).
func (hh *httpHandler) events(w http.ResponseWriter, r *http.Request, body []byte) {
	e, err := slackevents.ParseEvent(json.RawMessage(body), slackevents.OptionNoVerifyToken())
	if err != nil {
		// Signed, so from Slack; a retry would not parse either.
		hh.a.log.Warn("Slack event not understood", "err", err)
		w.Header().Set("X-Slack-No-Retry", "1")
		http.Error(w, "event not understood", http.StatusBadRequest)
		return
	}
	switch e.Type {
	case slackevents.URLVerification:
		v, ok := e.Data.(*slackevents.EventsAPIURLVerificationEvent)
		if !ok {
			http.Error(w, "bad url_verification", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, v.Challenge)
	case slackevents.AppRateLimited:
		hh.a.log.Warn("Slack is dropping events: the app exceeded 30,000 events an hour")
		w.WriteHeader(http.StatusOK)
	case slackevents.CallbackEvent:
		if err := hh.a.handleEvent(hh.ctx, hh.h, e); err != nil {
			hh.a.log.Error("event not recorded; Slack will redeliver it", "err", err)
			http.Error(w, "event not recorded", http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

// interactivity serves clicks: the form field payload is the JSON
// interaction. It is answered 200 at once, as in Socket Mode, while it
// is handled beside; once Run is stopping, 503 (Slack retries).
func (hh *httpHandler) interactivity(w http.ResponseWriter, r *http.Request, body []byte) {
	form, err := url.ParseQuery(string(body))
	if err != nil || form.Get("payload") == "" {
		http.Error(w, "no payload", http.StatusBadRequest)
		return
	}
	var cb slack.InteractionCallback
	if err := json.Unmarshal([]byte(form.Get("payload")), &cb); err != nil {
		hh.a.log.Warn("Slack interaction not understood", "err", err)
		http.Error(w, "payload not understood", http.StatusBadRequest)
		return
	}
	if !hh.pending.Go(hh.ctx, func() { hh.a.handleInteraction(hh.ctx, hh.h, &cb) }) {
		http.Error(w, "parley is stopping", http.StatusServiceUnavailable) // Slack retries
		return
	}
	w.WriteHeader(http.StatusOK)
}

// commands serves slash commands as Socket Mode does (slash.go): the
// handler's first answer, when it comes within the ack window, is the
// response body; anything later goes by response_url.
func (hh *httpHandler) commands(w http.ResponseWriter, r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	sc, err := slack.SlashCommandParse(r)
	if err != nil {
		http.Error(w, "slash command not understood", http.StatusBadRequest)
		return
	}
	acked := make(chan any, 1)
	if !hh.pending.Go(hh.ctx, func() {
		hh.a.slashCommand(hh.ctx, hh.h, sc, func(payload any) { acked <- payload })
	}) {
		http.Error(w, "parley is stopping", http.StatusServiceUnavailable)
		return
	}
	// slashCommand acks within slashAckWait, or when hh.ctx ends.
	payload := <-acked
	if payload == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	b, err := json.Marshal(payload)
	if err != nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
