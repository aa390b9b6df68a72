package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// maxIndexedSessions is how many sessions a person's search names inside
// the index query (sess tokens); a person in more is filtered by a join.
const maxIndexedSessions = 500

// SearchMessages finds the messages q asks for in the conversations it
// keeps: the newest SearchWindow matches, best first by rankWindow, ties
// the newest first. A query with nothing to search for finds nothing; a
// build without FTS5 answers ErrNoMessageIndex.
func (db *DB) SearchMessages(ctx context.Context, q MessageSearch) ([]MessageHit, error) {
	if db.noFTS != nil {
		return nil, ErrNoMessageIndex
	}
	query := kb.MatchQuery(q.Query)
	if query == "" {
		return nil, nil
	}
	// kb.MatchQuery's terms are quoted strings of lower-cased letters,
	// digits and '_' joined by " OR ": no term holds that separator.
	terms := strings.Split(query, " OR ")
	within := ""
	if q.User != "" {
		sessions, err := db.personSessionIDs(ctx, q.User)
		if err != nil {
			return nil, fmt.Errorf("store: search messages: %w", err)
		}
		if len(sessions) == 0 {
			return nil, nil
		}
		if len(sessions) <= maxIndexedSessions {
			tokens := make([]string, len(sessions))
			for i, s := range sessions {
				tokens[i] = scopeToken(s)
			}
			within = " AND sess : (" + strings.Join(tokens, " OR ") + ")"
			q.User = "" // kept by the index query
		}
	}
	if len(q.Chats) > 0 {
		tokens := make([]string, len(q.Chats))
		for i, c := range q.Chats {
			tokens[i] = ChatToken(c)
		}
		within += " AND sess : (" + strings.Join(tokens, " OR ") + ")"
	}
	if q.Role != "" {
		within += " AND sess : " + RoleToken(q.Role)
	}
	if q.AuthorName != "" {
		words := AuthorWords(q.AuthorName)
		if len(words) == 0 {
			return nil, nil // a name of no word is no one's
		}
		for _, w := range words {
			within += " AND sess : " + AuthorToken(w)
		}
	}
	from, cond, args := searchFilters(q)
	matching := func(match string, since int64, limit int) ([]int64, error) {
		return db.matchIDs(ctx, `SELECT msg_fts.rowid FROM `+from+` WHERE msg_fts MATCH ?`+cond+
			` AND msg_fts.rowid >= ? ORDER BY msg_fts.rowid DESC LIMIT ?`,
			append(append([]any{"{body uni} : (" + match + ")" + within}, args...), since, limit)...)
	}
	window, err := matching(query, 0, q.WindowSize())
	if err != nil {
		return nil, fmt.Errorf("store: search messages: %w", err)
	}
	if len(window) == 0 {
		return nil, nil
	}
	matches := make([][]int64, len(terms))
	if len(terms) > 1 {
		for i, t := range terms {
			if matches[i], err = matching(t, window[len(window)-1], q.WindowSize()); err != nil {
				return nil, fmt.Errorf("store: search messages: %w", err)
			}
		}
	}
	ranked := rankWindow(window, matches)
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	page := ranked[min(max(q.Offset, 0), len(ranked)):]
	page = page[:min(limit, len(page))]
	hits, err := db.loadHits(ctx, page, q.Query)
	if err != nil {
		return nil, fmt.Errorf("store: search messages: %w", err)
	}
	return hits, nil
}

