package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/bot"
)

// Conversations kept for history.keep_days, as the SQLite store's
// (store/retention.go): a batch of idle conversations a transaction, each
// with what cascades from it; the search index (messages.tsv) goes with
// its rows. Replicas pruning at once skip each other's rows.

// pruneBatch is how many conversations one transaction deletes.
const pruneBatch = 100

// PruneConversations deletes the conversations idle since before cutoff,
// and returns how many it deleted.
func (db *DB) PruneConversations(ctx context.Context, cutoff time.Time) (int, error) {
	total := 0
	for {
		n := 0
		err := db.tx(ctx, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `
				SELECT s.id FROM sessions s
				WHERE s.updated_at < $1 AND NOT EXISTS (SELECT 1 FROM tasks k WHERE k.session_id = s.id AND k.state <> 'idle')
				ORDER BY s.updated_at LIMIT $2 FOR UPDATE OF s SKIP LOCKED`, ts(cutoff), pruneBatch)
			if err != nil {
				return err
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			keys := make([]string, len(ids))
			for i, id := range ids {
				keys[i] = bot.StarterKey(id)
			}
			if _, err := tx.Exec(ctx, `DELETE FROM sessions WHERE id = ANY($1)`, ids); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM kv WHERE key = ANY($1)`, keys); err != nil {
				return err
			}
			n = len(ids)
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("postgres: prune conversations: %w", err)
		}
		if total += n; n < pruneBatch {
			return total, nil
		}
	}
}
