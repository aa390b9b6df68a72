package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/internal/lazyre"
)

// Compaction defaults.
const (
	DefaultCompactAt = 0.6  // fraction of the context window
	snipOver         = 2000 // characters: tool results longer than this are snipped
	snipHead         = 1000
	snipTail         = 500
	tailShare        = 0.3 // of the budget, kept verbatim after a summary
	summaryMaxTokens = 1024
)

// SummaryPrefix starts the message that replaces a compacted history.
const SummaryPrefix = "[Summary of the earlier conversation]\n"

// CompactionInfo describes one compaction.
type CompactionInfo struct {
	Before, After int    // estimated prompt tokens
	Method        string // "snip", "model" or "extractive"
}

// compactor rewrites a history that no longer fits.
type compactor struct {
	r      *Runner
	budget int // prompt tokens allowed before compaction fires
}

func (r *Runner) compactor() (compactor, bool) {
	if r.ContextWindow <= 0 {
		return compactor{}, false
	}
	at := r.CompactAt
	if at <= 0 || at >= 1 {
		at = DefaultCompactAt
	}
	return compactor{r: r, budget: int(float64(r.ContextWindow) * at)}, true
}

// estimate is the calibrated prompt size of req with history.
func (c compactor) estimate(req llm.Request, history []llm.Message) int {
	req.Messages = history
	return c.r.cal.Scale(EstimateRequest(req))
}

// compact returns history rewritten to fit the budget, or history itself
// (and a nil info) when it already fits and force is false. force is set
// after the provider said the prompt overflowed: then something must go.
// The turn tier (compact_turn.go) goes first: a long turn's own steps are
// the one thing the tiers below never shorten enough.
func (c compactor) compact(ctx context.Context, req llm.Request, history []llm.Message, force bool) ([]llm.Message, *CompactionInfo) {
	history, turn := c.compactTurn(ctx, req, history, force)
	out, info := c.compactHistory(ctx, req, history, force)
	switch {
	case turn == nil:
		return out, info
	case info == nil:
		return out, turn
	}
	return out, &CompactionInfo{Before: turn.Before, After: info.After, Method: turn.Method + "+" + info.Method}
}

// compactHistory snips old tool results, then folds whole exchanges
// before the current one into a summary.
func (c compactor) compactHistory(ctx context.Context, req llm.Request, history []llm.Message, force bool) ([]llm.Message, *CompactionInfo) {
	before := c.estimate(req, history)
	if before <= c.budget && !force {
		return history, nil
	}
	// Snip first: every tool result before the newest batch, including those
	// of the current exchange (a long tool loop is the usual way to overflow).
	out, snipped := snip(history, 0, lastAssistant(history), snipLimits{snipOver, snipHead, snipTail})
	after := c.estimate(req, out)
	if snipped && after <= c.budget && !force {
		return out, &CompactionInfo{Before: before, After: after, Method: "snip"}
	}
	tail := c.tailBudget(req)
	if force {
		// The provider refused a prompt our estimate thought fitted: size the
		// tail by what was actually sent, not by the configured window.
		tail = min(tail, int(float64(after)*tailShare))
	}
	cut := tailStart(out, tail)
	if cut <= 0 { // nothing older than the current exchange to fold
		if snipped {
			return out, &CompactionInfo{Before: before, After: after, Method: "snip"}
		}
		return history, nil
	}
	summary, method := c.summarize(ctx, out[:cut])
	// The folded answers' usage stays in the session's accounting (the
	// /status cache line), carried by the summary's acknowledgement.
	if gone := imageLines(out[:cut], whyCompacted); gone != "" {
		// A picture folded away leaves its line, so "the second
		// screenshot" can still be told apart from one never sent.
		summary += "\n" + gone
	}
	folded := append([]llm.Message{
		{Role: llm.RoleUser, Text: SummaryPrefix + summary},
		{Role: llm.RoleAssistant, Text: "Understood. I will continue from this summary.", Usage: usageOf(out[:cut])},
	}, out[cut:]...)
	if size := c.estimate(req, folded); size >= after {
		// A summary longer than what it replaces (a short head) helps no one.
		if snipped {
			return out, &CompactionInfo{Before: before, After: after, Method: "snip"}
		}
		return history, nil
	}
	return folded, &CompactionInfo{Before: before, After: c.estimate(req, folded), Method: method}
}

