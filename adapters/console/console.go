// Package console is the terminal chat: one conversation with the OS user,
// answers streamed to the terminal as they are written.
package console

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parleybot/parley/bot"
)

// Core is what the console needs from the chat core.
type Core interface {
	Converse(ctx context.Context, m bot.Message, r bot.Reply) error
	Command(ctx context.Context, c bot.Command) (string, error)
}

// Console runs the terminal chat.
type Console struct {
	Core Core
	In   io.Reader
	Out  io.Writer
	User bot.User
	// Interactive prints a prompt before each input line (a terminal, not a pipe).
	Interactive bool
	// Interrupts delivers Ctrl-C: during an answer it stops the answer; at
	// the prompt it quits.
	Interrupts <-chan struct{}
}

// Run reads lines until /quit, end of input, an interrupt at the prompt, or
// ctx ending.
func (c *Console) Run(ctx context.Context) error {
	// Cancelling on return releases the reader goroutine if it is waiting
	// to hand over a line nobody will take.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(c.In)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
		close(lines)
	}()
	thread := bot.Thread{Platform: "console", Chat: c.User.ID}
	c.printf("Parley: talking with %s. /help for commands, /quit to leave.\n", c.User.Name)
	for {
		c.prompt()
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			return nil
		case <-c.Interrupts:
			c.printf("\n")
			return nil
		case line, ok = <-lines:
		}
		if !ok {
			if err := <-readErr; err != nil {
				return fmt.Errorf("read input: %w", err)
			}
			return nil
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if name, args, isCmd := bot.ParseCommand(line); isCmd {
			if name == "quit" || name == "exit" {
				return nil
			}
			out, err := c.Core.Command(ctx, bot.Command{Thread: thread, User: c.User, Name: name, Args: args})
			if err != nil {
				c.printf("error: %v\n", err)
				continue
			}
			c.printf("%s\n", out)
			continue
		}
		c.converse(ctx, thread, line, lines)
	}
}

// converse runs one turn; Ctrl-C cancels it without leaving the chat.
func (c *Console) converse(ctx context.Context, thread bot.Thread, text string, lines <-chan string) {
	turnCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-c.Interrupts:
			cancel()
		case <-done:
		}
	}()
	r := &reply{out: c.Out, lines: lines, interactive: c.Interactive}
	err := c.Core.Converse(turnCtx, bot.Message{
		Thread: thread, User: c.User, Text: text,
		Place: bot.Place{ChatKind: "terminal", ChatName: "terminal chat"},
	}, r)
	r.endLine()
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled) && ctx.Err() == nil:
		c.printf("[stopped]\n")
	default:
		c.printf("error: %v\n", err)
	}
}

func (c *Console) prompt() {
	if c.Interactive {
		c.printf("› ")
	}
}

func (c *Console) printf(format string, a ...any) {
	fmt.Fprintf(c.Out, format, a...)
}
