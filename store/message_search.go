package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// SearchMessages finds the messages q asks for in the conversations it
// keeps, best first by BM25 (the pairs of CJK text weigh more than their
// single characters), ties the newest first. A query with nothing to
// search for finds nothing; a build without FTS5 answers
// ErrNoMessageIndex.
func (db *DB) SearchMessages(ctx context.Context, q MessageSearch) ([]MessageHit, error) {
	if db.noFTS != nil {
		return nil, ErrNoMessageIndex
	}
	match := kb.MatchQuery(q.Query)
	if match == "" {
		return nil, nil
	}
	query, args := searchQuery(q, match)
	rows, err := db.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("store: search messages: %w", err)
	}
	var hits []MessageHit
	var texts []string
	for rows.Next() {
		var h MessageHit
		var body []byte
		var at int64
		var rank float64
		if err := rows.Scan(&h.MessageID, &h.SessionID, &body, &at, &h.Thread.Platform, &h.Thread.Space,
			&h.Thread.Chat, &h.Thread.ID, &rank); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: search messages: %w", err)
		}
		m, err := rowdata.DecodeMessage(body)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: search messages: message %d: %w", h.MessageID, err)
		}
		h.At, h.Role, h.AuthorName, h.Score = fromMillis(at), m.Role, m.Author, -rank // bm25() is lower for better
		hits, texts = append(hits, h), append(texts, m.Text)
		if m.Role == llm.RoleUser {
			hits[len(hits)-1].AuthorKey = m.Key // replaced by the author below
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: search messages: %w", err)
	}
	for i := range hits {
		if err := db.placeHit(ctx, &hits[i]); err != nil {
			return nil, fmt.Errorf("store: search messages: %w", err)
		}
		hits[i].Snippet = Snippet(texts[i], q.Query)
	}
	return hits, nil
}

// searchQuery is SearchMessages' SQL: the index's matches (the MATCH
// first, so FTS5 drives) joined to their messages and sessions, filtered
// by person, places and time, ranked.
func searchQuery(q MessageSearch, match string) (string, []any) {
	where, args := []string{"1"}, []any{"{body uni} : (" + match + ")"}
	if q.User != "" {
		where, args = append(where, `m.session_id IN (`+personSessions+`)`), append(args, q.User, q.User)
	}
	if len(q.Places) > 0 {
		var places []string
		for _, p := range q.Places {
			c := "s.platform = ?"
			args = append(args, p.Platform)
			if p.Space != "" {
				c, args = c+" AND s.space = ?", append(args, p.Space)
			}
			if p.Chat != "" {
				c, args = c+" AND s.chat = ?", append(args, p.Chat)
			}
			places = append(places, "("+c+")")
		}
		where = append(where, "("+strings.Join(places, " OR ")+")")
	}
	if !q.Since.IsZero() {
		where, args = append(where, "m.created_at >= ?"), append(args, millis(q.Since))
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	args = append(args, limit, max(q.Offset, 0))
	return `
	SELECT m.id, m.session_id, m.body, m.created_at, s.platform, s.space, s.chat, s.thread, f.rank
	FROM (SELECT rowid, bm25(msg_fts, 1.0, 0.5) AS rank FROM msg_fts WHERE msg_fts MATCH ?) AS f
	JOIN messages m ON m.id = f.rowid
	JOIN sessions s ON s.id = m.session_id
	WHERE ` + strings.Join(where, " AND ") + `
	ORDER BY f.rank, m.id DESC LIMIT ? OFFSET ?`, args
}

// placeHit fills in h's position in its transcript and, for a person's
// message (AuthorKey holding its key until then), who wrote it: the
// author of the turn it started, as Transcript says.
func (db *DB) placeHit(ctx context.Context, h *MessageHit) error {
	if err := db.r.QueryRowContext(ctx, `SELECT count(*) FROM messages WHERE session_id = ? AND id <= ?`,
		h.SessionID, h.MessageID).Scan(&h.Position); err != nil {
		return err
	}
	if h.AuthorKey == "" {
		return nil
	}
	err := db.r.QueryRowContext(ctx, `SELECT author FROM run_signals WHERE session_id = ? AND msg_key = ? ORDER BY id LIMIT 1`,
		h.SessionID, h.AuthorKey).Scan(&h.AuthorKey)
	if errors.Is(err, sql.ErrNoRows) {
		h.AuthorKey = ""
		return nil
	}
	return err
}
