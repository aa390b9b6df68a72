package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/store"
	"github.com/parleybot/parley/store/postgres"
)

// `parley migrate --to postgres`: moving an existing SQLite database to
// PostgreSQL (docs/replicas.md, "Moving an existing SQLite database to
// PostgreSQL").

func newMigrateCmd(e *environment, load func() (*config.Config, error)) *cobra.Command {
	var to, pgURL string
	cmd := &cobra.Command{
		Use:   "migrate --to postgres [--postgres-url URL]",
		Short: "Copy the SQLite database in data_dir into an empty PostgreSQL database, and verify the copy",
		Long: "Copies every table of the SQLite database in data_dir into the PostgreSQL database at store.postgres_url\n" +
			"(or --postgres-url), in one transaction, then compares each table's rows and checksum on both sides and\n" +
			"commits only if all agree. Stop Parley first. The PostgreSQL database must hold no Parley data.\n" +
			"Afterwards set store.driver: postgres.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if to != config.StorePostgres {
				return fmt.Errorf("--to %q: the only target is postgres", to)
			}
			cfg, err := load()
			if err != nil {
				return err
			}
			if pgURL == "" {
				pgURL = cfg.Store.PostgresURL.Reveal()
			}
			if pgURL == "" {
				return errors.New("no PostgreSQL database: set store.postgres_url (PARLEY_STORE_POSTGRES_URL) or pass --postgres-url")
			}
			err = migrateToPostgres(cmd, e.stdout, cfg.DBPath(), pgURL)
			if err != nil {
				return errors.New(hidePassword(err.Error(), pgURL))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the engine to copy to: postgres")
	cmd.Flags().StringVar(&pgURL, "postgres-url", "", "the PostgreSQL database to copy to (default store.postgres_url)")
	cmd.MarkFlagRequired("to")
	return cmd
}

// migrateToPostgres copies the SQLite file at path into the database at
// pgURL and prints each table's verification.
func migrateToPostgres(cmd *cobra.Command, w io.Writer, path, pgURL string) error {
	ctx := cmd.Context()
	// Opening the file would create it; a file in use is being written.
	if err := store.Unused(ctx, path); err != nil {
		return fmt.Errorf("%w; stop Parley before migrating", err)
	}
	src, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := postgres.Open(ctx, pgURL, postgres.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return err
	}
	defer dst.Close()

	name := config.RedactURL(pgURL)
	fmt.Fprintf(w, "copying %s to postgres %s\n", path, name)
	start := time.Now()
	checks, err := dst.Import(ctx, src)
	if errors.Is(err, postgres.ErrNotEmpty) {
		return fmt.Errorf("%w\nnothing was copied. To start over, drop and recreate that database (as its owner: "+
			"DROP DATABASE <name>; CREATE DATABASE <name>;) and run parley migrate again", err)
	}
	if checks == nil && err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TABLE\tROWS\tCHECKSUM\tRESULT")
	var rows int64
	for _, c := range checks {
		result := "ok"
		if !c.OK() {
			result = fmt.Sprintf("MISMATCH: copied %d rows, checksum %s", c.CopiedRows, short(c.CopiedSum))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", c.Table, c.Rows, short(c.Sum), result)
		rows += c.Rows
	}
	tw.Flush()
	if err != nil {
		return fmt.Errorf("%w: nothing was committed, %s is unchanged", err, name)
	}
	fmt.Fprintf(w, "copied and verified %d rows in %d tables in %s\n", rows, len(checks), time.Since(start).Round(time.Millisecond))
	fmt.Fprintln(w, "next: set store.driver: postgres and store.postgres_url, then start Parley")
	return nil
}

// short is a checksum as printed: its first 16 hex digits.
func short(sum string) string { return sum[:min(16, len(sum))] }

// hidePassword replaces the password of pgURL wherever a message repeats
// it, and redacts URLs.
func hidePassword(msg, pgURL string) string {
	if u, err := url.Parse(pgURL); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "[redacted]")
		}
	}
	return urlInText().ReplaceAllStringFunc(msg, config.RedactURL)
}
