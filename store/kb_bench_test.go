//go:build sqlite_fts5

package store_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/kb"
	"github.com/parleybot/parley/store"
)

// Knowledge base figures (README, docs/knowledge-base.md):
//
//	go test -tags sqlite_fts5 -run '^$' -bench 'KB' -benchtime 200x ./store/
//
// Ingest is chunks per second with embeddings excluded; search is p50
// and p99 latency per query at 10k and 100k passages, keyword-only and
// hybrid (the vector scan and the fusion; the query's embedding, a call to
// the provider, excluded); size is the database per 1,000 passages.

var kbDims = flag.Int("kb.dims", 1536, "embedding dimensions for the knowledge base benchmarks")

// corpus writes synthetic documents: Zipf-distributed words from a large
// vocabulary, a tenth of the lines Chinese, 200 lines each (about 6
// passages of 40 lines with 5 overlapping).
type corpus struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

func newCorpus(seed uint64) *corpus {
	rng := rand.New(rand.NewPCG(seed, seed))
	syll := []string{"ka", "ro", "mi", "te", "su", "na", "lo", "pe", "di", "vu", "gor", "lin", "tas", "mek", "zan"}
	vocab := make([]string, 20000)
	for i := range vocab {
		var w strings.Builder
		for n := 2 + i%3; n > 0; n-- {
			w.WriteString(syll[rng.IntN(len(syll))])
		}
		vocab[i] = fmt.Sprintf("%s%d", w.String(), i%97)
	}
	return &corpus{rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1)), vocab: vocab}
}

func (c *corpus) line() string {
	if c.rng.IntN(10) == 0 {
		han := []rune("设备申领流程部署服务器数据库备份恢复值班告警监控网络权限审批发布版本")
		var b strings.Builder
		for range 12 {
			b.WriteRune(han[c.rng.IntN(len(han))])
		}
		return b.String()
	}
	words := make([]string, 8+c.rng.IntN(6))
	for i := range words {
		words[i] = c.vocab[c.zipf.Uint64()]
	}
	return strings.Join(words, " ")
}

func (c *corpus) doc() string {
	lines := make([]string, 200)
	for i := range lines {
		lines[i] = c.line()
	}
	return strings.Join(lines, "\n")
}

func (c *corpus) query() string {
	return strings.Join([]string{c.vocab[c.zipf.Uint64()], c.vocab[c.rng.IntN(2000)], c.vocab[c.rng.IntN(len(c.vocab))]}, " ")
}

// fakeEmbedder embeds in process: a deterministic pseudo-random unit
// vector per text, so the scan does real work without a provider.
type fakeEmbedder struct{ dims int }

func (e fakeEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		var seed uint64
		for _, r := range t {
			seed = seed*131 + uint64(r)
		}
		rng := rand.New(rand.NewPCG(seed, 7))
		v := make([]float32, e.dims)
		for j := range v {
			v[j] = float32(rng.NormFloat64())
		}
		out[i] = kb.Normalize(v)
	}
	return out, nil
}

// fillKB ingests documents until the base holds at least n passages, and
// returns how many and how long ingestion took.
func fillKB(tb testing.TB, b *kb.Base, c *corpus, n int) (chunks int, took time.Duration) {
	tb.Helper()
	start := time.Now()
	for i := 0; chunks < n; i++ {
		got, err := b.Ingest(context.Background(), kb.Document{Scope: "operator", Source: fmt.Sprintf("doc%06d.md", i), AddedBy: "operator"}, c.doc())
		if err != nil {
			tb.Fatal(err)
		}
		chunks += got.Doc.Chunks
	}
	return chunks, time.Since(start)
}

func BenchmarkKBIngest(b *testing.B) {
	db := newDB(b)
	base := kb.New(kb.Config{Store: db, MaxScopeBytes: 1 << 40})
	c := newCorpus(1)
	b.ResetTimer()
	chunks, took := fillKB(b, base, c, 1000*b.N)
	b.ReportMetric(float64(chunks)/took.Seconds(), "chunks/s")
	b.ReportMetric(0, "ns/op")
	if err := db.Close(); err != nil { // checkpoints the WAL into the file
		b.Fatal(err)
	}
	if fi, err := os.Stat(db.Path()); err == nil {
		b.ReportMetric(float64(fi.Size())/float64(chunks)*1000/(1<<20), "MiB/1k-chunks")
	}
}

func BenchmarkKBSearch(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("chunks=%dk", n/1000), func(b *testing.B) {
			path := dbPath(b)
			db := openDB(b, path)
			c := newCorpus(2)
			keyword := kb.New(kb.Config{Store: db, MaxScopeBytes: 1 << 40})
			chunks, _ := fillKB(b, keyword, c, n)
			emb := fakeEmbedder{dims: *kbDims}
			hybrid := kb.New(kb.Config{Store: db, Embedder: emb, EmbeddingModel: "fake", EmbedBatch: 512, MaxScopeBytes: 1 << 40})
			for {
				k, err := hybrid.EmbedPending(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				if k == 0 {
					break
				}
			}
			vecSize := sizeOf(b, db)
			b.Logf("%d passages, %d dims: database %.0f MiB (%.2f MiB per 1,000 passages with vectors)",
				chunks, *kbDims, vecSize, vecSize/float64(chunks)*1000)
			for _, pass := range []struct {
				name string
				base *kb.Base
			}{{"keyword", keyword}, {"hybrid", hybrid}} {
				b.Run(pass.name, func(b *testing.B) {
					var lat []time.Duration
					for b.Loop() {
						q := c.query()
						start := time.Now()
						if _, err := pass.base.Search(context.Background(), []string{"operator", "space:slack:T1"}, q, 5); err != nil {
							b.Fatal(err)
						}
						lat = append(lat, time.Since(start))
					}
					slices.Sort(lat)
					b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
					b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				})
			}
		})
	}
}

// sizeOf is the database's size in MiB, its WAL included.
func sizeOf(tb testing.TB, db *store.DB) float64 {
	tb.Helper()
	var total int64
	for _, p := range []string{db.Path(), db.Path() + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			total += fi.Size()
		}
	}
	return float64(total) / (1 << 20)
}

// BenchmarkKBScanVectors is the vector pass's scan alone: every vector of
// the searched scopes read and scored.
func BenchmarkKBScanVectors(b *testing.B) {
	db := newDB(b)
	c := newCorpus(3)
	base := kb.New(kb.Config{Store: db, Embedder: fakeEmbedder{dims: *kbDims}, EmbeddingModel: "fake", EmbedBatch: 512})
	chunks, _ := fillKB(b, base, c, 10_000)
	for {
		k, err := base.EmbedPending(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if k == 0 {
			break
		}
	}
	q, _ := fakeEmbedder{dims: *kbDims}.Embed(context.Background(), []string{"query"})
	b.ResetTimer()
	for b.Loop() {
		var best float32
		err := db.ScanVectors(context.Background(), "fake", func(_ int64, _ string, v []float32) {
			var dot float32
			for i := range q[0] {
				dot += q[0][i] * v[i]
			}
			best = max(best, dot)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(chunks), "vectors")
}
