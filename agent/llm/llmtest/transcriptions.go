package llmtest

import (
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
)

// The speech-to-text endpoint (POST /v1/audio/transcriptions, OpenAI's
// shape, which whisper servers and other compatible ones also speak): a
// multipart/form-data request with the audio in "file", the "model" and
// an optional "response_format" (json, the default; verbose_json adds
// the audio's duration and language; text, srt, vtt). Answers are
// scripted apart from the chat replies, with EnqueueTranscriptions; a
// request that finds none gets a 500 saying so. Requests are recorded
// apart too (Transcriptions), so a test counting model calls counts no
// transcription.

// Heard is one scripted answer of the transcription endpoint.
type Heard struct {
	// Text is the transcript.
	Text string
	// Seconds is the duration verbose_json reports; 0 reports none.
	Seconds float64
	// Status, when non-zero, fails the request with OpenAI's error body
	// for it (429, 413, 500, …); Header adds headers such as Retry-After.
	Status int
	Header http.Header
	// Body, when set, is answered as it is with 200, for malformed
	// answers.
	Body string
	// JSONOnly refuses response_format verbose_json with a 400, as
	// servers that do not speak it do, and answers the retry with json
	// (no duration). The refusal does not take the reply.
	JSONOnly bool
}

// Transcription is one request to the transcription endpoint, as the
// fake parsed it.
type Transcription struct {
	Model          string
	ResponseFormat string
	Language       string
	// FileName and ContentType are the "file" part's; Data its bytes.
	FileName    string
	ContentType string
	Data        []byte
	// Authorization is the Authorization header the request carried.
	Authorization string
	// Problem says why the fake refused the request as malformed
	// (400): not multipart, no file, no model.
	Problem string
}

// EnqueueTranscriptions scripts the next transcription requests'
// answers, in order.
func (s *Server) EnqueueTranscriptions(heard ...Heard) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.heardQueue = append(s.heardQueue, heard...)
}

// Transcriptions returns every request to the transcription endpoint so
// far, in arrival order, refused ones included.
func (s *Server) Transcriptions() []Transcription {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Transcription(nil), s.heard...)
}

// maxAudio bounds what the fake reads of one request: OpenAI's limit on
// an uploaded file is 25 MB.
const maxAudio = 25 << 20

func (s *Server) transcriptions(w http.ResponseWriter, r *http.Request) {
	t := readTranscription(r)
	s.mu.Lock()
	s.heard = append(s.heard, t)
	s.mu.Unlock()
	p := openAI{}
	req := Request{Method: r.Method, Path: r.URL.Path, JSON: map[string]any{"model": t.Model}}
	switch {
	case s.apiKey != "" && p.key(r.Header) != s.apiKey:
		p.writeError(w, req, Status(http.StatusUnauthorized))
		return
	case t.Problem == "too large":
		p.writeError(w, req, Status(http.StatusRequestEntityTooLarge).WithMessage("Maximum content size limit (26214400) exceeded"))
		return
	case t.Problem != "":
		p.writeError(w, req, Status(http.StatusBadRequest).WithMessage(t.Problem))
		return
	}
	s.mu.Lock()
	var h Heard
	scripted := len(s.heardQueue) > 0
	if scripted {
		h = s.heardQueue[0]
		if h.JSONOnly && t.ResponseFormat == "verbose_json" {
			s.mu.Unlock()
			p.writeError(w, req, Status(http.StatusBadRequest).WithMessage("Unsupported response_format: verbose_json"))
			return
		}
		s.heardQueue = s.heardQueue[1:]
	}
	s.mu.Unlock()
	switch {
	case !scripted:
		p.writeError(w, req, Status(http.StatusInternalServerError).WithMessage("llmtest: no transcription scripted; EnqueueTranscriptions one per voice note"))
	case h.Status != 0:
		p.writeError(w, req, Reply{Status: h.Status, Header: h.Header})
	case h.Body != "":
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, h.Body)
	case t.ResponseFormat == "text":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, h.Text+"\n")
	case t.ResponseFormat == "verbose_json":
		body := map[string]any{"task": "transcribe", "language": "english", "text": h.Text, "segments": []any{}}
		if h.Seconds > 0 {
			body["duration"] = h.Seconds
		}
		writeJSON(w, http.StatusOK, h.Header, body)
	default:
		writeJSON(w, http.StatusOK, h.Header, map[string]any{"text": h.Text})
	}
}

// readTranscription parses r as OpenAI parses the request, saying in
// Problem what is missing.
func readTranscription(r *http.Request) Transcription {
	t := Transcription{Authorization: r.Header.Get("Authorization")}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		t.Problem = fmt.Sprintf("Content-Type is %q, want multipart/form-data", r.Header.Get("Content-Type"))
		return t
	}
	mr := multipart.NewReader(http.MaxBytesReader(nil, r.Body, maxAudio+1<<20), params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Problem = "malformed multipart body: " + err.Error()
			return t
		}
		b, err := io.ReadAll(io.LimitReader(part, maxAudio+1))
		if err != nil {
			t.Problem = "malformed multipart body: " + err.Error()
			return t
		}
		switch part.FormName() {
		case "file":
			if len(b) > maxAudio {
				t.Problem = "too large"
				return t
			}
			t.FileName, t.ContentType, t.Data = part.FileName(), part.Header.Get("Content-Type"), b
		case "model":
			t.Model = string(b)
		case "response_format":
			t.ResponseFormat = string(b)
		case "language":
			t.Language = string(b)
		}
	}
	switch {
	case t.FileName == "" && t.Data == nil:
		t.Problem = "you must provide a file"
	case t.Model == "":
		t.Problem = "you must provide a model parameter"
	case t.ResponseFormat != "" && t.ResponseFormat != "json" && t.ResponseFormat != "verbose_json" && t.ResponseFormat != "text":
		t.Problem = "unsupported response_format " + strconv.Quote(t.ResponseFormat)
	}
	return t
}
