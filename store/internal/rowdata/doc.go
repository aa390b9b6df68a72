// Package rowdata holds what the two storage engines, store (SQLite) and
// store/postgres, share about the rows they keep: the JSON forms of the
// values stored in a column, the conversions between a row's columns and
// a record, and the checks a record passes before it is written.
//
// It is pure on purpose: no SQL, no driver, no locking. Each engine keeps
// its own statements and concurrency; what lives here is what must be the
// same byte for byte in both, so that a database exported from one reads
// the same in the other and a change of format is made once.
package rowdata
