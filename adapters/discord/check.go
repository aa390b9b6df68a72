package discord

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"
)

// Check makes one cheap authenticated call (GET /users/@me) and describes
// the bot. discordgo's own 429 retries are off: doctor reports, it does not
// wait.
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
	return "bot @" + u.Username, nil
}
