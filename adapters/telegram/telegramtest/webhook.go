package telegramtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"time"
)

// webhookRetry is the pause before a failed webhook delivery is retried:
// Telegram backs off far longer, tests want it short.
const webhookRetry = 100 * time.Millisecond

// webhookTimeout bounds one delivery attempt.
const webhookTimeout = 10 * time.Second

type webhook struct {
	url    string
	secret string
	// lastError is what getWebhookInfo reports after a failed delivery.
	lastError     string
	lastErrorDate int64
}

// Delivery is one attempt to POST an update to the webhook.
type Delivery struct {
	UpdateID int
	Status   int // HTTP status the bot answered; 0 for a transport error
}

var secretTokenRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,256}$`)

func (s *Server) setWebhook(_ context.Context, p params) (any, error) {
	raw := p["url"]
	if raw == "" {
		s.hook = webhook{}
		return true, nil // an empty url removes the webhook
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, badRequest("bad webhook: invalid webhook URL specified")
	}
	secret := p["secret_token"]
	if secret != "" && !secretTokenRE.MatchString(secret) {
		return nil, badRequest("bad webhook: secret token contains unallowed characters")
	}
	var allowed []string
	if _, err := p.json("allowed_updates", &allowed, "allowed_updates"); err != nil {
		return nil, err
	}
	if p.bool("drop_pending_updates") {
		s.queue.pending = nil
	}
	s.queue.setAllowed(allowed)
	s.hook = webhook{url: raw, secret: secret}
	if s.poll != nil {
		close(s.poll.kicked) // a waiting poll is cut off, as on Telegram
		s.poll = nil
	}
	return true, nil
}

func (s *Server) deleteWebhook(_ context.Context, p params) (any, error) {
	if p.bool("drop_pending_updates") {
		s.queue.pending = nil
	}
	s.hook = webhook{}
	return true, nil
}

type webhookInfo struct {
	URL                  string   `json:"url"`
	HasCustomCertificate bool     `json:"has_custom_certificate"`
	PendingUpdateCount   int      `json:"pending_update_count"`
	LastErrorDate        int64    `json:"last_error_date,omitempty"`
	LastErrorMessage     string   `json:"last_error_message,omitempty"`
	MaxConnections       int      `json:"max_connections,omitempty"`
	AllowedUpdates       []string `json:"allowed_updates,omitempty"`
}

func (s *Server) getWebhookInfo(_ context.Context, _ params) (any, error) {
	info := webhookInfo{
		URL:                s.hook.url,
		PendingUpdateCount: len(s.queue.pending),
		LastErrorDate:      s.hook.lastErrorDate,
		LastErrorMessage:   s.hook.lastError,
		AllowedUpdates:     s.queue.allowed,
	}
	if s.hook.url != "" {
		info.MaxConnections = 40
	}
	return info, nil
}

// deliverLoop POSTs queued updates to the webhook one at a time, in order,
// retrying each until the bot answers 2xx. It runs until Close.
func (s *Server) deliverLoop() {
	defer s.wg.Done()
	client := &http.Client{Timeout: webhookTimeout}
	for {
		s.mu.Lock()
		hook, ch := s.hook, s.changes.Next()
		var next *update
		if hook.url != "" && len(s.queue.pending) > 0 {
			next = s.queue.pending[0]
		}
		s.mu.Unlock()
		if next == nil {
			select {
			case <-ch:
				continue
			case <-s.ctx.Done():
				return
			}
		}
		status, err := s.post(client, hook, next.raw)
		s.mu.Lock()
		s.deliveries = append(s.deliveries, Delivery{UpdateID: next.id, Status: status})
		ok := err == nil && status >= 200 && status < 300
		if ok {
			s.queue.remove(next)
		} else if s.hook.url == hook.url {
			s.hook.lastErrorDate = time.Now().Unix()
			s.hook.lastError = webhookErrorText(status, err)
		}
		s.notifyLocked()
		s.mu.Unlock()
		if ok {
			continue
		}
		retry := time.NewTimer(webhookRetry)
		select {
		case <-retry.C:
		case <-s.ctx.Done():
			retry.Stop()
			return
		}
	}
}

func (s *Server) post(client *http.Client, hook webhook, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodPost, hook.url, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("webhook request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if hook.secret != "" {
		req.Header.Set("X-Telegram-Bot-Api-Secret-Token", hook.secret)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("webhook post: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil
}

func webhookErrorText(status int, err error) string {
	if err != nil {
		return "Connection refused"
	}
	return fmt.Sprintf("Wrong response from the webhook: %d %s", status, http.StatusText(status))
}

// WebhookURL is the webhook set by setWebhook, "" when none.
func (s *Server) WebhookURL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hook.url
}

// WebhookDeliveries lists every webhook delivery attempt, in order.
func (s *Server) WebhookDeliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Delivery(nil), s.deliveries...)
}
