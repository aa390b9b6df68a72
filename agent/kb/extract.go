package kb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/unicode"

	"github.com/parleybot/parley/internal/readable"
)

// Extracted is a document's text, ready for Split.
type Extracted struct {
	// Text is valid UTF-8. Line ends are left as they were (Split reads
	// CRLF and CR as well as LF), so line numbers match the source.
	Text string
	// Kind is KindText, KindMarkdown, KindHTML, KindPDF or KindCode.
	Kind string
	// Title is the document's own title when it has one (a Markdown
	// "# " heading, an HTML <title>, a PDF's Title), else the file name.
	Title string
}

var (
	// ErrUnsupported is wrapped by Extract's error for a document that is
	// not text, Markdown, HTML, PDF or source code; the message names the
	// type that was detected.
	ErrUnsupported = errors.New("unsupported document type")
	// ErrEmpty is wrapped by Extract's error for a document with no text
	// to index: an empty file, only whitespace, a page with no readable
	// text, a PDF without a text layer. Folder sync can skip these
	// quietly; a person adding one is told why.
	ErrEmpty = errors.New("nothing to index")
)

const supported = "I can read text, Markdown, HTML, PDF and source code"

// maxInvalid: a text with more than this share of bytes that are not
// UTF-8 is in some other encoding (Latin-1, Windows-1251, Shift JIS, …);
// replacing them all would index noise, so it is refused instead.
const maxInvalid = 0.10

// Extract turns a document's bytes into text for the knowledge base. name
// is its file name, path or URL (its extension is the first hint);
// contentType the declared Content-Type, if any (it may carry a charset;
// it is often wrong, so the bytes are sniffed too). Binary content is
// refused whatever its name, wrapping ErrUnsupported; a document without
// text, including an empty file, is an error wrapping ErrEmpty. HTML is
// reduced to its readable Markdown (kind "html"); a PDF gives its text
// layer, at most MaxPDFPages pages, within ctx's deadline.
func Extract(ctx context.Context, name, contentType string, data []byte) (Extracted, error) {
	if err := ctx.Err(); err != nil {
		return Extracted{}, err
	}
	label := readable.CleanTitle(baseName(name))
	if label == "" {
		label = "the document"
	}
	if len(data) == 0 {
		return Extracted{}, fmt.Errorf("%s is empty: %w", label, ErrEmpty)
	}
	d := detect(name, contentType, data)
	if d.kind == "" {
		return Extracted{}, fmt.Errorf("%w %q (%s): %s", ErrUnsupported, d.typ, label, supported)
	}

	out := Extracted{Kind: d.kind}
	switch d.kind {
	case KindPDF:
		if d.pdfStart < 0 {
			return Extracted{}, fmt.Errorf("%s is not a PDF: it has no %%PDF header (its content looks like %s)", label, d.typ)
		}
		text, title, err := extractPDF(ctx, label, data[d.pdfStart:])
		if err != nil {
			return Extracted{}, err
		}
		out.Text, out.Title = text, title
	case KindHTML:
		// A page added by URL keeps its links working; a file's stay relative.
		var base *url.URL
		if u, err := url.Parse(name); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			base = u
		}
		title, md, err := readable.Markdown(ctx, readable.Decode(data, contentType), base)
		if err != nil {
			return Extracted{}, fmt.Errorf("reading %s: %w", label, err)
		}
		if strings.TrimSpace(md) == "" {
			return Extracted{}, fmt.Errorf("%s has no readable text: %w", label, ErrEmpty)
		}
		out.Text, out.Title = md, title
	default:
		text, err := decodeText(data, contentType)
		if err != nil {
			return Extracted{}, fmt.Errorf("%w %q (%s): %v; save it as UTF-8 and add it again", ErrUnsupported, "text/plain; charset=unknown", label, err)
		}
		out.Text = text
		if d.kind == KindMarkdown {
			out.Title = markdownTitle(text)
		}
	}
	if strings.TrimSpace(out.Text) == "" {
		return Extracted{}, fmt.Errorf("%s has only whitespace: %w", label, ErrEmpty)
	}
	if out.Title = readable.CleanTitle(out.Title); out.Title == "" {
		out.Title = label
	}
	if out.Title == "the document" {
		out.Title = "untitled"
	}
	return out, nil
}

// decodeText returns a text file's content as UTF-8. A BOM decides first
// (UTF-8, UTF-16), then a charset declared in contentType; otherwise the
// bytes are taken as UTF-8, with invalid bytes replaced by U+FFFD unless
// there are so many that the file is plainly in another encoding. Unlike
// HTML, plain text has no <meta> to say its encoding, and guessing
// Windows-1252 (as browsers do) would garble most non-Western files.
func decodeText(data []byte, contentType string) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")):
		return string(bytes.ToValidUTF8(data[3:], []byte("\uFFFD"))), nil
	case hasUTF16BOM(data):
		// ExpectBOM reads the byte order from the BOM and drops it;
		// unpaired surrogates become U+FFFD.
		out, err := unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM).NewDecoder().Bytes(data)
		if err != nil {
			return "", fmt.Errorf("decoding UTF-16: %w", err)
		}
		return string(bytes.ToValidUTF8(out, []byte("\uFFFD"))), nil
	}
	if _, params, err := mime.ParseMediaType(contentType); err == nil && params["charset"] != "" {
		if enc, name := charset.Lookup(params["charset"]); enc != nil && name != "utf-8" {
			if out, err := enc.NewDecoder().Bytes(data); err == nil {
				return string(bytes.ToValidUTF8(out, []byte("\uFFFD"))), nil
			}
		}
	}
	if utf8.Valid(data) {
		return string(data), nil
	}
	sample := data[:min(len(data), 64<<10)]
	if bad := invalidBytes(sample); float64(bad) > maxInvalid*float64(len(sample)) {
		return "", fmt.Errorf("%d%% of its bytes are not UTF-8", 100*bad/len(sample))
	}
	return string(bytes.ToValidUTF8(data, []byte("\uFFFD"))), nil
}

// invalidBytes counts the bytes of b that are not part of a UTF-8 rune.
func invalidBytes(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			n++
		}
		b = b[size:]
	}
	return n
}

// markdownTitle returns the text of the first level-1 heading, ATX
// ("# Title") or setext ("Title" over "==="), outside fenced code (where
// "# " is a shell comment); "" when there is none.
func markdownTitle(text string) string {
	var fence, prev string
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		trimmed := strings.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]+" \t") == "" {
				fence = ""
			}
			continue
		}
		if indent > 3 {
			prev = ""
			continue
		}
		if f := fenceOpener(trimmed); f != "" {
			fence, prev = f, ""
			continue
		}
		if h, ok := strings.CutPrefix(trimmed, "#"); ok && (h == "" || h[0] == ' ' || h[0] == '\t') {
			// An optional closing run of #s is not part of the title.
			h = strings.TrimSpace(h)
			if t := strings.TrimRight(h, "#"); t == "" || strings.HasSuffix(t, " ") || strings.HasSuffix(t, "\t") {
				h = strings.TrimSpace(t)
			}
			if h != "" {
				return h
			}
			continue
		}
		if strings.Trim(trimmed, "= \t") == "" && strings.HasPrefix(trimmed, "=") && strings.TrimSpace(prev) != "" {
			return strings.TrimSpace(prev)
		}
		prev = line
	}
	return ""
}

// fenceOpener returns the fence (``` or ~~~, as long as written) that
// line opens, or "".
func fenceOpener(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}
