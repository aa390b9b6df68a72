// Package readable turns an HTML page into the Markdown a reader, or a
// model, needs: the main article found by readability (or the whole page
// when that finds too little), tables kept as tables, page chrome, scripts
// and inline data images dropped. The web_fetch tool and the knowledge
// base both use it, so a page reads the same whichever way it arrived.
package readable

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
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

// minArticleRunes: a readability result shorter than this, and shorter
// than half the page's text, is taken as a failed extraction.
const minArticleRunes = 200

// Markdown extracts the main article of an HTML page with readability and
// converts it to Markdown, falling back to the whole page when extraction
// fails or finds almost nothing (short pages, link lists, app shells).
// html must be UTF-8 (see Decode). base, when not nil, makes relative links
// and images absolute; a local file has none. title is the article's
// title, else the page's <title>, else its first <h1>, cleaned by
// CleanTitle; it may be empty.
func Markdown(ctx context.Context, src string, base *url.URL) (title, markdown string, err error) {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return "", "", fmt.Errorf("parsing HTML: %w", err)
	}
	docTitle, pageRunes := pageInfo(doc)

	// The converter is built per call rather than shared: it costs little
	// next to parsing and readability, and the package keeps no state.
	conv := newConverter()

	// A Parser keeps per-document state, so each call gets its own.
	parser := readability.NewParser()
	art, rerr := parser.ParseAndMutate(doc, base)
	title = CleanTitle(art.Title)
	if title == "" {
		title = docTitle
	}
	if rerr == nil && art.Node != nil && art.Node.Parent != nil {
		n := utf8.RuneCountInString(art.TextContent)
		if n >= minArticleRunes || 2*n >= pageRunes {
			// Node is the first child of readability's article container;
			// converting the container keeps every page of the article.
			md, err := toMarkdown(ctx, conv, art.Node.Parent, base)
			if err == nil && strings.TrimSpace(md) != "" {
				return title, md, nil
			}
		}
	}

	// Readability mutated doc; start again from the source.
	doc, err = html.Parse(strings.NewReader(src))
	if err != nil {
		return "", "", fmt.Errorf("parsing HTML: %w", err)
	}
	md, err := toMarkdown(ctx, conv, doc, base)
	if err != nil {
		return "", "", fmt.Errorf("converting HTML to Markdown: %w", err)
	}
	return title, md, nil
}

// Decode converts a body to UTF-8 from the charset named by the
// Content-Type header (contentType, may be empty), a BOM or a <meta> tag,
// falling back to a guess, the way browsers do. The Markdown converter and
// the model need UTF-8; invalid bytes become U+FFFD and a leading BOM is
// dropped.
func Decode(body []byte, contentType string) string {
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

// CleanTitle makes a title fit on one header line: valid UTF-8,
// whitespace runs made one space, cut to 200 characters.
func CleanTitle(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	const max = 200
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return s
}

// newConverter builds the HTML→Markdown converter. Without the table
// plugin tables flatten into runs of cell text.
func newConverter() *converter.Converter {
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
	return conv
}

func toMarkdown(ctx context.Context, conv *converter.Converter, n *html.Node, base *url.URL) (string, error) {
	dropDataImages(n)
	opts := []converter.ConvertOptionFunc{converter.WithContext(ctx)}
	if base != nil {
		opts = append(opts, converter.WithDomain(base.String()))
	}
	md, err := conv.ConvertNode(n, opts...)
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
					title = CleanTitle(textOf(n))
				}
				return
			case atom.H1:
				if h1 == "" {
					h1 = CleanTitle(textOf(n))
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
