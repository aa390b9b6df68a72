package webfetch

import (
	"bytes"
	"context"
	"fmt"
	"mime"
	"net/url"
	"path"
	"strings"

	"github.com/parleybot/parley/internal/readable"
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
	text := readable.Decode(body, contentType)
	if kind != kindHTML {
		return page{title: titleFromURL(final), text: text}, nil
	}
	title, md, err := readable.Markdown(ctx, text, final)
	if err != nil {
		return page{}, err
	}
	if title == "" {
		title = titleFromURL(final)
	}
	return page{title: title, text: md}, nil
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

// titleFromURL names a resource that has no title of its own.
func titleFromURL(u *url.URL) string {
	if b := path.Base(u.Path); b != "/" && b != "." && b != "" {
		if un, err := url.PathUnescape(b); err == nil {
			b = un
		}
		return readable.CleanTitle(b)
	}
	return u.Hostname()
}
