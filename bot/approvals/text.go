package approvals

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

// The approval message is Markdown that the adapter renders. Its first line
// is ours alone: the state (needed, approved by, denied by, expired), the
// tool and who asked. The summary is the model's text, so it goes inside a
// fenced code block where no Markdown applies: it can neither fake that
// first line ("✅ **Approved**") nor ping anyone (@everyone, <!channel>).
// Display names come from the platforms and are escaped too.

// maxNameLen bounds a display name; zeroWidthSp breaks mentions and fences.
const (
	maxNameLen  = 64
	zeroWidthSp = "\u200b"
)

// approvalMessages renders rec as the messages that show it. The summary
// is shown whole — a cut tail ("… | sh") is where a bad command hides. When
// it fits one message with the rest, that is the one message; otherwise the
// summary goes first, over as many messages as it needs, each a code block
// of its own, and the last message carries the state, the risks and who may
// decide (the buttons go under it).
func approvalMessages(rec Record, expiry time.Duration, caps chat.Capabilities) []string {
	whole := renderApproval(rec, expiry, 0, "")
	if caps.MaxLen <= 0 || caps.Size(whole) <= caps.MaxLen {
		return []string{whole}
	}
	chunks := summaryChunks(rec.Summary, caps)
	out := make([]string, 0, len(chunks)+1)
	for i, c := range chunks {
		block, _ := format.CodeBlock(c, -1)
		out = append(out, fmt.Sprintf("`%s`, part %d of %d:\n%s", toolName(rec.ToolName), i+1, len(chunks), block))
	}
	return append(out, renderApproval(rec, expiry, len(chunks), ""))
}

// approvalStatus is the message that carries an approval's state: the
// last of approvalMessages, for a record shown in parts messages, decided
// via somewhere other than its buttons when via is set. A decided state is
// no longer than the pending one (the line saying who may decide goes, and
// is longer than " (console)"), so it fits where the pending one did.
func approvalStatus(rec Record, expiry time.Duration, parts int, via string) string {
	return renderApproval(rec, expiry, max(parts-1, 0), via)
}

// summaryChunks cuts s into pieces that each fit a message as a code block,
// at line ends where it can.
func summaryChunks(s string, caps chat.Capabilities) []string {
	size := caps.MaxLen - 100
	for size > 50 {
		chunks := cutRunes(s, size)
		fits := true
		for _, c := range chunks {
			block, _ := format.CodeBlock(c, -1)
			if caps.Size("`x`, part 99 of 99:\n"+block) > caps.MaxLen {
				fits = false
				break
			}
		}
		if fits {
			return chunks
		}
		size = size * 3 / 4
	}
	return cutRunes(s, 50)
}

// cutRunes cuts s into pieces of at most n runes, preferring to end each at
// a line break in its second half.
func cutRunes(s string, n int) []string {
	var out []string
	for s != "" {
		r := []rune(s)
		if len(r) <= n {
			return append(out, s)
		}
		end := n
		for k := n; k > n/2; k-- {
			if r[k-1] == '\n' {
				end = k
				break
			}
		}
		out = append(out, string(r[:end]))
		s = string(r[end:])
	}
	return out
}

// renderApproval is the message with rec's state. above is how many
// messages before it show the summary; 0 shows it here. via, when set,
// says where it was decided ("Approved by Ana (console)"); it is not
// stored, since the message is rendered decided only once, by the decider.
func renderApproval(rec Record, expiry time.Duration, above int, via string) string {
	var b strings.Builder
	asked := "`" + toolName(rec.ToolName) + "` · asked by " + inlineText(requesterName(rec))
	decider := inlineText(deciderName(rec))
	if via != "" {
		decider += " (" + inlineText(via) + ")"
	}
	switch rec.Status {
	case StatusApproved:
		fmt.Fprintf(&b, "✅ **Approved by %s** · %s\n", decider, asked)
	case StatusDenied:
		fmt.Fprintf(&b, "❌ **Denied by %s** · %s\n", decider, asked)
	case StatusExpired:
		fmt.Fprintf(&b, "⌛ **Expired**: no one decided in time, so it did not run · %s\n", asked)
	default:
		if rec.Private {
			fmt.Fprintf(&b, "🔐 **Your confirmation needed** · %s\n"+
				"This conversation read text from outside (a page, a document, a tool's result or someone else's message), "+
				"and the call below sends data to a place you never wrote. Allow it only if you asked for exactly this:\n", asked)
		} else {
			fmt.Fprintf(&b, "🔐 **Approval needed** · %s\n", asked)
		}
	}
	if above == 0 {
		block, _ := format.CodeBlock(rec.Summary, -1)
		b.WriteString(block)
	} else {
		fmt.Fprintf(&b, "_The whole call is in the %d message(s) above._", above)
	}
	for _, r := range rec.Risks {
		// The tool's own words, from a fixed list: no escaping needed,
		// but kept on one line.
		fmt.Fprintf(&b, "\n⚠️ **Risky:** %s", oneLine(r))
	}
	if rec.Status == StatusPending {
		if rec.Private {
			fmt.Fprintf(&b, "\nOnly you can decide; no one else sees this. Expires in %s.", format.Duration(expiry))
		} else if rec.Mandatory {
			fmt.Fprintf(&b, "\nOnly an approver can approve this; %s can deny it. Expires in %s.",
				inlineText(requesterName(rec)), format.Duration(expiry))
		} else {
			fmt.Fprintf(&b, "\nOnly %s or an approver can decide. Expires in %s.",
				inlineText(requesterName(rec)), format.Duration(expiry))
		}
	}
	return b.String()
}

// notAllowedText tells a clicker who may decide. Private answers may be
// shown as plain text (a Telegram callback alert), so it has no Markdown.
func notAllowedText(rec Record) string {
	if rec.Private {
		return "Only " + plainText(requesterName(rec)) + " can decide this."
	}
	if rec.Mandatory {
		return "Only an approver can approve this; " + plainText(requesterName(rec)) + " can deny it."
	}
	return "Only " + plainText(requesterName(rec)) + " or an approver can approve this."
}

// privateDecidedText tells the requester what their click on a private
// approval did.
func privateDecidedText(approve bool) string {
	if approve {
		return "Allowed: the call runs now."
	}
	return "Denied: the call does not run."
}

// alreadyDecidedText tells a late clicker what became of the approval.
func alreadyDecidedText(rec Record) string {
	switch rec.Status {
	case StatusApproved:
		return "Already approved by " + plainText(deciderName(rec)) + "."
	case StatusDenied:
		return "Already denied by " + plainText(deciderName(rec)) + "."
	case StatusExpired:
		return msgExpired
	}
	return msgNoLongerValid
}

func requesterName(rec Record) string {
	return displayName(rec.RequesterName, rec.Requester, "the requester")
}

func deciderName(rec Record) string {
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
func oneLine(s string) string { return format.Squash(s, maxNameLen) }

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
