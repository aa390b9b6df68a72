package telegram

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/adapters/inbound"
	"github.com/parleybot/parley/chat"
)

// Webhook mode (docs/platforms.md#telegram-receiving): Telegram POSTs each
// update to Config.WebhookURL with the secret in SecretHeader. The library's
// webhook helpers check no secret, so this is our own.

// SecretHeader carries the webhook's secret_token on every delivery.
const SecretHeader = "X-Telegram-Bot-Api-Secret-Token"

// maxUpdateBody caps what is read of a delivery: an update is a few KB.
const maxUpdateBody = 1 << 20

// validSecret reports whether s is what Telegram accepts as secret_token:
// 1-256 characters of A-Z, a-z, 0-9, _ and -. A loop rather than
// `^[A-Za-z0-9_-]{1,256}$`: the bounded repeat compiles to 256 copies of
// the class, some 80 KiB held for the process's life.
func validSecret(s string) bool {
	if len(s) < 1 || len(s) > 256 {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// webhookRun is what deliveries need from the Run serving them.
type webhookRun struct {
	h      chat.Handler
	secret string
}

func checkWebhookConfig(cfg *Config) error {
	u, err := url.Parse(cfg.WebhookURL)
	// api.telegram.org posts only to https; a local Bot API server
	// (telegram-bot-api --local) posts to http too.
	local := strings.TrimRight(cfg.APIURL, "/") != DefaultAPIURL
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(local && u.Scheme == "http")) {
		return fmt.Errorf("telegram: webhook mode needs telegram.webhook_url, the public https URL Telegram posts to (got %q)", cfg.WebhookURL)
	}
	if cfg.WebhookSecret != "" && !validSecret(cfg.WebhookSecret) {
		return errors.New("telegram: telegram.webhook_secret must be 1–256 characters of A-Z, a-z, 0-9, _ and -")
	}
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	return nil
}

// WebhookHandler serves webhook deliveries, for mounting on a server of
// one's own; Run in webhook mode serves it on Config.Listen. It hands
// updates to the handler of the running Run, and answers 503 (Telegram
// retries) while none is running.
func (a *Adapter) WebhookHandler() http.Handler { return http.HandlerFunc(a.serveUpdate) }

// serveUpdate answers 200 once the update is recorded, 500 when it is not
// (Telegram redelivers, and the router dedupes), and refuses anything
// without the secret before reading its body.
func (a *Adapter) serveUpdate(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	run := a.currentWebhook()
	if run == nil {
		http.Error(w, "not receiving updates", http.StatusServiceUnavailable)
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(SecretHeader)), []byte(run.secret)) != 1 {
		a.log.Warn("webhook delivery without the right secret refused", "remote", r.RemoteAddr)
		http.Error(w, "wrong secret token", http.StatusUnauthorized)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxUpdateBody))
	if err != nil {
		if _, tooBig := errors.AsType[*http.MaxBytesError](err); tooBig {
			http.Error(w, "update too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read the update", http.StatusBadRequest)
		return
	}
	if _, ok := updateID(body); !ok {
		http.Error(w, "not an update", http.StatusBadRequest)
		return
	}
	if err := a.dispatch(r.Context(), run.h, json.RawMessage(body)); err != nil {
		a.log.Error("update not recorded; Telegram will redeliver it", "err", err)
		http.Error(w, "update not recorded", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (a *Adapter) currentWebhook() *webhookRun {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.webhook
}

func (a *Adapter) setWebhookRun(run *webhookRun) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.webhook = run
}

// serveWebhook is Run in webhook mode: it registers the handler on
// Config.Mux (or serves it on Config.Listen itself), registers the webhook
// with Telegram, and serves until ctx ends. The webhook stays registered
// on shutdown: Telegram keeps the updates until the next start.
func (a *Adapter) serveWebhook(ctx context.Context, h chat.Handler) error {
	secret := a.cfg.WebhookSecret
	if secret == "" {
		secret = rand.Text()
	}
	a.setWebhookRun(&webhookRun{h: h, secret: secret})
	defer a.setWebhookRun(nil)

	u, _ := url.Parse(a.cfg.WebhookURL) // checked by New
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	var own *inbound.Server
	mux := a.cfg.Mux
	if mux == nil {
		own = inbound.New(a.cfg.Listen, a.log)
		mux = own
	}
	mux.Handle(path, a.WebhookHandler())

	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var serving sync.WaitGroup
	var serveErr error
	if own != nil {
		ln, err := own.Listen()
		if err != nil {
			return fmt.Errorf("telegram: webhook mode: %w", err)
		}
		serving.Go(func() {
			if serveErr = own.ServeOn(sctx, ln); serveErr != nil {
				cancel() // cannot serve: nothing would ever arrive
			}
		})
	}
	err := a.registerWebhook(sctx, secret)
	if err == nil {
		a.log.Info("receiving Telegram updates by webhook", "path", path)
		a.connected.Store(true)
		<-sctx.Done()
		a.connected.Store(false)
	}
	cancel()
	serving.Wait()
	switch {
	case serveErr != nil:
		return fmt.Errorf("telegram: webhook mode: %w", serveErr)
	case ctx.Err() != nil:
		return nil
	}
	return err
}

// registerWebhook is setWebhook, retried while Telegram is unreachable or
// busy; a refusal (a bad URL) is returned.
func (a *Adapter) registerWebhook(ctx context.Context, secret string) error {
	p := tgbotapi.Params{"url": a.cfg.WebhookURL, "secret_token": secret, "allowed_updates": allowedUpdates}
	for failures := 0; ; failures++ {
		_, err := a.call(ctx, "setWebhook", p)
		if err == nil {
			return nil
		}
		if e, ok := errors.AsType[*tgbotapi.Error](err); ok && e.Code != http.StatusTooManyRequests && e.Code < 500 {
			return fmt.Errorf("telegram: setWebhook %s refused: %w", a.cfg.WebhookURL, err)
		}
		a.log.Warn("setWebhook failed; retrying", "attempt", failures+1, "err", err)
		if err := a.sleep(ctx, retryWait(err, failures)); err != nil {
			return err
		}
	}
}
