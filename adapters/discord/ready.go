package discord

import (
	"github.com/parleybot/parley/chat"
)

var _ chat.Connection = (*Adapter)(nil)

// Connected reports whether the gateway sessions are open: every shard
// this process receives on has had its READY (or a resume) since
// discordgo last reported its socket lost. Messages sent while one is
// down are recovered after its next READY (backfill.go).
func (a *Adapter) Connected() bool {
	running := false
	for _, sh := range a.shards {
		if sh.running.Load() {
			if !sh.connected.Load() {
				return false
			}
			running = true
		}
	}
	return running
}
