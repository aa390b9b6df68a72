package kb

import "time"

// Document is one document in the knowledge base: where it came from,
// whose scope it belongs to, and what it holds.
type Document struct {
	ID     int64
	Scope  string // the scope's stored form (bot.Scope.Key)
	Source string // a path, a URL, or an attachment's name
	Title  string
	Kind   string // "text", "markdown", "html", "pdf", "code"
	// Hash is the SHA-256 of the extracted text, hex: identical content
	// is stored once per scope.
	Hash string
	// Bytes is the size of the extracted text, counted against the
	// scope's cap.
	Bytes   int64
	AddedBy string // a person's key ("slack:U1"), or "operator"
	// AddedByName is how that person was called when they added it, for
	// listings.
	AddedByName string
	AddedAt     time.Time
	// Modified is the source file's modification time (folder sync); zero
	// for what was not read from a file.
	Modified time.Time
	Chunks   int
}

// Result is one passage found by a search, ready to cite as
// "Source:Start-End".
type Result struct {
	ChunkID    int64
	DocID      int64
	Source     string
	Start, End int
	Text       string
	Score      float64
}
