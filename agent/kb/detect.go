package kb

import (
	"bytes"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Kinds of document, as Extracted.Kind and Document.Kind name them.
const (
	KindText     = "text"
	KindMarkdown = "markdown"
	KindHTML     = "html"
	KindPDF      = "pdf"
	KindCode     = "code"
)

// Extensions by kind. A file's name is the best hint to what a text is
// (a .py file is code whatever its bytes look like), but content decides
// whether it is text at all; see detect.
var (
	markdownExts = set(".md", ".markdown", ".mdown", ".mkd", ".mdx")
	htmlExts     = set(".html", ".htm", ".xhtml", ".shtml")
	textExts     = set(".txt", ".text", ".log", ".csv", ".tsv", ".rst", ".adoc", ".asciidoc", ".org", ".tex")
	codeExts     = set(
		".go", ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", ".vue", ".svelte",
		".java", ".kt", ".kts", ".groovy", ".gradle", ".scala", ".sc", ".clj", ".cljs", ".edn",
		".rs", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".m", ".mm", ".zig",
		".cs", ".fs", ".fsx", ".vb", ".rb", ".php", ".pl", ".pm", ".lua", ".r", ".jl", ".dart",
		".swift", ".ex", ".exs", ".erl", ".hrl", ".hs", ".ml", ".mli", ".elm", ".sol", ".nim",
		".sh", ".bash", ".zsh", ".fish", ".ps1", ".bat", ".cmd",
		".sql", ".graphql", ".gql", ".proto", ".thrift", ".avsc",
		".yaml", ".yml", ".toml", ".json", ".jsonc", ".json5", ".ndjson", ".jsonl", ".ipynb",
		".xml", ".xsd", ".xsl", ".ini", ".cfg", ".conf", ".properties", ".env",
		".tf", ".tfvars", ".hcl", ".nix", ".cmake", ".mk", ".dockerfile",
		".css", ".scss", ".sass", ".less", ".diff", ".patch", ".s", ".asm",
	)
	// Source files known by their whole name.
	codeNames = set("makefile", "gnumakefile", "dockerfile", "containerfile", "jenkinsfile",
		"vagrantfile", "rakefile", "gemfile", "podfile", "procfile", "justfile", "caddyfile")
	// Text formats that are not documents: their text is drawing or
	// typesetting commands, which would only fill the index with noise.
	refusedExts = map[string]string{
		".svg":  "image/svg+xml",
		".rtf":  "application/rtf",
		".ps":   "application/postscript",
		".eps":  "application/postscript",
		".ai":   "application/postscript",
		".fdf":  "application/vnd.fdf",
		".xfdf": "application/vnd.adobe.xfdf",
	}
)

func set(items ...string) map[string]bool {
	m := make(map[string]bool, len(items))
	for _, s := range items {
		m[s] = true
	}
	return m
}

// sniffLen is how much of a file the binary checks read: enough to catch
// binary formats that DetectContentType's 512 bytes do not know.
const sniffLen = 8 << 10

// pdfMagicWindow: readers accept a PDF header anywhere in the first KiB
// (some generators prepend junk), with offsets counted from the header.
const pdfMagicWindow = 1024

// detection is what detect found: a kind, or the type to name in a refusal.
type detection struct {
	kind string // "" when refused
	typ  string // the detected media type, for the refusal message
	// pdfStart is where the %PDF header starts, for KindPDF.
	pdfStart int
}

// detect decides what data is from its name (file name, path or URL), the
// declared Content-Type (may be empty or wrong: uploads often say
// application/octet-stream, and Windows says application/vnd.ms-excel for
// CSV) and its bytes. Content wins over names for what is binary, since a
// renamed photo must not be indexed as text; names win among text kinds.
func detect(name, contentType string, data []byte) detection {
	ext, base := extension(name)
	declared := mediaType(contentType)
	sniffed := mediaType(http.DetectContentType(data))

	head := data[:min(len(data), pdfMagicWindow)]
	if i := bytes.Index(head, []byte("%PDF-")); i == 0 || i > 0 && (ext == ".pdf" || declared == "application/pdf") {
		return detection{kind: KindPDF, pdfStart: i}
	}
	if ext == ".pdf" || declared == "application/pdf" {
		// Named a PDF but not one: extractPDF says so, which is clearer
		// than calling a .pdf an unsupported type.
		return detection{kind: KindPDF, pdfStart: -1, typ: sniffed}
	}
	if isBinary(data, sniffed) || sniffed == "application/postscript" {
		typ := sniffed
		if strings.HasPrefix(typ, "text/") {
			typ = "application/octet-stream" // binary beyond what DetectContentType read
		}
		if typ == "application/octet-stream" && declared != "" && !textual(declared) {
			typ = declared // the sender may know better than "some bytes"
		}
		return detection{typ: typ}
	}
	for _, p := range []string{"image/", "audio/", "video/", "font/", "model/"} {
		if strings.HasPrefix(declared, p) {
			return detection{typ: declared} // SVG is text, still an image
		}
	}
	if typ, ok := refusedExts[ext]; ok {
		return detection{typ: typ}
	}

	switch {
	case markdownExts[ext]:
		return detection{kind: KindMarkdown}
	case htmlExts[ext]:
		return detection{kind: KindHTML}
	case codeExts[ext], ext == "" && codeNames[strings.ToLower(base)]:
		return detection{kind: KindCode}
	case textExts[ext]:
		return detection{kind: KindText}
	}
	switch {
	case declared == "text/markdown" || declared == "text/x-markdown":
		return detection{kind: KindMarkdown}
	case declared == "text/html" || declared == "application/xhtml+xml":
		return detection{kind: KindHTML}
	case codeType(declared):
		return detection{kind: KindCode}
	case strings.HasPrefix(declared, "text/"):
		return detection{kind: KindText}
	case sniffed == "text/html":
		// No telling name or header, but it starts like a web page.
		return detection{kind: KindHTML}
	}
	// Text with no extension, or one we do not know (.rst-like notes,
	// config files): still text.
	return detection{kind: KindText}
}

// isBinary reports whether data is not text. sniffed is
// http.DetectContentType's media type for it.
func isBinary(data []byte, sniffed string) bool {
	if hasUTF16BOM(data) {
		return false // text, though full of NULs
	}
	sample := data[:min(len(data), sniffLen)]
	if bytes.IndexByte(sample, 0) >= 0 {
		return true // beyond the 512 bytes DetectContentType reads
	}
	if strings.HasPrefix(sniffed, "text/") {
		return false
	}
	// A magic number matched, but some are short enough for text to start
	// with them ("BM" is a bitmap, "OTTO" a font, "ID3" an MP3: "BMW
	// sales…"). Real files of those formats have binary bytes early on.
	return !cleanText(sample)
}

// cleanText reports whether b is UTF-8 (its last rune may be cut) without
// the control bytes that mark binary data. The set is
// DetectContentType's: tab, line ends, form feed and ESC are text.
func cleanText(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b {
			return false
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return len(b)-i < utf8.UTFMax && !utf8.FullRune(b[i:]) // cut at the end of the sample
		}
		i += size
	}
	return true
}

