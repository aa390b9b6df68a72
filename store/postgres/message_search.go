package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/internal/rowdata"
)

// Full-text search of conversations, as the SQLite store's
// (store/message_search.go): each message people wrote or Parley answered
// carries the tsvector of its text (messages.tsv, GIN-indexed), written
// with the message, built as a passage's is (kb.IndexText, then
// tsvectorLiteral), so CJK text is found by its pairs; a query is
// kb.MatchQuery's, translated by tsqueryTerms. A deleted message takes its
// tsvector with it, by whichever path it goes.

// messageTSV is the tsvector literal of m's text, or nil (NULL) when m
// has nothing to index: its words, and without positions the filter
// tokens of its chat and of itself (store.ChatToken, store.MessageTokens),
// which history_search's tsquery ANDs with its words.
func messageTSV(m llm.Message, chat store.Place) *string {
	text := rowdata.SearchText(m)
	if text == "" {
		return nil
	}
	body, uni := kb.IndexText(text)
	var b strings.Builder
	b.WriteString(tsvectorLiteral(body, uni, ""))
	for _, tok := range append([]string{store.ChatToken(chat)}, store.MessageTokens(m)...) {
		b.WriteString(" " + quoteLexeme(tok))
	}
	lit := strings.TrimLeft(b.String(), " ")
	return &lit
}

// indexBatch is how many queued messages one transaction indexes.
const indexBatch = 1000

// indexQueued indexes the messages migration 00020 queued (those stored
// before it, or copied from SQLite) and takes them off the queue. Replicas
// opening together share the work: each takes rows no other holds.
func indexQueued(ctx context.Context, pool *pgxpool.Pool) error {
	for {
		n := 0
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `
				SELECT t.message_id, m.body, s.platform, s.space, s.chat
				FROM message_index_todo t JOIN messages m ON m.id = t.message_id JOIN sessions s ON s.id = m.session_id
				ORDER BY t.message_id LIMIT $1 FOR UPDATE OF t SKIP LOCKED`, indexBatch)
			if err != nil {
				return err
			}
			var (
				ids  []int64
				tsvs []*string
				id   int64
				body []byte
				chat store.Place
			)
			if _, err := pgx.ForEachRow(rows, []any{&id, &body, &chat.Platform, &chat.Space, &chat.Chat}, func() error {
				m, err := rowdata.DecodeMessage(body)
				if err != nil {
					return fmt.Errorf("message %d: %w", id, err)
				}
				ids, tsvs = append(ids, id), append(tsvs, messageTSV(m, chat))
				return nil
			}); err != nil {
				return err
			}
			if n = len(ids); n == 0 {
				return nil
			}
			if _, err := tx.Exec(ctx, `
				UPDATE messages m SET tsv = CAST(v.tsv AS tsvector)
				FROM unnest($1::bigint[], $2::text[]) AS v(id, tsv) WHERE m.id = v.id`, ids, tsvs); err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `DELETE FROM message_index_todo WHERE message_id = ANY($1)`, ids)
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

// Weights of the index text's columns, as store's bm25() weighs them:
// body (A) 1.0, the single CJK characters (B) 0.5.
const messageRankWeights = "{0.1, 0.1, 0.5, 1.0}"

// SearchMessages finds the messages q asks for in the conversations it
// keeps, best first by ts_rank_cd (saturating, as BM25's term frequency
// does), ties the newest first. A query with nothing to search for finds
// nothing.
func (db *DB) SearchMessages(ctx context.Context, q store.MessageSearch) ([]store.MessageHit, error) {
	terms := tsqueryTerms(kb.MatchQuery(q.Query))
	if len(terms) == 0 {
		return nil, nil
	}
	var mine []string
	if q.User != "" {
		// The person's sessions as a list the planner can count, so that
		// it reads their messages (messages_by_session) rather than walk
		// everyone's newest first for theirs.
		var err error
		if mine, err = db.personSessionIDs(ctx, q.User); err != nil {
			return nil, fmt.Errorf("postgres: search messages: %w", err)
		}
		if len(mine) == 0 {
			return nil, nil
		}
	}
	query, args := searchQuery(q, mine, withFilters(q, strings.Join(terms, " | ")))
	rows, err := db.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: search messages: %w", err)
	}
	var (
		hits []store.MessageHit
		h    store.MessageHit
		body []byte
		at   time.Time
	)
	_, err = pgx.ForEachRow(rows, []any{&h.MessageID, &h.SessionID, &body, &at, &h.Thread.Platform, &h.Thread.Space,
		&h.Thread.Chat, &h.Thread.ID, &h.Score, &h.Position, &h.AuthorKey}, func() error {
		m, err := rowdata.DecodeMessage(body)
		if err != nil {
			return fmt.Errorf("message %d: %w", h.MessageID, err)
		}
		h.At, h.Role, h.AuthorName, h.Key = fromTS(at), m.Role, m.Author, m.Key
		h.Snippet = store.Snippet(m.Text, q.Query)
		hits = append(hits, h)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: search messages: %w", err)
	}
	return hits, nil
}

