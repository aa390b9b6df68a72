package webfetch

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

func TestClassifyContentType(t *testing.T) {
	tests := []struct {
		ct   string
		want contentKind
		err  string
	}{
		{"", kindUnknown, ""},
		{"text/html", kindHTML, ""},
		{"TEXT/HTML; charset=UTF-8", kindHTML, ""},
		{"text/html;;charset=utf-8", kindHTML, ""},
		{"application/xhtml+xml", kindHTML, ""},
		{"text/plain", kindText, ""},
		{"text/markdown; charset=utf-8", kindText, ""},
		{"text/csv", kindText, ""},
		{"application/json", kindText, ""},
		{"application/ld+json", kindText, ""},
		{"application/xml", kindText, ""},
		{"application/rss+xml", kindText, ""},
		{"image/svg+xml", 0, "unsupported content type image/svg+xml"},
		{"image/png", 0, "unsupported content type image/png"},
		{"application/pdf", 0, "unsupported content type application/pdf"},
		{"application/octet-stream", 0, "unsupported content type application/octet-stream"},
		{"video/mp4", 0, "unsupported content type video/mp4"},
	}
	for _, tt := range tests {
		got, err := classifyContentType(tt.ct)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err = %v, want %q", tt.ct, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q = %v, %v; want %v", tt.ct, got, err, tt.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	lines := strings.Repeat("abcdefghi\n", 20) // 200 characters
	words := strings.Repeat("word ", 40)       // 200 characters
	tests := []struct {
		name  string
		in    string
		max   int
		want  string
		total int
		cut   bool
	}{
		{"fits", "short", 10, "short", 5, false},
		{"exact", "exactly10!", 10, "exactly10!", 10, false},
		{"at line break", lines, 105, strings.TrimSpace(strings.Repeat("abcdefghi\n", 10)), 200, true},
		{"at space", words, 103, strings.TrimSpace(strings.Repeat("word ", 20)), 200, true},
		{"hard cut without nearby break", "aaaa bbbb cccc dddd", 12, "aaaa bbbb cc", 19, true},
		{"counts characters not bytes", "日本語のテキストです", 4, "日本語の", 10, true},
	}
	for _, tt := range tests {
		got, total, cut := truncate(tt.in, tt.max)
		if got != tt.want || total != tt.total || cut != tt.cut {
			t.Errorf("%s: truncate = %q, %d, %v; want %q, %d, %v", tt.name, got, total, cut, tt.want, tt.total, tt.cut)
		}
	}
}

func TestDataImagesDropped(t *testing.T) {
	f, err := newFetcher(Options{})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse("https://example.com/")
	src := `<html><body><p>Before</p><img alt="pixel" src="data:image/png;base64,` + strings.Repeat("A", 5000) +
		`"><p>After <img src="/real.png" alt="real"></p></body></html>`
	p, err := f.extract(context.Background(), kindHTML, "text/html", []byte(src), u)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(p.text, "base64") || !strings.Contains(p.text, "https://example.com/real.png") {
		t.Errorf("text = %q", p.text)
	}
}

// BenchmarkExtractHTML measures the CPU side of a fetch: charset detection,
// parsing, readability and Markdown conversion of a ~50 KB article page.
func BenchmarkExtractHTML(b *testing.B) {
	f, err := newFetcher(Options{})
	if err != nil {
		b.Fatal(err)
	}
	u, _ := url.Parse("https://example.com/article")
	body := []byte(bigHTML(50_000))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		p, err := f.extract(context.Background(), kindHTML, "text/html; charset=utf-8", body, u)
		if err != nil || len(p.text) < 10_000 {
			b.Fatalf("extract: %v (%d bytes)", err, len(p.text))
		}
	}
}
