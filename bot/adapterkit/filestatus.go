package adapterkit

import (
	"fmt"
	"net/http"
	"time"

	"github.com/parleybot/parley/chat"
)

// FileHost says, in a platform's words, what a failed download from its
// file host means, so that each adapter maps a download's HTTP status to
// the core's shapes the same way.
type FileHost struct {
	Platform string // starts every error: "slack"
	Name     string // who failed on a 5xx: "Slack's file host"
	// Wait is a 429's wait when the host does not say (RetryAfter).
	Wait time.Duration
	// Unauthorized, when set, is wrapped by a 401's error: the adapter's
	// "token refused" error (chat.ErrAuth under errors.Is).
	Unauthorized error
	// Forbidden, when set, says why a 403 happens.
	Forbidden string
	// Gone says why a 404 or 410 happens: "deleted, or no longer shared".
	Gone string
}

// Status maps the HTTP status of a download of f: nil for 200, a
// *chat.RateLimitError for a 429, otherwise an error that says what
// happened. It quotes no URL (Telegram's carries the bot token).
func (h FileHost) Status(f chat.File, resp *http.Response) error {
	code := resp.StatusCode
	status := fmt.Sprintf("HTTP %d %s", code, http.StatusText(code))
	switch {
	case code == http.StatusOK:
		return nil
	case code == http.StatusTooManyRequests:
		return &chat.RateLimitError{RetryAfter: RetryAfter(resp, h.Wait), Err: fmt.Errorf("%s: download %v: %s", h.Platform, f, status)}
	case code == http.StatusUnauthorized && h.Unauthorized != nil:
		return fmt.Errorf("%s: download %v: %w (%s)", h.Platform, f, h.Unauthorized, status)
	case code == http.StatusForbidden && h.Forbidden != "":
		return fmt.Errorf("%s: download of %v refused (%s): %s", h.Platform, f, status, h.Forbidden)
	case code == http.StatusForbidden:
		return fmt.Errorf("%s: download of %v refused (%s)", h.Platform, f, status)
	case code == http.StatusNotFound || code == http.StatusGone:
		return fmt.Errorf("%s: %v is gone (%s): %s", h.Platform, f, status, h.Gone)
	case code >= 500:
		return fmt.Errorf("%s: %s failed serving %v (%s); try again later", h.Platform, h.Name, f, status)
	}
	return fmt.Errorf("%s: download %v: unexpected %s", h.Platform, f, status)
}
