package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
)

// history_search's index (bot.HistoryIndex): the chats a person has
// written in (chat_people, kept by FinishTurn), and SearchMessages over
// the conversations of chosen chats. What both engines share is here.

var _ bot.HistoryIndex = (*DB)(nil)

// ChatsOf lists the chats on platform user has started a turn in, the
// most recent first (bot.HistoryIndex).
func (db *DB) ChatsOf(ctx context.Context, user, platform string, limit int) ([]bot.ChatSeen, error) {
	rows, err := db.r.QueryContext(ctx, `
		SELECT platform, space, chat, name, direct, last_at FROM chat_people
		WHERE user_key = ? AND platform = ? ORDER BY last_at DESC, space, chat LIMIT ?`, user, platform, limit)
	if err != nil {
		return nil, fmt.Errorf("store: chats of %s: %w", user, err)
	}
	defer rows.Close()
	var out []bot.ChatSeen
	for rows.Next() {
		var c bot.ChatSeen
		var last int64
		if err := rows.Scan(&c.Thread.Platform, &c.Thread.Space, &c.Thread.Chat, &c.Name, &c.Direct, &last); err != nil {
			return nil, fmt.Errorf("store: chats of %s: %w", user, err)
		}
		c.Last = fromMillis(last)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: chats of %s: %w", user, err)
	}
	return out, nil
}

// SearchHistory is SearchMessages over the conversations of q's chats
// (bot.HistoryIndex).
func (db *DB) SearchHistory(ctx context.Context, q bot.HistorySearch) ([]bot.HistoryHit, error) {
	return SearchHistory(ctx, db, q)
}

// HistoryWindow is how many of the newest matches history_search ranks
// for its ten hits: a quarter of the console's, for a search that stops
// four times sooner on a common word, in a conversation's history where
// the newer weighs more anyway.
const HistoryWindow = 500

// messageSearcher is what SearchHistory reads: either engine.
type messageSearcher interface {
	SearchMessages(ctx context.Context, q MessageSearch) ([]MessageHit, error)
}

// SearchHistory answers q with s's SearchMessages: each of q's chats one
// of MessageSearch.Chats (a chat never empty, so never a whole platform),
// each hit with
// its snippet's matches between **.
func SearchHistory(ctx context.Context, s messageSearcher, q bot.HistorySearch) ([]bot.HistoryHit, error) {
	places := make([]Place, 0, len(q.Chats))
	for _, c := range q.Chats {
		if c.Platform == "" || c.Chat == "" {
			return nil, fmt.Errorf("store: search history: chat %+v is not one chat", c)
		}
		places = append(places, Place{Platform: c.Platform, Space: c.Space, Chat: c.Chat})
	}
	if len(places) == 0 {
		return nil, nil
	}
	m := MessageSearch{Query: q.Query, Chats: places, Since: q.Since, Limit: q.Limit, AuthorName: q.Author, Window: HistoryWindow}
	if q.Parley {
		m.Role = llm.RoleAssistant
	}
	hits, err := s.SearchMessages(ctx, m)
	if err != nil {
		return nil, err
	}
	out := make([]bot.HistoryHit, len(hits))
	for i, h := range hits {
		out[i] = bot.HistoryHit{Thread: h.Thread, Key: h.Key, At: h.At, FromParley: h.Role != llm.RoleUser,
			AuthorKey: h.AuthorKey, AuthorName: h.AuthorName, Snippet: markedSnippet(h.Snippet)}
		if out[i].FromParley {
			out[i].Key = ""
		}
	}
	return out, nil
}

// markedSnippet is a snippet as one line of text, its matches between **.
func markedSnippet(parts []SnippetPart) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Match {
			b.WriteString("**" + p.Text + "**")
			continue
		}
		b.WriteString(p.Text)
	}
	return b.String()
}
