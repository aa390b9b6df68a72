package bot

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/bot/outbound"
)

// show hands one event of a turn to its reply.
func show(ctx context.Context, r outbound.Reply, ev agent.Event) error {
	switch ev.Kind {
	case agent.EventText:
		return r.Delta(ctx, ev.Text)
	case agent.EventRetry:
		if ev.Retry.Reset {
			if err := r.Reset(ctx); err != nil {
				return err
			}
		}
		if ev.Retry.Model != "" {
			return r.Progress(ctx, fmt.Sprintf("model call failed (%v); continuing on %s", ev.Retry.Err, ev.Retry.Model))
		}
		return r.Progress(ctx, fmt.Sprintf("model call failed (%v); retrying in %s", ev.Retry.Err, ev.Retry.Wait.Round(100*time.Millisecond)))
	case agent.EventThinking:
		// Only a runner told to show thinking (llm.show_thinking) sends
		// it: its latest words, on the status line.
		return r.Progress(ctx, "💭 …"+lastWords(ev.Text, outbound.MaxStatusRunes-3))
	case agent.EventToolStart:
		return r.Progress(ctx, "running "+ev.Tool.Name+"…")
	case agent.EventToolEnd:
		if ev.IsError {
			return r.Progress(ctx, ev.Tool.Name+" failed: "+firstLine(ev.Result))
		}
	case agent.EventCheck:
		// The answer streamed so far is not final: the model checks its
		// plan first (agent/plan.go), then answers again.
		if err := r.Reset(ctx); err != nil {
			return err
		}
		return r.Progress(ctx, "checking the plan…")
	case agent.EventCompaction:
		what := "conversation compacted"
		if strings.HasPrefix(ev.Compaction.Method, agent.MethodTurn) {
			what = "earlier steps summarised" // the turn tier (agent/compact_turn.go)
		}
		return r.Progress(ctx, fmt.Sprintf("%s (%d → %d tokens)", what, ev.Compaction.Before, ev.Compaction.After))
	case agent.EventDone:
		return r.Finish(ctx, ev.Text)
	}
	return nil
}

// lastWords is the end of s on one line, at most n characters.
func lastWords(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	return string(r[max(len(r)-n, 0):])
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
