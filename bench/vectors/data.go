package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// nScopes is how many scopes the chunks are spread over in the "spread"
// layout: the operator's, 9 spaces and 10 people's DMs.
const nScopes = 20

// scopeKey is scope s's stored form, shaped like bot.Scope.Key.
func scopeKey(s int) string {
	switch {
	case s == 0:
		return "operator"
	case s < 10:
		return fmt.Sprintf("space:slack:T%09d", s)
	default:
		return fmt.Sprintf("person:slack:U%09d", s)
	}
}

// config is one data set: N chunks of Dim-dimensional vectors laid out over
// the scopes as Layout says ("spread": chunk i is in scope i%20; "single":
// every chunk is in the operator's scope).
type config struct {
	N      int
	Dim    int
	Layout string
	Seed   uint64
}

func (c config) scopeOf(i int) int {
	if c.Layout == "single" {
		return 0
	}
	return i % nScopes
}

// model is the name stored in kb_vectors.model.
func (c config) model() string { return fmt.Sprintf("bench-%d", c.Dim) }

// chunkHash is chunk i's kb_chunks.hash (and kb_vectors.hash).
func chunkHash(i int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("chunk-%d", i)))
	return hex.EncodeToString(h[:])
}

// filler is a passage of about 800 bytes, like a ~200-token chunk.
var filler = strings.Repeat("The quick brown fox jumps over the lazy dog. ", 18)

func chunkText(i int) string { return fmt.Sprintf("chunk %d: %s", i, filler) }

// vector writes chunk i's vector (Gaussian, normalised) into dst. It is a
// function of (seed, i) only, so a child process can rebuild any vector.
func vector(seed uint64, i int, dst []float32) {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	var ss float64
	for j := range dst {
		x := r.NormFloat64()
		dst[j] = float32(x)
		ss += x * x
	}
	inv := 1 / math.Sqrt(ss)
	for j := range dst {
		dst[j] = float32(float64(dst[j]) * inv)
	}
}

func normalise(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	inv := 1 / math.Sqrt(ss)
	for j := range v {
		v[j] = float32(float64(v[j]) * inv)
	}
}

// encode writes v as little-endian float32 into dst (len 4*len(v)), the
// layout both kb_vectors.vec and sqlite-vec use.
func encode(dst []byte, v []float32) []byte {
	dst = dst[:4*len(v)]
	for j, x := range v {
		binary.LittleEndian.PutUint32(dst[4*j:], math.Float32bits(x))
	}
	return dst
}

// query is one search: the scopes the asker sees and the query vector.
type query struct {
	Scopes [3]string
	Vec    []float32
}

// queries makes n queries. Each covers the operator's scope, one space and
// one person (3 of the 20 scopes); its vector is a noisy copy of a chunk in
// those scopes, so it has real near neighbours. salt separates the warm-up
// set from the measured one.
func (c config) queries(n int, salt uint64) []query {
	qs := make([]query, n)
	for q := range qs {
		r := rand.New(rand.NewPCG(c.Seed^0x9e3779b97f4a7c15, salt<<32|uint64(q)))
		sp, pe := 1+r.IntN(9), 10+r.IntN(10)
		qs[q].Scopes = [3]string{scopeKey(0), scopeKey(sp), scopeKey(pe)}
		var base int
		if c.Layout == "single" {
			base = r.IntN(c.N)
		} else {
			s := [3]int{0, sp, pe}[r.IntN(3)]
			base = s + nScopes*r.IntN(c.N/nScopes)
		}
		v := make([]float32, c.Dim)
		vector(c.Seed, base, v)
		sd := 0.7 / math.Sqrt(float64(c.Dim))
		for j := range v {
			v[j] += float32(sd * r.NormFloat64())
		}
		normalise(v)
		qs[q].Vec = v
	}
	return qs
}
