package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/bot/metrics"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// newHealthcheckCmd is `parley healthcheck`: GET /healthz of the Parley
// running with the same configuration (http.listen) and exit 0 on 200, 1
// otherwise. It is the image's HEALTHCHECK, which has no curl or wget.
func newHealthcheckCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var url string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "healthcheck",
		Short: "Exit 0 if the running Parley answers /healthz (needs http.listen)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if url == "" {
				cfg, err := load()
				if err != nil {
					return err
				}
				if !cfg.HTTP.Ops() {
					return fmt.Errorf("healthcheck: http.listen is not set, so /healthz is not served (set PARLEY_HTTP_LISTEN=0.0.0.0:8080)")
				}
				u, err := healthURL(cfg.HTTP.Listen)
				if err != nil {
					return err
				}
				url = u
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			if err != nil {
				return fmt.Errorf("healthcheck: %w", err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return fmt.Errorf("healthcheck: %w", err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("healthcheck: %s answered %s", url, resp.Status)
			}
			_, err = fmt.Fprintf(e.stdout, "%s", body)
			return err
		},
	}
	cmd.Flags().StringVar(&url, "url", "", "URL to check (default http://127.0.0.1:<port of http.listen>/healthz)")
	cmd.Flags().DurationVar(&timeout, "timeout", 3*time.Second, "how long to wait for the answer")
	return cmd
}

// healthURL is /healthz on the address http.listen listens on, reached
// through the loopback interface when it listens on every interface.
func healthURL(listen string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("healthcheck: http.listen %q: %w", listen, err)
	}
	switch host {
	case "", "0.0.0.0", "::":
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + metrics.HealthPath, nil
}
