package transcribe_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/parleybot/parley/agent/transcribe"
)

// BenchmarkTranscribe: the client's side of one request carrying a 5 MB
// recording (about ten minutes of Opus at 64 kbit/s), to a server over
// loopback that reads the body and answers verbose_json.
func BenchmarkTranscribe(b *testing.B) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"task":"transcribe","language":"english","duration":600,"text":"ten minutes of words"}`)
	}))
	defer hs.Close()
	c := transcribe.New(transcribe.Config{BaseURL: hs.URL})
	a := transcribe.Audio{Name: "voice message", MIME: "audio/ogg", Data: bytes.Repeat([]byte("OggS"), 5<<20/4)}
	b.SetBytes(int64(len(a.Data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Transcribe(b.Context(), "whisper-1", a); err != nil {
			b.Fatal(err)
		}
	}
}
