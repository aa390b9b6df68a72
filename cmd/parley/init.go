package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
	"golang.org/x/term"

	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// parley init writes a working config.yaml: it asks (or takes from flags)
// which platforms and model, checks every token live with the call
// parley doctor makes, makes the operator the admin, writes the file
// readable by its owner alone, and says what to do next.

// initSecret is a secret init asks for: its config key, the flag that
// gives it, and the environment variables it may already be in.
type initSecret struct {
	key, flag, prompt string
	env               []string
}

// initSecrets are the secrets of each choice init offers.
func initSecrets() map[string][]initSecret {
	return map[string][]initSecret{
		"slack": {
			{key: "slack.bot_token", flag: "slack-bot-token", prompt: "Slack bot token (xoxb-…, OAuth & Permissions)", env: []string{"PARLEY_SLACK_BOT_TOKEN", "SLACK_BOT_TOKEN"}},
			{key: "slack.app_token", flag: "slack-app-token", prompt: "Slack app-level token (xapp-…, Basic Information → App-Level Tokens, scope connections:write)", env: []string{"PARLEY_SLACK_APP_TOKEN", "SLACK_APP_TOKEN"}},
		},
		"telegram": {{key: "telegram.token", flag: "telegram-token", prompt: "Telegram bot token (from @BotFather)", env: []string{"PARLEY_TELEGRAM_TOKEN", "TELEGRAM_BOT_TOKEN"}}},
		"discord":  {{key: "discord.token", flag: "discord-token", prompt: "Discord bot token (Developer Portal → Bot → Reset Token)", env: []string{"PARLEY_DISCORD_TOKEN", "DISCORD_TOKEN"}}},
		"openai":   {{key: "llm.openai.api_key", flag: "openai-api-key", prompt: "OpenAI API key (or any key your OpenAI-compatible server takes)", env: []string{"PARLEY_LLM_OPENAI_API_KEY", "OPENAI_API_KEY"}}},
		"anthropic": {{key: "llm.anthropic.api_key", flag: "anthropic-api-key", prompt: "Anthropic API key",
			env: []string{"PARLEY_LLM_ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"}}},
	}
}

// initPlatforms are the chat platforms init sets up.
func initPlatforms() []string { return []string{"slack", "telegram", "discord"} }

type initOptions struct {
	platforms []string
	model     string
	baseURL   string
	admins    []string
	fromDM    bool               // the admin is whoever sends the bot init's code (init_admin.go)
	adminWait time.Duration      // how long fromDM waits
	secrets   map[string]*string // by flag
	yes       bool
	force     bool
}

func newInitCmd(e *environment, configPath func() string) *cobra.Command {
	o := initOptions{secrets: map[string]*string{}}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a working config.yaml: platforms, model, tokens checked live, you as the admin",
		Long: "parley init asks which chat platforms and model to use, checks each token with one live call,\n" +
			"makes you the admin (--admin platform:id), writes config.yaml readable by you alone and prints\n" +
			"the next step. With --yes it asks nothing: what it needs comes from flags or the environment.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInit(cmd.Context(), e, configPath(), o)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.platforms, "platform", nil, "chat platform(s): slack, telegram, discord (repeat or comma-separate); none: the terminal only")
	f.StringVar(&o.model, "model", "", `model as provider/name, e.g. "openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-5"`)
	f.StringVar(&o.baseURL, "openai-base-url", "", "an OpenAI-compatible server instead of OpenAI (e.g. http://localhost:11434/v1)")
	f.StringSliceVar(&o.admins, "admin", nil, "your own user as platform:id (e.g. slack:U0123ABC, telegram:123456789); repeat for more")
	f.BoolVar(&o.fromDM, "admin-from-dm", false, "wait for a direct message to the bot holding the code init shows, and make its sender the admin")
	f.DurationVar(&o.adminWait, "admin-wait", 10*time.Minute, "how long --admin-from-dm waits for the message")
	f.BoolVarP(&o.yes, "yes", "y", false, "ask nothing; take what is missing from the environment, or fail")
	f.BoolVar(&o.force, "force", false, "overwrite an existing config file")
	for _, list := range initSecrets() {
		for _, s := range list {
			o.secrets[s.flag] = f.String(s.flag, "", s.prompt)
		}
	}
	return cmd
}

