package kb

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
)

// Adding documents from what people hand over: bytes of a file (an
// attachment, a file on disk) or a URL. Both are checked against the file
// cap, turned into text (Extract) and ingested.

// Fetcher downloads a URL for the knowledge base, through web_fetch's
// guarded client (private addresses refused, redirects checked, the body
// capped): an error when the body passes max.
type Fetcher interface {
	FetchDocument(ctx context.Context, url string, max int64) (Fetched, error)
}

// Fetched is a downloaded document.
type Fetched struct {
	URL         string // after redirects
	ContentType string
	Body        []byte
}

// ErrNoFetcher means URLs cannot be added: no fetcher is configured.
var ErrNoFetcher = errors.New("adding URLs is not available here")

// Add ingests a document from its bytes: doc.Source names it (a file name
// or path), contentType is what the sender said, if anything.
func (b *Base) Add(ctx context.Context, doc Document, contentType string, data []byte) (Ingested, error) {
	if err := b.Ready(); err != nil {
		return Ingested{}, err
	}
	if err := b.CheckSize(doc.Source, int64(len(data))); err != nil {
		return Ingested{}, err
	}
	x, err := Extract(ctx, path.Base(doc.Source), contentType, data)
	if err != nil {
		return Ingested{}, err
	}
	doc.Kind = x.Kind
	doc.Title = cmp.Or(doc.Title, x.Title)
	return b.Ingest(ctx, doc, x.Text)
}

// AddURL downloads url and ingests it, with the URL as its source.
func (b *Base) AddURL(ctx context.Context, doc Document, url string) (Ingested, error) {
	if err := b.Ready(); err != nil {
		return Ingested{}, err
	}
	if b.cfg.Fetcher == nil {
		return Ingested{}, ErrNoFetcher
	}
	f, err := b.cfg.Fetcher.FetchDocument(ctx, url, b.cfg.MaxFileBytes)
	if err != nil {
		return Ingested{}, fmt.Errorf("fetch %s: %w", url, err)
	}
	doc.Source = url
	return b.Add(ctx, doc, f.ContentType, f.Body)
}
