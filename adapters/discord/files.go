package discord

import (
	"context"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/parleybot/parley/bot/adapterkit"
	"github.com/parleybot/parley/chat"
)

// Files sent with messages: MESSAGE_CREATE lists the attachments, each
// with a url on Discord's CDN (signed in its query, and expiring) and a
// proxy_url on its media proxy. Neither wants the bot token, so none is
// sent: a leaked CDN request costs nothing, a leaked token everything.

// Discord's attachment hosts: url and proxy_url.
const (
	cdnHost   = "cdn.discordapp.com"
	mediaHost = "media.discordapp.net"
)

var _ chat.FileFetcher = (*Adapter)(nil)

// filesOf turns a message's attachments into bot.Files, preferring the
// CDN url to the media proxy's.
func filesOf(atts []*discordgo.MessageAttachment) []chat.File {
	var out []chat.File
	for _, a := range atts {
		if a == nil || a.ID == "" {
			continue
		}
		u := a.URL
		if u == "" {
			u = a.ProxyURL
		}
		// A voice message is an audio/ogg attachment with its length in
		// duration_secs.
		d := time.Duration(a.DurationSecs * float64(time.Second))
		out = append(out, chat.File{ID: a.ID, Name: a.Filename, MIME: a.ContentType, Size: int64(a.Size), URL: u, Duration: max(d, 0)})
	}
	return out
}

// FetchFile downloads f from Discord's CDN (or the configured API host, a
// proxy or a fake), and from nowhere else: an attachment URL is what the
// event says, and the bot must not fetch arbitrary URLs for whoever
// forged one. The request goes through the configured HTTP client
// itself, not the session's, whose transport rewrites every URL to the
// API host, and carries no token.
func (a *Adapter) FetchFile(ctx context.Context, f chat.File, max int64) ([]byte, error) {
	if err := chat.CheckFileSize(f, max); err != nil {
		return nil, fmt.Errorf("discord: %w", err)
	}
	if f.URL == "" {
		return nil, fmt.Errorf("discord: %v has no URL", f)
	}
	resp, err := adapterkit.Get(ctx, a.cfg.HTTPClient, f.URL, nil, a.fileHosts)
	if err != nil {
		return nil, fileError(f, err)
	}
	defer resp.Body.Close()
	if err := fileHost().Status(f, resp); err != nil {
		return nil, err
	}
	b, err := chat.ReadFile(resp.Body, resp.ContentLength, f, max)
	if err != nil {
		return nil, fmt.Errorf("discord: %w", err)
	}
	return b, nil
}
