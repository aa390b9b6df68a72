package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/internal/diskfree"
)

// putOnly is a kb.Store that records PutDocument calls; nothing else of
// it is used.
type putOnly struct {
	kb.Store
	puts int
}

func (p *putOnly) PutDocument(_ context.Context, d kb.Document, _ []kb.IndexedChunk) (kb.Document, error) {
	p.puts++
	return d, nil
}

// TestKBRefusedBelowTheFloor: below store.min_free_mb a new document is
// refused with the reason, and the store is not written.
func TestKBRefusedBelowTheFloor(t *testing.T) {
	tests := []struct {
		name     string
		free     uint64
		wantPuts int
		wantErr  string
	}{
		{"above", 1 << 30, 1, ""},
		{"below", 10 << 20, 0, "document notes.md not added: Parley's data directory is low on disk space: 10 MiB free, below the floor of 256 MiB (store.min_free_mb)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &putOnly{}
			s := flooredKB{Store: inner, floor: diskfree.Floor{Min: 256 << 20, Free: func(string) (uint64, error) { return tt.free, nil }}}
			_, err := s.PutDocument(context.Background(), kb.Document{Source: "notes.md"}, nil)
			if inner.puts != tt.wantPuts {
				t.Errorf("store written %d times, want %d", inner.puts, tt.wantPuts)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, diskfree.ErrLow) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
