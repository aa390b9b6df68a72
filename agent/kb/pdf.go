package kb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ledongthuc/pdf"

	"github.com/parleybot/parley/internal/lazyre"
)

// MaxPDFPages is the most pages read from one PDF. A longer one is
// refused rather than indexed in part: an answer missing from page 600
// would look like an answer missing from the document.
const MaxPDFPages = 500

const (
	// pdfTimeout bounds one PDF even when the caller's context has no
	// deadline.
	pdfTimeout = 2 * time.Minute
	// maxPDFText caps the text taken from one PDF. Content streams are
	// compressed, so a small file can hold far more text than its size.
	maxPDFText = 32 << 20
	// maxPageTreeDepth and the node budget keep a cyclic or absurd page
	// tree (a Kids array naming its own parent) from looping forever.
	maxPageTreeDepth = 64
	maxPageTreeNodes = 4*MaxPDFPages + 64
	// checkEvery is how many content-stream operators run between looks
	// at the context.
	checkEvery = 4096
)

// pdfAbort is panicked from inside the PDF library's callbacks to stop it
// (it has no other way to be interrupted) and recovered in readPDF.
type pdfAbort struct{ err error }

var errPDFText = fmt.Errorf("it holds more than %d MiB of text", maxPDFText>>20)

// extractPDF returns the text layer and the Title metadata of a PDF. The
// library is pure Go but panics on malformed input and cannot be
// cancelled, so it runs with every panic recovered, with the context
// checked on every read of the file and between content operators, and on
// its own goroutine: should a malformed file trap it in a loop that
// neither reads nor calls back, the caller still gets its timeout, and
// only that goroutine is left behind (it may go on reading data, which
// callers do not reuse).
func extractPDF(ctx context.Context, label string, data []byte) (text, title string, err error) {
	if err := checkPDFNumbers(data); err != nil {
		return "", "", fmt.Errorf("%s is not a readable PDF: %w", label, err)
	}
	if err := checkPDFObjectStreams(data); err != nil {
		return "", "", fmt.Errorf("%s is too large: %w", label, err)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, pdfTimeout, fmt.Errorf("gave up after %s: %w", pdfTimeout, context.DeadlineExceeded))
	defer cancel()

	type result struct {
		text, title string
		pages       int
		err         error
	}
	done := make(chan result, 1) // buffered: a goroutine left behind must not block
	go func() {
		var r result
		r.text, r.title, r.pages, r.err = readPDF(ctx, data)
		done <- r
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return "", "", fmt.Errorf("reading %s: %w", label, context.Cause(ctx))
	}

	var abort pdfAbort
	switch {
	case r.err == nil:
	case errors.As(r.err, &abort):
		if ctx.Err() != nil {
			return "", "", fmt.Errorf("reading %s: %w", label, context.Cause(ctx))
		}
		return "", "", fmt.Errorf("%s is too large: %w", label, abort.err)
	case errors.Is(r.err, pdf.ErrInvalidPassword):
		return "", "", fmt.Errorf("%s is password-protected; add an unprotected copy", label)
	default:
		return "", "", fmt.Errorf("%s is not a readable PDF (damaged, or a form it cannot parse): %w", label, r.err)
	}
	text = cleanPDFText(r.text)
	if strings.TrimSpace(text) == "" {
		if r.pages == 0 {
			return "", "", fmt.Errorf("%s has no pages: %w", label, ErrEmpty)
		}
		return "", "", fmt.Errorf("%s has no text layer (scanned?); only PDFs with selectable text can be read: %w", label, ErrEmpty)
	}
	return text, r.title, nil
}

func (a pdfAbort) Error() string { return a.err.Error() }
func (a pdfAbort) Unwrap() error { return a.err }

// readPDF does the reading, turning the library's panics into errors.
func readPDF(ctx context.Context, data []byte) (text, title string, pages int, err error) {
	defer func() {
		if x := recover(); x != nil {
			if a, ok := x.(pdfAbort); ok {
				err = a
				return
			}
			if e, ok := x.(error); ok && strings.HasPrefix(e.Error(), "malformed PDF") {
				err = e
			} else {
				err = fmt.Errorf("malformed PDF: %v", x)
			}
		}
	}()
	data = normalizePDF(data)
	src := &guardedReader{ctx: ctx, r: bytes.NewReader(data), budget: readBudget(len(data))}
	r, err := pdf.NewReader(src, int64(len(data)))
	if err != nil {
		return "", "", 0, err
	}
	title = r.Trailer().Key("Info").Key("Title").Text()

	var b strings.Builder
	ops := 0
	err = walkPages(r.Trailer().Key("Root").Key("Pages"), func(page, resources pdf.Value) error {
		pages++
		if pages > MaxPDFPages {
			return pdfAbort{fmt.Errorf("it has more than %d pages", MaxPDFPages)}
		}
		if err := ctx.Err(); err != nil {
			return pdfAbort{context.Cause(ctx)}
		}
		pageText(ctx, page, resources, &b, &ops)
		b.WriteString("\n\n")
		return nil
	})
	if err != nil {
		return "", "", pages, err
	}
	return b.String(), title, pages, nil
}

