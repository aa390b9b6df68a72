package kb

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

func utf16le(s string) []byte {
	b := []byte{0xff, 0xfe}
	for _, r := range s { // BMP only, enough here
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}

func utf16be(s string) []byte {
	b := []byte{0xfe, 0xff}
	for _, r := range s {
		b = append(b, byte(r>>8), byte(r))
	}
	return b
}

const htmlPage = `<!doctype html><html><head><title>Onboarding | Acme Wiki</title>
<style>body { color: red } /* STYLE-SENTINEL */</style>
<script>var token = "SCRIPT-SENTINEL";</script></head>
<body><nav><a href="/">NAV-SENTINEL</a></nav><main><article><h1>Onboarding</h1>
<p>New starters get a laptop on their first day. The IT desk on the second floor sets up accounts,
and the team lead walks them through the code review process and the deploy checklist.</p>
<p>During the first week every new starter pairs with a buddy, who answers questions about tools,
meetings and where to find things. See <a href="/wiki/buddy">the buddy guide</a>.</p>
<table><tr><th>Day</th><th>Task</th></tr><tr><td>1</td><td>Laptop</td></tr></table>
</article></main><footer>FOOTER-SENTINEL</footer></body></html>`

func TestExtract(t *testing.T) {
	nulLate := append(bytes.Repeat([]byte("plain words "), 100), 0, 1, 2, 3)
	tests := []struct {
		name, file, ct string
		data           []byte
		kind, title    string
		text           string   // exact, when set
		contains       []string // in the text
		excludes       []string
		err            string // substring of the error; the error wraps errIs
		errIs          error
	}{
		// Markdown.
		{name: "markdown", file: "docs/guide.md", data: []byte("Intro line\n\n# Deploy Guide #\n\nStep one.\n"),
			kind: KindMarkdown, title: "Deploy Guide", text: "Intro line\n\n# Deploy Guide #\n\nStep one.\n"},
		{name: "markdown title skips fenced comment", file: "README.markdown",
			data: []byte("```sh\n# install it\nmake\n```\n\n# Real Title\n"), kind: KindMarkdown, title: "Real Title"},
		{name: "markdown setext title", file: "notes.md", data: []byte("Release Notes\n=============\n\n## 1.2\n"), kind: KindMarkdown, title: "Release Notes"},
		{name: "markdown without heading", file: "notes.md", data: []byte("## only a subsection\ntext"), kind: KindMarkdown, title: "notes.md"},
		{name: "markdown by content type", file: "upload", ct: "text/markdown; charset=utf-8", data: []byte("# From Slack\nbody"), kind: KindMarkdown, title: "From Slack"},
		{name: "markdown from a URL", file: "https://example.com/docs/setup.md?raw=1", data: []byte("# Setup\n"), kind: KindMarkdown, title: "Setup"},

		// HTML.
		{name: "html", file: "onboarding.html", data: []byte(htmlPage), kind: KindHTML, title: "Onboarding | Acme Wiki",
			contains: []string{"New starters get a laptop", "[the buddy guide](/wiki/buddy)", "| Day | Task |"},
			excludes: []string{"SCRIPT-SENTINEL", "STYLE-SENTINEL", "NAV-SENTINEL", "FOOTER-SENTINEL", "<p>", "color: red"}},
		{name: "html from a URL gets absolute links", file: "https://wiki.example.com/team/onboarding", ct: "text/html", data: []byte(htmlPage), kind: KindHTML,
			contains: []string{"[the buddy guide](https://wiki.example.com/wiki/buddy)"}},
		{name: "html by content type", file: "page", ct: "text/html; charset=utf-8", data: []byte(htmlPage), kind: KindHTML,
			contains: []string{"New starters get a laptop"}, excludes: []string{"SCRIPT-SENTINEL"}},
		{name: "html sniffed without a name", file: "", data: []byte(htmlPage), kind: KindHTML, title: "Onboarding | Acme Wiki"},
		{name: "html with meta charset", file: "old.htm",
			data: []byte(`<html><head><meta charset="iso-8859-1"><title>Caf` + "\xe9" + `</title></head><body><p>Cr` + "\xe8" + `me br` + "\xfb" + `l` + "\xe9" + `e</p></body></html>`),
			kind: KindHTML, title: "Café", contains: []string{"Crème brûlée"}},
		{name: "html in UTF-16", file: "w.html", data: utf16le("<html><head><title>Wide</title></head><body><p>wide text</p></body></html>"),
			kind: KindHTML, title: "Wide", contains: []string{"wide text"}},
		{name: "html without text", file: "empty.html", data: []byte("<html><head><script>x()</script></head><body> </body></html>"),
			err: "empty.html has no readable text", errIs: ErrEmpty},
		{name: "html named .txt stays text", file: "page.txt", data: []byte("<p>markup</p>"), kind: KindText, text: "<p>markup</p>"},

		// Code.
		{name: "go", file: "main.go", data: []byte("package main\n\nfunc main() {}\n"), kind: KindCode, title: "main.go", text: "package main\n\nfunc main() {}\n"},
		{name: "python", file: `C:\src\tool.py`, data: []byte("# not a title\nprint(1)\n"), kind: KindCode, title: "tool.py"},
		{name: "yaml", file: "ci.yml", data: []byte("on: push\n"), kind: KindCode},
		{name: "Dockerfile", file: "build/Dockerfile", data: []byte("FROM debian\n"), kind: KindCode, title: "Dockerfile"},
		{name: "json by content type", file: "data", ct: "application/json", data: []byte(`{"a": 1}`), kind: KindCode},
		{name: "dot-file", file: ".env.example", data: []byte("PORT=8080\n"), kind: KindText},

		// Plain text.
		{name: "txt", file: "notes.txt", data: []byte("line one\r\nline two\r\n"), kind: KindText, title: "notes.txt", text: "line one\r\nline two\r\n"},
		{name: "log", file: "app.log", data: []byte("12:00 started\n"), kind: KindText},
		{name: "csv sent as Excel", file: "sales.csv", ct: "application/vnd.ms-excel", data: []byte("a,b\n1,2\n"), kind: KindText, text: "a,b\n1,2\n"},
		{name: "no extension", file: "LICENSE", data: []byte("Permission is hereby granted…\n"), kind: KindText, title: "LICENSE"},
		{name: "unknown extension", file: "paper.rst2", data: []byte("Title\n-----\n"), kind: KindText},
		{name: "octet-stream upload of text", file: "todo", ct: "application/octet-stream", data: []byte("buy milk\n"), kind: KindText},
		{name: "starts like a bitmap", file: "cars.txt", data: []byte("BMW sales rose in March.\n"), kind: KindText},
		{name: "starts like a font", file: "names", data: []byte("OTTO and Anna\n"), kind: KindText},
		{name: "utf-8 BOM dropped", file: "bom.txt", data: []byte("\xef\xbb\xbfcafé\n"), kind: KindText, text: "café\n"},
		{name: "utf-16le", file: "wide.txt", data: utf16le("Grüße, 世界\r\nline 2"), kind: KindText, text: "Grüße, 世界\r\nline 2"},
		{name: "utf-16be", file: "wide.txt", data: utf16be("big endian ✓"), kind: KindText, text: "big endian ✓"},
		{name: "declared charset", file: "fr.txt", ct: "text/plain; charset=iso-8859-1", data: []byte("d\xe9j\xe0 vu"), kind: KindText, text: "déjà vu"},
		{name: "a stray invalid byte replaced", file: "mixed.txt", data: []byte(strings.Repeat("fine text ", 20) + "caf\xe9"), kind: KindText,
			contains: []string{"caf\uFFFD"}},
		{name: "another encoding refused", file: "ru.txt", data: []byte("\xcf\xf0\xe8\xe2\xe5\xf2 \xec\xe8\xf0"),
			err: `unsupported document type "text/plain; charset=unknown" (ru.txt)`, errIs: ErrUnsupported},

		// Refused.
		{name: "image", file: "photo.png", ct: "image/png", data: pngBytes,
			err: `unsupported document type "image/png" (photo.png): I can read text, Markdown, HTML, PDF and source code`, errIs: ErrUnsupported},
		{name: "png named .txt", file: "photo.txt", ct: "text/plain", data: pngBytes, err: `unsupported document type "image/png" (photo.txt)`, errIs: ErrUnsupported},
		{name: "jpeg", file: "dir/IMG_1.jpg", data: []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00"), err: `"image/jpeg" (IMG_1.jpg)`, errIs: ErrUnsupported},
		{name: "docx is a zip", file: "plan.docx", data: []byte("PK\x03\x04\x14\x00\x06\x00"), err: `"application/zip" (plan.docx)`, errIs: ErrUnsupported},
		{name: "binary after 512 bytes", file: "dump.txt", data: nulLate, err: `"application/octet-stream" (dump.txt)`, errIs: ErrUnsupported},
		{name: "binary named by its header", file: "blob", ct: "application/x-sqlite3", data: []byte("\x01\x02\x03\x04 data"), err: `"application/x-sqlite3" (blob)`, errIs: ErrUnsupported},
		{name: "svg by name", file: "logo.svg", data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"><text>Hi</text></svg>`), err: `"image/svg+xml" (logo.svg)`, errIs: ErrUnsupported},
		{name: "svg by content type", file: "logo", ct: "image/svg+xml", data: []byte(`<svg></svg>`), err: `"image/svg+xml" (logo)`, errIs: ErrUnsupported},
		{name: "postscript", file: "print", data: []byte("%!PS-Adobe-3.0\n/Times findfont\n"), err: `"application/postscript" (print)`, errIs: ErrUnsupported},

		// Nothing to index.
		{name: "empty file", file: "empty.md", data: nil, err: "empty.md is empty", errIs: ErrEmpty},
		{name: "whitespace only", file: "blank.txt", data: []byte(" \n\t\r\n"), err: "blank.txt has only whitespace", errIs: ErrEmpty},
		{name: "empty without a name", file: "", data: []byte{}, err: "the document is empty", errIs: ErrEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Extract(t.Context(), tt.file, tt.ct, tt.data)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v\nwant %q\n(got %+v)", err, tt.err, got)
				}
				if tt.errIs != nil && !errors.Is(err, tt.errIs) {
					t.Errorf("err %v does not wrap %v", err, tt.errIs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Kind != tt.kind {
				t.Errorf("kind = %q, want %q", got.Kind, tt.kind)
			}
			if tt.title != "" && got.Title != tt.title {
				t.Errorf("title = %q, want %q", got.Title, tt.title)
			}
			if tt.text != "" && got.Text != tt.text {
				t.Errorf("text = %q\nwant   %q", got.Text, tt.text)
			}
			for _, s := range tt.contains {
				if !strings.Contains(got.Text, s) {
					t.Errorf("text lacks %q\n---\n%s", s, got.Text)
				}
			}
			for _, s := range tt.excludes {
				if strings.Contains(got.Text, s) {
					t.Errorf("text contains %q\n---\n%s", s, got.Text)
				}
			}
			if !utf8.ValidString(got.Text) {
				t.Errorf("text is not valid UTF-8")
			}
		})
	}
}

func TestExtractCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Extract(ctx, "a.txt", "", []byte("text")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestMarkdownTitle(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"# Title", "Title"},
		{"  # Indented", "Indented"},
		{"    # code block", ""},
		{"#NoSpace", ""},
		{"# Closing ##", "Closing"},
		{"# C# tips", "C# tips"},
		{"#\n# Second", "Second"},
		{"~~~\n# in fence\n~~~\n# After", "After"},
		{"````\n```\n# still fenced\n````\n# Out", "Out"},
		{"Para\n===", "Para"},
		{"\n===", ""},
		{"## Sub\n# Main", "Main"},
	} {
		if got := markdownTitle(tt.in); got != tt.want {
			t.Errorf("markdownTitle(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzExtract: any bytes under any name and type give text or an error,
// never a panic or a hang, and the text is always valid and non-empty.
func FuzzExtract(f *testing.F) {
	seeds := []struct {
		name, ct string
		data     []byte
	}{
		{"a.txt", "", []byte("hello\r\nworld")},
		{"a.md", "text/markdown", []byte("# T\n```\n# x\n```")},
		{"a.html", "text/html; charset=iso-8859-1", []byte(htmlPage)},
		{"a", "", []byte("<!DOCTYPE html><title>x</title><p>y")},
		{"a.go", "", []byte("package x")},
		{"a.txt", "", utf16le("wide")},
		{"a.txt", "", pngBytes},
		{"a.pdf", "application/pdf", makePDF(f, testPDF{pages: []string{textPage("Hello"), "BT [(a) -300 (b)] TJ ET"}, title: "T"})},
		{"b.pdf", "", makePDF(f, testPDF{pages: []string{textPage("zipped")}, compress: true})},
		{"c.pdf", "", makePDF(f, testPDF{pages: []string{textPage("x")}, kids: "[2 0 R 5 0 R]"})},
		{"d.pdf", "", []byte("%PDF-1.4\ntrailer\n<< /Root 1 0 R >>\nstartxref\n9\n%%EOF\n")},
		{"e.pdf", "", loopingObjStmPDF()}, // an xref stream and an object stream
		{"", "", nil},
	}
	for _, s := range seeds {
		f.Add(s.name, s.ct, s.data)
	}
	f.Fuzz(func(t *testing.T, name, ct string, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		got, err := Extract(ctx, name, ct, data)
		if err != nil {
			if got != (Extracted{}) {
				t.Fatalf("error %v with a result %+v", err, got)
			}
			return
		}
		switch got.Kind {
		case KindText, KindMarkdown, KindHTML, KindPDF, KindCode:
		default:
			t.Fatalf("kind %q", got.Kind)
		}
		if !utf8.ValidString(got.Text) || !utf8.ValidString(got.Title) {
			t.Fatalf("invalid UTF-8: %+v", got)
		}
		if strings.TrimSpace(got.Text) == "" || got.Title == "" {
			t.Fatalf("empty text or title: %+v", got)
		}
	})
}
