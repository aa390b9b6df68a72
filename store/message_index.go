package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// The conversations' full-text index, msg_fts: an FTS5 table holding, per
// message people wrote or Parley answered (rowid = messages.id), the
// derived text kb.IndexText makes of it — body with CJK runs as pairs, uni
// their single characters — as kb_fts does for passages, and sess, its
// session as one token (scopeToken), so that a person's search is an AND
// inside the index over their sessions' rows rather than a walk through
// everyone's. Contentless (the
// text lives in messages once) with contentless_delete, and the trigger
// msg_fts_forget takes a message's row out whenever the message goes, by
// whichever path (a compaction's rewrite, a session's cascade), so no
// deleted message stays findable.
//
// Like kb_fts it exists only in builds with FTS5. A build without it keeps
// what it appends in message_index_todo (migration 00020, which also
// queued every message stored before), and drops the trigger, which it
// could not run; the next build with FTS5 indexes the queue, and, finding
// the trigger gone, first takes out the rows of messages deleted
// meanwhile.

// createMessageIndex makes msg_fts and its trigger when this build has
// FTS5, brings the index up to date with the queue, and reports whether
// it has FTS5 (false, nil: it has not).
func createMessageIndex(ctx context.Context, db *sql.DB) (fts bool, err error) {
	var hadIndex, hadTrigger bool
	if err := db.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'msg_fts'),
		EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'trigger' AND name = 'msg_fts_forget')`,
	).Scan(&hadIndex, &hadTrigger); err != nil {
		return false, err
	}
	_, err = db.ExecContext(ctx, `CREATE VIRTUAL TABLE IF NOT EXISTS msg_fts USING fts5(
		body, uni, sess,
		content = '', contentless_delete = 1,
		tokenize = "unicode61 remove_diacritics 2 tokenchars '_'")`)
	if err != nil && strings.Contains(err.Error(), "no such module: fts5") {
		// Deleting a message would run the trigger, which needs FTS5.
		_, err = db.ExecContext(ctx, `DROP TRIGGER IF EXISTS msg_fts_forget`)
		return false, err
	}
	if err != nil {
		return false, err
	}
	if hadIndex && !hadTrigger {
		if _, err := db.ExecContext(ctx, `DELETE FROM msg_fts WHERE rowid NOT IN (SELECT id FROM messages)`); err != nil {
			return true, fmt.Errorf("forget deleted messages: %w", err)
		}
	}
	if _, err := db.ExecContext(ctx, `CREATE TRIGGER IF NOT EXISTS msg_fts_forget AFTER DELETE ON messages
		BEGIN DELETE FROM msg_fts WHERE rowid = old.id; END`); err != nil {
		return true, err
	}
	return true, indexQueued(ctx, db)
}

// indexBatch is how many queued messages one transaction indexes: an
// upgrade of a large database holds the write lock a moment at a time.
const indexBatch = 1000

// indexQueued indexes the messages of message_index_todo and empties it.
func indexQueued(ctx context.Context, db *sql.DB) error {
	for {
		n := 0
		err := inTx(ctx, db, func(tx *sql.Tx) error {
			rows, err := tx.QueryContext(ctx, `
				SELECT t.message_id, m.session_id, s.platform, s.space, s.chat, m.body
				FROM message_index_todo t JOIN messages m ON m.id = t.message_id JOIN sessions s ON s.id = m.session_id
				ORDER BY t.message_id LIMIT ?`, indexBatch)
			if err != nil {
				return err
			}
			var ids []int64
			var sessions []string
			var msgs []llm.Message
			for rows.Next() {
				var id int64
				var session, platform, space, chat string
				var body []byte
				if err := rows.Scan(&id, &session, &platform, &space, &chat, &body); err != nil {
					rows.Close()
					return err
				}
				m, err := rowdata.DecodeMessage(body)
				if err != nil {
					rows.Close()
					return fmt.Errorf("message %d: %w", id, err)
				}
				ids, sessions, msgs = append(ids, id), append(sessions, indexPlace(session, platform, space, chat)), append(msgs, m)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			if n = len(ids); n == 0 {
				_, err = tx.ExecContext(ctx, `DELETE FROM message_index_todo`) // rows of messages gone
				return err
			}
			// A message queued again (migration 00029) leaves its old row
			// first: the index has one row a message.
			for _, id := range ids {
				if _, err := tx.ExecContext(ctx, `DELETE FROM msg_fts WHERE rowid = ?`, id); err != nil {
					return err
				}
			}
			if err := indexMessages(ctx, tx, true, sessions, ids, msgs); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, `DELETE FROM message_index_todo WHERE message_id <= ?`, ids[n-1])
			return err
		})
		if err != nil {
			return fmt.Errorf("index stored messages: %w", err)
		}
		if n < indexBatch {
			return nil
		}
	}
}

// indexPlace is the sess column of a message of session, held in the
// chat platform/space/chat: the session's token and the chat's, so that
// a search of some chats (history_search's) is an AND inside the index,
// as a person's is over their sessions.
func indexPlace(session, platform, space, chat string) string {
	return scopeToken(session) + " " + ChatToken(Place{Platform: platform, Space: space, Chat: chat})
}

// The index's filter tokens, which both engines keep with a message
// beside its words (SQLite: msg_fts's sess column; PostgreSQL: the
// message's tsvector), so that history_search's filters — its chats,
// Parley's side, an author — are ANDs inside the index rather than a walk
// through every match joined to its message. Each is scopeToken's hash:
// letters and digits only, never a word people write.

// ChatToken is a chat's filter token.
func ChatToken(p Place) string {
	return scopeToken("chat\x00" + p.Platform + "\x00" + p.Space + "\x00" + p.Chat)
}

// RoleToken is a side's filter token (llm.RoleUser: people's messages;
// llm.RoleAssistant: Parley's).
func RoleToken(r llm.Role) string { return scopeToken("role\x00" + string(r)) }

// AuthorToken is the filter token of a word of an author's name
// (AuthorWords).
func AuthorToken(word string) string { return scopeToken("author\x00" + word) }

// MessageTokens are m's own filter tokens: its side's, and for a
// person's message each word of its author's name.
func MessageTokens(m llm.Message) []string {
	out := []string{RoleToken(m.Role)}
	if m.Role == llm.RoleUser {
		for _, w := range AuthorWords(m.Author) {
			out = append(out, AuthorToken(w))
		}
	}
	return out
}

// indexMessages adds the messages ids[i] = msgs[i], whose sess column is
// sess[i] (or sess[0] for all: indexPlace) and their own tokens
// (MessageTokens), to msg_fts with fts, or without it queues them for a
// build that has it.
func indexMessages(ctx context.Context, tx *sql.Tx, fts bool, sess []string, ids []int64, msgs []llm.Message) error {
	query := `INSERT INTO msg_fts (rowid, body, uni, sess) VALUES (?, ?, ?, ?)`
	if !fts {
		query = `INSERT OR IGNORE INTO message_index_todo (message_id) VALUES (?)`
	}
	var stmt *sql.Stmt
	for i, m := range msgs {
		text := rowdata.SearchText(m)
		if text == "" {
			continue
		}
		if stmt == nil {
			var err error
			if stmt, err = tx.PrepareContext(ctx, query); err != nil {
				return err
			}
			defer stmt.Close()
		}
		args := []any{ids[i]}
		if fts {
			body, uni := kb.IndexText(text)
			args = append(args, body, uni, sess[min(i, len(sess)-1)]+" "+strings.Join(MessageTokens(m), " "))
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}
