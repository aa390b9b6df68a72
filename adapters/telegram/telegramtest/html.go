package telegramtest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Parsed is message text after Telegram's parse mode: what a reader sees and
// the entities that format it.
type Parsed struct {
	Visible  string
	Entities []Entity // offsets and lengths in UTF-16 code units
	Bold     []string // runs shown bold (<b>, <strong>), in order
	Code     []string // runs shown as code (<code>, <pre>), in order
}

// ParseError is Telegram's "can't parse entities" failure.
type ParseError struct {
	Offset int    // byte offset in the source
	Reason string // e.g. `Unsupported start tag "br" at byte offset 3`
}

func (e *ParseError) Error() string { return "can't parse entities: " + e.Reason }

// ParseHTML parses text in Telegram's HTML parse mode: the tags b strong i
// em u ins s strike del span(class="tg-spoiler") tg-spoiler a(href) code pre
// blockquote(expandable) tg-emoji, the entities &lt; &gt; &amp; &quot; and
// numeric ones. <a href="tg://user?id=N"> is a text_mention of user N. A "&" that does not start an entity is literal, as Telegram
// treats it; an unknown entity such as "&foo;" is an error.
func ParseHTML(src string) (Parsed, error) {
	p := htmlParser{src: src, depth: map[string]int{}}
	if err := p.run(); err != nil {
		return Parsed{}, err
	}
	p.res.Visible = p.out.String()
	slices.SortStableFunc(p.res.Entities, func(a, b Entity) int {
		if a.Offset != b.Offset {
			return a.Offset - b.Offset
		}
		return b.Length - a.Length
	})
	return p.res, nil
}

type openTag struct {
	name    string
	typ     string // entity type; "" when the tag formats nothing (<a> without href)
	url     string
	lang    string
	emojiID string
	user    int64 // the person a text_mention names
	at      int   // byte offset of the tag in the source
	start   int   // byte offset in the visible text
	start16 int   // UTF-16 offset in the visible text
}

type htmlParser struct {
	src   string
	out   strings.Builder
	u16   int
	stack []openTag
	res   Parsed
	// depth counts the open tags per entity type, so runs nested in a run of
	// the same kind are not counted twice.
	depth map[string]int
}

func (p *htmlParser) fail(at int, format string, args ...any) error {
	return &ParseError{Offset: at, Reason: fmt.Sprintf(format, args...)}
}

func (p *htmlParser) write(s string) {
	p.out.WriteString(s)
	p.u16 += utf16Len(s)
}

func (p *htmlParser) run() error {
	src := p.src
	for i := 0; i < len(src); {
		switch src[i] {
		case '<':
			next, err := p.tag(i)
			if err != nil {
				return err
			}
			i = next
		case '&':
			name, end, ok := entityAt(src, i)
			if !ok {
				p.write("&")
				i++
				continue
			}
			v, known := entityValue(name)
			if !known {
				return p.fail(i, "Unsupported HTML entity \"&%s;\" at byte offset %d", name, i)
			}
			p.write(v)
			i = end
		default:
			j := i + 1
			for j < len(src) && src[j] != '<' && src[j] != '&' {
				j++
			}
			p.write(src[i:j])
			i = j
		}
	}
	if n := len(p.stack); n > 0 {
		top := p.stack[n-1]
		return p.fail(top.at, "Can't find end tag corresponding to start tag \"%s\"", top.name)
	}
	return nil
}

// tag parses the start or end tag at src[at] == '<' and returns the offset
// after it.
func (p *htmlParser) tag(at int) (int, error) {
	src := p.src
	j := at + 1
	closing := j < len(src) && src[j] == '/'
	if closing {
		j++
	}
	nameStart := j
	for j < len(src) && isTagNameByte(src[j]) {
		j++
	}
	name := strings.ToLower(src[nameStart:j])
	if name == "" {
		return 0, p.fail(at, "Unexpected character \"<\" at byte offset %d", at)
	}
	if closing {
		j = skipSpace(src, j)
		if j >= len(src) || src[j] != '>' {
			return 0, p.fail(at, "Unclosed end tag at byte offset %d", at)
		}
		return j + 1, p.close(name, at)
	}
	if !supportedTag(name) {
		return 0, p.fail(at, "Unsupported start tag \"%s\" at byte offset %d", name, at)
	}
	attrs, next, err := p.attributes(at, j)
	if err != nil {
		return 0, err
	}
	return next, p.open(name, attrs, at)
}

