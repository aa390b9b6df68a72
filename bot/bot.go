package bot

import (
	"github.com/parleybot/parley/agent"
)

// Bot runs the commands every platform shares (/memory, /new, /help); the
// router answers the rest (/stop, /status) itself.
type Bot struct {
	sessions SessionMap
	memory   agent.MemoryStore
	limits   agent.MemoryLimits
}

// New returns the shared commands over the session map and the memory
// store; limits are the caps /memory shows.
func New(sessions SessionMap, memory agent.MemoryStore, limits agent.MemoryLimits) *Bot {
	return &Bot{sessions: sessions, memory: memory, limits: limits}
}
