package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
)

// embedded holds the schema migrations. They are SQL only and run in order,
// each in its own transaction, when a database is opened.
//
//go:embed migrations/*.sql
var embedded embed.FS

// migrations returns the embedded migrations rooted where goose looks for
// them: goose reads the root of its fs.FS, not a "migrations" folder.
func migrations() fs.FS {
	sub, err := fs.Sub(embedded, "migrations")
	if err != nil {
		// fs.Sub fails only for an invalid path, and this one is a constant.
		panic(err)
	}
	return sub
}

// migrate brings the schema of db up to the newest migration in fsys. It
// uses a goose Provider, not goose's package-level functions, so nothing
// global is configured or shared between databases.
func migrate(ctx context.Context, db *sql.DB, fsys fs.FS) error {
	p, err := goose.NewProvider(goose.DialectSQLite3, db, fsys,
		// Go migrations registered globally by some other package must
		// never run against Parley's database.
		goose.WithDisableGlobalRegistry(true),
	)
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	// A database migrated by a newer Parley has a schema this build does
	// not know; writing to it could break what the newer one relies on.
	current, known, err := p.GetVersions(ctx)
	if err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if current > known {
		return fmt.Errorf("schema version %d, this build knows up to %d: %w", current, known, ErrTooNew)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}
