package rowdata

import (
	"encoding/binary"
	"math"
)

// The knowledge base's embeddings are stored the same way in both engines
// (a BLOB in SQLite, a bytea in PostgreSQL without pgvector), so a
// database moved from one to the other keeps its vectors.

// EncodeVector is a vector's storage form: little-endian float32s.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector appends the float32s stored in b to dst.
func DecodeVector(dst []float32, b []byte) []float32 {
	for i := 0; i+4 <= len(b); i += 4 {
		dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(b[i:])))
	}
	return dst
}
