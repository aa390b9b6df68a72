package slack_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/parleybot/parley/adapters/slack"
	"github.com/parleybot/parley/adapters/slack/slacktest"
	"github.com/parleybot/parley/bot/bottest"
	"github.com/parleybot/parley/chat"
)

// TestConformance runs the adapter conformance suite against the real
// adapter wired to slacktest over the real wire protocols (Web API and
// Socket Mode).
func TestConformance(t *testing.T) {
	bottest.RunConformance(t, newSlackHarness)
}

// slackHarness is a bottest.Harness over slacktest and the real adapter.
type slackHarness struct {
	srv *slacktest.Server
	ad  *slack.Adapter

	mu     sync.Mutex
	nextCh int
}

func newSlackHarness(t *testing.T) bottest.Harness {
	// The fake's own rate limits are off (the suite provokes 429s only
	// through RateLimitNext); the bot's posts are echoed back, as Slack
	// does for an app subscribed to message.* events.
	srv := slacktest.NewServer(slacktest.WithoutRateLimits(), slacktest.WithEchoBotMessages())
	t.Cleanup(srv.Close)
	ad, err := slack.New(slack.Config{
		BotToken: srv.BotToken(),
		AppToken: srv.AppToken(),
		APIURL:   srv.URL + "/",
	})
	if err != nil {
		t.Fatalf("slack.New: %v", err)
	}
	return &slackHarness{srv: srv, ad: ad}
}

func (h *slackHarness) Adapter() chat.Adapter { return h.ad }

func (h *slackHarness) User(name string) chat.User {
	id := "U" + strings.ToUpper(name)
	h.srv.AddUser(id, name)
	return chat.User{Platform: "slack", ID: id, Name: name}
}

// dmChannel is the IM channel between the bot and user id.
func dmChannel(userID string) string { return "D" + userID }

func (h *slackHarness) Thread(kind bottest.ThreadKind, with chat.User) chat.Thread {
	team := h.srv.TeamID()
	if kind == bottest.DirectThread {
		ch := dmChannel(with.ID)
		h.srv.AddChannel(ch, ch, slacktest.IM)
		// A DM is one continuing conversation: no thread root
		// (normalize.go messageThread).
		return chat.Thread{Platform: "slack", Space: team, Chat: ch}
	}
	h.mu.Lock()
	h.nextCh++
	n := h.nextCh
	h.mu.Unlock()
	ch := fmt.Sprintf("CCONF%04d", n)
	h.srv.AddChannel(ch, fmt.Sprintf("conformance-%d", n), slacktest.Public)
	// The person starts the conversation; its thread is rooted at their
	// top-level message, which is what messages in it normalize to.
	root := h.srv.PostUserMessage(ch, with.ID, "starting a conversation", "")
	return chat.Thread{Platform: "slack", Space: team, Chat: ch, ID: root}
}

func (h *slackHarness) UserMessage(_ context.Context, m bottest.MessageSpec) (string, error) {
	if m.Thread.Chat == "" {
		return "", errors.New("slack harness: message without a channel")
	}
	if m.FromBot {
		if m.Twice {
			return "", errors.New("slack harness: slacktest cannot deliver a bot message twice")
		}
		botID := "B" + strings.TrimPrefix(m.From.ID, "U")
		return h.srv.PostBotMessage(m.Thread.Chat, botID, m.From.Name, m.Text, m.Thread.ID), nil
	}
	text := m.Text
	if m.Mention {
		text = "<@" + h.srv.BotUserID() + "> " + text
	}
	if m.Twice && !m.Mention {
		// Slack duplicates a mention as message + app_mention, which
		// PostUserMessage does; a retried envelope needs the adapter to
		// leave the first unacked, and slacktest cannot replay an acked
		// event.
		return "", errors.New("slack harness: slacktest cannot redeliver an acknowledged event (only the message + app_mention pair of a mention)")
	}
	return h.srv.PostUserMessage(m.Thread.Chat, m.From.ID, text, m.Thread.ID), nil
}

func (h *slackHarness) Click(_ context.Context, ref chat.MessageRef, button int, by chat.User) error {
	for _, m := range h.srv.Messages(ref.Thread.Chat) {
		if m.TS != ref.ID {
			continue
		}
		buttons := blockButtons(m.Blocks)
		if button < 0 || button >= len(buttons) {
			return fmt.Errorf("message %s has %d buttons, no button %d", ref.ID, len(buttons), button)
		}
		b := buttons[button]
		h.srv.Click(ref.Thread.Chat, m.TS, b.ActionID, b.Value, by.ID)
		return nil
	}
	return fmt.Errorf("no message %s in %s", ref.ID, ref.Thread.Chat)
}

