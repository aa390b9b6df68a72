package format

import "testing"

func TestStablePrefix(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"complete", "Hello **world**.", "Hello **world**."},
		{"complete lines kept", "a **b\nc", "a **b\nc"},
		{"open bold", "Hello **wor", "Hello "},
		{"open italic", "Hello *wor", "Hello "},
		{"open underscore", "Hello _wor", "Hello "},
		{"open strike", "Hello ~~wor", "Hello "},
		{"run at end", "Hello **", "Hello "},
		{"literal star", "2 * 3 = 6", "2 * 3 = 6"},
		{"closed then open", "**a** and *b", "**a** and "},
		{"open code span", "Use `fmt.Prin", "Use "},
		{"closed code span", "Use `x` now", "Use `x` now"},
		{"star inside code", "Use `a*b` now", "Use `a*b` now"},
		{"link label", "see [the do", "see "},
		{"link bracket", "see [the docs]", "see "},
		{"link url", "see [docs](https://exa", "see "},
		{"link done", "see [docs](https://x.io) ok", "see [docs](https://x.io) ok"},
		{"image", "look ![alt](http", "look "},
		{"brackets not a link", "a[0] and b", "a[0] and b"},
		{"autolink", "go to <https://exa", "go to "},
		{"less than", "a < b", "a < b"},
		{"entity", "fish &am", "fish "},
		{"backslash", "escape \\", "escape "},
		{"list marker", "Intro\n- ", "Intro\n"},
		{"ordered marker", "Intro\n12.", "Intro\n"},
		{"heading marker", "Intro\n##", "Intro\n"},
		{"rule", "Intro\n--", "Intro\n"},
		{"quote marker", "Intro\n> ", "Intro\n"},
		{"list item text", "Intro\n- item **b", "Intro\n- item "},
		{"table row", "| a | b |\n|---|---|\n| 1 |", "| a | b |\n|---|---|\n"},
		{"table header alone", "Intro\n\n| a | b |\n", "Intro\n\n"},
		{"fence opener partial", "Intro\n\n```py", "Intro\n\n"},
		{"fence without content", "Intro\n\n```py\n", "Intro\n\n"},
		{"fence content", "Intro\n\n```py\nx = 1", "Intro\n\n```py\nx = 1\n```"},
		{"fence content line end", "```py\nx = 1\n", "```py\nx = 1\n```"},
		{"fence closer typing", "```py\nx = 1\n``", "```py\nx = 1\n```"},
		{"tilde fence", "~~~\nx\n~", "~~~\nx\n~~~"},
		{"fence in quote", "> ```\n> a\n> b", "> ```\n> a\n> b\n> ```"},
		{"fence closed", "```\nx\n```\nafter", "```\nx\n```\nafter"},
		{"markup in fence ignored", "```\na **b", "```\na **b\n```"},
		{"cjk bold closed", "**注意：**请看", "**注意：**请看"},
		{"cjk bold open", "请看**注意：", "请看"},
		{"partial utf8", "abc\xe4\xb8", "abc"},
		{"zwj pending", "family 👨\u200d", "family 👨"},
		{"half flag", "flag 🇯", "flag "},
		{"whole flag", "flag 🇯🇵", "flag 🇯🇵"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StablePrefix(tc.in); got != tc.want {
				t.Errorf("StablePrefix(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