// attributes parses name="value" pairs up to the closing '>'.
func (p *htmlParser) attributes(at, j int) (map[string]string, int, error) {
	src := p.src
	attrs := map[string]string{}
	for {
		j = skipSpace(src, j)
		if j >= len(src) {
			return nil, 0, p.fail(at, "Unclosed start tag at byte offset %d", at)
		}
		if src[j] == '>' {
			return attrs, j + 1, nil
		}
		nameStart := j
		for j < len(src) && isAttrNameByte(src[j]) {
			j++
		}
		if j == nameStart {
			return nil, 0, p.fail(j, "Unexpected character %q in start tag at byte offset %d", src[j], j)
		}
		name := strings.ToLower(src[nameStart:j])
		value := ""
		j = skipSpace(src, j)
		if j < len(src) && src[j] == '=' {
			j = skipSpace(src, j+1)
			if j >= len(src) {
				return nil, 0, p.fail(at, "Unclosed start tag at byte offset %d", at)
			}
			if q := src[j]; q == '"' || q == '\'' {
				end := strings.IndexByte(src[j+1:], q)
				if end < 0 {
					return nil, 0, p.fail(at, "Unclosed start tag at byte offset %d", at)
				}
				value, j = src[j+1:j+1+end], j+end+2
			} else {
				valueStart := j
				for j < len(src) && !isSpace(src[j]) && src[j] != '>' {
					j++
				}
				value = src[valueStart:j]
			}
		}
		if _, dup := attrs[name]; !dup {
			attrs[name] = decodeAttr(value)
		}
	}
}

func (p *htmlParser) open(name string, attrs map[string]string, at int) error {
	t := openTag{name: name, at: at, start: p.out.Len(), start16: p.u16}
	switch name {
	case "b", "strong":
		t.typ = "bold"
	case "i", "em":
		t.typ = "italic"
	case "u", "ins":
		t.typ = "underline"
	case "s", "strike", "del":
		t.typ = "strikethrough"
	case "tg-spoiler":
		t.typ = "spoiler"
	case "span":
		if attrs["class"] != "tg-spoiler" {
			return p.fail(at, "Tag \"span\" must have class \"tg-spoiler\" at byte offset %d", at)
		}
		t.typ = "spoiler"
	case "a":
		if id, ok := userLink(attrs["href"]); ok {
			t.typ, t.user = "text_mention", id
		} else if href := attrs["href"]; href != "" {
			t.typ, t.url = "text_link", href
		}
	case "code":
		t.typ = "code"
		if n := len(p.stack); n > 0 && p.stack[n-1].name == "pre" {
			t.lang, _ = strings.CutPrefix(attrs["class"], "language-")
		}
	case "pre":
		t.typ = "pre"
	case "blockquote":
		t.typ = "blockquote"
		if _, ok := attrs["expandable"]; ok {
			t.typ = "expandable_blockquote"
		}
	case "tg-emoji":
		if attrs["emoji-id"] == "" {
			return p.fail(at, "Tag \"tg-emoji\" must have attribute \"emoji-id\" at byte offset %d", at)
		}
		t.typ, t.emojiID = "custom_emoji", attrs["emoji-id"]
	}
	p.stack = append(p.stack, t)
	p.depth[t.typ]++
	return nil
}

func (p *htmlParser) close(name string, at int) error {
	n := len(p.stack)
	if n == 0 {
		return p.fail(at, "Unexpected end tag at byte offset %d", at)
	}
	t := p.stack[n-1]
	if t.name != name {
		return p.fail(at, "Unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", at, t.name, name)
	}
	p.stack = p.stack[:n-1]
	p.depth[t.typ]--
	text := p.out.String()[t.start:]
	length := p.u16 - t.start16
	if t.name == "code" && n > 1 && p.stack[n-2].name == "pre" {
		// <pre><code class="language-x"> is one pre entity with a language.
		if t.lang != "" {
			p.stack[n-2].lang = t.lang
		}
		return nil
	}
	if t.typ != "" && length > 0 {
		p.res.Entities = append(p.res.Entities, Entity{
			Type: t.typ, Offset: t.start16, Length: length,
			URL: t.url, Language: t.lang, CustomEmojiID: t.emojiID, User: EntityUser{ID: t.user},
		})
	}
	if text == "" {
		return nil
	}
	switch {
	case t.typ == "bold" && p.depth["bold"] == 0:
		p.res.Bold = append(p.res.Bold, text)
	case (t.typ == "code" || t.typ == "pre") && p.depth["code"]+p.depth["pre"] == 0:
		p.res.Code = append(p.res.Code, text)
	}
	return nil
}

// userLink reports whether href is tg://user?id=<id>, the link Telegram
// turns into a text_mention of that person, which notifies them.
func userLink(href string) (int64, bool) {
	rest, ok := strings.CutPrefix(strings.ToLower(href), "tg://user?id=")
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	return id, err == nil && id > 0
}

func supportedTag(name string) bool {
	switch name {
	case "b", "strong", "i", "em", "u", "ins", "s", "strike", "del",
		"span", "tg-spoiler", "a", "code", "pre", "blockquote", "tg-emoji":
		return true
	}
	return false
}
