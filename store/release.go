package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/parleybot/parley/internal/cmalloc"
)

// ReleaseMemory hands back what SQLite keeps between busy spells. Idle
// readers beyond one are closed: each holds its own parsed schema,
// lookaside and page cache (~250 KiB with a small file, up to 512 KiB more
// as it grows), and a busy spell opens them again at ~1 ms each. So is the
// checkpointer's connection, which a commit reopens in the background.
// The connections left shrink their caches (PRAGMA shrink_memory), and the
// C allocator returns its free pages (cmalloc.Trim). After 200 answers
// in 50 chats the pools held ~2 MiB that nothing would read again soon
// (docs/footprint.md); the next read pays a few page reads from the OS's
// cache, so it is meant for when Parley has gone quiet (the trimmer in
// cmd/parley). A connection in use is left as it is.
func (db *DB) ReleaseMemory(ctx context.Context) error {
	db.r.SetMaxIdleConns(1)
	db.r.SetMaxIdleConns(db.readers)
	db.ckpt.conn.SetMaxIdleConns(0)
	db.ckpt.conn.SetMaxIdleConns(1)
	errs := []error{shrinkIdle(ctx, db.w), shrinkIdle(ctx, db.r)}
	cmalloc.Trim()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("store: release memory: %w", err)
	}
	return nil
}

// shrinkIdle shrinks each connection pool holds idle, holding them all at once
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
