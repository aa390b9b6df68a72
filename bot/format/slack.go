package format

import "strings"

// Slack renders Markdown as Slack mrkdwn, for the paths where Parley cannot
// hand Slack the Markdown itself (markdown_text / markdown block):
//
//   - **b** → *b*, *i* → _i_, ~~s~~ → ~s~, inline code and fences (without
//     language; Slack ignores it);
//   - > quotes keep their prefix, lists become "• " / "1. " lines, headings
//     bold lines, tables an aligned monospace block, images and links
//     <url|text> (http, https and mailto only; other links become text);
//   - only &, < and > are escaped, which also defuses model-written
//     <!channel>, <!here>, <!everyone>, <@U…> and <#C…>;
//   - @channel, @here and @everyone get a zero-width joiner after the @
//     (see [NeutralizeMentions]) so they never notify anyone.
//
// mrkdwn has no escape character. A formatting character the model escaped
// on purpose (\*, \_, \~, \`) is written between two zero-width spaces so
// Slack does not pair it into formatting (best effort: Slack only formats
// at word boundaries, and the zero-width space is not one).
func Slack(md string) string { return renderMarkdown(md, slackDialect{}) }

type slackDialect struct{}

const zwsp = "\u200b"

func (slackDialect) lit(w *strings.Builder, s string) { escapeHTML(w, s) }

func (d slackDialect) punct(w *strings.Builder, c byte) {
	switch c {
	case '*', '_', '~', '`':
		w.WriteString(zwsp)
		w.WriteByte(c)
		w.WriteString(zwsp)
	default:
		escapeHTML(w, string(c))
	}
}

func (d slackDialect) entity(w *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '*' || c == '_' || c == '~' || c == '`' {
			escapeHTML(w, s[:i])
			d.punct(w, c)
			s = s[i+1:]
			i = -1
		}
	}
	escapeHTML(w, s)
}

func slackWrap(mark, inner string) string {
	if strings.TrimSpace(inner) == "" {
		return inner
	}
	return mark + inner + mark
}

func (slackDialect) strong(inner string) string { return slackWrap("*", inner) }
func (slackDialect) emph(inner string) string   { return slackWrap("_", inner) }
func (slackDialect) strike(inner string) string { return slackWrap("~", inner) }

func (d slackDialect) codeSpan(w *strings.Builder, code string, _ *inlineCtx) {
	if strings.Contains(code, "`") {
		// A backtick cannot appear inside Slack inline code; keep the
		// text exact rather than the monospace.
		d.lit(w, code)
		return
	}
	w.WriteByte('`')
	d.lit(w, code)
	w.WriteByte('`')
}

// slackURL prepares a URL for <url|text>: normURL already percent-encoded
// |, < and >; & still needs escaping like everywhere else.
func slackURL(u string) string { return htmlEscaped(protectURLMentions(u)) }

func slackLinkable(u string) bool {
	switch urlScheme(u) {
	case "http", "https", "mailto":
		return true
	}
	return false
}

func (d slackDialect) writeLink(w *strings.Builder, url, plain string) {
	if !slackLinkable(url) {
		d.lit(w, linkFallback(plain, url))
		return
	}
	w.WriteByte('<')
	w.WriteString(slackURL(url))
	if plain != "" && plain != url {
		w.WriteByte('|')
		d.lit(w, plain)
	}
	w.WriteByte('>')
}

// link uses the plain label: Slack does not format inside <url|text>.
func (d slackDialect) link(w *strings.Builder, dest []byte, _, plain string, _ *inlineCtx) {
	d.writeLink(w, normURL(dest), plain)
}

func (d slackDialect) autoLink(w *strings.Builder, url, label string, _ *inlineCtx) {
	if strings.HasPrefix(url, "mailto:") && label == strings.TrimPrefix(url, "mailto:") {
		d.writeLink(w, url, label)
		return
	}
	if label == url || !slackLinkable(url) {
		d.writeLink(w, url, "")
		return
	}
	d.writeLink(w, url, label)
}

func (d slackDialect) heading(_ int, inner func(inlineCtx) string) []line {
	s := inner(inlineCtx{strong: 1, singleLine: true})
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []line{{s: "*" + s + "*"}}
}

func (d slackDialect) codeBlock(_ string, code string) []line {
	var b strings.Builder
	d.lit(&b, breakFences(code))
	return fenced("```", b.String())
}

// fenced wraps code in ``` lines; the content lines are marked verbatim.
func fenced(open, code string) []line {
	out := []line{{s: open, code: true}}
	for _, l := range strings.Split(code, "\n") {
		out = append(out, line{s: l, code: true})
	}
	return append(out, line{s: "```", code: true})
}

func quotePrefix(lines []line) []line {
	out := make([]line, len(lines))
	for i, l := range lines {
		if l.s == "" {
			l.s = ">"
		} else {
			l.s = "> " + l.s
		}
		out[i] = l
	}
	return out
}

func (slackDialect) quote(lines []line) []line { return quotePrefix(lines) }

func (slackDialect) rule() []line { return []line{{s: ruleLine}} }

// ruleLine stands in for a horizontal rule, which no platform's message
// Markdown supports.
const ruleLine = "──────────"

func (slackDialect) bullet(depth int) string { return bullets(depth) }

// bullets varies the bullet with depth so nesting stays visible even where
// leading spaces are hard to see.
func bullets(depth int) string {
	switch depth {
	case 0:
		return "• "
	case 1:
		return "◦ "
	}
	return "▪ "
}

func (slackDialect) finish(s string) string { return NeutralizeMentions(s) }
