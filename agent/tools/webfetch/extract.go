package webfetch

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

type contentKind int

const (
	kindUnknown contentKind = iota // no Content-Type: sniff the body
	kindHTML
	kindText
)

// classifyContentType decides from a Content-Type value how the body is
// handled: HTML is converted, text-like types are returned as they are,
// anything else is refused because the model cannot read it.
func classifyContentType(ct string) (contentKind, error) {
	if strings.TrimSpace(ct) == "" {
		return kindUnknown, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		// Servers send things like "text/html;;charset=utf-8"; the media
		// type before the first ';' is what matters.
		mt, _, _ = strings.Cut(ct, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
	}
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return kindHTML, nil
	case strings.HasPrefix(mt, "text/"),
		mt == "application/json", mt == "application/xml", mt == "application/javascript",
		mt == "application/x-ndjson", mt == "application/yaml", mt == "application/x-yaml", mt == "application/toml",
		strings.HasPrefix(mt, "application/") && (strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")):
		return kindText, nil
	}
	if mt == "" {
		mt = ct
	}
	return 0, fmt.Errorf("unsupported content type %s: only HTML and text (plain, Markdown, JSON, XML) can be fetched", mt)
}

// page is the extracted content of one response.
type page struct {
	title string
	text  string
}

// extract turns a capped body into text. contentType is the header as sent
// (it may carry the charset).
func (f *fetcher) extract(ctx context.Context, kind contentKind, contentType string, body []byte, final *url.URL) (page, error) {
	if kind == kindText && looksBinary(body) {
		return page{}, fmt.Errorf("unsupported content: the server says %q but the body is binary", contentType)
	}
	text := decodeUTF8(body, contentType)
	if kind != kindHTML {
		return page{title: titleFromURL(final), text: text}, nil
	}
	p, err := f.htmlToMarkdown(ctx, text, final)
	if err != nil {
		return page{}, err
	}
	if p.title == "" {
		p.title = titleFromURL(final)
	}
	return p, nil
}

// decodeUTF8 converts the body to UTF-8 from the charset named by the
// header, a BOM or a <meta> tag, falling back to a guess. The Markdown
// converter and the model need UTF-8; invalid bytes become U+FFFD.
func decodeUTF8(body []byte, contentType string) string {
	enc, name, _ := charset.DetermineEncoding(body, contentType)
	var out []byte
	if name == "utf-8" || enc == nil {
		out = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	} else {
		var err error
		if out, err = enc.NewDecoder().Bytes(body); err != nil {
			out = bytes.ToValidUTF8(body, []byte("\uFFFD"))
		}
	}
	return strings.TrimPrefix(string(out), "\uFEFF")
}

// looksBinary catches binary bodies served as text (misconfigured servers),
// which would only waste the model's context.
func looksBinary(b []byte) bool {
	if len(b) > 1024 {
		b = b[:1024]
	}
	// UTF-16 text has NULs but starts with a BOM.
	if bytes.HasPrefix(b, []byte{0xff, 0xfe}) || bytes.HasPrefix(b, []byte{0xfe, 0xff}) {
		return false
	}
	return bytes.IndexByte(b, 0) >= 0
}

// minArticleRunes: a readability result shorter than this, and shorter
// than half the page's text, is taken as a failed extraction.
const minArticleRunes = 200

// htmlToMarkdown extracts the main article with readability and converts
// it to Markdown, falling back to the whole page when extraction fails or
// finds almost nothing (short pages, link lists, app shells).
func (f *fetcher) htmlToMarkdown(ctx context.Context, src string, final *url.URL) (page, error) {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return page{}, fmt.Errorf("parsing HTML: %w", err)
	}
	docTitle, pageRunes := pageInfo(doc)

	// A Parser keeps per-document state, so each call gets its own.
	parser := readability.NewParser()
	art, rerr := parser.ParseAndMutate(doc, final)
	title := cleanTitle(art.Title)
	if title == "" {
		title = docTitle
	}
	if rerr == nil && art.Node != nil && art.Node.Parent != nil {
		n := utf8.RuneCountInString(art.TextContent)
		if n >= minArticleRunes || 2*n >= pageRunes {
			// Node is the first child of readability's article container;
			// converting the container keeps every page of the article.
			md, err := f.toMarkdown(ctx, art.Node.Parent, final)
			if err == nil && strings.TrimSpace(md) != "" {
				return page{title: title, text: md}, nil
			}
		}
	}

	// Readability mutated doc; start again from the source.
	doc, err = html.Parse(strings.NewReader(src))
	if err != nil {
		return page{}, fmt.Errorf("parsing HTML: %w", err)
	}
	md, err := f.toMarkdown(ctx, doc, final)
	if err != nil {
		return page{}, fmt.Errorf("converting HTML to Markdown: %w", err)
	}
	return page{title: title, text: md}, nil
}

