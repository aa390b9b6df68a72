package webconsole

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestPagesParse: every page parses with the layout. New leaves parsing
// to the first page shown, so this is where a broken template fails.
func TestPagesParse(t *testing.T) {
	pages, err := parsePages()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range pageNames {
		if pages[name] == nil || pages[name].Lookup("content") == nil {
			t.Errorf("page %q has no content", name)
		}
	}
}

// BenchmarkParsePages is what the first page shown pays once.
func BenchmarkParsePages(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parsePages(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestRoutes: every route registers. New leaves that to the first
// request too, so this is where two conflicting patterns fail (ServeMux
// panics on them).
func TestRoutes(t *testing.T) {
	mux := (&Server{}).routes()
	for _, path := range []string{"/", "/login/x", "/conversations", "/static/app.css", "/usage"} {
		r := httptest.NewRequest(http.MethodGet, path, nil)
		if _, pattern := mux.Handler(r); pattern == "" {
			t.Errorf("GET %s: no route", path)
		}
	}
}

// BenchmarkRoutes is what the first request pays once.
func BenchmarkRoutes(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		(&Server{}).routes()
	}
}
