package bottest

import (
	"context"

	"github.com/parleybot/parley/chat"
)

// InjectMessage hands m to the Handler given to Run, as the platform
// delivering a message would, and returns what the handler returned. It
// waits for Run to start, or for ctx to end.
func (a *Adapter) InjectMessage(ctx context.Context, m chat.Message) error {
	h, err := a.waitHandler(ctx)
	if err != nil {
		return err
	}
	return h.HandleMessage(ctx, m)
}

// InjectAction hands a button click to the Handler given to Run.
func (a *Adapter) InjectAction(ctx context.Context, act chat.Action) error {
	h, err := a.waitHandler(ctx)
	if err != nil {
		return err
	}
	return h.HandleAction(ctx, act)
}

// InjectCommand hands a slash command to the Handler given to Run.
func (a *Adapter) InjectCommand(ctx context.Context, c chat.Command) error {
	h, err := a.waitHandler(ctx)
	if err != nil {
		return err
	}
	return h.HandleCommand(ctx, c)
}

func (a *Adapter) waitHandler(ctx context.Context) (chat.Handler, error) {
	select {
	case <-a.ready:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.handler, nil
}