// walkPages calls visit for each page in document order with the
// resources it inherits. It is written here rather than using
// Reader.Page, which follows Kids and Parent links without a bound.
func walkPages(root pdf.Value, visit func(page, resources pdf.Value) error) error {
	nodes := 0
	var walk func(node, resources pdf.Value, depth int) error
	walk = func(node, resources pdf.Value, depth int) error {
		if nodes++; nodes > maxPageTreeNodes || depth > maxPageTreeDepth {
			return errors.New("malformed PDF: the page tree is too deep or loops")
		}
		if res := node.Key("Resources"); res.Kind() == pdf.Dict {
			resources = res
		}
		kids := node.Key("Kids")
		if node.Key("Type").Name() == "Page" || kids.Kind() != pdf.Array {
			if node.Kind() != pdf.Dict {
				return nil
			}
			return visit(node, resources)
		}
		for i := range kids.Len() {
			if err := walk(kids.Index(i), resources, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root, pdf.Value{}, 0)
}

// pageText appends the text a page shows to b, a line break where the
// text moves to a new line and a space where it jumps along one. It
// follows Page.GetPlainText, adding those breaks (which the library
// drops, running words together), the size cap and the context checks.
// It is long because it is the content-stream interpreter: one case per
// text operator, sharing the text position.
func pageText(ctx context.Context, page, resources pdf.Value, b *strings.Builder, ops *int) {
	contents := page.Key("Contents")
	if contents.Kind() != pdf.Stream && contents.Kind() != pdf.Array {
		return
	}
	fonts := map[string]*pdf.Font{}
	var enc pdf.TextEncoding = rawEncoding{}
	lastY, haveY := 0.0, false
	newline := func() {
		if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") {
			b.WriteByte('\n')
		}
	}
	space := func() {
		if s := b.String(); s != "" && !strings.HasSuffix(s, "\n") && !strings.HasSuffix(s, " ") {
			b.WriteByte(' ')
		}
	}
	show := func(raw string) {
		b.WriteString(enc.Decode(raw))
		if b.Len() > maxPDFText {
			panic(pdfAbort{errPDFText})
		}
	}
	checkInflated(contents)
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		if *ops++; *ops%checkEvery == 0 && ctx.Err() != nil {
			panic(pdfAbort{context.Cause(ctx)})
		}
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "BT":
			newline()
			haveY = false
		case "T*":
			newline()
		case "Td", "TD":
			if len(args) == 2 {
				if args[1].Float64() != 0 {
					newline()
				} else if args[0].Float64() > 0 {
					space()
				}
			}
		case "Tm":
			if len(args) == 6 {
				if y := args[5].Float64(); haveY && y == lastY {
					space()
				} else {
					newline()
					lastY, haveY = y, true
				}
			}
		case "Tf":
			if len(args) == 2 {
				enc = fontEncoding(resources, args[0].Name(), fonts)
			}
		case "Tj":
			if len(args) == 1 {
				show(args[0].RawString())
			}
		case "'":
			if len(args) == 1 {
				newline()
				show(args[0].RawString())
			}
		case "\"":
			if len(args) == 3 {
				newline()
				show(args[2].RawString())
			}
		case "TJ":
			if len(args) == 1 {
				for i := range args[0].Len() {
					switch x := args[0].Index(i); x.Kind() {
					case pdf.String:
						show(x.RawString())
					case pdf.Integer, pdf.Real:
						// A gap wider than a fifth of an em (in thousandths,
						// negative moves right) separates words.
						if x.Float64() < -200 {
							space()
						}
					}
				}
			}
		}
	})
}

// fontEncoding returns the text encoding of the page font called name,
// parsing each font once per page.
func fontEncoding(resources pdf.Value, name string, fonts map[string]*pdf.Font) pdf.TextEncoding {
	f, ok := fonts[name]
	if !ok {
		if v := resources.Key("Font").Key(name); v.Kind() == pdf.Dict {
			checkInflated(v.Key("ToUnicode"))
			f = &pdf.Font{V: v}
		}
		fonts[name] = f
	}
	if f == nil {
		return rawEncoding{}
	}
	return f.Encoder()
}

// rawEncoding passes bytes through, as the library does for a font it
// cannot find; cleanPDFText repairs what is not UTF-8.
type rawEncoding struct{}

func (rawEncoding) Decode(raw string) string { return raw }

