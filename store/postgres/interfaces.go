package postgres

import (
	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/agent/evolve"
	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/agent/remind"
	"github.com/parleybot/parley/agent/task"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
)

// *DB stands in for *store.DB wherever the consumers declare what they
// need of the store: every interface *store.DB satisfies. (bot/metrics'
// are checked in interfaces_test.go, so the store does not link
// Prometheus.)
var (
	_ bot.SessionMap     = (*DB)(nil)
	_ bot.Inbox          = (*DB)(nil)
	_ bot.TurnBook       = (*DB)(nil)
	_ outbound.Outbox    = (*DB)(nil)
	_ approvals.Store    = (*DB)(nil)
	_ chat.PlatformState = (*DB)(nil)
	_ bot.CoreStore      = (*DB)(nil)
	_ chat.KV            = (*DB)(nil)
	_ bot.HelperSessions = (*DB)(nil)
	_ bot.RunRecorder    = (*DB)(nil)

	_ agent.SessionStore    = (*DB)(nil)
	_ agent.MemoryStore     = (*DB)(nil)
	_ agent.ImagelessReader = (*DB)(nil)

	_ kb.Store = (*DB)(nil)

	_ evolve.ImpressionCounter = (*DB)(nil)
	_ evolve.RevisionStore     = (*DB)(nil)
	_ evolve.RunStore          = (*DB)(nil)
	_ evolve.RunSource         = (*DB)(nil)
	_ evolve.TranscriptSource  = (*DB)(nil)
	_ evolve.ActivityStore     = (*DB)(nil)
	_ evolve.MemoStore         = (*DB)(nil)

	_ remind.Store      = (*DB)(nil)
	_ remind.ItemStore  = (*DB)(nil)
	_ remind.Adder      = (*DB)(nil)
	_ remind.ItemLister = (*DB)(nil)

	_ task.Store       = (*DB)(nil)
	_ task.HelperStore = (*DB)(nil)
)
