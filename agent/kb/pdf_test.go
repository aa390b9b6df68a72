package kb

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ledongthuc/pdf"
)

// testPDF describes a PDF for makePDF to write.
type testPDF struct {
	version  string   // header version, default "1.4"
	pages    []string // each page's content stream
	title    string   // Info /Title, a literal string; "" for no Info
	compress bool     // FlateDecode the content streams
	fontless bool     // no font resources (raw bytes then)
	// kids replaces the page tree's Kids array (e.g. "[2 0 R]", naming the
	// tree itself), to make broken trees.
	kids string
	tail string // bytes after %%EOF
}

// makePDF writes a small, valid PDF: catalog, page tree, one Helvetica
// font with WinAnsiEncoding, a page and a content stream per page, and an
// exact cross-reference table, so the library reads it as it would a real
// file. Objects: 1 catalog, 2 pages, 3 font, 4 info, then page/content
// pairs.
func makePDF(t testing.TB, p testPDF) []byte {
	t.Helper()
	version := p.version
	if version == "" {
		version = "1.4"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%%PDF-%s\n%%\xe2\xe3\xcf\xd3\n", version)
	n := 4 + 2*len(p.pages)
	offsets := make([]int, n+1)
	obj := func(id int, body string) {
		offsets[id] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", id, body)
	}
	var kids []string
	for i := range p.pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 5+2*i))
	}
	obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	kidsArray := "[" + strings.Join(kids, " ") + "]"
	if p.kids != "" {
		kidsArray = p.kids
	}
	resources := "/Resources << /Font << /F1 3 0 R >> >>"
	if p.fontless {
		resources = ""
	}
	obj(2, fmt.Sprintf("<< /Type /Pages /Kids %s /Count %d %s >>", kidsArray, len(p.pages), resources))
	obj(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	obj(4, fmt.Sprintf("<< /Title (%s) /Producer (parley test) >>", p.title))
	for i, content := range p.pages {
		obj(5+2*i, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R >>", 6+2*i))
		data, filter := []byte(content), ""
		if p.compress {
			var z bytes.Buffer
			w := zlib.NewWriter(&z)
			w.Write(data)
			w.Close()
			data, filter = z.Bytes(), " /Filter /FlateDecode"
		}
		offsets[6+2*i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n<< /Length %d%s >>\nstream\n", 6+2*i, len(data), filter)
		b.Write(data)
		b.WriteString("\nendstream\nendobj\n")
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", n+1)
	for id := 1; id <= n; id++ {
		fmt.Fprintf(&b, "%010d 00000 n \n", offsets[id])
	}
	info := ""
	if p.title != "" {
		info = " /Info 4 0 R"
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R%s >>\nstartxref\n%d\n%%%%EOF\n%s", n+1, info, xref, p.tail)
	return b.Bytes()
}

// textPage shows lines of text the way most generators do: one text
// object, a font, a start position, then a line each.
func textPage(lines ...string) string {
	var b strings.Builder
	b.WriteString("BT\n/F1 12 Tf\n72 720 Td\n")
	for i, l := range lines {
		if i > 0 {
			b.WriteString("0 -14 Td\n")
		}
		fmt.Fprintf(&b, "(%s) Tj\n", l)
	}
	b.WriteString("ET\n")
	return b.String()
}

// TestMakePDFReadsWithLibrary checks the generator against the library's
// own plain-text reader, so the other tests rest on a file it accepts.
func TestMakePDFReadsWithLibrary(t *testing.T) {
	data := makePDF(t, testPDF{pages: []string{textPage("Hello, knowledge base"), textPage("Page two")}, compress: true})
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if n := r.NumPage(); n != 2 {
		t.Fatalf("NumPage = %d", n)
	}
	rd, err := r.GetPlainText()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.ReadFrom(rd)
	if !strings.Contains(out.String(), "Hello, knowledge base") || !strings.Contains(out.String(), "Page two") {
		t.Fatalf("library text = %q", out.String())
	}
}

func TestExtractPDF(t *testing.T) {
	twoPages := []string{
		textPage("Tide tables of Brest", "Coefficients above 95 bring strong currents."),
		"BT /F1 12 Tf 72 720 Td [(Second) -250 (page) 30 (s)] TJ T* (next line) ' ET",
	}
	many := make([]string, MaxPDFPages+1)
	for i := range many {
		many[i] = textPage(fmt.Sprintf("page %d", i+1))
	}
	tests := []struct {
		name    string
		pdf     testPDF
		raw     []byte // instead of pdf
		want    string // exact text
		title   string
		wantErr string
		isEmpty bool
	}{
		{
			name:  "text layer",
			pdf:   testPDF{pages: twoPages, title: "Tides"},
			want:  "Tide tables of Brest\nCoefficients above 95 bring strong currents.\n\nSecond pages\nnext line",
			title: "Tides",
		},
		{name: "compressed", pdf: testPDF{pages: twoPages[:1], compress: true}, want: "Tide tables of Brest\nCoefficients above 95 bring strong currents.", title: "report.pdf"},
		{name: "winansi accents", pdf: testPDF{pages: []string{textPage(`caf\351 cr\350me`)}}, want: "café crème", title: "report.pdf"},
		{name: "UTF-16 title", pdf: testPDF{pages: twoPages[:1], title: "\xfe\xff\x00T\x00\xea\x00t\x00e"}, title: "Tête"},
		{name: "PDF 2.0 header", pdf: testPDF{version: "2.0", pages: twoPages[:1]}, want: "Tide tables of Brest\nCoefficients above 95 bring strong currents."},
		{name: "bytes after EOF", pdf: testPDF{pages: twoPages[:1], tail: "\x00\x00\x00 junk from an uploader"}, want: "Tide tables of Brest\nCoefficients above 95 bring strong currents."},
		{name: "junk before header", raw: append([]byte("garbage\n"), makePDF(t, testPDF{pages: twoPages[:1]})...), wantErr: "", want: "Tide tables of Brest\nCoefficients above 95 bring strong currents."},
		{name: "no font resources", pdf: testPDF{pages: twoPages[:1], fontless: true}, want: "Tide tables of Brest\nCoefficients above 95 bring strong currents."},
		{
			name:    "no text layer",
			pdf:     testPDF{pages: []string{"0 0 1 rg 72 72 200 200 re f", "q 100 0 0 100 0 0 cm Q"}},
			wantErr: "report.pdf has no text layer (scanned?)", isEmpty: true,
		},
		{name: "no pages", pdf: testPDF{}, wantErr: "report.pdf has no pages", isEmpty: true},
		{name: "too many pages", pdf: testPDF{pages: many}, wantErr: "report.pdf is too large: it has more than 500 pages"},
		{name: "page tree loops", pdf: testPDF{pages: twoPages, kids: "[2 0 R]"}, wantErr: "the page tree is too deep or loops"},
		{name: "truncated", raw: makePDF(t, testPDF{pages: twoPages})[:300], wantErr: "report.pdf is not a readable PDF"},
		{name: "header only", raw: []byte("%PDF-1.7"), wantErr: "report.pdf is not a readable PDF"},
		{
			name:    "xref points nowhere",
			raw:     bytes.Replace(makePDF(t, testPDF{pages: twoPages}), []byte("startxref\n"), []byte("startxref\n1"), 1),
			wantErr: "report.pdf is not a readable PDF",
		},
		{
			name:    "garbled objects",
			raw:     bytes.ReplaceAll(makePDF(t, testPDF{pages: twoPages}), []byte(" obj"), []byte(" xxx")),
			wantErr: "report.pdf is not a readable PDF",
		},
		{
			name:    "absurd xref size",
			raw:     bytes.Replace(makePDF(t, testPDF{pages: twoPages}), []byte("xref\n0 "), []byte("xref\n999999999999 "), 1),
			wantErr: "cross-reference section 999999999999",
		},
		{name: "not a PDF at all", raw: []byte("<html><body>404 Not Found</body></html>"), wantErr: "report.pdf is not a PDF: it has no %PDF header (its content looks like text/html)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.raw
			if data == nil {
				data = makePDF(t, tt.pdf)
			}
			got, err := Extract(t.Context(), "report.pdf", "application/pdf", data)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q (got %+v)", err, tt.wantErr, got)
				}
				if errors.Is(err, ErrEmpty) != tt.isEmpty {
					t.Errorf("errors.Is(%v, ErrEmpty) = %v", err, !tt.isEmpty)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Kind != KindPDF {
				t.Errorf("kind = %q", got.Kind)
			}
			if tt.want != "" && got.Text != tt.want {
				t.Errorf("text = %q\nwant   %q", got.Text, tt.want)
			}
			if tt.title != "" && got.Title != tt.title {
				t.Errorf("title = %q, want %q", got.Title, tt.title)
			}
		})
	}
}

// TestExtractPDFCancelled: the context stops a long PDF between pages and
// inside a page's content.
func TestExtractPDFCancelled(t *testing.T) {
	var page strings.Builder
	page.WriteString("BT /F1 12 Tf ")
	for range 20_000 {
		page.WriteString("(word) Tj ")
	}
	page.WriteString("ET")
	pages := make([]string, 50)
	for i := range pages {
		pages[i] = page.String()
	}
	data := makePDF(t, testPDF{pages: pages, compress: true})

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Extract(ctx, "big.pdf", "", data); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before: err = %v", err)
	}

	ctx, cancel = context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Extract(ctx, "big.pdf", "", data)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "reading big.pdf") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s to stop", d)
	}
}

