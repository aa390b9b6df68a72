package slack

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// Files people share: a message event of subtype file_share (and its
// app_mention twin) carries the files' objects; their bytes are at
// url_private_download (url_private shows some types inline instead) on
// files.slack.com, for a request with the bot token as a Bearer header
// and the files:read scope.

// slackFileHost is where Slack serves the files of a workspace.
const slackFileHost = "files.slack.com"

var _ chat.FileFetcher = (*Adapter)(nil)

// messageFiles are the files of a message event. slack-go decodes a new
// message's top-level fields, files among them, into ev.Message.
func messageFiles(ev *slackevents.MessageEvent) []slack.File {
	if ev.Message == nil {
		return nil
	}
	return ev.Message.Files
}

// filesOf turns the files of a message event into bot.Files. Deleted
// files (mode tombstone) are left out: they have nothing to fetch.
func filesOf(fs []slack.File) []chat.File {
	var out []chat.File
	for _, f := range fs {
		if f.ID == "" || f.Mode == "tombstone" {
			continue
		}
		name := f.Name
		if name == "" {
			name = f.Title
		}
		u := f.URLPrivateDownload
		if u == "" {
			u = f.URLPrivate
		}
		// An audio clip recorded in Slack is a file like any other, its
		// length in duration_ms when Slack gives it.
		d := time.Duration(max(f.DurationMs, 0)) * time.Millisecond
		out = append(out, chat.File{ID: f.ID, Name: name, MIME: clipType(f), Size: int64(f.Size), URL: u, Duration: d})
	}
	return out
}

// clipType is f's declared type, except for an audio clip recorded in
// Slack that Slack labels video/mp4 or video/webm (its container): such a
// clip is shown as audio (media_display_type) and named audio_message…,
// and is audio to the core, which transcribes it.
func clipType(f slack.File) string {
	rest, isVideo := strings.CutPrefix(strings.ToLower(f.Mimetype), "video/")
	if isVideo && (f.MediaDisplayType == "audio" || strings.HasPrefix(f.Name, "audio_message")) {
		return "audio/" + rest
	}
	return f.Mimetype
}

// FetchFile downloads f with the bot token, from Slack's file host or the
// configured API host only: an event's url_private is whatever the event
// says (a remote file's is its creator's external URL), and the token
// must go nowhere else. Redirects are followed on those hosts only; Slack
// answers a file the bot may not read with a redirect to its sign-in page,
// which is reported, not fetched.
func (a *Adapter) FetchFile(ctx context.Context, f chat.File, max int64) ([]byte, error) {
	if err := chat.CheckFileSize(f, max); err != nil {
		return nil, fmt.Errorf("slack: %w", err)
	}
	if f.URL == "" {
		return nil, fmt.Errorf("slack: %v has no download URL (a file shared from another workspace, or hidden by the plan's limits)", f)
	}
	auth := http.Header{"Authorization": {"Bearer " + a.cfg.BotToken}}
	resp, err := adapterkit.Get(ctx, a.http, f.URL, auth, a.fileHosts)
	if err != nil {
		return nil, fileError(f, err)
	}
	defer resp.Body.Close()
	if err := fileHost().Status(f, resp); err != nil {
		return nil, err
	}
	b, err := chat.ReadFile(resp.Body, resp.ContentLength, f, max)
	if err != nil {
		return nil, fmt.Errorf("slack: %w", err)
	}
	return b, nil
}
