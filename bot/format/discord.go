package format

import (
	"strings"

	"github.com/yuin/goldmark/util"
)

// Discord renders Markdown as Discord Markdown. Discord understands most of
// what models write, so text is passed through with the model's own
// backslash escapes, and the tree is re-emitted in Discord's spelling
// (**b**, *i*, ~~s~~, `code`, ```lang fences, > quotes, - / 1. lists,
// [text](url) for http and https). What Discord lacks is rewritten:
//
//   - tables → an aligned monospace block,
//   - images → links,
//   - headings deeper than ### → bold lines,
//   - horizontal rules → a line of box-drawing characters,
//   - raw HTML → its text.
//
// @everyone and @here get a zero-width joiner after the @ (see
// [NeutralizeMentions]); the adapter also sets AllowedMentions, this is
// defense in depth. A literal "||" is escaped so it cannot open a spoiler.
func Discord(md string) string { return renderMarkdown(md, discordDialect{}) }

type discordDialect struct{}

func (discordDialect) lit(w *strings.Builder, s string) {
	if strings.Contains(s, "||") {
		s = strings.ReplaceAll(s, "||", `\|\|`)
	}
	w.WriteString(s)
}

// punct keeps the model's escape: Discord honours backslash escapes.
func (discordDialect) punct(w *strings.Builder, c byte) {
	w.WriteByte('\\')
	w.WriteByte(c)
}

// entity escapes ASCII punctuation a character reference produced, so that
// &#42; stays a literal asterisk.
func (discordDialect) entity(w *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if util.IsPunct(s[i]) {
			w.WriteByte('\\')
		}
		w.WriteByte(s[i])
	}
}

func mdWrap(mark, inner string) string {
	if strings.TrimSpace(inner) == "" {
		return inner
	}
	return mark + inner + mark
}

func (discordDialect) strong(inner string) string { return mdWrap("**", inner) }
func (discordDialect) emph(inner string) string   { return mdWrap("*", inner) }
func (discordDialect) strike(inner string) string { return mdWrap("~~", inner) }

// codeSpan picks a backtick run longer than any inside the code, as
// CommonMark does; Discord supports “ and ```.
func (discordDialect) codeSpan(w *strings.Builder, code string, _ *inlineCtx) {
	longest, run := 0, 0
	for i := 0; i < len(code); i++ {
		if code[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	w.WriteString(fence)
	if longest > 0 {
		w.WriteByte(' ')
	}
	w.WriteString(code)
	if longest > 0 {
		w.WriteByte(' ')
	}
	w.WriteString(fence)
}

func discordLinkable(u string) bool {
	switch urlScheme(u) {
	case "http", "https":
		return true
	}
	return false
}

// discordURL makes a URL safe inside (…): parentheses are percent-encoded
// (normURL leaves them) and mass-mention keywords protected.
func discordURL(u string) string {
	u = strings.ReplaceAll(u, "(", "%28")
	u = strings.ReplaceAll(u, ")", "%29")
	return protectURLMentions(u)
}

func (d discordDialect) link(w *strings.Builder, dest []byte, label, plain string, _ *inlineCtx) {
	url := normURL(dest)
	if !discordLinkable(url) {
		fb := linkFallback(plain, url)
		if plain == "" || label == "" {
			d.lit(w, fb)
			return
		}
		w.WriteString(label)
		d.lit(w, strings.TrimPrefix(fb, plain))
		return
	}
	if plain == "" || plain == url {
		w.WriteString(discordURL(url))
		return
	}
	w.WriteByte('[')
	w.WriteString(label)
	w.WriteString("](")
	w.WriteString(discordURL(url))
	w.WriteByte(')')
}

// autoLink writes the URL itself; Discord links bare http(s) URLs.
func (d discordDialect) autoLink(w *strings.Builder, url, label string, _ *inlineCtx) {
	if discordLinkable(url) {
		w.WriteString(discordURL(url))
		return
	}
	d.lit(w, label)
}

func (discordDialect) heading(level int, inner func(inlineCtx) string) []line {
	if level <= 3 {
		s := inner(inlineCtx{singleLine: true})
		if strings.TrimSpace(s) == "" {
			return nil
		}
		return []line{{s: strings.Repeat("#", level) + " " + s}}
	}
	s := inner(inlineCtx{strong: 1, singleLine: true})
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []line{{s: "**" + s + "**"}}
}

func (discordDialect) codeBlock(lang, code string) []line {
	return fenced("```"+lang, breakFences(code))
}

func (discordDialect) quote(lines []line) []line { return quotePrefix(lines) }
func (discordDialect) rule() []line              { return []line{{s: ruleLine}} }
func (discordDialect) bullet(int) string         { return "- " }
func (discordDialect) finish(s string) string    { return NeutralizeMentions(s) }
