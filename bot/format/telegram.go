package format

import (
	"net/url"
	"strings"
)

// TelegramHTML renders Markdown for Telegram's HTML parse mode.
//
// The output only uses <b>, <i>, <s>, <code>, <pre>, <pre><code
// class="language-x">, <a href="…"> and <blockquote>; every tag is closed
// in the same function that opens it, so tags are always balanced and
// properly nested, and &, < and > in text are always escaped. Telegram's
// nesting rules are respected: nothing is nested inside <code>/<pre>, code
// inside a link label is written as plain text, blockquotes never nest.
// Markdown has no underline, so <u> is never produced.
//
// Lists become "• " / "1. " lines, headings bold lines, tables an aligned
// <pre> block, images links. Only http, https, tg and mailto links become
// anchors, tg://user (a mention that notifies) excepted; any other link is
// written as text. Raw HTML written by the model
// is shown as text. Telegram has no mass mentions, so @everyone is left
// alone.
func TelegramHTML(md string) string { return renderMarkdown(md, telegramDialect{}) }

type telegramDialect struct{}

func (telegramDialect) lit(w *strings.Builder, s string)    { escapeHTML(w, s) }
func (telegramDialect) punct(w *strings.Builder, c byte)    { escapeHTML(w, string(c)) }
func (telegramDialect) entity(w *strings.Builder, s string) { escapeHTML(w, s) }

func tagWrap(tag, inner string) string {
	if inner == "" {
		return "" // Telegram has no use for an empty entity
	}
	return "<" + tag + ">" + inner + "</" + tag + ">"
}

func (telegramDialect) strong(inner string) string { return tagWrap("b", inner) }
func (telegramDialect) emph(inner string) string   { return tagWrap("i", inner) }
func (telegramDialect) strike(inner string) string { return tagWrap("s", inner) }

func (telegramDialect) codeSpan(w *strings.Builder, code string, c *inlineCtx) {
	if c.inLink {
		// A link may not contain a code entity.
		escapeHTML(w, code)
		return
	}
	w.WriteString("<code>")
	escapeHTML(w, code)
	w.WriteString("</code>")
}

func telegramLinkable(u string) bool {
	switch urlScheme(u) {
	case "http", "https", "mailto":
		return true
	case "tg":
		return !tgUserLink(u)
	}
	return false
}

// tgUserLink reports whether u is a tg://user link, which Telegram turns
// into a mention that notifies the person: only a message's own Mentions
// may do that (chat.Out), never its text, whoever wrote it.
func tgUserLink(u string) bool {
	host := strings.TrimLeft(u[len("tg:"):], "/")
	if i := strings.IndexAny(host, "?#/"); i >= 0 {
		host = host[:i]
	}
	if h, err := url.PathUnescape(host); err == nil {
		host = h
	}
	return strings.EqualFold(host, "user")
}

// anchor writes <a href="url">label</a>; label is already HTML.
func (telegramDialect) anchor(w *strings.Builder, url, label string) {
	w.WriteString(`<a href="`)
	w.WriteString(escapeAttr(url))
	w.WriteString(`">`)
	if label == "" {
		escapeHTML(w, url)
	} else {
		w.WriteString(label)
	}
	w.WriteString("</a>")
}

func (d telegramDialect) link(w *strings.Builder, dest []byte, label, plain string, _ *inlineCtx) {
	url := normURL(dest)
	if telegramLinkable(url) {
		d.anchor(w, url, label)
		return
	}
	// Keep the label's formatting; linkFallback decides whether the URL
	// is worth showing after it (as " (url)").
	fb := linkFallback(plain, url)
	if plain == "" || label == "" {
		escapeHTML(w, fb)
		return
	}
	w.WriteString(label)
	escapeHTML(w, strings.TrimPrefix(fb, plain))
}

func (d telegramDialect) autoLink(w *strings.Builder, url, label string, _ *inlineCtx) {
	if !telegramLinkable(url) {
		escapeHTML(w, label)
		return
	}
	d.anchor(w, url, htmlEscaped(label))
}

func (telegramDialect) heading(_ int, inner func(inlineCtx) string) []line {
	s := inner(inlineCtx{strong: 1, singleLine: true})
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return []line{{s: "<b>" + s + "</b>"}}
}

func (telegramDialect) codeBlock(lang, code string) []line {
	var b strings.Builder
	if lang != "" {
		b.WriteString(`<pre><code class="language-`)
		b.WriteString(lang) // sanitizeLang: [A-Za-z0-9_+.#-] only
		b.WriteString(`">`)
		escapeHTML(&b, code)
		b.WriteString("</code></pre>")
	} else {
		b.WriteString("<pre>")
		escapeHTML(&b, code)
		b.WriteString("</pre>")
	}
	// One multi-line string split into verbatim lines, so list
	// indentation never lands inside the <pre>.
	ls := textLines(b.String())
	for i := range ls {
		ls[i].code = true
	}
	return ls
}

func (telegramDialect) quote(lines []line) []line {
	out := append([]line(nil), lines...)
	out[0].s = "<blockquote>" + out[0].s
	out[len(out)-1].s += "</blockquote>"
	return out
}

func (telegramDialect) rule() []line            { return []line{{s: ruleLine}} }
func (telegramDialect) bullet(depth int) string { return bullets(depth) }
func (telegramDialect) finish(s string) string  { return s }
