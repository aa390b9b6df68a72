package console

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/syncbuf"
)

// newTerminal returns a console whose output is a terminal with colours,
// and that output.
func newTerminal() (*Adapter, *syncbuf.Buffer) {
	a, _, out := newConsole(strings.NewReader(""), false)
	a.screen.md = &markdown{colour: true}
	return a, out
}

// format is src as the terminal shows it: rendered, or as written when
// nothing of it would show rendered.
func (m *markdown) format(src string) string {
	if lines, ok := m.render(src); ok {
		return strings.Join(lines, "\n")
	}
	return src
}

// plainText is a rendered line without its escape sequences: what it
// shows.
func plainText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			i = skipEscape(s, i)
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// sgr matches the escape sequences the renderer writes: SGR, ESC [
// digits m.
var sgr = regexp.MustCompile(`^\x1b\[[0-9]+m`)

// onlySGR reports the first control character in out that is not a
// newline, a tab or the start of an SGR sequence, or a byte that is not
// UTF-8; "" when there is none.
func onlySGR(out string) string {
	if !utf8.ValidString(out) {
		return "bytes that are not UTF-8"
	}
	for i, r := range out {
		switch {
		case r == 0x1b:
			if !sgr.MatchString(out[i:]) {
				return fmt.Sprintf("%q at %d", out[i:min(i+8, len(out))], i)
			}
		case r == '\n' || r == '\t':
		case r < 0x20 || r >= 0x7f && r <= 0x9f:
			return fmt.Sprintf("%q at %d", r, i)
		}
	}
	return ""
}

