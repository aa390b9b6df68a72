package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// ErrUnauthorized marks Telegram refusing the token itself: retrying is
// pointless, the operator has to fix the configuration. It is a
// chat.ErrAuth, worded for Telegram.
var ErrUnauthorized = chat.TokenRefused("telegram refused the bot token; check telegram.token (from @BotFather)")

// ErrNoPrivateChat marks a private message Telegram would not deliver: the
// person never started the bot, or blocked it. Bots cannot open private
// chats, so only the person can fix it; the error's text tells them how.
// It is chat.ErrNoPrivateChat, which the core holds the message for.
var ErrNoPrivateChat = chat.ErrNoPrivateChat

// call makes one Bot API call bound to ctx and maps its failures to the
// shapes the core acts on (mapError). tgbotapi takes no context, so each
// call runs on a shallow copy of the client whose HTTP client carries ctx.
// A group upgraded to a supergroup is followed to its new id (migrate.go).
func (a *Adapter) call(ctx context.Context, method string, p tgbotapi.Params) (json.RawMessage, error) {
	p = a.followMigration(ctx, p)
	res, err := a.request(ctx, method, p)
	if to := migratedTo(err); to != 0 && p["chat_id"] != "" {
		a.recordMigration(ctx, p["chat_id"], to)
		res, err = a.request(ctx, method, a.followMigration(ctx, p))
	}
	if err != nil {
		return nil, a.mapError(method, err)
	}
	return res, nil
}

func (a *Adapter) request(ctx context.Context, method string, p tgbotapi.Params) (json.RawMessage, error) {
	api := *a.api
	api.Client = ctxClient{ctx: ctx, c: a.http}
	resp, err := api.MakeRequest(method, p)
	if err != nil {
		return nil, err
	}
	return resp.Result, nil
}

// ctxClient is tgbotapi's HTTPClient with a context: unlike check.go's
// ctxTransport it keeps the configured *http.Client (timeouts, proxies).
type ctxClient struct {
	ctx context.Context
	c   *http.Client
}

func (c ctxClient) Do(r *http.Request) (*http.Response, error) { return c.c.Do(r.WithContext(c.ctx)) }

// mapError turns an error of method into *chat.RateLimitError (back off,
// retry the same call), chat.ErrFormatRejected (repeat as plain text),
// ErrUnauthorized, ErrNoPrivateChat, or nil for an edit that changed
// nothing because nothing differed. Results wrap the *tgbotapi.Error, so
// callers can still read Telegram's code; transport errors lose the token.
func (a *Adapter) mapError(method string, err error) error {
	e, ok := errors.AsType[*tgbotapi.Error](err)
	if !ok {
		return fmt.Errorf("telegram %s: %w", method, redactURL(err, a.cfg.Token))
	}
	desc := strings.ToLower(e.Message)
	switch {
	case e.Code == http.StatusTooManyRequests:
		// Never slept on here: retry_after can be minutes, and delivery
		// coalesces frames while it waits.
		return &chat.RateLimitError{RetryAfter: max(time.Duration(e.RetryAfter)*time.Second, time.Second),
			Err: fmt.Errorf("telegram %s: %w", method, err)}
	case e.Code == http.StatusUnauthorized:
		return fmt.Errorf("telegram %s: %w (%w)", method, ErrUnauthorized, err)
	case strings.Contains(desc, "can't parse entities"):
		return fmt.Errorf("telegram %s: %w: %w", method, chat.ErrFormatRejected, err)
	case strings.Contains(desc, "message is not modified"):
		return nil // the message already reads so: what the edit wanted
	case e.Code == http.StatusForbidden && (strings.Contains(desc, "initiate conversation") || strings.Contains(desc, "bot was blocked")):
		return a.noPrivateChat(desc, err)
	}
	return fmt.Errorf("telegram %s: %w", method, err)
}

// noPrivateChat explains a refused private message to the person who has
// to act on it.
func (a *Adapter) noPrivateChat(desc string, err error) error {
	name := a.self().UserName
	who, link := "this bot", "the bot's profile"
	if name != "" {
		who, link = "@"+name, "t.me/"+name
	}
	if strings.Contains(desc, "blocked") {
		return fmt.Errorf("%w: you have blocked %s: unblock it in Telegram (open %s) to get private answers: %w", ErrNoPrivateChat, who, link, err)
	}
	return fmt.Errorf("%w: you have not started a private chat with %s yet: open %s and press Start: %w", ErrNoPrivateChat, who, link, err)
}

// redactURL removes the token from a transport error, which quotes the
// request URL (/bot<token>/method). It keeps the cause (a cancelled
// context, a timeout) inspectable with errors.Is where it can.
func redactURL(err error, token string) error {
	if ue, ok := errors.AsType[*url.Error](err); ok && token != "" && !strings.Contains(ue.Err.Error(), token) {
		return &url.Error{Op: ue.Op, URL: strings.ReplaceAll(ue.URL, token, "<token>"), Err: ue.Err}
	}
	return redact(err, token)
}

// isFatal reports an error no retry can cure: the token is refused.
// Telegram answers 404 for a path with a malformed token.
func isFatal(err error) bool {
	if errors.Is(err, ErrUnauthorized) {
		return true
	}
	e, ok := errors.AsType[*tgbotapi.Error](err)
	return ok && e.Code == http.StatusNotFound
}

// tooBigForBots is a file over the Bot API's download limit for bots: no
// limit of the caller's could let it through, so it is ErrFileTooLarge.
func tooBigForBots(f chat.File, size int64) error {
	return fmt.Errorf("telegram: %w: %v is %d bytes, and Telegram lets bots download files of up to 20 MB", chat.ErrFileTooLarge, f, size)
}

// getFileError maps a failed getFile of f: too big for bots, a file_id
// Telegram does not know, or what call mapped already.
func getFileError(f chat.File, err error) error {
	if e, ok := errors.AsType[*tgbotapi.Error](err); ok {
		desc := strings.ToLower(e.Message)
		switch {
		case strings.Contains(desc, "file is too big"):
			return fmt.Errorf("telegram: %w: %v: Telegram lets bots download files of up to 20 MB (%w)", chat.ErrFileTooLarge, f, err)
		case strings.Contains(desc, "file_id"), strings.Contains(desc, "temporarily unavailable"):
			return fmt.Errorf("telegram: %v cannot be fetched: Telegram does not know its file_id, or the file is unavailable for now: %w", f, err)
		}
	}
	return fmt.Errorf("telegram: fetch %v: %w", f, err)
}

// fileHost is Telegram's file server, for what a failed download means.
func fileHost() adapterkit.FileHost {
	return adapterkit.FileHost{Platform: "telegram", Name: "Telegram's file server", Wait: time.Second,
		Unauthorized: ErrUnauthorized, Gone: "its file_path expired, or the file was deleted"}
}
