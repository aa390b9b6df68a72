package console

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/parleybot/parley/bot"
)

// reply writes one streamed answer to the terminal. A terminal cannot take
// text back, so Reset marks the restart instead of erasing.
type reply struct {
	out         io.Writer
	lines       <-chan string
	interactive bool
	midLine     bool // the cursor is not at the start of a line
	streamed    bool // some text of the answer has been written
}

var (
	_ bot.Reply     = (*reply)(nil)
	_ bot.Confirmer = (*reply)(nil)
)

func (r *reply) Delta(_ context.Context, text string) error {
	if text == "" {
		return nil
	}
	r.streamed = true
	r.midLine = !strings.HasSuffix(text, "\n")
	_, err := io.WriteString(r.out, text)
	return err
}

func (r *reply) Reset(ctx context.Context) error {
	r.endLine()
	r.streamed = false
	return r.Progress(ctx, "(the answer so far is discarded; starting again)")
}

func (r *reply) Progress(_ context.Context, status string) error {
	r.endLine()
	_, err := fmt.Fprintf(r.out, "  · %s\n", status)
	return err
}

// Finish prints the final text only when it was not streamed (a provider
// that does not stream, or a final answer after a reset with no deltas).
func (r *reply) Finish(_ context.Context, final string) error {
	if !r.streamed && final != "" {
		if _, err := io.WriteString(r.out, final); err != nil {
			return err
		}
		r.midLine = !strings.HasSuffix(final, "\n")
	}
	r.endLine()
	return nil
}

// Confirm asks y/N on the terminal; anything but y/yes denies, and so does
// the end of input or a cancelled turn.
func (r *reply) Confirm(ctx context.Context, p bot.ApprovalPrompt) (bool, error) {
	r.endLine()
	fmt.Fprintf(r.out, "Parley wants to run %s:\n  %s\nApprove? [y/N] ", p.Tool, p.Summary)
	select {
	case <-ctx.Done():
		fmt.Fprintln(r.out)
		return false, ctx.Err()
	case line, ok := <-r.lines:
		if !r.interactive {
			fmt.Fprintln(r.out, line)
		}
		answer := strings.ToLower(strings.TrimSpace(line))
		return ok && (answer == "y" || answer == "yes"), nil
	}
}

func (r *reply) endLine() {
	if r.midLine {
		fmt.Fprintln(r.out)
		r.midLine = false
	}
}
