package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/store"
)

// history_search's index (bot.HistoryIndex), as the SQLite store's
// (store/history.go).

var _ bot.HistoryIndex = (*DB)(nil)

// ChatsOf lists the chats on platform user has started a turn in, the
// most recent first (bot.HistoryIndex).
func (db *DB) ChatsOf(ctx context.Context, user, platform string, limit int) ([]bot.ChatSeen, error) {
	rows, err := db.pool.Query(ctx, `
		SELECT platform, space, chat, name, direct, last_at FROM chat_people
		WHERE user_key = $1 AND platform = $2 ORDER BY last_at DESC, space, chat LIMIT $3`, user, platform, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: chats of %s: %w", user, err)
	}
	var (
		out []bot.ChatSeen
		c   bot.ChatSeen
	)
	if _, err := pgx.ForEachRow(rows, []any{&c.Thread.Platform, &c.Thread.Space, &c.Thread.Chat, &c.Name, &c.Direct, &c.Last}, func() error {
		c.Last = fromTS(c.Last)
		out = append(out, c)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("postgres: chats of %s: %w", user, err)
	}
	return out, nil
}

// SearchHistory is SearchMessages over the conversations of q's chats
// (bot.HistoryIndex).
func (db *DB) SearchHistory(ctx context.Context, q bot.HistorySearch) ([]bot.HistoryHit, error) {
	return store.SearchHistory(ctx, db, q)
}
