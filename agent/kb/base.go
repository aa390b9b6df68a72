package kb

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/parleybot/parley/internal/clock"
)

// ErrNoKeywordIndex means this build has no FTS5: the knowledge base is
// off. Rebuilding with the build tag sqlite_fts5 turns it on.
var ErrNoKeywordIndex = errors.New("the knowledge base is off: this build of Parley has no SQLite FTS5 (rebuild with -tags sqlite_fts5)")

// ErrTooLarge means a document, or a scope's documents together, would
// pass their cap.
var ErrTooLarge = errors.New("too large for the knowledge base")

// Store keeps documents, their passages and the passages' vectors.
// store.DB implements it.
type Store interface {
	// KeywordIndex is nil when the keyword index is available, else an
	// error wrapping ErrNoKeywordIndex.
	KeywordIndex() error
	// PutDocument stores doc and its passages in one transaction,
	// replacing the document of the same scope and source, if any, and
	// returns it with its ID.
	PutDocument(ctx context.Context, doc Document, chunks []IndexedChunk) (Document, error)
	// Document finds the document of scope with source.
	Document(ctx context.Context, scope, source string) (Document, bool, error)
	// DocumentByHash finds a document of scope with this content hash.
	DocumentByHash(ctx context.Context, scope, hash string) (Document, bool, error)
	// Documents lists the documents of scopes, oldest first.
	Documents(ctx context.Context, scopes []string) ([]Document, error)
	// AllDocuments lists every scope's documents (the operator's CLI).
	AllDocuments(ctx context.Context) ([]Document, error)
	// DocumentByID finds a document by its ID.
	DocumentByID(ctx context.Context, id int64) (Document, bool, error)
	// DeleteDocument removes a document with its passages.
	DeleteDocument(ctx context.Context, id int64) error
	// ScopeBytes is the size of scope's documents together.
	ScopeBytes(ctx context.Context, scope string) (int64, error)
	// KeywordSearch runs an FTS5 query (MatchQuery) over the passages of
	// scopes, best first by BM25, at most n. The scope filter is part of
	// the query, applied before the n best are taken.
	KeywordSearch(ctx context.Context, scopes []string, match string, n int) ([]Result, error)
	// ScanVectors calls fn with every passage that has a vector for model,
	// and its scope. vec is only valid during the call.
	ScanVectors(ctx context.Context, model string, fn func(chunkID int64, scope string, vec []float32)) error
	// Generation changes whenever passages or vectors do, in any process.
	Generation(ctx context.Context) (int64, error)
	// Passages loads passages by ID, in no particular order.
	Passages(ctx context.Context, ids []int64) ([]Result, error)
	// MissingVectors lists up to n passage texts with no vector for
	// model, one per distinct text.
	MissingVectors(ctx context.Context, model string, n int) ([]Pending, error)
	// PutVectors stores vectors for model.
	PutVectors(ctx context.Context, model string, vecs []Vector) error
	// DropVectors removes the vectors of every model but keep, and
	// reports how many.
	DropVectors(ctx context.Context, keep string) (int64, error)
}

// IndexedChunk is a passage as stored: the passage, the hash of its text
// (the embedding cache key) and what the keyword index holds for it.
type IndexedChunk struct {
	Chunk
	Hash string
	// Body and Uni are IndexText of the passage; Head is IndexText of the
	// document's title and source, so a passage is found by its
	// document's name too.
	Body, Uni, Head string
}

// Pending is a passage text waiting for its vector.
type Pending struct {
	Hash, Text string
}

// Vector is the embedding of the passage text with Hash.
type Vector struct {
	Hash string
	Vec  []float32
}

// Embedder turns texts into vectors, one per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Config configures a Base. Zero values take the defaults.
type Config struct {
	Store Store
	// Embedder and EmbeddingModel turn the vector pass on; without them
	// the knowledge base runs keyword-only.
	Embedder       Embedder
	EmbeddingModel string
	// Fetcher downloads URLs (AddURL); nil: URLs cannot be added.
	Fetcher  Fetcher
	Chunking ChunkOptions
	// MaxFileBytes caps one document as received (default 20 MiB);
	// MaxScopeBytes caps the text of a scope's documents together
	// (default 200 MiB).
	MaxFileBytes, MaxScopeBytes int64
	// KeywordWeight and VectorWeight weigh the passes in the fusion
	// (defaults 1 and 1.5: meaning counts more, and the keyword pass's
	// best literal match is always kept).
	KeywordWeight, VectorWeight float64
	// RRFK is Reciprocal Rank Fusion's k (default 60); MinScore drops
	// fused results below it (default 0: none).
	RRFK, MinScore float64
	// TopK is how many passages a search returns by default (5).
	TopK int
	// EmbedBatch is how many passages go in one embeddings request
	// (default 64).
	EmbedBatch int
	Now        func() time.Time
	Sleep      func(context.Context, time.Duration) error
	Logger     *slog.Logger
}

