package slack

import (
	"errors"
	"fmt"
	"time"

	"github.com/slack-go/slack"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// ErrAuth marks errors where Slack refused the token itself (invalid_auth,
// not_authed, account_inactive, token_revoked, token_expired): retrying is
// pointless, the operator has to fix the configuration. It is a
// chat.ErrAuth, worded for Slack.
var ErrAuth = chat.TokenRefused("slack refused the bot token; check slack.bot_token (xoxb-…) and that the app is installed in the workspace")

// ScopeError is Slack's missing_scope, naming the scope to add so the
// operator does not have to guess from the method name.
type ScopeError struct {
	Method string
	Scope  string // the scope Slack asked for, or our best guess from Method
	Err    error
}

func (e *ScopeError) Error() string {
	return fmt.Sprintf("slack %s: the app lacks the %q scope; add it under OAuth & Permissions (or recreate the app from `parley slack-manifest`) and reinstall the app: %v",
		e.Method, e.Scope, e.Err)
}

func (e *ScopeError) Unwrap() error { return e.Err }

// retryAfter recognizes the three shapes in which slack-go reports "slow
// down" (docs/platforms.md#slack-rate-limits): a 429 with Retry-After, an
// ok:false "ratelimited" body, and a 429 without header or a 5xx. Only the
// first carries a figure; the others get a second, which the pacer stretches
// on repeats.
func retryAfter(err error) (time.Duration, bool) {
	if e, ok := errors.AsType[*slack.RateLimitedError](err); ok {
		// A "Retry-After: 0" would make delivery hammer Slack; a
		// second is the shortest wait worth taking.
		return max(e.RetryAfter, time.Second), true
	}
	if e, ok := errors.AsType[slack.SlackErrorResponse](err); ok && (e.Err == "ratelimited" || e.Err == "rate_limited") {
		return time.Second, true
	}
	if e, ok := errors.AsType[slack.StatusCodeError](err); ok && e.Retryable() {
		return time.Second, true
	}
	return 0, false
}

// wrap turns an error from Slack method into the shapes the core acts on:
// *chat.RateLimitError (back off and retry the same call),
// chat.ErrFormatRejected (repeat it as plain text), ErrAuth and
// *ScopeError (an operator's configuration to fix). Every result still
// wraps the original, so callers can inspect Slack's own error code.
func wrap(method string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*chat.RateLimitError](err); ok {
		return err
	}
	if d, ok := retryAfter(err); ok {
		return &chat.RateLimitError{RetryAfter: d, Err: fmt.Errorf("slack %s: %w", method, err)}
	}
	e, ok := errors.AsType[slack.SlackErrorResponse](err)
	if !ok {
		return fmt.Errorf("slack %s: %w", method, err)
	}
	switch e.Err {
	case "invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired":
		return fmt.Errorf("slack %s: %w (%w)", method, ErrAuth, err)
	case "missing_scope":
		scope := e.Needed
		if scope == "" {
			scope = scopeFor(method)
		}
		return &ScopeError{Method: method, Scope: scope, Err: err}
	case "invalid_blocks", "invalid_blocks_format":
		return fmt.Errorf("slack %s: %w: %w", method, chat.ErrFormatRejected, err)
	case "invalid_arguments", "not_enabled":
		if method == "views.publish" {
			// The person sees an empty Home tab; the operator needs to
			// know why, and retrying cannot help.
			return fmt.Errorf("slack %s: Slack refused the Home tab's view (the app's Home tab must be on: app_home.home_tab_enabled, as `parley slack-manifest` sets it): %w", method, err)
		}
	}
	return fmt.Errorf("slack %s: %w", method, err)
}

// scopeFor names the scope a method needs, for a missing_scope answer
// without Slack's "needed" field.
func scopeFor(method string) string {
	switch method {
	case "chat.postMessage", "chat.update", "chat.postEphemeral",
		"chat.startStream", "chat.appendStream", "chat.stopStream":
		return "chat:write"
	case "assistant.threads.setStatus", "assistant.threads.setSuggestedPrompts", "assistant.threads.setTitle":
		return "assistant:write"
	case "users.info":
		return "users:read"
	case "conversations.replies", "conversations.history":
		return "channels:history"
	case "conversations.info", "conversations.members":
		return "channels:read"
	}
	return "(see the method's documentation for " + method + ")"
}

// fileError maps a download of f that got no answer to read: refused
// before any request (not Slack's host), refused on a redirect away from
// Slack's hosts, or failed in transport.
func fileError(f chat.File, err error) error {
	switch {
	case errors.Is(err, adapterkit.ErrHostRefused):
		return fmt.Errorf("slack: %v is not on Slack's file host (%s), so the bot token was not sent there: %w", f, slackFileHost, err)
	case errors.Is(err, adapterkit.ErrRedirectRefused):
		return fmt.Errorf("slack: the bot cannot read %v: Slack sent the download elsewhere, as it does to its sign-in page when the app lacks the files:read scope or the file is not shared where the bot is: %w", f, err)
	}
	return fmt.Errorf("slack: download %v: %w", f, err)
}

// fileHost is Slack's file host, for what a failed download means.
func fileHost() adapterkit.FileHost {
	return adapterkit.FileHost{Platform: "slack", Name: "Slack's file host", Wait: time.Second, Unauthorized: ErrAuth,
		Forbidden: "the app needs the files:read scope, and the file must be shared where the bot is",
		Gone:      "deleted, or no longer shared"}
}
