package openai

import (
	"context"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/parleybot/parley/agent/llm"
)

// Embedder turns texts into vectors with one embeddings model, through
// the same endpoint, key and error classification as the Provider. It
// implements kb.Embedder.
type Embedder struct {
	svc      sdk.EmbeddingService
	model    string
	endpoint llm.Endpoint
}

// Embedder returns an Embedder for model (e.g. "text-embedding-3-small",
// or "nomic-embed-text" on Ollama).
func (p *Provider) Embedder(model string) *Embedder {
	return &Embedder{svc: p.embeddings, model: model, endpoint: p.endpoint}
}

// Embed returns one vector per text, in order. Failures are *llm.Error,
// so callers retry what the provider may recover from.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	var a llm.Attempt
	res, err := e.svc.New(ctx, sdk.EmbeddingNewParams{
		Model:          e.model,
		Input:          sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: sdk.EmbeddingNewParamsEncodingFormatFloat,
	}, option.WithMiddleware(a.Observe))
	if err != nil {
		return nil, e.endpoint.Classify(ctx, &a, err)
	}
	out := make([][]float32, len(texts))
	for _, d := range res.Data {
		if d.Index < 0 || int(d.Index) >= len(texts) || out[d.Index] != nil {
			return nil, fmt.Errorf("%s embeddings: answer index %d does not match the %d texts sent", e.endpoint.Provider, d.Index, len(texts))
		}
		v := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			v[i] = float32(x)
		}
		out[d.Index] = v
	}
	for i, v := range out {
		if v == nil {
			return nil, fmt.Errorf("%s embeddings: no vector for text %d of %d", e.endpoint.Provider, i+1, len(texts))
		}
	}
	return out, nil
}
