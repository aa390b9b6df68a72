// Package pgtest gives tests a PostgreSQL database of their own. The
// server comes from the environment variable PARLEY_TEST_POSTGRES_URL;
// without it a test is skipped, except under CI (CI set to anything),
// where it fails: CI must never pass by skipping.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvURL is the variable naming the test server, a connection URL of a
// role that may create databases, e.g.
// postgres://parley@127.0.0.1:55432/postgres.
const EnvURL = "PARLEY_TEST_POSTGRES_URL"

// URL returns the test server's URL, or skips the test (fails it under
// CI) when none is configured.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u != "" {
		return u
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not set, and CI is: PostgreSQL tests must run in CI, not skip", EnvURL)
	}
	t.Skipf("%s is not set: skipping the PostgreSQL tests (e.g. %s=postgres://user@127.0.0.1:5432/postgres)", EnvURL, EnvURL)
	return ""
}

// NewDatabase creates a fresh, empty database on the test server and
// returns its URL; it is dropped when the test ends. Each test gets its
// own, so tests may run in parallel.
func NewDatabase(t testing.TB) string {
	t.Helper()
	base := URL(t)
	var b [8]byte
	rand.Read(b[:])
	name := "parley_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", redact(base), err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, `CREATE DATABASE `+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("pgtest: connect to drop %s: %v", name, err)
			return
		}
		defer admin.Close(ctx)
		// WITH (FORCE) ends connections a test left open.
		if _, err := admin.Exec(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("pgtest: drop database %s: %v", name, err)
		}
	})
	return withDatabase(t, base, name)
}

// withDatabase is base with its database replaced by name.
func withDatabase(t testing.TB, base, name string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" {
		// A key=value connection string: a later dbname wins.
		return base + " dbname=" + name
	}
	u.Path = "/" + name
	return u.String()
}

// redact is u without its password, for messages.
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" {
		return "the test server"
	}
	return p.Redacted()
}
