package main

// The set-up pages docs/slack.md, docs/telegram.md and docs/discord.md,
// tried against the platforms' fakes so that they cannot drift from the
// binary:
//
//   - the configuration a page marks `<!-- tried: config -->` is written
//     to a file, the fake's tokens in its placeholders and the fake's API
//     URL, a data directory and the model's key in the environment (as
//     TestInitThenAnswer does); Parley started on it answers the admin it
//     names, and /status tells them the id line the page shows;
//   - every yaml block loads as Parley's configuration, and the page says
//     what each key it shows is; every key, section and variable it names
//     is Parley's;
//   - the `parley …` lines of its sh blocks are the CLI's commands, with
//     flags and arguments they take;
//   - a code span of three words or more (other than a command line) is a
//     quote of what Parley says: of what it said here (doctor's checks, a
//     stranger's refusal) or, for what the fakes do not make it say, of a
//     message in its source; the table under "When it does not work"
//     quotes what Parley prints for each mistake it lists;
//   - Slack: `parley slack-manifest --mode http --url …` fills exactly the
//     request URLs the page lists; Discord: the invite link asks for the
//     permissions its table names, parley init's among them.

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/bwmarrin/discordgo"
	"go.yaml.in/yaml/v3"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/cmd/parley/internal/platforms"
)

// docModelKey is the model key the pages take from OPENAI_API_KEY; the
// model fake accepts no other.
const docModelKey = "sk-docs-test"

// docAnswer is what the model says to the page's first message.
const docAnswer = "Hello from the set-up page."

// triedMarker is the comment a page puts before the configuration the
// test tries.
const triedMarker = "tried: config"

func TestDocsPlatformPages(t *testing.T) {
	for _, tc := range []struct {
		platform string
		fake     func(t *testing.T) *docFake
		extra    string // the name of a check of the platform's own
		check    func(t *testing.T, page *docPage)
	}{
		{"slack", slackDocFake, "manifest", slackManifestMatchesPage},
		{"telegram", telegramDocFake, "", nil},
		{"discord", discordDocFake, "invite", discordInviteMatchesPage},
	} {
		t.Run(tc.platform, func(t *testing.T) {
			t.Parallel()
			page := readDocPage(t, tc.platform)
			t.Run("keys", func(t *testing.T) { pageKeysExist(t, page) })
			t.Run("links", func(t *testing.T) { pageLinksResolve(t, page) })
			t.Run("commands", func(t *testing.T) { pageCommandsParse(t, page, tc.platform) })
			t.Run("answers", func(t *testing.T) { tryPage(t, page, tc.platform, tc.fake(t)) })
			if tc.check != nil {
				t.Run(tc.extra, func(t *testing.T) { tc.check(t, page) })
			}
		})
	}
}

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

// docConfigKeys are config.example.yaml's keys, which are all the keys
// there are (TestExampleDocumentsEveryKey): its leaves, and the sections
// above them.
func docConfigKeys(t *testing.T) (leaves, sections map[string]bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "config.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := yaml.Unmarshal(b, &root); err != nil {
		t.Fatal(err)
	}
	leaves, sections = map[string]bool{}, map[string]bool{}
	for _, k := range docYamlLeaves(root) {
		leaves[k] = true
		for i := range len(k) {
			if k[i] == '.' {
				sections[k[:i]] = true
			}
		}
	}
	return leaves, sections
}

// docYamlLeaves are the dotted keys of m's leaves (an empty mapping is one).
func docYamlLeaves(m map[string]any) []string {
	var out []string
	var walk func(m map[string]any, prefix string)
	walk = func(m map[string]any, prefix string) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
				walk(sub, prefix+k+".")
				continue
			}
			out = append(out, prefix+k)
		}
	}
	walk(m, "")
	slices.Sort(out)
	return out
}

func docParseYAML(t *testing.T, where, body string) map[string]any {
	t.Helper()
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	return m
}

// docYamlGet is the value at dotted key in m.
func docYamlGet(m map[string]any, key string) (any, bool) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return nil, false
		}
		m = next
	}
	v, ok := m[parts[len(parts)-1]]
	return v, ok
}

// docYamlSet sets dotted key in m to v, creating sections; nil deletes it.
func docYamlSet(m map[string]any, key string, v any) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	if v == nil {
		delete(m, parts[len(parts)-1])
		return
	}
	m[parts[len(parts)-1]] = v
}

