package webfetch

import (
	"context"
	"errors"
	"fmt"
)

// ErrTooLarge is wrapped by Fetch's error when the body is larger than
// the limit the caller gave.
var ErrTooLarge = errors.New("response too large")

// rawAccept asks for the server's own representation: Fetch's callers
// decide for themselves what they can read (the knowledge base takes PDFs,
// which the tool's Accept ranks last).
const rawAccept = "*/*"

// Fetcher gets URLs through the same guard as the web_fetch tool, for
// other code that fetches what a person or the model named (the knowledge
// base adding a URL): private, loopback and link-local addresses refused on
// every dial, redirects checked and capped, the whole fetch bounded by
// Options.Timeout. It is safe for concurrent use.
type Fetcher struct {
	f *fetcher
}

// Fetched is a response body read in full.
type Fetched struct {
	// URL is where the body finally came from, after redirects.
	URL string
	// ContentType is the Content-Type header as sent; it may be empty or
	// wrong, so callers sniff the body too.
	ContentType string
	Body        []byte
	// Cut is set only together with an ErrTooLarge error, and Body is then
	// nil: a caller that must not keep a partial document (the knowledge
	// base) has nothing to keep by mistake.
	Cut bool
}

// NewFetcher returns a Fetcher. Options.MaxChars does not apply; MaxBytes
// is the limit used when Fetch is given none.
func NewFetcher(opts Options) (*Fetcher, error) {
	f, err := newFetcher(opts)
	if err != nil {
		return nil, err
	}
	return &Fetcher{f: f}, nil
}

// Fetch gets rawURL through the same guarded client the tool uses and
// returns the whole body. A body over maxBytes (Options.MaxBytes when
// maxBytes <= 0) is an error wrapping ErrTooLarge, not a cut body. Errors
// are the tool's: one sentence saying what went wrong (refused address,
// HTTP status, timeout, …).
func (x *Fetcher) Fetch(ctx context.Context, rawURL string, maxBytes int64) (Fetched, error) {
	f := x.f
	if maxBytes <= 0 {
		maxBytes = f.opts.MaxBytes
	}
	ctx, cancel := f.withDeadline(ctx)
	defer cancel()
	resp, hop, err := f.get(ctx, rawURL, rawAccept)
	if err != nil {
		return Fetched{}, err
	}
	defer resp.Body.Close()

	out := Fetched{URL: resp.Request.URL.String(), ContentType: resp.Header.Get("Content-Type")}
	tooLarge := func() (Fetched, error) {
		out.Cut = true
		return out, fmt.Errorf("%w: %s is larger than %s", ErrTooLarge, out.URL, size(maxBytes))
	}
	// A declared length over the limit is refused before reading a byte.
	if resp.ContentLength > maxBytes {
		return tooLarge()
	}
	body, cut, err := readCapped(resp.Body, maxBytes)
	if err != nil {
		return Fetched{}, describe(ctx, err, hop)
	}
	if cut {
		return tooLarge()
	}
	out.Body = body
	return out, nil
}
