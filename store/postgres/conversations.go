package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// Reading conversations whole, for an operator (parley export), as the
// SQLite store does (store/conversations.go).

// conversationsQuery lists sessions for Conversations as the SQLite
// store's does (store/conversations.go): a page of the sessions f
// selects, the most recently active first, then by id (byte order, as
// SQLite's BINARY), chosen before anything is counted. Without a user the
// page walks sessions_activity; with one, the person's sessions come from
// their turns (run_signals_author) and those they started (kv_starters);
// an id prefix is a range of sessions_id_bytes where it has one
// (rowdata.IDRange), and always tested byte for byte.
func conversationsQuery(f store.ConversationFilter) (string, []any) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Prefix != "" {
		p := arg(f.Prefix)
		where = append(where, "starts_with(s.id, "+p+"::text)")
		if hi, ok := rowdata.IDRange(f.Prefix); ok {
			where = append(where, `s.id COLLATE "C" >= `+p+`::text`, `s.id COLLATE "C" < `+arg(hi)+`::text`)
		}
	}
	if f.Platform != "" {
		where = append(where, "s.platform = "+arg(f.Platform)+"::text")
	}
	if f.Chat != "" {
		where = append(where, "s.chat = "+arg(f.Chat)+"::text")
	}
	if f.User != "" {
		where = append(where, `s.id IN (`+personSessions(arg(f.User))+`)`)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	// The page's bounds are numbers in the text, not parameters: a
	// generic plan, made for any LIMIT, would sort every session.
	limit := "ALL"
	if f.Limit > 0 {
		limit = strconv.Itoa(f.Limit)
	}
	offset := strconv.Itoa(max(f.Offset, 0))
	return `
	SELECT s.id, s.platform, s.space, s.chat, s.thread, s.created_at, s.updated_at,
	       (SELECT count(*) FROM messages m WHERE m.session_id = s.id),
	       coalesce((SELECT value FROM kv WHERE kv.key = 'starter:' || s.id), ''),
	       coalesce((SELECT h.parent_session FROM task_helpers h WHERE h.helper_session = s.id), '')
	FROM (SELECT * FROM sessions s` + cond + `
	      ORDER BY s.updated_at DESC, s.id COLLATE "C" LIMIT ` + limit + ` OFFSET ` + offset + `) s
	ORDER BY s.updated_at DESC, s.id COLLATE "C"`, args
}

// personSessions selects the sessions the person u (a parameter) took
// part in or started: ConversationFilter.User's rule, which a search
// keeps too.
func personSessions(u string) string {
	return `SELECT r.session_id FROM run_signals r WHERE r.author = ` + u + `::text
		UNION SELECT substr(k.key, 9) FROM kv k WHERE k.value = ` + u + `::text AND starts_with(k.key, 'starter:')`
}

// Conversations lists the sessions f selects, the most recently active
// first (ties by id).
func (db *DB) Conversations(ctx context.Context, f store.ConversationFilter) ([]store.Conversation, error) {
	q, args := conversationsQuery(f)
	rows, err := db.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: list conversations: %w", err)
	}
	var (
		out []store.Conversation
		c   store.Conversation
	)
	_, err = pgx.ForEachRow(rows, []any{&c.ID, &c.Thread.Platform, &c.Thread.Space, &c.Thread.Chat, &c.Thread.ID,
		&c.CreatedAt, &c.UpdatedAt, &c.Messages, &c.Starter, &c.HelperOf}, func() error {
		c.CreatedAt, c.UpdatedAt = fromTS(c.CreatedAt), fromTS(c.UpdatedAt)
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list conversations: %w", err)
	}
	return out, nil
}

// Transcript returns session sessionID's messages in order, each with when
// it was stored and, for a person's message, who wrote it where that is on
// record; pictures come without their bytes. A session without messages
// has an empty transcript; an unknown one is store.ErrNotFound.
func (db *DB) Transcript(ctx context.Context, sessionID string) ([]store.TranscriptEntry, error) {
	entries, err := db.transcriptEntries(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("postgres: transcript of session %q: %w", sessionID, err)
	}
	return entries, nil
}

func (db *DB) transcriptEntries(ctx context.Context, sessionID string) ([]store.TranscriptEntry, error) {
	// The LEFT JOIN tells an empty session (one row, NULL body) from an
	// unknown one (no row) in a single query.
	rows, err := db.pool.Query(ctx, `
		SELECT m.body, m.created_at FROM sessions s LEFT JOIN messages m ON m.session_id = s.id
		WHERE s.id = $1 ORDER BY m.id`, sessionID)
	if err != nil {
		return nil, err
	}
	var (
		entries []store.TranscriptEntry
		found   bool
		body    []byte
		at      *time.Time
	)
	_, err = pgx.ForEachRow(rows, []any{&body, &at}, func() error {
		found = true
		if body == nil || at == nil {
			return nil // the session has no messages
		}
		m, err := rowdata.DecodeMessage(body)
		entries = append(entries, store.TranscriptEntry{Message: m, At: fromTS(*at)})
		return err
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, store.ErrNotFound
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
	rows, err := db.pool.Query(ctx, `
		SELECT msg_key, author FROM run_signals WHERE session_id = $1 ORDER BY id`, sessionID)
	if err != nil {
		return nil, err
	}
	authors := map[string]string{}
	var key, author string
	_, err = pgx.ForEachRow(rows, []any{&key, &author}, func() error {
		if _, ok := authors[key]; !ok && key != "" {
			authors[key] = author // the first record of a turn
		}
		return nil
	})
	return authors, err
}
