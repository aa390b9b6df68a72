package postgres

import (
	"slices"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/kb"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"schedule.next_run_at = now", []string{"schedule", "next_run_at", "now"}},
		{"ParseModelRef(s)", []string{"parsemodelref", "s"}},
		{"Café naïve ÉCOLE", []string{"cafe", "naive", "ecole"}},
		{"a-b c/d e:f", []string{"a", "b", "c", "d", "e", "f"}},
		{"设备 备申 x", []string{"设备", "备申", "x"}},
		{"Ωμέγα", []string{"ωμέγα"}}, // only Latin letters lose their diacritics
		{"it's", []string{"it", "s"}},
		{"", nil},
		{"\x00 '\\", nil},
		{strings.Repeat("x", maxLexeme+1) + " ok", []string{"ok"}},
	}
	for _, tt := range tests {
		if got := tokens(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("tokens(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestTsvectorLiteral(t *testing.T) {
	got := tsvectorLiteral("the key, the KEY", "设", "key.md")
	// Columns are one position apart: body 1–4, uni 6, head 8–9.
	want := `'the':1A,3A 'key':2A,4A,8C '设':6B 'md':9C`
	if got != want {
		t.Errorf("tsvectorLiteral = %s\nwant              %s", got, want)
	}
	if got := tsvectorLiteral("", "", ""); got != "" {
		t.Errorf("empty text: %q", got)
	}
}

func TestTsqueryTerms(t *testing.T) {
	tests := []struct {
		match, want string
	}{
		{kb.MatchQuery("rotate signing key"), `('rotate' <-> 'signing' <-> 'key') | 'rotate' | 'signing' | 'key'`},
		{kb.MatchQuery("next_run_at"), `'next_run_at'`},
		{kb.MatchQuery("成语接龙"), `('成语' <-> '语接' <-> '接龙') | '成语' | '语接' | '接龙'`},
		{kb.MatchQuery(`"signing key" OR NOT -x:*`), `('signing' <-> 'key' <-> 'or' <-> 'not' <-> 'x') | 'signing' | 'key' | 'not' | 'x'`}, // "or" a stop word,
		{`"say ""hi""" OR "it's"`, `('say' <-> 'hi') | ('it' <-> 's')`},
		{`"unterminated`, `'unterminated'`},
		{`OR AND`, ``},
		{`"" OR "-"`, ``},
		{kb.MatchQuery("\x00"), ``},
	}
	for _, tt := range tests {
		if got := strings.Join(tsqueryTerms(tt.match), " | "); got != tt.want {
			t.Errorf("tsqueryTerms(%q) = %s\nwant %s", tt.match, got, tt.want)
		}
	}
}