// withFilters is the tsquery terms with q's filters that the index
// answers ANDed to it: its chats, Parley's side, an author's name's words
// (store.ChatToken, store.RoleToken, store.AuthorToken, which every
// message's tsvector holds). An author's name of no word matches no one.
func withFilters(q store.MessageSearch, terms string) string {
	tsq := "(" + terms + ")"
	if len(q.Chats) > 0 {
		chats := make([]string, len(q.Chats))
		for i, c := range q.Chats {
			chats[i] = quoteLexeme(store.ChatToken(c))
		}
		tsq += " & (" + strings.Join(chats, " | ") + ")"
	}
	if q.Role != "" {
		tsq += " & " + quoteLexeme(store.RoleToken(q.Role))
	}
	if q.AuthorName != "" {
		words := store.AuthorWords(q.AuthorName)
		if len(words) == 0 {
			words = []string{"\x00"} // no one's
		}
		for _, w := range words {
			tsq += " & " + quoteLexeme(store.AuthorToken(w))
		}
	}
	return tsq
}

// personSessionIDs are the sessions ConversationFilter.User keeps for user.
func (db *DB) personSessionIDs(ctx context.Context, user string) ([]string, error) {
	rows, err := db.pool.Query(ctx, personSessions("$1"), user)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// hitPlace are a hit's columns beyond its row, read with it rather than
// asked for hit by hit: its position in its transcript, and who wrote a
// person's message — the author of the turn it started (run_signals, by
// the message's key), as Transcript says.
const hitPlace = `(SELECT count(*) FROM messages p WHERE p.session_id = m.session_id AND p.id <= m.id),
	       CASE WHEN m.role = 'user' THEN coalesce((SELECT r.author FROM run_signals r
	            WHERE r.session_id = m.session_id AND r.msg_key = CAST(m.body AS jsonb) ->> 'key'
	            ORDER BY r.id LIMIT 1), '') ELSE '' END`

// searchQuery is SearchMessages' SQL over the tsquery tsq: the newest
// store.SearchWindow messages matching it (messages_tsv) that the filters
// keep — the person's sessions (mine), places, time — ranked by ts_rank_cd, then the page of
// them with their sessions.
func searchQuery(q store.MessageSearch, mine []string, tsq string) (string, []any) {
	args := []any{tsq}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	where := []string{"m.tsv @@ CAST($1 AS tsquery)"}
	messages := "messages"
	if q.User != "" {
		// The person's messages first, then the words among them: left to
		// choose, the planner ANDs the word's whole GIN bitmap (900,000
		// rows for a common one: 140 ms) with their sessions'.
		messages = `(SELECT * FROM messages WHERE session_id = ANY(` + arg(mine) + `::text[]) OFFSET 0)`
	}
	if len(q.Places) > 0 {
		var places []string
		for _, p := range q.Places {
			c := "s.platform = " + arg(p.Platform) + "::text"
			if p.Space != "" {
				c += " AND s.space = " + arg(p.Space) + "::text"
			}
			if p.Chat != "" {
				c += " AND s.chat = " + arg(p.Chat) + "::text"
			}
			places = append(places, "("+c+")")
		}
		where = append(where, "("+strings.Join(places, " OR ")+")")
	}
	if !q.Since.IsZero() {
		where = append(where, "m.created_at >= "+arg(ts(q.Since)))
	}
	join := ""
	if len(q.Places) > 0 {
		join = " JOIN sessions s ON s.id = m.session_id"
	}
	limit := q.Limit
	if limit <= 0 {
		limit = store.DefaultSearchLimit
	}
	// The bounds are numbers in the text, as conversationsQuery's: a
	// generic plan, made for any LIMIT, would rank every match.
	return `
	SELECT m.id, m.session_id, m.body, m.created_at, s.platform, s.space, s.chat, s.thread, h.rank,
	       ` + hitPlace + `
	FROM (SELECT m.id, ts_rank_cd('` + messageRankWeights + `', m.tsv, CAST($1 AS tsquery), 32) AS rank
	      FROM ` + messages + ` m` + join + `
	      WHERE ` + strings.Join(where, " AND ") + `
	      ORDER BY m.id DESC LIMIT ` + strconv.Itoa(q.WindowSize()) + `) AS h
	JOIN messages m ON m.id = h.id
	JOIN sessions s ON s.id = m.session_id
	ORDER BY h.rank DESC, m.id DESC LIMIT ` + strconv.Itoa(limit) + ` OFFSET ` + strconv.Itoa(max(q.Offset, 0)), args
}
