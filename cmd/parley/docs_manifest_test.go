package main

// The parts of TestDocsPlatformPages that check what a page says against
// what a command prints: the Slack manifest, the Discord invite.

import (
	"bytes"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"go.yaml.in/yaml/v3"
)

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
