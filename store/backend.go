package store

import (
	"context"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/webconsole/signin"
)

// Backend is what a storage engine offers Parley, whichever engine it is
// (*DB on SQLite, *postgres.DB on PostgreSQL): the storage interfaces bot
// and agent declare, and the few methods beyond them that the operator's
// commands use. The operator endpoints' interfaces (bot/metrics) are not
// in it so that the store links no metrics library; both engines satisfy
// them too (storetest.Store adds them).
type Backend interface {
	bot.CoreStore // sessions, inbox, outbox, KV, approvals
	chat.PlatformState
	bot.RunRecorder
	bot.HelperSessions
	bot.Leases       // replicas on one database take turns (docs/replicas.md)
	bot.Replicas     // and share the platforms' rate limits
	bot.SharedState  // who shares it now (the console's overview)
	bot.CostBook     // what each model call cost (#28 §4)
	bot.TurnBook     // how each turn ended (#29 overview)
	bot.HistoryIndex // who wrote where, and history_search (#31 §3)
	bot.AuditLog     // what was done and by whom

	signin.Auth // the web console's sign-in links and sessions

	agent.SessionStore
	agent.MemoryStore
	agent.TeamStore // each place's team notes
	agent.ImagelessReader

	kb.Store

	evolve.ImpressionCounter
	evolve.RevisionStore
	evolve.RunSource
	evolve.ActivityStore
	evolve.MemoStore
	evolve.ReflectionLog // each reflection and its cost (the console's Learning page)
	evolve.SkillStore    // every scope's skills, shared by the replicas (#30 §3)

	remind.ItemStore
	remind.ItemLister // the web console's Time page

	task.Store
	task.HelperStore

	// PruneConversations deletes the conversations idle since before
	// cutoff, whole, and says how many (history.keep_days).
	PruneConversations(ctx context.Context, cutoff time.Time) (int, error)

	// UpsertUser records a person's platform and display name; UserName
	// reads the name back ("" for none).
	UpsertUser(ctx context.Context, key, platform, name string) error
	UserName(ctx context.Context, key string) (string, error)
	// Users lists the people Parley knows, ItemsOf a person's reminders
	// and schedules in every scope (the web console's People page).
	Users(ctx context.Context, f UserFilter, limit int) ([]User, error)
	ItemsOf(ctx context.Context, owner string) ([]remind.Item, error)
	// Conversations lists conversations, Transcript one's messages
	// (parley export, the web console).
	Conversations(ctx context.Context, f ConversationFilter) ([]Conversation, error)
	Transcript(ctx context.Context, sessionID string) ([]TranscriptEntry, error)
	// SearchMessages finds messages by their words (the web console; the
	// history_search tool to come).
	SearchMessages(ctx context.Context, q MessageSearch) ([]MessageHit, error)
	// SkillRates are the counts a skill's rates come from, in one scope
	// (parley reflect).
	SkillRates(ctx context.Context, scope, name string) (evolve.Rates, error)
	// ScopeSkillRates are every skill's counts in scope, by lowercased
	// name (the skill index and the reflection packet).
	ScopeSkillRates(ctx context.Context, scope string) (map[string]evolve.Rates, error)
	// SkillScopes lists the scopes that have skills (parley skills ls,
	// export, the console's Learning page).
	SkillScopes(ctx context.Context) ([]string, error)
	// Close closes the handle; a second Close is harmless.
	Close() error
}

var _ Backend = (*DB)(nil)
