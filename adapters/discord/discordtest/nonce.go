package discordtest

import (
	"encoding/json"
	"strconv"
	"time"
)

// Discord's create-message nonce (docs "Create Message": nonce, an integer
// or a string of at most 25 characters; enforce_nonce): "If true and nonce
// is present, it will be checked for uniqueness in the past few minutes.
// If another message was created by the same author with the same nonce,
// that message will be returned and no new message will be created." The
// window is not documented more precisely (unconfirmed); the fake keeps a
// nonce for NonceWindow, 2 minutes unless WithNonceWindow says otherwise.

// defaultNonceWindow is how long the fake remembers an enforced nonce.
const defaultNonceWindow = 2 * time.Minute

// maxNonceLen is the longest string nonce Discord accepts.
const maxNonceLen = 25

// WithNonceWindow sets how long a create with enforce_nonce returns the
// message an earlier create with the same nonce made.
func WithNonceWindow(d time.Duration) Option { return func(o *options) { o.nonceWindow = d } }

// nonceEntry is a message created with an enforced nonce.
type nonceEntry struct {
	id string
	at time.Time
}

// readNonce validates a create's nonce and returns it as a string ("" for
// none).
func readNonce(raw json.RawMessage) (string, *apiError) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var str string
	if err := json.Unmarshal(raw, &str); err == nil {
		if len(str) > maxNonceLen {
			errs := formErrors{}
			errs.add("nonce", "BASE_TYPE_MAX_LENGTH", "Must be "+strconv.Itoa(maxNonceLen)+" or fewer in length.")
			return "", errs.apiError()
		}
		return str, nil
	}
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil {
		errs := formErrors{}
		errs.add("nonce", "NONCE_TYPE_INVALID", "Nonce must be an integer or a string.")
		return "", errs.apiError()
	}
	return strconv.FormatInt(n, 10), nil
}

// enforcedNonceLocked returns the message an earlier create by author made
// with nonce within the window, if any.
func (s *Server) enforcedNonceLocked(author, nonce string) (*message, bool) {
	e, ok := s.w.nonces[author+"/"+nonce]
	if !ok || s.now().Sub(e.at) >= s.opts.nonceWindow {
		return nil, false
	}
	m, ok := s.w.messages[e.id]
	if !ok || m.deleted {
		return nil, false
	}
	return m, true
}

// rememberNonceLocked records that m was created with nonce, enforced.
func (s *Server) rememberNonceLocked(m *message, nonce string) {
	now := s.now()
	for k, e := range s.w.nonces {
		if now.Sub(e.at) >= s.opts.nonceWindow {
			delete(s.w.nonces, k)
		}
	}
	s.w.nonces[m.authorID+"/"+nonce] = nonceEntry{id: m.id, at: now}
}

// NonceReturns counts creates answered with an earlier message because of
// their enforced nonce: the retries that did not post twice.
func (s *Server) NonceReturns() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nonceReturns
}
