package discord

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

// Discord's limits that rendering must respect
// (docs/platforms.md#discord-text-limits,
// docs/platforms.md#discord-buttons).
const (
	maxLen  = 2000 // content, in UTF-16 units as Discord counts
	splitAt = 1900 // headroom below maxLen for the core's splitter
	// maxCustomID is Discord's limit on a button's custom_id.
	maxCustomID   = 100
	maxLabel      = 80
	buttonsPerRow = 5
	maxRows       = 5
)

// rendered is an Out as Discord takes it.
// noEmbeds is on every message Parley writes: Discord would otherwise
// fetch each link in it for an embed, and a link the model wrote after
// reading a poisoned page can carry data in its address to whoever
// serves it (docs/security.md, "Links that fetch themselves"). A fetch
// needs no click.
const noEmbeds = discordgo.MessageFlagsSuppressEmbeds

type rendered struct {
	content    string
	components []discordgo.MessageComponent // nil without buttons
	// allowed is who the message may notify: its Mentions, nobody else.
	allowed *discordgo.MessageAllowedMentions
}

// renderOut turns out into Discord Markdown and action rows. Over-long
// text is an error, never truncated: the core splits answers at SplitAt,
// so a longer text is a bug upstream, and losing its end would hide it.
// Everything Discord would refuse is refused here, before a call that
// would cost rate-limit budget.
func renderOut(out chat.Out) (rendered, error) {
	r := rendered{allowed: noMentions()}
	r.content = withMentions(out, renderText(out), r.allowed)
	if n := format.UTF16Len(r.content); n > maxLen {
		return rendered{}, fmt.Errorf("discord message of %d characters exceeds the %d Discord allows", n, maxLen)
	}
	if len(out.Buttons) > buttonsPerRow*maxRows {
		return rendered{}, fmt.Errorf("discord message with %d buttons; Discord allows %d", len(out.Buttons), buttonsPerRow*maxRows)
	}
	for row := 0; row*buttonsPerRow < len(out.Buttons); row++ {
		var buttons []discordgo.MessageComponent
		for i := row * buttonsPerRow; i < min(len(out.Buttons), (row+1)*buttonsPerRow); i++ {
			b, err := renderButton(i, out.Buttons[i])
			if err != nil {
				return rendered{}, err
			}
			buttons = append(buttons, b)
		}
		r.components = append(r.components, discordgo.ActionsRow{Components: buttons})
	}
	return r, nil
}

// renderText renders out's Markdown. The plain form (after a formatting
// rejection) still gets its mass mentions defused; AllowedMentions stops
// the pings either way, this keeps the text from looking like one.
func renderText(out chat.Out) string {
	if out.Plain {
		return format.NeutralizeMentions(format.Plain(out.Text))
	}
	return format.Discord(out.Text)
}

// withMentions puts out's Mentions before the rendered text, adding each
// to allowed, so the message notifies them and nobody else: <@ID> for a
// snowflake ID; anyone else as @Name, which is text to Discord. (The 100
// ids allowed_mentions takes at most need more than the content's 2,000
// characters, so the length check covers that limit.)
func withMentions(out chat.Out, text string, allowed *discordgo.MessageAllowedMentions) string {
	return out.WithMentions(text, func(u chat.User) string {
		if !snowflake(u.ID) {
			return format.NeutralizeMentions("@" + cmp.Or(u.Name, u.ID))
		}
		allowed.Users = append(allowed.Users, u.ID)
		return "<@" + u.ID + ">"
	})
}

// snowflake reports whether id is a Discord id: digits, which <@…> needs.
func snowflake(id string) bool {
	return id != "" && !strings.ContainsFunc(id, func(c rune) bool { return c < '0' || c > '9' })
}

// renderButton makes the i-th button. Its custom_id is the payload the
// click brings back, so one Discord would refuse is an error; a label too
// long is only decoration and is shortened.
func renderButton(i int, b chat.Button) (discordgo.Button, error) {
	if b.Data == "" || len(b.Data) > maxCustomID {
		return discordgo.Button{}, fmt.Errorf("discord button %d payload is %d bytes; Discord takes 1 to %d", i, len(b.Data), maxCustomID)
	}
	label := strings.TrimSpace(b.Label)
	if label == "" {
		label = strconv.Itoa(i + 1)
	}
	if utf8.RuneCountInString(label) > maxLabel {
		label = string([]rune(label)[:maxLabel-1]) + "…"
	}
	style := discordgo.SecondaryButton
	switch b.Style {
	case chat.ButtonPrimary:
		style = discordgo.SuccessButton
	case chat.ButtonDanger:
		style = discordgo.DangerButton
	}
	return discordgo.Button{Label: label, Style: style, CustomID: b.Data}, nil
}

// noMentions lets a message notify nobody: not @everyone / @here, roles,
// users, nor the author of the message it replies to. Model text is
// untrusted; the bot addresses people by name, and pings only the
// Mentions of a message (withMentions adds them).
func noMentions() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}
