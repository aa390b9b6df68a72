package discord

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// Bounds of a recovery after a lost session: the channels with the most
// recent traffic, and one page of messages in each. A longer gap loses
// the rest, as it did before recovery existed, and says so in the log.
const (
	backfillChannels = 50
	backfillMessages = 50
	// backfillMaxWait caps a 429's wait: the recovery is best effort and
	// must not hold Run's shutdown for long.
	backfillMaxWait = 10 * time.Second
)

// activeChannel is the newest message the adapter saw in a channel, and
// the channel's guild: messages read over REST may not carry guild_id,
// and without it normalize would take them for DMs.
type activeChannel struct {
	lastID string
	guild  string
}

// noteSeen records m as the newest message of its channel, unless a
// newer one was noted already (handlers and recoveries run concurrently).
func (a *Adapter) noteSeen(m *discordgo.Message) {
	if m == nil || m.ID == "" || m.ChannelID == "" {
		return
	}
	a.active.Update(m.ChannelID, func(old activeChannel, ok bool) activeChannel {
		if !ok {
			return activeChannel{lastID: m.ID, guild: m.GuildID}
		}
		if snowflakeLess(old.lastID, m.ID) {
			old.lastID = m.ID
		}
		if old.guild == "" {
			old.guild = m.GuildID
		}
		return old
	})
}

// gap names what a recovery fills, in its log lines.
type gap string

const (
	gapLostSession gap = "the gateway session was lost"
	gapStopped     gap = "Parley was stopped"
)

// recoverGap hands h what the channels in active received after their
// last seen message, oldest first, through the path of live messages.
// It runs after a fresh READY that replaced a lost session
// (docs/platforms.md#discord-gateway-and-intents): Discord never dispatches
// what the lost session missed. Messages handled already come again with the
// same Key, which the core's inbox drops.
func (a *Adapter) recoverGap(ctx context.Context, h chat.Handler, active []adapterkit.Entry[string, activeChannel]) {
	a.backfill(ctx, h, active, gapLostSession)
}

// recoverRestart is recoverGap for the first READY of a process, from
// the channels State remembered (seen.go): what was sent while Parley
// was stopped, or crashed, is dispatched to no later session either.
func (a *Adapter) recoverRestart(ctx context.Context, h chat.Handler, active []adapterkit.Entry[string, activeChannel]) {
	a.backfill(ctx, h, active, gapStopped)
}

// backfill reads the channels in active, newest first, and hands over
// what followed each one's last seen message. Each channel's starting
// point was put in flight (beginSeen) before the new session's messages
// could be handled; it is let go once the channel is read, so that State
// never skips what the recovery has yet to hand over. A shutdown keeps
// it: the next start reads the channel again.
func (a *Adapter) backfill(ctx context.Context, h chat.Handler, active []adapterkit.Entry[string, activeChannel], what gap) {
	recovered, channels := 0, 0
	for _, e := range active {
		if ctx.Err() != nil {
			return
		}
		msgs, err := a.messagesAfter(ctx, e.Key, e.Val.lastID)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			a.log.Warn("cannot recover the messages of a channel sent while "+string(what),
				"channel", e.Key, "err", err)
			a.endSeen(ctx, e.Key, e.Val.guild, e.Val.lastID)
			continue
		}
		if len(msgs) == backfillMessages {
			a.log.Warn("more messages than recovered were sent in a channel while "+string(what),
				"channel", e.Key, "recovered", len(msgs))
		}
		for _, m := range msgs {
			if m.ChannelID == "" {
				m.ChannelID = e.Key
			}
			if m.GuildID == "" {
				m.GuildID = e.Val.guild
			}
			a.noteSeen(m)
			a.beginSeen(m.ChannelID, m.ID)
			a.handleMessage(ctx, h, m)
		}
		if ctx.Err() != nil {
			return
		}
		a.endSeen(ctx, e.Key, e.Val.guild, e.Val.lastID)
		recovered += len(msgs)
		if len(msgs) > 0 {
			channels++
		}
	}
	a.log.Info("recovered messages sent while "+string(what),
		"messages", recovered, "channels", channels, "checked", len(active))
}

// messagesAfter reads up to backfillMessages messages of channel after
// id, oldest first. A 429 is waited out once.
func (a *Adapter) messagesAfter(ctx context.Context, channel, id string) ([]*discordgo.Message, error) {
	const route = "GET /channels/{id}/messages"
	msgs, err := a.s.ChannelMessages(channel, backfillMessages, "", id, "", a.callOpts(ctx)...)
	err = wrap(route, err)
	if rl, ok := errors.AsType[*chat.RateLimitError](err); ok {
		if err := a.sleep(ctx, min(rl.RetryAfter, backfillMaxWait)); err != nil {
			return nil, err
		}
		msgs, err = a.s.ChannelMessages(channel, backfillMessages, "", id, "", a.callOpts(ctx)...)
		err = wrap(route, err)
	}
	if err != nil {
		return nil, err
	}
	// Discord lists newest first; handlers must see a conversation in order.
	msgs = slices.DeleteFunc(msgs, func(m *discordgo.Message) bool { return m == nil })
	slices.SortFunc(msgs, func(x, y *discordgo.Message) int { return compareSnowflakes(x.ID, y.ID) })
	return msgs, nil
}

// compareSnowflakes orders Discord ids, decimal numbers that grow with
// time, without parsing them: a longer id is a larger number.
func compareSnowflakes(a, b string) int {
	if c := cmp.Compare(len(a), len(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func snowflakeLess(a, b string) bool { return compareSnowflakes(a, b) < 0 }
