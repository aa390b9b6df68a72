package discord

import (
	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/chat"
)

// subShow is /memory's default subcommand: it takes no arguments.
const subShow = "show"

// appCommands are chat.Commands() as Discord application commands, usable in
// guilds and in DMs with the bot.
func appCommands() []*discordgo.ApplicationCommand {
	contexts := []discordgo.InteractionContextType{discordgo.InteractionContextGuild, discordgo.InteractionContextBotDM}
	var cmds []*discordgo.ApplicationCommand
	for _, spec := range chat.Commands() {
		cmds = append(cmds, &discordgo.ApplicationCommand{
			Type:         discordgo.ChatApplicationCommand,
			Name:         spec.Name,
			Description:  spec.Description,
			DMPermission: new(true),
			Contexts:     &contexts,
			Options:      subcommandOptions(spec.Subcommands),
		})
	}
	return cmds
}

// subcommandOptions declares a command's subcommands, each with its
// argument.
func subcommandOptions(subs []chat.Subcommand) []*discordgo.ApplicationCommandOption {
	var out []*discordgo.ApplicationCommandOption
	for _, s := range subs {
		o := &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommand, Name: s.Name, Description: s.Description}
		if a := s.Arg; a != nil {
			arg := &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString, Name: a.Name, Description: a.Description, Required: true}
			if a.Integer {
				arg.Type, arg.MinValue = discordgo.ApplicationCommandOptionInteger, new(float64(a.Min))
			}
			o.Options = []*discordgo.ApplicationCommandOption{arg}
		}
		out = append(out, o)
	}
	return out
}
