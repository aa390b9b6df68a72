package bot

import (
	"fmt"
	"github.com/parleybot/parley/chat"
	"slices"
)

// Wildcard in an allow list admits everyone.
const Wildcard = "*"

// AccessList restricts one platform to listed users and chats.
type AccessList struct {
	// Open admits everyone while both allow lists are empty: the
	// platform's description says (chat.Platform.Open).
	Open       bool
	AllowUsers []string // platform user ids, or "*"
	AllowChats []string // platform chat/channel ids, or "*"
	// FreeChats are chats where the bot answers every message, mention or
	// not (a help-desk channel).
	FreeChats []string
}

// Access decides who may talk to the bot.
type Access struct {
	Platforms map[string]AccessList
	// Admins are user keys ("telegram:42") that may always talk to the bot
	// and decide any approval.
	Admins []string
}

// Allowed reports whether u may talk to the bot in t.
func (a Access) Allowed(u chat.User, t chat.Thread) bool {
	if a.IsAdmin(u) {
		return true
	}
	// A platform not configured at all admits nobody.
	l := a.Platforms[u.Platform]
	if len(l.AllowUsers) == 0 && len(l.AllowChats) == 0 {
		return l.Open
	}
	// A listed chat allows it; so does a listed workspace or guild
	// (Thread.Space), so one entry covers a whole Discord server.
	return listed(l.AllowUsers, u.ID) || listed(l.AllowChats, t.Chat) || listed(l.AllowChats, t.Space)
}

// IsAdmin reports whether u is a configured admin.
func (a Access) IsAdmin(u chat.User) bool {
	return slices.Contains(a.Admins, u.Key())
}

// FreeResponse reports whether the bot answers every message in chat.
func (a Access) FreeResponse(platform, chat string) bool {
	return listed(a.Platforms[platform].FreeChats, chat)
}

func listed(list []string, id string) bool {
	return id != "" && (slices.Contains(list, id) || slices.Contains(list, Wildcard))
}

// Refusal is the one answer a stranger gets: it names their id, so they
// can ask an admin to allow them.
func Refusal(u chat.User) string {
	return fmt.Sprintf("Sorry, I only talk to people I have been set up for. "+
		"If you should have access, ask an admin to add your %s user id %s to access.%s.allow_users.", u.Platform, u.ID, u.Platform)
}
