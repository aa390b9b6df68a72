package format

import (
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// We walk goldmark's tree ourselves instead of registering NodeRenderers
// with goldmark's renderer: chat output is line-oriented (list markers,
// quote prefixes, code that must not be re-indented), needs context (inside
// a link, already bold, inside a heading), and a walker with a default case
// cannot silently drop a node kind the way an unregistered NodeRenderer
// does. The dialects only decide spelling; layout is shared here.

// dialect is one output flavour.
type dialect interface {
	textSink

	// Inline constructs. inner is already rendered in this dialect.
	strong(inner string) string
	emph(inner string) string
	strike(inner string) string
	codeSpan(w *strings.Builder, code string, c *inlineCtx)
	// link renders [label](dest); plain is the label as plain text.
	link(w *strings.Builder, dest []byte, label, plain string, c *inlineCtx)
	autoLink(w *strings.Builder, url, label string, c *inlineCtx)

	// Blocks.
	heading(level int, inner func(inlineCtx) string) []line
	codeBlock(lang, code string) []line
	quote(lines []line) []line
	rule() []line
	bullet(depth int) string

	// finish post-processes the whole message.
	finish(s string) string
}

// line is one output line. Code lines are verbatim block content and are
// never re-indented under a list item.
type line struct {
	s    string
	code bool
}

// inlineCtx carries what enclosing inline constructs imply.
type inlineCtx struct {
	strong, emph, strike int  // nesting depth; inner repeats render plain
	inLink               bool // inside a link label: no nested links or code
	singleLine           bool // headings, table cells: breaks become spaces
}

type renderer struct {
	src        []byte
	d          dialect
	quoteDepth int
	listDepth  int
}

// renderMarkdown parses md and renders it with d.
func renderMarkdown(md string, d dialect) string {
	doc := parse(md)
	r := &renderer{src: doc.src, d: d}
	lines := r.blocks(doc.root, true)
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.s)
	}
	return d.finish(strings.TrimRight(strings.TrimLeft(b.String(), "\n"), " \t\n"))
}

// blocks renders the block children of parent, separated by a blank line
// when loose.
func (r *renderer) blocks(parent ast.Node, loose bool) []line {
	var out []line
	for c := parent.FirstChild(); c != nil; c = c.NextSibling() {
		ls := r.block(c)
		if len(ls) == 0 {
			continue
		}
		if len(out) > 0 && loose {
			out = append(out, line{})
		}
		out = append(out, ls...)
	}
	return out
}

func (r *renderer) block(n ast.Node) []line {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return r.paragraph(n)
	case *ast.Heading:
		return r.d.heading(n.Level, func(c inlineCtx) string { return r.inlineString(n, c) })
	case *ast.ThematicBreak:
		return r.d.rule()
	case *ast.FencedCodeBlock:
		var lang string
		if n.Info != nil {
			lang = sanitizeLang(n.Language(r.src))
		}
		return r.d.codeBlock(lang, r.codeText(n))
	case *ast.CodeBlock:
		return r.d.codeBlock("", r.codeText(n))
	case *ast.Blockquote:
		// No platform nests quotes (Telegram forbids nested blockquote
		// entities; Slack and Discord show "> >" literally), so inner
		// quotes flatten into the outer one.
		r.quoteDepth++
		inner := r.blocks(n, true)
		r.quoteDepth--
		if r.quoteDepth > 0 || len(inner) == 0 {
			return inner
		}
		return r.d.quote(inner)
	case *ast.List:
		return r.list(n)
	case *ast.HTMLBlock:
		return r.htmlBlock(n)
	case *east.Table:
		return r.table(n)
	}
	if n.Type() != ast.TypeBlock {
		return r.paragraph(n)
	}
	if fc := n.FirstChild(); fc != nil && fc.Type() == ast.TypeInline {
		return r.paragraph(n)
	}
	return r.blocks(n, true)
}

func (r *renderer) paragraph(n ast.Node) []line {
	s := r.inlineString(n, inlineCtx{})
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return paragraphLines(s)
}

// paragraphLines splits rendered paragraph text into lines. Surrounding
// spaces are dropped: CommonMark already strips them from source lines, so
// any left come from a <br> or a break inside inline markup.
func paragraphLines(s string) []line {
	ls := textLines(s)
	for i := range ls {
		ls[i].s = strings.Trim(ls[i].s, " \t")
	}
	return ls
}

func textLines(s string) []line {
	parts := strings.Split(s, "\n")
	out := make([]line, len(parts))
	for i, p := range parts {
		out[i] = line{s: p}
	}
	return out
}

