package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/parleybot/parley/bot"
)

// Conversations kept for history.keep_days (docs/history.md): a
// conversation idle since before the cutoff goes whole — its transcript,
// pictures, replies, approvals and plan by the schema's cascades, its
// search index rows by the trigger msg_fts_forget — a batch of
// conversations a transaction, so a large prune holds the write lock a
// moment at a time. A conversation whose task still runs or waits stays.

// pruneBatch is how many conversations one transaction deletes.
const pruneBatch = 100

// pruneIdle selects a batch of the conversations idle since before the
// cutoff, oldest first.
const pruneIdle = `
	SELECT s.id FROM sessions s
	WHERE s.updated_at < ? AND NOT EXISTS (SELECT 1 FROM tasks k WHERE k.session_id = s.id AND k.state <> 'idle')
	ORDER BY s.updated_at LIMIT ?`

// PruneConversations deletes the conversations idle since before cutoff,
// and returns how many it deleted.
func (db *DB) PruneConversations(ctx context.Context, cutoff time.Time) (int, error) {
	total := 0
	for {
		n := 0
		err := db.write(ctx, func(tx *sql.Tx) error {
			rows, err := tx.QueryContext(ctx, pruneIdle, millis(cutoff), pruneBatch)
			if err != nil {
				return err
			}
			var ids []string
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				ids = append(ids, id)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			for _, id := range ids {
				if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `DELETE FROM kv WHERE key = ?`, bot.StarterKey(id)); err != nil {
					return err
				}
			}
			n = len(ids)
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("store: prune conversations: %w", err)
		}
		if total += n; n < pruneBatch {
			return total, nil
		}
	}
}