// rankWindow orders the window's messages (ids, newest first) by how much
// of the query each holds: the sum of the inverse frequencies, within the
// window, of the terms it matches (matches[i]: the ids term i matches; nil
// for a query of one term). A rare term — a name, the whole query as a
// phrase — weighs more than a common one, as in BM25; a term's repeats
// within a message do not count, which for chat messages, short, costs
// little. FTS5's bm25() would count each term's rows in the whole index
// first: 25 ms for a word in most of a million messages.
func rankWindow(window []int64, matches [][]int64) []rankedID {
	score := make(map[int64]float64, len(window))
	n := float64(len(window))
	for _, ids := range matches {
		df := float64(len(ids))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, id := range ids {
			score[id] += idf
		}
	}
	out := make([]rankedID, len(window))
	for i, id := range window {
		out[i] = rankedID{id, score[id]}
	}
	// Stable: equal scores keep the window's order, the newest first.
	slices.SortStableFunc(out, func(a, b rankedID) int { return cmp.Compare(b.score, a.score) })
	return out
}

// rankedID is a message and its score.
type rankedID struct {
	id    int64
	score float64
}

// matchIDs runs a query of message ids.
func (db *DB) matchIDs(ctx context.Context, query string, args ...any) ([]int64, error) {
	return column[int64](ctx, db.r, query, args...)
}

// column runs query on db and returns its rows' one column.
func column[T any](ctx context.Context, db *sql.DB, query string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// hitPlace are a hit's columns beyond its row: its position in its
// transcript, and who wrote a person's message — the author of the turn
// it started (run_signals, by the message's key), as Transcript says.
const hitPlace = `(SELECT count(*) FROM messages p WHERE p.session_id = m.session_id AND p.id <= m.id),
		       CASE WHEN m.role = 'user' THEN coalesce((SELECT r.author FROM run_signals r
		            WHERE r.session_id = m.session_id AND r.msg_key = json_extract(m.body, '$.key')
		            ORDER BY r.id LIMIT 1), '') ELSE '' END`

// loadHits reads the messages of page, in its order, as hits for query.
func (db *DB) loadHits(ctx context.Context, page []rankedID, query string) ([]MessageHit, error) {
	if len(page) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(page))
	for i, r := range page {
		ids[i] = r.id
	}
	in, args := inList(ids)
	rows, err := db.r.QueryContext(ctx, `
		SELECT m.id, m.session_id, m.body, m.created_at, s.platform, s.space, s.chat, s.thread,
		       `+hitPlace+`
		FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.id IN (`+in+`)`, args...)
	if err != nil {
		return nil, err
	}
	byID := map[int64]MessageHit{}
	texts := map[int64]string{}
	for rows.Next() {
		var h MessageHit
		var body []byte
		var at int64
		if err := rows.Scan(&h.MessageID, &h.SessionID, &body, &at, &h.Thread.Platform, &h.Thread.Space,
			&h.Thread.Chat, &h.Thread.ID, &h.Position, &h.AuthorKey); err != nil {
			rows.Close()
			return nil, err
		}
		m, err := rowdata.DecodeMessage(body)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("message %d: %w", h.MessageID, err)
		}
		h.At, h.Role, h.AuthorName, h.Key = fromMillis(at), m.Role, m.Author, m.Key
		byID[h.MessageID], texts[h.MessageID] = h, m.Text
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	hits := make([]MessageHit, 0, len(page))
	for _, r := range page {
		h, ok := byID[r.id]
		if !ok {
			continue // deleted since the index was read
		}
		h.Score = r.score
		h.Snippet = Snippet(texts[r.id], query)
		hits = append(hits, h)
	}
	return hits, nil
}

// personSessionIDs are the sessions ConversationFilter.User keeps for user.
func (db *DB) personSessionIDs(ctx context.Context, user string) ([]string, error) {
	return column[string](ctx, db.r, personSessions, user, user)
}

// searchFilters are what a search's index queries join and test for the
// filters of q — person, places, time — and their arguments: the index
// alone (from "msg_fts", no condition) when q has none.
func searchFilters(q MessageSearch) (from, cond string, args []any) {
	var where []string
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
	if len(where) == 0 {
		return "msg_fts", "", nil
	}
	return "msg_fts JOIN messages m ON m.id = msg_fts.rowid JOIN sessions s ON s.id = m.session_id",
		" AND " + strings.Join(where, " AND "), args
}
