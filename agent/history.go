package agent

import (
	"context"
	"time"
)

// History is the chat core's side of the history_search tool
// (agent/tools, docs/history.md): the core decides which past
// conversations a turn's author may see where the turn runs, searches
// them, and links each hit to its message on the platform. The tool passes
// the caller, never a place the model names.
type History interface {
	SearchHistory(ctx context.Context, c Caller, q HistoryQuery) ([]HistoryHit, error)
}

// HistoryQuery is what history_search asks.
type HistoryQuery struct {
	// Query is the words looked for, never query syntax.
	Query string
	// Since keeps messages written at or after it; zero: any time.
	Since time.Time
	// Who keeps the messages of one author: "me" (the caller), "parley"
	// (Parley's answers), or a person's name, each of its words one of
	// the author's; "": anyone.
	Who string
	// Limit caps the hits.
	Limit int
}

// HistoryHit is one message history_search found.
type HistoryHit struct {
	At time.Time
	// Author is who wrote it: a person's name (or id), or "Parley".
	Author string
	// Where names the conversation: the chat, as the platform calls it.
	Where string
	// Snippet is the part of the message that matched, the matching words
	// between ** marks.
	Snippet string
	// Link opens the message on its platform; "" where it has none (a
	// Telegram private chat, the terminal).
	Link string
}