// codeText is the verbatim content of a code block without its final
// newline.
func (r *renderer) codeText(n ast.Node) string {
	var b strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		b.Write(s.Value(r.src))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (r *renderer) list(n *ast.List) []line {
	var out []line
	depth := r.listDepth
	r.listDepth++
	defer func() { r.listDepth-- }()
	num := n.Start
	loose := !n.IsTight
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		marker := r.d.bullet(depth)
		if n.IsOrdered() {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		inner := r.blocks(item, loose)
		if len(out) > 0 && loose {
			out = append(out, line{})
		}
		if len(inner) == 0 {
			out = append(out, line{s: strings.TrimRight(marker, " ")})
			continue
		}
		pad := strings.Repeat(" ", runeWidth(marker))
		for i, l := range inner {
			switch {
			case i == 0:
				l.s = marker + l.s
			case !l.code && l.s != "":
				l.s = pad + l.s
			}
			out = append(out, l)
		}
	}
	return out
}

// htmlBlock shows model-written HTML as text: platforms either reject it
// (Telegram accepts only a few tags) or show it literally anyway.
func (r *renderer) htmlBlock(n *ast.HTMLBlock) []line {
	var raw strings.Builder
	lines := n.Lines()
	for i := 0; i < lines.Len(); i++ {
		s := lines.At(i)
		raw.Write(s.Value(r.src))
	}
	if n.HasClosure() {
		raw.Write(n.ClosureLine.Value(r.src))
	}
	text := strings.TrimRight(raw.String(), "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	var out []line
	for _, l := range strings.Split(text, "\n") {
		var b strings.Builder
		r.d.lit(&b, l)
		out = append(out, line{s: b.String()})
	}
	return out
}

// table renders a GFM table as aligned plain text in a code block: no
// platform renders Markdown tables in messages, and monospace keeps columns
// readable.
func (r *renderer) table(n *east.Table) []line {
	plain := &renderer{src: r.src, d: plainDialect{}}
	var rows [][]string
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			cells = append(cells, strings.TrimSpace(plain.inlineString(cell, inlineCtx{singleLine: true})))
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		return nil
	}
	return r.d.codeBlock("", formatTable(rows, n.Alignments))
}

// inlineString renders the inline children of n.
func (r *renderer) inlineString(n ast.Node, c inlineCtx) string {
	var b strings.Builder
	r.inlines(&b, n, &c)
	return b.String()
}

func (r *renderer) inlines(w *strings.Builder, parent ast.Node, c *inlineCtx) {
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		r.inline(w, n, c)
	}
}

func (r *renderer) lineBreak(w *strings.Builder, c *inlineCtx) {
	if c.singleLine {
		w.WriteByte(' ')
	} else {
		w.WriteByte('\n')
	}
}

// inline renders one inline node in the dialect. It is long because it is
// one case per kind of CommonMark inline node, each a few lines.
func (r *renderer) inline(w *strings.Builder, n ast.Node, c *inlineCtx) {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(r.src)
		if n.IsRaw() {
			r.d.lit(w, string(v))
		} else {
			writeText(w, r.d, v)
		}
		if n.SoftLineBreak() || n.HardLineBreak() {
			r.lineBreak(w, c)
		}
	case *ast.String:
		if n.IsRaw() || n.IsCode() {
			r.d.lit(w, string(n.Value))
		} else {
			writeText(w, r.d, n.Value)
		}
	case *ast.CodeSpan:
		var b strings.Builder
		for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
			var v []byte
			switch t := ch.(type) {
			case *ast.Text:
				v = t.Segment.Value(r.src)
			case *ast.String:
				v = t.Value
			}
			// CommonMark: line endings inside a code span become spaces.
			if len(v) > 0 && v[len(v)-1] == '\n' {
				b.Write(v[:len(v)-1])
				b.WriteByte(' ')
			} else {
				b.Write(v)
			}
		}
		if b.Len() > 0 {
			r.d.codeSpan(w, b.String(), c)
		}
	case *ast.Emphasis:
		if n.Level >= 2 {
			r.wrap(w, n, c, &c.strong, r.d.strong)
		} else {
			r.wrap(w, n, c, &c.emph, r.d.emph)
		}
	case *east.Strikethrough:
		r.wrap(w, n, c, &c.strike, r.d.strike)
	case *ast.Link:
		if c.inLink {
			r.inlines(w, n, c)
			return
		}
		// Labels stay on one line: a masked link cannot span lines on
		// Discord, and a multi-line link label is never intended.
		saved := *c
		c.inLink, c.singleLine = true, true
		label := r.sub(n, c)
		*c = saved
		plain := (&renderer{src: r.src, d: plainDialect{}}).inlineString(n, inlineCtx{singleLine: true, inLink: true})
		r.d.link(w, n.Destination, label, plain, c)
	case *ast.AutoLink:
		url := string(n.URL(r.src))
		label := string(n.Label(r.src))
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
			url = "mailto:" + url
		}
		if c.inLink {
			r.d.lit(w, label)
			return
		}
		r.d.autoLink(w, normURLRaw(url), label, c)
	case *ast.Image:
		alt := (&renderer{src: r.src, d: plainDialect{}}).inlineString(n, inlineCtx{singleLine: true, inLink: true})
		if c.inLink {
			r.d.lit(w, alt)
			return
		}
		// Never the picture's URL: Parley makes none itself, and one the
		// model wrote would be fetched by the platform's preview, which
		// carries data out without a click (docs/security.md).
		r.d.entity(w, imageText(alt))
	case *ast.RawHTML:
		var raw strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			s := n.Segments.At(i)
			raw.Write(s.Value(r.src))
		}
		if isBreakTag(raw.String()) {
			r.lineBreak(w, c)
			return
		}
		r.d.lit(w, raw.String())
	case *east.TaskCheckBox:
		if n.IsChecked {
			r.d.lit(w, "☑ ")
		} else {
			r.d.lit(w, "☐ ")
		}
	default:
		r.inlines(w, n, c)
	}
}

// wrap renders n's children and wraps them with f, unless an enclosing node
// already applies the same style (Slack and Discord cannot nest a style in
// itself, and Telegram gains nothing from it).
func (r *renderer) wrap(w *strings.Builder, n ast.Node, c *inlineCtx, depth *int, f func(string) string) {
	if *depth > 0 {
		r.inlines(w, n, c)
		return
	}
	*depth++
	inner := r.sub(n, c)
	*depth--
	w.WriteString(f(inner))
}

func (r *renderer) sub(n ast.Node, c *inlineCtx) string {
	var b strings.Builder
	r.inlines(&b, n, c)
	return b.String()
}

// imageText is what a Markdown image shows: its description, marked.
func imageText(alt string) string {
	if alt = strings.TrimSpace(alt); alt == "" {
		return "[image]"
	}
	return "[image: " + alt + "]"
}
