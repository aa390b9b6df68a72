package discordtest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
)

// Discord's JSON error codes used by the fake.
const (
	codeUnknownChannel       = 10003
	codeUnknownGuild         = 10004
	codeUnknownMessage       = 10008
	codeUnknownUser          = 10013
	codeUnknownWebhook       = 10015
	codeUnknownInteraction   = 10062
	codeMissingAccess        = 50001
	codeCannotEditOthers     = 50005
	codeEmptyMessage         = 50006
	codeMissingPermissions   = 50013
	codeInvalidFormBody      = 50035
	codeInvalidJSON          = 50109
	codeAlreadyAcknowledged  = 40060
	codeThreadAlreadyCreated = 160004
	codeRequestTooLarge      = 40005
)

// apiError is Discord's error body: {"message", "code", "errors"?}.
type apiError struct {
	status  int
	Message string          `json:"message"`
	Code    int             `json:"code"`
	Errors  json.RawMessage `json:"errors,omitempty"`
}

func errBody(status, code int, msg string) *apiError {
	return &apiError{status: status, Message: msg, Code: code}
}

func notFound() *apiError { return errBody(http.StatusNotFound, 0, "404: Not Found") }

func unknownChannel() *apiError {
	return errBody(http.StatusNotFound, codeUnknownChannel, "Unknown Channel")
}

func unknownMessage() *apiError {
	return errBody(http.StatusNotFound, codeUnknownMessage, "Unknown Message")
}

func invalidJSON() *apiError {
	return errBody(http.StatusBadRequest, codeInvalidJSON, "The request body contains invalid JSON.")
}

func emptyMessage() *apiError {
	return errBody(http.StatusBadRequest, codeEmptyMessage, "Cannot send an empty message")
}

// formErrors collects Invalid Form Body errors by dotted field path
// ("components.0.components.1.custom_id").
type formErrors map[string][]fieldError

type fieldError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (f formErrors) add(path, code, msg string) {
	f[path] = append(f[path], fieldError{Code: code, Message: msg})
}

func (f formErrors) merge(other formErrors) {
	for k, v := range other {
		f[k] = append(f[k], v...)
	}
}

// apiError renders the errors nested by path segment, as Discord does, or
// returns nil when there are none.
func (f formErrors) apiError() *apiError {
	if len(f) == 0 {
		return nil
	}
	root := map[string]any{}
	for path, errs := range f {
		node := root
		for _, seg := range strings.Split(path, ".") {
			next, ok := node[seg].(map[string]any)
			if !ok {
				next = map[string]any{}
				node[seg] = next
			}
			node = next
		}
		node["_errors"] = errs
	}
	raw, _ := json.Marshal(root) // maps of strings and slices always marshal
	e := errBody(http.StatusBadRequest, codeInvalidFormBody, "Invalid Form Body")
	e.Errors = raw
	return e
}

func tooLong(errs formErrors, path string, max int) {
	errs.add(path, "BASE_TYPE_MAX_LENGTH", "Must be "+strconv.Itoa(max)+" or fewer in length.")
}

func itoa(i int) string { return strconv.Itoa(i) }

func writeJSON(w http.ResponseWriter, status int, body any) {
	if e, ok := body.(*apiError); ok && status == 0 {
		status = e.status
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if body != nil {
		_ = json.NewEncoder(w).Encode(body)
	}
}
