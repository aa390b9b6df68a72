package kb

import (
	"bytes"
	"compress/zlib"
	"encoding/ascii85"
	"fmt"
	"io"

	"github.com/ledongthuc/pdf"

	"github.com/parleybot/parley/internal/lazyre"
)

// maxPDFStream caps what one stream the reader parses may expand to. The
// library parses content streams, Unicode maps and object streams with a
// lexer that holds a whole token in memory, and a deflated run of one
// byte shrinks about a thousandfold: a 20 MB file could make one string
// token of 20 GB. Real content streams are a few MiB at most.
const maxPDFStream = 64 << 20

var errPDFStream = fmt.Errorf("a stream in it expands to more than %d MiB when decompressed (a compression bomb?)", maxPDFStream>>20)

// checkInflated reads the decoded stream v (each stream of an array of
// them) through to maxPDFStream before the library parses it, in constant
// memory, and stops the reading (pdfAbort) if it is longer. A stream the
// library cannot decode is left for the parse to report.
func checkInflated(v pdf.Value) {
	switch v.Kind() {
	case pdf.Array:
		for i := range v.Len() {
			checkInflated(v.Index(i))
		}
	case pdf.Stream:
		n, _ := io.Copy(io.Discard, io.LimitReader(v.Reader(), maxPDFStream+1))
		if n > maxPDFStream {
			panic(pdfAbort{errPDFStream})
		}
	}
}

// Object streams are read by the library when it resolves an object kept
// in one, which happens anywhere a key is followed, so they are checked in
// the file's bytes before it is opened: each dictionary naming /ObjStm,
// its filters, and the data after its "stream" keyword.
var (
	pdfObjStmRe = lazyre.MustCompile(`<<((?:[^<>]|<<[^<>]*>>)*?/Type\s*/ObjStm(?:[^<>]|<<[^<>]*>>)*?)>>\s*stream\r?\n`)
	pdfFilterRe = lazyre.MustCompile(`/Filter\s*(\[[^\]]*\]|/[A-Za-z0-9]+)`)
	pdfNameRe   = lazyre.MustCompile(`/([A-Za-z0-9]+)`)
)

// checkPDFObjectStreams refuses a file with an object stream that expands
// beyond maxPDFStream. It decodes the filters the library knows (Flate,
// ASCII85); a zlib stream ends itself, so the data is read from the
// stream's start whatever its /Length says, which can only count more than
// the library would read.
func checkPDFObjectStreams(data []byte) error {
	for _, m := range pdfObjStmRe().FindAllSubmatchIndex(data, -1) {
		dict, start := data[m[2]:m[3]], m[1]
		var filters []string
		if f := pdfFilterRe().FindSubmatch(dict); f != nil {
			for _, n := range pdfNameRe().FindAllSubmatch(f[1], -1) {
				filters = append(filters, string(n[1]))
			}
		}
		if decodedLen(data[start:], filters) > maxPDFStream {
			return errPDFStream
		}
	}
	return nil
}

// decodedLen is how long raw decodes to through filters, counted up to
// one byte past maxPDFStream; what cannot be decoded counts as read so
// far.
func decodedLen(raw []byte, filters []string) int64 {
	var r io.Reader = bytes.NewReader(raw)
	for _, f := range filters {
		switch f {
		case "FlateDecode", "Fl":
			zr, err := zlib.NewReader(r)
			if err != nil {
				return 0
			}
			r = zr
		case "ASCII85Decode", "A85":
			r = ascii85.NewDecoder(ascii85Data(r))
		default:
			return 0 // the library refuses other filters
		}
	}
	n, _ := io.Copy(io.Discard, io.LimitReader(r, maxPDFStream+1))
	return n
}

// ascii85Data is the ASCII85 text at the start of r: up to its "~>" end,
// without whitespace, as the library feeds its decoder.
func ascii85Data(r io.Reader) io.Reader {
	b, _ := io.ReadAll(io.LimitReader(r, 5*maxPDFStream/4+16))
	if i := bytes.Index(b, []byte("~>")); i >= 0 {
		b = b[:i]
	}
	return bytes.NewReader(bytes.Map(func(c rune) rune {
		if c >= '!' && c <= 'u' || c == 'z' {
			return c
		}
		return -1
	}, b))
}
