package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/adapters/slack"
)

func newSlackManifestCmd(e *environment) *cobra.Command {
	var name, mode, base string
	cmd := &cobra.Command{
		Use:   "slack-manifest",
		Short: "Print a Slack app manifest to paste into api.slack.com/apps → Create New App → From a manifest",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			switch mode {
			case slack.ModeSocket:
				if base != "" {
					return fmt.Errorf("--url is for --mode http: in socket mode Slack needs no URL")
				}
			case slack.ModeHTTP:
				if base == "" {
					return fmt.Errorf("--mode http needs --url, the public https URL Parley's http.listen is served at")
				}
			default:
				return fmt.Errorf("--mode %q: want socket or http", mode)
			}
			m, err := slack.HTTPManifest(name, base)
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(e.stdout, m)
			return err
		},
	}
	cmd.Flags().StringVar(&name, "name", "Parley", "the app's display name in Slack")
	cmd.Flags().StringVar(&mode, "mode", slack.ModeSocket, "socket (no public URL needed) or http (slack.mode: http)")
	cmd.Flags().StringVar(&base, "url", "", "with --mode http: the public https URL Parley is served at; the request URLs are filled in")
	return cmd
}