func (h *slackHarness) Visible(t chat.Thread) []bottest.Visible {
	var msgs []slacktest.Message
	if t.ID == "" {
		// The conversation's main view: top-level messages.
		for _, m := range h.srv.Messages(t.Chat) {
			if m.ThreadTS == "" || m.ThreadTS == m.TS {
				msgs = append(msgs, m)
			}
		}
	} else {
		msgs = h.srv.Thread(t.Chat, t.ID)
	}
	var out []bottest.Visible
	for _, m := range msgs {
		if !h.isBots(m) {
			continue
		}
		v := bottest.Visible{ID: m.TS}
		v.Text, v.Bold, v.Code = showMessage(m)
		for _, b := range blockButtons(m.Blocks) {
			v.Buttons = append(v.Buttons, b.Label)
		}
		v.Pings = h.pings(m)
		v.Previews = h.unfurled(m)
		out = append(out, v)
	}
	return out
}

// isBots: the message was posted by this app (not a person, not another bot).
func (h *slackHarness) isBots(m slacktest.Message) bool {
	return m.BotID == h.srv.BotID() && m.User == h.srv.BotUserID()
}

func (h *slackHarness) PrivateTo(u chat.User) []string {
	var out []string
	for _, e := range h.srv.Ephemerals(u.ID) {
		text, _, _ := showContent(e.Text, "", e.Blocks)
		out = append(out, text)
	}
	for _, m := range h.srv.Messages(dmChannel(u.ID)) {
		if h.isBots(m) {
			text, _, _ := showMessage(m)
			out = append(out, text)
		}
	}
	return out
}

// RateLimitNext has the fake answer the op's next call with Slack's 429
// asking to retry after retryAfter; the fake records it and changes nothing.
func (h *slackHarness) RateLimitNext(op bottest.Op, retryAfter time.Duration) {
	method := "chat.postMessage"
	if op == bottest.OpEdit {
		method = "chat.update"
	}
	h.srv.FailNextRateLimited(method, 1, retryAfter)
}

func (h *slackHarness) RendersMarkdown() bool { return true }

// Pings: Slack notifies a channel for <!channel>, <!here>, <!everyone>
// (optionally with a |label), and for a bare @channel, @here, @everyone
// only when the call asked Slack to parse names (link_names, parse=full).
var (
	specialPing = regexp.MustCompile(`<!(channel|here|everyone)(\|[^>]*)?>`)
	literalPing = regexp.MustCompile(`(?i)(^|[^\pL\pN_])@(channel|here|everyone)\b`)
)

// unfurled reports whether Slack unfurls a link in m: a link in a message
// posted without both unfurl_links and unfurl_media false. Slack unfurls
// at posting; chat.update has no say.
func (h *slackHarness) unfurled(m slacktest.Message) bool {
	for _, c := range h.srv.Calls() {
		if c.Method != "chat.postMessage" || c.Status != http.StatusOK || !callTouches(c, m) {
			continue
		}
		if c.Params.Get("unfurl_links") != "false" || c.Params.Get("unfurl_media") != "false" {
			return strings.Contains(m.Visible(), "://") || strings.Contains(c.Params.Get("blocks"), "://")
		}
	}
	return false
}

