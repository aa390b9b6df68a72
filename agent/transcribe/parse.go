package transcribe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"mime"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// maxDuration bounds a duration a server reports: more is no recording
// a chat carries, and would overflow arithmetic on it.
const maxDuration = 24 * time.Hour

// Parse reads an answer of the endpoint: JSON with "text" (json), and
// "duration" in seconds and "language" (verbose_json); or, from a server
// that answers text/plain whatever was asked, the transcript itself. A
// transcript without words is ErrEmpty.
func Parse(body []byte, contentType string) (Result, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	trimmed := bytes.TrimSpace(body)
	if mt == "text/plain" && (len(trimmed) == 0 || trimmed[0] != '{') {
		if !utf8.Valid(trimmed) {
			return Result{}, fmt.Errorf("transcribe: the answer is not UTF-8 text")
		}
		return words(Result{Text: string(trimmed)})
	}
	var raw struct {
		Text     *string         `json:"text"`
		Duration json.RawMessage `json:"duration"`
		Language string          `json:"language"`
	}
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		return Result{}, fmt.Errorf("transcribe: the answer is not the JSON of a transcript: %s", clip(err.Error()))
	}
	if raw.Text == nil {
		return Result{}, fmt.Errorf("transcribe: the answer has no text")
	}
	d, err := seconds(raw.Duration)
	if err != nil {
		return Result{}, err
	}
	return words(Result{Text: *raw.Text, Duration: d, Language: clip(raw.Language)})
}

// words trims r's text and refuses one with none.
func words(r Result) (Result, error) {
	r.Text = strings.TrimSpace(strings.ToValidUTF8(r.Text, "\uFFFD"))
	if r.Text == "" {
		return Result{}, ErrEmpty
	}
	return r, nil
}

// seconds reads a duration in seconds: a number, or a number in a string
// (some servers quote it); absent or null is 0, unknown.
func seconds(raw json.RawMessage) (time.Duration, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return 0, nil
	}
	if unq, err := strconv.Unquote(s); err == nil {
		s = strings.TrimSpace(unq)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return 0, fmt.Errorf("transcribe: the answer's duration %s is not a number of seconds", clip(string(raw)))
	}
	if v*float64(time.Second) >= float64(maxDuration) {
		return maxDuration, nil
	}
	return time.Duration(v * float64(time.Second)), nil
}

// errorMessage is a failed answer's explanation: OpenAI's
// {"error":{"message"}}, FastAPI's {"detail"}, {"error":"…"}, or the
// text itself, on one line and clipped.
func errorMessage(body []byte) string {
	var e struct {
		Error  json.RawMessage `json:"error"`
		Detail json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &e) == nil {
		var nested struct {
			Message string `json:"message"`
		}
		var s string
		switch {
		case json.Unmarshal(e.Error, &nested) == nil && nested.Message != "":
			return clip(nested.Message)
		case json.Unmarshal(e.Error, &s) == nil && s != "":
			return clip(s)
		case json.Unmarshal(e.Detail, &s) == nil && s != "":
			return clip(s)
		case len(e.Detail) > 0:
			return clip(string(e.Detail))
		}
	}
	if !utf8.Valid(body) {
		return ""
	}
	return clip(string(body))
}

// clip puts s on one line of at most 200 characters.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= 200 {
		return s
	}
	r := []rune(s)
	return string(r[:200]) + "…"
}
