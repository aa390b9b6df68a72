package config

import (
	"github.com/google/go-cmp/cmp"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/slack"
	"github.com/parleybot/parley/adapters/telegram"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/platforms"
)

// defaults is Default over Parley's own platforms.
func defaults() Config { return Default(platforms.All()...) }

// samePlatform compares descriptions by what is not a function: cmp finds
// two non-nil functions unequal whatever they are.
var samePlatform = cmp.Comparer(func(a, b chat.Platform) bool { return a.Name == b.Name && a.Open == b.Open })

func slackOf(c *Config) *slack.Settings { return c.Platform("slack").Section.(*slack.Settings) }
func telegramOf(c *Config) *telegram.Settings {
	return c.Platform("telegram").Section.(*telegram.Settings)
}
func discordOf(c *Config) *discord.Settings { return c.Platform("discord").Section.(*discord.Settings) }

// leavesOf are the keys of a configuration over Parley's own platforms.
func leavesOf() []leaf {
	c := defaults()
	return c.leaves()
}
