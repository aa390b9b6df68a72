// Package mcp offers the tools of MCP servers to the agent, through the
// official go-sdk client. Servers are third-party code: their tools need
// approval unless the server is trusted, their schemas are sanitized before
// a model sees them, and stdio servers get none of Parley's environment.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/parleybot/parley/agent"
)

// connectTimeout bounds starting one server and listing its tools, so one
// hung server cannot hold up the rest. Generous: npx and uvx may download
// the server first.
const connectTimeout = time.Minute

// Bridge holds the sessions to the configured MCP servers and their tools.
type Bridge struct {
	servers []*server
	tools   []agent.Tool
}

// server is one connected MCP server.
type server struct {
	name    string
	trusted bool
	session *sdk.ClientSession
}

// Connect starts or dials every server and lists its tools. Servers are
// independent: one that is misconfigured, fails to start or fails to list
// its tools is reported in the errors (each names its server and why) and
// left out, as is a tool whose schema is unusable or whose name is taken.
// ctx bounds connecting and listing only; sessions outlive it. The Bridge
// is never nil; Close it on shutdown.
func Connect(ctx context.Context, servers []ServerConfig, logger *slog.Logger) (*Bridge, []error) {
	return connect(ctx, servers, logger, dial)
}

func connect(ctx context.Context, configs []ServerConfig, logger *slog.Logger, open dialer) (*Bridge, []error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	results := make([]connected, len(configs))
	seen := make(map[string]bool, len(configs))
	var wg sync.WaitGroup
	for i, cfg := range configs {
		if err := cfg.validate(); err != nil {
			results[i].errs = []error{fmt.Errorf("mcp server %q: %w", cfg.Name, err)}
			continue
		}
		if seen[cfg.Name] {
			results[i].errs = []error{fmt.Errorf("mcp server %q: configured twice", cfg.Name)}
			continue
		}
		seen[cfg.Name] = true
		// In parallel: stdio servers can take seconds to start.
		wg.Go(func() {
			results[i] = connectServer(ctx, cfg, logger.With("mcp_server", cfg.Name), open)
		})
	}
	wg.Wait()

	// Assembled in configuration order, so the tool list (and with it the
	// prompt prefix) is the same on every start.
	b := &Bridge{}
	var errs []error
	names := map[string]string{}
	for _, r := range results {
		errs = append(errs, r.errs...)
		if r.server == nil {
			continue
		}
		b.servers = append(b.servers, r.server)
		for _, t := range r.tools {
			if other, dup := names[t.spec.Name]; dup {
				errs = append(errs, fmt.Errorf("mcp server %q: tool %q skipped: its name %s is taken by %s",
					t.server.name, t.name, t.spec.Name, other))
				continue
			}
			names[t.spec.Name] = t.server.name + "/" + t.name
			b.tools = append(b.tools, t)
		}
	}
	return b, errs
}

// connected is the outcome for one server: a session and its tools, or
// nothing; errs may be set either way (skipped tools).
type connected struct {
	server *server
	tools  []*tool
	errs   []error
}

func connectServer(ctx context.Context, cfg ServerConfig, logger *slog.Logger, open dialer) connected {
	fail := func(err error) connected {
		if cfg.URL != "" {
			err = redactURL(err, cfg.URL)
		}
		return connected{errs: []error{fmt.Errorf("mcp server %q: %w", cfg.Name, err)}}
	}
	transport, err := open(cfg, logger)
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()

	client := sdk.NewClient(&sdk.Implementation{Name: "parley", Version: version()}, &sdk.ClientOptions{
		Logger: logger,
		// Advertise nothing: Parley implements no roots, sampling or
		// elicitation. (nil would advertise roots, the SDK's default.)
		Capabilities: &sdk.ClientCapabilities{},
	})
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return fail(withStderr(fmt.Errorf("connect: %w", err), transport))
	}
	srv := &server{name: cfg.Name, trusted: cfg.Trusted, session: session}
	if init := session.InitializeResult(); init == nil || init.Capabilities == nil || init.Capabilities.Tools == nil {
		_ = session.Close()
		return fail(errors.New("offers no tools"))
	}

	var out connected
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			_ = session.Close()
			return fail(withStderr(fmt.Errorf("list tools: %w", err), transport))
		}
		tl, err := newTool(srv, t, logger)
		if err != nil {
			out.errs = append(out.errs, fmt.Errorf("mcp server %q: tool %q skipped: %w", cfg.Name, t.Name, err))
			continue
		}
		out.tools = append(out.tools, tl)
	}
	out.server = srv
	logger.Info("mcp server connected", "tools", len(out.tools), "trusted", cfg.Trusted)
	return out
}

// withStderr adds what a stdio server said on stderr to err.
func withStderr(err error, t sdk.Transport) error {
	if st, ok := t.(*stdioTransport); ok {
		if tail := st.stderr.String(); tail != "" {
			return fmt.Errorf("%w (stderr: %s)", err, tail)
		}
	}
	return err
}

// version is Parley's module version as built, for the client info.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Tools returns the tools of all connected servers, in configuration order.
func (b *Bridge) Tools() []agent.Tool {
	if b == nil {
		return nil
	}
	return append([]agent.Tool(nil), b.tools...)
}

// Close ends every session; stdio servers get their stdin closed, then
// SIGTERM, then SIGKILL (the SDK's sequence). Servers close in parallel so
// one slow server does not add to another's wait.
func (b *Bridge) Close() error {
	if b == nil {
		return nil
	}
	errs := make([]error, len(b.servers))
	var wg sync.WaitGroup
	for i, s := range b.servers {
		wg.Go(func() {
			if err := s.session.Close(); err != nil {
				errs[i] = fmt.Errorf("mcp server %q: close: %w", s.name, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
