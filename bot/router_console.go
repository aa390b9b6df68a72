package bot

import (
	"context"

	"github.com/parleybot/parley/chat"
)

// cmdConsole sends the caller, alone, a one-time link to the web console.
func (r *Router) cmdConsole(ctx context.Context, c chat.Command) error {
	if r.cfg.ConsoleLink == nil {
		return r.answerPrivately(ctx, c, chat.Out{Text: "The web console is off here (console.listen)."})
	}
	link, err := r.cfg.ConsoleLink(ctx, c.User.Key())
	if err != nil {
		return err
	}
	return r.answerPrivately(ctx, c, chat.Out{Text: "Your sign-in link to the console (one use, within 10 minutes; do not share it):\n" + link})
}