// pings returns the mass mentions that notified people when m was posted
// or edited, from the calls that set its content.
func (h *slackHarness) pings(m slacktest.Message) []string {
	var out []string
	add := func(p string) {
		p = strings.ToLower(p)
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	for _, c := range h.srv.Calls() {
		if c.Status != http.StatusOK || !callTouches(c, m) {
			continue
		}
		parsed := c.Params.Get("parse") == "full" || c.Params.Get("link_names") == "1" || c.Params.Get("link_names") == "true"
		texts := []string{c.Params.Get("text"), c.Params.Get("markdown_text")}
		texts = append(texts, blockTexts(json.RawMessage(c.Params.Get("blocks")))...)
		for _, s := range texts {
			for _, sm := range specialPing.FindAllStringSubmatch(s, -1) {
				add(sm[1])
			}
			if parsed {
				for _, sm := range literalPing.FindAllStringSubmatch(s, -1) {
					add(sm[2])
				}
			}
		}
	}
	return out
}

// callTouches: c posted or edited m.
func callTouches(c slacktest.Call, m slacktest.Message) bool {
	switch c.Method {
	case "chat.update":
		return c.Params.Get("channel") == m.Channel && c.Params.Get("ts") == m.TS
	case "chat.postMessage":
		var r struct {
			OK      bool   `json:"ok"`
			Channel string `json:"channel"`
			TS      string `json:"ts"`
		}
		return json.Unmarshal(c.Response, &r) == nil && r.OK && r.Channel == m.Channel && r.TS == m.TS
	}
	return false
}

// button is a Block Kit button as stored with a message.
type button struct {
	ActionID, Value, Label string
}

// blockButtons returns the buttons of blocks, row by row, left to right.
func blockButtons(blocks json.RawMessage) []button {
	var bs []struct {
		Type     string `json:"type"`
		Elements []struct {
			Type     string `json:"type"`
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
			Text     struct {
				Text string `json:"text"`
			} `json:"text"`
		} `json:"elements"`
		Accessory *struct {
			Type     string `json:"type"`
			ActionID string `json:"action_id"`
			Value    string `json:"value"`
			Text     struct {
				Text string `json:"text"`
			} `json:"text"`
		} `json:"accessory"`
	}
	if len(blocks) == 0 || json.Unmarshal(blocks, &bs) != nil {
		return nil
	}
	var out []button
	for _, b := range bs {
		if a := b.Accessory; a != nil && a.Type == "button" {
			out = append(out, button{a.ActionID, a.Value, a.Text.Text})
		}
		if b.Type != "actions" {
			continue
		}
		for _, e := range b.Elements {
			if e.Type == "button" {
				out = append(out, button{e.ActionID, e.Value, e.Text.Text})
			}
		}
	}
	return out
}

// textBlock is a block that shows text: a section (mrkdwn or plain_text)
// or a markdown block (standard Markdown).
type textBlock struct {
	text     string
	markdown bool // standard Markdown rather than mrkdwn
	plain    bool // plain_text: shown as is
}

func parseTextBlocks(blocks json.RawMessage) []textBlock {
	var bs []struct {
		Type string          `json:"type"`
		Text json.RawMessage `json:"text"`
	}
	if len(blocks) == 0 || json.Unmarshal(blocks, &bs) != nil {
		return nil
	}
	var out []textBlock
	for _, b := range bs {
		switch b.Type {
		case "section", "header", "context":
			var obj struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if json.Unmarshal(b.Text, &obj) == nil && obj.Text != "" {
				out = append(out, textBlock{text: obj.Text, plain: obj.Type == "plain_text"})
			}
		case "markdown":
			var s string
			if json.Unmarshal(b.Text, &s) == nil {
				out = append(out, textBlock{text: s, markdown: true})
			}
		}
	}
	return out
}

func blockTexts(blocks json.RawMessage) []string {
	var out []string
	for _, b := range parseTextBlocks(blocks) {
		out = append(out, b.text)
	}
	return out
}

// showMessage is what a person reads in m, with its bold and code runs.
func showMessage(m slacktest.Message) (string, []string, []string) {
	return showContent(m.Text, m.MarkdownText, m.Blocks)
}

// showContent renders a message's content as Slack shows it: its text
// blocks when it has any (text is then only the notification fallback),
// else markdown_text as Markdown, else text as mrkdwn.
func showContent(text, markdown string, blocks json.RawMessage) (string, []string, []string) {
	if tbs := parseTextBlocks(blocks); len(tbs) > 0 {
		var sb strings.Builder
		var bold, code []string
		for _, tb := range tbs {
			if tb.plain {
				sb.WriteString(tb.text)
				continue
			}
			s, b, c := renderSlack(tb.text, tb.markdown)
			sb.WriteString(s)
			bold, code = append(bold, b...), append(code, c...)
		}
		return sb.String(), bold, code
	}
	if markdown != "" {
		return renderSlack(markdown, true)
	}
	return renderSlack(text, false)
}

// renderSlack interprets mrkdwn (or, with md, standard Markdown as in
// markdown_text): code fences and spans are shown literally and recorded as
// code, *bold* (Markdown **bold**) recorded as bold, _italic_ and ~strike~
// markers dropped, <…> links and mentions shown as their labels, and the
// &amp; &lt; &gt; escapes resolved.
func renderSlack(s string, md bool) (text string, bold, code []string) {
	var sb strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '`')
		if i < 0 {
			sb.WriteString(renderInline(s, md, &bold))
			break
		}
		sb.WriteString(renderInline(s[:i], md, &bold))
		s = s[i:]
		if strings.HasPrefix(s, "```") {
			if end := strings.Index(s[3:], "```"); end >= 0 {
				body := unescape(s[3 : 3+end])
				if md {
					// A Markdown fence's first line is its language.
					if nl := strings.IndexByte(body, '\n'); nl >= 0 {
						body = body[nl+1:]
					}
				}
				body = strings.Trim(body, "\n")
				sb.WriteString(body)
				code = append(code, body)
				s = s[3+end+3:]
				continue
			}
		}
		if end := strings.IndexByte(s[1:], '`'); end > 0 {
			body := unescape(s[1 : 1+end])
			sb.WriteString(body)
			code = append(code, body)
			s = s[1+end+1:]
			continue
		}
		sb.WriteByte('`')
		s = s[1:]
	}
	return sb.String(), bold, code
}

