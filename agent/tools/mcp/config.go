package mcp

import (
	"errors"
	"fmt"
	"net/url"
)

// ServerConfig describes one MCP server. Exactly one of Command (a local
// server spoken to over stdio) or URL (a remote server over streamable
// HTTP) is set.
type ServerConfig struct {
	// Name identifies the server in tool names (<name>__<tool>), logs and
	// approval prompts. Unique per bridge.
	Name string

	// Command and Args start a stdio server. Env is its whole environment
	// apart from PATH and HOME: Parley's own environment, which holds API
	// keys and bot tokens, is never passed on.
	Command string
	Args    []string
	Env     map[string]string

	// URL is a streamable-HTTP endpoint; Headers (e.g. Authorization) go
	// with every request.
	URL     string
	Headers map[string]string

	// Trusted servers' tools run without approval. Tool annotations such
	// as readOnlyHint come from the server itself and never lower the
	// policy.
	Trusted bool
}

func (c ServerConfig) validate() error {
	switch {
	case c.Name == "":
		return errors.New("no name")
	case c.Command != "" && c.URL != "":
		return errors.New("both command and url set; choose one")
	case c.Command == "" && c.URL == "":
		return errors.New("neither command nor url set")
	case c.Command != "" && len(c.Headers) > 0:
		return errors.New("headers apply only to url servers")
	case c.URL != "" && (len(c.Env) > 0 || len(c.Args) > 0):
		return errors.New("args and env apply only to command servers")
	}
	if c.URL != "" {
		// The URL is not echoed: some services put a key in it.
		u, err := url.Parse(c.URL)
		var uerr *url.Error
		if errors.As(err, &uerr) {
			return fmt.Errorf("url: %w", uerr.Err)
		}
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errors.New("url: want http(s)://host/…")
		}
	}
	return nil
}
