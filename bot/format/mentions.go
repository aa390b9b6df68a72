package format

import "strings"

// Slack and Discord notify a whole channel for @channel / @here / @everyone
// (and Slack for <!channel>, <!here>, <!everyone>). A model must never be
// able to do that, whether by accident or because a web page told it to.
//
// The <!…> forms cannot survive Slack rendering (< and > are escaped). The
// @ forms are broken by a zero-width joiner right after the @: the text
// looks the same, but neither platform matches the keyword any more. This
// is applied to the whole rendered message, code included (a mention is
// cheap to neutralize and expensive to get wrong); inside URLs the @ is
// percent-encoded instead (protectURLMentions) so links keep working.
// Discord adapters also set AllowedMentions; this is defense in depth.

// mentionBreaker is inserted after the @ of a mass mention.
const mentionBreaker = "\u200d" // ZERO WIDTH JOINER

// NeutralizeMentions inserts a zero-width joiner after the @ of every
// @channel, @here and @everyone (any case) in s. Slack and Discord output
// already has it applied; use it on text from [Plain] before sending it to
// Slack or Discord.
func NeutralizeMentions(s string) string {
	if strings.IndexByte(s, '@') < 0 {
		return s
	}
	var b strings.Builder
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '@' && massMentionAt(s[i+1:]) {
			b.WriteString(s[start : i+1])
			b.WriteString(mentionBreaker)
			start = i + 1
		}
	}
	if start == 0 {
		return s
	}
	b.WriteString(s[start:])
	return b.String()
}

// massMentionAt reports whether s starts with a mass-mention keyword, in
// any case.
func massMentionAt(s string) bool {
	for _, m := range [...]string{"channel", "here", "everyone"} {
		if len(s) >= len(m) && strings.EqualFold(s[:len(m)], m) {
			return true
		}
	}
	return false
}

// protectURLMentions percent-encodes the @ of a mass-mention keyword inside
// a URL (https://example.social/@everyone still works as %40everyone), so
// the final NeutralizeMentions pass leaves the URL intact.
func protectURLMentions(u string) string {
	if strings.IndexByte(u, '@') < 0 {
		return u
	}
	var b strings.Builder
	start := 0
	for i := 0; i < len(u); i++ {
		if u[i] == '@' && massMentionAt(u[i+1:]) {
			b.WriteString(u[start:i])
			b.WriteString("%40")
			start = i + 1
		}
	}
	if start == 0 {
		return u
	}
	b.WriteString(u[start:])
	return b.String()
}
