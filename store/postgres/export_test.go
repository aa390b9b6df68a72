package postgres

import "io/fs"

// Migrations are the embedded migrations, for the external tests to count.
func Migrations() fs.FS { return migrations() }
