package llmtest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkServer measures the fake alone answering one 50-chunk stream to
// a plain HTTP client: the share of the providers' benchmarks that is not
// theirs.
func BenchmarkServer(b *testing.B) {
	chunks := strings.Fields(strings.Repeat("lorem ipsum dolor sit amet ", 10))
	srv := NewServer(WithResponder(func(Request) Reply { return Text(chunks...) }))
	defer srv.Close()
	for _, path := range []string{"/v1/chat/completions", "/v1/messages"} {
		b.Run(strings.TrimPrefix(path, "/v1/"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(streamBody))
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
