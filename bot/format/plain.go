package format

import "strings"

// Plain renders Markdown as plain text, for when a platform rejects the
// formatted message (Telegram's "can't parse entities"): markup is removed,
// text and code are kept verbatim, links become "text (url)", images
// "alt (url)", lists "• " / "1. " lines, quotes "> " lines, tables aligned
// text. Nothing is escaped and mass mentions are left as written: pass the
// result through [NeutralizeMentions] before sending it to Slack or
// Discord.
func Plain(md string) string { return renderMarkdown(md, plainDialect{}) }

type plainDialect struct{}

func (plainDialect) lit(w *strings.Builder, s string)    { w.WriteString(s) }
func (plainDialect) punct(w *strings.Builder, c byte)    { w.WriteByte(c) }
func (plainDialect) entity(w *strings.Builder, s string) { w.WriteString(s) }

func (plainDialect) strong(inner string) string { return inner }
func (plainDialect) emph(inner string) string   { return inner }
func (plainDialect) strike(inner string) string { return inner }

func (plainDialect) codeSpan(w *strings.Builder, code string, _ *inlineCtx) { w.WriteString(code) }

func (plainDialect) link(w *strings.Builder, dest []byte, _, plain string, c *inlineCtx) {
	if c.inLink {
		w.WriteString(plain)
		return
	}
	w.WriteString(linkFallback(plain, normURL(dest)))
}

func (plainDialect) autoLink(w *strings.Builder, _, label string, _ *inlineCtx) {
	w.WriteString(label)
}

func (plainDialect) heading(_ int, inner func(inlineCtx) string) []line {
	s := inner(inlineCtx{singleLine: true})
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []line{{s: s}}
}

func (plainDialect) codeBlock(_ string, code string) []line {
	ls := textLines(code)
	for i := range ls {
		ls[i].code = true
	}
	return ls
}

func (plainDialect) quote(lines []line) []line { return quotePrefix(lines) }
func (plainDialect) rule() []line              { return []line{{s: ruleLine}} }
func (plainDialect) bullet(depth int) string   { return bullets(depth) }
func (plainDialect) finish(s string) string    { return s }
