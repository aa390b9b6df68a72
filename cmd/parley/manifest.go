package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/adapters/slack"
)

func newSlackManifestCmd(e *environment) *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:   "slack-manifest",
		Short: "Print a Slack app manifest to paste into api.slack.com/apps → Create New App → From a manifest",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprint(e.stdout, slack.Manifest(name))
			return err
		},
	}
	cmd.Flags().StringVar(&name, "name", "Parley", "the app's display name in Slack")
	return cmd
}
