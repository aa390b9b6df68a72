package metrics

import (
	"net/http"

	"github.com/parleybot/parley/chat"
)

// Transport wraps next (nil: http.DefaultTransport) to count the API
// requests of platform's adapter: by method (as the platform's
// description names them), the 429s among them, the edits it accepted,
// and failures by class. Adapters take an *http.Client, so this needs no
// change to them, and it sees every call — sends, edits, streams, polls
// and downloads — whoever makes it.
func (r *Recorder) Transport(platform chat.Platform, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return transport{r: r, platform: r.platformLabel(platform.Name), desc: platform, next: next}
}

type transport struct {
	r        *Recorder
	platform string
	desc     chat.Platform
	next     http.RoundTripper
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	method := "other"
	if t.desc.Method != nil {
		method = t.desc.Method(req)
	}
	resp, err := t.next.RoundTrip(req)
	t.r.calls.WithLabelValues(t.platform, method).Inc()
	switch {
	case err != nil:
		if req.Context().Err() == nil { // a cancelled long poll is no failure
			t.r.errors.WithLabelValues(t.platform, "network").Inc()
		}
	case resp.StatusCode == http.StatusTooManyRequests:
		t.r.rateLimited.WithLabelValues(t.platform, method).Inc()
		t.r.errors.WithLabelValues(t.platform, "rate_limit").Inc()
	case resp.StatusCode >= 500:
		t.r.errors.WithLabelValues(t.platform, "server").Inc()
	case resp.StatusCode >= 400:
		t.r.errors.WithLabelValues(t.platform, "client").Inc()
	case t.desc.IsEdit != nil && t.desc.IsEdit(method):
		t.r.edits.WithLabelValues(t.platform).Inc()
	}
	return resp, err
}
