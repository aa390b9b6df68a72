package kb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/internal/backoff"
)

// Embedding runs in the background: a document is searchable by its words
// as soon as it is stored, and by its meaning once its passages have
// vectors. A new embedding model re-embeds everything the same way, while
// keyword search (and the old vectors, until the new ones are complete)
// keep serving.

// Wake tells the embedder there are passages waiting.
func (b *Base) Wake() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// RunEmbedder embeds waiting passages until ctx ends: at start, and each
// time Wake is called. Without an embedding model it returns at once.
// Failures the provider may recover from (rate limits, server errors, the
// network) are retried with backoff; others are logged and tried again at
// the next wake.
func (b *Base) RunEmbedder(ctx context.Context) {
	if !b.Hybrid() || b.Ready() != nil {
		return
	}
	b.Wake()
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.wake:
		}
		for {
			n, err := b.EmbedPending(ctx)
			if ctx.Err() != nil {
				return
			}
			if err == nil {
				failures = 0
				if n == 0 {
					break
				}
				continue
			}
			failures++
			if !retryable(err) {
				b.cfg.Logger.Error("knowledge base: embedding failed", "model", b.cfg.EmbeddingModel, "err", err)
				break
			}
			wait := backoff.Policy{Base: time.Second, Cap: 5 * time.Minute, Jitter: backoff.Equal}.Delay(failures - 1)
			if e, ok := llm.AsError(err); ok && e.RetryAfter > wait {
				wait = e.RetryAfter
			}
			b.cfg.Logger.Warn("knowledge base: embedding failed, retrying", "model", b.cfg.EmbeddingModel, "in", wait, "err", err)
			if b.cfg.Sleep(ctx, wait) != nil {
				return
			}
		}
	}
}

// EmbedPending embeds one batch of passages that have no vector for the
// configured model, and reports how many it stored. With none waiting,
// it drops the vectors of other models: the switch to a new model is
// complete.
func (b *Base) EmbedPending(ctx context.Context) (int, error) {
	pending, err := b.cfg.Store.MissingVectors(ctx, b.cfg.EmbeddingModel, b.cfg.EmbedBatch)
	if err != nil {
		return 0, err
	}
	if len(pending) == 0 {
		if n, err := b.cfg.Store.DropVectors(ctx, b.cfg.EmbeddingModel); err != nil {
			return 0, err
		} else if n > 0 {
			b.cfg.Logger.Info("knowledge base: dropped the vectors of earlier embedding models", "vectors", n)
		}
		return 0, nil
	}
	texts := make([]string, len(pending))
	for i, p := range pending {
		texts[i] = p.Text
	}
	vecs, err := b.cfg.Embedder.Embed(ctx, texts)
	if err != nil {
		return 0, err
	}
	if len(vecs) != len(texts) {
		return 0, fmt.Errorf("kb: the embeddings endpoint returned %d vectors for %d texts", len(vecs), len(texts))
	}
	out := make([]Vector, len(pending))
	for i, p := range pending {
		out[i] = Vector{Hash: p.Hash, Vec: Normalize(vecs[i])}
	}
	if err := b.cfg.Store.PutVectors(ctx, b.cfg.EmbeddingModel, out); err != nil {
		return 0, err
	}
	return len(out), nil
}

// CheckEmbedder embeds one short text, so `parley doctor` can tell a
// working embeddings endpoint from a wrong model, key or URL.
func (b *Base) CheckEmbedder(ctx context.Context) error {
	vecs, err := b.cfg.Embedder.Embed(ctx, []string{"parley doctor"})
	if err != nil {
		return err
	}
	if len(vecs) != 1 || len(vecs[0]) == 0 {
		return errors.New("the embeddings endpoint returned no vector")
	}
	return nil
}

// retryable: a provider error that waiting may cure.
func retryable(err error) bool {
	if e, ok := llm.AsError(err); ok {
		return e.Retryable()
	}
	return !errors.Is(err, context.Canceled)
}
