package main

// Reading a set-up page (docs/<platform>.md) for TestDocsPlatformPages:
// its blocks, quotes, keys, links and command lines, and the checks of each.

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// docPage is a page of docs/: its text, the text outside its fenced
// blocks, and the blocks.
type docPage struct {
	path   string
	text   string
	prose  string
	fences []docFence
}

// docFence is a fenced block: its language, the HTML comment on the last
// line before it (without <!-- -->), its body and its first line.
type docFence struct {
	lang, marker, body string
	line               int
}

var docHTMLComment = regexp.MustCompile(`^<!--\s*(.*?)\s*-->$`)

func readDocPage(t *testing.T, platform string) *docPage {
	t.Helper()
	path := filepath.Join("..", "..", "docs", platform+".md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := &docPage{path: path, text: string(b)}
	var prose strings.Builder
	lines := strings.Split(p.text, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			prose.WriteString(lines[i] + "\n")
			continue
		}
		f := docFence{lang: strings.TrimSpace(strings.TrimPrefix(lines[i], "```")), line: i + 1}
		for j := i - 1; j >= 0; j-- {
			if s := strings.TrimSpace(lines[j]); s != "" {
				if m := docHTMLComment.FindStringSubmatch(s); m != nil {
					f.marker = m[1]
				}
				break
			}
		}
		var body strings.Builder
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			body.WriteString(lines[i] + "\n")
		}
		if i == len(lines) {
			t.Fatalf("%s:%d: the fenced block is never closed", path, f.line)
		}
		f.body = body.String()
		p.fences = append(p.fences, f)
	}
	p.prose = prose.String()
	return p
}

// blocks are the page's fenced blocks in lang.
func (p *docPage) blocks(lang string) []docFence {
	var out []docFence
	for _, f := range p.fences {
		if f.lang == lang {
			out = append(out, f)
		}
	}
	return out
}

// tried is the configuration the page marks as tried.
func (p *docPage) tried(t *testing.T) docFence {
	t.Helper()
	var found []docFence
	for _, f := range p.fences {
		if f.marker == triedMarker {
			found = append(found, f)
		}
	}
	if len(found) != 1 || found[0].lang != "yaml" {
		t.Fatalf("%s: want exactly one ```yaml block after <!-- %s -->, found %d", p.path, triedMarker, len(found))
	}
	return found[0]
}

var docCodeSpan = regexp.MustCompile("`([^`\n]+)`")

// spans are the page's code spans outside fenced blocks.
func (p *docPage) spans() []string {
	var out []string
	for _, m := range docCodeSpan.FindAllStringSubmatch(p.prose, -1) {
		out = append(out, m[1])
	}
	return out
}

// quoted are the page's quotes of what Parley says: its code spans of
// three words or more, other than command lines (`parley …`).
func (p *docPage) quoted() []string {
	var out []string
	for _, s := range p.spans() {
		if len(strings.Fields(s)) >= 3 && !strings.HasPrefix(s, "parley ") {
			out = append(out, s)
		}
	}
	return out
}

// quotes reports whether one of spans is out, "…" in a span standing for
// anything.
func quotes(spans []string, out string) bool {
	return slices.ContainsFunc(spans, func(s string) bool { return docQuoteMatches(s, out) })
}

// docQuoteMatches reports whether span, "…" standing for anything and runs
// of white space for one space, is found in out, with at least 12
// characters of its own.
func docQuoteMatches(span, out string) bool {
	rest := docSquash(out)
	n := 0
	for _, piece := range strings.Split(docSquash(span), "…") {
		if strings.TrimSpace(piece) == "" {
			continue
		}
		i := strings.Index(rest, piece)
		if i < 0 {
			return false
		}
		rest = rest[i+len(piece):]
		n += len(strings.TrimSpace(piece))
	}
	return n >= 12
}

func docSquash(s string) string { return strings.Join(strings.Fields(s), " ") }

