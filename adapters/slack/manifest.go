package slack

import (
	"fmt"
	"net/url"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/parleybot/parley/chat"
)

// The app manifest (https://docs.slack.dev/reference/app-manifest) that
// `parley slack-manifest` prints: everything the adapter relies on, so an
// operator creates a working app by pasting it. Built from structs and
// marshalled, never by string templating, so any name yields valid YAML.

// BotScopes are the bot token scopes Parley uses, each for a reason.
var botScopes = []string{
	"app_mentions:read", // app_mention events
	"chat:write",        // post, update, ephemeral, stream, assistant status
	"im:history",        // message.im: DMs and DM threads
	"im:read",           // conversations.members of a DM (members.go)
	"im:write",
	"channels:history", // message.channels: thread follow-ups without a mention
	"groups:history",   // message.groups: the same in private channels
	"mpim:history",     // message.mpim: group DMs
	"channels:read",    // conversations.members: reminders call only a channel's members
	"groups:read",      // the same in private channels
	"mpim:read",        // the same in group DMs
	"users:read",       // display names for prompts
	"assistant:write",  // assistant threads: status, suggested prompts, titles
	"files:read",       // download what people attach (url_private), files.go
	"commands",         // /parley
}

// botEvents are the events Parley subscribes to.
var botEvents = []string{
	"app_mention",
	"message.channels",
	"message.groups",
	"message.im",
	"message.mpim",
	"assistant_thread_started",
	"app_home_opened", // the Home tab: each person's summary and console button (home.go)
}

type manifest struct {
	DisplayInformation struct {
		Name            string `yaml:"name"`
		Description     string `yaml:"description"`
		BackgroundColor string `yaml:"background_color"`
	} `yaml:"display_information"`
	Features struct {
		AppHome struct {
			HomeTabEnabled             bool `yaml:"home_tab_enabled"`
			MessagesTabEnabled         bool `yaml:"messages_tab_enabled"`
			MessagesTabReadOnlyEnabled bool `yaml:"messages_tab_read_only_enabled"`
		} `yaml:"app_home"`
		BotUser struct {
			DisplayName  string `yaml:"display_name"`
			AlwaysOnline bool   `yaml:"always_online"`
		} `yaml:"bot_user"`
		AssistantView struct {
			AssistantDescription string   `yaml:"assistant_description"`
			SuggestedPrompts     []prompt `yaml:"suggested_prompts"`
		} `yaml:"assistant_view"`
		SlashCommands []slashCommand `yaml:"slash_commands"`
	} `yaml:"features"`
	OAuthConfig struct {
		Scopes struct {
			Bot []string `yaml:"bot"`
		} `yaml:"scopes"`
	} `yaml:"oauth_config"`
	Settings struct {
		EventSubscriptions struct {
			RequestURL string   `yaml:"request_url,omitempty"`
			BotEvents  []string `yaml:"bot_events"`
		} `yaml:"event_subscriptions"`
		Interactivity struct {
			IsEnabled  bool   `yaml:"is_enabled"`
			RequestURL string `yaml:"request_url,omitempty"`
		} `yaml:"interactivity"`
		OrgDeployEnabled     bool `yaml:"org_deploy_enabled"`
		SocketModeEnabled    bool `yaml:"socket_mode_enabled"`
		TokenRotationEnabled bool `yaml:"token_rotation_enabled"`
	} `yaml:"settings"`
}

type prompt struct {
	Title   string `yaml:"title"`
	Message string `yaml:"message"`
}

type slashCommand struct {
	Command      string `yaml:"command"`
	URL          string `yaml:"url,omitempty"`
	Description  string `yaml:"description"`
	UsageHint    string `yaml:"usage_hint"`
	ShouldEscape bool   `yaml:"should_escape"`
}

// Slack's length limits on manifest names.
const (
	maxAppName     = 35
	maxDisplayName = 80
)

// Manifest returns a ready-to-paste Slack app manifest in YAML for an app
// called name ("Parley" when empty): bot user, Home and DM tabs, assistant view,
// /parley, scopes, events, interactivity and Socket Mode.
func Manifest(name string) string {
	m, _ := HTTPManifest(name, "")
	return m
}

// HTTPManifest is Manifest for an app Slack reaches over HTTP
// (slack.mode: http) at base, the public https URL Parley's http.listen
// is served at: the events, interactivity and /parley request URLs are
// filled in (EventsPath, InteractivityPath, CommandsPath) and Socket Mode
// is off. An empty base is Socket Mode.
func HTTPManifest(name, base string) (string, error) {
	if base != "" {
		u, err := url.Parse(base)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return "", fmt.Errorf("--url %q: want the public https URL Parley is served at, e.g. https://parley.example.com", base)
		}
		base = strings.TrimSuffix(base, "/")
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name = "Parley"
	}
	var m manifest
	m.DisplayInformation.Name = truncate(name, maxAppName)
	m.DisplayInformation.Description = "A self-hosted AI agent: mention it in a channel, talk to it in a DM."
	m.DisplayInformation.BackgroundColor = "#2c2d30"
	m.Features.AppHome.HomeTabEnabled = true // home.go publishes each person's page
	m.Features.AppHome.MessagesTabEnabled = true
	m.Features.BotUser.DisplayName = truncate(name, maxDisplayName)
	m.Features.BotUser.AlwaysOnline = true
	m.Features.AssistantView.AssistantDescription = "Ask " + name + " to research, summarize or run a task; it remembers what you tell it to."
	m.Features.AssistantView.SuggestedPrompts = suggestedPrompts() // assistant.go
	var names, forms []string
	for _, c := range chat.Commands() {
		names = append(names, c.Name)
		for _, u := range c.Usage {
			forms = append(forms, strings.TrimPrefix(u.Form, "/"))
		}
	}
	m.Features.SlashCommands = []slashCommand{{
		Command:     umbrellaCommand,
		Description: "Talk to " + truncate(name, maxAppName) + ": " + strings.Join(names, ", "),
		UsageHint:   strings.Join(forms, " | "),
	}}
	m.OAuthConfig.Scopes.Bot = botScopes
	m.Settings.EventSubscriptions.BotEvents = botEvents
	m.Settings.Interactivity.IsEnabled = true
	m.Settings.SocketModeEnabled = base == ""
	if base != "" {
		m.Settings.EventSubscriptions.RequestURL = base + EventsPath
		m.Settings.Interactivity.RequestURL = base + InteractivityPath
		m.Features.SlashCommands[0].URL = base + CommandsPath
	}
	b, err := yaml.Marshal(&m)
	if err != nil {
		// Plain structs of strings and bools always marshal.
		panic("slack manifest: " + err.Error())
	}
	return string(b), nil
}

// truncate cuts s to at most n runes.
func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n]))
	}
	return s
}
