package bot

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/randid"
)

// /memory clear asks for a confirmation button; its payload is a one-time
// token held in the KV store, never the user.

// clearMemoryTTL bounds how long a confirmation button stays valid.
const clearMemoryTTL = 10 * time.Minute

// askClearMemory asks the caller, privately, to confirm with a button.
// Where the platform has no buttons, the text form confirms instead.
func (r *Router) askClearMemory(ctx context.Context, c chat.Command) error {
	a, ok := r.adapters[c.Thread.Platform]
	if !ok || !a.Capabilities().Buttons {
		out, err := r.cfg.Commands.Command(ctx, c) // asks for "/memory clear yes"
		if err != nil {
			return err
		}
		return r.answerPrivately(ctx, c, chat.Out{Text: out})
	}
	token := randid.New()
	expires := r.cfg.Now().Add(clearMemoryTTL).Unix()
	if err := r.cfg.KV.Set(ctx, "memclear:"+token, c.User.Key()+"|"+strconv.FormatInt(expires, 10)); err != nil {
		return err
	}
	return r.answerPrivately(ctx, c, chat.Out{
		Text:    "This forgets everything I remember about you. Are you sure?",
		Buttons: []chat.Button{{Label: "Forget everything", Style: chat.ButtonDanger, Data: clearMemoryData + token}},
	})
}

// confirmClearMemory acts on the button: only the person who asked, only
// once, only before it expires.
func (r *Router) confirmClearMemory(ctx context.Context, a chat.Action) error {
	tell := func(text string) error { return r.cfg.Outbound.Tell(ctx, a, text) }
	key := "memclear:" + strings.TrimPrefix(a.Data, clearMemoryData)
	v, ok, err := r.cfg.KV.Get(ctx, key)
	if err != nil {
		return err
	}
	owner, exp, _ := strings.Cut(v, "|")
	expires, perr := strconv.ParseInt(exp, 10, 64)
	if !ok || perr != nil || r.cfg.Now().Unix() > expires {
		return tell(msgButtonInvalid)
	}
	if owner != a.User.Key() {
		return tell("Only the person who asked can confirm this.")
	}
	if err := r.cfg.KV.Set(ctx, key, "used"); err != nil {
		return err
	}
	out, err := r.cfg.Commands.Command(ctx, chat.Command{Thread: a.Thread, User: a.User, Name: "memory", Args: []string{"clear", "yes"}})
	if err != nil {
		return err
	}
	return tell(out)
}
