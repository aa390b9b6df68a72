package discord

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Check makes two cheap authenticated calls (GET /users/@me, GET
// /applications/@me) and describes the bot. It fails when the Message
// Content intent is off in the Developer Portal: the gateway would refuse
// Parley's IDENTIFY (or, without asking for it, guild messages would
// arrive empty). discordgo's own 429 retries are off: doctor reports, it
// does not wait.
func Check(ctx context.Context, token, apiURL string) (string, error) {
	rw, err := NewRewrite(apiURL)
	if err != nil {
		return "", err
	}
	s, err := discordgo.New("Bot " + token)
	if err != nil {
		return "", fmt.Errorf("discord: %w", err)
	}
	s.Client = &http.Client{Transport: rw, Timeout: 20 * time.Second}
	s.MaxRestRetries = 0
	u, err := s.User("@me", discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false))
	if err != nil {
		return "", fmt.Errorf("discord GET /users/@me at %s: %w", apiURL, err)
	}
	// Session.Application takes no request options (context, retries).
	url := discordgo.EndpointApplication("@me")
	body, err := s.RequestWithBucketID(http.MethodGet, url, nil, url,
		discordgo.WithContext(ctx), discordgo.WithRetryOnRatelimit(false))
	if err != nil {
		return "", fmt.Errorf("discord GET /applications/@me at %s: %w", apiURL, err)
	}
	var app struct {
		Flags int `json:"flags"`
	}
	if err := json.Unmarshal(body, &app); err != nil {
		return "", fmt.Errorf("discord GET /applications/@me at %s: %w", apiURL, err)
	}
	if !MessageContentEnabled(app.Flags) {
		return "", fmt.Errorf("bot @%s: the Message Content intent is off, so Parley cannot read messages; "+
			"enable it in the Developer Portal (Bot → Privileged Gateway Intents → Message Content Intent)", u.Username)
	}
	return "bot @" + u.Username + ", message content intent on", nil
}
