package discord

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/chat"
)

// Interactions must get their first response within 3 s, whatever the
// handler does: both kinds are deferred at once and answered later
// through the interaction's webhook (valid 15 min).

// click hands over a button click. The deferral (type 6) keeps the message
// as it is; the approvals then edit it themselves to show who decided.
func (a *Adapter) click(ctx context.Context, h chat.Handler, in *discordgo.Interaction) {
	a.ack(ctx, in, &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate})
	data, ok := in.Data.(discordgo.MessageComponentInteractionData)
	u := clicker(in)
	if !ok || u == nil || in.Message == nil {
		a.log.Warn("malformed component interaction dropped", "interaction", in.ID)
		return
	}
	th := a.conversationOf(ctx, in.GuildID, in.ChannelID, in.Message)
	act := chat.Action{
		Key:     "discord:i:" + in.ID,
		Thread:  th,
		User:    userOf(u),
		Data:    data.CustomID,
		Message: chat.MessageRef{Thread: th, ID: in.Message.ID},
		Respond: func(ctx context.Context, text string) error {
			return a.followup(ctx, in, chat.Out{Text: text})
		},
	}
	if err := h.HandleAction(ctx, act); err != nil {
		a.log.Error("handling a click", "key", act.Key, "err", err)
	}
}

// command hands over a slash command, deferred as an ephemeral answer
// (type 5, flags 64): everything a command says is for the caller alone;
// its links are not embedded (flags 4, noEmbeds).
func (a *Adapter) command(ctx context.Context, h chat.Handler, in *discordgo.Interaction) {
	a.ack(ctx, in, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral | noEmbeds},
	})
	data, ok := in.Data.(discordgo.ApplicationCommandInteractionData)
	u := clicker(in)
	if !ok || u == nil || data.Name == "" {
		a.log.Warn("malformed command interaction dropped", "interaction", in.ID)
		return
	}
	r := &commandReply{a: a, in: in}
	c := chat.Command{
		Key:     "discord:i:" + in.ID,
		Thread:  a.conversationOf(ctx, in.GuildID, in.ChannelID, nil),
		User:    userOf(u),
		Name:    data.Name,
		Args:    commandArgs(data.Options),
		Direct:  in.GuildID == "",
		Respond: r.respond,
	}
	if err := h.HandleCommand(ctx, c); err != nil {
		a.log.Error("handling a command", "key", c.Key, "name", c.Name, "err", err)
	}
}

// ack sends the initial response. A failure is logged, not fatal: the
// person sees "interaction failed", but the event is still worth handing
// over (a click's decision edits the message itself).
func (a *Adapter) ack(ctx context.Context, in *discordgo.Interaction, resp *discordgo.InteractionResponse) {
	if err := a.s.InteractionRespond(in, resp, a.callOpts(ctx)...); err != nil {
		a.log.Warn("interaction not acknowledged", "interaction", in.ID,
			"err", wrap("POST /interactions/{id}/{token}/callback", err))
	}
}

// commandReply answers one command: the first answer fills the deferred
// "thinking…" message (@original), later ones are ephemeral follow-ups.
type commandReply struct {
	a  *Adapter
	in *discordgo.Interaction

	mu       sync.Mutex // serializes answers, so "first" is the first
	answered bool
}

func (r *commandReply) respond(ctx context.Context, out chat.Out) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.answered {
		return r.a.followup(ctx, r.in, out)
	}
	rd, err := renderOut(out)
	if err != nil {
		return err
	}
	components := rd.components
	if components == nil {
		components = []discordgo.MessageComponent{}
	}
	_, err = r.a.s.InteractionResponseEdit(r.in, &discordgo.WebhookEdit{
		Content:         &rd.content,
		Components:      &components,
		AllowedMentions: rd.allowed,
	}, r.a.callOpts(ctx)...)
	if err != nil {
		return wrap("PATCH /webhooks/{id}/{token}/messages/@original", err)
	}
	r.answered = true
	return nil
}

// followup shows out to the interaction's user alone.
func (a *Adapter) followup(ctx context.Context, in *discordgo.Interaction, out chat.Out) error {
	rd, err := renderOut(out)
	if err != nil {
		return err
	}
	_, err = a.s.FollowupMessageCreate(in, true, &discordgo.WebhookParams{
		Content:         rd.content,
		Components:      rd.components,
		AllowedMentions: rd.allowed,
		Flags:           discordgo.MessageFlagsEphemeral | noEmbeds,
	}, a.callOpts(ctx)...)
	return wrap("POST /webhooks/{id}/{token}", err)
}

// conversationOf maps where an interaction happened to a conversation, as
// normalize maps messages: a DM; a thread under its parent; in a guild
// channel, the conversation of the message clicked (an inline answer
// replies to its root), or the channel itself for a command.
func (a *Adapter) conversationOf(ctx context.Context, guildID, channelID string, msg *discordgo.Message) chat.Thread {
	if guildID == "" {
		return chat.Thread{Platform: platform, Chat: channelID}
	}
	if info := a.channel(ctx, channelID); info.Thread && info.ParentID != "" {
		return chat.Thread{Platform: platform, Space: guildID, Chat: info.ParentID, ID: channelID}
	}
	t := chat.Thread{Platform: platform, Space: guildID, Chat: channelID}
	if msg != nil {
		t.ID = msg.ID
		if s, ok := a.msgs.Get(msg.ID); ok && s.root != "" {
			t.ID = s.root
		} else if ref := msg.MessageReference; ref != nil && ref.MessageID != "" {
			t.ID = ref.MessageID
		}
	}
	return t
}

// clicker is who interacted: Member.User in guilds, User in DMs.
func clicker(in *discordgo.Interaction) *discordgo.User {
	if in.Member != nil && in.Member.User != nil {
		return in.Member.User
	}
	return in.User
}

// commandArgs flattens options into the words of the text form:
// /memory forget n:3 → ["forget", "3"]. The default subcommand (show) is
// the command without arguments.
func commandArgs(opts []*discordgo.ApplicationCommandInteractionDataOption) []string {
	var args []string
	for _, o := range opts {
		if o == nil {
			continue
		}
		switch o.Type {
		case discordgo.ApplicationCommandOptionSubCommand, discordgo.ApplicationCommandOptionSubCommandGroup:
			if o.Name != subShow {
				args = append(args, o.Name)
			}
			args = append(args, commandArgs(o.Options)...)
		default:
			args = append(args, optionValue(o.Value))
		}
	}
	return args
}

// optionValue spells a JSON option value as typed: integers arrive as
// float64 and must read "3", not "3e+00".
func optionValue(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