// shown is what a terminal shows of out: the text without escape
// sequences, each line without its margin.
func shown(out string) string {
	lines := strings.Split(plainText(out), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.Join(lines, "\n")
}

// TestRender: Markdown comes out as terminal text: the words, styled, not
// the marks that asked for the style.
func TestRender(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		words  []string // in the text shown
		marks  []string // not in it
		styled bool     // escape sequences in the output
	}{
		{"bold", "This is **very** important.", []string{"This is very important."}, []string{"**"}, true},
		{"italics", "It is _quite_ so.", []string{"It is quite so."}, []string{"_"}, true},
		{"struck", "It is ~~not~~ so.", []string{"It is not so."}, []string{"~"}, true},
		{"inline code", "Run `go test` now.", []string{"go test"}, []string{"`"}, true},
		{"heading", "# Title\n\n## Part", []string{"Title\n\nPart"}, []string{"#"}, true},
		{"code block", "Try:\n\n```go\nfmt.Println(\"hi\")\n```\n\nThen run it.", []string{"Try:", `fmt.Println("hi")`, "Then run it."}, []string{"```", "go\n"}, true},
		{"bullet list", "- apples\n- pears\n  - green ones", []string{"• apples\n• pears", "green ones"}, []string{"- "}, false},
		{"numbered list", "1. first\n2. second", []string{"1. first\n2. second"}, nil, false},
		{"quote", "> quoted\n> text", []string{"│ quoted\n│ text"}, []string{">"}, false},
		{"link", "See [the docs](https://example.com/docs).", []string{"See the docs (https://example.com/docs)."}, []string{"[", "]("}, true},
		{"raw HTML stays text", "Use Vec<String> and a <br> tag.\n\n<div>block</div>", []string{"Vec<String>", "<div>block</div>"}, []string{`\<`}, false},
		{"code keeps its marks", "Escape `*x*` and `<b>` as is.", []string{"*x*", "<b>"}, []string{`\`}, false},
		{"not UTF-8", "**bold** \xff\xfe", []string{"bold \uFFFD"}, []string{"**"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := (&markdown{colour: true}).format(tt.src)
			got := shown(out)
			for _, w := range tt.words {
				if !strings.Contains(got, w) {
					t.Errorf("%q not shown in:\n%s", w, got)
				}
			}
			for _, m := range tt.marks {
				if strings.Contains(got, m) {
					t.Errorf("%q still shown in:\n%s", m, got)
				}
			}
			if tt.styled && !strings.Contains(out, "\x1b[") {
				t.Errorf("no styles in %q", out)
			}
			if bad := onlySGR(out); bad != "" {
				t.Errorf("not an SGR sequence: %s", bad)
			}
		})
	}
}

// TestRenderDoesNotWrap: a long paragraph stays one line; the terminal
// wraps it to its width, whatever the width is when it shows.
func TestRenderDoesNotWrap(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("The quick brown fox jumps over the **lazy** dog. ", 12))
	if got := shown((&markdown{colour: true}).format(long)); got != strings.ReplaceAll(long, "**", "") {
		t.Errorf("shown:\n%s", got)
	}
}

// TestRenderColour: NO_COLOR keeps bold, italics, underlines and
// strike-through, but no colours.
func TestRenderColour(t *testing.T) {
	const src = "Plain, **bold**, _it_, `code` and [a link](https://example.com).\n\n```\nblock\n```"
	const want = "Plain, bold, it, code and a link (https://example.com).\n\nblock"
	for _, colour := range []bool{true, false} {
		out := (&markdown{colour: colour}).format(src)
		if got := shown(out); got != want {
			t.Errorf("colour %v: shown:\n%s\nwant:\n%s", colour, got, want)
		}
		for _, attr := range []string{"\x1b[1mbold", "\x1b[3mit", "\x1b[4ma link"} {
			if !strings.Contains(out, attr) {
				t.Errorf("colour %v: %q not in %q", colour, attr, out)
			}
		}
		if hasColour := sgrColour.MatchString(out); hasColour != colour {
			t.Errorf("colour %v: colours in %q: %v", colour, out, hasColour)
		}
	}
}

// sgrColour matches an SGR sequence that sets a colour.
var sgrColour = regexp.MustCompile(`\x1b\[(3[0-9]|4[0-9]|9[0-7]|10[0-7])m`)

// TestNotATerminal: output that is not a terminal (a buffer, a pipe, a
// file) gets the text as written, byte for byte, control characters and
// all.
func TestNotATerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, out := range map[string]io.Writer{"buffer": &bytes.Buffer{}, "pipe": w, "file": f} {
		if m := newMarkdown(out, os.Getenv); m != nil {
			t.Errorf("%s: renders Markdown", name)
		}
	}

	const text = "**Bold**, `code`, [a link](https://example.com):\n\n```sh\nls -l\n```\n\n- one\n- two \x1b[31mred\x1b[0m"
	a, _, out := newConsole(strings.NewReader(""), false)
	ctx := context.Background()
	s, _ := a.StartStream(ctx, a.Thread(), ana)
	s.Append(ctx, text[:20])
	s.Append(ctx, text[20:])
	s.Finish(ctx, chat.Out{Text: text})
	a.SendPrivate(ctx, a.Thread(), ana, chat.Out{Text: text})
	a.screen.close()
	if want := text + "\n" + text + "\n"; out.String() != want {
		t.Errorf("output:\n%q\nwant:\n%q", out.String(), want)
	}
}

// TestTerminalControls: on a terminal, the only escape sequences are the
// renderer's SGR: what the model (or a tool, in a status) writes cannot
// clear the screen, move the cursor, write the clipboard or retitle the
// window, rendered or printed as written.
func TestTerminalControls(t *testing.T) {
	attacks := []string{
		"Done.\x1b[2J\x1b[H", // clear the screen, cursor home
		"Copy \x1b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\x07 this", // OSC 52: the clipboard
		"\x1b]0;root@prod\x1b\\ title",                     // OSC 0: the window's title
		"CSI \u009b2J in C1, \u009d0;t\u009c OSC",          // 8-bit controls, as UTF-8
		"Over\rwritten, \b\b\x7f erased, \x07 bell",
		"```\n\x1b[1A\x1b[2Kcode\n```",
		"`\x1b[31m` and [x\x1b[8m](https://e.com/\x1b[0m)",
		"[ref]: https://example.com \"\x1b]52;c;eA==\x07\"", // nothing shows rendered: as written
	}
	for _, attack := range attacks {
		a, out := newTerminal()
		ctx := context.Background()
		s, _ := a.StartStream(ctx, a.Thread(), ana)
		s.Append(ctx, attack[:len(attack)/2])
		a.ShowStatus(ctx, a.Thread(), "running \x1b[2Jshell…")
		s.Append(ctx, attack[len(attack)/2:])
		s.Finish(ctx, chat.Out{Text: attack})
		a.Send(ctx, a.Thread(), chat.Out{Text: attack, Buttons: []chat.Button{{Label: "Approve\x1b[2J", Data: "y"}}})
		a.screen.close()
		if bad := onlySGR(out.String()); bad != "" {
			t.Errorf("%q: the terminal gets %s in %q", attack, bad, out.String())
		}
	}
}

// TestRenderFallback: what shows nothing rendered is printed as written,
// whole: nothing of an answer is lost.
func TestRenderFallback(t *testing.T) {
	for _, tt := range []struct {
		name     string
		src      string
		rendered bool
	}{
		{"nothing would show", "[docs]: https://example.com/docs", false},
		{"only spaces", "   ", false},
		{"a reference used later", "[docs]: https://example.com/docs\n\nSee [docs].", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := (&markdown{colour: true}).format(tt.src)
			if rendered := got != tt.src; rendered != tt.rendered {
				t.Errorf("rendered: %v, want %v: %q", rendered, tt.rendered, got)
			}
		})
	}
	t.Run("streamed, a reference first", func(t *testing.T) {
		a, out := newTerminal()
		ctx := context.Background()
		s, _ := a.StartStream(ctx, a.Thread(), ana)
		s.Append(ctx, "[docs]: https://example.com/docs\n\n")
		s.Append(ctx, "See [docs].\n\nMore")
		s.Finish(ctx, chat.Out{Text: "[docs]: https://example.com/docs\n\nSee [docs].\n\nMore."})
		if got, want := shown(out.String()), "See docs (https://example.com/docs).\n\nMore.\n"; got != want {
			t.Errorf("shown:\n%q\nwant:\n%q", got, want)
		}
	})
}

// TestLongAnswer: a long answer is rendered in parts, cut at top-level
// paragraphs once a part has partMin bytes, and shows whole; one without
// such a place (a megabyte in one paragraph) is rendered whole.
func TestLongAnswer(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 3*partMin; i++ {
		fmt.Fprintf(&b, "Paragraph %d has **bold** words and `code` in it, and goes on for a while.\n\n", i)
	}
	long := strings.TrimSpace(b.String())
	huge := strings.Repeat("word **bold** ", 1<<20/14) // 1 MB, one paragraph
	for name, text := range map[string]string{"paragraphs": long, "1 MB": huge} {
		a, out := newTerminal()
		ctx := context.Background()
		s, _ := a.StartStream(ctx, a.Thread(), ana)
		for i := 0; i < len(text); i += 1000 {
			s.Append(ctx, text[i:min(i+1000, len(text))])
		}
		s.Finish(ctx, chat.Out{Text: text})
		want := strings.TrimSpace(strings.NewReplacer("**", "", "`", "").Replace(text)) + "\n"
		if got := shown(out.String()); got != want {
			t.Errorf("%s: shown %d bytes, want %d", name, len(got), len(want))
		}
		if strings.Contains(out.String(), "**") {
			t.Errorf("%s: marks left", name)
		}
	}
}

// TestStreamRendered: on a terminal a streamed answer shows block by
// block, rendered, each once it is whole; the rest when the stream
// finishes or something else is printed after it. Nothing shown is
// shown twice.
func TestStreamRendered(t *testing.T) {
	type step struct {
		appendText, status, send string
		finish                   *string
		shows                    string // what the terminal shows after the step, exactly
	}
	fin := func(s string) *string { return &s }
	tests := []struct {
		name  string
		steps []step
	}{
		{"blocks show once whole", []step{
			{appendText: "Intro with **bold**.", shows: ""},
			{appendText: "\n\n- one\n- tw", shows: "Intro with bold."},
			{appendText: "o\n\nThe end", shows: "Intro with bold.\n\n• one\n• two"},
			{finish: fin("Intro with **bold**.\n\n- one\n- two\n\nThe end."), shows: "Intro with bold.\n\n• one\n• two\n\nThe end.\n"},
		}},
		{"a code block waits for its fence", []step{
			{appendText: "```sh\nls\n\ncd /", shows: ""},
			{appendText: "\n```\n\nDone", shows: "ls\n\ncd /"},
			{finish: fin("```sh\nls\n\ncd /\n```\n\nDone."), shows: "ls\n\ncd /\n\nDone.\n"},
		}},
		{"a numbered list goes on after a blank line", []step{
			{appendText: "1. one\n\n2. two\n\n3. three", shows: "1. one\n\n2. two"},
			{finish: fin("1. one\n\n2. two\n\n3. three"), shows: "1. one\n\n2. two\n\n3. three\n"},
		}},
		{"a tight list shown becomes loose", []step{
			{appendText: "1. one\n2. two\n\n3. three", shows: "1. one\n2. two"},
			{appendText: "\n\nEnd", shows: "1. one\n2. two\n\n3. three"},
			{finish: fin("1. one\n2. two\n\n3. three\n\nEnd."), shows: "1. one\n2. two\n\n3. three\n\nEnd.\n"},
		}},
		{"a status line shows the text before it", []step{
			{appendText: "Let me **check**.", shows: ""},
			{status: "running shell…", shows: "Let me check.\n· running shell…"},
			{appendText: "Done **now**.", shows: "Let me check.\n· running shell…\n"},
			{finish: fin("Done **now**."), shows: "Let me check.\n· running shell…\nDone now.\n"},
		}},
		{"another message shows the text before it", []step{
			{appendText: "Working on **it**", shows: ""},
			{send: "A **reminder**.", shows: "Working on it\nA reminder."},
			// As on any output: the end of the text continues it below.
			{finish: fin("Working on **it**."), shows: "Working on it\nA reminder.\n.\n"},
		}},
		{"the final is the last step's, none shown", []step{
			{appendText: "Let me check.", shows: ""},
			{status: "running shell…", shows: "Let me check.\n· running shell…"},
			{finish: fin("It is **5**."), shows: "Let me check.\n· running shell…\nIt is 5.\n"},
		}},
		{"stopped", []step{
			{appendText: "Counting: one, two,", shows: ""},
			{finish: fin("Counting: one, two,\n\n_⏹ stopped_"), shows: "Counting: one, two,\n\n⏹ stopped\n"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, out := newTerminal()
			ctx := context.Background()
			var s chat.Stream
			for i, st := range tt.steps {
				if s == nil && st.appendText != "" {
					s, _ = a.StartStream(ctx, a.Thread(), ana)
				}
				switch {
				case st.status != "":
					a.ShowStatus(ctx, a.Thread(), st.status)
				case st.send != "":
					a.Send(ctx, a.Thread(), chat.Out{Text: st.send})
				case st.finish != nil:
					if s == nil {
						s, _ = a.StartStream(ctx, a.Thread(), ana)
					}
					s.Finish(ctx, chat.Out{Text: *st.finish})
				default:
					s.Append(ctx, st.appendText)
				}
				if got := shown(out.String()); got != st.shows {
					t.Errorf("after step %d the terminal shows:\n%q\nwant:\n%q", i, got, st.shows)
				}
			}
			if strings.Contains(out.String(), "**") {
				t.Errorf("marks left: %q", out.String())
			}
		})
	}
}

// TestEditRendered: on a terminal an edit that adds a block shows it in
// place; one that changes what is shown shows the new text below.
func TestEditRendered(t *testing.T) {
	tests := []struct {
		name  string
		edits []string // the first is sent
		shows string
	}{
		{"adds a block", []string{"**Hi**", "**Hi**\n\nmore"}, "Hi\n\nmore\n"},
		{"adds to the line", []string{"Count: **1**", "Count: **12**"}, "Count: 1\nCount: 12\n"},
		{"changes", []string{"**Approve?**", "Approved"}, "Approve?\nApproved\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, out := newTerminal()
			ctx := context.Background()
			ref, err := a.Send(ctx, a.Thread(), chat.Out{Text: tt.edits[0]})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tt.edits[1:] {
				if err := a.Edit(ctx, ref, chat.Out{Text: e}); err != nil {
					t.Fatal(err)
				}
			}
			a.screen.close()
			if got := shown(out.String()); got != tt.shows {
				t.Errorf("shown:\n%q\nwant:\n%q", got, tt.shows)
			}
		})
	}
}

// TestCuts: a document can be rendered up to a block after a blank line
// outside fenced code, and start over at a top-level paragraph.
func TestCuts(t *testing.T) {
	tests := []struct {
		src  string
		want []cut
	}{
		{"one", nil},
		{"one\n\ntwo", []cut{{5, true}}},
		{"one\n\n- a\n\n  b\n\n1. c\n\n> d", []cut{{5, false}, {10, false}, {15, false}, {21, false}}},
		{"```\na\n\nb\n```\n\nc", []cut{{14, true}}},
		{"~~~~\n```\n\n~~~\n\nx\n~~~~\n\ny", []cut{{23, true}}},
		{"  ```\n\nin\n```\n\nout", []cut{{15, true}}},
	}
	for _, tt := range tests {
		got := cuts(tt.src, 0)
		if len(got) != len(tt.want) {
			t.Errorf("cuts(%q) = %v, want %v", tt.src, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("cuts(%q) = %v, want %v", tt.src, got, tt.want)
				break
			}
		}
	}
}

// FuzzRender: rendering never panics, and what is not empty shows as
// something; a stream of it shows the same without panicking; the only
// escape sequences the terminal gets are SGR.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		"**bold** _it_ `code` [link](https://example.com)",
		"```go\nfunc main() {}\n```",
		"- a\n- b\n\n1. c\n\n   ```\n   d\n   ```",
		"| a | b |\n|---|---|\n| 1 | 2 |",
		"<div>x</div> Vec<String> <!-- c --> &nbsp;",
		"# H\n\n> q\n\n---\n\n[r]: https://example.com",
		"   ", "\x00\x1b[31m", "```\n\n",
		"\x1b]52;c;eA==\x07 \u009b2J `\x1b[H` [a\x1b](https://e.com/\x1b)\n\n```\n\x1b[2J\n```",
		"[r]: https://e.com \"\x1b[2J\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m := &markdown{colour: true}
		if lines, ok := m.render(src); ok {
			if bad := onlySGR(strings.Join(lines, "\n")); bad != "" {
				t.Fatalf("render(%q): not an SGR sequence: %s", src, bad)
			}
		}
		if out := m.format(src); src != "" && out == "" {
			t.Errorf("format(%q) is empty", src)
		}
		prev := 0
		for _, c := range cuts(src, 0) {
			if c.at <= prev || c.at >= len(src) {
				t.Fatalf("cuts(%q): %v out of order", src, c)
			}
			prev = c.at
		}
		var out bytes.Buffer
		sc := newScreen(&out, func() {}, m)
		owner := &message{}
		half := len(src) / 2
		sc.print(piece{text: src[:half], cont: true, owner: owner, md: true, partial: true})
		sc.print(piece{text: src[half:], cont: true, owner: owner, md: true, partial: true})
		sc.print(piece{cont: true, end: true, owner: owner, md: true})
		sc.close()
		if bad := onlySGR(out.String()); bad != "" {
			t.Fatalf("%q streamed: not an SGR sequence: %s", src, bad)
		}
	})
}

func withoutBlankLines(s string) string {
	var out []string
	for l := range strings.SplitSeq(s, "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestStreamShowsTheWhole: an answer streamed in pieces of any size shows
// as the whole answer rendered at once: each line once, none missing. The
// blank lines may differ where a list was shown while it was tight (no
// blank line between its items) and a later item made it loose: the
// lines shown stay as they are.
func TestStreamShowsTheWhole(t *testing.T) {
	var loose strings.Builder // a list with blank lines between its items: no place to start over
	for i := range 300 {
		loose.WriteString("- item **" + strings.Repeat("x", i%7) + "** with some words after it\n\n")
	}
	docs := map[string]string{
		"tight, then loose": "1. one\n2. two\n\n   ```sh\n   ls -l\n   ```\n\n3. three\n\nThe end.",
		"mixed": "# Title\n\nSome **bold** and `code`, then a list:\n\n1. one\n2. two\n\n   ```sh\n   ls -l\n\n   pwd\n   ```\n\n3. three\n\n" +
			"> a quote\n> goes on\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSee [the docs](https://example.com/docs).\n\n---\n\nThe end.",
		"long loose list": strings.TrimSpace(loose.String()),
	}
	for name, text := range docs {
		want := shown((&markdown{colour: true}).format(text))
		exact := name == "long loose list" // its first item alone is shown tight: no change
		for _, size := range []int{1, 7, 64, 1000} {
			if size < len(text)/2000 {
				continue // too slow a way to show a long answer
			}
			a, out := newTerminal()
			ctx := context.Background()
			s, _ := a.StartStream(ctx, a.Thread(), ana)
			for i := 0; i < len(text); i += size {
				s.Append(ctx, text[i:min(i+size, len(text))])
			}
			s.Finish(ctx, chat.Out{Text: text})
			got := strings.TrimSuffix(shown(out.String()), "\n")
			if !exact {
				got, want = withoutBlankLines(got), withoutBlankLines(want)
			}
			if got != want {
				t.Errorf("%s in pieces of %d shows:\n%s\nwant:\n%s", name, size, got, want)
			}
		}
	}
}
