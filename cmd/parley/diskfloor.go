package main

import (
	"context"
	"fmt"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/cmd/parley/internal/config"
	"github.com/parleybot/parley/internal/diskfree"
)

// dataFloor is store.min_free_mb on data_dir's filesystem.
func dataFloor(cfg *config.Config) diskfree.Floor {
	return diskfree.Floor{Path: cfg.DataDir, Min: uint64(cfg.Store.MinFreeMB) << 20}
}

// flooredKB refuses new knowledge-base documents below the data
// directory's free-space floor: a document is a user's write, not
// Parley's bookkeeping, and the space left belongs to the database.
// Everything else (search, listing, removal) passes through.
type flooredKB struct {
	kb.Store
	floor diskfree.Floor
}

func (s flooredKB) PutDocument(ctx context.Context, doc kb.Document, chunks []kb.IndexedChunk) (kb.Document, error) {
	if err := s.floor.Check(); err != nil {
		return kb.Document{}, fmt.Errorf("document %s not added: %w", doc.Source, err)
	}
	return s.Store.PutDocument(ctx, doc, chunks)
}
