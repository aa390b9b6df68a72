// Command parley runs Parley: the AI agent that lives in Slack, Telegram,
// Discord and the terminal.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/parleybot/parley/agent/tools/shell"
	"github.com/parleybot/parley/internal/harden"
)

func main() {
	// The shell tool re-executes this binary as its sandbox; in that role
	// the process never gets further than this.
	shell.MaybeRunSandbox()
	// Before any secret is loaded: same-user processes must not be able
	// to read this process's environment or memory.
	if err := harden.NonDumpable(); err != nil {
		fmt.Fprintf(os.Stderr, "parley: warning: %v\n", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	// Ctrl-C is an interrupt the commands interpret (stop the answer being
	// written, or quit at the prompt); SIGTERM always shuts down.
	interrupts := make(chan struct{}, 1)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range sigs {
			if s == syscall.SIGTERM {
				cancel()
				continue
			}
			select {
			case interrupts <- struct{}{}:
			default:
			}
		}
	}()

	e := &environment{
		stdin:      os.Stdin,
		stdout:     os.Stdout,
		stderr:     os.Stderr,
		lookupEnv:  os.LookupEnv,
		terminal:   term.IsTerminal(int(os.Stdin.Fd())),
		interrupts: interrupts,
	}
	os.Exit(execute(ctx, e, os.Args[1:]))
}
