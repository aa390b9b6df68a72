package slack

import (
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestManifest(t *testing.T) {
	for _, name := range []string{"Parley", "", `Weird: "name" # with #yaml & {chars}`, strings.Repeat("long", 20)} {
		var m manifest
		if err := yaml.Unmarshal([]byte(Manifest(name)), &m); err != nil {
			t.Fatalf("Manifest(%q) is not YAML: %v", name, err)
		}
		if m.DisplayInformation.Name == "" || len([]rune(m.DisplayInformation.Name)) > maxAppName {
			t.Errorf("name %q", m.DisplayInformation.Name)
		}
		for _, s := range []string{"app_mentions:read", "chat:write", "im:history", "im:read", "im:write", "channels:history",
			"groups:history", "mpim:history", "users:read", "assistant:write", "files:read", "commands",
			"channels:read", "groups:read", "mpim:read"} {
			if !slices.Contains(m.OAuthConfig.Scopes.Bot, s) {
				t.Errorf("scope %s missing", s)
			}
		}
		for _, e := range []string{"app_mention", "message.channels", "message.groups", "message.im", "message.mpim", "assistant_thread_started", "app_home_opened"} {
			if !slices.Contains(m.Settings.EventSubscriptions.BotEvents, e) {
				t.Errorf("event %s missing", e)
			}
		}
		if !m.Settings.SocketModeEnabled || !m.Settings.Interactivity.IsEnabled || !m.Features.AppHome.MessagesTabEnabled || !m.Features.AppHome.HomeTabEnabled {
			t.Errorf("settings %+v, app home %+v", m.Settings, m.Features.AppHome)
		}
		if len(m.Features.SlashCommands) != 1 || m.Features.SlashCommands[0].Command != "/parley" || m.Features.SlashCommands[0].UsageHint == "" {
			t.Errorf("slash commands %+v", m.Features.SlashCommands)
		}
		if len(m.Features.AssistantView.SuggestedPrompts) == 0 || m.Features.BotUser.DisplayName == "" {
			t.Errorf("features %+v", m.Features)
		}
	}
	if m := Manifest("Parley"); !strings.HasPrefix(m, "display_information:") {
		t.Errorf("manifest starts %q", m[:40])
	}
}

// TestHTTPManifest: for slack.mode: http the manifest carries the three
// request URLs Parley serves, and Socket Mode is off; a base that is not
// a public https URL is refused.
func TestHTTPManifest(t *testing.T) {
	out, err := HTTPManifest("Parley", "https://parley.example.com/")
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := yaml.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if m.Settings.SocketModeEnabled || m.Settings.EventSubscriptions.RequestURL != "https://parley.example.com"+EventsPath ||
		m.Settings.Interactivity.RequestURL != "https://parley.example.com"+InteractivityPath ||
		m.Features.SlashCommands[0].URL != "https://parley.example.com"+CommandsPath {
		t.Fatalf("manifest:\n%s", out)
	}
	for _, bad := range []string{"http://parley.example.com", "parley.example.com", "https://", "https://x.example/?a=1"} {
		if _, err := HTTPManifest("Parley", bad); err == nil {
			t.Errorf("HTTPManifest(%q) was accepted", bad)
		}
	}
	if m, _ := HTTPManifest("Parley", ""); m != Manifest("Parley") || !strings.Contains(m, "socket_mode_enabled: true") {
		t.Errorf("no URL is Socket Mode:\n%s", m)
	}
}
