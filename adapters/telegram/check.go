// Package telegram connects Parley to Telegram.
package telegram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// Endpoint is the telegram-bot-api endpoint format for a Bot API base URL
// (https://api.telegram.org, or a local Bot API server).
func Endpoint(apiURL string) string {
	return strings.TrimRight(apiURL, "/") + "/bot%s/%s"
}

// Check makes two cheap authenticated calls (getMe, getWebhookInfo) and
// describes the bot and how it receives updates: by polling, or by a
// webhook with its backlog and Telegram's last delivery error, which is
// where a broken proxy or certificate shows.
func Check(ctx context.Context, token, apiURL string) (string, error) {
	client := &http.Client{Transport: ctxTransport{ctx: ctx}}
	bot, err := tgbotapi.NewBotAPIWithClient(token, Endpoint(apiURL), client)
	if err != nil {
		return "", fmt.Errorf("telegram getMe at %s: %w", apiURL, redact(err, token))
	}
	desc := "bot @" + bot.Self.UserName
	info, err := bot.GetWebhookInfo()
	switch {
	case err != nil:
		return desc + " (webhook state unknown: " + redact(err, token).Error() + ")", nil
	case info.URL == "":
		return desc + ", no webhook (polling)", nil
	}
	desc += fmt.Sprintf(", webhook %s, %d update(s) pending", info.URL, info.PendingUpdateCount)
	if info.LastErrorMessage != "" {
		desc += ", last delivery error: " + info.LastErrorMessage
	}
	return desc, nil
}

// ctxTransport binds requests to ctx: telegram-bot-api v5 takes no context.
type ctxTransport struct{ ctx context.Context }

func (t ctxTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return http.DefaultTransport.RoundTrip(r.WithContext(t.ctx))
}

// redact removes the token from an error: Telegram puts the token in every
// request path, so transport errors quote it.
func redact(err error, token string) error {
	if token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), token, "<token>"))
}