func (c Config) withDefaults() Config {
	c.MaxFileBytes = cmp.Or(c.MaxFileBytes, 20<<20)
	c.MaxScopeBytes = cmp.Or(c.MaxScopeBytes, 200<<20)
	c.KeywordWeight = cmp.Or(c.KeywordWeight, 1)
	c.VectorWeight = cmp.Or(c.VectorWeight, 1.5)
	c.RRFK = cmp.Or(c.RRFK, 60)
	c.TopK = cmp.Or(c.TopK, 5)
	c.EmbedBatch = cmp.Or(c.EmbedBatch, 64)
	c.Now, c.Sleep = clock.Or(c.Now, c.Sleep)
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Base is the knowledge base: ingestion, search and the background
// embedding of new passages. It is safe for concurrent use.
type Base struct {
	cfg     Config
	wake    chan struct{}
	vectors vectorIndex
}

// New returns a Base over cfg.Store.
func New(cfg Config) *Base {
	return &Base{cfg: cfg.withDefaults(), wake: make(chan struct{}, 1)}
}

// Ready is nil when the knowledge base can be used, else why not
// (ErrNoKeywordIndex).
func (b *Base) Ready() error { return b.cfg.Store.KeywordIndex() }

// Hybrid reports whether searches use meaning as well as words.
func (b *Base) Hybrid() bool { return b.cfg.Embedder != nil && b.cfg.EmbeddingModel != "" }

// Status says in one line how the knowledge base searches, for /kb and
// parley doctor.
func (b *Base) Status() string {
	switch {
	case b.Ready() != nil:
		return b.Ready().Error()
	case b.Hybrid():
		return "hybrid search: keywords (FTS5, BM25) and meaning (" + b.cfg.EmbeddingModel + ")"
	}
	return "keyword-only search (FTS5, BM25): set kb.embedding_model to search by meaning too"
}

// Outcome says what Ingest did.
type Outcome string

const (
	Added     Outcome = "added"
	Replaced  Outcome = "replaced"  // the same source, new content
	Unchanged Outcome = "unchanged" // the same source, the same content
	Duplicate Outcome = "duplicate" // the same content under another source: kept once
)

// Ingested is what Ingest did, and the document concerned (for Duplicate,
// the one already holding the content).
type Ingested struct {
	Outcome Outcome
	Doc     Document
}

// Ingest stores a document's extracted text in doc.Scope under doc.Source:
// cut into passages, indexed, and queued for embedding. Re-ingesting a
// source replaces it; content already stored in the scope under another
// source is not stored twice.
func (b *Base) Ingest(ctx context.Context, doc Document, text string) (Ingested, error) {
	if err := b.Ready(); err != nil {
		return Ingested{}, err
	}
	if doc.Scope == "" || doc.Source == "" {
		return Ingested{}, errors.New("kb: a document needs a scope and a source")
	}
	doc.Hash = hashText(text)
	doc.Bytes = int64(len(text))
	doc.AddedAt = b.cfg.Now()
	doc.Title = cmp.Or(doc.Title, doc.Source)

	old, had, err := b.cfg.Store.Document(ctx, doc.Scope, doc.Source)
	if err != nil {
		return Ingested{}, err
	}
	if had && old.Hash == doc.Hash {
		return Ingested{Outcome: Unchanged, Doc: old}, nil
	}
	if same, ok, err := b.cfg.Store.DocumentByHash(ctx, doc.Scope, doc.Hash); err != nil {
		return Ingested{}, err
	} else if ok && same.Source != doc.Source {
		return Ingested{Outcome: Duplicate, Doc: same}, nil
	}
	used, err := b.cfg.Store.ScopeBytes(ctx, doc.Scope)
	if err != nil {
		return Ingested{}, err
	}
	if had {
		used -= old.Bytes
	}
	if used+doc.Bytes > b.cfg.MaxScopeBytes {
		return Ingested{}, fmt.Errorf("%w: %s would bring this place's documents to %s, over its cap of %s (remove some with /kb forget)",
			ErrTooLarge, doc.Source, Size(used+doc.Bytes), Size(b.cfg.MaxScopeBytes))
	}

	head, _ := IndexText(doc.Title + " " + doc.Source)
	chunks := Split(text, b.cfg.Chunking)
	if len(chunks) == 0 {
		return Ingested{}, fmt.Errorf("kb: %s has no text", doc.Source)
	}
	indexed := make([]IndexedChunk, len(chunks))
	for i, c := range chunks {
		body, uni := IndexText(c.Text)
		indexed[i] = IndexedChunk{Chunk: c, Hash: hashText(c.Text), Body: body, Uni: uni, Head: head}
	}
	doc.Chunks = len(chunks)
	stored, err := b.cfg.Store.PutDocument(ctx, doc, indexed)
	if err != nil {
		return Ingested{}, err
	}
	b.Wake()
	if had {
		return Ingested{Outcome: Replaced, Doc: stored}, nil
	}
	return Ingested{Outcome: Added, Doc: stored}, nil
}

// CheckSize refuses a document of n bytes as received when it passes the
// file cap, before anything reads it whole.
func (b *Base) CheckSize(name string, n int64) error {
	if n > b.cfg.MaxFileBytes {
		return fmt.Errorf("%w: %s is %s, over the cap of %s per document", ErrTooLarge, name, Size(n), Size(b.cfg.MaxFileBytes))
	}
	return nil
}

// MaxFileBytes is the cap on one document as received.
func (b *Base) MaxFileBytes() int64 { return b.cfg.MaxFileBytes }

// List lists the documents of scopes, oldest first, so numbers in /kb
// stay put as documents are added.
func (b *Base) List(ctx context.Context, scopes []string) ([]Document, error) {
	if err := b.Ready(); err != nil {
		return nil, err
	}
	return b.cfg.Store.Documents(ctx, scopes)
}

// ListAll lists every scope's documents (the operator's CLI).
func (b *Base) ListAll(ctx context.Context) ([]Document, error) {
	if err := b.Ready(); err != nil {
		return nil, err
	}
	return b.cfg.Store.AllDocuments(ctx)
}

// Document finds a document by its ID.
func (b *Base) Document(ctx context.Context, id int64) (Document, bool, error) {
	return b.cfg.Store.DocumentByID(ctx, id)
}

// Forget removes a document.
func (b *Base) Forget(ctx context.Context, id int64) error {
	return b.cfg.Store.DeleteDocument(ctx, id)
}

// Search finds the passages of scopes that best answer query: the
// keyword pass and, when configured, the vector pass, fused. k ≤ 0 takes
// the configured top-K. A vector pass that fails (the embeddings endpoint
// is down) leaves the keyword pass's results, logged, not an error.
func (b *Base) Search(ctx context.Context, scopes []string, query string, k int) ([]Result, error) {
	if err := b.Ready(); err != nil {
		return nil, err
	}
	if len(scopes) == 0 {
		return nil, errors.New("kb: a search needs the scopes it covers")
	}
	if k <= 0 {
		k = b.cfg.TopK
	}
	depth := max(20, 4*k) // how deep each pass looks before fusion
	found := map[Passage]Result{}
	ranking := func(weight float64, keep int, hits []Result) Ranking {
		r := Ranking{Weight: weight, Keep: keep}
		for _, h := range hits {
			p := Passage{Doc: strconv.FormatInt(h.DocID, 10), Start: h.Start}
			if _, ok := found[p]; !ok {
				found[p] = h
			}
			r.Hits = append(r.Hits, p)
		}
		return r
	}
	var rankings []Ranking
	if match := MatchQuery(query); match != "" {
		hits, err := b.cfg.Store.KeywordSearch(ctx, scopes, match, depth)
		if err != nil {
			return nil, err
		}
		rankings = append(rankings, ranking(b.cfg.KeywordWeight, 1, hits))
	}
	if b.Hybrid() {
		hits, err := b.vectorPass(ctx, scopes, query, depth)
		if err != nil {
			b.cfg.Logger.Warn("knowledge base: vector search failed, keyword results only", "err", err)
		} else {
			rankings = append(rankings, ranking(b.cfg.VectorWeight, 0, hits))
		}
	}
	fused := Fuse(rankings, FuseOptions{K: b.cfg.RRFK, TopK: k, MinScore: b.cfg.MinScore})
	out := make([]Result, 0, len(fused))
	for _, f := range fused {
		r := found[f.Passage]
		r.Score = f.Score
		out = append(out, r)
	}
	return out, nil
}

// hashText is the content hash: SHA-256, hex.
func hashText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Size formats a byte count for people: "512 B", "1.5 KiB", "20.0 MiB".
func Size(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
