package format

import (
	"strings"
	"unicode/utf8"
)

// Platform limits and the budgets Parley splits at, in each platform's
// unit. The split budgets leave headroom for the "(1/3)"-style markers and
// edits that delivery may add.
const (
	SlackMaxLen   = 4000 // chat.update fails with msg_too_long past this
	SlackSplitLen = 3900

	TelegramMaxLen   = 4096 // visible text after entity parsing, UTF-16 units
	TelegramSplitLen = 3900

	DiscordMaxLen   = 2000 // message content
	DiscordSplitLen = 1900
)

// MeasureSlack is the size of Slack(md). Slack and Discord document their
// limits in "characters" without saying which; UTF-16 units are never
// fewer than code points, so counting them is the safe reading.
func MeasureSlack(md string) int { return UTF16Len(Slack(md)) }

// MeasureTelegram is the visible length of TelegramHTML(md).
func MeasureTelegram(md string) int { return TelegramVisibleLen(TelegramHTML(md)) }

// MeasureDiscord is the size of Discord(md) (see MeasureSlack).
func MeasureDiscord(md string) int { return UTF16Len(Discord(md)) }

// UTF16Len returns the length of s in UTF-16 code units: the unit of
// Telegram's limits and entity offsets (and of JavaScript string lengths).
// Invalid UTF-8 bytes count as one unit each (they are sent as U+FFFD).
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// TelegramVisibleLen is UTF16Len(TelegramVisible(html)) without building
// the string: tags count nothing, a character reference counts as the
// character it stands for.
func TelegramVisibleLen(html string) int {
	n := 0
	visitTelegramText(html, func(s string) { n += UTF16Len(s) })
	return n
}

// visitTelegramText calls f with each run of visible text in html. A '<'
// that does not start a tag (no closing '>') is text, as is an '&' that
// does not start a character reference.
func visitTelegramText(html string, f func(string)) {
	start := 0
	for i := 0; i < len(html); i++ {
		switch html[i] {
		case '<':
			end := strings.IndexByte(html[i:], '>')
			if end < 0 {
				continue
			}
			if start < i {
				f(html[start:i])
			}
			i += end
			start = i + 1
		case '&':
			s, n := entityAt([]byte(html[i:min(len(html), i+48)]))
			if n == 0 {
				continue
			}
			if start < i {
				f(html[start:i])
			}
			f(s)
			i += n - 1
			start = i + 1
		}
	}
	if start < len(html) {
		f(html[start:])
	}
}
