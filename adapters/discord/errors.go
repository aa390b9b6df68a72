package discord

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// ErrAuth marks a 401: Discord refused the token itself; retrying is
// pointless, the operator has to fix discord.token. It is a chat.ErrAuth,
// worded for Discord.
var ErrAuth = chat.TokenRefused("discord refused the bot token; check discord.token (Developer Portal → Bot → Reset Token)")

// ErrInvalidBody marks Discord's 50035 Invalid Form Body: a field over its
// limit (content past 2000 characters, a custom_id past 100) or malformed.
// Repeating the same call fails the same way.
var ErrInvalidBody = errors.New("discord refused the message as invalid (50035 Invalid Form Body: a field is too long or malformed)")

// ErrForbidden marks 50013 Missing Permissions.
var ErrForbidden = errors.New("the bot lacks a permission there (50013 Missing Permissions: check Send Messages, Send Messages in Threads, Create Public Threads)")

// unknownRetryAfter is the wait for a 429 whose body names none.
const unknownRetryAfter = time.Second

// wrap turns an error of a REST call on route ("POST /channels/{id}/messages")
// into the shapes the core acts on: *chat.RateLimitError (back off and retry
// the same call), ErrAuth, ErrInvalidBody, ErrForbidden,
// chat.ErrNoPrivateChat (50007: no direct message to this person). Every result
// still wraps the original, so callers can inspect Discord's own error.
func wrap(route string, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*chat.RateLimitError](err); ok {
		return err
	}
	if e, ok := errors.AsType[*discordgo.RateLimitError](err); ok {
		d := unknownRetryAfter
		if e.RateLimit != nil && e.TooManyRequests != nil && e.RetryAfter > 0 {
			d = e.RetryAfter
		}
		return &chat.RateLimitError{RetryAfter: d, Err: fmt.Errorf("discord %s: %w", route, err)}
	}
	code, status := restCode(err)
	switch {
	case status == http.StatusUnauthorized:
		return fmt.Errorf("discord %s: %w (%w)", route, ErrAuth, err)
	case code == discordgo.ErrCodeInvalidFormBody:
		return fmt.Errorf("discord %s: %w: %w", route, ErrInvalidBody, err)
	case code == discordgo.ErrCodeMissingPermissions:
		return fmt.Errorf("discord %s: %w: %w", route, ErrForbidden, err)
	case code == discordgo.ErrCodeCannotSendMessagesToThisUser:
		// The person does not take direct messages from this server's
		// members (or blocked the bot): only they can change it.
		return fmt.Errorf("discord %s: %w: %w", route, chat.ErrNoPrivateChat, err)
	}
	return fmt.Errorf("discord %s: %w", route, err)
}

// isUnknown reports a 404 (Unknown Channel, Unknown Message).
func isUnknown(err error) bool {
	_, status := restCode(err)
	return status == http.StatusNotFound
}

// fileError maps a download of f that got no answer to read: refused
// before any request (not Discord's CDN), refused on a redirect away from
// it, or failed in transport.
func fileError(f chat.File, err error) error {
	switch {
	case errors.Is(err, adapterkit.ErrHostRefused):
		return fmt.Errorf("discord: %v is not on Discord's CDN (%s, %s), so it was not fetched: %w", f, cdnHost, mediaHost, err)
	case errors.Is(err, adapterkit.ErrRedirectRefused):
		return fmt.Errorf("discord: the download of %v was redirected away from Discord's CDN: %w", f, err)
	}
	return fmt.Errorf("discord: download %v: %w", f, err)
}

// fileHost is Discord's CDN, for what a failed download means.
func fileHost() adapterkit.FileHost {
	return adapterkit.FileHost{Platform: "discord", Name: "Discord's CDN", Wait: unknownRetryAfter,
		// The CDN's answer to an expired signed link, or a deleted file.
		Gone: "its link expired, or the message or file was deleted"}
}