// runInit asks, checks and writes.
func runInit(ctx context.Context, e *environment, path string, o initOptions) error {
	if path == "" {
		path = "config.yaml"
	}
	if _, err := os.Stat(path); err == nil && !o.force {
		return fmt.Errorf("%s exists: run parley doctor to check it, or parley init --force to write it again", path)
	}
	ask := newAsker(e, o.yes)
	if len(o.platforms) == 0 {
		answer, err := ask.line("Chat platforms (slack, telegram, discord, comma-separated; none for the terminal only)", "none")
		if err != nil {
			return err
		}
		o.platforms = strings.Split(answer, ",")
	}
	var platforms []string
	for _, p := range o.platforms {
		p = strings.ToLower(strings.TrimSpace(p))
		switch {
		case p == "" || p == "none":
		case slices.Contains(initPlatforms(), p):
			if !slices.Contains(platforms, p) {
				platforms = append(platforms, p)
			}
		default:
			return fmt.Errorf("--platform %q: want slack, telegram, discord or none", p)
		}
	}
	if o.model == "" {
		def := ""
		if v, ok := e.lookupEnv("ANTHROPIC_API_KEY"); ok && v != "" {
			def = "anthropic/claude-sonnet-4-5"
		}
		answer, err := ask.line(`Model as provider/name ("openai/gpt-4.1-mini", "anthropic/claude-sonnet-4-5", "openai/llama3.2" with a local server)`, orDefault(def, "openai/gpt-4.1-mini"))
		if err != nil {
			return err
		}
		o.model = answer
	}
	provider, _, ok := strings.Cut(o.model, "/")
	if !ok || (provider != "openai" && provider != "anthropic") {
		return fmt.Errorf("--model %q: want openai/<name> or anthropic/<name>", o.model)
	}
	values := map[string]string{"llm.model": o.model}
	if o.baseURL != "" {
		values["llm.openai.base_url"] = o.baseURL
	}
	for _, group := range append([]string{provider}, platforms...) {
		for _, s := range initSecrets()[group] {
			v, err := ask.secret(s, *o.secrets[s.flag])
			if err != nil {
				return err
			}
			values[s.key] = v
		}
	}
	for _, p := range platforms {
		values[p+".enabled"] = "true"
	}
	if len(o.admins) == 0 && !o.fromDM {
		prompt := "Your own user, to be the admin, as platform:id (empty: none for now)"
		if len(platforms) > 0 {
			prompt = `Your own user, to be the admin, as platform:id, or "dm" to send the bot a message and be found (empty: none for now)`
		}
		answer, err := ask.line(prompt, "")
		if err != nil {
			return err
		}
		switch {
		case answer == "dm" && len(platforms) > 0:
			o.fromDM = true
		case answer != "":
			o.admins = []string{answer}
		}
	}
	if o.fromDM && len(platforms) == 0 {
		return errors.New("--admin-from-dm needs a chat platform to receive the message on: give --platform")
	}
	for _, a := range o.admins {
		platform, id, ok := strings.Cut(a, ":")
		if !ok || id == "" || !slices.Contains(append(initPlatforms(), "console"), platform) {
			return fmt.Errorf("--admin %q: want platform:id, e.g. slack:U0123ABC or telegram:123456789", a)
		}
	}

	text, err := initYAML(values, o.admins)
	if err != nil {
		return err
	}
	// Written beside its final place and checked there, so a failed
	// check leaves nothing behind and a good file is renamed whole.
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".parley-init-*.yaml")
	if err != nil {
		return fmt.Errorf("write the config: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write the config: %w", err)
	}
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		return fmt.Errorf("write the config: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write the config: %w", err)
	}
	cfg, err := config.Load(config.LoadOptions{Path: tmp.Name(), Env: e.lookupEnv, Platforms: e.platformList()})
	if err != nil {
		return fmt.Errorf("the config would not load: %w", err)
	}
	if failed := initChecks(ctx, e.stdout, cfg, platforms); failed > 0 {
		return fmt.Errorf("%d check(s) failed: nothing was written; fix what is said above and run parley init again", failed)
	}
	if o.fromDM {
		who, err := adminFromDM(ctx, e, cfg, o.adminWait)
		if err != nil {
			return fmt.Errorf("%w (nothing was written)", err)
		}
		o.admins = append(o.admins, who)
		if text, err = initYAML(values, o.admins); err != nil {
			return err
		}
		if err := os.WriteFile(tmp.Name(), []byte(text), 0o600); err != nil {
			return fmt.Errorf("write the config: %w", err)
		}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write the config: %w", err)
	}
	fmt.Fprintf(e.stdout, "Wrote %s (readable by you alone).\n", path)
	nextSteps(e.stdout, platforms, o.admins)
	return nil
}