func docCloneYAML(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	b, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return docParseYAML(t, "clone", string(b))
}

// docWriteConfig writes m as a config file readable by its owner alone.
func docWriteConfig(t *testing.T, m map[string]any) string {
	t.Helper()
	b, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// docLoadConfig loads the file at path as parley does, with env as the
// whole environment.
func docLoadConfig(path string, env map[string]string) (*config.Config, error) {
	return config.Load(config.LoadOptions{
		Path: path,
		Env:  func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Environ: func() []string {
			var out []string
			for k, v := range env {
				out = append(out, k+"="+v)
			}
			return out
		},
		Platforms: platforms.All(),
	})
}

// docIsolatedEnv is an environment with nothing of the host's: a data
// directory and a config home of the test's own.
func docIsolatedEnv(t *testing.T) map[string]string {
	return map[string]string{"PARLEY_DATA_DIR": filepath.Join(t.TempDir(), "data"), "XDG_CONFIG_HOME": t.TempDir()}
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

// docFake is a platform's fake, ready for a page to be tried on it.
type docFake struct {
	// env says where the fake is: PARLEY_<PLATFORM>_API_URL.
	env map[string]string
	// secrets are the fake's tokens by key, put where the page's
	// configuration has placeholders.
	secrets map[string]string
	// converse starts Parley on cfg, has the admin (the page's id) write
	// to it and checks the answer, and returns what /status answered
	// them and what else Parley said that the page quotes (a stranger's
	// refusal).
	converse func(t *testing.T, cfg *config.Config, model *llmtest.Server, admin string) (status string, said []string)
	// failures produce what Parley prints for each mistake the page's
	// troubleshooting lists, given the working configuration and env.
	failures []docFailure
}

type docFailure func(t *testing.T, good map[string]any, env map[string]string) string

// loadFails is the error Parley's configuration gives once edit has
// spoilt the page's.
func loadFails(edit func(m map[string]any)) docFailure {
	return func(t *testing.T, good map[string]any, env map[string]string) string {
		m := docCloneYAML(t, good)
		edit(m)
		_, err := docLoadConfig(docWriteConfig(t, m), env)
		if err == nil {
			t.Fatalf("a spoilt configuration loads: %v", m)
		}
		return err.Error()
	}
}

// checkFails is what doctor's (and init's) checks print once edit has
// spoilt the page's configuration, with env's variables over the good
// ones; the platform's check must fail.
func checkFails(platform string, edit func(m map[string]any), env func(t *testing.T) map[string]string) docFailure {
	return func(t *testing.T, good map[string]any, goodEnv map[string]string) string {
		m := docCloneYAML(t, good)
		edit(m)
		e := maps.Clone(goodEnv)
		if env != nil {
			maps.Copy(e, env(t))
		}
		cfg, err := docLoadConfig(docWriteConfig(t, m), e)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		initChecks(t.Context(), &out, cfg, []string{platform})
		if !strings.Contains(out.String(), "FAIL  "+platform) {
			t.Fatalf("the %s check passed with a spoilt configuration:\n%s", platform, out.String())
		}
		return out.String()
	}
}

// tryPage writes the page's configuration, with the fake's tokens in its
// placeholders, the fake's API URL, a data directory and the model's key
// in the environment (as TestInitThenAnswer does), starts Parley on it
// and has the admin the page names talk to it. What /status and doctor's
// checks say the page must quote, and what Parley prints for each
// failure its troubleshooting table lists, that table; and whatever the
// page quotes is one of those, or a message in Parley's source.
func tryPage(t *testing.T, p *docPage, platform string, fake *docFake) {
	f := p.tried(t)
	where := fmt.Sprintf("%s:%d", p.path, f.line)
	good := docParseYAML(t, where, f.body)
	for key, v := range fake.secrets {
		if old, ok := docYamlGet(good, key); !ok || fmt.Sprint(old) == "" {
			t.Fatalf("%s: the configuration has no placeholder for %s, which the platform needs", where, key)
		}
		docYamlSet(good, key, v)
	}
	model := llmtest.NewServer(llmtest.WithAPIKey(docModelKey))
	t.Cleanup(model.Close)
	env := docIsolatedEnv(t)
	env["PARLEY_LLM_OPENAI_BASE_URL"] = model.OpenAIBaseURL()
	env["OPENAI_API_KEY"] = docModelKey // the pages: "its key from OPENAI_API_KEY in the environment"
	maps.Copy(env, fake.env)
	cfg, err := docLoadConfig(docWriteConfig(t, good), env)
	if err != nil {
		t.Fatalf("%s with the fake's tokens: %v", where, err)
	}
	if got := cfg.EnabledPlatforms(); !slices.Equal(got, []string{platform}) {
		t.Fatalf("%s enables %q, want %s", where, got, platform)
	}
	var admin string
	for _, a := range cfg.Access.Admins {
		if id, ok := strings.CutPrefix(a, platform+":"); ok {
			admin = id
			break
		}
	}
	if admin == "" {
		t.Fatalf("%s makes no %s user the admin: %q", where, platform, cfg.Access.Admins)
	}

	var said []string
	var checks bytes.Buffer
	if initChecks(t.Context(), &checks, cfg, []string{platform}) != 0 {
		t.Fatalf("doctor's checks fail on %s:\n%s", where, checks.String())
	}
	said = append(said, checks.String())
	status, more := fake.converse(t, cfg, model, admin)
	said = append(said, more...)
	first, _, _ := strings.Cut(status, "\n")
	want := "You are " + platform + ":" + admin + " here."
	if first != want {
		t.Errorf("/status begins %q, want %q", first, want)
	}
	if !strings.Contains(p.text, want) {
		t.Errorf("%s does not show /status's first line for its admin, %q", p.path, want)
	}

	for _, s := range said {
		if !quotes(p.quoted(), s) {
			t.Errorf("%s quotes nothing of what Parley says here:\n%s", p.path, s)
		}
	}
	var table []string
	for _, cell := range p.troubleshooting(t) {
		for _, m := range docCodeSpan.FindAllStringSubmatch(cell, -1) {
			table = append(table, m[1])
		}
	}
	var failed []string
	for _, fail := range fake.failures {
		out := fail(t, good, env)
		failed = append(failed, out)
		if !quotes(table, out) {
			t.Errorf("%s: nothing under \"When it does not work\" quotes what Parley says here:\n%s", p.path, out)
		}
	}
	// Every quote is of something Parley says: above, or, for what the
	// fakes do not produce (a log line at run time), in its source.
	src := docGoSource(t)
	for _, span := range slices.Compact(slices.Sorted(slices.Values(append(p.quoted(), table...)))) {
		if !slices.ContainsFunc(append(said, failed...), func(s string) bool { return docQuoteMatches(span, s) }) && !docInSource(span, src) {
			t.Errorf("%s quotes `%s`, which Parley never says (a code span of three words or more is a quote)", p.path, span)
		}
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

// docWaitText waits until texts() holds one for which ok is true, and
// returns it.
func docWaitText(t *testing.T, ctx context.Context, what string, wait func(context.Context, func() bool) error, texts func() []string, ok func(string) bool) string {
	t.Helper()
	var found string
	if err := wait(ctx, func() bool {
		for _, s := range texts() {
			if ok(s) {
				found = s
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("%s never came: %v; there are %q", what, err, texts())
	}
	return found
}

func docIsStatus(s string) bool  { return strings.HasPrefix(s, "You are ") }
func docIsRefusal(s string) bool { return strings.HasPrefix(s, "Sorry, I only talk to") }
func docAnyText(string) bool     { return true }

func slackDocFake(t *testing.T) *docFake {
	slk := newWorkspace(t)
	return &docFake{
		env:     map[string]string{"PARLEY_SLACK_API_URL": slk.URL + "/"},
		secrets: map[string]string{"slack.bot_token": slk.BotToken(), "slack.app_token": slk.AppToken()},
		converse: func(t *testing.T, cfg *config.Config, model *llmtest.Server, admin string) (string, []string) {
			slk.AddUser(admin, "you")
			w := &slackWorld{slk: slk, model: model, instance: startInstance(t, cfg)}
			ctx := waitCtx(t)
			model.Enqueue(llmtest.Text(docAnswer))
			root := slk.PostUserMessage("C1", admin, "<@"+slk.BotUserID()+"> hello", "")
			w.botSays(t, ctx, root, docAnswer)

			slk.SlashCommand("/parley", "status", admin, "C1")
			ephemerals := func() []string {
				var out []string
				for _, e := range slk.Ephemerals(admin) {
					out = append(out, e.Text)
				}
				return out
			}
			return docWaitText(t, ctx, "the answer to /parley status", slk.WaitFor, ephemerals, docIsStatus), nil
		},
		failures: []docFailure{
			checkFails("slack", func(m map[string]any) { docYamlSet(m, "slack.bot_token", "xoxb-not-this-workspaces") }, nil),
			loadFails(func(m map[string]any) { docYamlSet(m, "slack.bot_token", slk.AppToken()) }),
			loadFails(func(m map[string]any) { docYamlSet(m, "slack.app_token", nil) }),
			loadFails(func(m map[string]any) { docYamlSet(m, "slack.mode", "http"); docYamlSet(m, "slack.app_token", nil) }),
		},
	}
}

func telegramDocFake(t *testing.T) *docFake {
	tg := telegramtest.NewServer(telegramtest.WithoutRateLimits())
	t.Cleanup(tg.Close)
	return &docFake{
		env:     map[string]string{"PARLEY_TELEGRAM_API_URL": tg.URL},
		secrets: map[string]string{"telegram.token": tg.Token()},
		converse: func(t *testing.T, cfg *config.Config, model *llmtest.Server, admin string) (string, []string) {
			id, err := strconv.ParseInt(admin, 10, 64)
			if err != nil {
				t.Fatalf("the admin's Telegram id %q: %v", admin, err)
			}
			tg.AddUser(id, "You", "you")
			tg.AddUser(tgBo, "Bo", "bo")
			w := &tgWorld{tg: tg, model: model, instance: startInstance(t, cfg)}
			ctx := waitCtx(t)
			model.Enqueue(llmtest.Text(docAnswer))
			tg.Post(telegramtest.Incoming{Chat: id, From: id, Text: "hello"})
			w.botSays(t, ctx, id, 0, docAnswer)

			shown := func(chat int64) func() []string {
				return func() []string {
					var out []string
					for _, m := range tg.BotMessages(chat) {
						out = append(out, m.Visible)
					}
					return out
				}
			}
			tg.Post(telegramtest.Incoming{Chat: id, From: id, Text: "/status"})
			status := docWaitText(t, ctx, "the answer to /status", tg.WaitFor, shown(id), docIsStatus)
			tg.Post(telegramtest.Incoming{Chat: tgBo, From: tgBo, Text: "hello"}) // a stranger
			refusal := docWaitText(t, ctx, "the stranger's answer", tg.WaitFor, shown(tgBo), docAnyText)
			if !docIsRefusal(refusal) {
				t.Errorf("a stranger was told %q", refusal)
			}
			return status, []string{refusal}
		},
		failures: []docFailure{
			checkFails("telegram", func(m map[string]any) { docYamlSet(m, "telegram.token", "999:refused") }, nil),
			loadFails(func(m map[string]any) { docYamlSet(m, "telegram.token", "bot"+tg.Token()) }),
			loadFails(func(m map[string]any) { docYamlSet(m, "telegram.mode", "webhook") }),
		},
	}
}

func discordDocFake(t *testing.T) *docFake {
	dc := discordtest.NewServer(discordtest.WithHeartbeatInterval(500 * time.Millisecond))
	t.Cleanup(dc.Close)
	// The application with the Message Content intent off.
	noIntent := func(t *testing.T) map[string]string {
		off := discordtest.NewServer(discordtest.WithApplicationFlags(0))
		t.Cleanup(off.Close)
		return map[string]string{"PARLEY_DISCORD_API_URL": off.APIURL(), "PARLEY_DISCORD_TOKEN": off.Token()}
	}
	return &docFake{
		env:     map[string]string{"PARLEY_DISCORD_API_URL": dc.APIURL()},
		secrets: map[string]string{"discord.token": dc.Token()},
		converse: func(t *testing.T, cfg *config.Config, model *llmtest.Server, admin string) (string, []string) {
			guild := cfg.Platform("discord").Section.(*discord.Settings).GuildID
			if guild == "" {
				guild = dcGuild
			}
			dc.AddGuild(guild, "your server")
			dc.AddChannel(guild, dcChannel, "general")
			dc.AddUser(admin, "you")
			dc.AddUser(dcBo, "bo")
			w := &dcWorld{dc: dc, model: model, instance: startInstance(t, cfg)}
			ctx := waitCtx(t)
			if err := dc.WaitFor(ctx, dc.Connected); err != nil {
				t.Fatalf("Parley never connected to the gateway: %v", err)
			}
			model.Enqueue(llmtest.Text(docAnswer))
			m := dc.Post(discordtest.Incoming{Channel: dcChannel, Author: admin, Content: "hello", Mention: true})
			w.botSays(t, ctx, m, docAnswer)

			if err := dc.WaitFor(ctx, func() bool { return len(dc.Commands(guild))+len(dc.Commands("")) > 0 }); err != nil {
				t.Fatalf("no slash commands registered: %v", err)
			}
			if _, err := dc.Command(dcChannel, admin, "status"); err != nil {
				t.Fatal(err)
			}
			status := docWaitText(t, ctx, "the answer to /status", dc.WaitFor, func() []string { return dc.Ephemeral(admin) }, docIsStatus)
			dm := dc.DMChannel(dcBo) // a stranger
			dc.Post(discordtest.Incoming{Channel: dm, Author: dcBo, Content: "hello"})
			said := func() []string {
				var out []string
				for _, m := range dc.BotMessages(dm) {
					out = append(out, m.Content)
				}
				return out
			}
			refusal := docWaitText(t, ctx, "the stranger's answer", dc.WaitFor, said, docAnyText)
			if !docIsRefusal(refusal) {
				t.Errorf("a stranger was told %q", refusal)
			}
			return status, []string{refusal}
		},
		failures: []docFailure{
			checkFails("discord", func(m map[string]any) { docYamlSet(m, "discord.token", "not-this-bots-token") }, nil),
			checkFails("discord", func(map[string]any) {}, noIntent),
			loadFails(func(m map[string]any) { docYamlSet(m, "discord.token", nil) }),
		},
	}
}

// runDocCommand runs a page's parley command and returns what it printed.
func runDocCommand(t *testing.T, args []string) string {
	t.Helper()
	var out, errs bytes.Buffer
	e := &environment{stdin: strings.NewReader(""), stdout: &out, stderr: &errs, lookupEnv: func(string) (string, bool) { return "", false }}
	if code := execute(t.Context(), e, args); code != 0 {
		t.Fatalf("parley %s: exit %d: %s", strings.Join(args, " "), code, errs.String())
	}
	return out.String()
}

// slackManifestMatchesPage: the page's `parley slack-manifest --mode http
// --url …` prints a manifest with Socket Mode off whose request URLs are
// exactly those the page lists, each beside the setting it fills; its
// plain `parley slack-manifest` prints one with Socket Mode on and no URL.
func slackManifestMatchesPage(t *testing.T, p *docPage) {
	type manifest struct {
		Features struct {
			SlashCommands []struct {
				Command string `yaml:"command"`
				URL     string `yaml:"url"`
			} `yaml:"slash_commands"`
		} `yaml:"features"`
		Settings struct {
			EventSubscriptions struct {
				RequestURL string `yaml:"request_url"`
			} `yaml:"event_subscriptions"`
			Interactivity struct {
				RequestURL string `yaml:"request_url"`
			} `yaml:"interactivity"`
			SocketModeEnabled bool `yaml:"socket_mode_enabled"`
		} `yaml:"settings"`
	}
	read := func(args []string) (manifest, map[string]string) {
		var m manifest
		if err := yaml.Unmarshal([]byte(runDocCommand(t, args)), &m); err != nil {
			t.Fatalf("parley %s: %v", strings.Join(args, " "), err)
		}
		urls := map[string]string{} // URL → the setting it fills, as the page names it
		if u := m.Settings.EventSubscriptions.RequestURL; u != "" {
			urls[u] = "Event Subscriptions"
		}
		if u := m.Settings.Interactivity.RequestURL; u != "" {
			urls[u] = "Interactivity"
		}
		for _, c := range m.Features.SlashCommands {
			if c.URL != "" {
				urls[c.URL] = c.Command
			}
		}
		return m, urls
	}
	var socket, http []string
	for _, args := range pageCommands(t, p) {
		if len(args) == 0 || args[0] != "slack-manifest" {
			continue
		}
		switch i := slices.Index(args, "--mode"); {
		case i >= 0 && i+1 < len(args) && args[i+1] == "http":
			http = args
		case len(args) == 1:
			socket = args
		}
	}
	if socket == nil || http == nil {
		t.Fatalf("%s: want `parley slack-manifest` and `parley slack-manifest --mode http --url …` in its sh blocks", p.path)
	}

	m, urls := read(socket)
	if !m.Settings.SocketModeEnabled || len(urls) != 0 {
		t.Errorf("parley %s: Socket Mode %v, request URLs %v; the page says Socket Mode needs no URL", strings.Join(socket, " "), m.Settings.SocketModeEnabled, urls)
	}

	i := slices.Index(http, "--url")
	if i < 0 || i+1 == len(http) {
		t.Fatalf("%s: parley %s has no --url", p.path, strings.Join(http, " "))
	}
	base := strings.TrimSuffix(http[i+1], "/")
	m, urls = read(http)
	if m.Settings.SocketModeEnabled {
		t.Errorf("parley %s leaves Socket Mode on", strings.Join(http, " "))
	}
	if len(urls) != 3 {
		t.Errorf("parley %s fills %d request URLs, want 3 (events, interactivity, /parley): %v", strings.Join(http, " "), len(urls), urls)
	}
	listed := map[string]bool{}
	for _, u := range regexp.MustCompile("https://[^\\s`|)]+").FindAllString(p.prose, -1) {
		if strings.HasPrefix(u, base+"/") {
			listed[u] = true
		}
	}
	for u, setting := range urls {
		if !listed[u] {
			t.Errorf("%s does not list %s, which the manifest fills for %s", p.path, u, setting)
			continue
		}
		ok := false
		for _, line := range strings.Split(p.prose, "\n") {
			if strings.Contains(line, u) && strings.Contains(line, setting) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("%s lists %s, but not beside %s, the setting it fills", p.path, u, setting)
		}
	}
	for u := range listed {
		if _, ok := urls[u]; !ok {
			t.Errorf("%s lists %s, which the manifest does not fill", p.path, u)
		}
	}
}

// discordInviteMatchesPage: the page's invite link asks for the scopes
// and permissions parley init lists, and its permissions integer is the
// sum of the permissions its table names.
func discordInviteMatchesPage(t *testing.T, p *docPage) {
	perms := map[string]int64{
		"View Channels":            discordgo.PermissionViewChannel,
		"Send Messages":            discordgo.PermissionSendMessages,
		"Send Messages in Threads": discordgo.PermissionSendMessagesInThreads,
		"Create Public Threads":    discordgo.PermissionCreatePublicThreads,
		"Read Message History":     discordgo.PermissionReadMessageHistory,
		"Embed Links":              discordgo.PermissionEmbedLinks,
		"Attach Files":             discordgo.PermissionAttachFiles,
	}
	var next bytes.Buffer
	nextSteps(&next, []string{"discord"}, []string{"discord:1"})
	said := docSquash(next.String())
	m := regexp.MustCompile(`scopes (.+?); permissions (.+?)\)`).FindStringSubmatch(said)
	if m == nil {
		t.Fatalf("parley init's next steps name no scopes and permissions for Discord: %s", said)
	}
	scopes := strings.Split(m[1], " and ")
	printed := strings.Split(m[2], ", ")

	raw := regexp.MustCompile(`https://discord\.com/oauth2/authorize\?\S+`).FindString(p.text)
	if raw == "" {
		t.Fatalf("%s has no invite link", p.path)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for _, s := range scopes {
		if !slices.Contains(strings.Fields(q.Get("scope")), s) {
			t.Errorf("%s: the invite's scope %q lacks %s, which parley init asks for", p.path, q.Get("scope"), s)
		}
	}
	var table []string
	for _, line := range strings.Split(p.prose, "\n") {
		cols := strings.Split(line, "|")
		if len(cols) >= 3 {
			if _, ok := perms[strings.TrimSpace(cols[1])]; ok {
				table = append(table, strings.TrimSpace(cols[1]))
			}
		}
	}
	var sum int64
	for _, name := range table {
		sum |= perms[name]
	}
	for _, name := range printed {
		if !slices.Contains(table, name) {
			t.Errorf("%s does not ask for %s, which parley init lists (its table: %q)", p.path, name, table)
		}
	}
	if got := q.Get("permissions"); got != strconv.FormatInt(sum, 10) {
		t.Errorf("%s: the invite asks for permissions=%s; its table (%q) adds up to %d", p.path, got, table, sum)
	}
}
