package postgres

import (
	"errors"
	"slices"
	"testing"

	"github.com/parleybot/parley/store"
)

func TestUpSection(t *testing.T) {
	tests := []struct {
		name, src, want string
		wantErr         bool
	}{
		{"up and down", "-- c\n-- +goose Up\nCREATE TABLE a (x int);\n-- +goose Down\nDROP TABLE a;\n", "CREATE TABLE a (x int);\n", false},
		{"up only", "-- +goose Up\nSELECT 1;\n", "SELECT 1;\n", false},
		{"statement block", "-- +goose Up\n-- +goose StatementBegin\nCREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;\n-- +goose StatementEnd\n",
			"CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;\n", false},
		{"no up", "SELECT 1;\n", "", true},
		{"no transaction", "-- +goose NO TRANSACTION\n-- +goose Up\nSELECT 1;\n", "", true},
	}
	for _, tt := range tests {
		got, err := upSection(tt.src)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("%s: upSection = %q, %v; want %q, error %t", tt.name, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestPendingSteps(t *testing.T) {
	steps := []migration{{14, "00014_schema.sql"}, {15, "00015_more.sql"}}
	tests := []struct {
		name    string
		applied []int64
		want    []int64
		err     error
	}{
		{"new database", nil, []int64{14, 15}, nil},
		{"one behind", []int64{14}, []int64{15}, nil},
		{"up to date", []int64{14, 15}, nil, nil},
		{"newer build", []int64{14, 15, 16}, nil, store.ErrTooNew},
	}
	for _, tt := range tests {
		got, err := pendingSteps(steps, tt.applied)
		var versions []int64
		for _, m := range got {
			versions = append(versions, m.version)
		}
		if !slices.Equal(versions, tt.want) || !errors.Is(err, tt.err) {
			t.Errorf("%s: pendingSteps = %v, %v; want %v, %v", tt.name, versions, err, tt.want, tt.err)
		}
	}
	if _, err := pendingSteps(steps, []int64{15}); err == nil {
		t.Error("a step older than the schema and never applied: no error")
	}
	if got, err := readMigrations(migrations()); err != nil || len(got) != 1 || got[0].version != 14 {
		t.Errorf("embedded migrations = %v, %v; want the one schema at 14", got, err)
	}
}
