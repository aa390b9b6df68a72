package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ReleaseMemory hands back what SQLite keeps between busy spells: every
// idle connection's page cache and lookaside (PRAGMA shrink_memory), then
// the C allocator's free pages (releaseCMemory). A connection's cache
// fills to the pages it read, up to _cache_size, and stays full while it
// sits idle in the pool; six of them after a busy spell held ~1.8 MiB that
// nothing would read again soon (docs/footprint.md). The next read pays a
// few page reads from the OS's cache, so it is meant for when Parley has
// gone quiet (the trimmer in cmd/parley). A connection in use is left as
// it is.
func (db *DB) ReleaseMemory(ctx context.Context) error {
	errs := []error{shrinkIdle(ctx, db.w), shrinkIdle(ctx, db.r), shrinkIdle(ctx, db.ckpt.conn)}
	releaseCMemory()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("store: release memory: %w", err)
	}
	return nil
}

// shrinkIdle shrinks each connection pool idles, holding them all at once
// so that the pool hands out each one, not the same one n times. It takes
// no more than are idle, so it never opens one.
func shrinkIdle(ctx context.Context, pool *sql.DB) error {
	if pool == nil {
		return nil
	}
	n := pool.Stats().Idle
	conns := make([]*sql.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	var errs []error
	for range n {
		c, err := pool.Conn(ctx)
		if err != nil {
			return err
		}
		conns = append(conns, c)
		if _, err := c.ExecContext(ctx, "PRAGMA shrink_memory"); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
