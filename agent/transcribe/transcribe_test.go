package transcribe_test

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/parleybot/parley/agent/llm"
	"github.com/parleybot/parley/agent/llm/llmtest"
	"github.com/parleybot/parley/agent/transcribe"
)

var note = transcribe.Audio{Name: "voice message", MIME: "audio/ogg", Data: []byte("OggS\x00voice")}

func newClient(t *testing.T, opts ...llmtest.Option) (*llmtest.Server, *transcribe.Client) {
	t.Helper()
	srv := llmtest.NewServer(opts...)
	t.Cleanup(srv.Close)
	return srv, transcribe.New(transcribe.Config{BaseURL: srv.OpenAIBaseURL(), APIKey: "sk-test"})
}

// TestTranscribe: the request is the multipart form OpenAI reads — the
// file under a name with the type's extension, the model, verbose_json —
// and the answer's text and duration come back.
func TestTranscribe(t *testing.T) {
	srv, c := newClient(t, llmtest.WithAPIKey("sk-test"))
	srv.EnqueueTranscriptions(llmtest.Heard{Text: "  Buy milk, please. ", Seconds: 42.5})
	got, err := c.Transcribe(t.Context(), "whisper-1", note)
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "Buy milk, please." || got.Duration != 42500*time.Millisecond || got.Language != "english" {
		t.Errorf("result %+v", got)
	}
	reqs := srv.Transcriptions()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Model != "whisper-1" || r.ResponseFormat != "verbose_json" || r.FileName != "voice message.ogg" ||
		r.ContentType != "audio/ogg" || !bytes.Equal(r.Data, note.Data) || r.Authorization != "Bearer sk-test" || r.Problem != "" {
		t.Errorf("request %+v", r)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d chat requests recorded", n)
	}
}

// TestFallsBackToJSON: a server that refuses verbose_json is asked with
// json; the duration is then unknown.
func TestFallsBackToJSON(t *testing.T) {
	srv, c := newClient(t)
	srv.EnqueueTranscriptions(llmtest.Heard{Text: "hello", Seconds: 3, JSONOnly: true})
	got, err := c.Transcribe(t.Context(), "base.en", note)
	if err != nil || got.Text != "hello" || got.Duration != 0 {
		t.Fatalf("Transcribe = %+v, %v", got, err)
	}
	reqs := srv.Transcriptions()
	if len(reqs) != 2 || reqs[0].ResponseFormat != "verbose_json" || reqs[1].ResponseFormat != "json" {
		t.Errorf("requests %+v", reqs)
	}
}

// TestErrors: what a failing endpoint answers becomes a classified
// llm.Error, transient or not, and never shows the key.
func TestErrors(t *testing.T) {
	tests := []struct {
		name      string
		heard     llmtest.Heard
		key       string // the server's key; the client sends sk-test
		kind      llm.ErrorKind
		retryable bool
		after     time.Duration
		is        error
		text      string
	}{
		{name: "server error", heard: llmtest.Heard{Status: 500}, kind: llm.KindServer, retryable: true, text: "server had an error"},
		{name: "rate limit", heard: llmtest.Heard{Status: 429, Header: http.Header{"Retry-After": {"7"}}}, kind: llm.KindRateLimit, retryable: true, after: 7 * time.Second},
		{name: "too large", heard: llmtest.Heard{Status: 413}, kind: llm.KindBadRequest, is: transcribe.ErrTooLarge},
		{name: "bad key", key: "sk-other", kind: llm.KindAuth, text: "the speech-to-text API key was rejected (401)"},
		{name: "malformed JSON", heard: llmtest.Heard{Body: `{"text": "half`}, text: "not the JSON of a transcript"},
		{name: "no text", heard: llmtest.Heard{Body: `{"transcript": "hi"}`}, text: "has no text"},
		{name: "empty transcript", heard: llmtest.Heard{Text: "   "}, is: transcribe.ErrEmpty},
		{name: "bad duration", heard: llmtest.Heard{Body: `{"text": "hi", "duration": "soon"}`}, text: "not a number of seconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []llmtest.Option
			if tt.key != "" {
				opts = append(opts, llmtest.WithAPIKey(tt.key))
			}
			srv, c := newClient(t, opts...)
			srv.EnqueueTranscriptions(tt.heard)
			_, err := c.Transcribe(t.Context(), "whisper-1", note)
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), "sk-test") {
				t.Errorf("the error shows the key: %v", err)
			}
			if tt.text != "" && !strings.Contains(err.Error(), tt.text) {
				t.Errorf("error %q, want it to say %q", err, tt.text)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v, want %v", err, tt.is)
			}
			e, ok := llm.AsError(err)
			if tt.kind == llm.KindUnknown {
				if ok {
					t.Errorf("a malformed answer is a %v", e.Kind)
				}
				return
			}
			if !ok || e.Kind != tt.kind || e.Retryable() != tt.retryable || e.RetryAfter != tt.after {
				t.Fatalf("error %#v, want kind %v, retryable %v, after %v", err, tt.kind, tt.retryable, tt.after)
			}
		})
	}
}

// TestNotAudioIsSentAnyway: a file declared as audio that is not is sent
// as it is; the endpoint decides, and its refusal is a bad request.
func TestNotAudioIsSentAnyway(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"message":"Invalid file format. Supported formats: ['flac', 'm4a', 'mp3', 'ogg', 'wav', 'webm']","type":"invalid_request_error"}}`))
	}))
	t.Cleanup(hs.Close)
	c := transcribe.New(transcribe.Config{BaseURL: hs.URL + "/v1/"})
	_, err := c.Transcribe(t.Context(), "whisper-1", transcribe.Audio{Name: "song.mp3", MIME: "audio/mpeg", Data: []byte("%PDF-1.7")})
	e, ok := llm.AsError(err)
	if !ok || e.Kind != llm.KindBadRequest || e.Retryable() || !strings.Contains(err.Error(), "Invalid file format") {
		t.Fatalf("err = %v", err)
	}
}

// TestUnreachable: a server that is not there is a network failure,
// transient, naming the URL without its credentials.
func TestUnreachable(t *testing.T) {
	hs := httptest.NewServer(http.NotFoundHandler())
	base := strings.Replace(hs.URL, "http://", "http://user:hunter2@", 1)
	hs.Close()
	c := transcribe.New(transcribe.Config{BaseURL: base})
	_, err := c.Transcribe(t.Context(), "whisper-1", note)
	e, ok := llm.AsError(err)
	if !ok || e.Kind != llm.KindNetwork || !e.Retryable() || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("err = %v", err)
	}
}

// TestCanceled: a cancelled context is the caller's, not the network's.
func TestCanceled(t *testing.T) {
	_, c := newClient(t)
	ctx, cancel := testContext(t)
	cancel()
	if _, err := c.Transcribe(ctx, "whisper-1", note); !errors.Is(err, ctx.Err()) {
		t.Fatalf("err = %v", err)
	}
}

// TestErrorWords: the errors read as sentences about the endpoint.
func TestErrorWords(t *testing.T) {
	srv, c := newClient(t)
	srv.EnqueueTranscriptions(llmtest.Heard{Status: 500})
	_, err := c.Transcribe(t.Context(), "whisper-1", note)
	if err == nil || !strings.HasPrefix(err.Error(), "speech-to-text server error (500): ") {
		t.Errorf("err = %v", err)
	}
}
