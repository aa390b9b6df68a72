package kb

import (
	"bytes"
	"compress/zlib"
	"encoding/ascii85"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// deflate compresses parts, written one after another, with zlib.
func deflate(t testing.TB, parts ...func(w *zlib.Writer)) []byte {
	t.Helper()
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	for _, p := range parts {
		p(w)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// runOf writes n bytes of c.
func runOf(c byte, n int) func(w *zlib.Writer) {
	return func(w *zlib.Writer) {
		chunk := bytes.Repeat([]byte{c}, 1<<20)
		for n > 0 {
			k := min(n, len(chunk))
			w.Write(chunk[:k])
			n -= k
		}
	}
}

func text(s string) func(w *zlib.Writer) {
	return func(w *zlib.Writer) { w.Write([]byte(s)) }
}

// TestExtractPDFCompressionBomb: a content stream that inflates to one
// string token far past the cap is refused before the library lexes it
// (which would hold the whole token in memory); a large but real content
// stream is read.
func TestExtractPDFCompressionBomb(t *testing.T) {
	bomb := deflate(t, text("BT /F1 12 Tf 72 720 Td ("), runOf('a', maxPDFStream+1<<20), text(") Tj ET"))
	data := makePDF(t, testPDF{pages: []string{"placeholder"}})
	data = bytes.Replace(data, []byte("<< /Length 11 >>\nstream\nplaceholder"),
		fmt.Appendf(nil, "<< /Length %d /Filter /FlateDecode >>\nstream\n%s", len(bomb), bomb), 1)
	// The xref offsets of objects after the stream moved; the library
	// repairs nothing, so rebuild the file with the stream in place.
	_, _, err := extractPDF(t.Context(), "bomb.pdf", fixXref(t, data))
	if !errors.Is(err, errPDFStream) {
		t.Fatalf("extractPDF(bomb) = %v, want the stream cap", err)
	}
	if !strings.Contains(err.Error(), "bomb.pdf is too large") {
		t.Errorf("error %q does not name the file", err)
	}

	// 2,000 lines of text in one stream (about 60 KiB) stay well within it.
	lines := make([]string, 2000)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d of a long page", i)
	}
	got, _, err := extractPDF(t.Context(), "long.pdf", makePDF(t, testPDF{pages: []string{textPage(lines...)}, compress: true}))
	if err != nil || !strings.HasSuffix(got, "line 1999 of a long page") {
		t.Fatalf("a long real page: %v, text ends %q", err, got[max(0, len(got)-40):])
	}
}

// fixXref rewrites the cross-reference table of a file from makePDF whose
// objects moved.
func fixXref(t testing.TB, data []byte) []byte {
	t.Helper()
	x := bytes.Index(data, []byte("\nxref\n")) + 1
	var b bytes.Buffer
	b.Write(data[:x])
	body := data[:x]
	var offs []int
	for id := 1; ; id++ {
		i := bytes.Index(body, fmt.Appendf(nil, "\n%d 0 obj\n", id))
		if i < 0 {
			break
		}
		offs = append(offs, i+1)
	}
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	trailer := data[bytes.Index(data, []byte("trailer")):]
	trailer = trailer[:bytes.Index(trailer, []byte("startxref"))]
	b.Write(trailer)
	fmt.Fprintf(&b, "startxref\n%d\n%%%%EOF\n", x)
	return b.Bytes()
}

func TestCheckPDFObjectStreams(t *testing.T) {
	small := deflate(t, text("1 0 2 10 << /A 1 >> << /B 2 >>"))
	big := deflate(t, text("1 0 ("), runOf('z', maxPDFStream+1), text(")"))
	var a85 bytes.Buffer
	enc := ascii85.NewEncoder(&a85)
	enc.Write(big)
	enc.Close()
	a85.WriteString("~>")
	objStm := func(filter string, stream []byte) []byte {
		return fmt.Appendf(nil, "%%PDF-1.5\n7 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Length %d%s >>\nstream\n%s\nendstream\nendobj\n", len(stream), filter, stream)
	}
	tests := []struct {
		name string
		data []byte
		bomb bool
	}{
		{"small flate", objStm(" /Filter /FlateDecode", small), false},
		{"flate bomb", objStm(" /Filter /FlateDecode", big), true},
		{"flate bomb, filter in an array", objStm(" /Filter [/FlateDecode]", big), true},
		{"flate bomb under ASCII85", objStm(" /Filter [/ASCII85Decode /FlateDecode]", a85.Bytes()), true},
		{"flate bomb with DecodeParms", objStm(" /DecodeParms << /Columns 4 >> /Filter /Fl", big), true},
		{"bomb not an object stream", bytes.Replace(objStm(" /Filter /FlateDecode", big), []byte("/ObjStm"), []byte("/XObject"), 1), false},
		{"unknown filter", objStm(" /Filter /LZWDecode", big), false},
		{"not zlib", objStm(" /Filter /FlateDecode", []byte("plain bytes")), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkPDFObjectStreams(tt.data)
			if got := errors.Is(err, errPDFStream); got != tt.bomb {
				t.Errorf("checkPDFObjectStreams = %v, want a bomb %v", err, tt.bomb)
			}
		})
	}
}
