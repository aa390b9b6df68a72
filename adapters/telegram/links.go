package telegram

import (
	"context"
	"strconv"
	"strings"

	"github.com/parleybot/parley/chat"
)

var _ chat.MessageLinker = (*Adapter)(nil)

// MessageLink is a link to a message of a supergroup,
// https://t.me/c/<chat id without its -100>/<message id>, which opens it
// for the group's members; Telegram has none for messages of a private
// chat or a basic group, so they get "". key is messageKey's
// ("telegram:<chat>:<message>"); "" links t's root message, where the
// conversation is a reply chain.
func (a *Adapter) MessageLink(_ context.Context, t chat.Thread, key string) string {
	// A supergroup's id is -100 and its channel id, of ten digits or
	// more; a basic group's is its own id, negative.
	group, ok := strings.CutPrefix(t.Chat, "-100")
	if !ok || len(group) < 10 {
		return ""
	}
	if _, err := strconv.ParseInt(group, 10, 64); err != nil {
		return ""
	}
	msg := t.ID
	if key != "" {
		rest, ok := strings.CutPrefix(key, "telegram:"+t.Chat+":")
		if !ok {
			return ""
		}
		msg = rest
	}
	if n, err := strconv.Atoi(msg); err != nil || n <= 0 {
		return ""
	}
	return "https://t.me/c/" + group + "/" + msg
}
