package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/chat"
)

var _ chat.MemberChecker = (*Adapter)(nil)

// IsMember reports whether Discord user userID is in t's place now
// (chat.MemberChecker), for reminders that may ping only the people there.
//
//   - A guild conversation (t.Space is the guild, in a channel or a thread):
//     whether userID is a member of the guild, by GET
//     /guilds/{guild.id}/members/{user.id} (no privileged intent needed,
//     unlike listing members). 404 Unknown Member or Unknown User is no;
//     any other failure is an error (a 429 a *chat.RateLimitError).
//   - A DM (no t.Space): whether userID is the person the DM is with. The
//     adapter knows them from the gateway state, from a DM message they
//     wrote or one the bot opened with them (SendPrivate), else asks GET
//     /channels/{id}, whose recipients name them.
//
// Membership of the guild is the whole check: whether the member can see
// t's channel (role permissions, the channel's permission overwrites, a
// private thread's members) is not computed. The adapter computes no
// permissions anywhere, and doing it right needs the guild's roles, the
// member's roles and the overwrites of the channel and its parent. A
// member who cannot see the channel cannot read what pings them there
// (and Discord should not notify them of it; unconfirmed).
//
// A userID that is not a snowflake (empty included) names no Discord user,
// so it is no member: false, without a call. Ids go into REST paths
// unescaped (discordgo's Endpoint* functions), so nothing else may reach
// one.
func (a *Adapter) IsMember(ctx context.Context, t chat.Thread, userID string) (bool, error) {
	if t.Platform != "" && t.Platform != platform {
		return false, fmt.Errorf("discord: thread %v belongs to another platform", t)
	}
	if !isSnowflake(userID) {
		return false, nil
	}
	if t.Space == "" {
		if t.Chat == "" {
			return false, fmt.Errorf("discord: thread %v has no channel", t)
		}
		with, err := a.dmRecipient(ctx, t.Chat)
		if err != nil {
			return false, err
		}
		return with == userID, nil
	}
	return a.guildMember(ctx, t.Space, userID)
}

// guildMember asks Discord whether userID is a member of guild.
//
// It calls the route as discordgo's GuildMember does (same endpoint, same
// rate-limit bucket) but reads the answer itself: GuildMember dereferences
// the member it failed to decode, so an empty or garbled 200 (a proxy in
// between) would panic.
func (a *Adapter) guildMember(ctx context.Context, guild, userID string) (bool, error) {
	const route = "GET /guilds/{id}/members/{id}"
	if !isSnowflake(guild) {
		return false, fmt.Errorf("discord: %q is not a guild id", guild)
	}
	body, err := a.s.RequestWithBucketID(http.MethodGet, discordgo.EndpointGuildMember(guild, userID), nil,
		discordgo.EndpointGuildMember(guild, ""), a.callOpts(ctx)...)
	switch code, _ := restCode(err); {
	case err == nil:
	case code == discordgo.ErrCodeUnknownMember || code == discordgo.ErrCodeUnknownUser:
		return false, nil
	default:
		return false, wrap(route, err)
	}
	var m discordgo.Member
	if err := json.Unmarshal(body, &m); err != nil {
		return false, fmt.Errorf("discord %s: unreadable answer: %w", route, err)
	}
	if m.User == nil || m.User.ID != userID {
		return false, fmt.Errorf("discord %s: the answer is not the member asked about", route)
	}
	return true, nil
}

// dmRecipient is the user DM channel id is with.
func (a *Adapter) dmRecipient(ctx context.Context, id string) (string, error) {
	for _, sh := range a.shards {
		st := sh.s.State
		if c, err := st.Channel(id); err == nil {
			st.RLock()
			info := infoOf(c)
			st.RUnlock()
			if info.Recipient != "" {
				return info.Recipient, nil
			}
		}
	}
	if info, ok := a.chans.Get(id); ok && info.Recipient != "" {
		return info.Recipient, nil
	}
	c, err := a.s.Channel(id, a.callOpts(ctx)...)
	if err != nil {
		return "", wrap("GET /channels/{id}", err)
	}
	info := infoOf(c)
	if info.Recipient == "" {
		return "", errors.New("discord: channel " + id + " is not a direct message")
	}
	a.chans.Put(id, info)
	return info.Recipient, nil
}

// noteDM remembers that DM channel id is with user, so IsMember needs no
// call for it.
func (a *Adapter) noteDM(id, user string) {
	if id != "" && user != "" {
		a.chans.Put(id, chanInfo{Recipient: user})
	}
}