// cleanPDFText makes extracted text fit to index: valid UTF-8, no control
// characters (fonts without a Unicode map yield raw glyph codes), no
// trailing spaces, and at most one blank line in a row.
func cleanPDFText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) {
			return r
		}
		if r == '\r' || r == '\f' || r == '\v' {
			return '\n'
		}
		return -1
	}, s)
	var b strings.Builder
	blank := 0
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, " \t\n")
		if line == "" {
			if blank++; blank > 1 || b.Len() == 0 {
				continue
			}
		} else {
			blank = 0
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// normalizePDF presents data the way the library insists on: a header of
// exactly "%PDF-1.x" and a line end, "%%EOF" at the very end. PDF 2.0
// files, headers without a line end and trailing bytes after %%EOF
// (appended by some uploaders) are otherwise fine. The header is only a
// comment and keeps its length, so no offset moves.
func normalizePDF(data []byte) []byte {
	if len(data) >= 9 && !(bytes.HasPrefix(data, []byte("%PDF-1.")) && data[7] >= '0' && data[7] <= '7' &&
		(data[8] == '\n' || data[8] == '\r')) {
		data = bytes.Clone(data)
		copy(data[5:], "1.7\n")
	}
	tail := max(0, len(data)-pdfMagicWindow)
	if i := bytes.LastIndex(data[tail:], []byte("%%EOF")); i >= 0 {
		data = data[:tail+i+len("%%EOF")]
	}
	return data
}

// Numbers the library allocates by before it can fail: an xref stream's
// /Size and /W, an xref table's first object number, a predictor's
// /Columns, an object stream's /N (a loop count). A crafted file could ask
// for terabytes; out-of-memory is fatal, not a panic to recover from.
var (
	pdfSizeRe    = lazyre.MustCompile(`/(Size|N)\s*(\d+)`)
	pdfXrefRe    = lazyre.MustCompile(`(\d+)\s+(\d+)\s+\d+\s+\d+\s+[fn]\b`)
	pdfWRe       = lazyre.MustCompile(`/W\s*\[\s*(\d+)\s+(\d+)\s+(\d+)`)
	pdfColumnsRe = lazyre.MustCompile(`/Columns\s*(\d+)`)
)

// checkPDFNumbers refuses a file whose tables claim more objects than it
// could hold (a real one needs bytes for every object) or fields wider
// than any real one.
func checkPDFNumbers(data []byte) error {
	limit := int64(len(data))/2 + 4096
	num := func(b []byte) int64 {
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return 1 << 62 // more digits than int64: certainly too big
		}
		return n
	}
	for _, m := range pdfSizeRe().FindAllSubmatch(data, -1) {
		if n := num(m[2]); n > limit {
			return fmt.Errorf("malformed PDF: /%s %d is implausible for a file of %d bytes", m[1], n, len(data))
		}
	}
	for _, m := range pdfXrefRe().FindAllSubmatch(data, -1) {
		if start, count := num(m[1]), num(m[2]); start > limit || count > limit {
			return fmt.Errorf("malformed PDF: cross-reference section %d %d is implausible for a file of %d bytes", start, count, len(data))
		}
	}
	for _, m := range pdfWRe().FindAllSubmatch(data, -1) {
		for _, w := range m[1:] {
			if num(w) > 16 {
				return fmt.Errorf("malformed PDF: cross-reference field width %s", w)
			}
		}
	}
	for _, m := range pdfColumnsRe().FindAllSubmatch(data, -1) {
		if num(m[1]) > 1<<20 {
			return fmt.Errorf("malformed PDF: /Columns %s", m[1])
		}
	}
	return nil
}

// readBudget is how many reads of the file one PDF may take. The library
// re-reads an object each time a key leads to it, so reads grow with
// pages and fonts, not just size: real manuals of 140 and 260 KB took 395
// and 879 reads, a generated 500-page file 2,026. Loops on a malformed
// file (an xref section whose /Prev names itself, an object stream that
// extends itself) read without end and hit this within a second.
func readBudget(size int) int {
	return 1<<16 + size/8
}

// guardedReader is the file as the library sees it. Every loop in the
// library that makes progress reads, so this is where the context and the
// read budget can stop it: the panic unwinds the library to readPDF.
type guardedReader struct {
	ctx    context.Context
	r      *bytes.Reader
	reads  int
	budget int
}

func (g *guardedReader) ReadAt(p []byte, off int64) (int, error) {
	if err := g.ctx.Err(); err != nil {
		panic(pdfAbort{context.Cause(g.ctx)})
	}
	if g.reads++; g.reads > g.budget {
		panic(errors.New("malformed PDF: reading it never ends (a reference loop?)"))
	}
	return g.r.ReadAt(p, off)
}
