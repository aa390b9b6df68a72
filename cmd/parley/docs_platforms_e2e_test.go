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
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/adapters/discord"
	"github.com/parleybot/parley/adapters/discord/discordtest"
	"github.com/parleybot/parley/adapters/telegram/telegramtest"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/cmd/parley/internal/config"
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
