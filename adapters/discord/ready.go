package discord

import "github.com/parleybot/parley/bot"

var _ bot.Connection = (*Adapter)(nil)

// Connected reports whether a gateway session is open: from READY (or a
// resume) until discordgo reports the socket lost. Messages sent while it
// is down are recovered after the next READY (backfill.go).
func (a *Adapter) Connected() bool { return a.connected.Load() }
