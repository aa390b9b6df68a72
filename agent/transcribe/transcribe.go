// Package transcribe turns speech into text through an OpenAI-compatible
// speech-to-text endpoint: POST {base_url}/audio/transcriptions, as
// OpenAI, whisper servers (whisper.cpp's, faster-whisper's) and other
// compatible ones serve it (docs/attachments.md#voice-notes-and-audio).
//
// The request is multipart/form-data with the audio in "file", the
// "model" and response_format verbose_json, whose answer says how long
// the audio plays; a server that refuses verbose_json is asked again
// with json, and the length is then unknown. Failures are llm.Errors,
// classified as the model providers' are: a rejected key, a rate limit
// (with its Retry-After), a server error, a refused request.
package transcribe

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/parleybot/parley/agent/llm"
)

// DefaultBaseURL is OpenAI's API, where a base URL of "" points.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultTimeout bounds one request when Config.Timeout is 0: ten
// minutes of audio take OpenAI well under a minute.
const DefaultTimeout = 2 * time.Minute

// maxAnswer bounds what is read of an answer: a transcript of an hour is
// some 60 kB; verbose_json's segments triple it.
const maxAnswer = 4 << 20

// ErrEmpty means the server heard no words in the audio.
var ErrEmpty = errors.New("no words were heard")

// ErrTooLarge means the server refused the audio for its size (413).
var ErrTooLarge = errors.New("the audio is larger than the transcription server accepts")

// Config says where and how to call the endpoint.
type Config struct {
	// BaseURL is the provider's base URL, as for its chat models ("" is
	// OpenAI's); the request goes to BaseURL + "/audio/transcriptions".
	BaseURL string
	// APIKey is sent as a Bearer token; "" sends none (a local server).
	APIKey string
	// Headers go with every request (a provider's configured headers).
	Headers map[string]string
	// HTTPClient makes the requests; nil is a client of its own.
	HTTPClient *http.Client
	// Timeout bounds each request, the upload included; 0 is
	// DefaultTimeout.
	Timeout time.Duration
	// Now reads a Retry-After given as a date; nil is time.Now.
	Now func() time.Time
}

// Client calls one endpoint. It is safe for concurrent use.
type Client struct {
	cfg Config
	url string
}

// New returns a client of the endpoint cfg names.
func New(cfg Config) *Client {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	base := strings.TrimRight(cmp.Or(cfg.BaseURL, DefaultBaseURL), "/")
	return &Client{cfg: cfg, url: base + "/audio/transcriptions"}
}

// Audio is a recording to transcribe.
type Audio struct {
	Name string // the file name, whose extension servers read the format from
	MIME string // the declared type, "" when unknown
	Data []byte
}

// Result is what was heard.
type Result struct {
	Text string
	// Duration is how long the audio plays, as the server measured it;
	// 0 when it did not say (a server without verbose_json).
	Duration time.Duration
	Language string
}

// Transcribe sends a to the endpoint for model (the provider's own name,
// "whisper-1") and returns the transcript. A transcript without words
// is ErrEmpty.
func (c *Client) Transcribe(ctx context.Context, model string, a Audio) (Result, error) {
	res, err := c.post(ctx, model, a, "verbose_json")
	if e, ok := llm.AsError(err); ok && e.Kind == llm.KindBadRequest && e.Status == http.StatusBadRequest && refusesVerbose(e.Message) {
		res, err = c.post(ctx, model, a, "json")
	}
	return res, err
}

// refusesVerbose reports whether a 400's message is about the response
// format: a server that speaks json only.
func refusesVerbose(msg string) bool {
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "response_format") || strings.Contains(msg, "verbose_json") || strings.Contains(msg, "response format")
}

func (c *Client) post(ctx context.Context, model string, a Audio, format string) (Result, error) {
	f, err := newForm(model, a, format)
	if err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	body, _ := f.body()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, body)
	if err != nil {
		return Result{}, fmt.Errorf("transcribe: %s: %w", shownURL(c.url), unwrapURL(err))
	}
	req.ContentLength, req.GetBody = f.size(), f.body
	req.Header.Set("Content-Type", f.typ)
	req.Header.Set("Accept", "application/json")
	for k, v := range c.cfg.Headers {
		req.Header.Set(k, v)
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			return Result{}, ctx.Err()
		}
		// The URL error would repeat the URL; the key is in no URL.
		return Result{}, &llm.Error{Provider: provider, Kind: llm.KindNetwork, URL: shownURL(c.url), Err: unwrapURL(err)}
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return Result{}, &llm.Error{Provider: provider, Kind: llm.KindNetwork, URL: shownURL(c.url), Message: "the answer broke off", Err: unwrapURL(err)}
	}
	if resp.StatusCode != http.StatusOK {
		return Result{}, c.statusError(resp, answer)
	}
	if len(answer) > maxAnswer {
		return Result{}, fmt.Errorf("transcribe: the answer is larger than %d bytes", maxAnswer)
	}
	return Parse(answer, resp.Header.Get("Content-Type"))
}

