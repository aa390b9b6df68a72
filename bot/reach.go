package bot

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/chat"
)

// Whom Parley may call (ping) in a conversation on someone's say — a
// reminder for others, set now and delivered later: a member of the
// conversation's place who may use Parley there, checked when it is set
// and again when it goes out. One place decides it (mayCall); a platform
// that cannot tell who is in a place (no chat.MemberChecker) lets no one
// but the person asking be called.

var _ agent.Reach = (*Router)(nil)

// MayCall is mayCall for a turn's origin (agent.Reach).
func (r *Router) MayCall(ctx context.Context, o agent.Origin, userKey string) error {
	t := chat.Thread{Platform: o.Platform, Space: o.Space, Chat: o.Chat, ID: o.Thread}
	return r.mayCall(ctx, t, userOf(userKey), o.Direct, false)
}

// mayCall is nil when u may be called in t, or says why not, in words for
// the person who asked. self says u asked for it themselves (a reminder's
// owner): where the platform cannot check membership, they still may.
func (r *Router) mayCall(ctx context.Context, t chat.Thread, u chat.User, direct, self bool) error {
	who := u.ID
	if who == "" {
		who = "@" + u.Name
	}
	if u.Platform != t.Platform {
		return fmt.Errorf("%s is not a person of %s", who, t.Platform)
	}
	if !r.cfg.Access.Allowed(u, t) {
		return fmt.Errorf("%s may not use Parley here", who)
	}
	if u.ID == "" {
		// A Telegram @username: Telegram notifies its owner only if they
		// are in the group, so the platform enforces membership itself.
		if strings.HasPrefix(who, "@") && t.Platform == "telegram" {
			return nil
		}
		return fmt.Errorf("%s cannot be checked", who)
	}
	mc, ok := r.adapters[t.Platform].(chat.MemberChecker)
	if !ok && self {
		return nil
	}
	if !ok {
		return errors.New("this platform cannot tell me who is in this conversation, so I call only the person asking")
	}
	member, err := mc.IsMember(ctx, t, u.ID)
	if err != nil {
		r.log.Warn("check membership", "platform", t.Platform, "chat", t.Chat, "user", u.ID, "err", err)
		return fmt.Errorf("I could not check that %s is in this conversation; try again later", who)
	}
	if !member {
		if direct {
			return fmt.Errorf("%s is not in this private chat", who)
		}
		return fmt.Errorf("%s is not in this conversation", who)
	}
	return nil
}