// troubleshooting is the first cell of every row of the page's table
// under "## When it does not work".
func (p *docPage) troubleshooting(t *testing.T) []string {
	t.Helper()
	_, section, ok := strings.Cut(p.prose, "\n## When it does not work\n")
	if !ok {
		t.Fatalf("%s has no section \"## When it does not work\"", p.path)
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var cells []string
	for _, line := range strings.Split(section, "\n") {
		cols := strings.Split(line, "|")
		if len(cols) < 3 || strings.TrimSpace(cols[0]) != "" || strings.HasPrefix(strings.TrimSpace(cols[1]), "---") {
			continue
		}
		cells = append(cells, strings.TrimSpace(cols[1]))
	}
	if len(cells) < 2 { // the header and at least one row
		t.Fatalf("%s: no table under \"When it does not work\"", p.path)
	}
	return cells[1:]
}

// pageKeysExist: every yaml block of the page loads as Parley's
// configuration, and the page explains every key its blocks show; every
// key, section and PARLEY_* variable the page names is Parley's, and so
// is every other token variable it names (parley init's).
func pageKeysExist(t *testing.T, p *docPage) {
	leaves, sections := docConfigKeys(t)
	blocks := p.blocks("yaml")
	if len(blocks) == 0 {
		t.Fatalf("%s shows no configuration", p.path)
	}
	shown := map[string]bool{}
	for _, f := range blocks {
		where := fmt.Sprintf("%s:%d", p.path, f.line)
		path := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, []byte(f.body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := docLoadConfig(path, docIsolatedEnv(t)); err != nil {
			t.Errorf("%s: the configuration does not load: %v", where, err)
		}
		for _, k := range docYamlLeaves(docParseYAML(t, where, f.body)) {
			shown[k] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(shown)) {
		if !regexp.MustCompile(`(^|[^a-z0-9_.])` + regexp.QuoteMeta(k) + `($|[^a-z0-9_])`).MatchString(p.prose) {
			t.Errorf("%s shows %s in a configuration but never says what it is", p.path, k)
		}
	}

	var tops []string
	for s := range sections {
		if !strings.Contains(s, ".") {
			tops = append(tops, regexp.QuoteMeta(s))
		}
	}
	slices.Sort(tops)
	named := regexp.MustCompile(`^((?:` + strings.Join(tops, "|") + `)(?:\.[a-z0-9_]+)+)(?:$|[:=\s])`)
	n := 0
	for _, s := range p.spans() {
		m := named.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		n++
		if !leaves[m[1]] && !sections[m[1]] {
			t.Errorf("%s names `%s`, which is no configuration key", p.path, m[1])
		}
	}
	if n == 0 {
		t.Errorf("%s names no configuration key in code spans", p.path)
	}

	vars := map[string]bool{}
	for k := range leaves {
		vars[config.EnvVar(k)] = true
	}
	for _, list := range initSecrets() {
		for _, s := range list {
			for _, v := range s.env {
				vars[v] = true
			}
		}
	}
	for _, v := range regexp.MustCompile(`\bPARLEY_[A-Z0-9_]+\b|\b[A-Z][A-Z0-9_]*_(?:TOKEN|KEY|SECRET)\b`).FindAllString(p.text, -1) {
		if !vars[v] {
			t.Errorf("%s names %s, which Parley does not read", p.path, v)
		}
	}
}

var docMdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// pageLinksResolve: every link of the page to another file of the
// repository, or to a heading, finds it.
func pageLinksResolve(t *testing.T, p *docPage) {
	for _, m := range docMdLink.FindAllStringSubmatch(p.prose, -1) {
		target := m[1]
		if strings.Contains(target, "://") {
			continue
		}
		file, anchor, _ := strings.Cut(target, "#")
		text := p.text
		if file != "" {
			b, err := os.ReadFile(filepath.Join(filepath.Dir(p.path), file))
			if err != nil {
				t.Errorf("%s links %s: %v", p.path, target, err)
				continue
			}
			text = string(b)
		}
		if anchor == "" {
			continue
		}
		found := false
		for _, line := range strings.Split(text, "\n") {
			if h, ok := strings.CutPrefix(line, "#"); ok && docHeadingSlug(strings.TrimLeft(h, "#")) == anchor {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s links %s: no such heading", p.path, target)
		}
	}
}

// docHeadingSlug is the anchor GitHub gives a heading.
func docHeadingSlug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pageCommands are the `parley …` commands of the page's sh blocks, each
// as the arguments after "parley".
func pageCommands(t *testing.T, p *docPage) [][]string {
	t.Helper()
	var out [][]string
	for _, f := range p.blocks("sh") {
		script := strings.ReplaceAll(f.body, "\\\n", " ")
		for _, line := range strings.Split(script, "\n") {
			cmds, err := docShellCommands(line)
			if err != nil {
				t.Fatalf("%s:%d: %q: %v", p.path, f.line, line, err)
			}
			for _, words := range cmds {
				for len(words) > 0 && regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`).MatchString(words[0]) {
					words = words[1:] // VAR=value before the command
				}
				if len(words) > 0 && words[0] == "parley" {
					out = append(out, words[1:])
				}
			}
		}
	}
	return out
}

// docShellCommands splits one line of sh into its simple commands' words:
// quotes and backslashes as sh takes them, a comment ends the line, |,
// ;, & end a command, and a redirection is left out.
func docShellCommands(line string) ([][]string, error) {
	var (
		cmds     [][]string
		words    []string
		word     strings.Builder
		inWord   bool
		skipNext bool // the word after > or <
	)
	endWord := func() {
		if inWord {
			if !skipNext {
				words = append(words, word.String())
			}
			skipNext = false
		}
		word.Reset()
		inWord = false
	}
	endCmd := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
		words = nil
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed '")
			}
			word.WriteString(line[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0 {
					i++
				}
				word.WriteByte(line[i])
			}
			if i == len(line) {
				return nil, fmt.Errorf(`unclosed "`)
			}
			inWord = true
		case c == '\\' && i+1 < len(line):
			i++
			word.WriteByte(line[i])
			inWord = true
		case c == '#' && !inWord:
			endCmd()
			return cmds, nil
		case c == ' ' || c == '\t':
			endWord()
		case c == '|' || c == ';' || c == '&':
			endCmd()
		case c == '>' || c == '<':
			endWord()
			skipNext = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	endCmd()
	return cmds, nil
}

// pageCommandsParse: each `parley …` line of the page names a real
// command with flags it has and arguments it takes, and asking it for
// --help shows that command's usage. The page shows parley init for its
// platform and parley doctor.
func pageCommandsParse(t *testing.T, p *docPage, platform string) {
	cmds := pageCommands(t, p)
	var initHere, doctor bool
	for _, args := range cmds {
		line := strings.Join(append([]string{"parley"}, args...), " ")
		var out bytes.Buffer
		e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &out, lookupEnv: func(string) (string, bool) { return "", false }}
		root := newRootCmd(e)
		strictSubcommands(root)
		cmd, rest, err := root.Find(args)
		if err != nil {
			t.Errorf("%s: %s: %v", p.path, line, err)
			continue
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Errorf("%s: %s: %v", p.path, line, err)
			continue
		}
		if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
			t.Errorf("%s: %s: %v", p.path, line, err)
			continue
		}
		if code := execute(t.Context(), e, append(slices.Clone(args), "--help")); code != 0 || !strings.Contains(out.String(), "Usage:\n  "+cmd.CommandPath()) {
			t.Errorf("%s: %s --help: exit %d, want %s's usage:\n%s", p.path, line, code, cmd.CommandPath(), out.String())
		}
		switch cmd.Name() {
		case "init":
			if v, err := cmd.Flags().GetStringSlice("platform"); err == nil && slices.Contains(v, platform) {
				initHere = true
			}
		case "doctor":
			doctor = true
		}
	}
	if !initHere || !doctor {
		t.Errorf("%s: want `parley init --platform %s …` and `parley doctor` in its sh blocks (found init: %v, doctor: %v; commands %q)",
			p.path, platform, initHere, doctor, cmds)
	}
}

// docInSource reports whether every piece of span between "…" is in src,
// with at least 12 characters of its own (docQuoteMatches also wants them
// in order, which the pieces of a message formatted with %s are not
// always in its source).
func docInSource(span, src string) bool {
	n := 0
	for _, piece := range strings.Split(docSquash(span), "…") {
		if strings.TrimSpace(piece) == "" {
			continue
		}
		if !strings.Contains(src, piece) {
			return false
		}
		n += len(strings.TrimSpace(piece))
	}
	return n >= 12
}

var (
	docGoSourceOnce sync.Once
	docGoSourceText string
	docGoSourceErr  error
)

// docGoSource is the text of every non-test Go file of the repository, runs
// of white space squashed.
func docGoSource(t *testing.T) string {
	t.Helper()
	docGoSourceOnce.Do(func() {
		var b strings.Builder
		docGoSourceErr = filepath.WalkDir(filepath.Join("..", ".."), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			b.Write(src)
			b.WriteByte('\n')
			return err
		})
		docGoSourceText = docSquash(b.String())
	})
	if docGoSourceErr != nil {
		t.Fatal(docGoSourceErr)
	}
	return docGoSourceText
}
