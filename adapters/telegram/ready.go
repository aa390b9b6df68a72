package telegram

import (
	"github.com/parleybot/parley/chat"
)

var _ chat.Connection = (*Adapter)(nil)

// Connected reports whether Run receives updates: polling, with the last
// getUpdates answered (a failing one makes it false until one succeeds),
// or with the webhook registered. Telegram holds what it cannot deliver,
// so false means late answers, not lost ones.
func (a *Adapter) Connected() bool { return a.connected.Load() }
