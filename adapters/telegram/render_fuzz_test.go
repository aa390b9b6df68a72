package telegram_test

import (
	"testing"
	"unicode/utf8"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/bot/format"
)

// FuzzRenderedHTMLParses: whatever Markdown the model writes, partial
// (mid-stream) or whole, the HTML Parley sends parses under Telegram's
// rules (telegramtest's parser), so "can't parse entities" and its
// plain-text fallback stay for the truly unexpected.
func FuzzRenderedHTMLParses(f *testing.F) {
	for _, s := range []string{
		"**bold** and _it_ and `code` and [link](https://example.com?a=1&b=<2>)",
		"```go\nfmt.Println(\"<tag> & more\")\n```",
		"```\nunclosed fence",
		"**unclosed bold",
		"> quote\n>> nested\n\n- list *item*\n1. one",
		"| a | b |\n|---|---|\n| <x> | & |",
		"# Heading\n\n---\n\n![image](http://x/y.png)",
		"<b>raw html</b> &amp; &lt; <script>",
		"~~strike~~ __under__ ||spoiler||",
		"中文**粗体**和`代码`",
		"a\\*b\\_c \\` d",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, md string) {
		if !utf8.ValidString(md) {
			return
		}
		for _, in := range []string{md, format.StablePrefix(md)} {
			html := format.TelegramHTML(in)
			if _, err := telegramtest.ParseHTML(html); err != nil {
				t.Fatalf("Markdown %q rendered as %q, which Telegram refuses: %v", in, html, err)
			}
		}
	})
}
