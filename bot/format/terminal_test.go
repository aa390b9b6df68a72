package format

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestTerminalNoColour: without colour, Terminal writes what it writes
// with colour less the colours: code as written, the other attributes
// kept.
func TestTerminalNoColour(t *testing.T) {
	uncolour := strings.NewReplacer("\x1b[36m", "", "\x1b[39m", "")
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got, want := Terminal(tc.md, false), uncolour.Replace(tc.terminal); got != want {
				t.Errorf("input %q\n got %q\nwant %q", tc.md, got, want)
			}
		})
	}
	for md, want := range map[string]string{
		"use `fmt.Println` **now**":      "use fmt.Println " + tBold("now"),
		"```go\nx := 1\n\ny := 2\n```":   "    x := 1\n\n    y := 2",
		"- item\n\n  ```\n  code\n  ```": "• item\n\n    code",
		"> ```\n> quoted code\n> ```":    "│     quoted code",
	} {
		if got := Terminal(md, false); got != want {
			t.Errorf("input %q\n got %q\nwant %q", md, got, want)
		}
	}
}

// TestTerminalLinks: the label underlined, the URL after it unless the
// label is the URL; a label that leads nowhere is not underlined.
func TestTerminalLinks(t *testing.T) {
	for md, want := range map[string]string{
		"[docs](https://example.com/docs)":  tUnder("docs") + " (https://example.com/docs)",
		"[https://x.io](https://x.io)":      tUnder("https://x.io"),
		"[](https://x.io)":                  "https://x.io",
		"[rel](/docs) [js](javascript:x())": "rel js",
		"[*it*](https://x.io)":              tUnder(tItalic("it")) + " (https://x.io)",
		"# [Go](https://go.dev) **docs**":   tBold(tUnder("Go (https://go.dev) docs")),
		"## [Go](https://go.dev) docs":      tBold(tUnder("Go") + " (https://go.dev) docs"),
	} {
		if got := Terminal(md, true); got != want {
			t.Errorf("input %q\n got %q\nwant %q", md, got, want)
		}
	}
}

// TestTerminalControls: the model's text reaches the terminal without
// control characters, wherever it is in the Markdown: nothing it writes
// can clear the screen, move the cursor, retitle the window or write the
// clipboard.
func TestTerminalControls(t *testing.T) {
	tests := []struct{ name, md, want string }{
		{"erase display", "clear\x1b[2Jscreen", "clear[2Jscreen"},
		{"OSC 52 clipboard", "copy \x1b]52;c;ZWNobyBoaQ==\x07 this", "copy ]52;c;ZWNobyBoaQ== this"},
		{"OSC 0 title, ST", "\x1b]0;root@prod\x1b\\shell", "]0;root@prod\\shell"},
		{"C1 CSI", "csi \u009b2J c1", "csi 2J c1"},
		{"C1 OSC and ST", "\u009d52;c;eA==\u009c!", "52;c;eA==!"},
		{"C0 and DEL", "a\rb\bc\x7fd\x07e\x0ef\tg", "abcdef\tg"},
		{"not UTF-8", "\xff\x9b2J", "\uFFFD2J"},
		{"code span", "`\x1b[2J` code", tCyan("[2J") + " code"},
		{"code block", "```\n\x1b[1A\x1b[2Kline\r\n```", "    " + tCyan("[1A[2Kline")},
		{"link label and URL", "[la\x1bbel](https://e.com/\x1b[2J)", tUnder("label") + " (https://e.com/%1B%5B2J)"},
		{"heading", "## \x1b]0;title\x07 head", tBold("]0;title head")},
		{"table", "| a\x1b | b |\n|---|---|\n| \u009b1 | 2 |", "    " + tCyan("a | b") + "\n    " + tCyan("--+--") + "\n    " + tCyan("1 | 2")},
		{"HTML block", "<div>\x1b[2J</div>", "<div>[2J</div>"},
		{"raw HTML", "a <span \x1b[2J> b", "a <span [2J> b"},
		{"character references", "&#27;[2J &#x9b;2J &#127;&#x85;.", "[2J 2J ."},
		{"image", "![a\x1bb\x07c\u009b](https://x.io/a.png)", "[image: abc]"},
		{"quote", "> \x1b[31mred", "│ [31mred"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, colour := range []bool{true, false} {
				got := Terminal(tt.md, colour)
				want := tt.want
				if !colour {
					want = strings.NewReplacer("\x1b[36m", "", "\x1b[39m", "").Replace(want)
				}
				if got != want {
					t.Errorf("colour %v: input %q\n got %q\nwant %q", colour, tt.md, got, want)
				}
				if err := checkTerminal(got, colour); err != "" {
					t.Error(err)
				}
			}
		})
	}
}

func TestTerminalSafe(t *testing.T) {
	for in, want := range map[string]string{
		"":                            "",
		"plain text, tabs\tand\n":     "plain text, tabs\tand\n",
		"\x1b[2J\x1b]52;c;eA==\x07":   "[2J]52;c;eA==",
		"\u009b2J\u0085\u009f\u00a0é": "2J\u00a0é",
		"\x00\x7f\r\x1f":              "",
		"a\xffb\xc2\x9bc\x9b":         "a\uFFFDbc\uFFFD",
		"日本語 👍":                       "日本語 👍",
	} {
		if got := TerminalSafe(in); got != want {
			t.Errorf("TerminalSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// terminalSGR matches the escape sequences Terminal may write, each
// attribute's on and off.
var terminalSGR = regexp.MustCompile(`^\x1b\[(1|22|3|23|4|24|9|29|36|39)m`)

// checkTerminal reports what in Terminal's output could do more on a
// terminal than show text in the dialect's attributes: a control
// character other than a newline or a tab, an escape sequence other than
// the dialect's SGR, a colour without colour, an attribute switched on
// twice or left on at the end; "" when there is none.
func checkTerminal(out string, colour bool) string {
	if !utf8.ValidString(out) {
		return "invalid UTF-8 in " + strconv.Quote(out)
	}
	on := map[string]bool{}
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case c == 0x1b:
			m := terminalSGR.FindStringSubmatch(out[i:])
			if m == nil {
				return "escape sequence not the dialect's at " + strconv.Quote(out[i:min(i+8, len(out))]) + " in " + strconv.Quote(out)
			}
			code := m[1]
			if !colour && (code == "36" || code == "39") {
				return "colour without colour in " + strconv.Quote(out)
			}
			attr, set := sgrAttr(code)
			if on[attr] == set {
				return "attribute " + attr + " switched twice the same way in " + strconv.Quote(out)
			}
			on[attr] = set
			i += len(m[0]) - 1
		case c == '\n' || c == '\t':
		case c < 0x20 || c == 0x7f:
			return "control character in " + strconv.Quote(out)
		case c == 0xc2 && i+1 < len(out) && out[i+1] >= 0x80 && out[i+1] <= 0x9f:
			return "C1 control character in " + strconv.Quote(out)
		}
	}
	for attr, set := range on {
		if set {
			return "attribute " + attr + " left on in " + strconv.Quote(out)
		}
	}
	return ""
}

// sgrAttr names the attribute an SGR code sets (set) or resets.
func sgrAttr(code string) (attr string, set bool) {
	switch code {
	case "1", "22":
		return "bold", code == "1"
	case "3", "23":
		return "italic", code == "3"
	case "4", "24":
		return "underline", code == "4"
	case "9", "29":
		return "strike", code == "9"
	}
	return "colour", code == "36"
}
