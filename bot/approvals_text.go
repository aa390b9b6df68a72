package bot

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The approval message is Markdown that the adapter renders. Its first line
// is ours alone: the state (needed, approved by, denied by, expired), the
// tool and who asked. The summary is the model's text, so it goes inside a
// fenced code block where no Markdown applies: it can neither fake that
// first line ("✅ **Approved**") nor ping anyone (@everyone, <!channel>).
// Display names come from the platforms and are escaped too.

// Length budget of the summary, in runes: the whole message must fit
// Discord's 2,000 characters; when an adapter measures more than its
// MaxLen, the summary is cut further, down to minSummary.
const (
	maxSummary  = 1200
	minSummary  = 200
	maxNameLen  = 64
	zeroWidthSp = "\u200b"
)

// approvalText renders rec in its current state for a platform with caps.
func approvalText(rec ApprovalRecord, expiry time.Duration, caps Capabilities) string {
	limit := maxSummary
	for {
		text := renderApproval(rec, expiry, limit)
		if caps.MaxLen <= 0 || measure(caps, text) <= caps.MaxLen || limit <= minSummary {
			return text
		}
		limit = max(minSummary, limit*3/4)
	}
}

func measure(caps Capabilities, text string) int {
	if caps.Measure != nil {
		return caps.Measure(text)
	}
	return utf8.RuneCountInString(text)
}

func renderApproval(rec ApprovalRecord, expiry time.Duration, limit int) string {
	var b strings.Builder
	asked := "`" + toolName(rec.ToolName) + "` · asked by " + inlineText(requesterName(rec))
	switch rec.Status {
	case ApprovalApproved:
		fmt.Fprintf(&b, "✅ **Approved by %s** · %s\n", inlineText(deciderName(rec)), asked)
	case ApprovalDenied:
		fmt.Fprintf(&b, "❌ **Denied by %s** · %s\n", inlineText(deciderName(rec)), asked)
	case ApprovalExpired:
		fmt.Fprintf(&b, "⌛ **Expired**: no one decided in time, so it did not run · %s\n", asked)
	default:
		fmt.Fprintf(&b, "🔐 **Approval needed** · %s\n", asked)
	}
	block, cut := codeBlock(rec.Summary, limit)
	b.WriteString(block)
	if cut > 0 {
		fmt.Fprintf(&b, "\n_(%d more characters not shown)_", cut)
	}
	if rec.Status == ApprovalPending {
		fmt.Fprintf(&b, "\nOnly %s or an admin can decide. Expires in %s.",
			inlineText(requesterName(rec)), humanDuration(expiry))
	}
	return b.String()
}

// notAllowedText tells a clicker who may decide. Private answers may be
// shown as plain text (a Telegram callback alert), so it has no Markdown.
func notAllowedText(rec ApprovalRecord) string {
	return "Only " + plainText(requesterName(rec)) + " or an admin can approve this."
}

// alreadyDecidedText tells a late clicker what became of the approval.
func alreadyDecidedText(rec ApprovalRecord) string {
	switch rec.Status {
	case ApprovalApproved:
		return "Already approved by " + plainText(deciderName(rec)) + "."
	case ApprovalDenied:
		return "Already denied by " + plainText(deciderName(rec)) + "."
	case ApprovalExpired:
		return msgExpired
	}
	return msgNoLongerValid
}

func requesterName(rec ApprovalRecord) string {
	return displayName(rec.RequesterName, rec.Requester, "the requester")
}

func deciderName(rec ApprovalRecord) string {
	return displayName(rec.DecidedByName, rec.DecidedBy, "someone")
}

// displayName is name, else the id part of the user key, else fallback.
func displayName(name, key, fallback string) string {
	if strings.TrimSpace(name) != "" {
		return name
	}
	if _, id, ok := strings.Cut(key, ":"); ok && id != "" {
		return id
	}
	return fallback
}

// codeBlock fences s so that it shows verbatim. Backtick runs are broken
// with zero-width spaces so that s cannot close the fence; controls and
// invisible format characters (bidi overrides that make a command read
// differently than it runs) show as U+FFFD. cut counts the runes past
// limit that were left out.
func codeBlock(s string, limit int) (block string, cut int) {
	s = strings.TrimRight(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var b strings.Builder
	b.WriteString("```\n")
	n := 0
	prevTick := false
	for _, r := range s {
		if n == limit {
			cut++
			continue
		}
		n++
		switch {
		case r == '\n' || r == '\t':
		case unicode.IsControl(r) || isHiddenFormat(r):
			r = utf8.RuneError
		}
		if r == '`' && prevTick {
			b.WriteString(zeroWidthSp)
		}
		prevTick = r == '`'
		b.WriteRune(r)
		if r == '@' || r == '<' {
			b.WriteString(zeroWidthSp) // "@everyone", "<!channel>", "<@U123>" no longer mention
		}
	}
	if strings.TrimSpace(s) == "" {
		b.WriteString("(no summary)")
	}
	b.WriteString("\n```")
	return b.String(), cut
}

// inlineText makes a display name safe inside the Markdown first line:
// one line, bounded, Markdown punctuation escaped and mentions broken.
func inlineText(s string) string {
	var b strings.Builder
	for _, r := range oneLine(s) {
		if r < utf8.RuneSelf && strings.ContainsRune("\\`*_[]<>()~|#!&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		if r == '@' || r == '<' {
			b.WriteString(zeroWidthSp)
		}
	}
	return b.String()
}

// plainText makes a display name safe in a plain-text private answer.
func plainText(s string) string {
	var b strings.Builder
	for _, r := range oneLine(s) {
		b.WriteRune(r)
		if r == '@' || r == '<' {
			b.WriteString(zeroWidthSp)
		}
	}
	return b.String()
}

// oneLine collapses whitespace and drops controls and invisible format
// characters, keeping at most maxNameLen runes.
func oneLine(s string) string {
	var b strings.Builder
	n, space := 0, false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if isHiddenFormat(r) {
			continue
		}
		if n == maxNameLen {
			b.WriteString("…")
			break
		}
		if space {
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// isHiddenFormat reports invisible format characters (Unicode Cf: bidi
// controls, zero-width spaces, tag characters), except the zero-width
// joiner that emoji sequences need.
func isHiddenFormat(r rune) bool {
	return r != '\u200d' && unicode.Is(unicode.Cf, r)
}

// toolName keeps a tool name to the characters tool names use, so it can
// sit in an inline code span.
func toolName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() == maxNameLen {
			break
		}
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_-.", r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "tool"
	}
	return b.String()
}

// humanDuration says d the way the approval message does: "10 min".
func humanDuration(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d min", d/time.Minute)
	case d >= time.Second && d%time.Second == 0 && d < time.Minute:
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.Round(time.Second).String()
}
