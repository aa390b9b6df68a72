package console

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/internal/syncbuf"
)

// testMarkdown is the renderer of a terminal width columns wide, in env.
func testMarkdown(width int, env map[string]string) *markdown {
	return &markdown{size: func() int { return width }, getenv: func(k string) string { return env[k] }, limit: renderMax}
}

// newTerminal returns a console whose output is such a terminal (60
// columns, no environment), and that output.
func newTerminal() (*Adapter, *syncbuf.Buffer) {
	a, _, out := newConsole(strings.NewReader(""), false)
	a.screen.md = testMarkdown(60, nil)
	return a, out
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
		{"inline code", "Run `go test` now.", []string{"go test"}, []string{"`"}, true},
		{"code block", "Try:\n\n```go\nfmt.Println(\"hi\")\n```\n\nThen run it.", []string{"Try:", `fmt.Println("hi")`, "Then run it."}, []string{"```", "go\n"}, false},
		{"bullet list", "- apples\n- pears\n  - green ones", []string{"• apples\n• pears", "green ones"}, []string{"- "}, false},
		{"numbered list", "1. first\n2. second", []string{"1. first\n2. second"}, nil, false},
		{"link", "See [the docs](https://example.com/docs).", []string{"the docs", "https://example.com/docs"}, []string{"[", "]("}, true},
		{"raw HTML stays text", "Use Vec<String> and a <br> tag.\n\n<div>block</div>", []string{"Vec<String>", "<br>", "<div>block</div>"}, []string{`\<`}, false},
		{"code keeps its marks", "Escape `*x*` and `<b>` as is.", []string{"*x*", "<b>"}, []string{`\`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := testMarkdown(60, nil).format(tt.src, 60)
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
		})
	}
}

// TestRenderWraps: text wraps to the terminal's width, and a terminal
// that does not tell its width gets 80 columns.
func TestRenderWraps(t *testing.T) {
	long := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 12)
	for _, tt := range []struct{ terminal, wrap int }{{40, 40}, {100, 100}, {0, defaultWidth}, {5, minWidth}} {
		m := testMarkdown(tt.terminal, nil)
		lines := strings.Split(plainText(m.format(long, m.width())), "\n")
		widest := 0
		for _, l := range lines {
			widest = max(widest, utf8.RuneCountInString(l))
		}
		if widest > tt.wrap || widest < tt.wrap-15 {
			t.Errorf("terminal of %d columns: lines up to %d wide, want up to %d", tt.terminal, widest, tt.wrap)
		}
	}
}

// TestRenderStyles: the style follows what the environment says of the
// terminal, and never asks the terminal.
func TestRenderStyles(t *testing.T) {
	const src = "Plain, **bold**, `code` and [a link](https://example.com)."
	const dark, light = "38;5;252m", "38;5;234m" // glamour's text colours for dark and light backgrounds
	tests := []struct {
		name    string
		env     map[string]string
		has     []string
		hasNone []string
	}{
		{"unknown background: the terminal's own text colour", nil, []string{"1mbold"}, []string{dark, light}},
		{"dark", map[string]string{"COLORFGBG": "15;0"}, []string{dark}, []string{light}},
		{"light", map[string]string{"COLORFGBG": "0;default;15"}, []string{light}, []string{dark}},
		{"GLAMOUR_STYLE first", map[string]string{"COLORFGBG": "15;0", "GLAMOUR_STYLE": "light"}, []string{light}, []string{dark}},
		{"GLAMOUR_STYLE=auto asks nothing", map[string]string{"GLAMOUR_STYLE": "auto"}, nil, []string{dark, light}},
		{"NO_COLOR: bold but no colours", map[string]string{"NO_COLOR": "1", "COLORFGBG": "15;0"}, []string{"1mbold"}, []string{"38;5", "48;5", "38;2", "48;2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := testMarkdown(60, tt.env).format(src, 60)
			if got := shown(out); !strings.Contains(got, "Plain, bold,") || !strings.Contains(got, "code") || !strings.Contains(got, "a link https://example.com.") {
				t.Errorf("shown:\n%s", shown(out))
			}
			for _, s := range tt.has {
				if !strings.Contains(out, s) {
					t.Errorf("%q not in %q", s, out)
				}
			}
			for _, s := range tt.hasNone {
				if strings.Contains(out, s) {
					t.Errorf("%q in %q", s, out)
				}
			}
		})
	}
}

// TestNotATerminal: output that is not a terminal (a buffer, a pipe, a
// file) gets the text as written.
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

	const text = "**Bold**, `code`, [a link](https://example.com):\n\n```sh\nls -l\n```\n\n- one\n- two"
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

// TestRenderFallback: what cannot be rendered is printed as written,
// whole: nothing of an answer is lost.
func TestRenderFallback(t *testing.T) {
	huge := strings.Repeat("word **bold** ", 1<<20/14) // 1 MB, one paragraph
	t.Run("1 MB", func(t *testing.T) {
		m := testMarkdown(60, nil)
		if _, ok := m.render(huge, 60); ok {
			t.Error("rendered 1 MB")
		}
		if got := m.format(huge, 60); got != huge {
			t.Error("1 MB not as written")
		}
		a, out := newTerminal()
		ctx := context.Background()
		s, _ := a.StartStream(ctx, a.Thread(), ana)
		s.Append(ctx, huge[:1000])
		s.Append(ctx, huge[1000:])
		s.Finish(ctx, chat.Out{Text: huge})
		if out.String() != huge+"\n" {
			t.Errorf("the streamed 1 MB is not shown as written (%d bytes shown)", len(out.String()))
		}
	})
	nested := func(levels int) string { // a list in a list…, 2 columns a level
		var b strings.Builder
		for i := range levels {
			b.WriteString(strings.Repeat("  ", i) + "- **level**\n")
		}
		return b.String()
	}
	for _, tt := range []struct {
		name     string
		src      string
		rendered bool
	}{
		{"nothing would show", "[docs]: https://example.com/docs", false},
		{"not UTF-8", "**bold** \xff\xfe", false},
		{"a word longer than maxWord", "See https://example.com/" + strings.Repeat("a", maxWord) + " **now**", false},
		{"a long line in a code block", "**Minified:**\n\n```js\n" + strings.Repeat("a;", maxWord) + "\n```", true},
		{"quotes nested deeper than maxDepth", strings.Repeat("> ", maxDepth+1) + "**deep**", false},
		{"quotes nested maxDepth deep", strings.Repeat("> ", maxDepth) + "**deep**", true},
		{"lists nested deeper than maxDepth", nested(maxDepth + 1), false},
		{"lists nested maxDepth deep", nested(maxDepth), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := testMarkdown(60, nil).format(tt.src, 60)
			if rendered := got != tt.src; rendered != tt.rendered {
				t.Errorf("rendered: %v, want %v: %q", rendered, tt.rendered, got)
			}
		})
	}

	tests := []struct {
		name      string
		limit     int
		src       string
		shown     string // exactly
		asWritten string // in the output as written
	}{
		{"long: rendered in parts, cut at paragraphs",
			100, "First **one**, long enough to fill its part.\n\nSecond **two**, long enough as well.\n\nThird **three**.",
			"First one, long enough to fill its part.\n\nSecond two, long enough as well.\n\nThird three.", ""},
		{"a block longer than the limit: as written from there",
			60, "Intro **here**.\n\n```\n" + strings.Repeat("code line\n", 10) + "```",
			"Intro here.\n\n```\n" + strings.Repeat("code line\n", 10) + "```", "\n\n```\ncode line\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, out := newTerminal()
			a.screen.md.limit = tt.limit
			a.SendPrivate(context.Background(), a.Thread(), ana, chat.Out{Text: tt.src})
			a.screen.close()
			if got := strings.TrimSuffix(shown(out.String()), "\n"); got != tt.shown {
				t.Errorf("shown:\n%s\nwant:\n%s", got, tt.shown)
			}
			if strings.Contains(out.String(), "**") {
				t.Errorf("marks left:\n%s", out.String())
			}
			if !strings.Contains(out.String(), tt.asWritten) {
				t.Errorf("%q not in:\n%s", tt.asWritten, out.String())
			}
		})
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
			{appendText: "1. one\n\n2. two\n\n3. three", shows: "1. one\n2. two"},
			{finish: fin("1. one\n\n2. two\n\n3. three"), shows: "1. one\n2. two\n3. three\n"},
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
// something; a stream of it shows the same without panicking.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		"**bold** _it_ `code` [link](https://example.com)",
		"```go\nfunc main() {}\n```",
		"- a\n- b\n\n1. c\n\n   ```\n   d\n   ```",
		"| a | b |\n|---|---|\n| 1 | 2 |",
		"<div>x</div> Vec<String> <!-- c --> &nbsp;",
		"# H\n\n> q\n\n---\n\n[r]: https://example.com",
		"   ", "\x00\x1b[31m", "```\n\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m := testMarkdown(40, nil)
		if out := m.format(src, 40); src != "" && out == "" {
			t.Errorf("format(%q) is empty", src)
		}
		prev := 0
		for _, c := range cuts(src, 0) {
			if c.at <= prev || c.at >= len(src) {
				t.Fatalf("cuts(%q): %v out of order", src, c)
			}
			prev = c.at
		}
		sc := newScreen(&bytes.Buffer{}, func() {}, m)
		owner := &message{}
		half := len(src) / 2
		sc.print(piece{text: src[:half], cont: true, owner: owner, md: true, partial: true})
		sc.print(piece{text: src[half:], cont: true, owner: owner, md: true, partial: true})
		sc.print(piece{cont: true, end: true, owner: owner, md: true})
		sc.close()
	})
}

// TestStreamShowsTheWhole: an answer streamed in pieces of any size shows
// as the whole answer rendered at once: each line once, none missing.
func TestStreamShowsTheWhole(t *testing.T) {
	var loose strings.Builder // a list with blank lines between its items: no place to start over
	for i := range 300 {
		loose.WriteString("- item **" + strings.Repeat("x", i%7) + "** with some words after it\n\n")
	}
	docs := map[string]string{
		"mixed": "# Title\n\nSome **bold** and `code`, then a list:\n\n1. one\n2. two\n\n   ```sh\n   ls -l\n\n   pwd\n   ```\n\n3. three\n\n" +
			"> a quote\n> goes on\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nSee [the docs](https://example.com/docs).\n\n---\n\nThe end.",
		"long loose list": strings.TrimSpace(loose.String()),
	}
	for name, text := range docs {
		want := shown(testMarkdown(60, nil).format(text, 60))
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
			if got := strings.TrimSuffix(shown(out.String()), "\n"); got != want {
				t.Errorf("%s in pieces of %d shows:\n%s\nwant:\n%s", name, size, got, want)
			}
		}
	}
}
