package config

import (
	"fmt"
	"net/url"

	"github.com/parleybot/parley/internal/secret"
)

// Storage engines for store.driver.
const (
	StoreSQLite   = "sqlite"
	StorePostgres = "postgres"
)

// Store selects where Parley keeps its state (docs/replicas.md): the SQLite
// file in data_dir (one process), or a PostgreSQL database that several
// replicas share.
type Store struct {
	// Driver is "sqlite" (default) or "postgres".
	Driver string `mapstructure:"driver"`
	// PostgresURL is the PostgreSQL connection URL
	// (postgres://user:password@host:5432/db?sslmode=…), used when Driver is
	// "postgres". It may carry a password, so it is masked like any secret.
	PostgresURL secret.Secret `mapstructure:"postgres_url"`
	// LeaseSeconds is how long a replica's leases (a session's turns, an
	// elected receiver) outlive its last renewal: how soon the other
	// replicas take over from one that died. PostgreSQL only.
	LeaseSeconds int `mapstructure:"lease_seconds"`
	// MinFreeMB is the free space, in MiB, below which Parley refuses new
	// writes that are not its own bookkeeping (shell commands, knowledge
	// base documents) on data_dir's filesystem, so that one user filling
	// the disk cannot break the database for everyone; 0 turns it off.
	MinFreeMB int `mapstructure:"min_free_mb"`
}

// DefaultMinFreeMB is store.min_free_mb's default: room for the database
// to grow, its WAL to checkpoint and a migration to run.
const DefaultMinFreeMB = 256

func defaultStore() Store {
	return Store{Driver: StoreSQLite, LeaseSeconds: 30, MinFreeMB: DefaultMinFreeMB}
}

// validate checks the store.* keys.
func (s *Store) validate() []string {
	if p := outOfRange(bound[int]{"store.lease_seconds", s.LeaseSeconds, 3, 600},
		bound[int]{"store.min_free_mb", s.MinFreeMB, 0, 1 << 20}); len(p) > 0 {
		return p
	}
	switch s.Driver {
	case StoreSQLite:
		return nil
	case StorePostgres:
		if s.PostgresURL == "" {
			return []string{"store.postgres_url: required when store.driver is postgres (postgres://user:password@host:5432/db)"}
		}
		u, err := url.Parse(s.PostgresURL.Reveal())
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			// The value is not repeated: it may hold a password.
			return []string{"store.postgres_url: not a postgres:// or postgresql:// URL"}
		}
		return nil
	default:
		return []string{fmt.Sprintf("store.driver: %q is not a storage engine; want sqlite or postgres", Quiet(s.Driver))}
	}
}