// newConverter builds the HTML→Markdown converter shared by all calls (it
// is safe for concurrent use). Without the table plugin tables flatten into
// runs of cell text.
func newConverter() (*converter.Converter, error) {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		strikethrough.NewStrikethroughPlugin(),
		table.NewTablePlugin(
			table.WithHeaderPromotion(true),
			table.WithSpanCellBehavior(table.SpanBehaviorMirror),
			table.WithNewlineBehavior(table.NewlineBehaviorPreserve),
			table.WithCellPaddingBehavior(table.CellPaddingBehaviorMinimal),
		),
	))
	// Page chrome that is never the content; it matters for the
	// whole-page fallback, where readability has not removed it.
	for _, tag := range []string{"nav", "footer", "aside", "form", "button", "select", "svg", "canvas", "template", "dialog"} {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	// Probe once so a plugin configuration error surfaces from New, not
	// from every call.
	if _, err := conv.ConvertString("<p>ok</p>"); err != nil {
		return nil, fmt.Errorf("html-to-markdown: %w", err)
	}
	return conv, nil
}

func (f *fetcher) toMarkdown(ctx context.Context, n *html.Node, final *url.URL) (string, error) {
	dropDataImages(n)
	md, err := f.conv.ConvertNode(n, converter.WithContext(ctx), converter.WithDomain(final.String()))
	if err != nil {
		return "", err
	}
	return string(md), nil
}

// dropDataImages removes <img src="data:…">: inline base64 images would
// turn into kilobytes of noise in the Markdown.
func dropDataImages(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode && c.DataAtom == atom.Img && hasDataSrc(c) {
			n.RemoveChild(c)
		} else {
			dropDataImages(c)
		}
		c = next
	}
}

func hasDataSrc(n *html.Node) bool {
	for _, a := range n.Attr {
		if a.Key == "src" && strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "data:") {
			return true
		}
	}
	return false
}

// pageInfo returns the page's <title> (or first <h1>) and how many
// characters of visible text it has, to judge readability's result.
func pageInfo(doc *html.Node) (title string, textRunes int) {
	var h1 string
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			textRunes += utf8.RuneCountInString(strings.TrimSpace(n.Data))
			return
		case html.ElementNode:
			switch n.DataAtom {
			case atom.Title:
				if title == "" {
					title = cleanTitle(textOf(n))
				}
				return
			case atom.H1:
				if h1 == "" {
					h1 = cleanTitle(textOf(n))
				}
			case atom.Script, atom.Style, atom.Noscript, atom.Template:
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if title == "" {
		title = h1
	}
	return title, textRunes
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// cleanTitle makes a title fit on the header line.
func cleanTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 200
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return s
}

// titleFromURL names a resource that has no title of its own.
func titleFromURL(u *url.URL) string {
	if b := path.Base(u.Path); b != "/" && b != "." && b != "" {
		if un, err := url.PathUnescape(b); err == nil {
			b = un
		}
		return cleanTitle(b)
	}
	return u.Hostname()
}
