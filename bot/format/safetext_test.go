package format

import (
	"strings"
	"testing"
	"time"
	"unicode"
)

func TestCodeBlock(t *testing.T) {
	tests := []struct {
		name, in string
		limit    int
		want     string
		cut      int
	}{
		{"plain", "rm -rf /tmp/x", -1, "```\nrm -rf /tmp/x\n```", 0},
		{"empty", "  ", -1, "```\n  (no summary)\n```", 0},
		{"a fence cannot close", "a```b", -1, "```\na`" + zwsp + "`" + zwsp + "`b\n```", 0},
		{"mentions are broken", "@everyone <!here>", -1, "```\n@" + zwsp + "everyone <" + zwsp + "!here>\n```", 0},
		{"a bidi override shows", "ls \u202e", -1, "```\nls \ufffd\n```", 0},
		{"cut at the limit", "abcdef", 3, "```\nabc\n```", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := CodeBlock(tt.in, tt.limit)
			if got != tt.want || cut != tt.cut {
				t.Errorf("CodeBlock(%q, %d) = %q, %d; want %q, %d", tt.in, tt.limit, got, cut, tt.want, tt.cut)
			}
		})
	}
}

func TestSquash(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"  one\n\ttwo  three ", 100, "one two three"},
		{"abcdef", 3, "abc…"},
		{"ab cd", 3, "ab…"}, // a space at the limit cuts there: no text past max
		{"ab cd", 4, "ab c…"},
		{"ab cd", 5, "ab cd"},
		{"zero\u200bwidth", 100, "zerowidth"},
		{"👩\u200d💻 joins", 100, "👩\u200d💻 joins"},
	}
	for _, tt := range tests {
		if got := Squash(tt.in, tt.max); got != tt.want {
			t.Errorf("Squash(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{10 * time.Minute: "10 min", 30 * time.Second: "30 s", 90 * time.Second: "1m30s"} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// FuzzCodeBlock: whatever a model or a person wrote, the block is one
// fence that nothing inside closes, with no control or invisible format
// character but newlines and tabs.
func FuzzCodeBlock(f *testing.F) {
	for _, s := range []string{"", "```", "a``\n```b", "\u202e\u200b@here", "x\r\ny"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		block, _ := CodeBlock(s, 200)
		inner, ok := strings.CutPrefix(block, "```\n")
		if !ok {
			t.Fatalf("no opening fence: %q", block)
		}
		inner, ok = strings.CutSuffix(inner, "\n```")
		if !ok || strings.Contains(inner, "```") {
			t.Fatalf("the fence is closed early or not at all: %q", block)
		}
		for _, r := range inner {
			if r != '\n' && r != '\t' && (unicode.IsControl(r) || r != '\u200b' && r != '\u200d' && unicode.Is(unicode.Cf, r)) {
				t.Fatalf("%U survives in %q", r, block)
			}
		}
	})
}
