// Package platforms is the list of chat platforms Parley runs. A platform
// is its adapter's package (which describes it: chat.Platform) plus one
// line here; configuration, doctor, access, metrics and replicas go over
// this list.
package platforms

import (
	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/slack"
	"github.com/parleybot/parley/adapters/telegram"
	"github.com/parleybot/parley/chat"
)

// All returns every chat platform, in the order Parley starts them.
func All() []chat.Platform {
	return []chat.Platform{
		slack.Platform(),
		telegram.Platform(),
		discord.Platform(),
	}
}