// tailBudget is how many tokens of recent history to keep verbatim.
func (c compactor) tailBudget(req llm.Request) int {
	req.Messages = nil
	return max(int(float64(c.budget)*tailShare)-c.estimate(req, nil)/4, 0)
}

// tailStart picks where the verbatim tail begins: the earliest user message
// such that the tail fits in budget, but never later than the last user
// message (the current request stays whole). A tail never starts with a
// tool result or between a call and its result, because it starts at a user
// message. -1 when there is no user message.
func tailStart(history []llm.Message, budget int) int {
	cut, size := -1, 0
	for i := len(history) - 1; i >= 0; i-- {
		size += EstimateMessage(history[i])
		// A turn's summary or check prompt is no place to cut: the person's
		// message that began the turn would be folded away before them.
		if history[i].Role != llm.RoleUser || inTurnMark(history[i]) {
			continue
		}
		if cut >= 0 && size > budget {
			break
		}
		cut = i
	}
	return cut
}

// snipLimits say which tool results are snipped (longer than over
// characters) and how much of them stays (head and tail characters).
type snipLimits struct{ over, head, tail int }

// snip shortens long tool results in [from, end), keeping head and tail,
// and leaves only placeholders of their pictures: old tool output is the
// bulkiest and least valuable part of a history.
func snip(history []llm.Message, from, end int, lim snipLimits) ([]llm.Message, bool) {
	out := slices.Clone(history)
	changed := false
	for i := max(from, 0); i < min(max(end, 0), len(out)); i++ {
		m := &out[i]
		if m.Role == llm.RoleTool && len(m.Images) > 0 {
			*m = m.WithoutImages(whyCompacted)
			changed = true
		}
		if m.Role != llm.RoleTool || utf8.RuneCountInString(m.Text) <= lim.over {
			continue
		}
		r := []rune(m.Text)
		m.Text = fmt.Sprintf("%s\n[… %d characters snipped …]\n%s", string(r[:lim.head]), len(r)-lim.head-lim.tail, string(r[len(r)-lim.tail:]))
		changed = true
	}
	return out, changed
}

const summaryInstructions = `You compact a conversation between a user and an AI assistant so the assistant can continue it. ` +
	`Write a concise summary in the conversation's language: the user's goals, decisions made, facts learned, ` +
	`files, URLs and commands that matter, errors met and how they were handled, and open questions or next steps. ` +
	`Do not invent anything. Output only the summary.`

// summarize asks the model for a summary of head, falling back to an
// extractive one when the call fails: compaction must never be the reason
// a conversation gets stuck.
func (c compactor) summarize(ctx context.Context, head []llm.Message) (string, string) {
	summary, err := c.modelSummary(ctx, summaryInstructions, head)
	if err == nil {
		return summary, "model"
	}
	if ctx.Err() == nil {
		c.r.logger().Warn("summary call failed; using an extractive summary", "err", err)
	}
	return ExtractiveSummary(head), "extractive"
}

// modelSummary asks the model to summarise head as instructions say.
func (c compactor) modelSummary(ctx context.Context, instructions string, head []llm.Message) (string, error) {
	transcript := renderTranscript(head)
	// The summary request must itself fit: keep the newest part of an
	// enormous head (the extractive fallback still sees all of it).
	if limit := c.r.ContextWindow / 2; EstimateTokens(transcript) > limit {
		transcript = "[… older part omitted …]\n" + tailRunes(transcript, limit*2)
	}
	resp, err := llm.Collect(c.r.Provider.Stream(ctx, llm.Request{
		System:    instructions,
		Messages:  []llm.Message{{Role: llm.RoleUser, Text: transcript}},
		MaxTokens: summaryMaxTokens,
	}))
	if err != nil {
		return "", fmt.Errorf("summary call: %w", err)
	}
	if strings.TrimSpace(resp.Text) == "" {
		return "", errors.New("summary call: empty answer")
	}
	return strings.TrimSpace(resp.Text), nil
}

func tailRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}

