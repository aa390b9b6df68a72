package format

import (
	"strings"
	"sync"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// mdParser is shared by every call. That is safe: goldmark's parser finishes
// its own setup under a sync.Once on first use and afterwards only reads its
// configuration; all per-document state lives in the parser.Context and the
// text.Reader created for each Parse (checked against goldmark v1.8.7:
// the block and inline parsers, GFM's table/strikethrough/linkify/tasklist
// parsers and the CJK option keep no per-call fields). TestParserConcurrent
// exercises this under -race. We never use goldmark's HTML renderer, so only
// the parser is kept. It is built on first use, not at start.
var mdParser = sync.OnceValue(func() parser.Parser {
	return goldmark.New(goldmark.WithExtensions(
		extension.GFM,
		// WithEscapedSpace makes `\ ` (inserted by the CJK pre-pass) count as
		// whitespace for emphasis flanking without triggering other parsers; the
		// dialects then drop it from the output.
		extension.NewCJK(extension.WithEscapedSpace()),
	)).Parser()
})

// document is one parsed Markdown source. src is the (sanitized, CJK
// pre-processed) text that every segment in root points into.
type document struct {
	src  []byte
	root ast.Node
}

// sanitize makes arbitrary model output safe to parse and to send: invalid
// UTF-8 and NUL become U+FFFD (platforms reject both), CRLF becomes LF so
// every dialect can reason about lines with '\n' alone.
func sanitize(md string) string {
	md = strings.ToValidUTF8(md, "\uFFFD")
	if strings.IndexByte(md, 0) >= 0 {
		md = strings.ReplaceAll(md, "\x00", "\uFFFD")
	}
	if strings.IndexByte(md, '\r') >= 0 {
		md = strings.ReplaceAll(md, "\r\n", "\n")
	}
	return md
}

// parseRaw parses src as is.
func parseRaw(src []byte) ast.Node {
	return mdParser().Parse(text.NewReader(src))
}

// parse sanitizes md, applies the CJK emphasis pre-pass and parses it.
//
// The pre-pass needs to know where code and raw HTML are so it never edits
// them, and the cheapest reliable source of that is goldmark itself: parse
// once, and only when the lexical scan found a CJK delimiter run to fix
// outside code, patch the source and parse again. Most answers parse once.
//
// Before any of that, limitNesting escapes nesting too deep to parse in
// reasonable time (nesting.go); it returns the tree it parsed, if any.
func parse(md string) *document {
	src, root, _ := limitNesting([]byte(sanitize(md)))
	if root == nil {
		root = parseRaw(src)
	}
	if cands := cjkCandidates(src); len(cands) > 0 {
		if keep := dropProtected(root, src, cands); len(keep) > 0 {
			src = insertEscapedSpaces(src, keep)
			root = parseRaw(src)
		}
	}
	return &document{src: src, root: root}
}
