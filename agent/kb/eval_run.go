package kb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// Running an evaluation against a real knowledge base: `parley kb eval`
// and the store's evaluation test.

// IngestEvalSet adds the set's documents to scope, each with its path
// relative to the set as its source (what the labels name), and embeds
// them when the base searches by meaning.
func (b *Base) IngestEvalSet(ctx context.Context, set EvalSet, scope string) error {
	docs, err := set.Documents()
	if err != nil {
		return err
	}
	for _, rel := range docs {
		data, err := os.ReadFile(filepath.Join(set.Dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		if _, err := b.Add(ctx, Document{Scope: scope, Source: rel, AddedBy: "operator"}, "", data); err != nil {
			return fmt.Errorf("eval document %s: %w", rel, err)
		}
	}
	if !b.Hybrid() {
		return nil
	}
	for {
		n, err := b.EmbedPending(ctx)
		if err != nil {
			return fmt.Errorf("embed the eval documents: %w", err)
		}
		if n == 0 {
			return nil
		}
	}
}

// In is b searching scopes, as an evaluation's Searcher.
func (b *Base) In(scopes ...string) Searcher { return scopedSearcher{b, scopes} }

type scopedSearcher struct {
	b      *Base
	scopes []string
}

func (s scopedSearcher) Search(ctx context.Context, query string, k int) ([]Result, error) {
	return s.b.Search(ctx, s.scopes, query, k)
}
