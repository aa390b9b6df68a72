package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/agent/guard"
	"github.com/parleybot/parley/bot"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/webconsole"
)

// The web console (docs/console.md): served beside the chat core in
// parley run and parley chat alike, on console.listen; parley console
// login / logout / sessions from the machine.

// newConsole builds the console over a's store for acc's admins; nil when
// console.listen is empty.
func newConsole(a *app, acc bot.Access, learn webconsole.Learning, logger *slog.Logger) (*webconsole.Server, error) {
	if a.cfg.Console.Listen == "" {
		return nil, nil
	}
	c := consoleConfig(a.cfg, a.db, func(u string) bool { return isAdminKey(acc, u) }, logger)
	if a.kb != nil { // a nil *kb.Base in the interface would not be nil
		c.Knowledge = a.kb
	}
	c.Learning = learn
	// A person's edit of their own memory passes the guard the memory
	// tool's writes pass, judge included.
	c.VetMemory = func(ctx context.Context, content string, existing []string) error {
		return guard.Vet(ctx, a.judge, content, existing)
	}
	c.MemoryLimits = a.limits
	return webconsole.New(c)
}

// consoleConfig is what every console over db has: the store's parts,
// the money limits, the admins, where people reach it. What only a
// serving console needs (the knowledge base, learning, the memory guard)
// newConsole adds.
func consoleConfig(cfg *config.Config, db backend, isAdmin func(string) bool, logger *slog.Logger) webconsole.Config {
	return webconsole.Config{
		Auth: db, Audit: db, Data: db, Costs: db, Turns: db, Shared: db, Limits: consoleLimits(cfg), IsAdmin: isAdmin,
		PublicURL: cfg.Console.PublicURL, LinkBase: cfg.Console.BaseURL(), TrustedProxies: cfg.Console.Proxies(),
		Logger: logger.With("part", "console"),
	}
}

// consoleLimits are the money limits the usage page measures against:
// limits.daily_cost, and each agent's monthly budget as its turns are held
// to it (agents.<name>.budget.monthly, else budget.monthly).
func consoleLimits(cfg *config.Config) webconsole.Limits {
	l := webconsole.Limits{DailyCost: cfg.Limits.DailyCost, Monthly: map[string]float64{}}
	for _, name := range cfg.AgentNames() {
		if b := cfg.Agent(name).Budget.Monthly; b > 0 {
			l.Monthly[name] = b
		}
	}
	return l
}

// isAdminKey reports whether the person key names is one of acc's admins.
func isAdminKey(acc bot.Access, key string) bool {
	u, ok := chat.ParseUserKey(key)
	return ok && acc.IsAdmin(u)
}

// runConsole serves the console assemble built, deciding approvals
// through core and showing its load and adapters, until ctx ends or stop
// is called.
func (a *app) runConsole(ctx context.Context, core *bot.Core, adapters []chat.Adapter, logger *slog.Logger) (stop func()) {
	if a.console == nil {
		return func() {}
	}
	a.console.UseApprovals(core)
	a.console.UseLive(core, adapters)
	return serveConsole(ctx, a.console, a.cfg.Console.Listen, logger)
}

// serveConsole serves srv on listen until ctx ends or stop is called. An
// address that cannot be listened on is logged and the console left off:
// chat comes first.
func serveConsole(ctx context.Context, srv *webconsole.Server, listen string, logger *slog.Logger) (stop func()) {
	if srv == nil {
		return func() {}
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		logger.Error("console: cannot listen; it is off (console.listen)", "listen", listen, "err", err)
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		// Requests end with ctx: a page streaming live figures does not
		// hold the shutdown up.
		BaseContext: func(net.Listener) context.Context { return ctx }}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("console: stopped serving", "err", err)
		}
	}()
	logger.Info("console listening", "address", ln.Addr().String())
	go func() {
		<-ctx.Done()
		sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer scancel()
		_ = hs.Shutdown(sctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

func newConsoleCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	cmd := &cobra.Command{
		Use: "console", Short: "The web console: sign-in links and sessions", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("say what to do: parley console login, logout or sessions")
		},
	}
	var as string
	login := &cobra.Command{
		Use: "login [--as platform:id]", Short: "Print a one-time sign-in link (10 minutes); without --as, for the operator (admin)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, db, err := commandStore(cmd.Context(), load)
			if err != nil {
				return err
			}
			defer db.Close()
			user := webconsole.Operator
			if as != "" {
				if _, ok := chat.ParseUserKey(as); !ok {
					return fmt.Errorf("--as %q: want platform:id, e.g. slack:U0123ABC", as)
				}
				user = as
			}
			acc := access(cfg)
			srv, err := webconsole.New(consoleConfig(cfg, db, func(u string) bool { return isAdminKey(acc, u) }, slog.New(slog.DiscardHandler)))
			if err != nil {
				return err
			}
			link, err := srv.NewLink(cmd.Context(), user)
			if err != nil {
				return err
			}
			if cfg.Console.Listen == "" {
				fmt.Fprintln(e.stderr, "note: console.listen is empty, so no Parley serves the console here")
			}
			fmt.Fprintf(e.stdout, "Sign in as %s (one use, within 10 minutes):\n%s\n", user, link)
			return db.Audit(cmd.Context(), bot.AuditEntry{At: time.Now(), Actor: webconsole.Operator, Action: "console.link", Target: user, Via: "cli"})
		},
	}
	login.Flags().StringVar(&as, "as", "", "sign in as this person (platform:id); an admin's link opens the admin view")
	var all bool
	var session string
	logout := &cobra.Command{
		Use: "logout --all | --session ID", Short: "End console sessions: all of them, or one by the id `sessions` lists", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if all == (session != "") {
				return errors.New("say which: --all, or --session ID")
			}
			_, db, err := commandStore(cmd.Context(), load)
			if err != nil {
				return err
			}
			defer db.Close()
			n, err := db.RevokeSessions(cmd.Context(), session)
			if err != nil {
				return err
			}
			target := session
			if all {
				target = "all"
			}
			fmt.Fprintf(e.stdout, "Ended %d session(s).\n", n)
			return db.Audit(cmd.Context(), bot.AuditEntry{At: time.Now(), Actor: webconsole.Operator, Action: "console.revoke", Target: target, Via: "cli"})
		},
	}
	logout.Flags().BoolVar(&all, "all", false, "end every session")
	logout.Flags().StringVar(&session, "session", "", "end the session with this id (12 characters, from parley console sessions)")
	sessions := &cobra.Command{
		Use: "sessions", Short: "List the live console sessions", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, db, err := commandStore(cmd.Context(), load)
			if err != nil {
				return err
			}
			defer db.Close()
			list, err := db.Sessions(cmd.Context(), time.Now())
			if err != nil {
				return err
			}
			if len(list) == 0 {
				fmt.Fprintln(e.stdout, "No one is signed in.")
			}
			for _, s := range list {
				role := "person"
				if s.Admin {
					role = "admin"
				}
				fmt.Fprintf(e.stdout, "%s  %-24s %-6s since %s  until %s\n", s.Hash[:12], s.User, role,
					s.Created.UTC().Format(time.DateTime), s.Expires.UTC().Format(time.DateTime))
			}
			return nil
		},
	}
	cmd.AddCommand(login, logout, sessions)
	return cmd
}
