package agent

import (
	"context"
	"strings"

	"github.com/parleybot/parley/agent/llm"
)

// The turn tier (docs/tasks.md, "Long turns"). The history tier
// (compactHistory) folds whole exchanges and never cuts into the current
// one, so a task turn of sixty steps can outgrow the window on its own.
// When the current turn's traffic — everything after the message that
// began it — passes TurnTierShare of the compaction budget, its older
// steps are summarised by the model into one message marked
// TurnSummaryPrefix, and its newest steps stay verbatim.

// TurnTierShare is the fraction of the compaction budget (the window ×
// CompactAt) a turn's own traffic may reach before its older steps are
// summarised.
const TurnTierShare = 0.9

// TurnSummaryPrefix starts the message that replaces a turn's older
// steps: the model, a reader of the transcript and the console tell it
// from what a person wrote by it (IsSummary).
const TurnSummaryPrefix = "[Summary of this turn's earlier steps]\n"

// Compaction methods of the turn tier (CompactionInfo.Method).
const (
	MethodTurn     = "turn"      // older steps summarised by the model
	MethodTurnSnip = "turn-snip" // the summary call failed: older results snipped hard
	// The summary call failed and snipping was not enough: an extractive
	// summary (ExtractiveSummary) stands in for the older steps.
	MethodTurnExtractive = "turn-extractive"
)

// turnSnip is how hard the fallback snips: the turn must still fit when
// the model could not summarise it.
const (
	turnSnipOver = 600
	turnSnipHead = 300
	turnSnipTail = 200
)

const turnSummaryInstructions = `You compact the earlier steps of a task an AI assistant is in the middle of, ` +
	`so it can carry on with the newest steps it still sees. Write a concise summary in the task's language that keeps: ` +
	`the plan and which steps are done, decisions made and why, file names, paths, URLs and commands that matter, ` +
	`errors met and how they were handled, and facts later steps need. Drop verbose tool output. ` +
	`Do not invent anything. Output only the summary.`

// IsSummary reports whether a stored message is one compaction wrote in
// place of older ones (of the conversation or of a turn), and returns its
// text without the marker.
func IsSummary(m llm.Message) (string, bool) {
	if m.Role != llm.RoleUser {
		return m.Text, false
	}
	for _, p := range []string{SummaryPrefix, TurnSummaryPrefix} {
		if rest, ok := strings.CutPrefix(m.Text, p); ok {
			return rest, true
		}
	}
	return m.Text, false
}

// inTurnMark reports whether a user message is one the runner wrote inside
// a turn (its summary, the check prompt) rather than one that began it.
func inTurnMark(m llm.Message) bool {
	return m.Role == llm.RoleUser && (strings.HasPrefix(m.Text, TurnSummaryPrefix) || m.Text == CheckPrompt)
}

// turnStart is the index of the user message that began the current
// turn (a person's message or a steering one), -1 when there is none.
func turnStart(history []llm.Message) int {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == llm.RoleUser && !inTurnMark(history[i]) {
			return i
		}
	}
	return -1
}

// stepCut is where the verbatim part of the turn begun at start begins:
// the earliest assistant message after start such that it and all after it
// fit in budget, but never later than the last assistant message (the
// newest step stays whole). Cutting before an assistant message keeps
// every call with its results. start+1 or less means nothing to fold.
func stepCut(history []llm.Message, start, budget int) int {
	cut, size := -1, 0
	for i := len(history) - 1; i > start; i-- {
		size += EstimateMessage(history[i])
		if history[i].Role != llm.RoleAssistant {
			continue
		}
		if cut >= 0 && size > budget {
			break
		}
		cut = i
	}
	return cut
}

// compactTurn summarises the current turn's older steps when the turn's
// traffic passes the tier (or force, when the provider refused the
// prompt). A failed summary call falls back to snipping those steps'
// results hard, so the turn still fits.
func (c compactor) compactTurn(ctx context.Context, req llm.Request, history []llm.Message, force bool) ([]llm.Message, *CompactionInfo) {
	start := turnStart(history)
	if start < 0 {
		return history, nil
	}
	// Counted as the history tier would snip it: when snipping the long
	// results is enough, no model call is spent.
	tier := int(float64(c.budget) * TurnTierShare)
	if c.traffic(history, start) <= tier && !force {
		return history, nil
	}
	cut := stepCut(history, start, int(float64(c.budget)*tailShare))
	if cut <= start+1 || !hasToolResult(history[start+1:cut]) {
		return history, nil
	}
	before := c.estimate(req, history)
	head := history[start+1 : cut]
	summary, err := c.modelSummary(ctx, turnSummaryInstructions, head)
	method := MethodTurn
	if err != nil {
		if ctx.Err() == nil {
			c.r.logger().Warn("turn summary failed; snipping the turn's older results", "err", err)
		}
		out, snipped := snip(history, start+1, cut, snipLimits{turnSnipOver, turnSnipHead, turnSnipTail})
		if snipped && c.traffic(out, start) <= tier {
			return out, &CompactionInfo{Before: before, After: c.estimate(req, out), Method: MethodTurnSnip}
		}
		// Snipping is not enough (many short results): the steps give way
		// to what a summary without the model keeps, so the turn still fits.
		summary, method = ExtractiveSummary(head), MethodTurnExtractive
	}
	if gone := imageLines(head, whyCompacted); gone != "" {
		summary += "\n" + gone
	}
	out := make([]llm.Message, 0, start+2+len(history)-cut)
	out = append(out, history[:start+1]...)
	// The folded answers' usage stays in the session's accounting.
	out = append(out, llm.Message{Role: llm.RoleUser, Text: TurnSummaryPrefix + summary, Usage: usageOf(head)})
	out = append(out, history[cut:]...)
	after := c.estimate(req, out)
	if after >= before {
		// A summary longer than the steps it replaces helps no one.
		return history, nil
	}
	return out, &CompactionInfo{Before: before, After: after, Method: method}
}

// traffic is the calibrated size of the turn begun at start, its long
// results counted as the history tier snips them.
func (c compactor) traffic(history []llm.Message, start int) int {
	snipped, _ := snip(history, start+1, lastAssistant(history), snipLimits{snipOver, snipHead, snipTail})
	return c.r.cal.Scale(EstimateMessages(snipped[start+1:]))
}

func hasToolResult(msgs []llm.Message) bool {
	for _, m := range msgs {
		if m.Role == llm.RoleTool {
			return true
		}
	}
	return false
}