// loopingObjStmPDF is a PDF whose page content lives in an object stream
// that names itself as the stream it extends, so resolving it spins inside
// the library, beyond any callback that could look at the context.
func loopingObjStmPDF() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	offsets := map[int]int{}
	obj := func(id int, body string) {
		offsets[id] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", id, body)
	}
	obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj(3, "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>")
	obj(5, "<< /Type /ObjStm /N 0 /First 1 /Extends 5 0 R /Length 1 >>\nstream\n \nendstream")
	offsets[6] = b.Len()
	var entries bytes.Buffer
	entry := func(typ byte, f2 uint32, f3 uint16) {
		entries.Write([]byte{typ, byte(f2 >> 24), byte(f2 >> 16), byte(f2 >> 8), byte(f2), byte(f3 >> 8), byte(f3)})
	}
	entry(0, 0, 65535)
	for id := 1; id <= 6; id++ {
		if id == 4 {
			entry(2, 5, 0) // object 4 is number 0 in object stream 5
		} else {
			entry(1, uint32(offsets[id]), 0)
		}
	}
	fmt.Fprintf(&b, "6 0 obj\n<< /Type /XRef /Size 7 /W [1 4 2] /Root 1 0 R /Length %d >>\nstream\n", entries.Len())
	b.Write(entries.Bytes())
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", offsets[6])
	return b.Bytes()
}

