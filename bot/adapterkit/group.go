package adapterkit

import (
	"context"
	"sync"
)

// Group runs an adapter's handlers, each in a goroutine of its own, and
// lets Run wait for them before it returns: a handler still running after
// Run returned would race the core's shutdown. Once Stop is called it
// starts nothing more. The zero Group is ready to use; a Group must not
// be copied after first use.
type Group struct {
	mu       sync.Mutex // orders Go against Stop: nothing is added once Wait may run
	stopping bool
	wg       sync.WaitGroup
}

// Go runs f in a goroutine of the group and reports true; once the group
// is stopping, or ctx has ended (Run is about to stop the group, and f
// would only see a cancelled context), it does nothing and reports false.
// Go never waits, so it may be called from a platform library's event
// reader.
func (g *Group) Go(ctx context.Context, f func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopping || ctx.Err() != nil {
		return false
	}
	g.wg.Go(f)
	return true
}

// Stopping reports whether Stop has been called: an HTTP endpoint shared
// with other adapters refuses requests from then on (the platform
// redelivers them) rather than hand them to a stopped core.
func (g *Group) Stopping() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stopping
}

// Stop refuses new work and returns once the work in flight has
// returned. It may be called more than once, from several goroutines,
// but not from inside the group's own work, which would wait for itself.
func (g *Group) Stop() {
	g.mu.Lock()
	g.stopping = true
	g.mu.Unlock()
	g.wg.Wait()
}
