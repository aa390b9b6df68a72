package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// Reading conversations whole, for an operator (parley export): which
// sessions there are, and one session's transcript with when each message
// was stored and who wrote it. Read-only; both engines answer alike
// (storetest's Conversations area).

// Conversation is one session as parley export --list shows it.
type Conversation struct {
	SessionInfo
	// Starter is who started the conversation in a shared thread
	// ("platform:id"), as the router keeps it (KV "starter:<session>",
	// bot/router_control.go); "" where none is kept, as in a direct chat.
	Starter string
	// HelperOf is the session a task's helper session works for; "" for a
	// conversation with people.
	HelperOf string
}

// ConversationFilter says which conversations Conversations lists. The
// zero filter lists them all.
type ConversationFilter struct {
	// User ("platform:id") keeps the conversations the person is known to
	// have taken part in: those they started (Conversation.Starter) and
	// those with a turn of theirs on record (run_signals, kept while
	// evolution is on).
	User string
	// Prefix keeps the sessions whose id starts with it (byte for byte).
	Prefix string
	// Limit caps the list; 0 or less: no cap.
	Limit int
}

// TranscriptEntry is one stored message of a transcript.
type TranscriptEntry struct {
	// Message is the message as stored, its pictures without their bytes.
	llm.Message
	// At is when the message was stored. Messages a compaction kept were
	// stored again then, and carry its time.
	At time.Time
	// AuthorKey is who wrote a user message ("platform:id"), as recorded
	// with the turn it started (run_signals, by the message's Key); "" when
	// no turn of it is on record.
	AuthorKey string
}

// conversationsQuery lists sessions for Conversations: ?1 is the id
// prefix, ?2 the user ("" for anyone). Sessions are ordered by last
// activity, newest first, then by id.
const conversationsQuery = `
	SELECT s.id, s.platform, s.space, s.chat, s.thread, s.created_at, s.updated_at,
	       (SELECT count(*) FROM messages m WHERE m.session_id = s.id),
	       coalesce((SELECT value FROM kv WHERE kv.key = 'starter:' || s.id), ''),
	       coalesce((SELECT h.parent_session FROM task_helpers h WHERE h.helper_session = s.id), '')
	FROM sessions s
	WHERE substr(s.id, 1, length(?1)) = ?1
	  AND (?2 = ''
	       OR EXISTS (SELECT 1 FROM run_signals r WHERE r.session_id = s.id AND r.author = ?2)
	       OR EXISTS (SELECT 1 FROM kv WHERE kv.key = 'starter:' || s.id AND kv.value = ?2))
	ORDER BY s.updated_at DESC, s.id`

// Conversations lists the sessions f selects, the most recently active
// first (ties by id).
func (db *DB) Conversations(ctx context.Context, f ConversationFilter) ([]Conversation, error) {
	q, args := conversationsQuery, []any{f.Prefix, f.User}
	if f.Limit > 0 {
		q, args = q+` LIMIT ?3`, append(args, f.Limit)
	}
	rows, err := db.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list conversations: %w", err)
	}
	defer rows.Close()
	var out []Conversation
	for rows.Next() {
		var c Conversation
		var created, updated int64
		if err := rows.Scan(&c.ID, &c.Thread.Platform, &c.Thread.Space, &c.Thread.Chat, &c.Thread.ID,
			&created, &updated, &c.Messages, &c.Starter, &c.HelperOf); err != nil {
			return nil, fmt.Errorf("store: list conversations: %w", err)
		}
		c.CreatedAt, c.UpdatedAt = fromMillis(created), fromMillis(updated)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list conversations: %w", err)
	}
	return out, nil
}

// Transcript returns session sessionID's messages in order, each with when
// it was stored and, for a person's message, who wrote it where that is on
// record; pictures come without their bytes. A session without messages
// has an empty transcript; an unknown one is ErrNotFound.
func (db *DB) Transcript(ctx context.Context, sessionID string) ([]TranscriptEntry, error) {
	entries, err := db.transcriptEntries(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("store: transcript of session %q: %w", sessionID, err)
	}
	return entries, nil
}

func (db *DB) transcriptEntries(ctx context.Context, sessionID string) ([]TranscriptEntry, error) {
	// The LEFT JOIN tells an empty session (one row, NULL body) from an
	// unknown one (no row) in a single query.
	rows, err := db.r.QueryContext(ctx, `
		SELECT m.body, m.created_at FROM sessions s LEFT JOIN messages m ON m.session_id = s.id
		WHERE s.id = ? ORDER BY m.id`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		entries []TranscriptEntry
		found   bool
	)
	for rows.Next() {
		found = true
		var body sql.RawBytes // decoded before the next row, so no copy is needed
		var at sql.NullInt64
		if err := rows.Scan(&body, &at); err != nil {
			return nil, err
		}
		if body == nil {
			continue // the session has no messages
		}
		m, err := rowdata.DecodeMessage(body)
		if err != nil {
			return nil, err
		}
		entries = append(entries, TranscriptEntry{Message: m, At: fromMillis(at.Int64)})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNotFound
	}
	authors, err := db.turnAuthors(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		if e := &entries[i]; e.Role == llm.RoleUser && e.Key != "" {
			e.AuthorKey = authors[e.Key]
		}
	}
	return entries, nil
}

// turnAuthors maps the keys of the messages that started the session's
// recorded turns to their authors.
func (db *DB) turnAuthors(ctx context.Context, sessionID string) (map[string]string, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT msg_key, author FROM run_signals WHERE session_id = ? ORDER BY id`, sessionID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	authors := map[string]string{}
	for rows.Next() {
		var key, author string
		if err := rows.Scan(&key, &author); err != nil {
			return nil, err
		}
		if _, ok := authors[key]; !ok && key != "" {
			authors[key] = author // the first record of a turn
		}
	}
	return authors, rows.Err()
}