// renderTranscript writes messages as plain text for the summarizer.
func renderTranscript(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleUser:
			fmt.Fprintf(&b, "User%s: %s\n", authorSuffix(m.Author), m.Text)
			for _, img := range m.Images {
				fmt.Fprintf(&b, "%s\n", img.Placeholder("attached by the user"))
			}
		case llm.RoleAssistant:
			if m.Text != "" {
				fmt.Fprintf(&b, "Assistant: %s\n", m.Text)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "Assistant called %s(%s)\n", c.Name, c.Arguments)
			}
		case llm.RoleTool:
			status := "result"
			if m.IsError {
				status = "error"
			}
			fmt.Fprintf(&b, "Tool %s %s: %s\n", m.ToolName, status, m.Text)
			for _, img := range m.Images {
				fmt.Fprintf(&b, "%s\n", img.Placeholder("returned by the tool"))
			}
		}
	}
	return b.String()
}

func authorSuffix(a string) string {
	if a == "" {
		return ""
	}
	return " (" + a + ")"
}

var (
	urlPattern      = lazyre.MustCompile(`https?://[^\s<>()"'\x60]+`)
	pathPattern     = lazyre.MustCompile(`(?:^|[\s(\x60"'])((?:\.{1,2}/|~/|/)?(?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8})\b`)
	decisionPattern = lazyre.MustCompile(`(?i)\b(decided|decision|agreed|we will|we'll|let's go with|conclusion)\b|决定|结论|決定|結論`)
)

// ExtractiveSummary keeps what matters most from msgs without a model:
// files, URLs, errors, decisions and open questions, plus where the
// conversation started and where it stood.
func ExtractiveSummary(msgs []llm.Message) string {
	var urls, paths, errs, decisions, questions []string
	add := func(list *[]string, s string) {
		s = strings.TrimSpace(s)
		if s != "" && !slices.Contains(*list, s) && len(*list) < 20 {
			*list = append(*list, s)
		}
	}
	firstUser, lastAnswer := "", ""
	for _, m := range msgs {
		text := m.Text
		for _, c := range m.ToolCalls {
			text += "\n" + string(c.Arguments)
		}
		for _, u := range urlPattern().FindAllString(text, -1) {
			add(&urls, strings.TrimRight(u, ".,;:!?"))
		}
		for _, p := range pathPattern().FindAllStringSubmatch(text, -1) {
			if !strings.Contains(p[1], "://") {
				add(&paths, p[1])
			}
		}
		switch {
		case m.Role == llm.RoleTool && m.IsError:
			add(&errs, m.ToolName+": "+clip(firstLine(m.Text), 200))
		case m.Role == llm.RoleUser:
			if firstUser == "" {
				firstUser = clip(text, 300)
			}
			for _, line := range strings.Split(text, "\n") {
				if t := strings.TrimSpace(line); strings.HasSuffix(t, "?") || strings.HasSuffix(t, "？") {
					add(&questions, clip(t, 200))
				}
			}
		case m.Role == llm.RoleAssistant && m.Text != "":
			lastAnswer = clip(m.Text, 400)
		}
		if m.Role != llm.RoleTool {
			for _, line := range strings.Split(m.Text, "\n") {
				if decisionPattern().MatchString(line) {
					add(&decisions, clip(line, 200))
				}
			}
		}
	}
	var b strings.Builder
	b.WriteString("(extractive summary: the model was unavailable)\n")
	if firstUser != "" {
		fmt.Fprintf(&b, "Started with: %s\n", firstUser)
	}
	for _, sec := range []struct {
		title string
		items []string
	}{{"Decisions", decisions}, {"Files", paths}, {"URLs", urls}, {"Errors", errs}, {"Open questions", questions}} {
		if len(sec.items) > 0 {
			fmt.Fprintf(&b, "%s:\n- %s\n", sec.title, strings.Join(sec.items, "\n- "))
		}
	}
	if lastAnswer != "" {
		fmt.Fprintf(&b, "Last answer: %s\n", lastAnswer)
	}
	return b.String()
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// usageOf is what the answers among msgs cost together, nil if nothing
// was recorded.
func usageOf(msgs []llm.Message) *llm.Usage {
	var sum llm.Usage
	for _, m := range msgs {
		if m.Usage != nil {
			sum = sum.Add(*m.Usage)
		}
	}
	if sum == (llm.Usage{}) {
		return nil
	}
	return &sum
}

// lastAssistant is the index of the last assistant message, 0 if none:
// the tool results after it are the newest and stay whole.
func lastAssistant(history []llm.Message) int {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == llm.RoleAssistant {
			return i
		}
	}
	return 0
}
