package mcp

import (
	"bytes"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// dialer opens the transport to one server. Connect uses dial; tests swap
// in in-memory transports.
type dialer func(cfg ServerConfig, logger *slog.Logger) (sdk.Transport, error)

func dial(cfg ServerConfig, logger *slog.Logger) (sdk.Transport, error) {
	if cfg.Command != "" {
		return commandTransport(cfg, logger), nil
	}
	return httpTransport(cfg), nil
}

// stdioTransport starts the server as a subprocess and keeps the tail of
// its stderr: when a server dies at startup, that is where it says why.
type stdioTransport struct {
	sdk.CommandTransport
	stderr *stderrTail
}

func commandTransport(cfg ServerConfig, logger *slog.Logger) *stdioTransport {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Env = childEnv(cfg.Env)
	tail := &stderrTail{logger: logger}
	cmd.Stderr = tail
	// A grandchild holding stderr open must not stall shutdown.
	cmd.WaitDelay = 2 * time.Second
	return &stdioTransport{CommandTransport: sdk.CommandTransport{Command: cmd}, stderr: tail}
}

// childEnv builds a stdio server's environment from scratch. The server is
// third-party code; Parley's environment holds its API keys and bot tokens.
// PATH and HOME are what launchers like npx and uvx need to work at all.
func childEnv(configured map[string]string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	// Sorted for a reproducible environment; on a duplicate key exec
	// uses the last value, so configured values win over ours.
	for _, k := range slices.Sorted(maps.Keys(configured)) {
		env = append(env, k+"="+configured[k])
	}
	return env
}

// stderrTail logs a server's stderr line by line at debug level and keeps
// the last few KB for error messages. exec writes from its own goroutine
// while connect reads, hence the lock.
type stderrTail struct {
	logger *slog.Logger

	mu      sync.Mutex
	partial []byte
	tail    []byte
}

const stderrTailSize = 2048

func (s *stderrTail) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tail = append(s.tail, p...)
	if over := len(s.tail) - stderrTailSize; over > 0 {
		s.tail = append(s.tail[:0], s.tail[over:]...)
	}
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimSpace(string(s.partial[:i])); line != "" {
			s.logger.Debug("mcp server stderr", "line", line)
		}
		s.partial = s.partial[i+1:]
	}
	if len(s.partial) > stderrTailSize { // a line without end: log what we have
		s.logger.Debug("mcp server stderr", "line", string(s.partial))
		s.partial = s.partial[:0]
	}
	return len(p), nil
}

// String is the recent stderr output on one line.
func (s *stderrTail) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(strings.Fields(string(s.tail)), " ")
}

func httpTransport(cfg ServerConfig) *sdk.StreamableClientTransport {
	return &sdk.StreamableClientTransport{
		Endpoint:   cfg.URL,
		HTTPClient: &http.Client{Transport: &headerTransport{base: http.DefaultTransport, headers: cfg.Headers}},
		// Parley handles no server-initiated messages (no sampling,
		// elicitation or list-changed refresh), so the standing GET stream
		// would only cost a connection, and some servers answer it 405.
		DisableStandaloneSSE: true,
	}
}

// headerTransport adds the configured headers to every request. Headers
// the SDK sets itself (Accept, Content-Type, Mcp-Session-Id, …) are part of
// the protocol and are not overridden.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) == 0 {
		return h.base.RoundTrip(req)
	}
	req = req.Clone(req.Context()) // a RoundTripper must not modify its request
	for k, v := range h.headers {
		if req.Header.Get(k) == "" {
			req.Header.Set(k, v)
		}
	}
	return h.base.RoundTrip(req)
}

// redactURL hides the query and credentials of a server URL in err's
// text: some services put a key there, and errors end up in logs.
func redactURL(err error, raw string) error {
	u, perr := url.Parse(raw)
	if err == nil || perr != nil || (u.RawQuery == "" && u.User == nil) {
		return err
	}
	safe := *u
	safe.User, safe.RawQuery = nil, ""
	shown := safe.String()
	if u.RawQuery != "" {
		shown += "?…"
	}
	msg := err.Error()
	for _, s := range []string{raw, u.String()} {
		msg = strings.ReplaceAll(msg, s, shown)
	}
	return &redactedError{msg: msg, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
