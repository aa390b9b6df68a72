package telegram

import (
	"slices"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/bot/format"
	"github.com/parleybot/parley/chat"
)

// FuzzRenderedHTMLParses: whatever Markdown the model writes, partial
// (mid-stream) or whole, the HTML Parley sends parses under Telegram's
// rules (telegramtest's parser), so "can't parse entities" and its
// plain-text fallback stay for the truly unexpected. And whatever the
// Markdown and the name, a message mentions exactly its Mentions, in HTML
// and in plain text: the text itself never mentions anyone by id.
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
		"[Ana](tg://user?id=101) <tg://USER?id=102> [x](tg://%75ser?id=103)",
	} {
		f.Add(s, "Ana", int64(101))
	}
	f.Add("standup in 5 minutes", `<Ana & "co">`, int64(7))
	f.Add("", "@bo_builder", int64(0))
	f.Add("hi", "😀", int64(-5))
	f.Fuzz(func(t *testing.T, md, name string, id int64) {
		if !utf8.ValidString(md) || !utf8.ValidString(name) {
			return
		}
		html := format.TelegramHTML(md)
		if _, err := telegramtest.ParseHTML(html); err != nil {
			t.Fatalf("Markdown %q rendered as %q, which Telegram refuses: %v", md, html, err)
		}
		u := chat.User{Platform: "telegram", Name: name}
		if id != 0 {
			u.ID = strconv.FormatInt(id, 10)
		}
		var want []int64
		if id > 0 {
			want = []int64{id}
		}
		out := chat.Out{Text: md, Mentions: []chat.User{u}}
		if r, err := render(out); err == nil {
			p, err := telegramtest.ParseHTML(r.text)
			if err != nil {
				t.Fatalf("Markdown %q mentioning %+v rendered as %q, which Telegram refuses: %v", md, u, r.text, err)
			}
			if got := (telegramtest.Message{Entities: p.Entities}).MentionedIDs(); !slices.Equal(got, want) {
				t.Fatalf("Markdown %q mentioning %+v rendered as %q, which mentions %v", md, u, r.text, got)
			}
		}
		out.Plain = true
		if r, err := render(out); err == nil {
			var got []int64
			for _, e := range r.entities {
				if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > format.UTF16Len(r.text) {
					t.Fatalf("plain %q: entity %+v outside the text", r.text, e)
				}
				got = append(got, e.User.ID)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("plain Markdown %q mentioning %+v mentions %v", md, u, got)
			}
		}
	})
}
