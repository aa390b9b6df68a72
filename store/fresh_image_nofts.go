//go:build !sqlite_fts5

package store

import _ "embed" // freshImage

// freshImage is fresh_image.go's for a build without FTS5: no FTS5 table.
//
//go:embed fresh.db.gz
var freshImage string
