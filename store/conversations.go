package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
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
	// Platform and Chat keep the sessions of one platform, and of one
	// chat (a channel, a group, a direct chat) on it; "" keeps all.
	Platform, Chat string
	// Limit caps the list; 0 or less: no cap.
	Limit int
	// Offset leaves out the list's first Offset conversations (a page
	// further on); 0 or less: none.
	Offset int
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

// conversationsQuery lists sessions for Conversations: the sessions f
// selects, the most recently active first, then by id, a page of them
// (LIMIT, OFFSET) chosen before anything is counted, so that a page costs
// its own rows and not the whole list's. Without a user, the page walks
// sessions_activity and stops at its end; with one, the person's sessions
// come from their turns (run_signals_author) and from those they started
// (kv_starters), never from testing every session. An id prefix is the
// primary key's range [prefix, hi) where it has one (rowdata.IDRange),
// and always tested byte for byte.
func conversationsQuery(f ConversationFilter) (string, []any) {
	where, args := []string{"1"}, []any{}
	if f.Prefix != "" {
		where, args = append(where, "substr(s.id, 1, length(?)) = ?"), append(args, f.Prefix, f.Prefix)
		if hi, ok := rowdata.IDRange(f.Prefix); ok {
			where, args = append(where, "s.id >= ?", "s.id < ?"), append(args, f.Prefix, hi)
		}
	}
	if f.Platform != "" {
		where, args = append(where, "s.platform = ?"), append(args, f.Platform)
	}
	if f.Chat != "" {
		where, args = append(where, "s.chat = ?"), append(args, f.Chat)
	}
	if f.User != "" {
		where = append(where, `s.id IN (`+personSessions+`)`)
		args = append(args, f.User, f.User)
	}
	limit := int64(-1) // no cap
	if f.Limit > 0 {
		limit = int64(f.Limit)
	}
	args = append(args, limit, max(f.Offset, 0))
	return `
	SELECT s.id, s.platform, s.space, s.chat, s.thread, s.created_at, s.updated_at,
	       (SELECT count(*) FROM messages m WHERE m.session_id = s.id),
	       coalesce((SELECT value FROM kv WHERE kv.key = 'starter:' || s.id), ''),
	       coalesce((SELECT h.parent_session FROM task_helpers h WHERE h.helper_session = s.id), '')
	FROM (SELECT * FROM sessions s WHERE ` + strings.Join(where, " AND ") + `
	      ORDER BY s.updated_at DESC, s.id LIMIT ? OFFSET ?) s
	ORDER BY s.updated_at DESC, s.id`, args
}

// personSessions selects the sessions a person (both arguments) took part
// in — a turn of theirs on record — or started: ConversationFilter.User's
// rule, which a search keeps too.
const personSessions = `
	SELECT r.session_id FROM run_signals r WHERE r.author = ?
	UNION SELECT substr(k.key, 9) FROM kv k WHERE k.value = ? AND k.key >= 'starter:' AND k.key < 'starter;'`

// Conversations lists the sessions f selects, the most recently active
// first (ties by id).
func (db *DB) Conversations(ctx context.Context, f ConversationFilter) ([]Conversation, error) {
	q, args := conversationsQuery(f)
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