// renderInline renders text without code: links, then emphasis, then escapes.
func renderInline(s string, md bool, bold *[]string) string {
	return unescape(emphasis(links(s), md, bold))
}

// links replaces Slack's <…> forms with what they show.
func links(s string) string {
	var sb strings.Builder
	for {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		end := strings.IndexByte(s[i:], '>')
		if end < 0 {
			sb.WriteString(s)
			return sb.String()
		}
		sb.WriteString(s[:i])
		inner := s[i+1 : i+end]
		target, label, hasLabel := strings.Cut(inner, "|")
		switch {
		case strings.HasPrefix(target, "!"):
			name := strings.TrimPrefix(target, "!")
			if hasLabel {
				sb.WriteString(label)
			} else if strings.HasPrefix(name, "subteam^") {
				sb.WriteString("@group")
			} else {
				sb.WriteString("@" + name)
			}
		case strings.HasPrefix(target, "@"):
			if hasLabel {
				sb.WriteString("@" + label)
			} else {
				sb.WriteString(target)
			}
		case strings.HasPrefix(target, "#"):
			if hasLabel {
				sb.WriteString("#" + label)
			} else {
				sb.WriteString(target)
			}
		case hasLabel:
			sb.WriteString(label)
		default:
			sb.WriteString(target)
		}
		s = s[i+end+1:]
	}
}

// emphasis drops emphasis markers and records bold runs. A marker opens at
// the start or after a space or punctuation, before a non-space, and
// closes, on the same line, after a non-space and before the end, a space
// or punctuation.
func emphasis(s string, md bool, bold *[]string) string {
	type mark struct {
		m    string
		bold bool
	}
	marks := []mark{{"*", true}, {"_", false}, {"~", false}}
	if md {
		marks = []mark{{"**", true}, {"__", true}, {"~~", false}, {"*", false}, {"_", false}}
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		matched := false
		for _, mk := range marks {
			if !strings.HasPrefix(s[i:], mk.m) || !canOpen(s, i, len(mk.m)) {
				continue
			}
			j := findClose(s, i+len(mk.m), mk.m)
			if j < 0 {
				continue
			}
			inner := emphasis(s[i+len(mk.m):j], md, bold)
			if mk.bold {
				*bold = append(*bold, unescape(inner))
			}
			sb.WriteString(inner)
			i = j + len(mk.m)
			matched = true
			break
		}
		if !matched {
			sb.WriteByte(s[i])
			i++
		}
	}
	return sb.String()
}

func canOpen(s string, i, n int) bool {
	if i > 0 {
		r, _ := utf8.DecodeLastRuneInString(s[:i])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	r, _ := utf8.DecodeRuneInString(s[i+n:])
	return i+n < len(s) && !unicode.IsSpace(r)
}

func findClose(s string, from int, m string) int {
	for j := from + 1; j <= len(s)-len(m); j++ {
		if s[j] == '\n' {
			return -1
		}
		if !strings.HasPrefix(s[j:], m) {
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(s[:j])
		if unicode.IsSpace(before) {
			continue
		}
		if k := j + len(m); k < len(s) {
			after, _ := utf8.DecodeRuneInString(s[k:])
			if unicode.IsLetter(after) || unicode.IsDigit(after) {
				continue
			}
		}
		return j
	}
	return -1
}

func unescape(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
}
