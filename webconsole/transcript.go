package webconsole

import (
	"context"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/bot/approvals"
	"github.com/parleybot/parley/store"
)

// A transcript as the page shows it: each message, each tool call with
// the approval it needed and who decided it, the messages that steered a
// running turn marked as such, and what each turn's model calls cost.

// transcriptCosts bounds the cost rows one transcript reads: a
// conversation's calls, many more than any page shows turns for.
const transcriptCosts = 10_000

// entry is a transcript message as the page shows it.
type entry struct {
	store.TranscriptEntry
	// Calls are an answer's tool calls with their arguments indented.
	Calls []call
	// Steered: a person's message that reached a turn while it ran (it
	// follows a tool's result, not an answer).
	Steered bool
	// Cost is what the turn this message ends cost; nil but on a turn's
	// last message, or when costs are not kept.
	Cost *bot.CostSum
}

type call struct {
	Name, Arguments string
	// Approval is the approval the call needed; nil when none was asked.
	Approval *approvals.Record
}

// turnsOf prepares entries for the page, with the session's approvals
// and costs (nil: none kept).
func turnsOf(entries []store.TranscriptEntry, asked []approvals.Record, costs []bot.Cost) []entry {
	byCall := map[string]*approvals.Record{}
	for i := range asked {
		byCall[asked[i].ToolCallID] = &asked[i]
	}
	out := make([]entry, 0, len(entries))
	var starts []int // where each turn begins: a person's message that is not steering
	for i, e := range entries {
		v := entry{TranscriptEntry: e}
		for _, c := range e.ToolCalls {
			v.Calls = append(v.Calls, call{Name: c.Name, Arguments: indent(c.Arguments), Approval: byCall[c.ID]})
		}
		if e.Role == llm.RoleUser {
			v.Steered = i > 0 && entries[i-1].Role == llm.RoleTool
			if !v.Steered {
				starts = append(starts, i)
			}
		}
		out = append(out, v)
	}
	if costs == nil {
		return out
	}
	// A turn's calls are those from its message to the next turn's; the
	// cost shows on its last message.
	for k, start := range starts {
		end := len(out)
		until := time.Time{}
		if k+1 < len(starts) {
			end, until = starts[k+1], out[starts[k+1]].At
		}
		from := out[start].At
		if k == 0 {
			from = time.Time{} // what came before the first message (a resumed session's) is the first turn's
		}
		var sum bot.CostSum
		for _, c := range costs {
			if c.At.Before(from) || (!until.IsZero() && !c.At.Before(until)) {
				continue
			}
			sum.Calls++
			sum.Usage = sum.Usage.Add(c.Usage)
			sum.Nanos += c.Nanos
			if !c.Priced {
				sum.Unpriced++
			}
		}
		if sum.Calls > 0 {
			out[end-1].Cost = &sum
		}
	}
	return out
}

// transcriptExtras reads what the transcript shows beside its messages:
// the session's approvals, and its costs when they are kept.
func (s *Server) transcriptExtras(ctx context.Context, sessionID string) ([]approvals.Record, []bot.Cost, error) {
	asked, err := s.cfg.Data.SessionApprovals(ctx, sessionID)
	if err != nil {
		return nil, nil, err
	}
	if s.cfg.Costs == nil {
		return asked, nil, nil
	}
	costs, err := s.cfg.Costs.Costs(ctx, bot.CostFilter{Session: sessionID}, transcriptCosts)
	if costs == nil && err == nil {
		costs = []bot.Cost{} // kept, none yet
	}
	return asked, costs, err
}
