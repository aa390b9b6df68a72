package console

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/parleybot/parley/chat"
)

// Run reads lines and hands each to h: "/…" as a command, anything else as
// a message, whose answer it waits for before it reads the next line (the
// lines typed meanwhile wait in the input), except for the answer to a
// question the answer asks. It returns on /quit, at the end of input once
// the answer being written is shown, on Ctrl-C at the prompt, or when ctx
// ends.
func (a *Adapter) Run(ctx context.Context, h chat.Handler) error {
	// Cancelling on return releases the reader if it is waiting to hand
	// over a line nobody will take.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines, readErr := a.read(ctx)
	defer a.screen.close()
	a.screen.print(piece{text: fmt.Sprintf("Parley: talking with %s. /help for commands, /quit to leave.", a.cfg.User.Name), fresh: true})
	eof, prompted := false, false
	for {
		q := a.screen.question()
		busy := a.busy()
		switch {
		case q != nil && eof:
			a.answer(ctx, h, q, "", true)
			continue
		case q == nil && !busy && eof:
			return *readErr
		case q == nil && !busy && !prompted && a.cfg.Interactive:
			a.screen.print(piece{text: "› ", fresh: true})
			prompted = true
		}
		var in <-chan string // nil while an answer is written: lines wait
		if q != nil || !busy {
			in = lines
		}
		select {
		case <-ctx.Done():
			return nil
		case <-a.wake:
		case <-a.cfg.Interrupts:
			if q == nil && !busy {
				return nil // Ctrl-C at the prompt
			}
			if q != nil {
				a.answer(ctx, h, q, "", true)
			}
			if busy {
				a.stop(ctx, h)
			}
		case line, ok := <-in:
			if !ok {
				eof, lines = true, nil
				continue
			}
			if a.cfg.Interactive {
				a.screen.typed()
			}
			prompted = false
			if q != nil {
				a.answer(ctx, h, q, line, false)
				continue
			}
			if a.handle(ctx, h, line) {
				return nil
			}
		}
	}
}

// read hands over the lines of In until its end, then closes lines; err
// is then the read error, if any.
func (a *Adapter) read(ctx context.Context) (lines <-chan string, err *error) {
	ch := make(chan string)
	err = new(error)
	go func() {
		sc := bufio.NewScanner(a.cfg.In)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			select {
			case ch <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		if e := sc.Err(); e != nil {
			*err = fmt.Errorf("read input: %w", e)
		}
		close(ch)
	}()
	return ch, err
}

// handle hands one line to h and reports whether it was /quit.
func (a *Adapter) handle(ctx context.Context, h chat.Handler, line string) (quit bool) {
	line = strings.TrimSpace(line)
	if line == "" {
		return false
	}
	if name, args, ok := chat.ParseCommand(line); ok {
		if name == "quit" || name == "exit" {
			return true
		}
		c := chat.Command{Key: a.newKey(), Thread: a.thread, User: a.cfg.User, Name: name, Args: args, Direct: true, Respond: a.respond}
		if err := h.HandleCommand(ctx, c); err != nil {
			a.screen.print(piece{text: "error: " + err.Error(), fresh: true})
		}
		return false
	}
	key := a.newKey()
	a.wait(key)
	err := h.HandleMessage(ctx, chat.Message{
		Key: key, ID: strings.TrimPrefix(key, Platform+":"), Thread: a.thread, User: a.cfg.User, Text: line,
		Place:  chat.Place{ChatKind: "terminal", ChatName: "terminal chat"},
		Direct: true,
	})
	if err != nil {
		a.wait("")
		a.screen.print(piece{text: "error: " + err.Error(), fresh: true})
	}
	return false
}

// stop asks the core to stop the answer being written, as /stop does. The
// answer shows that it stopped; the command's own reply is not printed.
func (a *Adapter) stop(ctx context.Context, h chat.Handler) {
	c := chat.Command{Key: a.newKey(), Thread: a.thread, User: a.cfg.User, Name: "stop", Direct: true,
		Respond: func(context.Context, chat.Out) error { return nil }}
	if err := h.HandleCommand(ctx, c); err != nil {
		a.screen.print(piece{text: "error: " + err.Error(), fresh: true})
	}
}

// wait makes key the line whose answer Run waits for ("": none).
func (a *Adapter) wait(key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.waiting = key
}

// busy reports whether Run waits for an answer.
func (a *Adapter) busy() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.waiting != ""
}
