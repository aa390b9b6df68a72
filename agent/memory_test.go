package agent

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestMemoryEdits(t *testing.T) {
	base := []string{"prefers Go", "works in Berlin", "uses vim"}
	tests := []struct {
		name    string
		edit    func([]string) ([]string, error)
		want    []string
		wantErr string
	}{
		{"add", func(e []string) ([]string, error) { return AddEntry(e, "  likes tea ", 100) }, append(slices.Clone(base), "likes tea"), ""},
		{"add duplicate", func(e []string) ([]string, error) { return AddEntry(e, "uses vim", 100) }, nil, "already remembered"},
		{"add empty", func(e []string) ([]string, error) { return AddEntry(e, "  ", 100) }, nil, "empty"},
		{"add over cap", func(e []string) ([]string, error) { return AddEntry(e, strings.Repeat("x", 70), 100) }, nil, "memory full: consolidate or remove entries first"},
		{"cap counts runes not bytes", func(e []string) ([]string, error) { return AddEntry(nil, strings.Repeat("语", 100), 100) }, []string{strings.Repeat("语", 100)}, ""},
		{"replace by substring", func(e []string) ([]string, error) { return ReplaceEntry(e, "Berlin", "works in Lisbon", 100) }, []string{"prefers Go", "works in Lisbon", "uses vim"}, ""},
		{"replace ambiguous", func(e []string) ([]string, error) { return ReplaceEntry(e, "s", "x", 100) }, nil, "more than one entry"},
		{"replace exact wins over ambiguity", func(e []string) ([]string, error) {
			return ReplaceEntry([]string{"Go", "Go modules"}, "Go", "Rust", 100)
		}, []string{"Rust", "Go modules"}, ""},
		{"replace missing", func(e []string) ([]string, error) { return ReplaceEntry(e, "Paris", "x", 100) }, nil, "no entry contains"},
		{"replace into duplicate", func(e []string) ([]string, error) { return ReplaceEntry(e, "vim", "prefers Go", 100) }, nil, "already remembered"},
		{"replace over cap", func(e []string) ([]string, error) { return ReplaceEntry(e, "vim", strings.Repeat("y", 90), 100) }, nil, "memory full"},
		{"remove", func(e []string) ([]string, error) { return RemoveEntry(e, "Berlin") }, []string{"prefers Go", "uses vim"}, ""},
		{"remove empty old_text", func(e []string) ([]string, error) { return RemoveEntry(e, "") }, nil, "old_text is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(base)
			got, err := tt.edit(in)
			if !slices.Equal(in, base) {
				t.Fatalf("edit modified its input: %q", in)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestMemoryFullIsDetectable(t *testing.T) {
	_, err := AddEntry([]string{"abc"}, "defg", 5)
	if !errors.Is(err, ErrMemoryFull) {
		t.Fatalf("err = %v, want ErrMemoryFull", err)
	}
}

func TestMemoryLimitsDefaults(t *testing.T) {
	var l MemoryLimits
	if l.Cap(Profile) != DefaultProfileCap || l.Cap(Facts) != DefaultFactsCap || l.Cap(Team) != DefaultTeamCap {
		t.Fatalf("zero limits: got %d/%d/%d", l.Cap(Profile), l.Cap(Facts), l.Cap(Team))
	}
	l = MemoryLimits{Profile: 10, Facts: 20, Team: 30}
	if l.Cap(Profile) != 10 || l.Cap(Facts) != 20 || l.Cap(Team) != 30 {
		t.Fatalf("configured limits ignored")
	}
}
