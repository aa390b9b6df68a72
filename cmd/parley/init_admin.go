package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/parleybot/parley/bot/outbound"
	"github.com/parleybot/parley/chat"
	"github.com/parleybot/parley/cmd/parley/internal/config"
)

// adminFromDM runs the configured platforms until the operator sends the
// bot a direct message holding code, and returns who sent it
// ("platform:id"). The code is shown only on the operator's terminal: a
// Telegram or Discord bot is reachable by anyone who finds it, and
// whoever writes first during set-up must not become its admin. Direct
// messages without the code, and everything else, are left unanswered.
//
// The adapters keep their cursors in the configured database, as a run
// does, so the message that made the admin is not answered again when
// Parley starts.
func adminFromDM(ctx context.Context, e *environment, cfg *config.Config, wait time.Duration) (string, error) {
	code, err := adminCode()
	if err != nil {
		return "", err
	}
	logger := slog.New(slog.DiscardHandler)
	db, err := openStore(ctx, cfg, logger)
	if err != nil {
		return "", err
	}
	defer db.Close()
	web := inboundServer(cfg, logger)
	adapters, err := platformAdapters(cfg, db, web, nil, logger)
	if err != nil {
		return "", err
	}
	out, err := outbound.New(outbound.Config{Adapters: adapters, Logger: logger})
	if err != nil {
		return "", err
	}
	fmt.Fprintf(e.stdout, "\nTo become the admin, send the bot a direct message on %s that says:\n\n    parley-admin %s\n\nWaiting up to %s…\n",
		strings.Join(cfg.EnabledPlatforms(), ", "), code, wait)

	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	found := make(chan chat.Message, 1)
	h := &adminCatcher{code: code, found: found}
	var wg sync.WaitGroup
	failed := make(chan error, len(adapters))
	runErr := make(chan error, 1)
	go func() {
		runErr <- serveWhile(ctx, web, func(ctx context.Context) error {
			for _, a := range adapters {
				wg.Go(func() {
					if err := a.Run(ctx, h); err != nil && ctx.Err() == nil {
						failed <- fmt.Errorf("%s: %w", a.Platform(), err)
					}
				})
			}
			wg.Wait()
			return nil
		})
	}()
	var m chat.Message
	select {
	case m = <-found:
	case err := <-failed:
		cancel()
		<-runErr
		return "", fmt.Errorf("waiting for your direct message: %w", err)
	case <-ctx.Done():
		<-runErr
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("no direct message with the code came within %s: run parley init again, or give --admin platform:id", wait)
		}
		return "", ctx.Err()
	}
	who := m.User.Key()
	// The acknowledgement goes out while the adapters still run: some
	// platforms (Slack's socket) want their loop alive to finish a call.
	if _, err := out.Post(ctx, m.Thread, chat.Out{Text: "You are " + who + ", Parley's admin once set-up finishes. Back to the terminal."}); err != nil {
		fmt.Fprintf(e.stdout, "(could not answer on %s: %v)\n", m.Thread.Platform, err)
	}
	cancel()
	<-runErr
	fmt.Fprintf(e.stdout, "Got it: %s (%s) is the admin.\n", who, m.User.Name)
	return who, nil
}

// adminCode is a six-digit code to be sent to the bot: short enough to
// type on a phone, and valid for one init only.
func adminCode() (string, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return "", fmt.Errorf("a code for the admin: %w", err)
	}
	return fmt.Sprintf("%06d", n.Int64()), nil
}

// adminCatcher takes the first direct message from a person that holds
// the code (the six digits, with or without the words around them); it answers nothing else and keeps nothing.
type adminCatcher struct {
	code  string
	found chan<- chat.Message
}

func (c *adminCatcher) HandleMessage(_ context.Context, m chat.Message) error {
	if !m.Direct || m.FromBot || m.User.ID == "" || !strings.Contains(m.Text, c.code) {
		return nil
	}
	select {
	case c.found <- m:
	default: // one admin is enough; a second sender is ignored
	}
	return nil
}

func (c *adminCatcher) HandleAction(context.Context, chat.Action) error   { return nil }
func (c *adminCatcher) HandleCommand(context.Context, chat.Command) error { return nil }
