package llmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// sseWriter writes Server-Sent Events, flushing after each one so the
// client's SDK sees every event as it would from a real provider, not one
// buffered blob at the end.
type sseWriter struct {
	ctx  context.Context // the request's: a pause ends when the client goes
	w    http.ResponseWriter
	rc   *http.ResponseController
	data bytes.Buffer // one event's JSON
	enc  *json.Encoder
	buf  []byte
	err  error // first write error; the client went away, later writes are skipped
}

// startSSE sends the 200 header of an event stream.
func startSSE(ctx context.Context, w http.ResponseWriter, extra http.Header) *sseWriter {
	h := w.Header()
	for k, v := range extra {
		h[k] = v
	}
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	s := &sseWriter{ctx: ctx, w: w, rc: http.NewResponseController(w)}
	s.enc = newEncoder(&s.data)
	return s
}

// pause waits d between two events, as a model that writes slowly does;
// the client going away ends it, and the rest of the stream is skipped.
func (s *sseWriter) pause(d time.Duration) {
	if d <= 0 || s.err != nil {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.ctx.Done():
		s.err = s.ctx.Err()
	}
}

// event writes one event; an empty name writes a data-only event (OpenAI).
func (s *sseWriter) event(name string, data any) {
	s.data.Reset()
	if err := s.enc.Encode(data); err != nil {
		panic("llmtest: cannot encode event: " + err.Error()) // our own types: a bug here
	}
	s.write(name, bytes.TrimSuffix(s.data.Bytes(), []byte("\n")))
}

func (s *sseWriter) write(name string, data []byte) {
	if s.err != nil {
		return
	}
	s.buf = s.buf[:0]
	if name != "" {
		s.buf = append(s.buf, "event: "...)
		s.buf = append(s.buf, name...)
		s.buf = append(s.buf, '\n')
	}
	s.buf = append(s.buf, "data: "...)
	s.buf = append(s.buf, data...)
	s.buf = append(s.buf, "\n\n"...)
	if _, s.err = s.w.Write(s.buf); s.err == nil {
		s.err = s.rc.Flush()
	}
}

// writeJSON answers a plain JSON body (errors, model lists).
func writeJSON(w http.ResponseWriter, status int, extra http.Header, body any) {
	h := w.Header()
	for k, v := range extra {
		h[k] = v
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = newEncoder(w).Encode(body)
}

// newEncoder writes JSON as the providers do: <, > and & stay literal
// ("tokens > maximum"), where encoding/json would escape them for HTML.
func newEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
