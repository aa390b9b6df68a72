package outbound

import (
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/parleybot/parley/chat"
)

// utf16Len measures like Telegram: UTF-16 code units.
func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }

func TestCutLines(t *testing.T) {
	runes := utf8.RuneCountInString
	tests := []struct {
		name    string
		text    string
		limit   int
		measure func(string) int
		want    []string
	}{
		{"fits", "short", 10, runes, []string{"short"}},
		{"at a blank line", "aaaa\n\nbbbb\n\ncccc", 11, runes, []string{"aaaa\n\nbbbb", "cccc"}},
		{"blank line right after the prefix", "aaaa\n\nbbbb", 4, runes, []string{"aaaa", "bbbb"}},
		{"at a line end", "aaaa\nbbbb\ncccc", 10, runes, []string{"aaaa\nbbbb", "cccc"}},
		{"at a space", "aaaa bbbb cccc", 10, runes, []string{"aaaa bbbb", "cccc"}},
		{"no break: between runes", "ééééééé", 3, runes, []string{"ééé", "ééé", "é"}},
		{"UTF-16: never splits a surrogate pair", "😀😀😀", 3, utf16Len, []string{"😀", "😀", "😀"}},
		{"a rune wider than the limit still goes", "😀a", 1, utf16Len, []string{"😀", "a"}},
		{"blank", "\n\n  \n", 5, runes, nil},
		{"whitespace at a cut makes no empty part", "  0", 2, runes, []string{"0"}}, // found by FuzzCutLines
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cutLines(tt.text, tt.limit, tt.measure)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("cutLines(%q, %d) = %q, want %q", tt.text, tt.limit, got, tt.want)
			}
		})
	}
}

func FuzzCutLines(f *testing.F) {
	f.Add("aaaa\n\nbbbb cccc\ndddd", 5)
	f.Add("😀é\n\n\nx y", 2)
	f.Fuzz(func(t *testing.T, text string, limit int) {
		if limit < 2 || limit > 1000 || !utf8.ValidString(text) {
			return
		}
		parts := cutLines(text, limit, utf16Len)
		var kept strings.Builder
		for _, p := range parts {
			if p == "" || !utf8.ValidString(p) {
				t.Fatalf("bad part %q", p)
			}
			if n := utf16Len(p); n > limit && utf8.RuneCountInString(p) > 1 {
				t.Fatalf("part %q measures %d > %d", p, n, limit)
			}
			kept.WriteString(p)
		}
		// Only whitespace at the cuts is dropped.
		strip := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if strip(kept.String()) != strip(text) {
			t.Fatalf("content lost: %q → %q", text, parts)
		}
	})
}

func TestPartsRecutsOversizeSplits(t *testing.T) {
	tests := []struct {
		name  string
		split func(string, int, func(string) int) []string
	}{
		{"splitter ignores the limit", func(md string, _ int, _ func(string) int) []string { return []string{md} }},
		{"splitter returns nothing", func(string, int, func(string) int) []string { return nil }},
		{"no splitter", nil},
	}
	text := strings.Repeat("word ", 100) // 500 runes
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := NewDelivery(DeliveryConfig{
				Adapter: stubAdapter{caps: chat.Capabilities{MaxLen: 120, SplitAt: 100}},
				Outbox:  stubOutbox{},
				Split:   tt.split,
			})
			if err != nil {
				t.Fatal(err)
			}
			parts := d.parts(text)
			if len(parts) < 5 {
				t.Errorf("%d parts, want at least 5", len(parts))
			}
			for _, p := range parts {
				if n := utf8.RuneCountInString(p); n > 120 {
					t.Errorf("part of %d runes, over MaxLen", n)
				}
			}
		})
	}
}

func TestStatusLine(t *testing.T) {
	long := strings.Repeat("é", 300)
	tests := map[string]string{
		"running web_fetch…":        "running web_fetch…",
		"  padded  ":                "padded",
		"first line\nsecond line":   "first line",
		long:                        strings.Repeat("é", MaxStatusRunes-1) + "…",
		"web_fetch failed: timeout": "web_fetch failed: timeout",
	}
	for in, want := range tests {
		if got := statusLine(in); got != want {
			t.Errorf("statusLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestComposeFitsMaxLen(t *testing.T) {
	d, err := NewDelivery(DeliveryConfig{
		Adapter: stubAdapter{caps: chat.Capabilities{MaxLen: 20, SplitAt: 20}},
		Outbox:  stubOutbox{},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text   string
		more   bool
		status string
		want   string
	}{
		{"abc", false, "st", "abc\n\n_st_"},
		{"abc", true, "a long status line", "abc\n\n…"}, // the status goes first
		{strings.Repeat("x", 19), true, "st", strings.Repeat("x", 19)},
		{"", false, "", ""},
		{"", false, "st", "_st_"},
	}
	for _, tt := range tests {
		if got := d.compose(tt.text, tt.more, tt.status); got != tt.want {
			t.Errorf("compose(%q, %v, %q) = %q, want %q", tt.text, tt.more, tt.status, got, tt.want)
		}
	}
}

// stubAdapter and stubOutbox satisfy NewDelivery for tests of its pure
// helpers; they are never called.
type stubAdapter struct {
	chat.Adapter
	caps chat.Capabilities
}

func (a stubAdapter) Platform() string                { return "stub" }
func (a stubAdapter) Capabilities() chat.Capabilities { return a.caps }

type stubOutbox struct{ Outbox }
