package webfetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/parleybot/parley/agent"
)

// accept lists what we can use, best first, so content-negotiating servers
// send text rather than something we would refuse.
const accept = "text/html,application/xhtml+xml;q=0.9,text/markdown;q=0.9,text/plain;q=0.8," +
	"application/json;q=0.8,application/xml;q=0.7,*/*;q=0.1"

// timeoutError is the cause attached to the fetch deadline, which tells our
// own timeout apart from the caller cancelling the turn.
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string { return fmt.Sprintf("timed out after %s", e.d) }
func (e *timeoutError) Unwrap() error { return context.DeadlineExceeded }

// redirectLimitError is returned when a fetch would follow more redirects
// than allowed (redirect loops included).
type redirectLimitError struct{ max int }

func (e *redirectLimitError) Error() string {
	return fmt.Sprintf("too many redirects (the limit is %d)", e.max)
}

// redirectURLError is a redirect to a URL we would not fetch at all.
type redirectURLError struct {
	target string
	err    error
}

func (e *redirectURLError) Error() string {
	return fmt.Sprintf("refused: redirect to %s (%v)", e.target, e.err)
}
func (e *redirectURLError) Unwrap() error { return e.err }

// statusError is a non-2xx response.
type statusError struct {
	code  int
	text  string
	final string // set when redirects led somewhere else
}

// Transient: the server was overloaded, rate-limited the fetch or failed
// (408, 429, 500, 502, 503, 504); other statuses are answers about the
// URL (404, 403, 501) and are the call's.
func (e *statusError) Transient() bool {
	switch e.code {
	case http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
		http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// transportError is a fetch whose connection failed or broke before the
// page was read. Only here, where the error came from the HTTP transport,
// does an EOF mean the network: the server or something between dropped
// the connection.
type transportError struct{ err error }

func (e *transportError) Error() string { return "fetch failed: " + e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// Transient reads the transport's typed error: refused, reset, timed out,
// unreachable, or cut short.
func (e *transportError) Transient() bool {
	return agent.Transient(e.err) || errors.Is(e.err, io.EOF) || errors.Is(e.err, io.ErrUnexpectedEOF)
}

func (e *statusError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.code, e.text)
	if e.final != "" {
		s += " (at " + e.final + ", after redirects)"
	}
	return s
}

// fetch runs one web_fetch call.
func (f *fetcher) fetch(ctx context.Context, raw string) (string, error) {
	ctx, cancel := f.withDeadline(ctx)
	defer cancel()
	resp, hop, err := f.get(ctx, raw, accept)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	final := resp.Request.URL

	contentType := resp.Header.Get("Content-Type")
	kind, err := classifyContentType(contentType)
	if err != nil {
		return "", err // before reading a body we cannot use
	}
	body, cut, err := readCapped(resp.Body, f.opts.MaxBytes)
	if err != nil {
		return "", describe(ctx, err, hop)
	}
	if kind == kindUnknown {
		// No Content-Type: sniff like a browser would. The sniffed charset
		// is a guess, so decoding still looks only at the header and body.
		if kind, err = classifyContentType(http.DetectContentType(body)); err != nil {
			return "", err
		}
	}

	page, err := f.extract(ctx, kind, contentType, body, final)
	if err != nil {
		err = describe(ctx, err, hop)
		if te, ok := errors.AsType[*transportError](err); ok {
			// The page was read whole: what failed is reading it, not
			// the network, whatever the error wraps.
			err = fmt.Errorf("fetch failed: %w", te.err)
		}
		return "", err
	}
	return render(page, final, f.opts.MaxChars, cut, f.opts.MaxBytes), nil
}

// withDeadline bounds a whole fetch by opts.Timeout: connect, redirects,
// headers, body and whatever the caller does with the body under the same
// context (the tool's conversion). The cause tells our own timeout apart
// from the caller cancelling.
func (f *fetcher) withDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, f.opts.Timeout, &timeoutError{f.opts.Timeout})
}

// get sends one guarded GET for raw and returns the 2xx response, whose
// body the caller closes, and the last redirect target followed (empty
// when none), which later errors name through describe. ctx should carry
// the fetch deadline (withDeadline). Every way of failing comes back as an
// error the model can act on: a bad URL, a refused host, a redirect
// refused or over the limit, a non-2xx status, a timeout.
func (f *fetcher) get(ctx context.Context, raw, accept string) (*http.Response, string, error) {
	u, err := parseURL(raw)
	if err != nil {
		return nil, "", err
	}
	if err := f.guard.checkHost(u.Hostname()); err != nil {
		return nil, "", err
	}

	// hop is the last redirect target followed, so a refusal at dial time
	// can name it. CheckRedirect runs on the goroutine calling Do, so this
	// per-call client needs no locking.
	var hop string
	client := &http.Client{
		Transport: f.transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > f.opts.MaxRedirects {
				return &redirectLimitError{max: f.opts.MaxRedirects}
			}
			target := req.URL.Redacted()
			next, err := checkURL(req.URL)
			if err != nil {
				return &redirectURLError{target: target, err: err}
			}
			if err := f.guard.checkHost(next.Hostname()); err != nil {
				if re, ok := errors.AsType[*refusedError](err); ok {
					re.redirect = target
				}
				return err
			}
			// Send what was checked (normalized host, escaped query).
			req.URL = next
			hop = next.String()
			return nil
		},
	}

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, "", fmt.Errorf("invalid URL: %w", err)
	}
	req.Header.Set("User-Agent", f.opts.UserAgent)
	req.Header.Set("Accept", accept)

	resp, err := client.Do(req)
	if err != nil {
		return nil, hop, describe(ctx, err, hop)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		resp.Body.Close()
		se := &statusError{code: resp.StatusCode, text: http.StatusText(resp.StatusCode)}
		if se.text == "" {
			se.text = strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode)+" ")
		}
		if hop != "" {
			se.final = resp.Request.URL.Redacted()
		}
		return nil, hop, se
	}
	return resp, hop, nil
}

// readCapped reads at most max bytes and reports whether there was more.
func readCapped(r io.Reader, max int64) ([]byte, bool, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, false, fmt.Errorf("reading body: %w", err)
	}
	if int64(len(b)) > max {
		return b[:max], true, nil
	}
	return b, false, nil
}

// describe turns a client error into one sentence the model can act on.
func describe(ctx context.Context, err error, hop string) error {
	if re, ok := errors.AsType[*refusedError](err); ok {
		if re.redirect == "" && hop != "" {
			re.redirect = hop
		}
		return re
	}
	if e, ok := errors.AsType[*redirectLimitError](err); ok {
		return e
	}
	if e, ok := errors.AsType[*redirectURLError](err); ok {
		return e
	}
	if ctx.Err() != nil {
		if te, ok := context.Cause(ctx).(*timeoutError); ok {
			return te
		}
		return fmt.Errorf("fetch cancelled: %w", context.Cause(ctx))
	}
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err // url.Error repeats method and URL
	}
	return &transportError{err}
}
