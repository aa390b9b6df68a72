package slack

import (
	"context"
	"errors"
	"fmt"

	"github.com/slack-go/slack"

	"github.com/parleybot/parley/chat"
)

var _ chat.MemberChecker = (*Adapter)(nil)

// membersPage is how many members one conversations.members call asks
// for: Slack takes limits under 1000, so a channel of a few thousand
// costs a few calls of the method's Tier 4 budget (~100 a minute).
const membersPage = 999

// maxMembersPages bounds one check: a cursor that never ends (a Slack
// bug, a proxy) must not loop forever. 200 pages of 999 is far past any
// channel a bot answers in.
const maxMembersPages = 200

// IsMember reports whether the Slack user userID is a member of t's
// conversation now (chat.MemberChecker): conversations.members, page by
// page until userID turns up. It serves channels, private channels, group
// DMs and DMs alike (a DM's members are its person and the bot); it needs
// channels:read, groups:read, mpim:read and im:read respectively. A
// rate limit comes back as *chat.RateLimitError; an unknown channel, or a
// private one the bot is not in, as channel_not_found.
func (a *Adapter) IsMember(ctx context.Context, t chat.Thread, userID string) (bool, error) {
	if err := checkThread(t); err != nil {
		return false, err
	}
	if userID == "" {
		return false, nil // nobody: no call needed to know
	}
	page := a.membersPage
	if page <= 0 {
		page = membersPage
	}
	cursor := ""
	for range maxMembersPages {
		ids, next, err := a.api.GetUsersInConversationContext(ctx, &slack.GetUsersInConversationParameters{
			ChannelID: t.Chat, Cursor: cursor, Limit: page,
		})
		if err != nil {
			return false, wrap("conversations.members", err)
		}
		for _, id := range ids {
			if id == userID {
				return true, nil
			}
		}
		if next == "" {
			return false, nil
		}
		if next == cursor {
			return false, fmt.Errorf("slack conversations.members: %s: the same cursor came back twice", t.Chat)
		}
		cursor = next
	}
	return false, errors.New("slack conversations.members: " + t.Chat + ": more pages than any channel has; gave up")
}
