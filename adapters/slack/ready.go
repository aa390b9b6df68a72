package slack

import (
	"github.com/parleybot/parley/chat"
)

var _ chat.Connection = (*Adapter)(nil)

// Connected reports whether Run receives events: a Socket Mode connection
// is open (false while it reconnects), or HTTP mode's endpoints are
// registered.
func (a *Adapter) Connected() bool { return a.connected.Load() }
