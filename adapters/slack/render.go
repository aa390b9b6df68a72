package slack

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackutilsx"

	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

// Slack's limits that rendering must respect
// (docs/platforms.md#slack-text-limits, docs/platforms.md#slack-buttons).
const (
	// maxLen: chat.update fails with msg_too_long past 4,000 characters,
	// and every message may be edited later, so 4,000 is the limit for
	// posts too.
	maxLen = 4000
	// splitAt leaves headroom below maxLen for the core's splitter.
	splitAt = 3900
	// maxSectionText is a section block's text limit.
	maxSectionText = 3000
	// maxBlocks is a message's block limit.
	maxBlocks = 50
	// buttonsPerRow: an actions block takes up to 25 elements, but more
	// than a handful in one row wrap unreadably on phones.
	buttonsPerRow = 5
	// maxButtonLabel and maxButtonValue are Block Kit's button limits.
	maxButtonLabel = 75
	maxButtonValue = 2000

	// buttonActionPrefix starts every button's action_id, so a click can
	// be told from other apps' interactive elements and each button in a
	// message has a distinct id (Slack requires that).
	buttonActionPrefix = "parley_button_"
	actionsBlockPrefix = "parley_actions_"
	textBlockPrefix    = "parley_text_"
)

// rendered is an Out as Slack takes it.
type rendered struct {
	// text is mrkdwn: the message itself without buttons, the
	// notification fallback with them.
	text string
	// blocks is nil for a plain text message.
	blocks []slack.Block
}

// renderOut turns out into Slack mrkdwn and, with buttons, Block Kit.
// Over-long text is an error, never truncated: the core splits answers
// at SplitAt, so a longer text is a bug upstream, and silently losing its
// end would hide it.
func renderOut(out chat.Out) (rendered, error) {
	text := renderText(out)
	if n := format.UTF16Len(text); n > maxLen {
		return rendered{}, fmt.Errorf("slack message of %d characters exceeds the %d Slack allows for editable messages", n, maxLen)
	}
	r := rendered{text: text}
	if len(out.Buttons) == 0 {
		return r, nil
	}
	for i, chunk := range chunkUTF16(text, maxSectionText) {
		r.blocks = append(r.blocks, slack.NewSectionBlock(
			slack.NewTextBlockObject(slack.MarkdownType, chunk, false, false), nil, nil,
			slack.SectionBlockOptionBlockID(textBlockPrefix+strconv.Itoa(i))))
	}
	for row := 0; row*buttonsPerRow < len(out.Buttons); row++ {
		var elems []slack.BlockElement
		for i := row * buttonsPerRow; i < min(len(out.Buttons), (row+1)*buttonsPerRow); i++ {
			b, err := renderButton(i, out.Buttons[i])
			if err != nil {
				return rendered{}, err
			}
			elems = append(elems, b)
		}
		r.blocks = append(r.blocks, slack.NewActionBlock(actionsBlockPrefix+strconv.Itoa(row), elems...))
	}
	if len(r.blocks) > maxBlocks {
		return rendered{}, fmt.Errorf("slack message needs %d blocks for %d buttons; Slack allows %d", len(r.blocks), len(out.Buttons), maxBlocks)
	}
	return r, nil
}

// renderText renders out's Markdown as mrkdwn, after its Mentions. The
// plain form (the core asks for it after a formatting rejection) still
// needs &, < and > escaped, or a model-written <!channel> would notify a
// channel.
func renderText(out chat.Out) string {
	text := format.Slack(out.Text)
	if out.Plain {
		text = escapeText(format.Plain(out.Text))
	}
	return withMentions(out, text)
}

// escapeText makes text notify nobody: <!channel>, <@U…> and the like
// lose their brackets, @channel, @here and @everyone their match.
func escapeText(text string) string {
	return format.NeutralizeMentions(slackutilsx.EscapeMessage(text))
}

// withMentions puts out's Mentions before the rendered text: <@ID>, which
// notifies the person. They are added after the text is escaped, so the
// escaping that defuses mention syntax in the text leaves them whole. An
// ID Slack would not read as a user id is shown as @Name, escaped, which
// notifies nobody (Parley never asks Slack to parse names).
func withMentions(out chat.Out, text string) string {
	return out.WithMentions(text, func(u chat.User) string {
		if slackUserID(u.ID) {
			return "<@" + u.ID + ">"
		}
		return escapeText("@" + cmp.Or(u.Name, u.ID))
	})
}

// slackUserID reports whether id can stand in <@…>: Slack's ids are
// capital letters and digits (U…, W…), and anything else could close the
// mention early and smuggle in <!channel>.
func slackUserID(id string) bool {
	return id != "" && !strings.ContainsFunc(id, func(c rune) bool { return (c < 'A' || c > 'Z') && (c < '0' || c > '9') })
}

// renderButton makes the i-th button. Its value is the payload the click
// brings back; a label too long for Slack is shortened rather than
// failing the message, since it is only decoration.
func renderButton(i int, b chat.Button) (*slack.ButtonBlockElement, error) {
	if len(b.Data) > maxButtonValue {
		return nil, fmt.Errorf("slack button %d payload is %d bytes; Slack allows %d", i, len(b.Data), maxButtonValue)
	}
	label := strings.TrimSpace(b.Label)
	if label == "" {
		label = strconv.Itoa(i + 1)
	}
	if utf8.RuneCountInString(label) > maxButtonLabel {
		label = string([]rune(label)[:maxButtonLabel-1]) + "…"
	}
	e := slack.NewButtonBlockElement(buttonActionPrefix+strconv.Itoa(i), b.Data,
		slack.NewTextBlockObject(slack.PlainTextType, label, false, false))
	switch b.Style {
	case chat.ButtonPrimary:
		e.Style = slack.StylePrimary
	case chat.ButtonDanger:
		e.Style = slack.StyleDanger
	}
	return e, nil
}

// chunkUTF16 cuts s into pieces of at most limit UTF-16 units, preferring
// line ends, then spaces, so section blocks break where a reader would.
func chunkUTF16(s string, limit int) []string {
	if s == "" {
		return nil
	}
	var out []string
	for format.UTF16Len(s) > limit {
		// The longest prefix within the limit, on a rune boundary.
		end, units := 0, 0
		for end < len(s) {
			r, size := utf8.DecodeRuneInString(s[end:])
			u := 1
			if r >= 0x10000 {
				u = 2
			}
			if units+u > limit {
				break
			}
			units += u
			end += size
		}
		cut := end
		if i := strings.LastIndexByte(s[:end], '\n'); i > 0 {
			cut = i + 1
		} else if i := strings.LastIndexByte(s[:end], ' '); i > 0 {
			cut = i + 1
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}

// noUnfurls is on every message Parley posts: Slack would otherwise fetch
// a link or an image in it for a preview, and a link the model wrote after
// reading a poisoned page can carry data in its address to whoever serves
// it (docs/security.md, "Links that fetch themselves"). A fetch needs no
// click. chat.update takes no such option; Slack previews at posting.
func noUnfurls() []slack.MsgOption {
	return []slack.MsgOption{slack.MsgOptionDisableLinkUnfurl(), slack.MsgOptionDisableMediaUnfurl()}
}