// prevLoopPDF is a PDF whose cross-reference section names itself as the
// previous one, which the library follows for ever.
func prevLoopPDF(t testing.TB) []byte {
	data := makePDF(t, testPDF{pages: []string{textPage("looping")}})
	at := bytes.Index(data, []byte("\nxref\n")) + 1
	return bytes.Replace(data, []byte("trailer\n<<"), fmt.Appendf(nil, "trailer\n<< /Prev %d", at), 1)
}

func TestExtractPDFPrevLoop(t *testing.T) {
	_, err := Extract(t.Context(), "prev.pdf", "", prevLoopPDF(t))
	if err == nil || !strings.Contains(err.Error(), "prev.pdf is not a readable PDF") || !strings.Contains(err.Error(), "never ends") {
		t.Fatalf("err = %v", err)
	}
}

// TestExtractPDFRunaway: a loop inside the library, where no callback of
// ours runs, still ends: at the read budget, or at the deadline, and the
// goroutine reading the file ends with it.
func TestExtractPDFRunaway(t *testing.T) {
	data := loopingObjStmPDF()
	_, err := Extract(t.Context(), "loop.pdf", "", data)
	if err == nil || !strings.Contains(err.Error(), "loop.pdf is not a readable PDF") || !strings.Contains(err.Error(), "never ends") {
		t.Fatalf("no deadline: err = %v", err)
	}

	before := runtime.NumGoroutine()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = Extract(ctx, "loop.pdf", "", data)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "reading loop.pdf") {
		t.Fatalf("deadline: err = %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
	for deadline := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left behind", runtime.NumGoroutine()-before)
		}
	}
}

func TestCheckPDFNumbers(t *testing.T) {
	for _, tt := range []struct {
		data string
		ok   bool
	}{
		{"<< /Type /XRef /Size 12 /W [1 2 1] >>", true},
		{"<< /Type /XRef /Size 99999999 /W [1 2 1] >>", false},
		{"<< /Type /XRef /Size 99999999999999999999999 >>", false},
		{"<< /Type /XRef /Size 5 /W [1 2 100] >>", false},
		{"<< /DecodeParms << /Columns 5 /Predictor 12 >> >>", true},
		{"<< /DecodeParms << /Columns 999999999 /Predictor 12 >> >>", false},
		{"<< /Type /ObjStm /N 4000000000 /First 10 >>", false},
		{"xref\n0 3\n0000000000 65535 f \n", true},
		{"xref\n4000000000 1\n0000000000 00000 n \n", false},
	} {
		err := checkPDFNumbers([]byte(tt.data))
		if (err == nil) != tt.ok {
			t.Errorf("checkPDFNumbers(%q) = %v, want ok %v", tt.data, err, tt.ok)
		}
	}
}
