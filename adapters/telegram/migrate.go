package telegram

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"strings"

	tgbotapi "github.com/go-telegram-bot-api/telegram-bot-api/v5"
)

// A basic group that becomes a supergroup (a public link, many members,
// some admin settings) gets a new chat id; every call naming the old id
// then fails with 400 and parameters.migrate_to_chat_id
// (docs/platforms.md#telegram-conversations). The adapter remembers the move
// in State and sends there from then on, so an answer being written when it
// happened still arrives, and later calls for the old conversation go
// straight to the new chat. Messages people write after the move arrive from
// the new id and start conversations there.

// migratedTo returns the supergroup id err names, or 0.
func migratedTo(err error) int64 {
	if e, ok := errors.AsType[*tgbotapi.Error](err); ok {
		return e.MigrateToChatID
	}
	return 0
}

func migrationKey(chat string) string { return "telegram:migrated:" + chat }

// followMigration returns p aimed at the supergroup its group became, if
// it did; p itself is never changed. Replies are dropped: the message
// replied to stayed in the old chat.
func (a *Adapter) followMigration(ctx context.Context, p tgbotapi.Params) tgbotapi.Params {
	chat := p["chat_id"]
	if !strings.HasPrefix(chat, "-") { // only groups move; private chats are positive
		return p
	}
	to := a.migration(ctx, chat)
	if to == "" {
		return p
	}
	q := maps.Clone(p)
	q["chat_id"] = to
	delete(q, "reply_parameters")
	delete(q, "reply_to_message_id")
	return q
}

// migration returns where chat moved, "" if nowhere, from the cache or
// State.
func (a *Adapter) migration(ctx context.Context, chat string) string {
	if to, known := a.migrated.Get(chat); known {
		return to
	}
	to, _, err := a.state.Get(ctx, migrationKey(chat))
	if err != nil {
		a.log.Warn("could not read a group's migration", "chat", chat, "err", err)
		return "" // not cached: asked again next time
	}
	a.migrated.Put(chat, to)
	return to
}

// recordMigration remembers that chat is now the supergroup to.
func (a *Adapter) recordMigration(ctx context.Context, chat string, to int64) {
	target := strconv.FormatInt(to, 10)
	a.log.Info("the group became a supergroup; following it", "from", chat, "to", target)
	a.migrated.Put(chat, target)
	if err := a.state.Set(ctx, migrationKey(chat), target); err != nil {
		a.log.Warn("could not remember a group's migration; it is followed until restart", "chat", chat, "err", err)
	}
}
