package discord

import (
	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/bot"
)

// /memory's subcommands; show is the default (no arguments).
const (
	subShow   = "show"
	subForget = "forget"
	subClear  = "clear"
)

// appCommands are bot.Menu() as Discord application commands, usable in
// guilds and in DMs with the bot.
func appCommands() []*discordgo.ApplicationCommand {
	contexts := []discordgo.InteractionContextType{discordgo.InteractionContextGuild, discordgo.InteractionContextBotDM}
	var cmds []*discordgo.ApplicationCommand
	for _, m := range bot.Menu() {
		c := &discordgo.ApplicationCommand{
			Type:         discordgo.ChatApplicationCommand,
			Name:         m.Name,
			Description:  m.Description,
			DMPermission: new(true),
			Contexts:     &contexts,
		}
		if m.Name == "memory" {
			c.Options = memoryOptions()
		}
		cmds = append(cmds, c)
	}
	return cmds
}

func memoryOptions() []*discordgo.ApplicationCommandOption {
	return []*discordgo.ApplicationCommandOption{
		{Type: discordgo.ApplicationCommandOptionSubCommand, Name: subShow, Description: "Show what I remember about you (only you see it)"},
		{Type: discordgo.ApplicationCommandOptionSubCommand, Name: subForget, Description: "Forget one entry of that list",
			Options: []*discordgo.ApplicationCommandOption{{
				Type: discordgo.ApplicationCommandOptionInteger, Name: "n", Description: "The entry's number, from /memory show",
				Required: true, MinValue: new(1.0),
			}}},
		{Type: discordgo.ApplicationCommandOptionSubCommand, Name: subClear, Description: "Forget everything I remember about you"},
	}
}
