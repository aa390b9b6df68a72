//go:build sqlite_fts5

package store

import _ "embed" // freshImage

// freshImage is a new database with every migration up to its making
// applied, in WAL mode, gzipped: Open starts a new database as a copy of
// it, and migrate then applies whatever migrations are newer. Migrating an
// empty file took ~15 ms of a first start's ~40 (parsing and running the
// migrations' SQL); creating the FTS5 indexes on the copy took ~2 ms more,
// so a build with FTS5 starts from an image that has them, and one without
// from fresh.db.gz, which has none (its CREATE VIRTUAL TABLE would tell
// such a build it had an index it cannot use). Inflating one takes ~0.4
// ms. TestFreshImage keeps both equal to what the migrations build: after
// adding one, `go test -tags sqlite_fts5 ./store -run TestFreshImage -args
// -update` makes them again (docs/footprint.md). Their migration records
// carry the time they were made.
//
//go:embed fresh_fts5.db.gz
var freshImage string
