package chat_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/parleybot/parley/chat"
)

func TestTokenRefused(t *testing.T) {
	slackish := chat.TokenRefused("slack refused the bot token; check slack.bot_token")
	discordish := chat.TokenRefused("discord refused the bot token; check discord.token")
	tests := []struct {
		name    string
		err     error
		is      []error
		isNot   []error
		message string
	}{
		{"reads as its hint", slackish, []error{chat.ErrAuth, slackish}, []error{discordish},
			"slack refused the bot token; check slack.bot_token"},
		{"wrapped", fmt.Errorf("slack auth.test: %w (%w)", slackish, errors.New("invalid_auth")),
			[]error{chat.ErrAuth, slackish}, []error{discordish},
			"slack auth.test: slack refused the bot token; check slack.bot_token (invalid_auth)"},
		{"another adapter's", discordish, []error{chat.ErrAuth, discordish}, []error{slackish},
			"discord refused the bot token; check discord.token"},
		{"not a refusal", errors.New("connection refused"), nil, []error{chat.ErrAuth}, "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, target := range tt.is {
				if !errors.Is(tt.err, target) {
					t.Errorf("errors.Is(%v, %v) = false, want true", tt.err, target)
				}
			}
			for _, target := range tt.isNot {
				if errors.Is(tt.err, target) {
					t.Errorf("errors.Is(%v, %v) = true, want false", tt.err, target)
				}
			}
			if tt.err.Error() != tt.message {
				t.Errorf("message %q, want %q", tt.err.Error(), tt.message)
			}
		})
	}
}
