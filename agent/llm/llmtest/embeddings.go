package llmtest

import (
	"hash/fnv"
	"net/http"
	"strings"
	"unicode"
)

// The embeddings endpoint (POST /v1/embeddings, OpenAI's shape, which
// Ollama and other compatible servers also speak). Vectors come from the
// server's embedding function — by default HashEmbedding — so a test
// knows which texts are near each other. Failures are scripted apart from
// the chat replies, with EnqueueEmbeddings: a request takes the next one
// if any, else succeeds.

// WithEmbedding makes the server embed each input text with f (all the
// vectors f returns must have one length).
func WithEmbedding(f func(text string) []float32) Option {
	return func(s *Server) { s.embed = f }
}

// EnqueueEmbeddings scripts the next embeddings requests' answers: a Reply
// with a Status fails that request with the provider's error (429 with
// Retry-After, 500, …); a zero Reply lets it succeed.
func (s *Server) EnqueueEmbeddings(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedQueue = append(s.embedQueue, replies...)
}

// HashEmbeddingDims is the length of HashEmbedding's vectors.
const HashEmbeddingDims = 64

// HashEmbedding is a deterministic stand-in for a model: each word (a run
// of letters or digits, lowercased; each CJK character) adds one to the
// dimension its hash names. Texts sharing words point the same way.
func HashEmbedding(text string) []float32 {
	v := make([]float32, HashEmbeddingDims)
	add := func(w string) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%HashEmbeddingDims]++
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		var latin strings.Builder
		for _, r := range w {
			if unicode.Is(unicode.Han, r) {
				add(string(r))
				continue
			}
			latin.WriteRune(r)
		}
		if latin.Len() > 0 {
			add(latin.String())
		}
	}
	return v
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	p := openAI{}
	req, ok := s.receive(w, r, p)
	if !ok {
		return
	}
	s.mu.Lock()
	var scripted Reply
	if len(s.embedQueue) > 0 {
		scripted, s.embedQueue = s.embedQueue[0], s.embedQueue[1:]
	}
	s.mu.Unlock()
	if scripted.Status != 0 {
		p.writeError(w, req, scripted)
		return
	}
	var inputs []string
	switch in := req.JSON["input"].(type) {
	case string:
		inputs = []string{in}
	case []any:
		for _, x := range in {
			t, ok := x.(string)
			if !ok {
				p.writeError(w, req, Status(http.StatusBadRequest).WithMessage("llmtest: input must be strings"))
				return
			}
			inputs = append(inputs, t)
		}
	default:
		p.writeError(w, req, Status(http.StatusBadRequest).WithMessage("llmtest: no input"))
		return
	}
	embed := s.embed
	if embed == nil {
		embed = HashEmbedding
	}
	data := make([]any, len(inputs))
	tokens := 0
	for i, t := range inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": embed(t)}
		tokens += len(strings.Fields(t))
	}
	writeJSON(w, http.StatusOK, nil, map[string]any{
		"object": "list", "data": data, "model": req.Model(),
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens},
	})
}
