package webconsole

import "testing"

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