func hasUTF16BOM(data []byte) bool {
	return bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff})
}

// textual reports whether a declared media type is a kind of text.
func textual(mt string) bool {
	return strings.HasPrefix(mt, "text/") || codeType(mt) || mt == "application/xhtml+xml"
}

// codeType reports whether a declared media type is source or structured
// data that reads best as code.
func codeType(mt string) bool {
	switch mt {
	case "application/json", "application/xml", "text/xml", "application/yaml", "application/x-yaml",
		"text/yaml", "application/toml", "application/javascript", "text/javascript", "text/css",
		"application/sql", "application/x-sh", "application/graphql", "application/x-ndjson":
		return true
	}
	return strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") ||
		strings.HasPrefix(mt, "text/x-") && mt != "text/x-markdown"
}

// mediaType returns a Content-Type's media type, lower case, without
// parameters; "" when there is none.
func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		// Tolerate "text/html;;charset=utf-8" and the like.
		mt, _, _ = strings.Cut(ct, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

// extension returns the lower-case extension (".md") and base name of a
// file name, path (either slash) or URL.
func extension(name string) (ext, base string) {
	base = baseName(name)
	// A dot-file's whole name is its extension (.env, .gitignore).
	if i := strings.LastIndexByte(base, '.'); i >= 0 && base != "." && base != ".." {
		ext = strings.ToLower(base[i:])
	}
	return ext, base
}

// baseName returns the last element of a file name, path or URL.
func baseName(name string) string {
	if u, err := url.Parse(name); err == nil && u.Scheme != "" && u.Host != "" {
		name = u.Path
	}
	name = strings.TrimRight(name, `/\`)
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	return name
}
