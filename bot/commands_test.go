package bot

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parleybot/parley/agent"
	"github.com/parleybot/parley/chat"
)

func TestParseCommand(t *testing.T) {
	tests := []struct {
		in   string
		name string
		args []string
		ok   bool
	}{
		{"/memory", "memory", nil, true},
		{"  /memory forget 2 ", "memory", []string{"forget", "2"}, true},
		{"!memory", "memory", nil, true},
		{"/memory@ParleyBot", "memory", nil, true},
		{"/NEW", "new", nil, true},
		{"/etc/passwd is world readable", "", nil, false},
		{"hello /memory", "", nil, false},
		{"/", "", nil, false},
		{"! ", "", nil, false},
		{"", "", nil, false},
	}
	for _, tt := range tests {
		name, args, ok := chat.ParseCommand(tt.in)
		if name != tt.name || ok != tt.ok || !slices.Equal(args, tt.args) {
			t.Errorf("ParseCommand(%q) = %q %q %v, want %q %q %v", tt.in, name, args, ok, tt.name, tt.args, tt.ok)
		}
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/memory forget 2", "!new", "/x@bot a b", "hi", "/é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, _, ok := chat.ParseCommand(s)
		if !ok {
			return
		}
		if name == "" || strings.ContainsAny(name, "@/! \t\n") || !utf8.ValidString(name) {
			t.Fatalf("ParseCommand(%q) gave name %q", s, name)
		}
	})
}

func TestFormatMemoryNumbersAcrossLists(t *testing.T) {
	got := FormatMemory(agent.Memory{Profile: []string{"a"}, Facts: []string{"b", "c"}}, agent.MemoryLimits{})
	for _, want := range []string{"1. a", "2. b", "3. c", "**Profile** (1 of 1500", "**Facts** (2 of 3000"} {
		if !strings.Contains(got, want) {
			t.Errorf("FormatMemory lacks %q:\n%s", want, got)
		}
	}
	if got := FormatMemory(agent.Memory{}, agent.MemoryLimits{}); !strings.Contains(got, "don't remember anything") {
		t.Errorf("empty memory: %q", got)
	}
}