// provider names the endpoint in errors.
const provider = "speech-to-text"

// statusError classifies a failed answer.
func (c *Client) statusError(resp *http.Response, body []byte) error {
	e := &llm.Error{
		Provider:   provider,
		Kind:       llm.StatusKind(resp.StatusCode, false, false),
		Status:     resp.StatusCode,
		URL:        shownURL(c.url),
		RetryAfter: llm.RetryAfter(resp.Header, c.cfg.Now()),
		Message:    errorMessage(body),
	}
	if resp.StatusCode == http.StatusRequestEntityTooLarge {
		e.Err = ErrTooLarge
		e.Message = cmp.Or(e.Message, ErrTooLarge.Error())
	}
	return e
}

// form is the multipart body of a request: the fields, then the file.
// The audio is not copied: the body reads the part's header, the audio
// as it is, and the closing boundary in turn.
type form struct {
	head, tail []byte
	data       []byte
	typ        string
}

func newForm(model string, a Audio, format string) (form, error) {
	var head, tail bytes.Buffer
	out := &switchWriter{w: &head}
	w := multipart.NewWriter(out)
	for _, f := range [][2]string{{"model", model}, {"response_format", format}} {
		if err := w.WriteField(f[0], f[1]); err != nil {
			return form{}, fmt.Errorf("transcribe: %w", err)
		}
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, fileName(a)))
	h.Set("Content-Type", cmp.Or(a.MIME, "application/octet-stream"))
	if _, err := w.CreatePart(h); err != nil {
		return form{}, fmt.Errorf("transcribe: %w", err)
	}
	out.w = &tail
	if err := w.Close(); err != nil {
		return form{}, fmt.Errorf("transcribe: %w", err)
	}
	return form{head: head.Bytes(), tail: tail.Bytes(), data: a.Data, typ: w.FormDataContentType()}, nil
}

// size is the body's length in bytes.
func (f form) size() int64 { return int64(len(f.head) + len(f.data) + len(f.tail)) }

// body reads the body from its start, as often as the transport asks.
func (f form) body() (io.ReadCloser, error) {
	return io.NopCloser(io.MultiReader(bytes.NewReader(f.head), bytes.NewReader(f.data), bytes.NewReader(f.tail))), nil
}

// switchWriter writes to w, which may change between writes.
type switchWriter struct{ w io.Writer }

func (s *switchWriter) Write(p []byte) (int, error) { return s.w.Write(p) }

// fileName is the name the file is sent under: servers read the format
// from its extension, so one is added from the type when the name has
// none (Telegram's voice notes come unnamed).
func fileName(a Audio) string {
	name := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || r == '"' || r == '\\' || r == '/' {
			return '_'
		}
		return r
	}, strings.TrimSpace(a.Name))
	name = cmp.Or(name, "audio")
	if strings.Contains(name, ".") {
		return name
	}
	return name + Extension(a.MIME)
}

// Extension is the file extension of an audio type (".ogg" for
// audio/ogg), "" when unknown.
func Extension(mimeType string) string {
	t, _, _ := strings.Cut(strings.ToLower(mimeType), ";")
	switch strings.TrimSpace(t) {
	case "audio/ogg", "audio/opus":
		return ".ogg"
	case "audio/mpeg", "audio/mp3":
		return ".mp3"
	case "audio/mp4", "audio/m4a", "audio/x-m4a", "audio/aac":
		return ".m4a"
	case "audio/wav", "audio/x-wav", "audio/wave":
		return ".wav"
	case "audio/webm":
		return ".webm"
	case "audio/flac", "audio/x-flac":
		return ".flac"
	}
	return ""
}

// shownURL is u without credentials or query: what errors may show.
func shownURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "the configured base URL"
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return p.String()
}

// unwrapURL drops a *url.Error's repetition of the method and URL.
func unwrapURL(err error) error {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err
	}
	return err
}
