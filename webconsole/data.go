package webconsole

import (
	"context"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/store"
)

// Data is what the pages read (the store, either engine).
type Data interface {
	Conversations(ctx context.Context, f store.ConversationFilter) ([]store.Conversation, error)
	Transcript(ctx context.Context, sessionID string) ([]store.TranscriptEntry, error)
	// SessionApprovals are a conversation's approvals, each shown with
	// its tool call.
	SessionApprovals(ctx context.Context, sessionID string) ([]approvals.Record, error)
	// SearchMessages finds messages by their words (the Conversations
	// page's search box).
	SearchMessages(ctx context.Context, q store.MessageSearch) ([]store.MessageHit, error)
	// Memory is a person's memory ("platform:id"); the console forgets
	// entries with EditMemory (bot.ForgetEntry).
	agent.MemoryStore
	// UserName is a person's display name as the chat last showed it; ""
	// when unknown.
	UserName(ctx context.Context, key string) (string, error)
	// Users lists the people Parley knows; ItemsOf is a person's
	// reminders and schedules wherever they made them, Documents the
	// documents of scopes (a person's private ones: their person scope).
	Users(ctx context.Context, f store.UserFilter, limit int) ([]store.User, error)
	ItemsOf(ctx context.Context, owner string) ([]remind.Item, error)
	Documents(ctx context.Context, scopes []string) ([]kb.Document, error)
	// TimeItems are the reminders and schedules the Time page lists,
	// pauses, resumes and cancels.
	TimeItems
}
