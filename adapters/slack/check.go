// Package slack connects Parley to Slack.
package slack

import (
	"context"
	"fmt"

	"github.com/slack-go/slack"
)

// Check makes one cheap authenticated call (auth.test) and describes who
// the token belongs to.
func Check(ctx context.Context, botToken, apiURL string) (string, error) {
	api := slack.New(botToken, slack.OptionAPIURL(apiURL))
	resp, err := api.AuthTestContext(ctx)
	if err != nil {
		return "", fmt.Errorf("slack auth.test at %s: %w", apiURL, err)
	}
	return fmt.Sprintf("workspace %s as @%s", resp.Team, resp.User), nil
}
