package discord_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readDiscord reads Discord Markdown the way the Discord client shows it:
// the text a person reads, and the runs shown bold and as code. It knows
// what the conformance checks need: **bold**, `code`, ``` fences (with a
// language line) and backslash escapes.
func readDiscord(s string) (text string, bold, code []string) {
	var out strings.Builder
	boldAt := -1
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "```") && strings.Contains(s[i+3:], "```"):
			end := strings.Index(s[i+3:], "```")
			body := s[i+3 : i+3+end]
			if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], " \t") {
				body = body[nl+1:] // the language line
			}
			out.WriteString(body)
			code = append(code, body)
			i += 3 + end + 3
		case s[i] == '`' && strings.IndexByte(s[i+1:], '`') >= 0:
			end := strings.IndexByte(s[i+1:], '`')
			out.WriteString(s[i+1 : i+1+end])
			code = append(code, s[i+1:i+1+end])
			i += end + 2
		case strings.HasPrefix(s[i:], "**"):
			if boldAt < 0 {
				boldAt = out.Len()
			} else {
				bold = append(bold, out.String()[boldAt:])
				boldAt = -1
			}
			i += 2
		case s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\`*_~|>#-[]()<@!.:", s[i+1]) >= 0:
			out.WriteByte(s[i+1])
			i += 2
		default:
			out.WriteByte(s[i])
			i++
		}
	}
	return out.String(), bold, code
}

func TestReadDiscord(t *testing.T) {
	for _, tt := range []struct {
		in, text   string
		bold, code []string
	}{
		{in: "Deploy **finished** with `make ship` now", text: "Deploy finished with make ship now",
			bold: []string{"finished"}, code: []string{"make ship"}},
		{in: "```go\nx := 1\n```", text: "x := 1\n", code: []string{"x := 1\n"}},
		{in: `2 \* 3 \_ok\_`, text: "2 * 3 _ok_"},
		{in: "**`a`**", text: "a", bold: []string{"a"}, code: []string{"a"}},
		{in: "unclosed ` and **", text: "unclosed ` and "},
	} {
		text, bold, code := readDiscord(tt.in)
		if text != tt.text || !cmp.Equal(bold, tt.bold) || !cmp.Equal(code, tt.code) {
			t.Errorf("readDiscord(%q) = %q, %q, %q; want %q, %q, %q", tt.in, text, bold, code, tt.text, tt.bold, tt.code)
		}
	}
}