// initChecks runs doctor's checks of the model and of each chosen
// platform: one live call each.
func initChecks(ctx context.Context, w io.Writer, cfg *config.Config, platforms []string) (failed int) {
	want := append([]string{"model", "provider openai", "provider anthropic"}, platforms...)
	for _, c := range checks(cfg) {
		if !slices.Contains(want, c.name) {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, checkTimeout)
		detail, err := c.run(cctx)
		cancel()
		if err != nil && !errors.As(err, new(warning)) {
			failed++
			report(w, c.name, fmt.Errorf("%s", scrub(cfg, err.Error())))
			continue
		}
		fmt.Fprintf(w, "OK    %-10s %s\n", c.name, scrub(cfg, detail))
	}
	return failed
}

// initYAML is the config file: the values given, by dotted key, and the
// admins.
func initYAML(values map[string]string, admins []string) (string, error) {
	root := map[string]any{}
	for key, v := range values {
		node := root
		parts := strings.Split(key, ".")
		for _, p := range parts[:len(parts)-1] {
			next, ok := node[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				node[p] = next
			}
			node = next
		}
		var value any = v
		if v == "true" {
			value = true
		}
		node[parts[len(parts)-1]] = value
	}
	if len(admins) > 0 {
		root["access"] = map[string]any{"admins": admins}
	}
	body, err := yaml.Marshal(root)
	if err != nil {
		return "", fmt.Errorf("write the config: %w", err)
	}
	return "# Written by parley init on " + time.Now().UTC().Format(time.DateOnly) + ". Every setting, with its default and\n" +
		"# meaning, is in config.example.yaml; PARLEY_* environment variables override this file.\n" + string(body), nil
}

// nextSteps says what to do once the file is written.
func nextSteps(w io.Writer, platforms, admins []string) {
	fmt.Fprintln(w, "\nNext:")
	for _, p := range platforms {
		switch p {
		case "slack":
			fmt.Fprintln(w, "  Slack: create the app from the manifest `parley slack-manifest` prints (api.slack.com/apps → Create New App →")
			fmt.Fprintln(w, "    From a manifest), install it, then /invite @Parley in each channel it should answer in.")
		case "telegram":
			fmt.Fprintln(w, "  Telegram: open your bot's chat (t.me/<its username>) and press Start; add it to a group to use it there.")
		case "discord":
			fmt.Fprintln(w, "  Discord: invite the bot with the OAuth2 URL Generator (scopes bot and applications.commands; permissions")
			fmt.Fprintln(w, "    Send Messages, Send Messages in Threads, Create Public Threads, Read Message History).")
		}
	}
	if len(admins) == 0 {
		fmt.Fprintln(w, "  No admin yet: add yours under access.admins (platform:id) to approve risky tools and see /status.")
	}
	fmt.Fprintln(w, "  Then run: parley")
}

// asker asks on the terminal, or refuses to when told not to.
type asker struct {
	e   *environment
	in  *bufio.Reader
	yes bool
}

func newAsker(e *environment, yes bool) *asker {
	return &asker{e: e, in: bufio.NewReader(e.stdin), yes: yes || !e.terminal}
}

// line asks for a value, def when the answer is empty.
func (a *asker) line(prompt, def string) (string, error) {
	if a.yes {
		return def, nil
	}
	if def != "" {
		fmt.Fprintf(a.e.stdout, "%s [%s]: ", prompt, def)
	} else {
		fmt.Fprintf(a.e.stdout, "%s: ", prompt)
	}
	answer, err := a.in.ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && answer != "") {
		return "", fmt.Errorf("reading the answer: %w", err)
	}
	if answer = strings.TrimSpace(answer); answer == "" {
		return def, nil
	}
	return answer, nil
}

// hidden asks for a secret without showing what is typed, where stdin
// is a terminal.
func (a *asker) hidden(prompt string) (string, error) {
	f, ok := a.e.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return a.line(prompt, "")
	}
	fmt.Fprintf(a.e.stdout, "%s (not shown): ", prompt)
	b, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(a.e.stdout)
	if err != nil {
		return "", fmt.Errorf("reading the answer: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// secret is s's value: the flag's, else the environment's, else asked.
// It is never shown.
func (a *asker) secret(s initSecret, flag string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	for _, name := range s.env {
		if v, ok := a.e.lookupEnv(name); ok && v != "" {
			return v, nil
		}
	}
	if a.yes {
		return "", fmt.Errorf("%s is needed: give --%s or set %s", s.key, s.flag, s.env[0])
	}
	v, err := a.hidden(s.prompt)
	if err != nil {
		return "", err
	}
	if v == "" {
		return "", fmt.Errorf("%s is needed", s.key)
	}
	return v, nil
}
